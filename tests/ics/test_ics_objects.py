"""``context_objects``: busy periods as CPIR EVENT objects with deterministic ids."""

from __future__ import annotations

import hashlib
import json

import pytest

from cerebri.calendars import context_objects
from cerebri.cpir.enums import Provenance
from cerebri.cpir.objects import EventKind
from cerebri.ics import BusyPeriod, busy_periods, object_id, parse_calendar
from tests.ics.helpers import calendar, utc, vevent

JANUARY = (utc("2024-01-01 00:00"), utc("2024-02-01 00:00"))


def period(
    start: str, end: str, uid: str = "u", rid: str | None = None, seq: int = 0
) -> BusyPeriod:
    return BusyPeriod(utc(start), utc(end), uid, rid, "s", "cal.ics", "event", seq)


def test_event_objects_from_a_calendar() -> None:
    text = calendar(
        vevent(
            "DTSTART;TZID=Europe/Berlin:20240105T100000",
            "DURATION:PT1H",
            "RRULE:FREQ=DAILY;COUNT=2",
            "SEQUENCE:4",
            uid="standup@example.com",
        )
    )
    found = busy_periods([parse_calendar(text)], *JANUARY)
    objects = context_objects(
        found, calendar_id="work", integration_id="local-ics", zone="Europe/Berlin"
    )
    assert len(objects) == 2
    first = objects[0]
    assert first.revision == 4
    assert isinstance(first.kind, EventKind)
    assert (first.calendar_id, first.integration_id, first.timezone) == (
        "work",
        "local-ics",
        "Europe/Berlin",
    )
    assert first.resource_ids == ()
    assert first.semantics is None
    assert first.time.provenance is Provenance.INTEGRATION_FACT
    assert first.time.confidence is None
    assert first.time.evidence == ()
    assert first.known_time is not None
    assert (first.known_time.start, first.known_time.end) == (
        utc("2024-01-05 09:00"),
        utc("2024-01-05 10:00"),
    )
    assert first.blocks_time and first.is_existing


def test_ids_are_sha256_of_uid_recurrence_id_and_start() -> None:
    busy = period("2024-01-05 09:00", "2024-01-05 10:00", uid="standup", rid="20240105T090000Z")
    digest = hashlib.sha256(b"standup\x0020240105T090000Z\x002024-01-05T09:00:00Z").hexdigest()
    assert object_id(busy) == "ics-" + digest[:32]
    (made,) = context_objects([busy], calendar_id="c", integration_id="i", zone="UTC")
    assert made.id == object_id(busy)


def test_ids_do_not_depend_on_end_or_source() -> None:
    one = period("2024-01-05 09:00", "2024-01-05 10:00")
    other = BusyPeriod(one.start, utc("2024-01-05 11:00"), "u", None, None, "x.ics", "freebusy")
    assert object_id(one) == object_id(other)


def test_duplicates_keep_the_latest_end_and_zero_length_is_left_out() -> None:
    periods = [
        period("2024-01-05 09:00", "2024-01-05 10:00"),
        period("2024-01-05 09:00", "2024-01-05 11:00"),
        period("2024-01-06 09:00", "2024-01-06 09:00", uid="point"),
    ]
    objects = context_objects(periods, calendar_id="c", integration_id="i", zone="UTC")
    assert [(o.known_time.start, o.known_time.end) for o in objects if o.known_time] == [
        (utc("2024-01-05 09:00"), utc("2024-01-05 11:00"))
    ]


def test_objects_round_trip_as_json() -> None:
    (made,) = context_objects(
        [period("2024-01-05 09:00", "2024-01-05 10:00", seq=7)],
        calendar_id="c",
        integration_id="i",
        zone="UTC",
    )
    wire = json.loads(made.model_dump_json())
    assert wire["revision"] == 7
    assert wire["kind"] == {"kind": "EVENT"}
    assert wire["time"]["value"]["knowledge"]["data"] == {
        "start": "2024-01-05T09:00:00Z",
        "end": "2024-01-05T10:00:00Z",
    }
    assert type(made).model_validate_json(made.model_dump_json()) == made


@pytest.mark.parametrize(
    ("calendar_id", "integration_id", "zone"),
    [("bad id", "i", "UTC"), ("c", "", "UTC"), ("c", "i", "Mars/Base"), ("c" * 129, "i", "UTC")],
)
def test_invalid_arguments(calendar_id: str, integration_id: str, zone: str) -> None:
    with pytest.raises(ValueError):
        context_objects([], calendar_id=calendar_id, integration_id=integration_id, zone=zone)
