"""Calendar import and planning over a generated one-year calendar, in one process.

Run from the repository root::

    .venv/bin/python bench/calendar_scaling.py            # 5 repeats (about 30 s)
    .venv/bin/python bench/calendar_scaling.py --quick    # 2 repeats (smoke test)
    .venv/bin/python bench/calendar_scaling.py --profile  # also profile (b) and (c)

The calendar (``generate_calendar``, ``random.Random(1234)``): 5 000 VEVENTs over 2026, of
which 200 are recurring series (weekly or daily, COUNT or UNTIL, some EXDATEs), 20 are
RECURRENCE-ID overrides of them and the rest single events (some all-day, floating,
DURATION-defined or TRANSPARENT), in Europe/Berlin and America/New_York (with VTIMEZONE
blocks), Asia/Tokyo and Europe/London (bare IANA TZIDs) and UTC.

Each repeat runs, in this order and on fresh objects:

(a) ``icalendar.Calendar.from_ical(text)``: the bare parse;
(b) ``parse_calendar(text)`` (b1), then ``ImportedCalendars(...).expand(year)`` (b2): our
    import and the busy expansion of the whole year; (b) is their sum in one repeat;
(c) the first ``find_slot``: a 30-minute meeting in one work week (Berlin, working hours
    09:00-17:00, 10-minute buffer), over the just-imported calendar;
(d) a second ``find_slot`` on the same ``ImportedCalendars`` for another week (its events
    were never written into a request before; the expansion is reused);
(e) the import (b1) plus a ``find_slot`` for the week of (c) on a fresh
    ``ImportedCalendars`` (e2), which expands only that week: the path an application takes
    when it plans without expanding the whole year first.

Reported: the minimum over repeats of each (``time.perf_counter``, garbage collector
enabled, ``gc.collect()`` before each step) and the targets: import + first plan <= 1.5 x
the bare parse, both with the whole year expanded first ((b+c)/a) and on demand (e/a), and
d < 20 ms.
For information: (d) again for the same week (every request piece cached) and the plain
``cerebri.calendars.find_slot`` for the week of (c), which expands that week on every call.
Every plan is checked byte for byte against ``find_slot``.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import json
import os
import platform
import pstats
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from datetime import time as clock
from functools import partial
from importlib import metadata
from typing import Any, TypeVar
from zoneinfo import ZoneInfo

import icalendar

from cerebri.calendars import SlotQuery, find_slot
from cerebri.calendars.imported import ImportedCalendars
from cerebri.cpir import PlanningResult
from cerebri.ics import parse_calendar
from cerebri.temporal import Instant

T = TypeVar("T")

SEED = 1234
EVENTS = 5_000
SERIES = 200
OVERRIDES = 20
YEAR = 2026
YEAR_START = Instant.from_datetime(datetime(YEAR, 1, 1, tzinfo=UTC))
YEAR_END = Instant.from_datetime(datetime(YEAR + 1, 1, 1, tzinfo=UTC))

VTIMEZONES = {
    "Europe/Berlin": (
        "BEGIN:VTIMEZONE",
        "TZID:Europe/Berlin",
        "BEGIN:DAYLIGHT",
        "TZOFFSETFROM:+0100",
        "TZOFFSETTO:+0200",
        "TZNAME:CEST",
        "DTSTART:19700329T020000",
        "RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU",
        "END:DAYLIGHT",
        "BEGIN:STANDARD",
        "TZOFFSETFROM:+0200",
        "TZOFFSETTO:+0100",
        "TZNAME:CET",
        "DTSTART:19701025T030000",
        "RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU",
        "END:STANDARD",
        "END:VTIMEZONE",
    ),
    "America/New_York": (
        "BEGIN:VTIMEZONE",
        "TZID:America/New_York",
        "BEGIN:DAYLIGHT",
        "TZOFFSETFROM:-0500",
        "TZOFFSETTO:-0400",
        "TZNAME:EDT",
        "DTSTART:19700308T020000",
        "RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=2SU",
        "END:DAYLIGHT",
        "BEGIN:STANDARD",
        "TZOFFSETFROM:-0400",
        "TZOFFSETTO:-0500",
        "TZNAME:EST",
        "DTSTART:19701101T020000",
        "RRULE:FREQ=YEARLY;BYMONTH=11;BYDAY=1SU",
        "END:STANDARD",
        "END:VTIMEZONE",
    ),
}
"""Zones written as VTIMEZONE blocks; the others below are bare IANA TZIDs."""

ZONES = (
    ("Europe/Berlin", 40),
    ("America/New_York", 20),
    ("UTC", 15),  # written as ...Z
    ("Asia/Tokyo", 8),
    ("Europe/London", 7),
    ("floating", 10),  # no TZID: read in the floating zone
)
SUMMARIES = (
    "Standup",
    "1:1",
    "Design review",
    "Customer call",
    "Focus time",
    "Lunch",
    "Interview",
    "Planning",
    "Retro",
    "All hands",
)


def _local(moment: datetime) -> str:
    return moment.strftime("%Y%m%dT%H%M%S")


def _stamp(moment: datetime, zone_name: str, prop: str) -> str:
    """``PROP;TZID=...:local``, ``PROP:...Z`` or a floating ``PROP:local``."""
    if zone_name == "UTC":
        return f"{prop}:{_local(moment)}Z"
    if zone_name == "floating":
        return f"{prop}:{_local(moment)}"
    return f"{prop};TZID={zone_name}:{_local(moment)}"


def _pick_zone(rng: random.Random) -> str:
    names = [name for name, _ in ZONES]
    weights = [weight for _, weight in ZONES]
    return rng.choices(names, weights)[0]


def _series(rng: random.Random, index: int) -> tuple[list[str], list[list[str]]]:
    """One recurring series (master lines) and the candidates for overrides."""
    zone_name = _pick_zone(rng)
    if zone_name == "floating":
        zone_name = "Europe/Berlin"  # UNTIL must match DTSTART; keep series zoned
    day = date(YEAR, 1, 1) + timedelta(days=rng.randrange(0, 300))
    hour, minute = rng.randrange(7, 18), rng.choice((0, 15, 30, 45))
    start = datetime(day.year, day.month, day.day, hour, minute)  # noqa: DTZ001 - wall time
    minutes = rng.choice((15, 30, 30, 45, 60, 60, 90))
    daily = rng.random() < 0.4
    step_days = (1 if daily else 7) * rng.choice((1, 1, 1, 2))
    freq = "DAILY" if daily else "WEEKLY"
    interval = step_days if daily else step_days // 7
    if rng.random() < 0.6:
        count = rng.randrange(10, 60 if daily else 52)
        limit = f"COUNT={count}"
    else:
        count = rng.randrange(8, 40)
        last = start + timedelta(days=step_days * (count - 1))
        # UNTIL in UTC (RFC 5545 section 3.3.10 for a zoned DTSTART); one day later covers
        # any offset, and the next instance is at least one day further away.
        limit = f"UNTIL={_local(last + timedelta(days=1))}Z"
    rule = f"RRULE:FREQ={freq};INTERVAL={interval};{limit}"
    uid = f"series-{index:03d}@bench.cerebri"
    lines = [
        "BEGIN:VEVENT",
        f"UID:{uid}",
        "DTSTAMP:20251201T000000Z",
        _stamp(start, zone_name, "DTSTART"),
        _stamp(start + timedelta(minutes=minutes), zone_name, "DTEND"),
        rule,
        f"SUMMARY:{rng.choice(SUMMARIES)} (series {index})",
    ]
    instances = [start + timedelta(days=step_days * k) for k in range(count)]
    if rng.random() < 0.3:
        for k in sorted(rng.sample(range(1, count), rng.randrange(1, 4))):
            lines.append(_stamp(instances[k], zone_name, "EXDATE"))
    lines.append("END:VEVENT")
    moved = instances[count // 2]
    shifted = moved + timedelta(hours=rng.choice((-2, -1, 1, 2, 3)))
    override = [
        "BEGIN:VEVENT",
        f"UID:{uid}",
        "DTSTAMP:20251201T000000Z",
        _stamp(moved, zone_name, "RECURRENCE-ID"),
        _stamp(shifted, zone_name, "DTSTART"),
        _stamp(shifted + timedelta(minutes=minutes), zone_name, "DTEND"),
        "SEQUENCE:1",
        f"SUMMARY:{rng.choice(SUMMARIES)} (series {index}, moved)",
        "END:VEVENT",
    ]
    return lines, [override]


def _single(rng: random.Random, index: int) -> list[str]:
    zone_name = _pick_zone(rng)
    day = date(YEAR, 1, 1) + timedelta(days=rng.randrange(0, 365))
    uid = f"event-{index:04d}@bench.cerebri"
    lines = ["BEGIN:VEVENT", f"UID:{uid}", "DTSTAMP:20251201T000000Z"]
    if rng.random() < 0.03:  # all-day, one to three days
        lines.append(f"DTSTART;VALUE=DATE:{day:%Y%m%d}")
        lines.append(f"DTEND;VALUE=DATE:{day + timedelta(days=rng.randrange(1, 4)):%Y%m%d}")
    else:
        hour, minute = rng.randrange(7, 19), rng.choice((0, 15, 30, 45))
        start = datetime(day.year, day.month, day.day, hour, minute)  # noqa: DTZ001 - wall time
        minutes = rng.choice((15, 30, 30, 45, 60, 60, 90, 120))
        lines.append(_stamp(start, zone_name, "DTSTART"))
        if rng.random() < 0.2:
            lines.append(f"DURATION:PT{minutes}M")
        else:
            lines.append(_stamp(start + timedelta(minutes=minutes), zone_name, "DTEND"))
    if rng.random() < 0.03:
        lines.append("TRANSP:TRANSPARENT")
    lines.append(f"SUMMARY:{rng.choice(SUMMARIES)} #{index}")
    lines.append("END:VEVENT")
    return lines


def generate_calendar(seed: int = SEED) -> str:
    """An .ics text with ``EVENTS`` VEVENTs over ``YEAR``: ``SERIES`` recurring series
    (weekly or daily, COUNT or UNTIL, some EXDATEs), ``OVERRIDES`` RECURRENCE-ID overrides
    of them, and single events (some all-day, some floating, some TRANSPARENT)."""
    rng = random.Random(seed)
    lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//cerebri bench//calendar_scaling//EN"]
    for block in VTIMEZONES.values():
        lines.extend(block)
    overrides: list[list[str]] = []
    for index in range(SERIES):
        master, candidates = _series(rng, index)
        lines.extend(master)
        overrides.extend(candidates)
    for override in rng.sample(overrides, OVERRIDES):
        lines.extend(override)
    for index in range(EVENTS - SERIES - OVERRIDES):
        lines.extend(_single(rng, index))
    lines.append("END:VCALENDAR")
    return "\r\n".join(lines) + "\r\n"


# --- measurement -------------------------------------------------------------------------

PLAN_ZONE = "Europe/Berlin"
BERLIN = ZoneInfo(PLAN_ZONE)
FIRST_WEEK = (date(2026, 3, 9), date(2026, 3, 14))  # Monday to Saturday 00:00, Berlin
SECOND_WEEK = (date(2026, 10, 26), date(2026, 10, 31))  # the week after the DST change
RATIO_TARGET = 1.5
SECOND_PLAN_TARGET = 0.020


def week_query(week: tuple[date, date]) -> SlotQuery:
    first, last = (
        Instant.from_datetime(datetime(d.year, d.month, d.day, tzinfo=BERLIN)) for d in week
    )
    return SlotQuery(
        first,
        last,
        duration_seconds=1800,
        granularity_seconds=900,
        zone=PLAN_ZONE,
        working_hours=(clock(9), clock(17)),
        buffer_seconds=600,
    )


@dataclass
class Samples:
    values: dict[str, list[float]] = field(default_factory=dict)

    def add(self, name: str, seconds: float) -> None:
        self.values.setdefault(name, []).append(seconds)

    def best(self, name: str) -> float:
        return min(self.values[name])


def timed(samples: Samples, name: str, fn: Callable[[], T]) -> T:
    gc.collect()
    started = time.perf_counter()
    result = fn()
    samples.add(name, time.perf_counter() - started)
    return result


def wire(pair: tuple[dict[str, Any], PlanningResult]) -> str:
    """The request and the result as JSON text, for byte comparison."""
    request, result = pair
    return json.dumps(request) + json.dumps(result.to_wire())


def run_repeat(text: str, samples: Samples, reference: dict[str, str]) -> ImportedCalendars:
    bare = timed(samples, "a", lambda: icalendar.Calendar.from_ical(text))
    del bare

    calendar = timed(samples, "b1", lambda: parse_calendar(text, source="generated.ics"))

    def expand_year() -> ImportedCalendars:
        imported = ImportedCalendars([("generated", calendar)], floating_zone=PLAN_ZONE)
        imported.expand(YEAR_START, YEAR_END)
        return imported

    imported = timed(samples, "b2", expand_year)
    samples.add("b", samples.values["b1"][-1] + samples.values["b2"][-1])
    first = timed(samples, "c", lambda: imported.find_slot(week_query(FIRST_WEEK)))
    second = timed(samples, "d", lambda: imported.find_slot(week_query(SECOND_WEEK)))
    again = timed(samples, "d-warm", lambda: imported.find_slot(week_query(SECOND_WEEK)))
    assert imported.expansions == 1, "the plans must reuse the year's expansion"

    def on_demand() -> tuple[dict[str, Any], PlanningResult]:
        fresh = ImportedCalendars([("generated", calendar)], floating_zone=PLAN_ZONE)
        return fresh.find_slot(week_query(FIRST_WEEK))  # expands only that week

    lazy = timed(samples, "e2", on_demand)
    assert wire(lazy) == reference["first"], "the on-demand plan differs from find_slot"
    samples.add("e", samples.values["b1"][-1] + samples.values["e2"][-1])
    for name, pair in (("first", first), ("second", second), ("second", again)):
        assert wire(pair) == reference[name], f"{name} plan differs from find_slot"
    return imported


def references(text: str, samples: Samples) -> dict[str, str]:
    calendar = [("generated", parse_calendar(text, source="generated.ics"))]
    out: dict[str, str] = {}
    for name, week in (("first", FIRST_WEEK), ("second", SECOND_WEEK)):
        query = week_query(week)
        pair = timed(
            samples, f"direct-{name}", partial(find_slot, calendar, query, floating_zone=PLAN_ZONE)
        )
        out[name] = wire(pair)
        request: Any = pair[0]
        result: Any = pair[1].to_wire()
        out[f"summary-{name}"] = (
            f"{name} week: {len(request['context']['objects'])} request objects, outcome "
            f"{result['outcome']}, {len(result['candidates'])} candidates"
        )
    return out


def profile(text: str, top: int) -> None:
    """cProfile of (b) and (c); hot spots in cerebri.ics and cerebri.calendars first."""
    profiler = cProfile.Profile()
    walls: list[tuple[str, float]] = []

    def step(label: str, fn: Callable[[], T]) -> T:
        started = time.perf_counter()
        profiler.enable()
        try:
            return fn()
        finally:
            profiler.disable()
            walls.append((label, time.perf_counter() - started))

    calendar = step("parse_calendar", lambda: parse_calendar(text, source="generated.ics"))
    imported = ImportedCalendars([("generated", calendar)], floating_zone=PLAN_ZONE)
    step("expand the year", lambda: imported.expand(YEAR_START, YEAR_END))
    step("first plan", lambda: imported.find_slot(week_query(FIRST_WEEK)))
    shown = ", ".join(f"{label} {seconds:.2f} s" for label, seconds in walls)
    print(f"cProfile of (b) and (c), wall time under the profiler: {shown}")
    stats = pstats.Stats(profiler, stream=sys.stdout)
    print(f"top {top} in src/cerebri/ics and src/cerebri/calendars by cumulative time:")
    stats.sort_stats("cumulative").print_stats(r"cerebri/(ics|calendars)/", top)
    print(f"top {top} overall by own time:")
    stats.sort_stats("tottime").print_stats(top)


def machine_info() -> list[str]:
    versions = ", ".join(
        f"{name} {metadata.version(name)}" for name in ("icalendar", "recurring-ical-events")
    )
    try:
        load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:  # pragma: no cover - not available
        load = "unknown"
    return [
        f"python {platform.python_version()} on {platform.platform()}, "
        f"{os.cpu_count()} cores, load average {load}",
        versions,
    ]


def table(samples: Samples, repeats: int) -> list[str]:
    a, b, c, d, e = (samples.best(k) for k in "abcde")
    ratio = (b + c) / a
    lazy_ratio = e / a
    rows = [
        ("(a) icalendar.Calendar.from_ical alone", a, "1.00"),
        ("(b) parse_calendar + expand the year", b, f"{b / a:.2f}"),
        ("    (b1) parse_calendar", samples.best("b1"), f"{samples.best('b1') / a:.2f}"),
        ("    (b2) expand the year", samples.best("b2"), f"{samples.best('b2') / a:.2f}"),
        ("(c) first plan, one work week", c, f"{c / a:.3f}"),
        ("(b+c) import + first plan", b + c, f"{ratio:.2f}"),
        ("(d) second plan, another week", d, f"{d / a:.4f}"),
        ("    (d) again, same week (info)", samples.best("d-warm"), "-"),
        ("    find_slot() for week (c) (info)", samples.best("direct-first"), "-"),
        ("(e) import + first plan, on demand", e, f"{lazy_ratio:.2f}"),
        ("    (e2) expand that week + plan", samples.best("e2"), f"{samples.best('e2') / a:.3f}"),
    ]
    lines = [f"{'step':<40} {'seconds':>9} {'x (a)':>7}", "-" * 58]
    lines += [f"{label:<40} {seconds:>9.4f} {share:>7}" for label, seconds, share in rows]
    lines.append(f"min over {repeats} repeats")
    met = "MET" if ratio <= RATIO_TARGET else "NOT MET"
    lines.append(
        f"target (b+c)/a <= {RATIO_TARGET} (whole year expanded first): {ratio:.2f} -> {met}"
    )
    met = "MET" if lazy_ratio <= RATIO_TARGET else "NOT MET"
    lines.append(
        f"target e/a <= {RATIO_TARGET} (expanding only what the plan needs): "
        f"{lazy_ratio:.2f} -> {met}"
    )
    met = "MET" if d < SECOND_PLAN_TARGET else "NOT MET"
    lines.append(f"target (d) < {SECOND_PLAN_TARGET * 1e3:.0f} ms: {d * 1e3:.1f} ms -> {met}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="2 repeats instead of 5")
    parser.add_argument("--profile", action="store_true", help="also profile (b) and (c)")
    parser.add_argument("--top", type=int, default=20, help="profile rows (default 20)")
    args = parser.parse_args(argv)
    repeats = 2 if args.quick else 5

    for line in machine_info():
        print(line)
    text = generate_calendar(SEED)
    print(
        f"calendar: {len(text.encode())} bytes, {text.count('BEGIN:VEVENT')} VEVENTs, "
        f"{SERIES} series, {OVERRIDES} overrides (seed {SEED})"
    )
    samples = Samples()
    reference = references(text, samples)
    print(reference["summary-first"])
    print(reference["summary-second"])
    for index in range(repeats):
        print(f"  repeat {index + 1}/{repeats} ...", file=sys.stderr, flush=True)
        imported = run_repeat(text, samples, reference)
        busy = sum(len(periods) for _, periods in imported.busy(YEAR_START, YEAR_END))
        del imported
    print(f"busy periods in the year: {busy}")
    print()
    lines = table(samples, repeats)
    for line in lines:
        print(line)
    if args.profile or samples.best("b") + samples.best("c") > RATIO_TARGET * samples.best("a"):
        print()
        profile(text, args.top)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
