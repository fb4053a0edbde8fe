"""Issue #23's Must show, end to end on Radicale, Xandikos and Cyrus (decision 0060): events
already on alice's CalDAV calendar are rescheduled, cancelled and updated the way people do
it, with the ``cerebri`` executable (``reschedule``/``cancel-event``/``update-event
--emit-request``, ``propose --as plan-graph`` signed by alice, ``submit``, ``approvals
approve`` by bob, a ``worker`` over every person's calendar with an outbox and a real SMTP
server); then alice's calendar is read by an independent client (:mod:`tests._dav_reader`:
the ``caldav`` library, the servers' own expansion and ``recurring-ical-events``) and the
messages by the SMTP recorder and icalendar.

Every expectation is written out here in wall-clock times of Europe/Berlin and turned into
UTC with ``zoneinfo``; none is read from cerebri.

* ``test_series_changes``: a weekly series (Mondays 09:00 Berlin, eight from 2027-03-08,
  across the 2027-03-28 change to summer time) moved as a whole, one instance moved, one
  instance cancelled, then this-and-future moved (a split series, decision 0050: two
  REQUESTs per attendee, decision 0056).
* ``test_single_event_changes``: a single event shortened out of a conflict with bob's
  event, lengthened into it (the planner refuses: nothing proposed), lengthened into a slot
  bob's calendar loses after the approval (``calendar.slot_taken`` at act time), changed by
  another client after the approval (``calendar.revision_mismatch``), then cancelled.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Final
from zoneinfo import ZoneInfo

import icalendar
import pytest
from caldav.calendarobjectresource import CalendarObjectResource
from caldav.collection import Calendar

from tests._dav_reader import DavReader, Instance
from tests._dav_servers import CalDavServer
from tests._smtp import SmtpRecorder
from tests.execution._change_flow import ChangeFlow

pytestmark = pytest.mark.processes

BERLIN: Final = ZoneInfo("Europe/Berlin")
SERIES: Final = "weekly-e2e@example.com"
SINGLE: Final = "review-e2e@example.com"
ALICE: Final = "mailto:alice@example.com"
BOB: Final = "mailto:bob@example.com"
CAROL: Final = "mailto:carol@example.com"
ATTENDEES: Final = (BOB, CAROL)
READ_FROM: Final = dt.datetime(2027, 3, 1, tzinfo=dt.UTC)
READ_TO: Final = dt.datetime(2027, 5, 1, tzinfo=dt.UTC)
OWN: Final = {
    "bob": {"bob-busy@example.com", "bob-1on1@example.com", "bob-call@example.com"},
    "carol": {"carol-busy@example.com", "carol-class@example.com"},
}
"""The UIDs of bob's and carol's own events (not copies of alice's). Each test seeds its
own: Cyrus keeps a UID unique across one person's calendars, also after a test's calendar
is gone."""

VTIMEZONE: Final = (
    "BEGIN:VTIMEZONE\r\nTZID:Europe/Berlin\r\n"
    "BEGIN:DAYLIGHT\r\nTZOFFSETFROM:+0100\r\nTZOFFSETTO:+0200\r\nTZNAME:CEST\r\n"
    "DTSTART:19700329T020000\r\nRRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU\r\nEND:DAYLIGHT\r\n"
    "BEGIN:STANDARD\r\nTZOFFSETFROM:+0200\r\nTZOFFSETTO:+0100\r\nTZNAME:CET\r\n"
    "DTSTART:19701025T030000\r\nRRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU\r\nEND:STANDARD\r\n"
    "END:VTIMEZONE\r\n"
)
PEOPLE_LINES: Final = (
    "ORGANIZER;CN=Alice:mailto:alice@example.com\r\n"
    "ATTENDEE;CN=Bob;ROLE=REQ-PARTICIPANT;PARTSTAT=ACCEPTED;RSVP=TRUE:mailto:bob@example.com\r\n"
    "ATTENDEE;CN=Carol;ROLE=OPT-PARTICIPANT;PARTSTAT=NEEDS-ACTION;RSVP=TRUE:"
    "mailto:carol@example.com\r\n"
)


def berlin(day: str, clock: str) -> dt.datetime:
    """``2027-03-08``, ``09:00`` in Berlin as a UTC datetime."""
    local = dt.datetime.fromisoformat(f"{day}T{clock}").replace(tzinfo=BERLIN)
    return local.astimezone(dt.UTC)


def _calendar(*events: str) -> str:
    return (
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//cerebri tests//changes e2e//EN\r\n"
        f"{VTIMEZONE}{''.join(events)}END:VCALENDAR\r\n"
    )


def _event(uid: str, summary: str, start: str, end: str, extra: str) -> str:
    """A VEVENT in Berlin time, ``start``/``end`` as ``20270308T090000``."""
    return (
        f"BEGIN:VEVENT\r\nUID:{uid}\r\nDTSTAMP:20261201T000000Z\r\n"
        f"DTSTART;TZID=Europe/Berlin:{start}\r\nDTEND;TZID=Europe/Berlin:{end}\r\n"
        f"SUMMARY:{summary}\r\n{extra}END:VEVENT\r\n"
    )


def _own(person: str, uid: str, summary: str, start: str, end: str) -> str:
    """A person's own busy event: they organize it, so cerebri knows whose calendar it is
    (decision 0028)."""
    return _calendar(_event(uid, summary, start, end, f"ORGANIZER:mailto:{person}@example.com\r\n"))


@dataclass(frozen=True)
class Message:
    """One iTIP message as an attendee gets it, from the SMTP server."""

    recipient: str
    method: str
    uid: str
    recurrence_id: dt.datetime | None
    sequence: int
    start: dt.datetime | None


def _utc(value: object) -> dt.datetime:
    assert isinstance(value, dt.datetime)
    return value.astimezone(dt.UTC)


class Watch:
    """What is new in the outbox and on the SMTP server since the last look."""

    def __init__(self, flow: ChangeFlow, smtp: SmtpRecorder) -> None:
        self.flow = flow
        self.smtp = smtp
        self.seen_mail = 0
        self.seen_files: set[str] = set()

    def new_messages(self) -> list[Message]:
        """The messages since the last call, sorted; checks that the outbox holds exactly
        one ``.ics`` per message sent, equal to the mail's calendar part, and that the
        ``METHOD`` is in the message and in its Content-Type (RFC 6047 2.4)."""
        mails = self.smtp.messages()[self.seen_mail :]
        self.seen_mail += len(mails)
        files = (
            {p.name for p in self.flow.outbox.glob("*.ics")} if self.flow.outbox.exists() else set()
        )
        fresh = sorted(files - self.seen_files)
        self.seen_files = files
        assert len(fresh) == len(mails), (fresh, [m.rcpt_tos for m in mails])
        outbox = sorted(
            (self.flow.outbox / name).read_bytes().replace(b"\r\n", b"\n") for name in fresh
        )
        parts = []
        found: list[Message] = []
        for mail in mails:
            assert len(mail.rcpt_tos) == 1
            (part,) = mail.calendar_parts
            parts.append(part.text.encode("utf-8").replace(b"\r\n", b"\n"))
            calendar = icalendar.Calendar.from_ical(part.text)
            assert str(calendar["METHOD"]) == part.method
            (event,) = calendar.walk("VEVENT")
            rid = event.get("RECURRENCE-ID")
            start = event.get("DTSTART")
            found.append(
                Message(
                    recipient=f"mailto:{mail.rcpt_tos[0]}",
                    method=str(part.method),
                    uid=str(event["UID"]),
                    recurrence_id=None if rid is None else _utc(rid.dt),
                    sequence=int(event.get("SEQUENCE", 0)),
                    start=None if start is None else _utc(start.dt),
                )
            )
        assert sorted(parts) == outbox  # the e-mail carries what the outbox holds
        return sorted(found, key=lambda m: (m.uid, m.recipient, m.sequence))


def _to_each(method: str, uid: str, sequence: int, **what: dt.datetime | None) -> list[Message]:
    """One message per attendee (never the organizer)."""
    return [
        Message(
            recipient=who,
            method=method,
            uid=uid,
            recurrence_id=what.get("recurrence_id"),
            sequence=sequence,
            start=what.get("start"),
        )
        for who in ATTENDEES
    ]


Row = tuple[str, dt.datetime, dt.datetime, dt.datetime | None]
"""An instance: UID, start, end (UTC), RECURRENCE-ID (None for a single event)."""

HOUR: Final = dt.timedelta(hours=1)


def _row(instance: Instance, recurring: set[str]) -> Row:
    """The instance as a :data:`Row`; the RECURRENCE-ID of an event that does not recur is
    None (``recurring-ical-events`` gives such an event its start as one, caldav's
    expansion none)."""
    start, end, rid = instance.start, instance.end, instance.recurrence_id
    assert isinstance(start, dt.datetime) and isinstance(end, dt.datetime)
    assert rid is None or isinstance(rid, dt.datetime)
    return (instance.uid, start, end, rid if instance.uid in recurring else None)


def _instances(reader: DavReader) -> set[Row]:
    """The instances over the test's months, read three ways that must agree (the
    ``caldav`` library's expansion of a time-range query, the server's own, and
    ``recurring-ical-events`` over the stored objects); none twice."""
    recurring = {e.uid for e in reader.events() if e.rrule is not None or e.has_rdate}
    readings = [
        sorted(_row(i, recurring) for i in reader.instances_by_oracle(READ_FROM, READ_TO)),
        sorted(_row(i, recurring) for i in reader.instances_by_search(READ_FROM, READ_TO)),
        sorted(_row(i, recurring) for i in reader.instances_by_server(READ_FROM, READ_TO)),
    ]
    assert readings[1] == readings[0], "caldav's expansion differs from recurring-ical-events"
    assert readings[2] == readings[0], "the server's expansion differs from recurring-ical-events"
    assert len(set(readings[0])) == len(readings[0])
    return set(readings[0])


def _stored(reader: DavReader) -> dict[tuple[str, dt.datetime | None], int]:
    """``(UID, RECURRENCE-ID) -> SEQUENCE`` of every stored VEVENT. Checks that no stored
    object carries ``METHOD`` (RFC 4791 4.1) and that each UID lives in one object."""
    objects = reader.objects()
    assert not [stored.href for stored in objects if stored.has_method]
    owners = Counter(uid for stored in objects for uid in {e.uid for e in stored.events()})
    assert set(owners.values()) <= {1}, owners
    found: dict[tuple[str, dt.datetime | None], int] = {}
    for event in (event for stored in objects for event in stored.events()):
        rid = event.recurrence_id
        assert rid is None or isinstance(rid, dt.datetime)
        assert (event.uid, rid) not in found
        found[event.uid, rid] = event.sequence
    return found


def _check_copies(
    flow: ChangeFlow, expected: set[Row], organizer: dict[tuple[str, dt.datetime | None], int]
) -> None:
    """Bob's and carol's calendars hold their own events and a copy of every event of
    alice's (decision 0057): the same instances, the same SEQUENCE per component, and bob's
    answer as alice's copy has it. Each test's first change gives the event a new time (a
    new length, a series move), which asks bob again (RFC 6638 3.2.8, decision 0073): from
    then on every copy, alice's too, has him at ``NEEDS-ACTION``."""
    answer = (BOB, "REQ-PARTICIPANT", "NEEDS-ACTION")
    for event in _reader(flow, "alice").events():
        assert answer in event.attendees, event
    for person in ("bob", "carol"):
        reader = _reader(flow, person)
        own = OWN[person]
        found = _instances(reader)
        assert {row for row in found if row[0] not in own} == expected, person
        stored = _stored(reader)
        assert {key: seq for key, seq in stored.items() if key[0] not in own} == organizer
        for event in reader.events():
            if event.uid not in own:
                assert answer in event.attendees, (person, event)


def _completed(flow: ChangeFlow, name: str) -> None:
    """Carry out ``<name>.json`` (:meth:`ChangeFlow.carry_out`); it must complete."""
    outcome = flow.carry_out(name)
    assert outcome.status == "completed", (outcome, flow.plan(outcome.plan)["steps"])


@pytest.fixture
def flow(
    dav_matrix: CalDavServer,
    people_calendars: dict[str, str],
    smtp_server: SmtpRecorder,
    tmp_path: Path,
) -> Iterator[ChangeFlow]:
    """alice's team on this server: a store with alice (proposes) and bob (approves),
    each person's calendar; the worker is stopped at the end."""
    team = ChangeFlow(dav_matrix, people_calendars, tmp_path / "team", smtp_server.port)
    team.prepare()
    try:
        yield team
    finally:
        team.stop_worker()


def _reader(flow: ChangeFlow, person: str) -> DavReader:
    return flow.server.reader(person, flow.calendars[person])


MONDAYS: Final = (
    "2027-03-08",
    "2027-03-15",
    "2027-03-22",
    "2027-03-29",  # the first Monday of summer time (2027-03-28)
    "2027-04-05",
    "2027-04-12",
    "2027-04-19",
    "2027-04-26",
)


def test_series_changes(flow: ChangeFlow, smtp_server: SmtpRecorder) -> None:
    alice = _reader(flow, "alice")
    invitation = _calendar(
        _event(
            SERIES,
            "Weekly sync",
            "20270308T090000",
            "20270308T100000",
            f"RRULE:FREQ=WEEKLY;COUNT=8\r\nSEQUENCE:0\r\n{PEOPLE_LINES}",
        )
    )
    alice.seed(invitation)
    for person in ("bob", "carol"):  # their copies, under names of their clients' own
        _reader(flow, person).seed(invitation, f"invitation-{person}.ics")
    _reader(flow, "bob").seed(
        _own("bob", "bob-busy@example.com", "Dentist", "20270315T130000", "20270315T140000")
    )
    _reader(flow, "carol").seed(
        _own("carol", "carol-busy@example.com", "Class", "20270315T140000", "20270315T150000")
    )
    watch = Watch(flow, smtp_server)
    flow.start_worker()
    ten = {day: berlin(day, "10:00") for day in MONDAYS}

    # The whole series, from Mondays 09:00 to 10:00 Berlin: wall time kept across DST.
    request = flow.request(
        "series", "reschedule", SERIES, "--series", "--between", "2027-03-08T10:00/2027-03-08T17:00"
    )
    assert request["change"]["scope"] == "SERIES"
    _completed(flow, "series")
    expected: set[Row] = {(SERIES, ten[day], ten[day] + HOUR, ten[day]) for day in MONDAYS}
    assert _instances(alice) == expected
    assert _stored(alice) == {(SERIES, None): 1}
    _check_copies(flow, expected, {(SERIES, None): 1})
    assert watch.new_messages() == _to_each("REQUEST", SERIES, 1, start=ten["2027-03-08"])

    # One instance: bob is busy 13:00-14:00 on 03-15, carol (optional) 14:00-15:00.
    flow.request(
        "instance",
        "reschedule",
        SERIES,
        "--instance",
        "2027-03-15T10:00",
        "--between",
        "2027-03-15T13:00/2027-03-15T17:00",
    )
    _completed(flow, "instance")
    fifteenth, moved = ten["2027-03-15"], berlin("2027-03-15", "14:00")
    expected -= {(SERIES, fifteenth, fifteenth + HOUR, fifteenth)}
    expected |= {(SERIES, moved, moved + HOUR, fifteenth)}
    assert _instances(alice) == expected
    assert _stored(alice) == {(SERIES, None): 1, (SERIES, fifteenth): 2}
    _check_copies(flow, expected, {(SERIES, None): 1, (SERIES, fifteenth): 2})
    assert watch.new_messages() == _to_each(
        "REQUEST", SERIES, 2, recurrence_id=fifteenth, start=moved
    )

    # Cancel one instance (03-22): an EXDATE on the master (decision 0050).
    flow.request("cancel-one", "cancel-event", SERIES, "--instance", "2027-03-22T10:00")
    _completed(flow, "cancel-one")
    gone = ten["2027-03-22"]
    expected -= {(SERIES, gone, gone + HOUR, gone)}
    assert _instances(alice) == expected
    # the master one above the event's highest SEQUENCE (the 03-15 override's 2: decision
    # 0050's later rule); the CANCEL carries it
    assert _stored(alice) == {(SERIES, None): 3, (SERIES, fifteenth): 2}
    _check_copies(flow, expected, {(SERIES, None): 3, (SERIES, fifteenth): 2})
    assert watch.new_messages() == _to_each("CANCEL", SERIES, 3, recurrence_id=gone)

    # This and future, from 04-05 (summer time) on to 12:00: a split series.
    flow.request(
        "future",
        "reschedule",
        SERIES,
        "--this-and-future",
        "2027-04-05T10:00",
        "--between",
        "2027-04-05T12:00/2027-04-05T17:00",
    )
    _completed(flow, "future")
    stored = _stored(alice)
    (new_uid,) = {uid for uid, _ in stored} - {SERIES}
    noon = {day: berlin(day, "12:00") for day in MONDAYS[4:]}
    expected = {row for row in expected if row[1] < ten["2027-04-05"]}
    expected |= {(new_uid, noon[day], noon[day] + HOUR, noon[day]) for day in MONDAYS[4:]}
    assert _instances(alice) == expected
    # the shortened series: every component one above the highest; the new one at 0
    assert stored == {(SERIES, None): 4, (SERIES, fifteenth): 4, (new_uid, None): 0}
    _check_copies(flow, expected, stored)
    # two REQUESTs per attendee, one per calendar object (decisions 0050, 0056)
    assert watch.new_messages() == sorted(
        [
            *_to_each("REQUEST", new_uid, 0, start=noon["2027-04-05"]),
            *_to_each("REQUEST", SERIES, 4, start=ten["2027-03-08"]),
        ],
        key=lambda m: (m.uid, m.recipient, m.sequence),
    )


def _edit_elsewhere(flow: ChangeFlow, uid: str, summary: str) -> None:
    """Another client (the ``caldav`` library, as alice) changes the event's SUMMARY."""
    with flow.server.client("alice") as client:
        calendar = Calendar(client, url=flow.calendars["alice"])
        found = calendar.object_by_uid(uid)
        assert isinstance(found, CalendarObjectResource)
        found.load()
        component = found.icalendar_component
        component["SUMMARY"] = summary
        found.save()


def _snapshot(reader: DavReader) -> dict[str, tuple[str | None, str]]:
    """Every stored object: URL -> (ETag, text as the server sends it)."""
    return {stored.href: (stored.etag, stored.text) for stored in reader.objects()}


def _slot_taken_before_act(flow: ChangeFlow, watch: Watch, day: tuple[str, str]) -> None:
    """45 minutes fit at plan time; bob's calendar loses 14:30-14:45 before the act: the
    worker re-reads every required attendee's calendar and refuses (decision 0051)."""
    alice, bob = _reader(flow, "alice"), _reader(flow, "bob")
    before = _snapshot(alice)
    flow.request("taken", "update-event", SINGLE, "--duration", "45m", *day)
    flow.propose("taken")
    plan = flow.submit("taken")
    bob.seed(_own("bob", "bob-call@example.com", "Call", "20270310T143000", "20270310T144500"))
    flow.approve(plan)
    outcome = flow.finish(plan)
    assert outcome.status == "failed"
    assert outcome.reason.startswith("calendar.slot_taken:")
    assert f"calendar {flow.ids()['bob']}:" in outcome.reason
    assert "bob-call@example.com" in outcome.reason
    assert _snapshot(alice) == before
    assert watch.new_messages() == []


def _edited_after_approval(flow: ChangeFlow, watch: Watch) -> None:
    """Another client changes the event after bob approved a reschedule and before the
    worker acts: the ETag moved, ``calendar.revision_mismatch``, nothing written, nothing
    sent. The background worker is stopped so that the act waits for the edit."""
    alice = _reader(flow, "alice")
    flow.request("moved", "reschedule", SINGLE, "--between", "2027-03-11T09:00/2027-03-11T17:00")
    flow.propose("moved")
    plan = flow.submit("moved")
    flow.asked(plan)
    flow.stop_worker()
    flow.approve(plan)
    _edit_elsewhere(flow, SINGLE, "Design review (edited elsewhere)")
    edited = _snapshot(alice)
    assert [e.summary for e in alice.events()] == ["Design review (edited elsewhere)"]
    done = flow.run_worker_once()
    assert f"plan {plan} failed: calendar.revision_mismatch:" in done.stdout
    assert flow.finish(plan).status == "failed"
    assert _snapshot(alice) == edited
    assert watch.new_messages() == []
    two = berlin("2027-03-10", "14:00")  # the copies stay as the last change left them
    _check_copies(flow, {(SINGLE, two, two + HOUR / 2, None)}, {(SINGLE, None): 1})


def test_single_event_changes(flow: ChangeFlow, smtp_server: SmtpRecorder) -> None:
    alice = _reader(flow, "alice")
    invitation = _calendar(
        _event(
            SINGLE,
            "Design review",
            "20270310T140000",
            "20270310T150000",
            f"SEQUENCE:0\r\n{PEOPLE_LINES}",
        )
    )
    alice.seed(invitation)
    for person in ("bob", "carol"):
        _reader(flow, person).seed(invitation, f"invitation-{person}.ics")
    _reader(flow, "bob").seed(
        _own("bob", "bob-1on1@example.com", "1:1", "20270310T144500", "20270310T153000")
    )
    _reader(flow, "carol").seed(
        _own("carol", "carol-class@example.com", "Class", "20270310T140000", "20270310T160000")
    )
    watch = Watch(flow, smtp_server)
    flow.start_worker()
    day = ("--between", "2027-03-10T08:00/2027-03-10T20:00")
    two = berlin("2027-03-10", "14:00")

    # Out of a conflict: 14:00-15:00 overlaps bob's 1:1 from 14:45; 30 minutes do not.
    flow.request("shorter", "update-event", SINGLE, "--duration", "30m", *day)
    _completed(flow, "shorter")
    assert _instances(alice) == {(SINGLE, two, two + HOUR / 2, None)}
    assert _stored(alice) == {(SINGLE, None): 1}
    _check_copies(flow, {(SINGLE, two, two + HOUR / 2, None)}, {(SINGLE, None): 1})
    assert watch.new_messages() == _to_each("REQUEST", SINGLE, 1, start=two)
    before = _snapshot(alice)

    # Into one: two hours would overlap bob's 1:1; the planner finds no answer, so there
    # is nothing to propose.
    flow.request("longer", "update-event", SINGLE, "--duration", "2h", *day)
    refused = flow.propose("longer", check=False)
    assert refused.returncode == 2
    assert refused.stderr.startswith("error plan.no_candidate:")
    assert _snapshot(alice) == before

    _slot_taken_before_act(flow, watch, day)
    _edited_after_approval(flow, watch)

    # Cancel the event (as the other client left it).
    flow.start_worker()
    (sequence,) = _stored(alice).values()
    flow.request("cancel", "cancel-event", SINGLE, *day)
    _completed(flow, "cancel")
    assert _instances(alice) == set()
    assert _stored(alice) == {}
    _check_copies(flow, set(), {})
    assert watch.new_messages() == _to_each("CANCEL", SINGLE, sequence + 1)
