"""Instances whose wall time falls in a daylight-saving gap or overlap (decision 0064).

RFC 5545 section 3.3.5: a wall time the zone skips is read with the offset before the gap; an
ambiguous one as its first occurrence. Every UTC instant below is worked out by hand from the
zone's offsets (Europe/Berlin +01:00 winter, +02:00 summer; America/New_York -05:00 / -04:00);
the written resources are read back with icalendar and expanded with recurring-ical-events.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
import recurring_ical_events
from icalendar import Calendar

from cerebri.calendars import ChangeScope, EventChange, apply_change, find_event
from cerebri.ics import busy_periods
from cerebri.temporal import Instant

STAMP = Instant.parse("2026-02-01T12:00:00Z")
UID = "night@example.org"

# (zone, first DTSTART wall time, the instance in a gap or overlap, its UTC start, UTC end)
CASES = {
    # spring: 02:00 -> 03:00; 02:30 is read at +01:00
    "berlin-gap": ("Europe/Berlin", "20260322T023000", "20260329T023000", "2026-03-29T01:30:00Z"),
    # autumn: 03:00 -> 02:00; 02:30 first occurs at +02:00
    "berlin-overlap": (
        "Europe/Berlin",
        "20261018T023000",
        "20261025T023000",
        "2026-10-25T00:30:00Z",
    ),
    # spring: 02:00 -> 03:00; 02:30 is read at -05:00
    "new-york-gap": (
        "America/New_York",
        "20260301T023000",
        "20260308T023000",
        "2026-03-08T07:30:00Z",
    ),
    # autumn: 02:00 -> 01:00; 01:30 first occurs at -04:00
    "new-york-overlap": (
        "America/New_York",
        "20261025T013000",
        "20261101T013000",
        "2026-11-01T05:30:00Z",
    ),
}
HOUR = 3_600


def _series(zone: str, first: str, *, length: str = "DTEND") -> Calendar:
    end = first[:9] + f"{int(first[9:11]) + 1:02d}" + first[11:]
    line = f"DTEND;TZID={zone}:{end}" if length == "DTEND" else "DURATION:PT1H"
    text = (
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nBEGIN:VEVENT\r\n"
        f"UID:{UID}\r\nDTSTAMP:20260101T000000Z\r\nSEQUENCE:1\r\n"
        f"DTSTART;TZID={zone}:{first}\r\n{line}\r\nRRULE:FREQ=WEEKLY;COUNT=3\r\n"
        "SUMMARY:Night run\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
    )
    return Calendar.from_ical(text)


def _written(outcome: object) -> Calendar:
    writes = outcome.writes
    ((uid, resource),) = writes
    assert uid == UID and resource is not None
    return Calendar.from_ical(resource.to_ical())


def _starts(calendar: Calendar) -> list[str]:
    found = recurring_ical_events.of(calendar).between(
        datetime(2026, 1, 1, tzinfo=UTC), datetime(2027, 1, 1, tzinfo=UTC)
    )
    return sorted(
        f"{Instant.from_datetime(event['DTSTART'].dt)}|{event.get('SUMMARY')}" for event in found
    )


@pytest.mark.parametrize("length", ["DTEND", "DURATION"])
@pytest.mark.parametrize("case", CASES)
def test_the_instance_keeps_its_exact_length(case: str, length: str) -> None:
    zone, first, _, start = CASES[case]
    at = Instant.parse(start)
    view = find_event(_series(zone, first, length=length), UID, at, floating_zone=zone)
    assert view is not None
    assert (view.start, view.end) == (at, at.plus_seconds(HOUR))


@pytest.mark.parametrize("case", CASES)
def test_cancel_names_the_instance_as_its_rule_does(case: str) -> None:
    zone, first, wall, start = CASES[case]
    at = Instant.parse(start)
    change = EventChange(
        action="cancel", uid=UID, scope=ChangeScope.INSTANCE, recurrence_id=at, idempotency_key="k1"
    )
    written = _written(apply_change(_series(zone, first), change, stamp=STAMP, floating_zone=zone))
    assert f"EXDATE;TZID={zone}:{wall}" in written.to_ical().decode()
    kept = _starts(written)
    assert len(kept) == 2 and all(not s.startswith(start) for s in kept)
    # cerebri's own reader agrees: no busy time left at the cancelled instance
    busy = busy_periods(
        written, at.plus_seconds(-HOUR), at.plus_seconds(2 * HOUR), floating_zone=zone
    )
    assert busy == ()


@pytest.mark.parametrize("case", CASES)
def test_update_writes_an_override_of_that_instance(case: str) -> None:
    zone, first, wall, start = CASES[case]
    at = Instant.parse(start)
    change = EventChange(
        action="update",
        uid=UID,
        scope=ChangeScope.INSTANCE,
        recurrence_id=at,
        title="Moved run",
        idempotency_key="k2",
    )
    written = _written(apply_change(_series(zone, first), change, stamp=STAMP, floating_zone=zone))
    assert f"RECURRENCE-ID;TZID={zone}:{wall}" in written.to_ical().decode()
    starts = _starts(written)
    assert len(starts) == 3 and f"{start}|Moved run" in starts
    view = find_event(written, UID, at, floating_zone=zone)
    assert view is not None and view.title == "Moved run"
    assert (view.start, view.end) == (at, at.plus_seconds(HOUR))


@pytest.mark.parametrize("case", CASES)
def test_a_move_of_that_instance(case: str) -> None:
    zone, first, wall, start = CASES[case]
    at = Instant.parse(start)
    new_start = Instant.parse("2026-12-01T10:00:00Z")
    change = EventChange(
        action="move",
        uid=UID,
        scope=ChangeScope.INSTANCE,
        recurrence_id=at,
        start=new_start,
        end=new_start.plus_seconds(HOUR),
        idempotency_key="k3",
    )
    written = _written(apply_change(_series(zone, first), change, stamp=STAMP, floating_zone=zone))
    assert f"RECURRENCE-ID;TZID={zone}:{wall}" in written.to_ical().decode()
    starts = _starts(written)
    assert len(starts) == 3 and "2026-12-01T10:00:00Z|Night run" in starts
    assert all(not s.startswith(start) for s in starts)


def test_the_second_occurrence_of_an_ambiguous_time_is_not_an_instance() -> None:
    zone, first, _, _ = CASES["berlin-overlap"]
    # 02:30 again at +01:00 = 01:30Z: the rule's instance is the first 02:30 (00:30Z)
    later = Instant.parse("2026-10-25T01:30:00Z")
    assert find_event(_series(zone, first), UID, later, floating_zone=zone) is None


def test_a_series_move_keeps_the_gap_instance_cancelled() -> None:
    """Cancel the 02:30 instance of 29 March, then move the series a day later: the EXDATE
    moves with the rule's own wall time (02:30 on 30 March, +02:00 = 00:30Z), so the
    cancelled instance stays cancelled."""
    zone, first, _, start = CASES["berlin-gap"]
    cancel = EventChange(
        action="cancel",
        uid=UID,
        scope=ChangeScope.INSTANCE,
        recurrence_id=Instant.parse(start),
        idempotency_key="k4",
    )
    cancelled = _written(
        apply_change(_series(zone, first), cancel, stamp=STAMP, floating_zone=zone)
    )
    # the first instance, Sun 22 March 02:30 CET = 01:30Z, moves to Mon 23 March 02:30 CET
    new_start = Instant.parse("2026-03-23T01:30:00Z")
    move = EventChange(
        action="move",
        uid=UID,
        scope=ChangeScope.SERIES,
        start=new_start,
        end=new_start.plus_seconds(HOUR),
        idempotency_key="k5",
    )
    moved = _written(apply_change(cancelled, move, stamp=STAMP, floating_zone=zone))
    assert "EXDATE;TZID=Europe/Berlin:20260330T023000" in moved.to_ical().decode()
    # Mon 23 March 02:30 CET and Mon 6 April 02:30 CEST; 30 March stays cancelled
    assert _starts(moved) == ["2026-03-23T01:30:00Z|Night run", "2026-04-06T00:30:00Z|Night run"]


@pytest.mark.parametrize(
    ("zone", "first", "original", "second"),
    [
        # the first instance (02:30 CEST) moves to 02:30 again at +01:00 on 25 October
        ("Europe/Berlin", "20261018T023000", "2026-10-18T00:30:00Z", "2026-10-25T01:30:00Z"),
        # the first instance (01:30 EDT) moves to 01:30 again at -05:00 on 1 November
        ("America/New_York", "20261025T013000", "2026-10-25T05:30:00Z", "2026-11-01T06:30:00Z"),
    ],
)
def test_a_move_into_the_second_pass_of_an_overlap_lands_there(
    zone: str, first: str, original: str, second: str
) -> None:
    """A wall time with TZID names the first pass only (RFC 5545 3.3.5), so the new start is
    written in UTC and read back at the instant asked for."""
    new_start = Instant.parse(second)
    change = EventChange(
        action="move",
        uid=UID,
        scope=ChangeScope.INSTANCE,
        recurrence_id=Instant.parse(original),
        start=new_start,
        end=new_start.plus_seconds(HOUR),
        idempotency_key="k6",
    )
    written = _written(apply_change(_series(zone, first), change, stamp=STAMP, floating_zone=zone))
    assert f"{second}|Night run" in _starts(written)
    view = find_event(written, UID, change.recurrence_id, floating_zone=zone)
    assert view is not None and (view.start, view.end) == (new_start, new_start.plus_seconds(HOUR))
