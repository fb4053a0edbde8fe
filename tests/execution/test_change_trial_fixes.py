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
