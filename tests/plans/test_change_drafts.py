"""Plan graphs for changes of existing events (issue #23, decision 0056): the write with the
event's UID, instance, ETag and SEQUENCE, its read-back, one iTIP message per attendee.

Expected params are written out here from contracts C3/C4 and RFC 5546, not built by the
code under test; the idempotency keys and the split series' UID (decision 0050) are
recomputed with hashlib. Every draft is validated against the built-in capabilities.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from typing import Any

import pytest

import cerebri
from cerebri.cpir import MutationKind
from cerebri.planner import (
    Action,
    ActionPlan,
    action_plan_for,
    to_action_plan,
    validate_proposal,
)
from cerebri.plans import (
    DraftError,
    PlanDraft,
    StepSpec,
    builtin_registry,
    draft_from_action_plan,
    parse_draft,
    validate_draft,
)
from cerebri.plans.change_facts import change_inputs
from tests.planner.change_helpers import CURRENT, request_for
from tests.planner.helpers import EXAMPLE

UID = "series-1@example.com"
RID = "2026-10-12T07:00:00Z"
ORGANIZER = "mailto:olga@example.com"
ATTENDEES = [
    {"address": "mailto:Zoe@example.com", "name": None, "required": False, "calendar_id": None},
    {"address": "mailto:bob@example.com", "name": "Bob", "required": True, "calendar_id": "bob"},
    {"address": ORGANIZER, "name": "Olga", "required": True, "calendar_id": "work"},
    {"address": "mailto:al@example.com", "name": None, "required": True, "calendar_id": "al"},
]
NOW = {"start": "2026-10-12T07:00:00Z", "end": "2026-10-12T08:00:00Z"}

# -- builders -------------------------------------------------------------------------------


def _plan(kind: MutationKind, *, revision: int | None = 4) -> tuple[ActionPlan, Action]:
    request = cerebri.parse_request(EXAMPLE.read_bytes())
    best = cerebri.plan(request).candidates[0]
    plan = to_action_plan(validate_proposal(request, best.proposed.placements, request.context))
    (action,) = plan.actions
    action = dataclasses.replace(action, kind=kind, expected_revision=revision)
    return dataclasses.replace(plan, actions=(action,)), action


def _change(scope: str = "INSTANCE", **extra: Any) -> dict[str, Any]:
    return {
        "uid": UID,
        "scope": scope,
        "recurrence_id": None if scope == "SERIES" else RID,
        "etag": '"etag-7"',
        "sequence": 4,
        "title": None,
        "location": None,
        "organizer": ORGANIZER,
        "attendees": ATTENDEES,
        **extra,
    }


def _span(action: Action) -> dict[str, str]:
    return {"start": str(action.placement.range.start), "end": str(action.placement.range.end)}


def _key(action: Action, address: str) -> str:
    digest = hashlib.sha256(address.lower().encode()).hexdigest()[:16]
    return f"{action.idempotency_key}-itip-{digest}"


def _split_uid(action: Action) -> str:
    """decision 0050: sha256 over uid, recurrence id and the change's key, 32 hex digits."""
    text = "\x00".join((UID, RID, action.idempotency_key))
    return hashlib.sha256(text.encode()).hexdigest()[:32] + "-split@cerebri"


def _sends(draft: PlanDraft) -> list[StepSpec]:
    return [s for s in draft.steps if s.capability == "message.itip.send"]


def _message_keys(n: int) -> list[str]:
    return [k for j in range(n) for k in (f"itip-0-{j}", f"sent-0-{j}")]


def _copy_keys(n: int) -> list[str]:
    return [k for j in range(n) for k in (f"deliver-0-{j}", f"copied-0-{j}")]


def _copy_key(action: Action, address: str) -> str:
    digest = hashlib.sha256(address.lower().encode()).hexdigest()[:16]
    return f"{action.idempotency_key}-copy-{digest}"


def _delivers(draft: PlanDraft) -> list[StepSpec]:
    return [s for s in draft.steps if s.capability == "calendar.itip.deliver"]


def _copied(draft: PlanDraft, deliver: StepSpec) -> tuple[Any, ...]:
    """(params, path, op, value) of the read-back of ``deliver``."""
    (found,) = [s for s in draft.steps if s.verify is not None and s.verify.of == deliver.key]
    assert found.depends_on == (deliver.key,)
    assert found.verify is not None
    check = found.verify.check
    assert (check.capability, check.target) == ("calendar.event.get", deliver.target)
    return (check.params, check.path, check.op, check.value)


def _valid(draft: PlanDraft) -> PlanDraft:
    assert validate_draft(draft, builtin_registry()).problems == ()
    assert parse_draft(json.dumps(draft.to_wire())) == draft
    return draft


def _people(*addresses: str) -> list[dict[str, Any]]:
    return [a for a in ATTENDEES_SORTED if a["address"] in addresses]


ATTENDEES_SORTED = sorted(ATTENDEES, key=lambda a: a["address"].lower())
RECIPIENTS = ["mailto:al@example.com", "mailto:bob@example.com", "mailto:Zoe@example.com"]


# -- reschedule -----------------------------------------------------------------------------


def test_reschedule_one_instance_writes_verifies_then_tells_each_attendee() -> None:
    plan, action = _plan(MutationKind.MOVE_EVENT)
    draft = _valid(
        draft_from_action_plan(
            plan,
            change=_change(),
            current={action.target: NOW},
            titles={action.target: "Review"},
            zones={action.target: "Europe/Berlin"},
        )
    )
    keys = [s.key for s in draft.steps]
    # al's and bob's calendars are known: the change is delivered there too (decision 0057)
    assert keys == ["move-0", "verify-0", *_message_keys(3), *_copy_keys(2), "record"]
    move, verify = draft.steps[:2]
    assert move.capability == "calendar.event.move"
    assert move.target == action.target
    assert move.require_approval is True
    assert move.params == {
        "calendar_id": "work",
        "integration_id": action.integration_id,
        "object_id": action.target,
        "idempotency_key": action.idempotency_key,
        **_span(action),
        "uid": UID,
        "recurrence_id": RID,
        "scope": "INSTANCE",
        "expected_etag": '"etag-7"',
        "expected_revision": 4,
        # the organizer's calendar and every required attendee's, not Zoe's (optional)
        "check_calendar_ids": ["al", "bob", "work"],
        "organizer": ORGANIZER,
        "attendees": ATTENDEES_SORTED,
        "timezone": "Europe/Berlin",
        "current": {**NOW, "title": "Review", "location": None, "attendees": ATTENDEES_SORTED},
    }
    read = {"calendar_id": "work", "object_id": action.target, "uid": UID, "recurrence_id": RID}
    read["timezone"] = "Europe/Berlin"  # the zone the plan used (all-day events, decision 0056)
    assert move.precondition is not None and move.precondition.satisfied_if_false
    pre = move.precondition.check
    assert (pre.capability, pre.params, pre.path, pre.op, pre.value) == (
        "calendar.event.get",
        read,
        "range",
        "ne",
        _span(action),
    )
    assert verify.verify is not None and verify.depends_on == ("move-0",)
    check = verify.verify.check
    assert (check.params, check.path, check.op, check.value) == (read, "range", "eq", _span(action))
    sends = _sends(draft)
    assert [s.target for s in sends] == RECIPIENTS
    for number, (send, address) in enumerate(zip(sends, RECIPIENTS, strict=True)):
        assert send.depends_on == ("verify-0",)
        assert send.require_approval is False
        assert send.max_attempts == 1
        assert send.params == {
            "calendar_id": "work",
            "uid": UID,
            "recurrence_id": RID,
            "method": "REQUEST",
            "sequence": 5,
            "recipient": address,
            "organizer": ORGANIZER,
            "attendees": ATTENDEES_SORTED,
            "idempotency_key": _key(action, address),
        }
        sent = draft.step(f"sent-0-{number}")
        assert sent is not None and sent.verify is not None
        assert (sent.depends_on, sent.verify.of) == ((send.key,), send.key)
        observed = sent.verify.check
        assert (observed.capability, observed.target, observed.params) == (
            "message.itip.get",
            address,
            {"idempotency_key": _key(action, address), "recipient": address},
        )
        assert (observed.path, observed.op, observed.value) == ("done", "eq", True)
    delivers = _delivers(draft)
    for deliver, (address, calendar) in zip(
        delivers, [("mailto:al@example.com", "al"), ("mailto:bob@example.com", "bob")], strict=True
    ):
        assert deliver.depends_on == ("verify-0",)
        assert deliver.require_approval is False
        assert deliver.target == UID
        assert deliver.params == {
            "calendar_id": calendar,
            "organizer_calendar_id": "work",
            "uid": UID,
            "method": "REQUEST",
            "sequence": 5,
            "attendee": address,
            "idempotency_key": _copy_key(action, address),
        }
        at = {"calendar_id": calendar, "object_id": UID, "uid": UID, "recurrence_id": RID}
        at["timezone"] = "Europe/Berlin"  # the copy is read in the plan's zone too (0073)
        assert _copied(draft, deliver) == (at, "sequence", "eq", 5)
    record = draft.steps[-1]
    assert record.depends_on == (
        "verify-0",
        "sent-0-0",
        "sent-0-1",
        "sent-0-2",
        "copied-0-0",
        "copied-0-1",
    )
    assert draft.require_approval is True
    assert draft.estimate.human_approvals == 1


@pytest.mark.parametrize(
    ("scope", "rid", "read_at", "message_rid"),
    [
        ("SERIES", None, None, None),
        # a whole series named by one instance reads back at that instance's new start
        ("SERIES", RID, "new start", None),
    ],
)
def test_reschedule_a_series_reads_back_where_the_instance_lands(
    scope: str, rid: str | None, read_at: str | None, message_rid: str | None
) -> None:
    plan, action = _plan(MutationKind.MOVE_EVENT)
    draft = _valid(draft_from_action_plan(plan, change=_change(scope, recurrence_id=rid)))
    move, verify = draft.steps[:2]
    assert move.params is not None
    assert (move.params["scope"], move.params["recurrence_id"]) == (scope, rid)
    assert verify.verify is not None
    expected = _span(action)["start"] if read_at == "new start" else read_at
    assert verify.verify.check.params is not None
    assert verify.verify.check.params.get("recurrence_id") == expected
    assert {s.params["recurrence_id"] for s in _sends(draft) if s.params} == {message_rid}


@pytest.mark.parametrize("kind", [MutationKind.MOVE_EVENT, MutationKind.UPDATE_EVENT])
def test_this_and_future_reads_the_split_series_and_tells_both(kind: MutationKind) -> None:
    plan, action = _plan(kind)
    draft = _valid(draft_from_action_plan(plan, change=_change("THIS_AND_FUTURE")))
    write, verify = draft.steps[:2]
    assert write.params is not None
    assert (write.params["scope"], write.params["recurrence_id"]) == ("THIS_AND_FUTURE", RID)
    new_uid = _split_uid(action)
    read = {"calendar_id": "work", "object_id": action.target, "uid": new_uid}
    # the new series did not exist before the change: its range proves the write
    assert write.precondition is not None
    pre = write.precondition.check
    assert (pre.params, pre.path, pre.op, pre.value) == (read, "range", "ne", _span(action))
    assert verify.verify is not None
    check = verify.verify.check
    assert (check.params, check.path, check.op, check.value) == (read, "range", "eq", _span(action))
    told = [
        (s.params["recipient"], s.params["uid"], s.params["sequence"], s.params["idempotency_key"])
        for s in _sends(draft)
        if s.params
    ]
    assert told == [
        row
        for address in RECIPIENTS
        for row in (
            (address, UID, 5, _key(action, address)),  # the old series, shortened
            (address, new_uid, 0, _key(action, address) + "-split"),  # the new series
        )
    ]
    assert {s.params["recurrence_id"] for s in _sends(draft) if s.params} == {None}
    # both series are delivered into al's and bob's calendars, each read back by its master
    delivered = [
        (d.params["calendar_id"], d.params["uid"], d.params["sequence"], _copied(draft, d))
        for d in _delivers(draft)
        if d.params
    ]
    assert delivered == [
        (calendar, uid, sequence, (
            {"calendar_id": calendar, "object_id": uid, "uid": uid}, "sequence", "eq", sequence
        ))
        for calendar in ("al", "bob")
        for uid, sequence in ((UID, 5), (new_uid, 0))
    ]  # fmt: skip


# -- cancel ---------------------------------------------------------------------------------


@pytest.mark.parametrize("scope", ["INSTANCE", "SERIES"])
def test_cancel_sends_cancel_to_every_attendee_and_is_satisfied_when_gone(scope: str) -> None:
    plan, action = _plan(MutationKind.DELETE_EVENT)
    draft = _valid(
        draft_from_action_plan(
            plan,
            change=_change(scope),
            current={action.target: NOW},
            titles={action.target: "Weekly"},
            zones={action.target: "Europe/Berlin"},
        )
    )
    assert [s.key for s in draft.steps] == [
        "cancel-0",
        "verify-0",
        *_message_keys(3),
        *_copy_keys(2),
        "record",
    ]
    cancel, verify = draft.steps[:2]
    rid = None if scope == "SERIES" else RID
    assert cancel.capability == "calendar.event.cancel"
    assert cancel.params == {
        "calendar_id": "work",
        "integration_id": action.integration_id,
        "object_id": action.target,
        "idempotency_key": action.idempotency_key,
        "uid": UID,
        "recurrence_id": rid,
        "scope": scope,
        "expected_etag": '"etag-7"',
        "expected_revision": 4,
        "organizer": ORGANIZER,
        "attendees": ATTENDEES_SORTED,
        "timezone": "Europe/Berlin",
        "current": {**NOW, "title": "Weekly", "location": None, "attendees": ATTENDEES_SORTED},
    }
    read = {"calendar_id": "work", "object_id": action.target, "uid": UID}
    read["timezone"] = "Europe/Berlin"
    if rid is not None:
        read["recurrence_id"] = rid
    # an event already gone is the wanted state: the cancel is skipped as satisfied
    assert cancel.precondition is not None and cancel.precondition.satisfied_if_false
    pre = cancel.precondition.check
    assert (pre.params, pre.path, pre.op, pre.value) == (read, "exists", "eq", True)
    assert verify.verify is not None
    check = verify.verify.check
    assert (check.params, check.path, check.op, check.value) == (read, "exists", "eq", False)
    told = [(s.params["method"], s.params["sequence"], s.params["recurrence_id"], s.params["title"])
            for s in _sends(draft) if s.params]  # fmt: skip
    assert told == [("CANCEL", 5, rid, "Weekly")] * 3
    # each copy is gone afterwards: the event (whole cancel) or the instance
    for deliver, calendar in zip(_delivers(draft), ("al", "bob"), strict=True):
        assert deliver.params is not None
        assert (deliver.params["method"], deliver.params["calendar_id"]) == ("CANCEL", calendar)
        at = {"calendar_id": calendar, "object_id": UID, "uid": UID}
        if rid is not None:
            at["recurrence_id"] = rid
        at["timezone"] = "Europe/Berlin"
        assert _copied(draft, deliver) == (at, "exists", "eq", False)


def test_cancel_this_and_future_sends_the_shortened_series() -> None:
    plan, action = _plan(MutationKind.DELETE_EVENT)
    draft = _valid(draft_from_action_plan(plan, change=_change("THIS_AND_FUTURE")))
    verify = draft.steps[1]
    assert verify.verify is not None and verify.verify.check.params == {
        "calendar_id": "work",
        "object_id": action.target,
        "uid": UID,
        "recurrence_id": RID,
    }
    told = [(s.params["method"], s.params["uid"], s.params["recurrence_id"], s.params["sequence"])
            for s in _sends(draft) if s.params]  # fmt: skip
    assert told == [("REQUEST", UID, None, 5)] * 3


# -- update ---------------------------------------------------------------------------------


def test_update_requests_to_the_new_list_and_cancel_to_the_removed() -> None:
    plan, action = _plan(MutationKind.UPDATE_EVENT)
    carol = {
        "address": "mailto:carol@example.com",
        "name": None,
        "required": True,
        "calendar_id": "carol",
    }
    new = [a for a in ATTENDEES if a["address"] != "mailto:bob@example.com"] + [carol]
    draft = _valid(
        draft_from_action_plan(
            plan,
            change=_change(title="Design review", location="Room 2", attendees=new),
            previous_attendees=ATTENDEES,
        )
    )
    update, verify = draft.steps[:2]
    assert update.key == "update-0"
    assert update.capability == "calendar.event.update"
    assert update.params is not None
    assert update.params["title"] == "Design review"
    assert update.params["location"] == "Room 2"
    assert update.params["check_calendar_ids"] == ["al", "carol", "work"]
    assert update.params["attendees"] == sorted(new, key=lambda a: a["address"].lower())
    assert update.params["current"]["attendees"] == ATTENDEES_SORTED
    assert _span(action).items() <= update.params.items()
    # a title change is not one value a check compares: no skip; the read-back counts SEQUENCE
    assert update.precondition is None
    assert verify.verify is not None
    check = verify.verify.check
    assert (check.path, check.op, check.value) == ("revision", "eq", 5)
    sends = _sends(draft)
    assert [(s.key, s.params["method"], s.params["recipient"]) for s in sends if s.params] == [
        ("itip-0-0", "REQUEST", "mailto:al@example.com"),
        ("itip-0-1", "CANCEL", "mailto:bob@example.com"),
        ("itip-0-2", "REQUEST", "mailto:carol@example.com"),
        ("itip-0-3", "REQUEST", "mailto:Zoe@example.com"),
    ]
    removed = sends[1].params
    assert removed is not None
    # RFC 5546 3.2.5: the CANCEL to a removed attendee names that attendee
    assert removed["attendees"] == _people("mailto:bob@example.com")
    assert removed["idempotency_key"] == _key(action, "mailto:bob@example.com")
    # al keeps a copy, bob's goes, carol gets one; zoe has no known calendar
    assert [
        (d.key, d.params["calendar_id"], d.params["method"], _copied(draft, d)[1:])
        for d in _delivers(draft)
        if d.params
    ] == [
        ("deliver-0-0", "al", "REQUEST", ("sequence", "eq", 5)),
        ("deliver-0-1", "bob", "CANCEL", ("exists", "eq", False)),
        ("deliver-0-2", "carol", "REQUEST", ("sequence", "eq", 5)),
    ]
    assert draft.steps[-1].depends_on == (
        "verify-0",
        *[f"sent-0-{j}" for j in range(4)],
        *[f"copied-0-{j}" for j in range(3)],
    )


def test_update_without_a_new_list_tells_the_previous_attendees() -> None:
    plan, _ = _plan(MutationKind.UPDATE_EVENT)
    draft = _valid(
        draft_from_action_plan(
            plan, change=_change(attendees=None, title="New"), previous_attendees=ATTENDEES
        )
    )
    update = draft.steps[0]
    assert update.params is not None and "attendees" not in update.params
    assert [s.params["method"] for s in _sends(draft) if s.params] == ["REQUEST"] * 3


# -- create with attendees ------------------------------------------------------------------


def test_create_with_change_stamps_attendees_and_sends_sequence_zero() -> None:
    plan, action = _plan(MutationKind.CREATE_EVENT, revision=None)
    change = _change("SERIES", sequence=0, etag=None, title="Design review")
    draft = _valid(draft_from_action_plan(plan, change=change))
    assert [s.key for s in draft.steps] == [
        "create-0",
        "verify-0",
        *_message_keys(3),
        *_copy_keys(2),
        "record",
    ]
    create = draft.steps[0]
    assert create.params == {
        "calendar_id": "work",
        "integration_id": action.integration_id,
        "object_id": action.target,
        "idempotency_key": action.idempotency_key,
        **_span(action),
        "organizer": ORGANIZER,
        "attendees": ATTENDEES_SORTED,
        "title": "Design review",
    }
    told = [(s.params["method"], s.params["sequence"], s.params["uid"]) for s in _sends(draft)
            if s.params]  # fmt: skip
    assert told == [("REQUEST", 0, action.target)] * 3
    assert [(d.params["uid"], d.params["sequence"]) for d in _delivers(draft) if d.params] == [
        (action.target, 0)
    ] * 2


# -- keys, determinism, refusals --------------------------------------------------------------


def test_keys_are_stable_per_action_and_recipient() -> None:
    plan, action = _plan(MutationKind.MOVE_EVENT)
    first = draft_from_action_plan(plan, change=_change())
    # the same change with the attendees in another order and one address in other case
    shuffled = [dict(a) for a in reversed(ATTENDEES)]
    shuffled[0]["address"] = "MAILTO:AL@EXAMPLE.COM"
    shuffled.append(dict(ATTENDEES[0]))  # Zoe named twice: one message
    second = draft_from_action_plan(plan, change=_change(attendees=shuffled))
    keys = [s.params["idempotency_key"] for s in _sends(first) if s.params]
    assert keys == [_key(action, a) for a in RECIPIENTS]
    assert len(set(keys)) == 3
    assert keys == [s.params["idempotency_key"] for s in _sends(second) if s.params]
    assert json.dumps(first.to_wire()) == json.dumps(
        draft_from_action_plan(plan, change=_change()).to_wire()
    )


def test_diagnosis_of_a_change_reads_the_instance() -> None:
    plan, action = _plan(MutationKind.DELETE_EVENT)
    draft = _valid(
        draft_from_action_plan(plan, change=_change(), failed=["direct_action_verified"])
    )
    assert [s.key for s in draft.steps] == ["access", "read-0", "summary"]
    assert draft.steps[1].params == {
        "calendar_id": "work",
        "object_id": action.target,
        "uid": UID,
        "recurrence_id": RID,
    }


@pytest.mark.parametrize(
    ("change", "kind", "code"),
    [
        (None, MutationKind.DELETE_EVENT, "draft.unsupported_action"),
        (None, MutationKind.UPDATE_EVENT, "draft.unsupported_action"),
        (_change(organizer=None), MutationKind.MOVE_EVENT, "draft.invalid_change"),
        (_change(sequence=3), MutationKind.MOVE_EVENT, "draft.invalid_change"),
        (_change(scope="ALL"), MutationKind.MOVE_EVENT, "draft.invalid_change"),
        (_change(recurrence_id=None), MutationKind.MOVE_EVENT, "draft.invalid_change"),
        (_change(recurrence_id="monday"), MutationKind.MOVE_EVENT, "draft.invalid_change"),
        (_change(uid=""), MutationKind.MOVE_EVENT, "draft.invalid_change"),
        (_change(sequence=-1), MutationKind.MOVE_EVENT, "draft.invalid_change"),
    ],
)
def test_refusals(change: dict[str, Any] | None, kind: MutationKind, code: str) -> None:
    plan, _ = _plan(kind)
    with pytest.raises(DraftError) as caught:
        draft_from_action_plan(plan, change=change)
    assert caught.value.code == code


def test_a_change_names_one_event() -> None:
    plan, action = _plan(MutationKind.MOVE_EVENT)
    two = dataclasses.replace(plan, actions=(action, dataclasses.replace(action, target="b")))
    with pytest.raises(DraftError) as caught:
        draft_from_action_plan(two, change=_change())
    assert caught.value.code == "draft.invalid_change"


def test_change_inputs_take_the_current_range_from_the_request() -> None:
    request = cerebri.parse_request(EXAMPLE.read_bytes())
    plan, action = _plan(MutationKind.MOVE_EVENT)
    moved = dataclasses.replace(plan, actions=(dataclasses.replace(action, target="planning"),))
    inputs = change_inputs(request, moved)
    # examples/design-review.json: "planning" is KNOWN at 13:00-14:00Z; the request has no change
    assert inputs == {
        "change": None,
        "current": {"planning": {"start": "2026-10-05T13:00:00Z", "end": "2026-10-05T14:00:00Z"}},
    }
    assert change_inputs(request, plan)["current"] == {}


@pytest.mark.parametrize(
    ("operation", "verb"), [("RESCHEDULE", "move"), ("CANCEL", "cancel"), ("UPDATE", "update")]
)
def test_a_change_request_becomes_a_valid_graph_end_to_end(operation: str, verb: str) -> None:
    """From a CPIR change request (the cpir model of ``change``, not a mapping) through the
    planner to the graph, as ``propose --as plan-graph`` does."""
    request = cerebri.parse_request(json.dumps(request_for(operation)).encode())
    actions = action_plan_for(request)
    draft = _valid(draft_from_action_plan(actions, **change_inputs(request, actions)))
    write = draft.steps[0]
    assert write.key == f"{verb}-0"
    assert write.params is not None
    assert (write.params["uid"], write.params["expected_etag"], write.params["scope"]) == (
        "weekly-1@example.com",
        '"e-17"',
        "SERIES",
    )
    # the request's KNOWN time of the event is what the approver sees as before
    assert (write.params["current"]["start"], write.params["current"]["end"]) == CURRENT
    method = "CANCEL" if operation == "CANCEL" else "REQUEST"
    assert [(s.params["recipient"], s.params["method"]) for s in _sends(draft) if s.params] == [
        ("mailto:bob@example.com", method)
    ]


def test_a_move_or_cancel_shows_the_title_its_change_describes() -> None:
    for kind in (MutationKind.MOVE_EVENT, MutationKind.DELETE_EVENT, MutationKind.UPDATE_EVENT):
        plan, _ = _plan(kind)
        draft = draft_from_action_plan(plan, change=_change(title="Weekly", location="Room 1"))
        current = (draft.steps[0].params or {})["current"]
        # an update's title and location are the new ones: the old ones are not known here
        expected = (None, None) if kind is MutationKind.UPDATE_EVENT else ("Weekly", "Room 1")
        assert (current["title"], current["location"]) == expected
