"""Busy time of generated series equals an independent expansion written here.

The reference expands the rule with ``dateutil.rrule`` over ``zoneinfo``-aware start times
(wall-clock recurrence, as RFC 5545 section 3.3.10 and ``dateutil`` do), and applies
``EXDATE`` values and overrides by comparing UTC instants (RFC 5545 sections 3.8.4.4 and
3.8.5.1). It uses neither ``recurring-ical-events`` nor cerebri code. Series are daily,
weekly or hourly, with ``COUNT``, ``UNTIL`` or neither and an ``INTERVAL``, starting near
the DST changes of Europe/Berlin and America/New_York; ``EXDATE`` and ``RECURRENCE-ID``
values are written in another zone, in UTC or in the series' zone, naming an instance or
(seven minutes off) none; some overrides carry ``RANGE=THISANDFUTURE`` and move every later
instance by their own shift on the series' wall clock, with their own length.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from dateutil.rrule import DAILY, HOURLY, WEEKLY, rrule  # type: ignore[import-untyped]
from hypothesis import given, settings
from hypothesis import strategies as st

from cerebri.ics import busy_periods, parse_calendar
from cerebri.temporal.instant import Instant
from tests.ics.helpers import calendar, vevent

ZONES = ("Europe/Berlin", "America/New_York", "UTC")
DAYS = (
    date(2026, 3, 6),  # New York springs forward on the 8th
    date(2026, 3, 27),  # Berlin springs forward on the 29th
    date(2026, 10, 23),  # Berlin falls back on the 25th
    date(2026, 10, 30),  # New York falls back on 1 November
)
FREQUENCIES = {"DAILY": DAILY, "WEEKLY": WEEKLY, "HOURLY": HOURLY}
LENGTH = timedelta(minutes=50)
OVERRIDE_LENGTH = timedelta(minutes=20)


@dataclass(frozen=True)
class Case:
    text: str
    window: tuple[datetime, datetime]
    expected: list[tuple[datetime, datetime]]


def _stamp(moment: datetime) -> str:
    return moment.strftime("%Y%m%dT%H%M%S")


def _written(instant: datetime, zone_name: str) -> str:
    """``;TZID=…:local`` for ``instant`` in ``zone_name``, or ``:…Z`` when UTC is asked
    for or the local time does not name the instant alone (a DST gap or fold)."""
    if zone_name != "UTC":
        zone = ZoneInfo(zone_name)
        local = instant.astimezone(zone)
        naive = local.replace(tzinfo=None)
        back = naive.replace(tzinfo=zone, fold=0).astimezone(UTC)
        other = naive.replace(tzinfo=zone, fold=1).astimezone(UTC)
        if back == instant and other == instant:
            return f";TZID={zone_name}:{_stamp(naive)}"
    return f":{_stamp(instant.astimezone(UTC))}Z"


def _ending(draw: st.DrawFn, start: datetime) -> tuple[str, dict[str, object]]:
    """A ``COUNT``, an ``UNTIL`` or no end: the ``RRULE`` text to append and the same as
    ``dateutil`` arguments."""
    ending = draw(st.sampled_from(["count", "until", "none"]))
    if ending == "count":
        count = draw(st.integers(1, 25))
        return f";COUNT={count}", {"count": count}
    if ending == "until":
        until = (start + timedelta(hours=draw(st.integers(0, 24 * 12)))).astimezone(UTC)
        return f";UNTIL={_stamp(until)}Z", {"until": until}
    return "", {}


def _expected(
    walls: list[datetime],
    starts: list[datetime],
    exdates: set[datetime],
    overrides: dict[datetime, datetime],
    futures: list[datetime],
) -> list[tuple[datetime, datetime]]:
    """The busy periods of the series by an independent reading of RFC 5545: overrides not
    excluded, then each instance neither excluded nor overridden, moved by the last
    THISANDFUTURE override before it."""
    expected = [(moved, moved + OVERRIDE_LENGTH) for rid, moved in overrides.items()]
    expected = [pair for pair, rid in zip(expected, overrides, strict=True) if rid not in exdates]
    for wall, s in zip(walls, starts, strict=True):
        if s in exdates or s in overrides:
            continue
        earlier = [rid for rid in futures if rid < s]
        if not earlier:
            expected.append((s, s + LENGTH))
            continue
        # RFC 5545 3.8.4.4: moved by the last THISANDFUTURE override before it, by the
        # same difference on the series' wall clock, with that override's length.
        governing = max(earlier)
        moved = (wall + (overrides[governing] - governing)).astimezone(UTC)
        expected.append((moved, moved + OVERRIDE_LENGTH))
    return expected


@st.composite
def cases(draw: st.DrawFn) -> Case:
    zone_name = draw(st.sampled_from(ZONES))
    zone = ZoneInfo(zone_name)
    freq = draw(st.sampled_from(sorted(FREQUENCIES)))
    interval = draw(st.integers(1, 3))
    day = draw(st.sampled_from(DAYS))
    local = datetime.combine(day, time(draw(st.integers(0, 23)), draw(st.sampled_from([0, 30]))))
    start = local.replace(tzinfo=zone)
    ending_text, kwargs = _ending(draw, start)
    rule_text = f"FREQ={freq};INTERVAL={interval}{ending_text}"
    horizon = start.astimezone(UTC) + timedelta(days=17)
    walls = rrule(FREQUENCIES[freq], dtstart=start, interval=interval, **kwargs).between(
        start - timedelta(seconds=1), horizon.astimezone(zone), inc=True
    )  # local times as the rule generates them (one may lie in a DST gap)
    starts = [s.astimezone(UTC) for s in walls]
    assert starts and starts[0] == start.astimezone(UTC)

    def named(st_index: int, off: bool) -> datetime:
        base = starts[st_index % len(starts)]
        return base + timedelta(minutes=7) if off else base

    lines = [
        f"DTSTART;TZID={zone_name}:{_stamp(local)}"
        if zone_name != "UTC"
        else f"DTSTART:{_stamp(local)}Z",
        "DURATION:PT50M",
        f"RRULE:{rule_text}",
    ]
    exdates: set[datetime] = set()
    for _ in range(draw(st.integers(0, 3))):
        value = named(draw(st.integers(0, 30)), draw(st.booleans()))
        exdates.add(value)
        lines.append("EXDATE" + _written(value, draw(st.sampled_from(ZONES))))
    components = [vevent(*lines, uid="p")]
    overrides: dict[datetime, datetime] = {}
    futures: list[datetime] = []
    for _ in range(draw(st.integers(0, 3))):
        rid = named(draw(st.integers(0, 30)), draw(st.booleans()))
        if rid in overrides:
            continue
        moved = rid + timedelta(minutes=draw(st.integers(-180, 180)))
        overrides[rid] = moved
        future = draw(st.booleans())
        if future:
            futures.append(rid)
        components.append(
            vevent(
                "RECURRENCE-ID"
                + (";RANGE=THISANDFUTURE" if future else "")
                + _written(rid, draw(st.sampled_from(ZONES))),
                f"DTSTART:{_stamp(moved)}Z",
                "DURATION:PT20M",
                uid="p",
            )
        )
    expected = _expected(walls, starts, exdates, overrides, futures)
    window_start = start.astimezone(UTC) + timedelta(hours=draw(st.integers(-24, 24 * 6)))
    window_end = window_start + timedelta(hours=draw(st.integers(1, 24 * 8)))
    inside = sorted((a, b) for a, b in expected if a < window_end and b > window_start)
    return Case(calendar(*components), (window_start, window_end), inside)


@settings(max_examples=150, deadline=None)
@given(cases())
def test_busy_time_of_generated_series_matches_an_independent_expansion(case: Case) -> None:
    busy = busy_periods(
        parse_calendar(case.text),
        Instant.from_datetime(case.window[0]),
        Instant.from_datetime(case.window[1]),
    )
    got = [(p.start, p.end) for p in busy]
    want = [(Instant.from_datetime(a), Instant.from_datetime(b)) for a, b in case.expected]
    assert got == want, case.text
