"""Daily preferences in find-slot, against a brute-force ranker written here.

Every expected order is computed in the test: feasible starts by walking the grid against
the events the test wrote (with the icalendar library), distances by walking local days
with zoneinfo, and the order as a plain sort (docs/decisions/0026).
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from itertools import product
from zoneinfo import ZoneInfo

import pytest
from icalendar import Calendar, Event

import cerebri
from cerebri.calendars import FIND_SLOT_LIMITS, SlotQuery, find_slot
from cerebri.errors import InvalidArgumentError
from cerebri.temporal import Instant

HOURS = (time(9), time(17))
STEP = timedelta(minutes=30)
LENGTH = timedelta(minutes=60)


def calendar(events: list[tuple[datetime, datetime]]) -> Calendar:
    cal = Calendar()
    cal.add("prodid", "-//cerebri tests//EN")
    cal.add("version", "2.0")
    for index, (start, end) in enumerate(events):
        event = Event()
        event.add("uid", f"e{index}@test")
        event.add("dtstamp", datetime(2026, 1, 1, tzinfo=ZoneInfo("UTC")))
        event.add("dtstart", start)
        event.add("dtend", end)
        cal.add_component(event)
    return cal


def feasible(zone: ZoneInfo, first: date, days: int, busy: list[tuple[datetime, datetime]]):
    """Grid starts (every 30 min from the window start, local 09:00 on ``first``) whose
    hour lies within working hours and touches no busy event."""
    window_start = datetime.combine(first, time(9), zone)
    window_end = datetime.combine(first + timedelta(days=days - 1), time(17), zone)
    out = []
    moment = window_start.astimezone(ZoneInfo("UTC"))
    while moment + LENGTH <= window_end:
        local = moment.astimezone(zone)
        end_local = (moment + LENGTH).astimezone(zone)
        inside = (
            local.date() == end_local.date()
            and HOURS[0] <= local.time()
            and end_local.time() <= HOURS[1]
        )
        clear = all(not (a < moment + LENGTH and moment < b) for a, b in busy)
        if inside and clear:
            out.append(moment)
        moment += STEP
    return window_start, window_end, out


def local_instants(zone: ZoneInfo, moment: datetime, at: time) -> list[datetime]:
    """``at`` on the start's local day and the two days around it."""
    day = moment.astimezone(zone).date()
    return [datetime.combine(day + timedelta(days=k), at, zone) for k in (-1, 0, 1)]


def distance(kind: str, zone: ZoneInfo, moment: datetime) -> int:
    if kind == "prefer":
        return min(
            abs(int((moment - p).total_seconds()))
            for p in local_instants(zone, moment, time(10, 30))
        )
    if kind == "between":
        lows = local_instants(zone, moment, time(10))
        highs = local_instants(zone, moment, time(12))
        gaps = []
        for low, high in zip(lows, highs, strict=True):
            if low <= moment <= high:
                gaps.append(0)
            else:
                gaps.append(min(abs(int((moment - x).total_seconds())) for x in (low, high)))
        return min(gaps)
    local = moment.astimezone(zone)
    since = local.hour * 3600 + local.minute * 60 + local.second
    return since if kind == "earliest" else 86_399 - since


KINDS = {
    "prefer": {"prefer": time(10, 30)},
    "between": {"prefer_between": (time(10), time(12))},
    "earliest": {"prefer_earliest": True},
    "latest": {"prefer_latest": True},
}
ZONES = ("UTC", "Europe/Berlin", "America/New_York")
# Start days: an ordinary week and the week the European clocks go back (2026-10-25).
STARTS = (date(2026, 10, 5), date(2026, 10, 23))
PATTERNS = {
    "first-morning-busy": [(0, time(10), time(12))],
    "scattered": [(0, time(10, 30), time(11)), (1, time(9), time(13)), (2, time(14), time(15))],
    "every-10-30": [(d, time(10, 15), time(11, 15)) for d in range(3)],
}


@pytest.mark.parametrize(
    ("kind", "zone_name", "first", "pattern"),
    list(product(KINDS, ZONES, STARTS, PATTERNS)),
)
def test_find_slot_order_matches_a_brute_force_ranker(
    kind: str, zone_name: str, first: date, pattern: str
) -> None:
    zone = ZoneInfo(zone_name)
    busy = [
        (
            datetime.combine(first + timedelta(days=d), a, zone),
            datetime.combine(first + timedelta(days=d), b, zone),
        )
        for d, a, b in PATTERNS[pattern]
    ]
    start, end, starts = feasible(zone, first, 3, busy)
    expected = sorted(starts, key=lambda m: (distance(kind, zone, m), m))
    query = SlotQuery(
        Instant.from_datetime(start),
        Instant.from_datetime(end),
        3600,
        granularity_seconds=1800,
        zone=zone_name,
        working_hours=HOURS,
        **KINDS[kind],  # type: ignore[arg-type]
    )
    answer = find_slot([("alice", calendar(busy))], query)
    got = [c.proposed.placements[0].range.start for c in answer.result.candidates]
    assert got == [Instant.from_datetime(m) for m in expected]
    assert [d.preference_distance_seconds for d in answer.slots] == [
        distance(kind, zone, m) for m in expected
    ]
    # The request carries the first choice, so a replay offers it first too.
    replay = cerebri.plan(answer.request, limits=FIND_SLOT_LIMITS)
    assert replay.candidates[0] == answer.result.candidates[0]
    assert {c.proposed.id for c in replay.candidates} == {
        c.proposed.id for c in answer.result.candidates
    }


def test_prefer_is_every_day_not_the_first() -> None:
    """Monday 10:30 is busy, Wednesday 10:30 free: Wednesday 10:30 comes first, ahead of
    Monday's free 14:15 (which ranked first when only Monday's 10:30 counted)."""
    zone = ZoneInfo("Europe/Berlin")
    busy = [
        (datetime(2026, 10, 5, 9, 0, tzinfo=zone), datetime(2026, 10, 5, 14, 15, tzinfo=zone)),
        (datetime(2026, 10, 6, 9, 0, tzinfo=zone), datetime(2026, 10, 6, 17, 0, tzinfo=zone)),
    ]
    query = SlotQuery(
        Instant.from_datetime(datetime(2026, 10, 5, 9, tzinfo=zone)),
        Instant.from_datetime(datetime(2026, 10, 7, 17, tzinfo=zone)),
        1800,
        zone="Europe/Berlin",
        working_hours=HOURS,
        prefer=time(10, 30),
    )
    _, result = find_slot([("alice", calendar(busy))], query)
    first = result.candidates[0].proposed.placements[0].range.start
    assert first == Instant.from_datetime(datetime(2026, 10, 7, 10, 30, tzinfo=zone))


@pytest.mark.parametrize(
    "fields",
    [
        {"prefer": time(10), "prefer_earliest": True},
        {"prefer_between": (time(10), time(12)), "prefer_latest": True},
        {"prefer_earliest": True, "prefer_latest": True},
        {"prefer_between": (time(12), time(10))},
        {"prefer_between": (time(12),)},
        {"prefer": "10:30"},
        {"prefer_earliest": 1},
        {"min_attendance": 1.5},
        {"min_attendance": -0.1},
        {"min_attendance": float("nan")},
        {"min_attendance": True},
        {"min_attendance": "0.8"},
    ],
)
def test_conflicting_or_ill_typed_preferences_are_refused(fields: dict[str, object]) -> None:
    start = Instant.parse("2026-10-05T00:00:00Z")
    with pytest.raises(InvalidArgumentError) as caught:
        SlotQuery(start, Instant.parse("2026-10-06T00:00:00Z"), 1800, **fields)  # type: ignore[arg-type]
    assert caught.value.code == "calendars.invalid_argument"
