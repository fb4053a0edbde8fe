"""The params of a calendar change, read once for both calendar adapters (decision 0051).

:func:`change_params` turns the params of ``calendar.event.move``, ``calendar.event.cancel``
or ``calendar.event.update`` (their JSON Schemas are in :mod:`cerebri.plans.capabilities`)
into a :class:`ChangeParams`: which event (``uid``, default the ``object_id``), which part
of it (``scope``, ``recurrence_id``), what it must still be (``expected_etag``,
``expected_revision``), which calendars to re-read (``check_calendar_ids``) and the
:class:`~cerebri.calendars.changes.EventChange` to apply. :func:`people` reads
``organizer`` and ``attendees`` (also for a create). Instants are RFC 3339 UTC text;
iCalendar DATE-TIMEs hold whole seconds (RFC 5545 3.3.5), so a fraction is refused.

Every refusal is :class:`~cerebri.execution.adapters.base.AdapterError`
``adapter.invalid_params`` with ``before_effect`` (nothing was done).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from cerebri._json import JSONValue
from cerebri.calendars.changes import ChangeAction, ChangeScope, EventChange, Participant
from cerebri.execution.adapters.base import AdapterError, Invocation
from cerebri.temporal import Instant

__all__ = [
    "ChangeParams",
    "EventRef",
    "change_params",
    "effect_key",
    "event_ref",
    "invalid",
    "people",
]

_NS_PER_SECOND: Final = 1_000_000_000


def invalid(message: str) -> AdapterError:
    """Params the adapter cannot take: ``adapter.invalid_params``, refused before anything
    is done."""
    return AdapterError(message, code="adapter.invalid_params", before_effect=True)


def effect_key(invocation: Invocation) -> str:
    """The key naming the intended effect: the ``idempotency_key`` param (the planner's, the
    same for every revision and attempt of one action), else the invocation's."""
    key = invocation.params.get("idempotency_key")
    return key if isinstance(key, str) and key else invocation.idempotency_key


def _optional_text(params: Mapping[str, JSONValue], name: str) -> str | None:
    value = params.get(name)
    if value is None or isinstance(value, str):
        return value
    raise invalid(f"param {name!r} must be a string or null, not {value!r}")


def _optional_instant(params: Mapping[str, JSONValue], name: str) -> Instant | None:
    text = _optional_text(params, name)
    if text is None:
        return None
    try:
        moment = Instant.parse(text)
    except ValueError:
        raise invalid(f"param {name!r} is not an RFC 3339 instant: {text!r}") from None
    if moment.ns % _NS_PER_SECOND:
        raise invalid(
            f"param {name!r} {text} has a fraction of a second; iCalendar DATE-TIME holds "
            "whole seconds (RFC 5545 3.3.5)"
        )
    return moment


def _participant(item: JSONValue) -> Participant:
    if not isinstance(item, dict):
        raise invalid(f"an attendee must be an object, not {item!r}")
    address, name, required = item.get("address"), item.get("name"), item.get("required", True)
    if not isinstance(address, str) or not isinstance(name, (str, type(None))):
        raise invalid(f"an attendee needs an address text and a name text or null: {item!r}")
    if not isinstance(required, bool):
        raise invalid(f"an attendee's 'required' must be true or false: {item!r}")
    return Participant(address, name, required)


def people(
    params: Mapping[str, JSONValue],
) -> tuple[str | None, tuple[Participant, ...] | None]:
    """``(organizer, attendees)`` of the params: the ``organizer`` address (``mailto:...``)
    or ``None``, and the ``attendees`` (``[{address, name, required, calendar_id}]``) as
    :class:`~cerebri.calendars.changes.Participant` values, or ``None`` when absent or
    ``null`` (unchanged)."""
    organizer = _optional_text(params, "organizer")
    listed = params.get("attendees")
    if listed is None:
        return organizer, None
    if not isinstance(listed, list):
        raise invalid(f"param 'attendees' must be a list or null, not {listed!r}")
    return organizer, tuple(_participant(item) for item in listed)


@dataclass(frozen=True, slots=True)
class ChangeParams:
    """One change as the adapters carry it out.

    Attributes:
        calendar_id, object_id: where and which step target.
        change: what to apply (``uid``, ``scope``, ``recurrence_id``, new range, title,
            location, people, the effect's idempotency key).
        expected_etag: ``If-Match`` value read at plan time, or ``None`` (not checked).
        expected_revision: the ``SEQUENCE`` read at plan time, or ``None``.
        check_calendar_ids: calendars re-read for busy time over the new range before
            writing (besides ``calendar_id`` itself), in the order given, no repeats.
        floating_zone: the IANA zone floating times and dates are read in (the
            ``timezone`` param, else ``UTC``).
    """

    calendar_id: str
    object_id: str
    change: EventChange
    expected_etag: str | None
    expected_revision: int | None
    check_calendar_ids: tuple[str, ...]
    floating_zone: str

    @property
    def new_range(self) -> tuple[Instant, Instant] | None:
        """``[start, end)`` the change writes, or ``None`` (a cancel, an update of other
        fields)."""
        start, end = self.change.start, self.change.end
        return None if start is None or end is None else (start, end)


def _text(params: Mapping[str, JSONValue], name: str) -> str:
    value = params.get(name)
    if not isinstance(value, str) or not value:
        raise invalid(f"param {name!r} must be a non-empty string, not {value!r}")
    return value


def _calendar_ids(params: Mapping[str, JSONValue], own: str) -> tuple[str, ...]:
    listed = params.get("check_calendar_ids", [])
    if not isinstance(listed, list) or not all(isinstance(i, str) for i in listed):
        raise invalid("param 'check_calendar_ids' must be a list of calendar ids")
    return tuple(dict.fromkeys(str(i) for i in listed if i != own))


def _revision(params: Mapping[str, JSONValue]) -> int | None:
    value = params.get("expected_revision")
    if value is None or (isinstance(value, int) and not isinstance(value, bool) and value >= 0):
        return value
    raise invalid(f"param 'expected_revision' must be a whole number >= 0 or null: {value!r}")


def _scope(params: Mapping[str, JSONValue]) -> ChangeScope:
    value = params.get("scope", ChangeScope.SERIES.value)
    try:
        return ChangeScope(str(value))
    except ValueError:
        raise invalid(
            f"param 'scope' must be INSTANCE, THIS_AND_FUTURE or SERIES: {value!r}"
        ) from None


def _range(
    params: Mapping[str, JSONValue], action: ChangeAction
) -> tuple[Instant | None, Instant | None]:
    if action == "cancel":
        return None, None
    start, end = _optional_instant(params, "start"), _optional_instant(params, "end")
    if action == "move" and (start is None or end is None):
        raise invalid("a move needs 'start' and 'end'")
    if (start is None) != (end is None):
        raise invalid("give both 'start' and 'end', or neither")
    if start is not None and end is not None and not start < end:
        raise invalid(f"end {end} is not after start {start} (the range is half-open)")
    return start, end


def change_params(invocation: Invocation, action: ChangeAction) -> ChangeParams:
    """The :class:`ChangeParams` of ``invocation`` (a move, cancel or update).

    Raises:
        AdapterError: ``adapter.invalid_params`` (``before_effect``) for params of the
            wrong type or shape: a move without a range, ``end`` not after ``start``, an
            instant with a fraction of a second, an unknown ``scope``.
    """
    params = invocation.params
    calendar_id, object_id = _text(params, "calendar_id"), _text(params, "object_id")
    uid = _optional_text(params, "uid") or object_id
    start, end = _range(params, action)
    organizer, attendees = people(params)
    update = action == "update"
    change = EventChange(
        action=action,
        uid=uid,
        scope=_scope(params),
        recurrence_id=_optional_instant(params, "recurrence_id"),
        start=start,
        end=end,
        title=_optional_text(params, "title") if update else None,
        location=_optional_text(params, "location") if update else None,
        organizer=organizer,
        attendees=attendees,
        idempotency_key=effect_key(invocation),
    )
    return ChangeParams(
        calendar_id=calendar_id,
        object_id=object_id,
        change=change,
        expected_etag=_optional_text(params, "expected_etag"),
        expected_revision=_revision(params),
        check_calendar_ids=_calendar_ids(params, calendar_id),
        floating_zone=_optional_text(params, "timezone") or "UTC",
    )


@dataclass(frozen=True, slots=True)
class EventRef:
    """Which event a ``calendar.event.get`` reads: ``uid`` (default the ``object_id``) and,
    for one instance of a series, its ``recurrence_id`` (UTC original start);
    ``floating_zone`` the IANA zone all-day and floating times are read in (the
    ``timezone`` param, the zone the plan used; ``None``: such an event has no instant)."""

    calendar_id: str
    object_id: str
    uid: str
    recurrence_id: Instant | None
    floating_zone: str | None = None


def event_ref(params: Mapping[str, JSONValue]) -> EventRef:
    """The :class:`EventRef` of ``calendar.event.get`` params (``adapter.invalid_params``
    when they are not text and an instant)."""
    calendar_id, object_id = _text(params, "calendar_id"), _text(params, "object_id")
    uid = _optional_text(params, "uid") or object_id
    rid, zone = _optional_instant(params, "recurrence_id"), _optional_text(params, "timezone")
    return EventRef(calendar_id, object_id, uid, rid, zone)
