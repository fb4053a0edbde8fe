"""The re-check a calendar writer makes before it writes: is ``[start, end)`` still free?

The planner chose a slot from a free/busy read that may be minutes old; a write lands only
if that slot is still free when the writer acts. Both calendar adapters
(:class:`~cerebri.execution.adapters.ics_file.IcsFileCalendar`, under its file lock, and
:class:`~cerebri.execution.adapters.caldav_calendar.CalDavCalendar`, just before its
conditional ``PUT``) read busy time over the range with :func:`cerebri.calendars.freebusy`,
the same reading as ``cerebri freebusy``, and leave out the event being written itself.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from icalendar import Component

from cerebri.calendars import freebusy
from cerebri.execution.adapters.base import AdapterError
from cerebri.ics import CalendarError
from cerebri.temporal import Instant

__all__ = ["ensure_slot_free"]


def ensure_slot_free(
    calendars: Sequence[Component],
    calendar_id: str,
    uid: str,
    start: Instant,
    end: Instant,
    *,
    also: Collection[str] = (),
) -> None:
    """Refuse the write of event ``uid`` over ``[start, end)`` when anything else in
    ``calendars`` (parsed by :func:`cerebri.ics.parse_calendar`) is busy in that range.
    The events whose ``UID`` is in ``also`` are left out too (a series split off the event).

    Raises:
        AdapterError: ``calendar.slot_taken``, not retryable, naming the first conflicting
            busy interval (RFC 3339 UTC) and its UID; ``calendar.unreadable`` when the
            calendar cannot be expanded. Both are raised before anything is written.
    """
    try:
        view = freebusy(calendars, start, end)
    except (CalendarError, ValueError) as exc:
        raise AdapterError(
            f"calendar {calendar_id}: cannot re-check [{start}, {end}) before writing: {exc}; "
            "nothing was written",
            code="calendar.unreadable",
        ) from None
    taken = [p for p in view.busy if p.uid != uid and p.uid not in also]
    if taken:
        first = taken[0]
        raise AdapterError(
            f"calendar {calendar_id}: [{start.format()}, {end.format()}) is no longer free: "
            f"event {first.uid!r} is busy over [{first.start.format()}, {first.end.format()})"
            f"{f' and {len(taken) - 1} more' if len(taken) > 1 else ''}; nothing was written",
            code="calendar.slot_taken",
        )
