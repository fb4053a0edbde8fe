"""The ``change`` of a CPIR request as the plan graph reads it (issue #23, contract C1).

A request that reschedules, cancels or updates an existing event (or creates one with
attendees) carries a ``change`` object: the event's iCalendar ``UID``, the scope of the change
(``INSTANCE``, ``THIS_AND_FUTURE``, ``SERIES``), the ``RECURRENCE-ID`` of the instance (RFC 5545
section 3.8.4.4), the ``ETag`` and ``SEQUENCE`` read, an update's new title and location, the
organizer and the attendees. :func:`read_change` turns it, given as its wire form (a mapping)
or as an object with those attributes (the CPIR model), into a :class:`ChangeFacts`: plain
frozen values with instants as RFC 3339 UTC text, attendees sorted by address.

:func:`change_inputs` gathers from a planning request what
:func:`~cerebri.plans.draft_from_action_plan` needs besides the action plan: the ``change``
and the current range of every event the plan changes (its ``KNOWN`` time in the request).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from cerebri._guard import arguments
from cerebri._json import JSONValue
from cerebri.cpir import MutationKind, PlanningRequest
from cerebri.planner import ActionPlan
from cerebri.plans.report import DraftError, draft_argument_error
from cerebri.temporal import Instant

__all__ = [
    "SCOPES",
    "ChangeFacts",
    "ChangeParty",
    "change_inputs",
    "normal_address",
    "read_change",
]

SCOPES: Final = ("INSTANCE", "THIS_AND_FUTURE", "SERIES")
"""The scopes of a change (contract C1): one instance, this one and the ones after, all."""

_MAX_UID: Final = 1024


def normal_address(address: str) -> str:
    """``address`` as compared and sorted: lower case, with a ``mailto:`` prefix (RFC 6068
    schemes and RFC 5321 domains are case-insensitive; two spellings of one mailbox get one
    message)."""
    text = address.strip()
    if text[:7].lower() == "mailto:":
        text = text[7:]
    return "mailto:" + text.lower()


@dataclass(frozen=True, slots=True)
class ChangeParty:
    """One attendee: ``address`` (``mailto:...``), ``name`` (its ``CN`` or ``None``),
    ``required`` (``ROLE=REQ-PARTICIPANT``, else ``OPT-PARTICIPANT``) and the ``calendar_id``
    read for that person (``None`` when none was read)."""

    address: str
    name: str | None
    required: bool
    calendar_id: str | None

    @property
    def key(self) -> str:
        """:func:`normal_address` of the address: what identifies the person."""
        return normal_address(self.address)

    def to_wire(self) -> dict[str, JSONValue]:
        """``{"address", "name", "required", "calendar_id"}`` (contract C1)."""
        return {
            "address": self.address,
            "name": self.name,
            "required": self.required,
            "calendar_id": self.calendar_id,
        }


@dataclass(frozen=True, slots=True)
class ChangeFacts:
    """What the plan graph needs of a ``change`` (contract C1).

    ``recurrence_id`` is RFC 3339 UTC text or ``None``; ``attendees`` the list given (for an
    UPDATE the new list, ``None`` = unchanged; otherwise the event's attendees) and
    ``previous_attendees`` the event's attendees as read (known for an UPDATE only when the
    caller gives them), both sorted by :func:`normal_address` without repeats.
    """

    uid: str
    scope: str
    recurrence_id: str | None
    etag: str | None
    sequence: int
    title: str | None
    location: str | None
    organizer: str | None
    attendees: tuple[ChangeParty, ...] | None
    previous_attendees: tuple[ChangeParty, ...] | None = None

    def attendees_after(self) -> tuple[ChangeParty, ...]:
        """The attendees once the change is made: the list given, else the previous one."""
        if self.attendees is not None:
            return self.attendees
        return self.previous_attendees or ()

    def removed(self) -> tuple[ChangeParty, ...]:
        """Previous attendees the list given no longer names (an UPDATE's removals)."""
        if self.attendees is None or self.previous_attendees is None:
            return ()
        kept = {p.key for p in self.attendees}
        return tuple(p for p in self.previous_attendees if p.key not in kept)

    def added(self) -> tuple[ChangeParty, ...]:
        """Attendees the list given names that the previous list did not (empty when the
        previous list is unknown)."""
        if self.attendees is None or self.previous_attendees is None:
            return ()
        before = {p.key for p in self.previous_attendees}
        return tuple(p for p in self.attendees if p.key not in before)


def _member(change: object, name: str) -> Any:
    if isinstance(change, Mapping):
        return change.get(name)
    return getattr(change, name, None)


def _invalid(message: str) -> DraftError:
    return DraftError(f"change: {message}", code="draft.invalid_change")


def _text(change: object, name: str, *, required: bool = False) -> str | None:
    value = _member(change, name)
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value:
        raise _invalid(f"{name} must be non-empty text, not {value!r}")
    return value


def _instant(value: object) -> str | None:
    if value is None:
        return None
    try:
        return Instant.parse(str(value)).format()
    except (ValueError, OverflowError):
        raise _invalid(f"recurrence_id {value!r} is not an RFC 3339 instant") from None


def _party(item: object) -> ChangeParty:
    address = _text(item, "address", required=True)
    assert address is not None
    required = _member(item, "required")
    if not isinstance(required, bool):
        raise _invalid(f"attendee {address}: required must be true or false")
    return ChangeParty(address, _text(item, "name"), required, _text(item, "calendar_id"))


def _parties(items: object) -> tuple[ChangeParty, ...] | None:
    if items is None:
        return None
    if isinstance(items, str | bytes | Mapping) or not isinstance(items, Iterable):
        raise _invalid("attendees must be a list of attendees or null")
    unique: dict[str, ChangeParty] = {}
    for party in map(_party, items):
        unique.setdefault(party.key, party)
    return tuple(unique[k] for k in sorted(unique))


def read_change(change: object, previous_attendees: Sequence[object] | None = None) -> ChangeFacts:
    """The :class:`ChangeFacts` of ``change``: a mapping (the wire form of contract C1) or an
    object with the same attributes. ``previous_attendees`` (attendees in the same shapes)
    are the event's attendees as read, for an UPDATE that changes the list.

    The scope is read as text (an enum's value); a ``sequence`` is a whole number from 0.

    Raises:
        DraftError: ``draft.invalid_change`` (a member missing or of the wrong type, an
            unknown scope, a ``recurrence_id`` that is not an instant or missing for the
            ``INSTANCE`` and ``THIS_AND_FUTURE`` scopes).
    """
    uid = _text(change, "uid", required=True)
    assert uid is not None
    if len(uid) > _MAX_UID:
        raise _invalid(f"uid is longer than {_MAX_UID} characters")
    scope_value = _member(change, "scope")
    scope = str(getattr(scope_value, "value", scope_value))
    if scope not in SCOPES:
        raise _invalid(f"scope {scope!r} is not one of {', '.join(SCOPES)}")
    recurrence_id = _instant(_member(change, "recurrence_id"))
    if recurrence_id is None and scope != "SERIES":
        raise _invalid(f"scope {scope} needs the recurrence_id of the instance")
    sequence = _member(change, "sequence")
    if isinstance(sequence, bool) or not isinstance(sequence, int) or sequence < 0:
        raise _invalid(f"sequence must be a whole number from 0, not {sequence!r}")
    etag = _member(change, "etag")
    if etag is not None and not isinstance(etag, str):
        raise _invalid("etag must be text or null")
    return ChangeFacts(
        uid=uid,
        scope=scope,
        recurrence_id=recurrence_id,
        etag=etag,
        sequence=sequence,
        title=_text(change, "title"),
        location=_text(change, "location"),
        organizer=_text(change, "organizer"),
        attendees=_parties(_member(change, "attendees")),
        previous_attendees=_parties(
            previous_attendees
            if previous_attendees is not None
            else _member(change, "previous_attendees")
        ),
    )


@arguments(draft_argument_error, request=PlanningRequest, action_plan=ActionPlan)
def change_inputs(request: PlanningRequest, action_plan: ActionPlan) -> dict[str, Any]:
    """The keyword arguments of :func:`~cerebri.plans.draft_from_action_plan` that come from
    ``request``: ``change`` (the request's ``change``, ``None`` when it has none) and
    ``current`` (object id -> ``{"start", "end"}``, RFC 3339 UTC: the ``KNOWN`` time of every
    existing object the action plan moves, updates or deletes)."""
    current: dict[str, dict[str, str]] = {}
    for action in action_plan.actions:
        if action.kind is MutationKind.CREATE_EVENT:
            continue
        obj = request.object(action.target)
        span = None if obj is None else obj.known_time
        if span is not None:
            current[action.target] = {"start": str(span.start), "end": str(span.end)}
    return {"change": getattr(request, "change", None), "current": current}
