"""The steps that change an existing event and tell its attendees (issue #23, decision 0056).

For action *i* of an action plan whose request carries a ``change``
(:class:`~cerebri.plans.change_facts.ChangeFacts`), :func:`change_steps` writes:

``move-i`` / ``update-i`` / ``cancel-i`` (or ``create-i``)
    the write on ``calendar.event.move`` / ``update`` / ``cancel`` (``create``) with the
    params of contract C3: ``uid``, ``recurrence_id``, ``scope``, ``expected_etag`` (If-Match,
    RFC 7232 section 3.1), ``expected_revision`` (the ``SEQUENCE`` read), ``check_calendar_ids``
    (the organizer's calendar and every required attendee's, re-read before writing; not for
    a cancel, which frees time), ``organizer`` and ``attendees`` when known, ``title`` and
    ``location`` for an update that changes them, ``[start, end)`` but for a cancel; and the
    display-only ``current`` (the event as read: ``start``, ``end``, ``title``,
    ``attendees``) so that the approver sees before and after.
    Its precondition skips it only when the world already holds the wanted state: a move
    "not already at ``[start, end)``", a cancel "the event or instance still exists" (one
    already gone is satisfied); an update has none (a title or location is not one value a
    check can compare, so a repeat relies on the adapter's idempotency key).
``verify-i``
    ``calendar.event.get`` with ``uid`` and ``recurrence_id``: the new ``range`` for a move
    and a create, ``revision`` = ``SEQUENCE`` + 1 for an update (one change on top of the
    one read, RFC 5546 section 2.1.4), ``exists`` false for a cancel.
``itip-i-j``
    one ``message.itip.send`` per recipient (contract C4), ``j`` counting recipients in
    address order, each depending on ``verify-i``: ``REQUEST`` to every attendee of a move,
    update or create, ``CANCEL`` to every attendee of a cancel and to every attendee an
    update removes (RFC 5546 sections 3.2.2 and 3.2.5). The organizer is never a recipient.
    ``sequence`` is the ``SEQUENCE`` read + 1 (0 for a create), ``idempotency_key``
    ``<action key>-itip-<16 hex digits of sha256 of the address>``: the same for every
    revision of the plan and every retry, one per action and recipient.

Where the event is read back: ``recurrence_id`` as given, except a whole-series move
named by one instance, read at the instance's new start (its ``RECURRENCE-ID`` after the
series shifts), and a whole-series cancel, read without one.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any, Final

from cerebri._json import JSONValue
from cerebri.cpir import MutationKind
from cerebri.planner import Action
from cerebri.plans.capabilities import BUILTIN_CAPABILITIES
from cerebri.plans.change_facts import ChangeFacts, ChangeParty, normal_address
from cerebri.plans.draft import Check, Expectation, Precondition, StepSpec, VerifySpec
from cerebri.plans.report import DraftError
from cerebri.plans.vocabulary import CheckOp, StepKind, TargetRule

__all__ = [
    "CHANGE_WRITES",
    "CURRENT_EVENT_SCHEMA",
    "EXPECTED_CONFIDENCE",
    "ITIP_CAPABILITY",
    "VERIFY_INTERVAL_SECONDS",
    "VERIFY_WITHIN_SECONDS",
    "change_steps",
    "message_key",
]

ITIP_CAPABILITY: Final = "message.itip.send"
"""The capability that delivers one iTIP message (contract C4)."""

CHANGE_WRITES: Final = {
    MutationKind.CREATE_EVENT: ("create", "calendar.event.create"),
    MutationKind.MOVE_EVENT: ("move", "calendar.event.move"),
    MutationKind.UPDATE_EVENT: ("update", "calendar.event.update"),
    MutationKind.DELETE_EVENT: ("cancel", "calendar.event.cancel"),
}
"""Step key prefix and capability of each action kind."""

_INSTANT: Final = {
    "type": "string",
    "pattern": r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$",
}
_NULLABLE_TEXT: Final = {"type": ["string", "null"], "maxLength": 1024}
CURRENT_EVENT_SCHEMA: Final[Mapping[str, Any]] = {
    "type": "object",
    "description": "The event as read when the change was planned (display only: shown to "
    "approvers; the adapters ignore it)",
    "properties": {
        "start": {"oneOf": [_INSTANT, {"type": "null"}]},
        "end": {"oneOf": [_INSTANT, {"type": "null"}]},
        "title": _NULLABLE_TEXT,
        "location": _NULLABLE_TEXT,
        "attendees": {
            "type": ["array", "null"],
            "maxItems": 256,
            "items": {
                "type": "object",
                "properties": {
                    "address": {"type": "string", "minLength": 1, "maxLength": 1024},
                    "name": _NULLABLE_TEXT,
                    "required": {"type": "boolean"},
                    "calendar_id": {"type": ["string", "null"], "maxLength": 256},
                },
                "required": ["address", "required"],
                "additionalProperties": False,
            },
        },
    },
    "additionalProperties": False,
}
"""JSON Schema of the optional ``current`` param of the change writers (display only)."""

VERIFY_WITHIN_SECONDS: Final = 60
"""How long after an effect its verification may take, in seconds."""
VERIFY_INTERVAL_SECONDS: Final = 5
"""Seconds between two reads of a verification."""
EXPECTED_CONFIDENCE: Final = 0.95
"""Confidence that a calendar effect holds once the calendar acknowledged it (ours)."""


def message_key(action_key: str, address: str) -> str:
    """The idempotency key of the message about action ``action_key`` to ``address``:
    ``<action_key>-itip-`` + the first 16 hex digits of the SHA-256 of
    :func:`~cerebri.plans.change_facts.normal_address` (stable, at most 256 characters for
    an action key of at most 234)."""
    digest = hashlib.sha256(normal_address(address).encode("utf-8")).hexdigest()[:16]
    return f"{action_key}-itip-{digest}"


def _range(action: Action) -> dict[str, str]:
    span = action.placement.range
    return {"start": str(span.start), "end": str(span.end)}


def _read_rid(action: Action, facts: ChangeFacts) -> str | None:
    """The ``RECURRENCE-ID`` at which the changed event reads back (module doc)."""
    if facts.scope != "SERIES" or facts.recurrence_id is None:
        return facts.recurrence_id
    if action.kind is MutationKind.MOVE_EVENT:
        return _range(action)["start"]
    return None if action.kind is MutationKind.DELETE_EVENT else facts.recurrence_id


def _get(action: Action, facts: ChangeFacts, **check: Any) -> Check:
    params: dict[str, Any] = {
        "calendar_id": action.calendar_id,
        "object_id": action.target,
        "uid": facts.uid if action.kind is not MutationKind.CREATE_EVENT else action.target,
    }
    rid = _read_rid(action, facts) if action.kind is not MutationKind.CREATE_EVENT else None
    if rid is not None:
        params["recurrence_id"] = rid
    return Check(capability="calendar.event.get", target=action.target, params=params, **check)


def _named(facts: ChangeFacts) -> str:
    return facts.uid + ("" if facts.recurrence_id is None else f" at {facts.recurrence_id}")


def _readback(action: Action, facts: ChangeFacts) -> Check:
    """What ``verify-i`` compares (module doc)."""
    kind, name = action.kind, _named(facts)
    if kind is MutationKind.DELETE_EVENT:
        return _get(
            action,
            facts,
            path="exists",
            op=CheckOp.EQ,
            value=False,
            description=f"{name} is no longer in calendar {action.calendar_id}",
        )
    if kind is MutationKind.UPDATE_EVENT:
        return _get(
            action,
            facts,
            path="revision",
            op=CheckOp.EQ,
            value=facts.sequence + 1,
            description=f"{name} carries SEQUENCE {facts.sequence + 1}",
        )
    span = _range(action)
    return _get(
        action,
        facts,
        path="range",
        op=CheckOp.EQ,
        value=span,
        description=f"{name} occupies [{span['start']}, {span['end']})",
    )


def _precondition(action: Action, facts: ChangeFacts) -> Precondition | None:
    if action.kind is MutationKind.DELETE_EVENT:
        still = _get(
            action,
            facts,
            path="exists",
            op=CheckOp.EQ,
            value=True,
            description="the event is still there",
        )
        return Precondition(check=still, satisfied_if_false=True)
    if action.kind is MutationKind.UPDATE_EVENT:
        return None
    span = _range(action)
    elsewhere = _get(
        action,
        facts,
        path="range",
        op=CheckOp.NE,
        value=span,
        description="the event is not already there",
    )
    return Precondition(check=elsewhere, satisfied_if_false=True)


def _check_calendars(action: Action, facts: ChangeFacts) -> list[str]:
    required = {p.calendar_id for p in facts.attendees_after() if p.required and p.calendar_id}
    return sorted(required | {action.calendar_id})


def _people(parties: tuple[ChangeParty, ...]) -> list[JSONValue]:
    return [p.to_wire() for p in parties]


def _write_params(
    action: Action, facts: ChangeFacts, current: Mapping[str, Any] | None
) -> dict[str, Any]:
    kind = action.kind
    params: dict[str, Any] = {
        "calendar_id": action.calendar_id,
        "integration_id": action.integration_id,
        "object_id": action.target,
        "idempotency_key": action.idempotency_key,
    }
    if kind is not MutationKind.DELETE_EVENT:
        params |= _range(action)
    if kind is not MutationKind.CREATE_EVENT:
        params |= {
            "uid": facts.uid,
            "recurrence_id": facts.recurrence_id,
            "scope": facts.scope,
            "expected_etag": facts.etag,
            "expected_revision": facts.sequence,
        }
    if kind in (MutationKind.MOVE_EVENT, MutationKind.UPDATE_EVENT):
        params["check_calendar_ids"] = _check_calendars(action, facts)
    if facts.organizer is not None:
        params["organizer"] = facts.organizer
    if facts.attendees is not None:
        params["attendees"] = _people(facts.attendees)
    if kind in (MutationKind.UPDATE_EVENT, MutationKind.CREATE_EVENT) and facts.title:
        params["title"] = facts.title
    if kind is MutationKind.UPDATE_EVENT and facts.location is not None:
        params["location"] = facts.location
    if kind is not MutationKind.CREATE_EVENT:
        params["current"] = _current(facts, current)
    return params


def _current(facts: ChangeFacts, current: Mapping[str, Any] | None) -> dict[str, Any]:
    seen = dict(current or {})
    before = facts.previous_attendees
    if before is None and facts.attendees is not None:
        before = facts.attendees  # a move or cancel names the event's own attendees
    return {
        "start": seen.get("start"),
        "end": seen.get("end"),
        "title": seen.get("title"),
        "location": seen.get("location"),
        "attendees": None if before is None else _people(before),
    }


def _write(
    index: int,
    action: Action,
    facts: ChangeFacts,
    current: Mapping[str, Any] | None,
) -> StepSpec:
    verb, capability = CHANGE_WRITES[action.kind]
    readback = _readback(action, facts)
    return StepSpec(
        key=f"{verb}-{index}",
        title=f"{verb} {_named(facts)} ({facts.scope.lower()})"
        + (
            ""
            if action.kind is MutationKind.DELETE_EVENT
            else " to [{start}, {end})".format(**_range(action))
        ),
        kind=StepKind.CAPABILITY,
        capability=capability,
        target=action.target,
        params=_write_params(action, facts, current),
        require_approval=True,
        expectation=Expectation(
            description=readback.description or "",
            confidence=EXPECTED_CONFIDENCE,
            within_seconds=VERIFY_WITHIN_SECONDS,
        ),
        precondition=_precondition(action, facts),
    )


def _verify(index: int, write: StepSpec, action: Action, facts: ChangeFacts) -> StepSpec:
    return StepSpec(
        key=f"verify-{index}",
        title=f"read {_named(facts)} back",
        kind=StepKind.VERIFY,
        depends_on=(write.key,),
        verify=VerifySpec(
            of=write.key,
            check=_readback(action, facts),
            within_seconds=VERIFY_WITHIN_SECONDS,
            interval_seconds=VERIFY_INTERVAL_SECONDS,
        ),
    )


def _recipients(action: Action, facts: ChangeFacts) -> list[tuple[str, ChangeParty]]:
    """``(method, attendee)`` of every message, in address order, the organizer left out."""
    if action.kind is MutationKind.DELETE_EVENT:
        sent = [("CANCEL", p) for p in facts.attendees_after()]
    else:
        sent = [("REQUEST", p) for p in facts.attendees_after()]
        if action.kind is MutationKind.UPDATE_EVENT:
            sent += [("CANCEL", p) for p in facts.removed()]
    organizer = None if facts.organizer is None else normal_address(facts.organizer)
    chosen = [(m, p) for m, p in sent if p.key != organizer]
    return sorted(chosen, key=lambda pair: (pair[1].key, pair[1].address))


def _send_target(params: Mapping[str, Any]) -> str | None:
    """The step's target as the declared capability wants it (the recipient when the
    declaration is not known here or leaves the target free)."""
    declared = next((c for c in BUILTIN_CAPABILITIES if c.name == ITIP_CAPABILITY), None)
    if declared is None or declared.target_rule is TargetRule.FREE:
        return str(params["recipient"])
    if declared.target_rule is TargetRule.NONE or declared.target_param is None:
        return None
    value = params.get(declared.target_param)
    return None if value is None else str(value)


def _messages(index: int, action: Action, facts: ChangeFacts, after: str) -> list[StepSpec]:
    create = action.kind is MutationKind.CREATE_EVENT
    chosen = _recipients(action, facts)
    if chosen and facts.organizer is None:
        raise DraftError(
            f"change of {facts.uid}: messages to attendees need an organizer "
            "(RFC 5546 section 3.2.2)",
            code="draft.invalid_change",
        )
    sequence = 0 if create else facts.sequence + 1
    steps = []
    for number, (method, party) in enumerate(chosen):
        cancel_one = method == "CANCEL" and action.kind is MutationKind.UPDATE_EVENT
        params: dict[str, Any] = {
            "calendar_id": action.calendar_id,
            "uid": action.target if create else facts.uid,
            "recurrence_id": None if facts.scope == "SERIES" else facts.recurrence_id,
            "method": method,
            "sequence": sequence,
            "recipient": party.address,
            "organizer": facts.organizer,
            "attendees": _people((party,) if cancel_one else facts.attendees_after()),
            "idempotency_key": message_key(action.idempotency_key, party.address),
        }
        steps.append(
            StepSpec(
                key=f"itip-{index}-{number}",
                title=f"send {method} to {party.address} (SEQUENCE {sequence})",
                kind=StepKind.CAPABILITY,
                depends_on=(after,),
                capability=ITIP_CAPABILITY,
                target=_send_target(params),
                params=params,
            )
        )
    return steps


def change_steps(
    index: int, action: Action, facts: ChangeFacts, current: Mapping[str, Any] | None
) -> list[StepSpec]:
    """The write, ``verify-<index>`` and ``itip-<index>-<j>`` steps of action ``index``
    (module doc); ``current`` is the event as read (``start``, ``end``, ``title``,
    ``location``; absent members are ``null``).

    Raises:
        DraftError: ``draft.invalid_change`` (attendees to tell but no organizer).
    """
    write = _write(index, action, facts, current)
    verify = _verify(index, write, action, facts)
    return [write, verify, *_messages(index, action, facts, verify.key)]
