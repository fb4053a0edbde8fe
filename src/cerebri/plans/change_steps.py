"""The steps that change an existing event and tell its attendees (issue #23, decision 0056).

For action *i* of an action plan whose request carries a ``change``
(:class:`~cerebri.plans.change_facts.ChangeFacts`), :func:`change_steps` writes:

``move-i`` / ``update-i`` / ``cancel-i`` (or ``create-i``)
    the write on ``calendar.event.move`` / ``update`` / ``cancel`` (``create``) with the
    params of contract C3: ``uid``, ``recurrence_id``, ``scope``, ``expected_etag`` (If-Match,
    RFC 7232 section 3.1), ``expected_revision`` (the event's revision read: its highest
    ``SEQUENCE`` over master and overrides, decision 0050), ``check_calendar_ids`` (a move's
    or update's: the organizer's calendar and every required attendee's, re-read before
    writing), ``organizer`` and ``attendees`` when known, ``title`` and ``location``
    for an update that changes them, ``[start, end)`` but for a cancel; and the display-only
    ``current`` (the event as read, :mod:`cerebri.plans.change_schema`) so that the approver
    sees before and after. It needs approval.
    Its precondition skips it only when the world already holds the wanted state: a move
    "not already at ``[start, end)``", a cancel "the event or instance still exists" (one
    already gone is satisfied); an update of one instance or a whole series has none (a
    title or location is not one value a check can compare, so a repeat relies on the
    adapter's idempotency key and ``If-Match``).
``verify-i``
    ``calendar.event.get`` of the changed event: the new ``range`` for a move and a create,
    ``revision`` = the revision read + 1 for an update (one change on top of the one read,
    written on every component it touches, RFC 5546 section 2.1.4; decision 0050),
    ``exists`` false for a cancel.
``itip-i-j`` and ``sent-i-j``
    one ``message.itip.send`` per message (contract C4), ``j`` counting the messages in
    recipient address order, each depending on ``verify-i``, each verified by
    ``message.itip.get`` (``done`` true: in the outbox intact, and accepted by the SMTP
    server when there is one): ``REQUEST`` to every attendee of a move, update or create,
    ``CANCEL`` to every attendee of a cancel and to every attendee an update removes (RFC 5546
    sections 3.2.2 and 3.2.5). The organizer is never a recipient. ``sequence`` is the
    revision read + 1 (0 for a create and a split-off series), ``idempotency_key``
    ``<action key>-itip-<16 hex digits of sha256 of the address>``: the same for every
    revision of the plan and every retry, one per action and recipient.

``deliver-i-j`` and ``copied-i-j``
    one ``calendar.itip.deliver`` per message to an attendee whose ``calendar_id`` is known
    and is not the organizer's calendar (decision 0057: the change delivered into their
    calendar, as a scheduling server does, RFC 6638 sections 3.2 and 4), ``j`` counting in
    the messages' order, each depending on ``verify-i``, its ``target`` the event's ``UID``
    (the attendee's calendar is in its params); each verified by reading that calendar
    back (``calendar.event.get``): a
    ``REQUEST``'s copy carries the message's ``SEQUENCE`` where ``verify-i`` reads the
    event (a split's old series: its master), a ``CANCEL``'s event or instance is gone.
    ``idempotency_key`` ``<action key>-copy-<16 hex digits of sha256 of the address>``
    (``-split`` for the split-off series), stable like the messages'.

**This and future** is a split series (decision 0050): the instance and the later ones
become a new series, ``UID`` :func:`~cerebri.calendars.changes.split_uid` (known now), and the
old series ends before it. A move or update is read back and checked under the new ``UID``
(its range: the new series did not exist before), and each attendee gets two ``REQUEST``\\ s:
the shortened old series (``SEQUENCE`` read + 1; to the attendees it had) and the new series
(``SEQUENCE`` 0, key suffix ``-split``; to the attendees after the change). A this-and-future
cancel shortens the series: a ``REQUEST`` of the shortened series to its attendees.

Where the event is read back otherwise: ``recurrence_id`` as given, except a whole-series
move named by one instance, read at the instance's new start (its ``RECURRENCE-ID`` once the
series shifts), and a whole-series cancel, read without one.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from cerebri._json import JSONValue
from cerebri.calendars.changes import split_uid
from cerebri.cpir import MutationKind
from cerebri.planner import Action
from cerebri.plans.change_facts import ChangeFacts, ChangeParty, normal_address
from cerebri.plans.draft import Check, Expectation, Precondition, StepSpec, VerifySpec
from cerebri.plans.report import DraftError
from cerebri.plans.vocabulary import CheckOp, StepKind
from cerebri.temporal import Instant

__all__ = [
    "CHANGE_WRITES",
    "EXPECTED_CONFIDENCE",
    "ITIP_CAPABILITY",
    "ITIP_READ",
    "VERIFY_INTERVAL_SECONDS",
    "VERIFY_WITHIN_SECONDS",
    "change_steps",
    "copy_key",
    "message_key",
]

ITIP_CAPABILITY: Final = "message.itip.send"
"""The capability that delivers one iTIP message (contract C4)."""
ITIP_READ: Final = "message.itip.get"
"""The read-only capability that observes a delivered message."""
DELIVER_CAPABILITY: Final = "calendar.itip.deliver"
"""The capability that delivers a change into one attendee's calendar (decision 0057)."""

CHANGE_WRITES: Final = {
    MutationKind.CREATE_EVENT: ("create", "calendar.event.create"),
    MutationKind.MOVE_EVENT: ("move", "calendar.event.move"),
    MutationKind.UPDATE_EVENT: ("update", "calendar.event.update"),
    MutationKind.DELETE_EVENT: ("cancel", "calendar.event.cancel"),
}
"""Step key prefix and capability of each action kind."""

VERIFY_WITHIN_SECONDS: Final = 60
"""How long after an effect its verification may take, in seconds."""
VERIFY_INTERVAL_SECONDS: Final = 5
"""Seconds between two reads of a verification."""
EXPECTED_CONFIDENCE: Final = 0.95
"""Confidence that a calendar effect holds once the calendar acknowledged it (ours)."""

_CREATE, _MOVE = MutationKind.CREATE_EVENT, MutationKind.MOVE_EVENT
_UPDATE, _CANCEL = MutationKind.UPDATE_EVENT, MutationKind.DELETE_EVENT


def message_key(action_key: str, address: str, *, split: bool = False) -> str:
    """The idempotency key of the message about action ``action_key`` to ``address``:
    ``<action_key>-itip-`` + the first 16 hex digits of the SHA-256 of
    :func:`~cerebri.plans.change_facts.normal_address`, plus ``-split`` for the message about
    the series a this-and-future change splits off (at most 256 characters for an action key
    of at most 228)."""
    digest = hashlib.sha256(normal_address(address).encode("utf-8")).hexdigest()[:16]
    return f"{action_key}-itip-{digest}" + ("-split" if split else "")


def copy_key(action_key: str, address: str, *, split: bool = False) -> str:
    """The idempotency key of the delivery of action ``action_key`` into the calendar of
    ``address``: :func:`message_key` with ``-copy-`` for ``-itip-`` (decision 0057)."""
    digest = hashlib.sha256(normal_address(address).encode("utf-8")).hexdigest()[:16]
    return f"{action_key}-copy-{digest}" + ("-split" if split else "")


def _range(action: Action) -> dict[str, str]:
    span = action.placement.range
    return {"start": str(span.start), "end": str(span.end)}


def _split(action: Action, facts: ChangeFacts) -> str | None:
    """The ``UID`` of the series a this-and-future move or update splits off, else None."""
    if facts.scope != "THIS_AND_FUTURE" or action.kind not in (_MOVE, _UPDATE):
        return None
    assert facts.recurrence_id is not None  # read_change requires it for this scope
    return split_uid(facts.uid, Instant.parse(facts.recurrence_id), action.idempotency_key)


def _where(action: Action, facts: ChangeFacts) -> tuple[str, str | None]:
    """The ``UID`` and ``RECURRENCE-ID`` at which the changed event reads back."""
    if action.kind is _CREATE:
        return action.target, None
    split = _split(action, facts)
    if split is not None:
        return split, None
    if facts.scope != "SERIES" or facts.recurrence_id is None:
        return facts.uid, facts.recurrence_id
    if action.kind is _MOVE:
        return facts.uid, _range(action)["start"]
    return facts.uid, None if action.kind is _CANCEL else facts.recurrence_id


def _get(action: Action, facts: ChangeFacts, **check: Any) -> Check:
    uid, rid = _where(action, facts)
    params: dict[str, Any] = {"calendar_id": action.calendar_id, "object_id": action.target}
    params["uid"] = uid
    if rid is not None:
        params["recurrence_id"] = rid
    return Check(capability="calendar.event.get", target=action.target, params=params, **check)


def _named(facts: ChangeFacts) -> str:
    return facts.uid + ("" if facts.recurrence_id is None else f" at {facts.recurrence_id}")


def _readback(action: Action, facts: ChangeFacts) -> Check:
    """What ``verify-i`` compares (module doc)."""
    name = _named(facts)
    if action.kind is _CANCEL:
        gone = f"{name} is no longer in calendar {action.calendar_id}"
        return _get(action, facts, path="exists", op=CheckOp.EQ, value=False, description=gone)
    if action.kind is _UPDATE and _split(action, facts) is None:
        after = facts.sequence + 1
        carries = f"{name} carries SEQUENCE {after}"
        return _get(action, facts, path="revision", op=CheckOp.EQ, value=after, description=carries)
    span = _range(action)
    at = f"{name} occupies [{span['start']}, {span['end']})"
    return _get(action, facts, path="range", op=CheckOp.EQ, value=span, description=at)


def _precondition(action: Action, facts: ChangeFacts) -> Precondition | None:
    if action.kind is _CANCEL:
        still = "the event is still there"
        check = _get(action, facts, path="exists", op=CheckOp.EQ, value=True, description=still)
        return Precondition(check=check, satisfied_if_false=True)
    if action.kind is _UPDATE and _split(action, facts) is None:
        return None
    elsewhere = "the event is not already there"
    span = _range(action)
    check = _get(action, facts, path="range", op=CheckOp.NE, value=span, description=elsewhere)
    return Precondition(check=check, satisfied_if_false=True)


def _people(parties: tuple[ChangeParty, ...]) -> list[JSONValue]:
    return [p.to_wire() for p in parties]


def _before(facts: ChangeFacts) -> tuple[ChangeParty, ...] | None:
    """The attendees the event had when read (a move's or cancel's list is the event's)."""
    if facts.previous_attendees is not None:
        return facts.previous_attendees
    return facts.attendees


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
    if kind is not _CANCEL:
        params |= _range(action)
    if kind is not _CREATE:
        params |= {
            "uid": facts.uid,
            "recurrence_id": facts.recurrence_id,
            "scope": facts.scope,
            "expected_etag": facts.etag,
            "expected_revision": facts.sequence,
        }
    if kind in (_MOVE, _UPDATE):
        required = {p.calendar_id for p in facts.attendees_after() if p.required and p.calendar_id}
        params["check_calendar_ids"] = sorted(required | {action.calendar_id})
    if facts.organizer is not None:
        params["organizer"] = facts.organizer
    if facts.attendees is not None:
        params["attendees"] = _people(facts.attendees)
    if kind in (_UPDATE, _CREATE) and facts.title:
        params["title"] = facts.title
    if kind is _UPDATE and facts.location is not None:
        params["location"] = facts.location
    if kind is not _CREATE:
        seen = dict(current or {})
        before = _before(facts)
        params["current"] = {
            "start": seen.get("start"),
            "end": seen.get("end"),
            # a move's or cancel's change describes the event (decision 0049)
            "title": seen.get("title") or (None if kind is _UPDATE else facts.title),
            "location": seen.get("location") or (None if kind is _UPDATE else facts.location),
            "attendees": None if before is None else _people(before),
        }
    return params


def _write(
    index: int, action: Action, facts: ChangeFacts, current: Mapping[str, Any] | None
) -> StepSpec:
    verb, capability = CHANGE_WRITES[action.kind]
    readback = _readback(action, facts)
    where = "" if action.kind is _CANCEL else " to [{start}, {end})".format(**_range(action))
    return StepSpec(
        key=f"{verb}-{index}",
        title=f"{verb} {_named(facts)} ({facts.scope.lower()}){where}",
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


def _verify(key: str, of: StepSpec, check: Check, title: str) -> StepSpec:
    return StepSpec(
        key=key,
        title=title,
        kind=StepKind.VERIFY,
        depends_on=(of.key,),
        verify=VerifySpec(
            of=of.key,
            check=check,
            within_seconds=VERIFY_WITHIN_SECONDS,
            interval_seconds=VERIFY_INTERVAL_SECONDS,
        ),
    )


@dataclass(frozen=True, slots=True)
class _Message:
    """One iTIP message: to ``party`` about ``uid``/``rid`` with ``sequence``, naming
    ``named``; ``split``: about the series a this-and-future change split off."""

    method: str
    party: ChangeParty
    uid: str
    rid: str | None
    sequence: int
    named: tuple[ChangeParty, ...]
    split: bool = False


def _planned(action: Action, facts: ChangeFacts) -> list[_Message]:
    """Every message, before the organizer is left out and they are sorted (module doc)."""
    after, before = facts.attendees_after(), _before(facts) or ()
    next_sequence = facts.sequence + 1
    if action.kind is _CREATE:
        return [_Message("REQUEST", p, action.target, None, 0, after) for p in after]
    if facts.scope == "THIS_AND_FUTURE":  # the old series ends before the instance
        old = [_Message("REQUEST", p, facts.uid, None, next_sequence, before) for p in before]
        split = _split(action, facts)
        if split is None:  # a cancel
            return old
        return old + [_Message("REQUEST", p, split, None, 0, after, True) for p in after]
    rid = None if facts.scope == "SERIES" else facts.recurrence_id
    if action.kind is _CANCEL:
        return [_Message("CANCEL", p, facts.uid, rid, next_sequence, before) for p in before]
    sent = [_Message("REQUEST", p, facts.uid, rid, next_sequence, after) for p in after]
    if action.kind is _UPDATE:  # RFC 5546 3.2.5: the CANCEL to a removed attendee names them
        sent += [
            _Message("CANCEL", p, facts.uid, rid, next_sequence, (p,)) for p in facts.removed()
        ]
    return sent


def _chosen(action: Action, facts: ChangeFacts) -> list[_Message]:
    """The messages to send, in step order; the organizer is never a recipient."""
    organizer = None if facts.organizer is None else normal_address(facts.organizer)
    chosen = [m for m in _planned(action, facts) if m.party.key != organizer]
    chosen.sort(key=lambda m: (m.party.key, m.party.address, m.split))
    if chosen and facts.organizer is None:
        raise DraftError(
            f"change of {facts.uid}: messages to attendees need an organizer "
            "(RFC 5546 section 3.2.2)",
            code="draft.invalid_change",
        )
    return chosen


def _copy_check(action: Action, facts: ChangeFacts, m: _Message, calendar_id: str) -> Check:
    """What ``copied-i-j`` reads in the attendee's calendar (module doc)."""
    if m.method == "CANCEL":
        uid, rid = m.uid, m.rid
    else:
        at_uid, at_rid = _where(action, facts)
        uid, rid = m.uid, None
        if m.uid == at_uid and facts.scope != "THIS_AND_FUTURE":
            rid = at_rid
    params: dict[str, Any] = {"calendar_id": calendar_id, "object_id": uid, "uid": uid}
    if rid is not None:
        params["recurrence_id"] = rid
    which = uid + ("" if rid is None else f" at {rid}")
    if m.method == "CANCEL":
        gone = f"{which} is no longer in calendar {calendar_id}"
        return Check(
            capability="calendar.event.get",
            target=uid,
            params=params,
            path="exists",
            op=CheckOp.EQ,
            value=False,
            description=gone,
        )
    return Check(
        capability="calendar.event.get",
        target=uid,
        params=params,
        path="sequence",
        op=CheckOp.EQ,
        value=m.sequence,
        description=f"{which} carries SEQUENCE {m.sequence} in calendar {calendar_id}",
    )


def _deliveries(
    index: int, action: Action, facts: ChangeFacts, after: str, chosen: list[_Message]
) -> list[StepSpec]:
    """``deliver-i-j`` and ``copied-i-j`` (module doc)."""
    steps: list[StepSpec] = []
    seen: set[tuple[str, str]] = set()
    for m in chosen:
        calendar_id = m.party.calendar_id
        if calendar_id is None or calendar_id == action.calendar_id:
            continue
        if (calendar_id, m.uid) in seen:  # two addresses, one calendar: one copy
            continue
        seen.add((calendar_id, m.uid))
        number = len(steps) // 2
        deliver = StepSpec(
            key=f"deliver-{index}-{number}",
            title=f"deliver {m.uid} into calendar {calendar_id} of {m.party.address} "
            f"({m.method}, SEQUENCE {m.sequence})",
            kind=StepKind.CAPABILITY,
            depends_on=(after,),
            capability=DELIVER_CAPABILITY,
            target=m.uid,
            params={
                "calendar_id": calendar_id,
                "organizer_calendar_id": action.calendar_id,
                "uid": m.uid,
                "method": m.method,
                "sequence": m.sequence,
                "attendee": m.party.address,
                "idempotency_key": copy_key(action.idempotency_key, m.party.address, split=m.split),
            },
            expectation=Expectation(
                description=f"calendar {calendar_id} holds the organizer's {m.uid}",
                confidence=EXPECTED_CONFIDENCE,
                within_seconds=VERIFY_WITHIN_SECONDS,
            ),
        )
        check = _copy_check(action, facts, m, calendar_id)
        title = f"read {m.uid} back from calendar {calendar_id}"
        steps += [deliver, _verify(f"copied-{index}-{number}", deliver, check, title)]
    return steps


def _messages(
    index: int, action: Action, facts: ChangeFacts, chosen: list[_Message], title: str | None
) -> list[StepSpec]:
    steps: list[StepSpec] = []
    for number, m in enumerate(chosen):
        key = message_key(action.idempotency_key, m.party.address, split=m.split)
        params: dict[str, Any] = {
            "calendar_id": action.calendar_id,
            "uid": m.uid,
            "recurrence_id": m.rid,
            "method": m.method,
            "sequence": m.sequence,
            "recipient": m.party.address,
            "organizer": facts.organizer,
            "attendees": _people(m.named),
            "idempotency_key": key,
        }
        if m.method == "CANCEL" and title:
            params["title"] = title
        send = StepSpec(
            key=f"itip-{index}-{number}",
            title=f"send {m.method} about {m.uid} to {m.party.address} (SEQUENCE {m.sequence})",
            kind=StepKind.CAPABILITY,
            depends_on=(f"verify-{index}",),
            capability=ITIP_CAPABILITY,
            target=m.party.address,
            params=params,
            expectation=Expectation(
                description=f"the {m.method} to {m.party.address} is delivered",
                confidence=EXPECTED_CONFIDENCE,
                within_seconds=VERIFY_WITHIN_SECONDS,
            ),
        )
        delivered = Check(
            capability=ITIP_READ,
            target=m.party.address,
            params={"idempotency_key": key, "recipient": m.party.address},
            path="done",
            op=CheckOp.EQ,
            value=True,
            description=f"the {m.method} to {m.party.address} is in the outbox and sent",
        )
        title_ = f"check the {m.method} to {m.party.address}"
        steps += [send, _verify(f"sent-{index}-{number}", send, delivered, title_)]
    return steps


def change_steps(
    index: int, action: Action, facts: ChangeFacts, current: Mapping[str, Any] | None
) -> list[StepSpec]:
    """The write, ``verify-<index>``, ``itip-<index>-<j>`` and ``sent-<index>-<j>``, then
    ``deliver-<index>-<j>`` and ``copied-<index>-<j>`` steps of action ``index`` (module
    doc); ``current`` is the event as read (``start``, ``end``,
    ``title``, ``location``; absent members are ``null``).

    Raises:
        DraftError: ``draft.invalid_change`` (attendees to tell but no organizer).
    """
    write = _write(index, action, facts, current)
    check = _readback(action, facts)
    verify = _verify(f"verify-{index}", write, check, f"read {_named(facts)} back")
    title = (current or {}).get("title") or facts.title
    chosen = _chosen(action, facts)
    return [
        write,
        verify,
        *_messages(index, action, facts, chosen, title),
        *_deliveries(index, action, facts, verify.key, chosen),
    ]
