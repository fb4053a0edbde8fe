"""A whole-series reschedule whose third week is taken after the approval, end to end on
Radicale (decision 0063): ``cerebri reschedule --series --emit-request``, ``propose``,
``submit``, bob books the third Tuesday, bob approves, the ``worker`` re-reads bob's calendar
at every moved instance and refuses with ``calendar.slot_taken``; alice's calendar is read
back by an independent client (:mod:`tests._dav_reader`): nothing was written, no message
was sent.

The series: Mondays 09:00-10:00 Berlin, four from 2027-03-08 (CET, 08:00Z). The window
2027-03-09 10:00-11:00 holds one start, Tuesday 10:00: the series would become the Tuesdays
03-09, 03-16, 03-23 (all CET, 09:00Z) and 03-30 (CEST, 08:00Z). Bob's new event is on
03-23 10:00-10:30 Berlin (09:00Z-09:30Z): the third instance.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Final

import pytest

from tests._dav_servers import PEOPLE, CalDavServer, on_radicale
from tests._radicale import RadicaleServer
from tests._smtp import SmtpRecorder
from tests.execution._change_flow import ChangeFlow

pytestmark = pytest.mark.processes

SERIES: Final = "weekly-0063@example.com"
PEOPLE_LINES: Final = (
    "ORGANIZER;CN=Alice:mailto:alice@example.com\r\n"
    "ATTENDEE;CN=Bob;ROLE=REQ-PARTICIPANT;PARTSTAT=ACCEPTED:mailto:bob@example.com\r\n"
)


def _calendar(uid: str, start: str, end: str, extra: str) -> str:
    return (
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//cerebri tests//0063//EN\r\n"
        f"BEGIN:VEVENT\r\nUID:{uid}\r\nDTSTAMP:20261201T000000Z\r\n"
        f"DTSTART;TZID=Europe/Berlin:{start}\r\nDTEND;TZID=Europe/Berlin:{end}\r\n"
        f"SUMMARY:{uid}\r\n{extra}END:VEVENT\r\nEND:VCALENDAR\r\n"
    )


@pytest.fixture
def flow(
    radicale: RadicaleServer, smtp_server: SmtpRecorder, tmp_path: Path
) -> Iterator[ChangeFlow]:
    server: CalDavServer = on_radicale(radicale)
    calendars = {user: server.new_calendar(user, "series-0063") for user in PEOPLE}
    team = ChangeFlow(server, calendars, tmp_path / "team", smtp_server.port)
    team.prepare()
    try:
        yield team
    finally:
        team.stop_worker()


def test_a_series_move_taken_in_its_third_week_after_approval_writes_nothing(
    flow: ChangeFlow, smtp_server: SmtpRecorder
) -> None:
    alice = flow.server.reader("alice", flow.calendars["alice"])
    bob = flow.server.reader("bob", flow.calendars["bob"])
    invitation = _calendar(
        SERIES, "20270308T090000", "20270308T100000", f"RRULE:FREQ=WEEKLY;COUNT=4\r\n{PEOPLE_LINES}"
    )
    alice.seed(invitation)
    bob.seed(invitation, "invitation-bob.ics")
    # bob organizes something of his own: cerebri knows the calendar is his (decision 0028)
    # and re-reads it before writing (check_calendar_ids)
    own = _calendar(
        "bob-own-0063@example.com",
        "20270301T120000",
        "20270301T130000",
        "ORGANIZER:mailto:bob@example.com\r\n",
    )
    bob.seed(own)
    request = flow.request(
        "series", "reschedule", SERIES, "--series", "--between", "2027-03-09T10:00/2027-03-09T11:00"
    )
    # planned when bob's third Tuesday was free: the one start is offered
    assert request["change"]["scope"] == "SERIES"
    bob_id = flow.ids()["bob"]
    assert [a["calendar_id"] for a in request["change"]["attendees"]] == [bob_id]
    flow.propose("series")
    plan = flow.submit("series")
    before = {stored.href: stored.text for stored in alice.objects()}
    bob.seed(
        _calendar(
            "bob-later-0063@example.com",
            "20270323T100000",
            "20270323T103000",
            "ORGANIZER:mailto:bob@example.com\r\n",
        )
    )
    flow.start_worker()
    flow.approve(plan)
    outcome = flow.finish(plan)

    assert outcome.status == "failed"
    assert outcome.reason.startswith("calendar.slot_taken:"), outcome.reason
    assert "bob-later-0063@example.com" in outcome.reason
    assert "2027-03-23T09:00:00Z" in outcome.reason  # the third instance, 10:00 CET
    assert {stored.href: stored.text for stored in alice.objects()} == before
    assert smtp_server.messages() == ()
