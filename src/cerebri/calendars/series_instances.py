"""The instances a whole-series or this-and-future move writes, for the conflict checks made
at plan time and again by the calendar writers (docs/decisions/0063).

A ``SERIES`` move shifts every instance by the wall-clock difference between the anchor's
original start and its new start, in the series' own zone (so across a DST change the UTC
offset of later instances differs from the anchor's); a ``THIS_AND_FUTURE`` move does the
same to the series it splits off (decision 0050). Rather than re-deriving that arithmetic,
:func:`moved_instances` expands the very resources
:func:`cerebri.calendars.changes.apply_change` returns, with the same busy-time reader the
rest of cerebri uses (:func:`cerebri.ics.busy_periods`, RFC 5545 section 3.8.4.4 for
overrides), so the instances checked are the instances written.

The horizon is one rule on both sides: the instances starting in
``[new start, new start + SERIES_CHECK_HORIZON_SECONDS)``, the new start being the anchor's.
"""

from __future__ import annotations

from typing import Final

from cerebri.calendars.changes import ChangeOutcome, ChangeScope, EventChange
from cerebri.ics import busy_periods
from cerebri.temporal import Instant

__all__ = [
    "SERIES_CHECK_HORIZON_SECONDS",
    "checks_instances",
    "horizon_end",
    "moved_instances",
]

SERIES_CHECK_HORIZON_SECONDS: Final = 56 * 86_400
"""How far past a series move's new anchor start its shifted instances are checked for
conflicts, in seconds (56 days: eight weekly instances, two monthly ones)."""


def checks_instances(change: EventChange) -> bool:
    """Whether ``change`` moves more than one instance: a move of scope ``SERIES`` or
    ``THIS_AND_FUTURE`` (a single event's ``SERIES`` move has one instance; checking it is
    checking the anchor)."""
    return change.action == "move" and change.scope in (
        ChangeScope.SERIES,
        ChangeScope.THIS_AND_FUTURE,
    )


def horizon_end(start: Instant) -> Instant:
    """The end of the instances checked for a move whose anchor starts at ``start``: ``start``
    plus :data:`SERIES_CHECK_HORIZON_SECONDS` (the last instant of year 9999 at most)."""
    end = start.plus_seconds(SERIES_CHECK_HORIZON_SECONDS)
    return end if end is not None else Instant.parse("9999-12-31T23:59:59Z")


def moved_instances(
    outcome: ChangeOutcome, change: EventChange, floating_zone: str, *, until: Instant | None = None
) -> tuple[tuple[Instant, Instant], ...]:
    """``[start, end)`` (UTC instants) of every busy instance of the moved series that
    ``outcome`` (:func:`~cerebri.calendars.changes.apply_change` of ``change``) writes,
    starting in ``[change.start, until)`` (default ``horizon_end(change.start)``), by
    start: the series ``change.uid`` for a ``SERIES`` move, the split-off series
    ``outcome.new_uid`` for a ``THIS_AND_FUTURE`` one. Empty for a change that is not a
    move with a range. All-day and floating values are read in ``floating_zone`` (IANA
    name).

    Raises:
        CalendarError: the written series cannot be expanded (``ics.*`` codes, e.g.
            ``ics.expansion_limit``).
    """
    start = change.start
    if change.action != "move" or start is None:
        return ()
    uid = outcome.new_uid or change.uid
    until = horizon_end(start) if until is None else until
    found: set[tuple[Instant, Instant]] = set()
    for written_uid, content in outcome.writes:
        if written_uid != uid or content is None:
            continue
        for period in busy_periods(content, start, until, floating_zone=floating_zone):
            if period.uid == uid and start <= period.start < until:
                found.add((period.start, period.end))
    return tuple(sorted(found, key=lambda span: (span[0].ns, span[1].ns)))
