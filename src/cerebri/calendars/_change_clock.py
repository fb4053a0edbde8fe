"""Wall clock and UTC for :mod:`cerebri.calendars.changes` and
:mod:`cerebri.calendars.event_change` where the two part: whole local days of an all-day
event across a daylight-saving change, and instances whose wall time falls in a change's gap
or overlap (docs/decisions/0064).

* A ``DATE`` event lasts nominal days (RFC 5545 sections 3.3.4, 3.3.6 and 3.6.1: ``DTEND``
  is exclusive, ``P1D`` is one calendar day), so N days from a local midnight end at the
  local midnight N days later: 23, 24 or 25 hours a day in a zone with summer time.
* A timed instance keeps the *exact* length of its component (RFC 5545 section 3.8.5.3:
  ``DTEND - DTSTART`` in seconds, the same for every instance; a ``DURATION``'s days nominal,
  its hours, minutes and seconds exact), as :mod:`cerebri.ics` reads it for busy time.
* A wall time in a gap is read with the offset before the gap, one in an overlap as its
  first occurrence (RFC 5545 section 3.3.5; ``zoneinfo`` with ``fold=0``, as
  ``recurring-ical-events`` and ``dateutil`` do): ``02:30`` on Europe/Berlin's spring day is
  01:30 UTC (03:30 summer time). An ``EXDATE`` or ``RECURRENCE-ID`` names such an instance by
  the wall time its ``RRULE`` gives it (``02:30``), not by the wall time it shows.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta, tzinfo
from zoneinfo import ZoneInfo

from icalendar import Component

from cerebri.calendars._change_model import ChangeError
from cerebri.calendars._change_times import Kind
from cerebri.ics.times import Duration, add_duration, to_instant
from cerebri.temporal import Instant

__all__ = [
    "day_count",
    "days_from",
    "exact_end",
    "exact_span_end",
    "instance_wall",
    "local_reading",
    "offset_change",
    "time_value",
]


def _local(instant: Instant, zone: tzinfo) -> datetime:
    moment = instant.to_datetime()
    if moment is None:
        raise ChangeError(f"instant {instant} lies outside the years 1-9999", code="change.invalid")
    return moment.astimezone(zone)


def _midnight(day: date, zone: ZoneInfo) -> Instant:
    """The UTC instant of the local midnight that begins ``day`` (``fold=0``)."""
    return Instant.from_datetime(datetime.combine(day, time(0), zone))


def day_count(start: Instant, end: Instant, zone: ZoneInfo) -> int:
    """How many local calendar days ``[start, end)`` covers in ``zone``: the days between
    the local dates of ``start`` and ``end`` (at least 1)."""
    return max((_local(end, zone).date() - _local(start, zone).date()).days, 1)


def days_from(start: Instant, days: int, zone: ZoneInfo) -> Instant:
    """The local midnight ``days`` calendar days after the local date of ``start`` in
    ``zone``: the exclusive end of an all-day event of ``days`` days starting that date."""
    first = _local(start, zone).date()
    return _midnight(first + timedelta(days=days), zone)


def offset_change(start: Instant, end: Instant, zone: ZoneInfo) -> date | None:
    """The first local date in ``zone`` that is not 24 hours long (a daylight-saving or other
    offset change: 23 or 25 hours) among the days ``[start, end)`` touches; ``None`` when
    every one is."""
    day = _local(start, zone).date()
    while _midnight(day, zone) < end:
        following = _midnight(day + timedelta(days=1), zone)
        if following - _midnight(day, zone) != 86_400 * 1_000_000_000:
            return day
        day += timedelta(days=1)
    return None


def exact_end(start: Instant, source: Component, kind: Kind) -> Instant:
    """The end of a timed instance starting at ``start`` with ``source``'s length (its
    ``DTEND - DTSTART`` in exact seconds, else its ``DURATION``: nominal days from the wall
    time of ``start``, then exact seconds; else zero length: RFC 5545 sections 3.3.6, 3.6.1,
    3.8.5.3). ``change.bad_event`` for an unreadable or negative length."""
    uid = str(source.get("UID", ""))
    begin = getattr(source.get("DTSTART"), "dt", None)
    if not isinstance(begin, datetime):
        raise ChangeError(f"event {uid} has no DTSTART date-time", code="change.bad_event")
    zone = kind.frame
    if "DTEND" in source:
        finish = getattr(source.get("DTEND"), "dt", None)
        if not isinstance(finish, datetime):
            raise ChangeError(f"event {uid} has an unreadable DTEND", code="change.bad_event")
        length = to_instant(finish, zone) - to_instant(begin, zone)
        if length < 0:
            raise ChangeError(f"event {uid} ends before it starts", code="change.bad_event")
        end = start.plus_ns(length)
    elif "DURATION" in source:
        value = getattr(source.get("DURATION"), "dt", None)
        if not isinstance(value, timedelta) or value < timedelta(0):
            raise ChangeError(f"event {uid} has an unreadable DURATION", code="change.bad_event")
        end = add_duration(_local(start, zone), Duration.from_timedelta(value), zone)
    else:
        end = start
    if end is None:
        raise ChangeError("the instance ends after the year 9999", code="change.invalid")
    return end


def exact_span_end(
    start: Instant, source: Component, kind: Kind
) -> tuple[str, datetime | timedelta]:
    """The end property to write for a timed instance starting at ``start`` with
    ``source``'s exact length (:func:`exact_end`): ``("DTEND", wall time)`` when that wall
    time reads back as the same instant, else (an end in the second pass of an overlap,
    which a wall time cannot name: RFC 5545 section 3.3.5) ``("DURATION", exact length)``."""
    end = exact_end(start, source, kind)
    wall = kind.wall_of(end).replace(fold=0)  # what a reader makes of the written value
    if kind.instant(wall) == end:
        return "DTEND", kind.value(wall)  # type: ignore[return-value]  # timed: a datetime
    return "DURATION", timedelta(seconds=(end - start) // 1_000_000_000)


def instance_wall(instance: Component | None, at: Instant, kind: Kind) -> datetime:
    """The wall time an ``EXDATE`` or ``RECURRENCE-ID`` names the instance at ``at`` by: the
    ``DTSTART`` its ``RRULE``/``RDATE`` gives ``instance`` (a wall time in a gap stays as
    generated, e.g. ``02:30``) when it is in the series' own zone, else the wall time of
    ``at`` in the series' frame (RFC 5545 sections 3.3.5, 3.8.4.4, 3.8.5.1)."""
    value = getattr(instance.get("DTSTART"), "dt", None) if instance is not None else None
    if (
        isinstance(value, datetime)
        and value.tzinfo is not None
        and kind.zone is not None
        and getattr(value.tzinfo, "key", None) == getattr(kind.zone, "key", object())
        and Instant.from_datetime(value) == at
    ):
        return value.replace(tzinfo=None, fold=0)
    return kind.wall_of(at)


def time_value(kind: Kind, wall: datetime) -> date | datetime:
    """The ``DTSTART``/``DTEND`` value to write for the wall time ``wall`` (``fold`` telling
    which pass of an overlap): :meth:`Kind.value` when a reader maps it back to the same
    instant (``fold=0``, RFC 5545 section 3.3.5), else (the second pass of an overlap, which a
    wall time with ``TZID`` cannot name) the instant in UTC (section 3.3.5, form #2). Dates
    and floating times are written as they are."""
    if kind.all_day or kind.zone is None:
        return kind.value(wall)
    first = wall.replace(fold=0)
    if kind.instant(first) == kind.instant(wall):
        return kind.value(first)
    moment = kind.instant(wall).to_datetime()
    if moment is None:
        raise ChangeError(f"{wall} lies outside the years 1-9999", code="change.invalid")
    return moment.astimezone(UTC)


def local_reading(instant: Instant, zone_name: str) -> tuple[str, str | None]:
    """How ``instant`` reads in ``zone_name``, for a message (``"2027-03-28 03:30 in
    Europe/Berlin"``), and, when it is also the reading of a wall time that does not exist
    there (a spring-forward gap, read with the offset before it: RFC 5545 section 3.3.5,
    decision 0064), a sentence saying so: ``--instance 02:30`` on Berlin's spring day names
    01:30Z, an instance only of a series whose own wall time is 02:30 (decision 0074);
    else None."""
    zone = ZoneInfo(zone_name)
    local = _local(instant, zone)
    shown = f"{local:%Y-%m-%d %H:%M} in {zone_name}"
    moment = instant.to_datetime()
    assert moment is not None  # _local checked it
    earlier = (moment - timedelta(days=1)).astimezone(zone).utcoffset()
    if earlier is None or earlier == local.utcoffset():
        return shown, None
    wall = (moment + earlier).replace(tzinfo=None)
    back = wall.replace(tzinfo=zone)
    exists = back.astimezone(UTC).astimezone(zone).replace(tzinfo=None) == wall
    if exists or Instant.from_datetime(back) != instant:
        return shown, None
    return shown, (
        f"a local {wall:%Y-%m-%d %H:%M} does not exist in {zone_name} (the clocks skip it) "
        "and is read as this instant (RFC 5545 section 3.3.5), which names an instance only "
        f"of a series whose own wall time is {wall:%H:%M}"
    )
