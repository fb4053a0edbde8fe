"""iTIP REQUEST and CANCEL messages (RFC 5546 sections 3.2.2 and 3.2.5), read back with the
icalendar library: one message per attendee, every required property, SEQUENCE, roles,
RECURRENCE-ID and RANGE, VTIMEZONE, determinism, and each refusal."""

from __future__ import annotations

import random

import pytest
from icalendar import Calendar, Event

from cerebri.calendars.itip import (
    PRODID,
    Attendee,
    ItipError,
    ItipMethod,
    cancel_messages,
    itip_messages,
    request_messages,
    stored_object,
)
from cerebri.errors import InvalidArgumentError
from cerebri.temporal import Instant

STAMP = Instant.parse("2026-10-01T09:00:00Z")
ORGANIZER = "Olga Boss <olga@example.org>"
PEOPLE = [
    Attendee("Bob <bob@example.org>"),
    Attendee("alice@example.org"),
    Attendee("mailto:carol@example.org", required=False),
]


def _event(body: str) -> Event:
    text = (
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nBEGIN:VEVENT\r\n"
        + body.replace("\n", "\r\n")
        + "END:VEVENT\r\nEND:VCALENDAR\r\n"
    )
    event = Calendar.from_ical(text).walk("VEVENT")[0]
    assert isinstance(event, Event)
    return event


WHOLE = """UID:whole-1
DTSTAMP:20260101T000000Z
SEQUENCE:1
DTSTART;TZID=Europe/Berlin:20261006T110000
DTEND;TZID=Europe/Berlin:20261006T120000
SUMMARY:Sync
LOCATION:Room 1
RRULE:FREQ=WEEKLY;COUNT=10
ORGANIZER:mailto:someone-else@example.org
ATTENDEE;PARTSTAT=ACCEPTED:mailto:old@example.org
BEGIN:VALARM
ACTION:DISPLAY
TRIGGER:-PT5M
DESCRIPTION:soon
END:VALARM
"""

INSTANCE = """UID:series-1
DTSTAMP:20260101T000000Z
RECURRENCE-ID:20261005T080000Z
DTSTART:20261005T090000Z
DTEND:20261005T100000Z
SUMMARY:Moved instance
"""

FUTURE = """UID:series-2
DTSTAMP:20260101T000000Z
SEQUENCE:4
RECURRENCE-ID;RANGE=THISANDFUTURE;TZID=America/New_York:20261012T090000
DTSTART;TZID=America/New_York:20261012T140000
DTEND;TZID=America/New_York:20261012T150000
SUMMARY:Later from now on
"""


def _read(data: bytes) -> tuple[Calendar, Event]:
    calendar = Calendar.from_ical(data)
    events = calendar.walk("VEVENT")
    assert len(events) == 1
    return calendar, events[0]


def _attendees(event: Event) -> dict[str, dict[str, str]]:
    lines = event.get("ATTENDEE")
    lines = lines if isinstance(lines, list) else [lines]
    return {str(line).lower(): dict(line.params) for line in lines}


def test_request_has_every_property_rfc_5546_3_2_2_requires() -> None:
    messages = request_messages(
        _event(WHOLE), organizer=ORGANIZER, attendees=PEOPLE, sequence=2, dtstamp=STAMP
    )
    assert [m.recipient for m in messages] == [
        "alice@example.org",
        "bob@example.org",
        "carol@example.org",
    ]
    assert all(m.method is ItipMethod.REQUEST for m in messages)
    assert len({m.data for m in messages}) == 1  # one message, one copy per attendee
    calendar, event = _read(messages[0].data)
    assert calendar["METHOD"] == "REQUEST"
    assert calendar["PRODID"] == PRODID
    assert calendar["VERSION"] == "2.0"
    assert event["UID"] == "whole-1"
    assert event.decoded("DTSTAMP") == STAMP.to_datetime()
    assert event.decoded("SEQUENCE") == 2
    assert event["SUMMARY"] == "Sync"
    assert event["LOCATION"] == "Room 1"
    assert "FREQ=WEEKLY" in event["RRULE"].to_ical().decode()
    assert str(event["ORGANIZER"]) == "mailto:olga@example.org"
    assert event["ORGANIZER"].params["CN"] == "Olga Boss"
    assert event.decoded("DTSTART").tzinfo is not None
    assert str(event["DTSTART"].params["TZID"]) == "Europe/Berlin"
    assert "DTEND" in event
    assert "STATUS" not in event
    assert "RECURRENCE-ID" not in event
    assert not event.subcomponents  # the owner's alarm is not sent
    people = _attendees(event)
    assert set(people) == {
        "mailto:alice@example.org",
        "mailto:bob@example.org",
        "mailto:carol@example.org",
    }  # the event's own attendee list is replaced by the one given
    for address, params in people.items():
        role = "OPT-PARTICIPANT" if "carol" in address else "REQ-PARTICIPANT"
        assert params["ROLE"] == role
        assert params["PARTSTAT"] == "NEEDS-ACTION"
        assert params["RSVP"] == "TRUE"
    assert people["mailto:bob@example.org"]["CN"] == "Bob"


def test_a_tzid_event_carries_its_vtimezone() -> None:
    messages = request_messages(
        _event(FUTURE), organizer=ORGANIZER, attendees=PEOPLE, sequence=5, dtstamp=STAMP
    )
    calendar, _ = _read(messages[0].data)
    zones = [str(tz["TZID"]) for tz in calendar.walk("VTIMEZONE")]
    assert zones == ["America/New_York"]
    utc = request_messages(
        _event(INSTANCE), organizer=ORGANIZER, attendees=PEOPLE, sequence=0, dtstamp=STAMP
    )
    assert not Calendar.from_ical(utc[0].data).walk("VTIMEZONE")


def test_recurrence_id_and_range_are_carried_over() -> None:
    messages = request_messages(
        _event(INSTANCE), organizer=ORGANIZER, attendees=PEOPLE, sequence=1, dtstamp=STAMP
    )
    _, event = _read(messages[0].data)
    assert event.decoded("RECURRENCE-ID") == Instant.parse("2026-10-05T08:00:00Z").to_datetime()
    assert "RANGE" not in event["RECURRENCE-ID"].params
    messages = request_messages(
        _event(FUTURE), organizer=ORGANIZER, attendees=PEOPLE, sequence=5, dtstamp=STAMP
    )
    _, event = _read(messages[0].data)
    assert event["RECURRENCE-ID"].params["RANGE"] == "THISANDFUTURE"
    assert str(event["RECURRENCE-ID"].params["TZID"]) == "America/New_York"
    assert event.decoded("RECURRENCE-ID").hour == 9
    assert event.decoded("SEQUENCE") == 5


def test_cancel_has_every_property_rfc_5546_3_2_5_requires() -> None:
    for body, sequence in ((WHOLE, 2), (INSTANCE, 1), (FUTURE, 5)):
        source = _event(body)
        messages = cancel_messages(
            source, organizer=ORGANIZER, attendees=PEOPLE, sequence=sequence, dtstamp=STAMP
        )
        assert len(messages) == 3
        assert all(m.method is ItipMethod.CANCEL for m in messages)
        calendar, event = _read(messages[0].data)
        assert calendar["METHOD"] == "CANCEL"
        assert calendar["PRODID"] == PRODID
        assert calendar["VERSION"] == "2.0"
        assert event["UID"] == source["UID"]
        assert event.decoded("DTSTAMP") == STAMP.to_datetime()
        assert event.decoded("SEQUENCE") == sequence
        assert event["STATUS"] == "CANCELLED"
        assert str(event["ORGANIZER"]) == "mailto:olga@example.org"
        assert len(_attendees(event)) == 3
        if "RECURRENCE-ID" in source:
            assert event["RECURRENCE-ID"].to_ical() == source["RECURRENCE-ID"].to_ical()
            assert dict(event["RECURRENCE-ID"].params) == dict(source["RECURRENCE-ID"].params)
        assert "STATUS" not in source  # the caller's event is not modified


def test_a_cancel_needs_no_dtstart() -> None:
    messages = cancel_messages(
        _event("UID:gone\n"), organizer=ORGANIZER, attendees=PEOPLE, sequence=1, dtstamp=STAMP
    )
    _, event = _read(messages[0].data)
    assert event["STATUS"] == "CANCELLED"
    assert "DTSTART" not in event


def test_same_input_same_bytes_whatever_the_attendee_order() -> None:
    first = request_messages(
        _event(WHOLE), organizer=ORGANIZER, attendees=PEOPLE, sequence=2, dtstamp=STAMP
    )
    shuffled = list(PEOPLE)
    for seed in range(5):
        random.Random(seed).shuffle(shuffled)
        again = request_messages(
            _event(WHOLE), organizer=ORGANIZER, attendees=shuffled, sequence=2, dtstamp=STAMP
        )
        assert again == first


def test_the_organizer_is_not_a_recipient() -> None:
    messages = itip_messages(
        ItipMethod.REQUEST,
        _event(INSTANCE),
        organizer=ORGANIZER,
        attendees=["OLGA@example.org", "bob@example.org"],
        sequence=0,
        dtstamp=STAMP,
    )
    assert [m.recipient for m in messages] == ["bob@example.org"]


def test_the_stored_object_never_carries_method() -> None:
    source = _event(FUTURE)
    data = stored_object(source, organizer=ORGANIZER, attendees=PEOPLE, sequence=5, dtstamp=STAMP)
    calendar, stored = _read(data)
    assert "METHOD" not in calendar  # RFC 4791 section 4.1
    assert calendar.walk("VTIMEZONE")
    request = request_messages(
        source, organizer=ORGANIZER, attendees=PEOPLE, sequence=5, dtstamp=STAMP
    )
    message, sent = _read(request[0].data)
    assert message["METHOD"] == "REQUEST"
    assert stored.to_ical() == sent.to_ical()  # the same VEVENT, only the message has METHOD


@pytest.mark.parametrize(
    ("body", "kwargs", "code"),
    [
        (WHOLE, {"attendees": []}, "itip.no_attendees"),
        (WHOLE, {"attendees": ["olga@example.org"]}, "itip.no_attendees"),
        (WHOLE, {"attendees": ["not-an-address"]}, "itip.bad_address"),
        (WHOLE, {"organizer": "nobody"}, "itip.bad_address"),
        (WHOLE, {"attendees": ["a@x.org", "A <A@X.ORG>"]}, "itip.duplicate_attendee"),
        (WHOLE, {"sequence": 0}, "itip.sequence_backwards"),
        (FUTURE, {"sequence": 3}, "itip.sequence_backwards"),
        ("DTSTART:20261005T090000Z\n", {}, "itip.bad_event"),
        ("UID:no-start\n", {}, "itip.bad_event"),
    ],
)
def test_refusals_have_stable_codes(body: str, kwargs: dict[str, object], code: str) -> None:
    arguments: dict[str, object] = {
        "organizer": ORGANIZER,
        "attendees": PEOPLE,
        "sequence": 5,
        "dtstamp": STAMP,
        **kwargs,
    }
    with pytest.raises(ItipError) as caught:
        request_messages(_event(body), **arguments)  # type: ignore[arg-type]
    assert caught.value.code == code
    assert isinstance(caught.value, ValueError)


def test_wrong_types_are_invalid_arguments() -> None:
    good: dict[str, object] = {
        "organizer": ORGANIZER,
        "attendees": PEOPLE,
        "sequence": 1,
        "dtstamp": STAMP,
    }
    for change in (
        {"sequence": -1},
        {"sequence": True},
        {"attendees": "bob@example.org"},
        {"attendees": [42]},
        {"dtstamp": "2026-10-01T09:00:00Z"},
        {"organizer": None},
    ):
        with pytest.raises(InvalidArgumentError) as caught:
            request_messages(_event(INSTANCE), **{**good, **change})  # type: ignore[arg-type]
        assert caught.value.code == "calendars.invalid_argument"
    with pytest.raises(InvalidArgumentError):
        request_messages("BEGIN:VEVENT", **good)  # type: ignore[arg-type]


def test_an_all_day_series_keeps_its_exdates_and_needs_no_zone() -> None:
    source = _event(
        "UID:day-1\nDTSTART;VALUE=DATE:20261005\nDTEND;VALUE=DATE:20261006\n"
        "SUMMARY:Offsite\nRRULE:FREQ=DAILY;COUNT=5\nEXDATE;VALUE=DATE:20261007\n"
        "EXDATE;VALUE=DATE:20261008\n"
    )
    messages = request_messages(
        source, organizer=ORGANIZER, attendees=PEOPLE, sequence=0, dtstamp=STAMP
    )
    calendar, event = _read(messages[0].data)
    assert not calendar.walk("VTIMEZONE")
    exdates = [line.to_ical() for line in event["EXDATE"]]
    assert exdates == [b"20261007", b"20261008"]
    assert event["DTSTART"].to_ical() == b"20261005"
