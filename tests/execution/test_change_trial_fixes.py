"""Problems a new-user trial of event changes found (issue #23, decision 0073), each run
through the commands of docs/guide/change-an-event.md on ``.ics`` calendars
(:class:`tests.execution._ics_change_flow.IcsChangeFlow`).

The calendars are read back with icalendar; the expected values are worked out here from
RFC 5545/5546, not from cerebri.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import icalendar
import pytest

from tests.execution._ics_change_flow import IcsChangeFlow

CAL = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//trial//EN\r\nX-WR-CALNAME:{name}\r\n"
END = "END:VCALENDAR\r\n"


def _monday_in_a_fortnight() -> date:
    """A Monday 14 to 20 days ahead: the events lie ahead of the real clock the worker
    reads."""
    today = datetime.now(UTC).date()
    return today + timedelta(days=14 + (7 - today.weekday()) % 7)


def _day(value: date) -> str:
    return value.strftime("%Y%m%d")


def _events(path: Path) -> dict[str, Any]:
    """UID -> the one VEVENT of that UID in the file."""
    calendar = icalendar.Calendar.from_ical(path.read_bytes())
    return {str(event["UID"]): event for event in calendar.walk("VEVENT")}


@pytest.fixture
def flow(tmp_path: Path) -> IcsChangeFlow:
    return IcsChangeFlow(tmp_path)


def _all_day(first: date) -> str:
    """alice's two-day offsite from ``first``, bob accepted."""
    return (
        "BEGIN:VEVENT\r\nUID:offsite@example.org\r\nDTSTAMP:20261101T000000Z\r\n"
        "ORGANIZER:mailto:alice@example.org\r\n"
        "ATTENDEE;CN=Bob;PARTSTAT=ACCEPTED:mailto:bob@example.org\r\n"
        f"SUMMARY:Offsite\r\nDTSTART;VALUE=DATE:{_day(first)}\r\n"
        f"DTEND;VALUE=DATE:{_day(first + timedelta(days=2))}\r\nSEQUENCE:0\r\n"
        "END:VEVENT\r\n"
    )


def test_an_all_day_event_with_an_attendee_is_rescheduled_and_both_copies_verified(
    flow: IcsChangeFlow,
) -> None:
    """Item 1: bob's copy of an all-day event is read back in the plan's zone, as alice's
    is (RFC 5545 3.3.4: a DATE has no instant of its own)."""
    monday = _monday_in_a_fortnight()
    event = _all_day(monday)
    flow.prepare(
        CAL.format(name="alice") + event + END, CAL.format(name="bob@example.org") + event + END
    )
    # Monday-Tuesday -> Wednesday-Thursday: the only two-day slot in the window
    wednesday, friday = monday + timedelta(days=2), monday + timedelta(days=4)
    window = f"{wednesday.isoformat()}T00:00/{friday.isoformat()}T00:00"
    shown = flow.change(
        "reschedule", "offsite@example.org", "--between", window, "--tz", "Europe/Berlin",
        "--granularity", "1d",
    )  # fmt: skip
    assert shown["status"] == "completed", shown
    for person in ("alice", "bob"):
        copy = _events(flow.folder / f"{person}.ics")["offsite@example.org"]
        assert (copy["DTSTART"].dt, copy["DTEND"].dt) == (wednesday, friday), person
        assert int(copy["SEQUENCE"]) == 1, person


def _timed(monday: date, *, alice_attends: bool) -> str:
    """alice's meeting on ``monday`` 10:00-11:00 UTC; bob accepted, and alice herself
    listed as an attendee (accepted) when ``alice_attends``."""
    herself = (
        "ATTENDEE;CN=Alice;ROLE=CHAIR;PARTSTAT=ACCEPTED:mailto:alice@example.org\r\n"
        if alice_attends
        else ""
    )
    return (
        "BEGIN:VEVENT\r\nUID:review@example.org\r\nDTSTAMP:20261101T000000Z\r\n"
        "ORGANIZER;CN=Alice:mailto:alice@example.org\r\n" + herself + "ATTENDEE;CN=Bob;"
        "ROLE=REQ-PARTICIPANT;PARTSTAT=ACCEPTED:mailto:bob@example.org\r\n"
        f"SUMMARY:Review\r\nDTSTART:{_day(monday)}T100000Z\r\nDTEND:{_day(monday)}T110000Z\r\n"
        "SEQUENCE:2\r\nEND:VEVENT\r\n"
    )


def _answers(event: Any) -> dict[str, tuple[str, str | None]]:
    """Bare address -> (PARTSTAT, RSVP) of every ATTENDEE line of ``event``."""
    lines = event.get("ATTENDEE")
    lines = lines if isinstance(lines, list) else [lines]
    return {
        str(line).removeprefix("mailto:"): (
            str(line.params.get("PARTSTAT", "NEEDS-ACTION")),
            None if "RSVP" not in line.params else str(line.params["RSVP"]),
        )
        for line in lines
    }


def _sent(flow: IcsChangeFlow) -> list[Any]:
    """The VEVENT of each iTIP message in the outbox."""
    out = []
    for text in flow.messages():
        (event,) = icalendar.Calendar.from_ical(text).walk("VEVENT")
        out.append(event)
    return out


def _two_people(flow: IcsChangeFlow, monday: date) -> None:
    event = _timed(monday, alice_attends=True)
    flow.prepare(
        CAL.format(name="alice") + event + END, CAL.format(name="bob@example.org") + event + END
    )


def test_a_new_time_asks_every_attendee_again_in_every_copy_and_message(
    flow: IcsChangeFlow,
) -> None:
    """Item 6: RFC 5546 3.2.2.1 (rescheduling): bob's answer was to the old time, so the
    organizer's copy, bob's copy and the REQUEST all say PARTSTAT=NEEDS-ACTION, RSVP=TRUE;
    alice, organizer and attendee, keeps her line (ACCEPTED) in all three (3.2.2: the
    REQUEST carries the full attendee list), and is sent nothing."""
    monday = _monday_in_a_fortnight()
    _two_people(flow, monday)
    window = f"{monday.isoformat()}T14:00/{monday.isoformat()}T15:00"
    shown = flow.change("reschedule", "review@example.org", "--between", window)
    assert shown["status"] == "completed", shown
    expected = {
        "alice@example.org": ("ACCEPTED", None),
        "bob@example.org": ("NEEDS-ACTION", "TRUE"),
    }
    for person in ("alice", "bob"):
        copy = _events(flow.folder / f"{person}.ics")["review@example.org"]
        assert copy["DTSTART"].dt == datetime(monday.year, monday.month, monday.day, 14, tzinfo=UTC)
        assert _answers(copy) == expected, person
        assert int(copy["SEQUENCE"]) == 3
    (message,) = _sent(flow)
    assert _answers(message) == expected
    assert int(message["SEQUENCE"]) == 3


def test_a_new_title_keeps_every_answer(flow: IcsChangeFlow) -> None:
    """Item 6: a title-only update is no new time: bob's ACCEPTED stays in every copy and in
    the REQUEST."""
    monday = _monday_in_a_fortnight()
    _two_people(flow, monday)
    shown = flow.change("update-event", "review@example.org", "--title", "Design review")
    assert shown["status"] == "completed", shown
    for person in ("alice", "bob"):
        copy = _events(flow.folder / f"{person}.ics")["review@example.org"]
        assert str(copy["SUMMARY"]) == "Design review"
        answers = _answers(copy)
        assert answers["bob@example.org"][0] == "ACCEPTED", person
        assert answers["alice@example.org"][0] == "ACCEPTED", person
    (message,) = _sent(flow)
    assert {k: v[0] for k, v in _answers(message).items()} == {
        "alice@example.org": "ACCEPTED",
        "bob@example.org": "ACCEPTED",
    }


def _twice(monday: date, second_summary: str = "Review (copy)") -> str:
    """Two master VEVENTs of one UID, both SEQUENCE 0 (RFC 5545 3.8.4.7: a UID names one
    event; which of the two is "the" event is anybody's guess)."""
    first = _timed(monday, alice_attends=False).replace("SEQUENCE:2", "SEQUENCE:0")
    later = first.replace("T100000Z", "T150000Z").replace("T110000Z", "T160000Z")
    return first + later.replace("SUMMARY:Review", f"SUMMARY:{second_summary}")


@pytest.mark.parametrize(
    ("command", "options"),
    [
        ("cancel-event", ()),
        ("update-event", ("--title", "Renamed")),
        ("reschedule", ("--between", "{day}T12:00/{day}T14:00")),
    ],
)
def test_a_uid_with_two_masters_is_refused_and_nothing_is_planned(
    flow: IcsChangeFlow, command: str, options: tuple[str, ...]
) -> None:
    """Item 8: two components with one UID, no RECURRENCE-ID, the same SEQUENCE: the target
    is ambiguous, so every change command refuses it (exit 2, ``change.ambiguous_uid``) and
    prints no request."""
    monday = _monday_in_a_fortnight()
    (flow.folder / "alice.ics").write_text(
        CAL.format(name="alice") + _twice(monday) + END, encoding="utf-8", newline=""
    )
    filled = [option.format(day=monday.isoformat()) for option in options]
    answer = flow.run(
        command, "review@example.org", "--ics", "alice.ics", *filled, "--emit-request"
    )
    assert answer.exit_code == 2, answer.output
    assert "change.ambiguous_uid" in answer.stderr
    assert answer.stdout == ""


def test_a_reschedule_takes_the_new_length_it_is_given(flow: IcsChangeFlow) -> None:
    """Item 13: ``reschedule --duration 30m`` finds a new time for a 30-minute version of
    the one-hour review (RESCHEDULE is cerebri's extension, decision 0049; MOVE still keeps
    the length), and the event is written with that length."""
    monday = _monday_in_a_fortnight()
    _two_people(flow, monday)
    window = f"{monday.isoformat()}T14:00/{monday.isoformat()}T15:00"
    shown = flow.change(
        "reschedule", "review@example.org", "--between", window, "--duration", "30m"
    )
    assert shown["status"] == "completed", shown
    copy = _events(flow.folder / "alice.ics")["review@example.org"]
    start = datetime(monday.year, monday.month, monday.day, 14, tzinfo=UTC)
    assert (copy["DTSTART"].dt, copy["DTEND"].dt) == (start, start + timedelta(minutes=30))
