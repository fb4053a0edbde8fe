"""ImportedCalendars: the same bytes as find_slot, with expansions reused from its cache."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from datetime import time
from typing import Any

import pytest
from icalendar import Component

import cerebri.calendars.imported as imported_module
from cerebri.calendars import SlotQuery, find_slot, unobserved_ranges
from cerebri.calendars.imported import ImportedCalendars
from cerebri.calendars.query import expansion_window
from cerebri.ics import BusyPeriod, CalendarError, busy_periods, parse_calendar
from cerebri.temporal import Instant, Interval

ALICE = """BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//cerebri tests//EN
BEGIN:VEVENT
UID:standup@alice
DTSTAMP:20260901T000000Z
DTSTART;TZID=Europe/Berlin:20261001T093000
DTEND;TZID=Europe/Berlin:20261001T094500
RRULE:FREQ=DAILY;COUNT=40
EXDATE;TZID=Europe/Berlin:20261007T093000
SUMMARY:Standup
END:VEVENT
BEGIN:VEVENT
UID:standup@alice
DTSTAMP:20260901T000000Z
RECURRENCE-ID;TZID=Europe/Berlin:20261008T093000
DTSTART;TZID=Europe/Berlin:20261008T113000
DTEND;TZID=Europe/Berlin:20261008T120000
SEQUENCE:1
SUMMARY:Standup (moved)
END:VEVENT
BEGIN:VEVENT
UID:sync@alice
DTSTAMP:20260901T000000Z
DTSTART;TZID=Europe/Berlin:20261001T140000
DTEND;TZID=Europe/Berlin:20261001T150000
RRULE:FREQ=WEEKLY;COUNT=6
SUMMARY:Weekly sync
END:VEVENT
BEGIN:VEVENT
UID:sync@alice
DTSTAMP:20260901T000000Z
RECURRENCE-ID;RANGE=THISANDFUTURE;TZID=Europe/Berlin:20261015T140000
DTSTART;TZID=Europe/Berlin:20261015T160000
DTEND;TZID=Europe/Berlin:20261015T170000
SEQUENCE:1
SUMMARY:Weekly sync (later)
END:VEVENT
BEGIN:VEVENT
UID:offsite@alice
DTSTAMP:20260901T000000Z
DTSTART;VALUE=DATE:20261013
DTEND;VALUE=DATE:20261016
SUMMARY:Offsite
END:VEVENT
BEGIN:VEVENT
UID:floating@alice
DTSTAMP:20260901T000000Z
DTSTART:20261006T150000
DTEND:20261006T160000
SUMMARY:Floating dentist
END:VEVENT
BEGIN:VEVENT
UID:reminder@alice
DTSTAMP:20260901T000000Z
DTSTART:20261012T070000Z
SUMMARY:Zero-length reminder
END:VEVENT
BEGIN:VEVENT
UID:fyi@alice
DTSTAMP:20260901T000000Z
DTSTART:20261009T120000Z
DTEND:20261009T130000Z
TRANSP:TRANSPARENT
SUMMARY:FYI only
END:VEVENT
BEGIN:VEVENT
UID:shared-review
DTSTAMP:20260901T000000Z
DTSTART:20261020T130000Z
DTEND:20261020T140000Z
SUMMARY:Shared review
END:VEVENT
END:VCALENDAR
"""

BOB = """BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//cerebri tests//EN
BEGIN:VEVENT
UID:one-on-one@bob
DTSTAMP:20260901T000000Z
DTSTART;TZID=America/New_York:20261002T080000
DTEND;TZID=America/New_York:20261002T083000
RRULE:FREQ=WEEKLY;BYDAY=MO,FR;UNTIL=20261031T000000Z
SUMMARY:1:1
END:VEVENT
BEGIN:VEVENT
UID:shared-review
DTSTAMP:20260901T000000Z
DTSTART:20261020T130000Z
DTEND:20261020T141500Z
SUMMARY:Shared review (Bob's copy runs longer)
END:VEVENT
BEGIN:VEVENT
UID:travel@bob
DTSTAMP:20260901T000000Z
DTSTART:20261026T070000Z
DTEND:20261027T120000Z
SUMMARY:Travel
END:VEVENT
END:VCALENDAR
"""

# Carol publishes free/busy only for part of October: the rest is unobserved.
CAROL = """BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//cerebri tests//EN
BEGIN:VFREEBUSY
UID:fb@carol
DTSTAMP:20260901T000000Z
DTSTART:20261005T060000Z
DTEND:20261017T180000Z
FREEBUSY;FBTYPE=BUSY:20261006T100000Z/20261006T103000Z
FREEBUSY;FBTYPE=BUSY-UNAVAILABLE:20261006T100000Z/20261006T110000Z
FREEBUSY;FBTYPE=BUSY-TENTATIVE:20261014T120000Z/PT2H
FREEBUSY;FBTYPE=FREE:20261015T120000Z/20261015T130000Z
END:VFREEBUSY
BEGIN:VFREEBUSY
UID:fb2@carol
DTSTAMP:20260901T000000Z
DTSTART:20261019T060000Z
DTEND:20261031T000000Z
FREEBUSY:20261027T090000Z/20261027T100000Z
END:VFREEBUSY
END:VCALENDAR
"""

OCTOBER = (Instant.parse("2026-10-01T00:00:00Z"), Instant.parse("2026-11-01T00:00:00Z"))
# October widened by a day: find-slot reads busy time over its window widened by the buffer.
WIDE_OCTOBER = (
    Instant.parse("2026-09-30T00:00:00Z"),
    Instant.parse("2026-11-02T00:00:00Z"),
)


def _named() -> list[tuple[str, Component]]:
    return [
        (name, parse_calendar(text, source=f"{name}.ics"))
        for name, text in (("alice", ALICE), ("bob", BOB), ("carol", CAROL))
    ]


def _query(start: str, end: str, **changes: Any) -> SlotQuery:
    fields: dict[str, Any] = {
        "window_start": Instant.parse(start),
        "window_end": Instant.parse(end),
        "duration_seconds": 1800,
        "granularity_seconds": 900,
        "zone": "Europe/Berlin",
        "working_hours": (time(9), time(17)),
        "buffer_seconds": 600,
    }
    fields.update(changes)
    return SlotQuery(**fields)


QUERIES = {
    "week": _query("2026-10-04T22:00:00Z", "2026-10-09T22:00:00Z"),
    "whole-window": _query("2026-10-01T00:00:00Z", "2026-11-01T00:00:00Z", max_candidates=4000),
    "dst-week-new-york": _query(
        "2026-10-25T00:00:00Z", "2026-10-31T00:00:00Z", zone="America/New_York"
    ),
    "inside-offsite": _query(
        "2026-10-14T10:00:00Z", "2026-10-16T10:00:00Z", working_hours=None, buffer_seconds=0
    ),
    "starts-at-reminder": _query(
        "2026-10-12T07:00:00Z", "2026-10-12T19:00:00Z", prefer=time(15, 30)
    ),
    "ends-at-reminder": _query("2026-10-11T19:00:00Z", "2026-10-12T07:00:00Z", working_hours=None),
    "shared-review": _query(
        "2026-10-20T08:00:00Z", "2026-10-20T18:00:00Z", granularity_seconds=300
    ),
}


def _bytes(pair: tuple[dict[str, Any], Any]) -> tuple[str, str]:
    request, result = pair
    return json.dumps(request), json.dumps(result.to_wire())


@pytest.fixture
def expansion_calls(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[Instant, Instant]]]:
    """Every busy_periods call ImportedCalendars makes, as its window."""
    calls: list[tuple[Instant, Instant]] = []

    def counting(
        calendars: Any, window_start: Instant, window_end: Instant, **options: Any
    ) -> tuple[BusyPeriod, ...]:
        calls.append((window_start, window_end))
        return busy_periods(calendars, window_start, window_end, **options)

    monkeypatch.setattr(imported_module, "busy_periods", counting)
    yield calls


@pytest.mark.parametrize("floating_zone", [None, "Europe/Berlin", "America/New_York"])
@pytest.mark.parametrize("name", sorted(QUERIES))
def test_same_bytes_as_find_slot_from_a_wider_expansion(
    name: str, floating_zone: str | None
) -> None:
    query = QUERIES[name]
    named = _named()
    imported = ImportedCalendars(named, floating_zone=floating_zone)
    imported.expand(*WIDE_OCTOBER, floating_zone=floating_zone or query.zone)
    expected = _bytes(find_slot(named, query, floating_zone=floating_zone))
    assert _bytes(imported.find_slot(query)) == expected
    zone_name = floating_zone or query.zone
    assert imported.busy(query.window_start, query.window_end, floating_zone=zone_name) == tuple(
        (
            name,
            busy_periods(calendar, query.window_start, query.window_end, floating_zone=zone_name),
        )
        for name, calendar in named
    )
    assert _bytes(imported.find_slot(query)) == expected  # request pieces now cached
    assert imported.expansions == 1


def test_same_bytes_without_any_expansion_up_front() -> None:
    named = _named()
    imported = ImportedCalendars(named)
    for name in sorted(QUERIES):
        query = QUERIES[name]
        assert _bytes(imported.find_slot(query)) == _bytes(find_slot(named, query)), name


def test_the_test_calendars_exercise_the_edge_cases() -> None:
    """The queries above meet what the filter must get right."""
    named = _named()
    reminder = Instant.parse("2026-10-12T07:00:00Z")
    alice = busy_periods(named[0][1], *OCTOBER, floating_zone="Europe/Berlin")
    assert any(p.start == p.end == reminder for p in alice)  # zero-length, at a window edge
    offsite = [p for p in alice if p.uid == "offsite@alice"]
    assert len(offsite) == 1
    assert offsite[0].start < QUERIES["inside-offsite"].window_start  # starts before the window
    request: Any = find_slot(named, QUERIES["shared-review"])[0]
    ids = [obj["id"] for obj in request["context"]["objects"]]
    assert len(ids) == len(set(ids))  # the shared event is written once
    carol = busy_periods(named[2][1], *OCTOBER)
    assert len({(p.uid, p.start) for p in carol}) < len(carol)  # one object, the later end
    week = QUERIES["week"]
    unknown = unobserved_ranges(
        [c for _, c in named], Interval(week.window_start.ns, week.window_end.ns)
    )
    assert unknown  # Carol's free/busy does not cover the whole week


def test_reuse_expands_nothing_inside_the_expanded_window(
    expansion_calls: list[tuple[Instant, Instant]],
) -> None:
    imported = ImportedCalendars(_named(), floating_zone="Europe/Berlin")
    imported.expand(*WIDE_OCTOBER)
    assert expansion_calls == [WIDE_OCTOBER] * 3  # one call per calendar
    for name in ("week", "inside-offsite", "starts-at-reminder", "whole-window"):
        imported.find_slot(QUERIES[name])
    imported.busy(Instant.parse("2026-10-10T00:00:00Z"), Instant.parse("2026-10-11T00:00:00Z"))
    imported.expand(Instant.parse("2026-10-02T00:00:00Z"), Instant.parse("2026-10-03T00:00:00Z"))
    assert len(expansion_calls) == 3
    assert imported.expansions == 1
    wide = Interval(WIDE_OCTOBER[0].ns, WIDE_OCTOBER[1].ns)
    assert imported.expanded_windows == (("Europe/Berlin", wide),)


def test_windows_outside_the_cached_one_re_expand(
    expansion_calls: list[tuple[Instant, Instant]],
) -> None:
    imported = ImportedCalendars(_named(), floating_zone="Europe/Berlin")
    week = QUERIES["week"]
    imported.find_slot(week)
    # Only the query's window, widened by its buffer.
    assert expansion_calls == [expansion_window(week)] * 3
    later = _query("2026-10-07T00:00:00Z", "2026-10-14T00:00:00Z")  # overlaps, not inside
    imported.find_slot(later)
    assert expansion_calls[3:] == [expansion_window(later)] * 3
    inside = _query("2026-10-08T00:00:00Z", "2026-10-09T00:00:00Z")
    imported.find_slot(inside)
    assert len(expansion_calls) == 6
    assert imported.expansions == 2
    imported.expand(*OCTOBER)  # contains both cached windows: they are dropped
    assert len(expansion_calls) == 9
    assert [window for _, window in imported.expanded_windows] == [
        Interval(OCTOBER[0].ns, OCTOBER[1].ns)
    ]
    november = _query("2026-10-30T00:00:00Z", "2026-11-03T00:00:00Z")
    imported.find_slot(november)
    assert len(expansion_calls) == 12


def test_the_floating_zone_is_part_of_the_key(
    expansion_calls: list[tuple[Instant, Instant]],
) -> None:
    named = _named()
    imported = ImportedCalendars(named)  # floating times read in each query's zone
    imported.expand(*OCTOBER, floating_zone="Europe/Berlin")
    berlin = _query("2026-10-06T00:00:00Z", "2026-10-07T00:00:00Z", working_hours=None)
    new_york = _query(
        "2026-10-06T00:00:00Z", "2026-10-07T00:00:00Z", zone="America/New_York", working_hours=None
    )
    assert _bytes(imported.find_slot(berlin)) == _bytes(find_slot(named, berlin))
    assert imported.expansions == 1
    assert _bytes(imported.find_slot(new_york)) == _bytes(find_slot(named, new_york))
    assert imported.expansions == 2
    # The floating dentist appointment moves with the zone it is read in.
    dentist = {
        zone_name: [p.start for p in periods if p.uid == "floating@alice"]
        for zone_name in ("Europe/Berlin", "America/New_York")
        for name, periods in imported.busy(
            berlin.window_start, berlin.window_end, floating_zone=zone_name
        )
        if name == "alice"
    }
    assert dentist == {
        "Europe/Berlin": [Instant.parse("2026-10-06T13:00:00Z")],
        "America/New_York": [Instant.parse("2026-10-06T19:00:00Z")],
    }


def test_busy_is_busy_periods_per_calendar_for_random_windows() -> None:
    named = _named()
    imported = ImportedCalendars(named, floating_zone="Europe/Berlin")
    imported.expand(*WIDE_OCTOBER)
    rng = random.Random(20261001)
    span = OCTOBER[1].ns - OCTOBER[0].ns
    step = 300 * 10**9  # five-minute grid, so windows often touch event edges
    for _ in range(60):
        first, second = sorted(rng.sample(range(0, span // step + 1), 2))
        start = Instant(OCTOBER[0].ns + first * step)
        end = Instant(OCTOBER[0].ns + second * step)
        got = imported.busy(start, end)
        assert isinstance(got, tuple)
        for (name, periods), (expected_name, calendar) in zip(got, named, strict=True):
            assert name == expected_name
            assert isinstance(periods, tuple)
            assert periods == busy_periods(calendar, start, end, floating_zone="Europe/Berlin")
        query = _query(start.format(), end.format(), working_hours=None, max_candidates=10_000)
        assert _bytes(imported.find_slot(query)) == _bytes(
            find_slot(named, query, floating_zone="Europe/Berlin")
        )
    assert imported.expansions == 1


def test_a_changed_request_changes_no_cache() -> None:
    named = _named()
    imported = ImportedCalendars(named)
    query = QUERIES["week"]
    request: Any = imported.find_slot(query)[0]
    objects = request["context"]["objects"]
    objects[1]["id"] = "tampered"
    objects.clear()
    assert _bytes(imported.find_slot(query)) == _bytes(find_slot(named, query))


def test_clear_forgets_everything(expansion_calls: list[tuple[Instant, Instant]]) -> None:
    imported = ImportedCalendars(_named())
    imported.find_slot(QUERIES["week"])
    imported.clear()
    assert imported.expanded_windows == ()
    imported.find_slot(QUERIES["week"])
    assert len(expansion_calls) == 6


def test_errors_are_those_of_find_slot() -> None:
    named = _named()
    with pytest.raises(ValueError, match="calendar_id"):
        find_slot([("bad id", named[0][1])], QUERIES["week"])
    with pytest.raises(ValueError, match="calendar_id"):
        ImportedCalendars([("bad id", named[0][1])]).find_slot(QUERIES["week"])
    with pytest.raises(ValueError, match="unknown time zone"):
        ImportedCalendars(named, floating_zone="Mars/Olympus")
    with pytest.raises(ValueError, match="window"):
        ImportedCalendars(named).expand(OCTOBER[1], OCTOBER[0])
    limited = ImportedCalendars(named, max_occurrences=5)
    with pytest.raises(CalendarError) as caught:
        limited.expand(*OCTOBER)
    assert caught.value.code == "ics.expansion_limit"
    assert limited.expanded_windows == ()
