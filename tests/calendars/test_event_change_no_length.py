"""Events without length can be cancelled and updated (decision 0074, RFC 5545 section 3.6.1):
a ``DTSTART`` date-time without ``DTEND``/``DURATION`` ends where it starts; a ``DTSTART``
date without them (or with a ``DTEND`` not after it) lasts one day.

Expected values are read off the fixtures by hand: the one-second planning range of a point
in time (CPIR's ``TimeRange`` needs ``start < end``, its ``Duration`` at least 1 s), the
times written back, the local midnights of an all-day event.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from icalendar import Calendar

from cerebri.calendars.change_request import ChangeOperation
from cerebri.calendars.changes import ChangeScope, EventChange, apply_change, find_event
from cerebri.calendars.event_change import EventChangeAsk, plan_event_change
from cerebri.calendars.slot_search import SlotSearch
from cerebri.calendars.sources import load_sources
from cerebri.temporal import Instant

POINT = """BEGIN:VCALENDAR\r
VERSION:2.0\r
PRODID:-//test//EN\r
X-WR-CALNAME:alice@example.org\r
BEGIN:VEVENT\r
UID:remind@x\r
DTSTAMP:20260101T000000Z\r
DTSTART:20270105T090000Z\r
SUMMARY:Reminder\r
ORGANIZER:mailto:alice@example.org\r
ATTENDEE:mailto:bob@example.org\r
END:VEVENT\r
BEGIN:VEVENT\r
UID:holiday@x\r
DTSTAMP:20260101T000000Z\r
DTSTART;VALUE=DATE:20270106\r
DTEND;VALUE=DATE:20270106\r
SUMMARY:Holiday\r
END:VEVENT\r
END:VCALENDAR\r
"""
NINE = Instant.parse("2027-01-05T09:00:00Z")


def _load(paths: Sequence[Path], urls: Sequence[str], ids: Sequence[str]) -> Any:
    window = (Instant.parse("2018-01-01T00:00:00Z"), Instant.parse("2028-01-01T00:00:00Z"))
    return load_sources(paths, urls, window, ids=ids)


def _plan(path: Path, ask: EventChangeAsk) -> Any:
    found = plan_event_change(ask, SlotSearch(ics=[path]), _load)
    return found, json.loads(json.dumps(found.answer.request))


def _starts(found: Any) -> list[str]:
    """The planned starts, once the planner found a solution."""
    assert found.answer.result.outcome.value == "Solution"
    return [c.start.format() for c in found.answer.result.candidates]


def _known(request: Any) -> tuple[str, str]:
    data = request["context"]["objects"][0]["time"]["value"]["knowledge"]["data"]
    return data["start"], data["end"]


@pytest.fixture
def point(tmp_path: Path) -> Path:
    path = tmp_path / "alice.ics"
    path.write_text(POINT, newline="")
    return path


def test_a_point_in_time_is_cancelled(point: Path) -> None:
    found, request = _plan(point, EventChangeAsk(ChangeOperation.CANCEL, "remind@x", zone="UTC"))
    assert request["operation"] == "CANCEL"
    assert _known(request) == ("2027-01-05T09:00:00Z", "2027-01-05T09:00:01Z")
    assert request["duration"]["value"]["knowledge"]["data"] == 1
    assert _starts(found) == ["2027-01-05T09:00:00Z"]


def test_a_point_in_time_takes_a_new_title_and_a_length(point: Path) -> None:
    ask = EventChangeAsk(ChangeOperation.UPDATE, "remind@x", zone="UTC", title="Call Bob")
    found, request = _plan(point, ask)
    assert request["change"]["title"] == "Call Bob"
    assert _known(request) == ("2027-01-05T09:00:00Z", "2027-01-05T09:00:01Z")
    assert _starts(found) == ["2027-01-05T09:00:00Z"]
    longer = EventChangeAsk(ChangeOperation.UPDATE, "remind@x", zone="UTC", duration_seconds=1800)
    found, request = _plan(point, longer)
    assert _known(request) == ("2027-01-05T09:00:00Z", "2027-01-05T09:00:01Z")
    assert request["duration"]["value"]["knowledge"]["data"] == 1800
    assert _starts(found) == ["2027-01-05T09:00:00Z"]


def _written(resource: Calendar, change: EventChange) -> Any:
    outcome = apply_change(resource, change, stamp=Instant.parse("2026-12-01T00:00:00Z"))
    (_, written), *_ = outcome.writes
    assert written is not None
    return next(e for e in written.walk("VEVENT") if str(e["UID"]) == "remind@x")


def test_an_update_over_the_planning_second_keeps_the_point_in_time() -> None:
    resource = Calendar.from_ical(POINT)
    second = NINE.plus_seconds(1)
    change = EventChange(
        action="update",
        uid="remind@x",
        scope=ChangeScope.SERIES,
        start=NINE,
        end=second,
        title="Call Bob",
        idempotency_key="k1",
    )
    event = _written(resource, change)
    assert event.get("DTSTART").to_ical() == b"20270105T090000Z"
    assert "DTEND" not in event and "DURATION" not in event
    assert str(event["SUMMARY"]) == "Call Bob"
    half = EventChange(
        action="update",
        uid="remind@x",
        scope=ChangeScope.SERIES,
        start=NINE,
        end=NINE.plus_seconds(1800),
        idempotency_key="k2",
    )
    event = _written(resource, half)
    assert event.get("DTEND").to_ical() == b"20270105T093000Z"


def test_an_all_day_event_ending_where_it_starts_lasts_one_day(point: Path) -> None:
    view = find_event(Calendar.from_ical(POINT), "holiday@x", floating_zone="Europe/Berlin")
    assert view is not None
    # 2027-01-06 00:00 and 2027-01-07 00:00 in Berlin (CET, +01:00)
    assert (view.start, view.end) == (
        Instant.parse("2027-01-05T23:00:00Z"),
        Instant.parse("2027-01-06T23:00:00Z"),
    )
    ask = EventChangeAsk(ChangeOperation.CANCEL, "holiday@x", zone="Europe/Berlin")
    found, request = _plan(point, ask)
    assert _known(request) == ("2027-01-05T23:00:00Z", "2027-01-06T23:00:00Z")
    assert _starts(found) == ["2027-01-05T23:00:00Z"]


@pytest.mark.parametrize(
    ("name", "uid", "zone"),
    [
        ("zero_size_event.ics", "UYDQSG9TH4DE0WM3QFL2J", "Europe/Berlin"),
        ("issue_62_moved_event.ics", "38m812jicsrer5gorh3mlp7qhc@google.com", "Europe/Berlin"),
        ("Germany_Holidays.ics", "5e3a8f312427a1580896049@calendarlabs.com", "UTC"),
        ("icalendar_issue_722_timezone_transition_ambiguity.ics", "1", "UTC"),
    ],
)
def test_conformance_events_without_length_are_cancelled(
    conformance: Path, name: str, uid: str, zone: str
) -> None:
    path = conformance / "ics" / name
    found, request = _plan(path, EventChangeAsk(ChangeOperation.CANCEL, uid, zone=zone))
    assert request["operation"] == "CANCEL"
    assert _starts(found) == [_known(request)[0]]
