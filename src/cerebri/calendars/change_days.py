"""Whole local days of an all-day event when a change is planned (docs/decisions/0064).

An all-day event (``DTSTART;VALUE=DATE``) lasts nominal days (RFC 5545 sections 3.3.4, 3.3.6
and 3.6.1: ``DTEND`` is exclusive, ``P1D`` is one calendar day), read in the plan's zone: from
a local midnight to the local midnight N days later, 23 or 25 hours for the day of a
daylight-saving change.

* :func:`all_day_end`: the true UTC end of an update or cancel, so the plan's range is the
  one :func:`cerebri.calendars.changes.apply_change` writes back as dates at act time.
* :func:`all_day_search`: a reschedule's search length. The planner's grid is fixed seconds
  (CPIR 0.2: one ``duration``, one ``granularity``), so its candidates are whole local days
  only while the zone keeps one UTC offset; a window across an offset change is refused
  when planning, never after approval.
"""

from __future__ import annotations

from typing import Final
from zoneinfo import ZoneInfo

from cerebri.calendars._change_clock import day_count, days_from, offset_change
from cerebri.calendars._change_model import EventView
from cerebri.calendars.change_ask import invalid_option
from cerebri.temporal import Instant

__all__ = ["all_day_end", "all_day_search"]

_DAY: Final = 86_400
_NS: Final = 1_000_000_000


def _days(view: EventView, duration_seconds: int | None, zone: ZoneInfo) -> int:
    """The asked length in days (``duration_seconds`` counts 86 400 s a day, whole days
    checked by the caller), else the event's own local days."""
    if duration_seconds is not None:
        return max(duration_seconds // _DAY, 1)
    return day_count(view.start, view.end, zone)


def all_day_end(view: EventView, duration_seconds: int | None, zone: str) -> Instant:
    """The UTC end of all-day ``view`` kept at its start, ``duration_seconds // 86400`` days
    long (else its own number of days): the local midnight that many days after its start in
    ``zone`` (an IANA name)."""
    local = ZoneInfo(zone)
    return days_from(view.start, _days(view, duration_seconds, local), local)


def all_day_search(
    uid: str,
    view: EventView,
    duration_seconds: int | None,
    window: tuple[Instant, Instant] | None,
    zone: str,
) -> int:
    """The search length in seconds (N days of 86 400 s) of a reschedule of all-day
    ``view`` over ``window`` (starting at a local midnight of ``zone``).

    ``input.invalid_option`` when the zone's UTC offset changes inside ``window`` (there a
    day is not 86 400 s and the planner's fixed grid would leave local midnights), and when
    the event itself lasts across such a change (23, 47... hours): a reschedule keeps the
    event's exact length (decision 0049), which no run of 24-hour days has."""
    local = ZoneInfo(zone)
    days = _days(view, duration_seconds, local)
    own = day_count(view.start, view.end, local)
    if (view.end - view.start) // _NS != own * _DAY:
        raise invalid_option(  # a reschedule keeps the exact length (decision 0049)
            f"event {uid!r} lasts {own} local day(s) across a UTC offset change in {zone} "
            f"({(view.end - view.start) // (3_600 * _NS)} hours), and a reschedule keeps an "
            "event's exact length: it cannot move to days of 24 hours; cancel it and create it "
            "on the days wanted"
        )
    if window is not None:
        changed = offset_change(window[0], window[1], local)
        if changed is not None:
            raise invalid_option(
                f"event {uid!r} lasts whole days and {zone} changes its UTC offset on "
                f"{changed.isoformat()} (a day of 23 or 25 hours, which a search in "
                "24-hour steps cannot place): search before that date and from the day after "
                "it in separate --between windows"
            )
    return days * _DAY
