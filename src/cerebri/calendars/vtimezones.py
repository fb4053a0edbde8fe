"""The ``VTIMEZONE`` components cerebri writes, covering every instance they describe.

RFC 5545 section 3.6.5: a ``VTIMEZONE`` should describe the zone's offsets over the whole
recurrence set of the components that use it, and a reader that trusts the embedded
definition (rather than its own tz database) takes the offsets from it. icalendar's
:meth:`~icalendar.Timezone.from_tzinfo` writes the transitions between two dates, after
which a reader keeps the last offset forever; a long or endless series needs more
(decision 0065). :func:`add_zones` writes, for every ``TZID`` the calendar uses and does not
define, one ``VTIMEZONE`` made from zoneinfo (the same files :class:`zoneinfo.ZoneInfo`
reads) that covers the span of its events:

* the span runs from January 1 of the year of the earliest ``DTSTART``, ``DTEND``,
  ``RECURRENCE-ID``, ``RDATE`` or ``EXDATE`` of any ``VEVENT`` to the end of the last
  instance: the latest of those values, every ``RRULE``'s ``UNTIL`` and the last instance of
  every ``COUNT`` rule (expanded by ``dateutil``), plus the event's length; an ``RRULE``
  with neither makes the span endless;
* the zone's current rule is written as yearly ``RRULE`` sub-components, the way calendar
  services publish zones, whether the span ends or not: the rule is the POSIX TZ string at
  the end of the TZif file (RFC 8536 section 3.3),
  ``std offset dst [offset],Mm.w.d[/time],Mm.w.d[/time]``, written as
  ``FREQ=YEARLY;BYMONTH=m;BYDAY=wD`` (``-1`` for the last week; a time beyond midnight or
  before it, as in ``M3.5.0/-1``, moves the day and becomes ``BYDAY`` with the seven
  ``BYMONTHDAY``\\ s it can fall on). They start in the year the rule took over, the first
  from which every transition the TZif file records is one of the rule's (Berlin: 1996),
  so a zone's ``VTIMEZONE`` is the same for every event after that year, and a server that
  keeps one definition per ``TZID`` (Radicale, through vobject) reads every object right;
* transitions before that year, back to January 1 of the span's first year, are written out:
  one sub-component per kind of change, its first onset as ``DTSTART`` and the others as
  ``RDATE``\\ s, the shape icalendar's ``Timezone.from_tzinfo`` writes; the instants are
  the TZif file's and, after its last one, its footer rule's, the offsets and names
  zoneinfo's (not ``from_tzinfo`` itself: its 64-day search steps over shorter periods,
  such as Casablanca's Ramadan months);
* a zone whose rule has no daylight time gets its transitions written out up to its last
  change, whose offset a reader keeps. A rule this cannot write (no TZif footer, ``Jn``/``n``
  day forms, a moved day leaving the month) gets its transitions written out to the span's
  end, or :data:`FALLBACK_YEARS` years on for an endless span.

Every written ``VTIMEZONE`` carries the ``COMMENT`` :data:`GENERATED` (instead of
icalendar's "only works from" one; a ``COMMENT``, not an ``X-`` property, because
``dateutil``'s reader refuses unknown properties there). A ``VTIMEZONE``
the calendar already has is kept as it is (a server's or organizer's definition wins), as
before, except one cerebri wrote: with that ``COMMENT``, or, in a calendar whose ``PRODID``
is cerebri's, with icalendar's "This timezone only works from" ``COMMENT`` (what cerebri
wrote before decision 0065); those are made again for the new span. ``TZID``\\ s are added
in sorted order, after the calendar's other ``VTIMEZONE``\\ s, so the same calendar gives
the same bytes. A ``TZID`` neither zoneinfo nor icalendar knows is left out, as before.
"""

from __future__ import annotations

import importlib.resources
import os
import re
import struct
import zoneinfo
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from functools import lru_cache
from typing import Final

from dateutil.rrule import rrulestr  # type: ignore[import-untyped]  # dateutil ships no types
from icalendar import Calendar, Component, Timezone, TimezoneDaylight, TimezoneStandard

__all__ = ["FALLBACK_YEARS", "GENERATED", "add_zones", "zone_component"]

GENERATED: Final = "Written by cerebri from the IANA tz database"
"""How the ``COMMENT`` of a ``VTIMEZONE`` cerebri wrote begins."""

FALLBACK_YEARS: Final = 100
"""Years of explicit transitions for an endless span whose zone rule cannot be written as
``RRULE``\\ s."""

_LEGACY_COMMENT: Final = "This timezone only works from"
_WEEKDAYS: Final = ("SU", "MO", "TU", "WE", "TH", "FR", "SA")  # POSIX d: 0 is Sunday
_DAY: Final = 86400
_EPOCH: Final = datetime(1970, 1, 1, tzinfo=UTC)


@dataclass(frozen=True, slots=True)
class _Onset:
    """One POSIX ``Mm.w.d/time`` rule: the ``w``-th (5: last) weekday ``d`` of month ``m``,
    at ``time`` seconds after that day's local midnight (may be negative or over a day)."""

    month: int
    week: int
    weekday: int
    time: int

    def local(self, year: int) -> datetime:
        """The local wall time of the onset in ``year`` (in the offset before it)."""
        if self.week == 5:
            nxt = date(year + 1, 1, 1) if self.month == 12 else date(year, self.month + 1, 1)
            last = nxt - timedelta(days=1)
            day = last - timedelta(days=(last.isoweekday() % 7 - self.weekday) % 7)
        else:
            first = date(year, self.month, 1)
            day = first + timedelta(days=(self.weekday - first.isoweekday() % 7) % 7)
            day += timedelta(weeks=self.week - 1)
        return datetime.combine(day, time()) + timedelta(seconds=self.time)  # wall time

    def rrule(self) -> dict[str, object] | None:
        """The yearly ``RRULE`` of the onset's local date, or None when the moved day can
        leave the month (no zone does that today)."""
        shift, _ = divmod(self.time, _DAY)
        shortest = 28 if self.month == 2 else 30 if self.month in (4, 6, 9, 11) else 31
        weekday = _WEEKDAYS[(self.weekday + shift) % 7]
        if shift == 0:
            ordinal = -1 if self.week == 5 else self.week
            return {"FREQ": "YEARLY", "BYMONTH": self.month, "BYDAY": f"{ordinal}{weekday}"}
        if self.week == 5:
            days = [d + shift for d in range(-7, 0)]
            if not all(-shortest <= d <= -1 for d in days):
                return None
        else:
            days = [d + shift for d in range(7 * self.week - 6, 7 * self.week + 1)]
            if not all(1 <= d <= shortest for d in days):
                return None
        return {
            "FREQ": "YEARLY",
            "BYMONTH": self.month,
            "BYDAY": weekday,
            "BYMONTHDAY": sorted(days),
        }


@dataclass(frozen=True, slots=True)
class _Rule:
    """A TZif footer: standard name and offset (seconds east of UTC), and for a zone with
    daylight time its name, offset and the two onsets (to daylight, back to standard)."""

    std_name: str
    std_offset: int
    dst_name: str | None = None
    dst_offset: int | None = None
    to_dst: _Onset | None = None
    to_std: _Onset | None = None

    def onsets(self, year: int) -> Iterator[tuple[datetime, int, int, bool]]:
        """The rule's transitions whose local time falls in ``year``: (local wall time before
        it, offset before, offset after, is the new state standard)."""
        if self.to_dst is None or self.to_std is None or self.dst_offset is None:
            return
        yield self.to_dst.local(year), self.std_offset, self.dst_offset, False
        yield self.to_std.local(year), self.dst_offset, self.std_offset, True

    def utc_transitions(self, year: int) -> set[tuple[int, int]]:
        """(POSIX seconds, offset after) of the rule's transitions in UTC year ``year``."""
        out = set()
        for y in (year - 1, year, year + 1):
            for wall, before, after, _ in self.onsets(y):
                instant = wall.replace(tzinfo=UTC) - timedelta(seconds=before)
                if instant.year == year:
                    out.add((int(instant.timestamp()), after))
        return out


_NAME = r"(?:<[^>]*>|[A-Za-z]{3,})"
_OFFSET = r"[+-]?\d{1,3}(?::\d{2}(?::\d{2})?)?"
_ONSET = r"M(\d{1,2})\.(\d)\.(\d)(?:/(" + _OFFSET + r"))?"
_FOOTER: Final = re.compile(rf"({_NAME})({_OFFSET})(?:({_NAME})({_OFFSET})?,{_ONSET},{_ONSET})?")


def _seconds(text: str) -> int:
    sign = -1 if text.startswith("-") else 1
    parts = [int(p) for p in text.lstrip("+-").split(":")]
    parts += [0] * (3 - len(parts))
    return sign * (parts[0] * 3600 + parts[1] * 60 + parts[2])


def _parse_footer(text: str) -> _Rule | None:
    """The POSIX TZ string of a TZif footer (RFC 8536 section 3.3), or None for a form this
    does not write (``Jn``/``n`` days). POSIX offsets count west of UTC, hence the signs."""
    match = _FOOTER.fullmatch(text)
    if match is None:
        return None
    std_name, std, dst_name, dst, *onsets = match.groups()
    std_offset = -_seconds(std)
    if dst_name is None:
        return _Rule(std_name.strip("<>"), std_offset)
    dst_offset = -_seconds(dst) if dst is not None else std_offset + 3600
    m1, w1, d1, t1, m2, w2, d2, t2 = onsets
    to_dst = _Onset(int(m1), int(w1), int(d1), _seconds(t1) if t1 else 7200)
    to_std = _Onset(int(m2), int(w2), int(d2), _seconds(t2) if t2 else 7200)
    return _Rule(std_name.strip("<>"), std_offset, dst_name.strip("<>"), dst_offset, to_dst, to_std)


def _tzif_bytes(key: str) -> bytes | None:
    """The TZif file :class:`zoneinfo.ZoneInfo` reads for ``key``: the first one on
    ``zoneinfo.TZPATH``, else the ``tzdata`` package's."""
    if not key or key.startswith("/") or ".." in key.split("/"):
        return None
    for folder in zoneinfo.TZPATH:
        path = os.path.join(folder, key)
        if os.path.isfile(path):
            with open(path, "rb") as handle:
                return handle.read()
    try:
        resource = importlib.resources.files("tzdata.zoneinfo").joinpath(*key.split("/"))
        return resource.read_bytes() if resource.is_file() else None
    except (ModuleNotFoundError, OSError):
        return None


def _tzif(data: bytes) -> tuple[list[tuple[int, int]], str | None]:
    """The transitions (POSIX seconds, offset after) of a version 2+ TZif file's 64-bit
    block and its footer (RFC 8536 sections 3.1 to 3.3). No library exposes these:
    zoneinfo keeps them private."""
    if data[:4] != b"TZif" or data[4:5] == b"\0":
        return [], None

    def sizes(at: int) -> tuple[int, ...]:
        return struct.unpack(">6l", data[at + 20 : at + 44])

    isut, isstd, leap, count, types, chars = sizes(0)
    at = 44 + count * 5 + types * 6 + chars + leap * 8 + isstd + isut
    isut, isstd, leap, count, types, chars = sizes(at)
    at += 44
    times = struct.unpack(f">{count}q", data[at : at + count * 8])
    at += count * 8
    index = data[at : at + count]
    at += count
    offsets = [struct.unpack(">l", data[at + 6 * i : at + 6 * i + 4])[0] for i in range(types)]
    at += types * 6 + chars + leap * 12 + isstd + isut
    footer = data[at:].strip(b"\n").decode("ascii", "replace")
    return [(t, offsets[i]) for t, i in zip(times, index, strict=True)], footer


@dataclass(frozen=True, slots=True)
class _ZoneData:
    """A TZif file read: every transition instant, those that change the offset (with the
    offset after), and the footer rule (None when absent or not written here)."""

    instants: tuple[int, ...]
    changes: tuple[tuple[int, int], ...]
    rule: _Rule | None


@lru_cache(maxsize=512)
def _zone_data(key: str) -> _ZoneData | None:
    data = _tzif_bytes(key)
    if data is None:
        return None
    transitions, footer = _tzif(data)
    rule = _parse_footer(footer) if footer else None
    changes: list[tuple[int, int]] = []
    before = None
    for instant, offset in transitions:
        if offset != before:
            changes.append((instant, offset))
        before = offset
    return _ZoneData(tuple(t for t, _ in transitions), tuple(changes), rule)


@lru_cache(maxsize=1024)
def _rule_start(changes: tuple[tuple[int, int], ...], rule: _Rule, floor: int) -> int:
    """The first year (not before ``floor``) from which every recorded offset change is one
    of ``rule``'s."""
    by_year: dict[int, set[tuple[int, int]]] = {}
    for instant, offset in changes:
        try:
            year = (_EPOCH + timedelta(seconds=instant)).year
        except OverflowError:  # the "since the big bang" first transition
            year = floor - 1
        by_year.setdefault(year, set()).add((instant, offset))
    start = max(by_year, default=floor - 1) + 1
    while start - 1 >= floor and by_year.get(start - 1, set()) == rule.utc_transitions(start - 1):
        start -= 1
    return max(start, floor)


def _state(zone: zoneinfo.ZoneInfo, instant: int) -> tuple[int, str, bool]:
    """(offset seconds, abbreviation, is standard time) of ``zone`` at POSIX ``instant``."""
    moment = (_EPOCH + timedelta(seconds=instant)).astimezone(zone)
    offset, dst = moment.utcoffset(), moment.dst()
    name = moment.tzname() or ""
    return int(offset.total_seconds()) if offset else 0, name, not dst


def _explicit(key: str, first: int, last: int) -> Timezone:
    """Every transition of ``key`` from January 1 of ``first`` to January 1 of ``last``
    (local), one sub-component per (offset before, offset after, name, kind) with
    ``DTSTART`` and ``RDATE``\\ s, the first one the state at the start. The instants are
    the TZif file's, then its footer rule's after them; the states are zoneinfo's. Written
    here because icalendar's ``Timezone.from_tzinfo`` (7.3.2) searches in 64-day steps and
    misses shorter periods, such as Casablanca's Ramadan months (decision 0065)."""
    data = _zone_data(key)
    if data is None:  # a name zoneinfo has no file for: icalendar's own search
        zone = Timezone.from_tzid(key, first_date=date(first, 1, 1), last_date=date(last, 1, 1))
        zone.pop("COMMENT", None)
        return zone
    tz = zoneinfo.ZoneInfo(key)
    begin = int(datetime.combine(date(first, 1, 1), time(), tz).timestamp())
    end = int(datetime.combine(date(last, 1, 1), time(), tz).timestamp())
    instants = {t for t in data.instants if begin <= t < end}
    recorded = data.instants[-1] if data.instants else begin - 1
    if data.rule is not None:
        after = (_EPOCH + timedelta(seconds=max(recorded, begin))).year
        for year in range(after, min(last, 9998) + 1):
            instants.update(t for t, _ in data.rule.utc_transitions(year) if t > recorded)
    instants = {t for t in instants if begin <= t < end}
    offset, name, standard = _state(tz, begin)
    groups: dict[tuple[int, int, str, bool], list[datetime]] = {
        (offset, offset, name, standard): [datetime.combine(date(first, 1, 1), time())]
    }
    for instant in sorted(instants):
        before, after_state = _state(tz, instant - 1), _state(tz, instant)
        if before == after_state:
            continue
        wall = (_EPOCH + timedelta(seconds=instant + before[0])).replace(tzinfo=None)
        kind = (before[0], after_state[0], after_state[1], after_state[2])
        groups.setdefault(kind, []).append(wall)
    zone = Timezone()
    zone.add("TZID", key)
    for (was, now, label, is_standard), walls in groups.items():
        part = TimezoneStandard() if is_standard else TimezoneDaylight()
        part.add("DTSTART", walls[0])
        if walls[1:]:
            part.add("RDATE", walls[1:])
        part.add("TZOFFSETFROM", timedelta(seconds=was))
        part.add("TZOFFSETTO", timedelta(seconds=now))
        part.add("TZNAME", label)
        zone.add_component(part)
    return zone


def _rule_components(rule: _Rule, year: int) -> list[Component] | None:
    parts: list[Component] = []
    for (wall, before, after, standard), onset in zip(
        rule.onsets(year), (rule.to_dst, rule.to_std), strict=True
    ):
        recur = onset.rrule() if onset is not None else None
        if recur is None:
            return None
        part = TimezoneStandard() if standard else TimezoneDaylight()
        part.add("DTSTART", wall)
        part.add("TZOFFSETFROM", timedelta(seconds=before))
        part.add("TZOFFSETTO", timedelta(seconds=after))
        part.add("RRULE", recur)
        part.add("TZNAME", rule.std_name if standard else rule.dst_name)
        parts.append(part)
    return parts


def zone_component(key: str, first: date, last: date | None) -> Timezone | None:
    """The ``VTIMEZONE`` of IANA zone ``key`` for instances from ``first`` to ``last``
    (local dates; None: endless), as described in the module docstring; None when zoneinfo
    does not know ``key``."""
    year = max(first.year, 2)
    try:
        zone = _zone_component(key, year, last)
    except ValueError:  # icalendar's answer for a zone it cannot find
        return None
    zone.add("COMMENT", GENERATED)  # no dates: one zone, one text
    return zone


def _zone_component(key: str, year: int, last: date | None) -> Timezone:
    data = _zone_data(key)
    changes, rule = (data.changes, data.rule) if data is not None else ((), None)
    end = min(last.year + 1 if last is not None else year + FALLBACK_YEARS, 9999)
    if rule is None:
        return _explicit(key, year, end)
    if rule.to_dst is None:  # no daylight time: the last change's offset stays
        return _explicit(key, year, max(_rule_start(changes, rule, year), year + 1))
    start = _rule_start(changes, rule, 2)  # the year the rule took over
    tail_year = start if start <= year - 1 else max(start, year + 1)
    tail = _rule_components(rule, tail_year)
    if tail is None:
        return _explicit(key, year, end)
    if tail_year > year - 1:
        zone = _explicit(key, year, tail_year)
    else:
        zone = Timezone()
        zone.add("TZID", key)
    for part in tail:
        zone.add_component(part)
    return zone


def _values(event: Component, name: str) -> Iterator[date]:
    raw = event.get(name)
    for item in raw if isinstance(raw, list) else [raw]:
        if item is None:
            continue
        dts = getattr(item, "dts", None)
        for value in [getattr(v, "dt", None) for v in dts] if dts else [getattr(item, "dt", None)]:
            if isinstance(value, tuple):  # a PERIOD: its start and its end or length
                start, other = value
                yield start
                yield other if isinstance(other, date) else start + other
            elif isinstance(value, date):
                yield value


def _day(value: date) -> date:
    return value.date() if isinstance(value, datetime) else value


def _last_instance(event: Component, rule: object) -> date | None:
    """The last start of ``rule`` (``UNTIL``, or ``COUNT`` expanded), or None if endless."""
    until = rule.get("UNTIL") if isinstance(rule, dict) else None
    if until:
        return _day(until[0])
    if not (isinstance(rule, dict) and rule.get("COUNT")):
        return None
    start = getattr(event.get("DTSTART"), "dt", None)
    if not isinstance(start, date):
        return None
    if not isinstance(start, datetime):
        start = datetime.combine(start, time())  # a date series counts in days
    try:
        text = rule.to_ical().decode()  # type: ignore[attr-defined]
        starts = list(rrulestr(text, dtstart=start))
    except (ValueError, TypeError):
        return None
    return _day(starts[-1]) if starts else _day(start)


def span(calendar: Calendar) -> tuple[date, date | None] | None:
    """(first day, last day or None for endless) of the calendar's ``VEVENT``\\ s, as the
    module docstring says; None without any dated value."""
    days: list[date] = []
    endless = False
    for event in calendar.walk("VEVENT"):
        for name in ("DTSTART", "DTEND", "RECURRENCE-ID", "RDATE", "EXDATE"):
            days.extend(_day(v) for v in _values(event, name))
        start = getattr(event.get("DTSTART"), "dt", None)
        end = getattr(event.get("DTEND"), "dt", None)
        length = getattr(event.get("DURATION"), "dt", None)
        if isinstance(start, date) and isinstance(end, date):
            length = end - start
        raw = event.get("RRULE")
        for rule in raw if isinstance(raw, list) else [raw] if raw is not None else []:
            last = _last_instance(event, rule)
            if last is None:
                endless = True
            else:
                extra = length if isinstance(length, timedelta) else timedelta()
                days.append(last + timedelta(days=extra.days + 1))
    if not days:
        return None
    return min(days), None if endless else max(days)


def _ours(calendar: Calendar, zone: Component) -> bool:
    comments = zone.get("COMMENT")
    texts = [str(c) for c in (comments if isinstance(comments, list) else [comments]) if c]
    if any(t.startswith(GENERATED) for t in texts):
        return True
    prodid = str(calendar.get("PRODID", ""))
    return prodid.startswith("-//cerebri//") and any(t.startswith(_LEGACY_COMMENT) for t in texts)


def add_zones(calendar: Calendar) -> None:
    """Add the ``VTIMEZONE`` of every ``TZID`` used and not defined (remaking the ones
    cerebri wrote), covering the span of the calendar's ``VEVENT``\\ s (module docstring).
    Changes ``calendar`` in place; a calendar without dated events is left alone."""
    covered = span(calendar)
    if covered is None:
        return
    for index, component in enumerate(calendar.subcomponents):
        if component.name == "VTIMEZONE" and _ours(calendar, component):
            again = zone_component(str(component.get("TZID", "")), covered[0], covered[1])
            if again is not None:  # else the old one stays: better than none
                calendar.subcomponents[index] = again
    position = sum(1 for c in calendar.subcomponents if c.name == "VTIMEZONE")
    for key in sorted(calendar.get_missing_tzids()):
        zone = zone_component(key, covered[0], covered[1])
        if zone is not None:
            calendar.subcomponents.insert(position, zone)
            position += 1
