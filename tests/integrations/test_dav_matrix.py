"""The cross-server fixtures work on every server: a weekly series with an override and an
EXDATE, seeded into alice's and bob's calendars, reads back through the independent reader
(:mod:`tests._dav_reader`) with the same values on Radicale, Xandikos and Cyrus, and the
three readings of its instances (the server's query, the server's expansion,
``recurring-ical-events`` over the stored objects) agree with instances worked out by hand;
cerebri's own CalDAV reader reads each person's calendar with the credentials file the
fixture writes; one iMIP message goes through the real SMTP server (:mod:`tests._smtp`).
"""

from __future__ import annotations

import datetime as dt
import smtplib
from email.message import EmailMessage
from pathlib import Path

from cerebri.integrations.caldav_source import fetch_calendars
from cerebri.integrations.credentials import CalDAVLogins
from cerebri.temporal.instant import Instant
from tests._dav_reader import Instance
from tests._dav_servers import PEOPLE, CalDavServer
from tests._smtp import SmtpRecorder

UID = "weekly-review-1@cerebri.test"
BERLIN = """BEGIN:VTIMEZONE
TZID:Europe/Berlin
BEGIN:DAYLIGHT
TZNAME:CEST
TZOFFSETFROM:+0100
TZOFFSETTO:+0200
DTSTART:19700329T020000
RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU
END:DAYLIGHT
BEGIN:STANDARD
TZNAME:CET
TZOFFSETFROM:+0200
TZOFFSETTO:+0100
DTSTART:19701025T030000
RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU
END:STANDARD
END:VTIMEZONE
"""
# Weekly on Mondays 10:00-11:00 Berlin (CET, UTC+1 in January), four times from 2027-01-04;
# the second moved to 14:00 (an override, SEQUENCE 1), the fourth excluded (EXDATE).
SERIES = (
    "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//cerebri tests//dav matrix//EN\r\n"
    + BERLIN.replace("\n", "\r\n")
    + """BEGIN:VEVENT
UID:{uid}
DTSTAMP:20261201T000000Z
DTSTART;TZID=Europe/Berlin:20270104T100000
DTEND;TZID=Europe/Berlin:20270104T110000
RRULE:FREQ=WEEKLY;COUNT=4
EXDATE;TZID=Europe/Berlin:20270125T100000
SUMMARY:Weekly review
SEQUENCE:0
STATUS:CONFIRMED
ORGANIZER:mailto:alice@example.com
ATTENDEE;ROLE=REQ-PARTICIPANT;PARTSTAT=NEEDS-ACTION;RSVP=TRUE:mailto:bob@example.com
END:VEVENT
BEGIN:VEVENT
UID:{uid}
DTSTAMP:20261201T000000Z
RECURRENCE-ID;TZID=Europe/Berlin:20270111T100000
DTSTART;TZID=Europe/Berlin:20270111T140000
DTEND;TZID=Europe/Berlin:20270111T150000
SUMMARY:Weekly review (moved)
SEQUENCE:1
STATUS:CONFIRMED
ORGANIZER:mailto:alice@example.com
ATTENDEE;ROLE=REQ-PARTICIPANT;PARTSTAT=NEEDS-ACTION;RSVP=TRUE:mailto:bob@example.com
END:VEVENT
END:VCALENDAR
""".replace("\n", "\r\n")
).format(uid=UID)

JANUARY = (dt.datetime(2027, 1, 1, tzinfo=dt.UTC), dt.datetime(2027, 2, 1, tzinfo=dt.UTC))


def _utc(day: int, hour: int) -> dt.datetime:
    return dt.datetime(2027, 1, day, hour, tzinfo=dt.UTC)


# Worked out by hand: 10:00 CET is 09:00 UTC; the override's 14:00 CET is 13:00 UTC.
EXPECTED = (
    Instance(UID, _utc(4, 9), _utc(4, 10), _utc(4, 9), "Weekly review", "CONFIRMED"),
    Instance(UID, _utc(11, 13), _utc(11, 14), _utc(11, 9), "Weekly review (moved)", "CONFIRMED"),
    Instance(UID, _utc(18, 9), _utc(18, 10), _utc(18, 9), "Weekly review", "CONFIRMED"),
)


def test_a_seeded_series_reads_back_the_same_on_every_server(
    dav_matrix: CalDavServer, people_calendars: dict[str, str]
) -> None:
    for user in ("alice", "bob"):
        dav_matrix.reader(user, people_calendars[user]).seed(SERIES)

    for user in ("alice", "bob"):
        reader = dav_matrix.reader(user, people_calendars[user])
        (stored,) = reader.objects()
        assert not stored.has_method
        assert stored.etag
        master, override = reader.events()
        assert (master.uid, master.sequence, master.recurrence_id) == (UID, 0, None)
        assert master.rrule == "FREQ=WEEKLY;COUNT=4"
        assert master.start_tzid == "Europe/Berlin"
        assert (master.start, master.end) == (_utc(4, 9), _utc(4, 10))
        assert master.exdates == (_utc(25, 9),)
        assert master.organizer == "mailto:alice@example.com"
        assert master.attendees == (("mailto:bob@example.com", "REQ-PARTICIPANT", "NEEDS-ACTION"),)
        assert (override.recurrence_id, override.sequence, override.start) == (
            _utc(11, 9),
            1,
            _utc(11, 13),
        )
        assert override.status == "CONFIRMED"
        assert reader.instances_by_oracle(*JANUARY) == EXPECTED
        assert reader.instances_by_search(*JANUARY) == EXPECTED
        assert reader.instances_by_server(*JANUARY) == EXPECTED

    assert dav_matrix.reader("carol", people_calendars["carol"]).objects() == ()


def test_every_person_has_a_calendar_of_their_own(
    dav_matrix: CalDavServer, people_calendars: dict[str, str]
) -> None:
    assert sorted(people_calendars) == sorted(PEOPLE)
    assert len(set(people_calendars.values())) == len(PEOPLE)
    for user, url in people_calendars.items():
        assert url.startswith(dav_matrix.account(user).home_url)
        assert dav_matrix.reader(user, url).objects() == ()


def test_cerebri_reads_every_persons_calendar_with_the_credentials_file(
    dav_matrix: CalDavServer, people_calendars: dict[str, str], tmp_path: Path
) -> None:
    logins = CalDAVLogins.load(
        credentials_file=dav_matrix.write_credentials(tmp_path / "logins.json"),
        username=None,
        password=None,
        environ={},
        home=None,
    )
    for user, url in people_calendars.items():
        dav_matrix.reader(user, url).seed(SERIES.replace(UID, f"{user}-{UID}"))
    for user, url in people_calendars.items():
        login = logins.login_for(url)
        assert login.username == user
        (calendar,) = fetch_calendars(
            url,
            Instant.from_datetime(JANUARY[0]),
            Instant.from_datetime(JANUARY[1]),
            username=login.username,
            password=login.password,
            cache=False,
        )
        assert {str(event["UID"]) for event in calendar.walk("VEVENT")} == {f"{user}-{UID}"}


def test_the_smtp_server_records_an_imip_message(smtp_server: SmtpRecorder) -> None:
    message = EmailMessage()
    message["From"] = "alice@example.com"
    message["To"] = "bob@example.com"
    message["Subject"] = "Invitation: Weekly review"
    message.set_content("Alice invites you.")
    message.add_alternative(
        SERIES.replace("BEGIN:VEVENT", "METHOD:REQUEST\r\nBEGIN:VEVENT", 1),
        subtype="calendar",
        params={"method": "REQUEST"},
    )
    with smtplib.SMTP(smtp_server.host, smtp_server.port, timeout=10) as client:
        client.send_message(message, "alice@example.com", ["bob@example.com", "carol@example.com"])

    (received,) = smtp_server.messages()
    assert received.mail_from == "alice@example.com"
    assert received.rcpt_tos == ("bob@example.com", "carol@example.com")
    assert received.message["Subject"] == "Invitation: Weekly review"
    (part,) = received.calendar_parts
    assert part.method == "REQUEST"
    assert f"UID:{UID}" in part.text
    smtp_server.clear()
    assert smtp_server.messages() == ()
