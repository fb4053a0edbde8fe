"""A CPIR request from options alone: ``cerebri request new``.

:func:`new_request` is the find-slot request (:func:`cerebri.calendars.query.build_request`,
docs/decisions/0008-find-slot-mapping.md) with the busy time given as intervals instead of
read from calendars: each interval becomes an ``EVENT`` ``busy-<n>`` (n = 1, 2, ... in the
order given, provenance ``USER_EXPLICIT``, integration ``cli``), and no time is
unobserved: the user vouches for the whole window (docs/decisions/0028-an-event-out.md).
A daily preference (``--prefer 10:30`` means 10:30 on every day) becomes the request's one
preferred instant the way find-slot's emitted request carries it: the feasible start ranked
first under it (docs/decisions/0026).
"""

from __future__ import annotations

from collections.abc import Sequence

from cerebri._guard import arguments
from cerebri._json import JSONValue
from cerebri.calendars.arguments import invalid_argument
from cerebri.calendars.planning import FIND_SLOT_LIMITS
from cerebri.calendars.query import SlotQuery, build_request, event_objects
from cerebri.calendars.ranked import plan_ranked
from cerebri.calendars.ranking import has_daily_preference
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
    if isinstance(busy, str):
        raise invalid_argument("busy must be a sequence of (start, end) pairs, not text")
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

    def build(preferred: Instant | None) -> dict[str, JSONValue]:
        return build_request(events, [], query, preferred_start=preferred)

    if not has_daily_preference(query):
        return build(None)
    # One preferred instant per request: the start find-slot ranks first under the daily
    # preference, as find-slot --emit-request writes it (docs/decisions/0026).
    request, _, _, _ = plan_ranked(build, query, (), 0, FIND_SLOT_LIMITS)
    return request
