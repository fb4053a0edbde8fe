"""A CPIR request from options alone: ``cerebri request new``.

:func:`new_request` is the find-slot request (:func:`cerebri.calendars.query.build_request`,
docs/decisions/0008-find-slot-mapping.md) with the busy time given as intervals instead of
read from calendars: each interval becomes an ``EVENT`` ``busy-<n>`` (n = 1, 2, ... in the
order given, provenance ``USER_EXPLICIT``, integration ``cli``), and no time is
unobserved: the user vouches for the whole window (docs/decisions/0028-an-event-out.md).
"""

from __future__ import annotations

from collections.abc import Sequence

from cerebri._guard import arguments
from cerebri._json import JSONValue
from cerebri.calendars.arguments import invalid_argument
from cerebri.calendars.query import SlotQuery, build_request, event_objects
from cerebri.ics import BusyPeriod
from cerebri.temporal import Instant

__all__ = ["BUSY_CALENDAR", "new_request"]

BUSY_CALENDAR = "busy"
"""The ``calendar_id`` of the busy events :func:`new_request` writes."""


@arguments(invalid_argument, query=SlotQuery, busy=Sequence)
def new_request(
    query: SlotQuery, busy: Sequence[tuple[Instant, Instant]] = ()
) -> dict[str, JSONValue]:
    """The CPIR 0.2 ``FIND_SLOT`` request (JSON values) for ``query`` with ``busy`` time.

    ``busy`` holds half-open ``(start, end)`` UTC instants; the objects are named
    ``busy-1``, ``busy-2`` ... in that order. Raises ``calendars.invalid_argument`` for a
    pair that is not two instants or does not start before it ends, or a wrong ``query``.
    """
    periods: list[BusyPeriod] = []
    for index, pair in enumerate(busy, start=1):
        if (
            not isinstance(pair, tuple)
            or len(pair) != 2
            or not all(isinstance(moment, Instant) for moment in pair)
        ):
            raise invalid_argument(f"busy[{index - 1}] must be a (start, end) pair of Instants")
        start, end = pair
        if not start < end:
            raise invalid_argument(f"busy interval {index} must start before it ends")
        periods.append(
            BusyPeriod(
                start=start,
                end=end,
                uid=f"busy-{index}",
                recurrence_id=None,
                summary=None,
                source=BUSY_CALENDAR,
                kind="event",
            )
        )
    events = event_objects([(BUSY_CALENDAR, periods)], query.zone)
    for event, period in zip(events, periods, strict=True):
        assert isinstance(event, dict) and isinstance(event["time"], dict)
        event["id"] = period.uid
        event["integration_id"] = "cli"
        event["time"]["provenance"] = "USER_EXPLICIT"
    return build_request(events, [], query)
