"""Plan graphs for changes of existing events (issue #23, decision 0056): the write with the
event's UID, instance, ETag and SEQUENCE, its read-back, one iTIP message per attendee.

Expected params are written out here from contracts C3/C4 and RFC 5546, not built by the
code under test; the idempotency keys are recomputed with hashlib.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from typing import Any

import pytest

import cerebri
from cerebri.cpir import MutationKind
from cerebri.planner import Action, ActionPlan, to_action_plan, validate_proposal
from cerebri.plans import (
    BUILTIN_CAPABILITIES,
    Capability,
    CapabilityRegistry,
    DraftError,
    PlanDraft,
    draft_from_action_plan,
    parse_draft,
    validate_draft,
)
from cerebri.plans.change_facts import change_inputs
from cerebri.plans.change_steps import CURRENT_EVENT_SCHEMA
from cerebri.plans.vocabulary import Risk, TargetRule
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

# -- stand-in declarations of contracts C3/C4 until the adapters and itip branches land ----

_I = {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$"}
_S = {"type": "string", "minLength": 1}
_PERSON = {
    "type": "object",
    "properties": {
        "address": _S,
        "name": {"type": ["string", "null"]},
        "required": {"type": "boolean"},
        "calendar_id": {"type": ["string", "null"]},
    },
    "required": ["address", "name", "required", "calendar_id"],
    "additionalProperties": False,
}
_CHANGE = {
    "uid": _S,
    "recurrence_id": {"oneOf": [_I, {"type": "null"}]},
    "scope": {"enum": ["INSTANCE", "THIS_AND_FUTURE", "SERIES"]},
    "expected_etag": {"type": ["string", "null"]},
    "expected_revision": {"type": ["integer", "null"]},
    "check_calendar_ids": {"type": "array", "items": _S},
    "organizer": _S,
    "attendees": {"type": "array", "items": _PERSON},
    "timezone": _S,
    "current": dict(CURRENT_EVENT_SCHEMA),
}
_WHERE = {"calendar_id": _S, "integration_id": _S, "object_id": _S, "idempotency_key": _S}


def _closed(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }


def _writer(name: str, properties: dict[str, Any], *, idempotent: bool = True) -> Capability:
    return Capability(
        name=name,
        description=name,
        params_schema=_closed(properties, sorted(_WHERE)),
        read_only=False,
        idempotent=idempotent,
        risk=Risk.MEDIUM,
        target_rule=TargetRule.PARAM,
        target_param="object_id",
        requires_approval=True,
    )


STAND_INS = (
    Capability(
        name="calendar.event.get",
        description="get",
        params_schema=_closed(
            {"calendar_id": _S, "object_id": _S, "uid": _S, "recurrence_id": _I},
            ["calendar_id", "object_id"],
        ),
        read_only=True,
        idempotent=True,
        risk=Risk.LOW,
        target_rule=TargetRule.PARAM,
        target_param="object_id",
    ),
    _writer(
        "calendar.event.create",
        {**_WHERE, "start": _I, "end": _I, "title": _S, "timezone": _S}
        | {"organizer": _S, "attendees": _CHANGE["attendees"]},
        idempotent=False,
    ),
    _writer("calendar.event.move", {**_WHERE, "start": _I, "end": _I, **_CHANGE}),
    _writer("calendar.event.cancel", {**_WHERE, **_CHANGE}),
    _writer(
        "calendar.event.update",
        {**_WHERE, "start": _I, "end": _I, "title": _S, "location": _S, **_CHANGE},
    ),
    Capability(
        name="message.itip.send",
        description="send",
        params_schema=_closed(
            {
                "calendar_id": _S,
                "uid": _S,
                "recurrence_id": {"oneOf": [_I, {"type": "null"}]},
                "method": {"enum": ["REQUEST", "CANCEL"]},
                "sequence": {"type": "integer", "minimum": 0},
                "recipient": _S,
                "organizer": _S,
                "attendees": _CHANGE["attendees"],
                "idempotency_key": _S,
            },
            ["calendar_id", "uid", "method", "sequence", "recipient", "idempotency_key"],
        ),
        read_only=False,
        idempotent=False,
        risk=Risk.MEDIUM,
    ),
)


def _registry() -> CapabilityRegistry:
    replaced = {c.name for c in STAND_INS}
    registry = CapabilityRegistry()
    for capability in (*[c for c in BUILTIN_CAPABILITIES if c.name not in replaced], *STAND_INS):
        registry = registry.register(capability)
    return registry


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


def _valid(draft: PlanDraft) -> PlanDraft:
    assert validate_draft(draft, _registry()).problems == ()
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
    assert keys == ["move-0", "verify-0", "itip-0-0", "itip-0-1", "itip-0-2", "record"]
    move, verify, *sends, record = draft.steps
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
    assert move.precondition is not None and move.precondition.satisfied_if_false
    pre = move.precondition.check
    assert (pre.capability, pre.params, pre.path, pre.op) == (
        "calendar.event.get",
        read,
        "range",
        "ne",
    )
    assert pre.value == _span(action)
    assert verify.verify is not None and verify.depends_on == ("move-0",)
    check = verify.verify.check
    assert (check.params, check.path, check.op, check.value) == (read, "range", "eq", _span(action))
    assert [s.params["recipient"] for s in sends if s.params] == RECIPIENTS
    for send, address in zip(sends, RECIPIENTS, strict=True):
        assert send.capability == "message.itip.send"
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
    assert record.depends_on == ("verify-0", "itip-0-0", "itip-0-1", "itip-0-2")
    assert draft.require_approval is True
    assert draft.estimate.human_approvals == 1


@pytest.mark.parametrize(
    ("scope", "rid", "read_at", "message_rid"),
    [
        ("THIS_AND_FUTURE", RID, RID, RID),
        ("SERIES", None, None, None),
        # a whole series named by one instance reads back at that instance's new start
        ("SERIES", RID, "new start", None),
    ],
)
def test_reschedule_scopes_read_back_where_the_instance_lands(
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
    assert {s.params["recurrence_id"] for s in draft.steps[2:-1] if s.params} == {message_rid}


# -- cancel ---------------------------------------------------------------------------------


@pytest.mark.parametrize("scope", ["INSTANCE", "SERIES"])
def test_cancel_sends_cancel_to_every_attendee_and_is_satisfied_when_gone(scope: str) -> None:
    plan, action = _plan(MutationKind.DELETE_EVENT)
    draft = _valid(draft_from_action_plan(plan, change=_change(scope)))
    assert [s.key for s in draft.steps] == [
        "cancel-0",
        "verify-0",
        "itip-0-0",
        "itip-0-1",
        "itip-0-2",
        "record",
    ]
    cancel, verify, *sends, _ = draft.steps
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
        "current": {
            "start": None,
            "end": None,
            "title": None,
            "location": None,
            "attendees": ATTENDEES_SORTED,
        },
    }
    read = {"calendar_id": "work", "object_id": action.target, "uid": UID}
    if rid is not None:
        read["recurrence_id"] = rid
    # an event already gone is the wanted state: the cancel is skipped as satisfied
    assert cancel.precondition is not None and cancel.precondition.satisfied_if_false
    pre = cancel.precondition.check
    assert (pre.params, pre.path, pre.op, pre.value) == (read, "exists", "eq", True)
    assert verify.verify is not None
    check = verify.verify.check
    assert (check.params, check.path, check.op, check.value) == (read, "exists", "eq", False)
    assert [(s.params["method"], s.params["sequence"]) for s in sends if s.params] == [
        ("CANCEL", 5)
    ] * 3


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
    update, verify, *sends, record = draft.steps
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
    assert record.depends_on == ("verify-0", *[s.key for s in sends])


def test_update_without_a_new_list_tells_the_previous_attendees() -> None:
    plan, _ = _plan(MutationKind.UPDATE_EVENT)
    draft = _valid(
        draft_from_action_plan(
            plan, change=_change(attendees=None, title="New"), previous_attendees=ATTENDEES
        )
    )
    update = draft.steps[0]
    assert update.params is not None and "attendees" not in update.params
    assert [s.params["method"] for s in draft.steps[2:-1] if s.params] == ["REQUEST"] * 3


# -- create with attendees ------------------------------------------------------------------


def test_create_with_change_stamps_attendees_and_sends_sequence_zero() -> None:
    plan, action = _plan(MutationKind.CREATE_EVENT, revision=None)
    change = _change("SERIES", sequence=0, etag=None, title="Design review")
    draft = _valid(draft_from_action_plan(plan, change=change))
    assert [s.key for s in draft.steps][:2] == ["create-0", "verify-0"]
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
    sends = draft.steps[2:-1]
    assert [
        (s.params["method"], s.params["sequence"], s.params["uid"]) for s in sends if s.params
    ] == [("REQUEST", 0, action.target)] * 3


# -- keys, determinism, refusals --------------------------------------------------------------


def test_keys_are_stable_per_action_and_recipient() -> None:
    plan, action = _plan(MutationKind.MOVE_EVENT)
    first = draft_from_action_plan(plan, change=_change())
    # the same change with the attendees in another order and one address in other case
    shuffled = [dict(a) for a in reversed(ATTENDEES)]
    shuffled[0]["address"] = "MAILTO:AL@EXAMPLE.COM"
    shuffled.append(dict(ATTENDEES[0]))  # Zoe named twice: one message
    second = draft_from_action_plan(plan, change=_change(attendees=shuffled))
    keys = [s.params["idempotency_key"] for s in first.steps[2:-1] if s.params]
    assert keys == [_key(action, a) for a in RECIPIENTS]
    assert len(set(keys)) == 3
    assert keys == [s.params["idempotency_key"] for s in second.steps[2:-1] if s.params]
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
