"""Closed time as intervals: working hours and days off in one zone.

find-slot turns the time outside working hours into blocking events
(:func:`cerebri.calendars.query.off_hours` for the query's own hours,
:func:`~cerebri.calendars.query.attendee_off_hours` for each attendee's, decision 0053).
This module does the arithmetic: the closed stretches between one local closing and the
next opening, over the local days around a window, turned into UTC instants by the zone's
rules for each date (RFC 5545 section 3.3.5 form 3; DST moves them; a local time inside a
spring-forward gap is read with the offset before the gap, ``fold=0``). Hours whose
closing time is at or before their opening time cross midnight: a day's hours then close
on the next local date (docs/decisions/0067).
"""

from __future__ import annotations

import hashlib
from datetime import datetime, time, timedelta
from typing import NamedTuple

from cerebri.temporal import Instant, Interval, zone

__all__ = ["Hours", "blocker_owner", "closed_block", "closed_blocks", "closed_spans"]


class Hours(NamedTuple):
    """Whose hours: an IANA zone, ``(open, close)`` local times (None: all day; ``close <=
    open``: the hours close on the next local date), open weekdays (Monday = 0, the day
    the hours open on; None: every day)."""

    zone: str
    hours: tuple[time, time] | None
    days: frozenset[int] | None


def closed_block(span: Interval, pad_ns: int, window: Interval) -> Interval | None:
    """A blocker for time the meeting may not touch at all, next to a ``REQUIRED_BUFFER`` of
    ``pad_ns``: the span shrunk by the pad on both sides, clipped to the window.

    A meeting ``[s, e)`` then fails (overlap or buffer) exactly when it overlaps ``span``,
    so the buffer keeps its distance from real events only. When the shrink leaves nothing
    (a pad of half the span or more), the whole span blocks instead: closed time is still
    never offered, at the price of rejecting starts within the pad of it.
    """
    start, end = span.start + pad_ns, span.end - pad_ns
    shrunk = Interval(start, end) if start < end else span
    return shrunk.intersection(window)


def _local_midnights(window: Interval, zone_name: str) -> list[datetime]:
    tz = zone(zone_name)
    first = Instant(window.start).to_datetime()
    last = Instant(window.end).to_datetime()
    if first is None or last is None:
        raise ValueError("the window must lie within the years 1-9999")
    day = first.astimezone(tz).date() - timedelta(days=1)
    end_day = last.astimezone(tz).date() + timedelta(days=1)
    days: list[datetime] = []
    while day <= end_day:
        days.append(datetime.combine(day, time(0), tz))
        day += timedelta(days=1)
    return days


def _open_hours(rule: Hours, day: datetime) -> tuple[datetime, datetime] | None:
    """The local opening and closing of ``day`` (a local midnight), or None when closed."""
    if rule.days is not None and day.weekday() not in rule.days:
        return None
    opens, closes = rule.hours or (time(0), time(0))
    if rule.hours is None:  # all day: open from this midnight to the next
        return day, datetime.combine(day.date() + timedelta(days=1), time(0), day.tzinfo)
    closing = day.date() + timedelta(days=1) if closes <= opens else day.date()
    return (
        datetime.combine(day.date(), opens, day.tzinfo),
        datetime.combine(closing, closes, day.tzinfo),
    )


def _days_off(rule: Hours, span: Interval, window: Interval) -> bool:
    """Whether every local day the part of ``span`` inside ``window`` touches is a day off
    (not in ``working_days``): that stretch is "not a working day", not evening time."""
    inside = span.intersection(window)
    if inside is None or rule.days is None:
        return False
    tz = zone(rule.zone)
    first = Instant(inside.start).to_datetime()
    last = Instant(inside.end - 1).to_datetime()
    if first is None or last is None:
        return False
    day, end = first.astimezone(tz).date(), last.astimezone(tz).date()
    while day <= end:
        if day.weekday() in rule.days:
            return False
        day += timedelta(days=1)
    return True


def _closed_local(window: Interval, rule: Hours) -> list[tuple[datetime, datetime]]:
    """The closed stretches of ``rule`` as local ``(begin, end)`` pairs, over the local days
    around ``window`` (one day more on each side)."""
    midnights = _local_midnights(window, rule.zone)
    closed: list[tuple[datetime, datetime]] = []
    cursor = midnights[0]
    before = _open_hours(rule, midnights[0] - timedelta(days=1))
    if before is not None and before[1] > cursor:  # the day before's overnight hours
        cursor = before[1]
    for day in midnights[:-1]:
        hours = _open_hours(rule, day)
        if hours is None:
            continue
        if cursor < hours[0]:
            closed.append((cursor, hours[0]))
        cursor = hours[1]
    if cursor < midnights[-1]:
        closed.append((cursor, midnights[-1]))
    return closed


def _span(begin: datetime, finish: datetime) -> Interval:
    return Interval(Instant.from_datetime(begin).ns, Instant.from_datetime(finish).ns)


def closed_spans(window: Interval, rule: Hours) -> list[Interval]:
    """The closed time of ``rule`` around ``window`` (UTC nanoseconds; the local days the
    window touches and one more on each side; neither shrunk nor clipped). Empty when the
    rule closes nothing (all day, every day)."""
    if rule.hours is None and rule.days is None:
        return []
    return [_span(begin, finish) for begin, finish in _closed_local(window, rule)]


def closed_blocks(
    window: Interval, pad_ns: int, rule: Hours, owner: str = ""
) -> list[tuple[str, Interval]]:
    """``(id, span)`` blockers for the closed time of ``rule`` (each span a
    :func:`closed_block` next to a buffer of ``pad_ns``), named by their local bounds:
    ``closed-day-<owner>START-END`` when the part inside ``window`` touches days off only,
    else ``outside-working-hours-<owner>START-END`` (``owner`` is empty or
    :func:`blocker_owner`'s ``alice-``). Consecutive closed stretches form one blocker."""
    if rule.hours is None and rule.days is None:
        return []
    blocks: list[tuple[str, Interval]] = []
    for begin, finish in _closed_local(window, rule):
        span = _span(begin, finish)
        piece = closed_block(span, pad_ns, window)
        if piece is not None:
            kind = "closed-day" if _days_off(rule, span, window) else "outside-working-hours"
            name = f"{kind}-{owner}{begin:%Y-%m-%dT%H%M}-{finish:%Y-%m-%dT%H%M}"
            blocks.append((name, piece))
    return blocks


def blocker_owner(calendar_id: str) -> str:
    """The attendee part of a blocker id (``alice-``): the calendar id, or for one longer
    than 74 characters its first 57 and 16 hex digits of its SHA-256, so that
    ``outside-working-hours-<owner>START-END`` stays within CPIR's 128 characters."""
    if len(calendar_id) <= 74:
        return calendar_id + "-"
    digest = hashlib.sha256(calendar_id.encode()).hexdigest()[:16]
    return f"{calendar_id[:57]}.{digest}-"
