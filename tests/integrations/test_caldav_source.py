"""CalDAV input against a real Radicale server (see ``conftest.py``).

The calendars are written with the ``caldav`` client, read back with
:func:`cerebri.integrations.fetch_calendars`/:func:`~cerebri.integrations.fetch_freebusy`
and turned into busy time with :func:`cerebri.ics.busy_periods`. Every expected period is
written out by hand below in UTC; none is computed by the code under test.

The window is two weeks, Monday 2025-03-24 to Monday 2025-04-07 (UTC), across the start of
summer time in Berlin (Sunday 2025-03-30, 02:00 CET -> 03:00 CEST).
"""

from __future__ import annotations

import http.server
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import ClassVar

import caldav
import pytest
from icalendar import Calendar

from cerebri.errors import CerebriError
from cerebri.ics import BusyPeriod, busy_periods, parse_calendar
from cerebri.ics.source import calendar_source
from cerebri.integrations import CalDAVError, fetch_calendars, fetch_freebusy
from cerebri.temporal import Instant
from tests.integrations.conftest import RadicaleServer

WINDOW_START = Instant.parse("2025-03-24T00:00:00Z")
WINDOW_END = Instant.parse("2025-04-07T00:00:00Z")
USER = "alice"
PASSWORD = "ignored"  # the no-authentication server accepts any password

_HEAD = "BEGIN:VCALENDAR\nVERSION:2.0\nPRODID:-//cerebri tests//caldav//EN\n"
_TAIL = "END:VCALENDAR\n"


def _vcalendar(body: str) -> str:
    return _HEAD + body + _TAIL


SINGLE = _vcalendar(
    "BEGIN:VEVENT\nUID:single@cerebri.test\nDTSTAMP:20250101T000000Z\n"
    "DTSTART:20250325T140000Z\nDTEND:20250325T153000Z\nSUMMARY:Dentist\nEND:VEVENT\n"
)
# Mondays and Wednesdays 10:00Z since Monday 2025-01-06, long before the window; the Monday
# 2025-03-24 is excluded and the Monday 2025-03-31 is moved to Tuesday 2025-04-01 12:00Z.
WEEKLY = _vcalendar(
    "BEGIN:VEVENT\nUID:weekly@cerebri.test\nDTSTAMP:20250101T000000Z\n"
    "DTSTART:20250106T100000Z\nDTEND:20250106T110000Z\nRRULE:FREQ=WEEKLY;BYDAY=MO,WE\n"
    "EXDATE:20250324T100000Z\nSUMMARY:Standup\nEND:VEVENT\n"
    "BEGIN:VEVENT\nUID:weekly@cerebri.test\nDTSTAMP:20250101T000000Z\n"
    "RECURRENCE-ID:20250331T100000Z\nDTSTART:20250401T120000Z\nDTEND:20250401T130000Z\n"
    "SUMMARY:Standup (moved)\nEND:VEVENT\n"
)
ALL_DAY = _vcalendar(
    "BEGIN:VEVENT\nUID:allday@cerebri.test\nDTSTAMP:20250101T000000Z\n"
    "DTSTART;VALUE=DATE:20250327\nDTEND;VALUE=DATE:20250329\nSUMMARY:Conference\n"
    "END:VEVENT\n"
)
TRANSPARENT = _vcalendar(
    "BEGIN:VEVENT\nUID:transparent@cerebri.test\nDTSTAMP:20250101T000000Z\n"
    "DTSTART:20250325T090000Z\nDTEND:20250325T100000Z\nTRANSP:TRANSPARENT\n"
    "SUMMARY:Reminder\nEND:VEVENT\n"
)
CANCELLED = _vcalendar(
    "BEGIN:VEVENT\nUID:cancelled@cerebri.test\nDTSTAMP:20250101T000000Z\n"
    "DTSTART:20250326T150000Z\nDTEND:20250326T160000Z\nSTATUS:CANCELLED\n"
    "SUMMARY:Called off\nEND:VEVENT\n"
)
# Daily at 09:00 Berlin time, four times: 08:00Z before the switch, 07:00Z after it.
BERLIN = _vcalendar(
    "BEGIN:VTIMEZONE\nTZID:Europe/Berlin\n"
    "BEGIN:DAYLIGHT\nTZOFFSETFROM:+0100\nTZOFFSETTO:+0200\nTZNAME:CEST\n"
    "DTSTART:19700329T020000\nRRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU\nEND:DAYLIGHT\n"
    "BEGIN:STANDARD\nTZOFFSETFROM:+0200\nTZOFFSETTO:+0100\nTZNAME:CET\n"
    "DTSTART:19701025T030000\nRRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU\nEND:STANDARD\n"
    "END:VTIMEZONE\n"
    "BEGIN:VEVENT\nUID:berlin@cerebri.test\nDTSTAMP:20250101T000000Z\n"
    "DTSTART;TZID=Europe/Berlin:20250328T090000\nDTEND;TZID=Europe/Berlin:20250328T093000\n"
    "RRULE:FREQ=DAILY;COUNT=4\nSUMMARY:Berlin sync\nEND:VEVENT\n"
)
# The day after the window: outside it in UTC, inside it read at UTC+14.
HOLIDAY = _vcalendar(
    "BEGIN:VEVENT\nUID:holiday@cerebri.test\nDTSTAMP:20250101T000000Z\n"
    "DTSTART;VALUE=DATE:20250407\nDTEND;VALUE=DATE:20250408\nSUMMARY:Holiday\nEND:VEVENT\n"
)
OLD = _vcalendar(
    "BEGIN:VEVENT\nUID:old@cerebri.test\nDTSTAMP:20250101T000000Z\n"
    "DTSTART:20250210T100000Z\nDTEND:20250210T110000Z\nSUMMARY:Long ago\nEND:VEVENT\n"
)
GYM = _vcalendar(
    "BEGIN:VEVENT\nUID:gym@cerebri.test\nDTSTAMP:20250101T000000Z\n"
    "DTSTART:20250403T180000Z\nDTEND:20250403T190000Z\nSUMMARY:Gym\nEND:VEVENT\n"
)

BOB_EVENT = (
    "BEGIN:VEVENT\nUID:bob@cerebri.test\nDTSTAMP:20250301T000000Z\n"
    "DTSTART:20250326T090000Z\nDTEND:20250326T094500Z\nSUMMARY:Bob's review\nEND:VEVENT\n"
)

WORK_EVENTS = (SINGLE, WEEKLY, ALL_DAY, TRANSPARENT, CANCELLED, BERLIN, HOLIDAY, OLD)
HOME_EVENTS = (GYM,)

# (start, end, uid, recurrence id) of the work calendar's busy time, floating zone UTC.
WORK_BUSY_UTC = [
    ("2025-03-25T14:00:00Z", "2025-03-25T15:30:00Z", "single@cerebri.test", None),
    ("2025-03-26T10:00:00Z", "2025-03-26T11:00:00Z", "weekly@cerebri.test", "20250326T100000Z"),
    ("2025-03-27T00:00:00Z", "2025-03-29T00:00:00Z", "allday@cerebri.test", None),
    ("2025-03-28T08:00:00Z", "2025-03-28T08:30:00Z", "berlin@cerebri.test", "20250328T080000Z"),
    ("2025-03-29T08:00:00Z", "2025-03-29T08:30:00Z", "berlin@cerebri.test", "20250329T080000Z"),
    ("2025-03-30T07:00:00Z", "2025-03-30T07:30:00Z", "berlin@cerebri.test", "20250330T070000Z"),
    ("2025-03-31T07:00:00Z", "2025-03-31T07:30:00Z", "berlin@cerebri.test", "20250331T070000Z"),
    ("2025-04-01T12:00:00Z", "2025-04-01T13:00:00Z", "weekly@cerebri.test", "20250331T100000Z"),
    ("2025-04-02T10:00:00Z", "2025-04-02T11:00:00Z", "weekly@cerebri.test", "20250402T100000Z"),
]
GYM_BUSY = ("2025-04-03T18:00:00Z", "2025-04-03T19:00:00Z", "gym@cerebri.test", None)


@dataclass(frozen=True)
class Seeded:
    """Alice's two calendars on the shared server, and the URL of every stored object."""

    server: RadicaleServer
    work_url: str
    home_url: str
    object_urls: dict[str, str]  # iCalendar text -> URL of the object holding it

    @property
    def principal_url(self) -> str:
        return f"{self.server.url}{USER}/"


def _rows(periods: tuple[BusyPeriod, ...]) -> list[tuple[str, str, str, str | None]]:
    return [(p.start.format(), p.end.format(), p.uid, p.recurrence_id) for p in periods]


def _uids(calendars: tuple[Calendar, ...]) -> list[str]:
    return [str(calendar.walk("VEVENT")[0]["UID"]) for calendar in calendars]


def _store(collection: caldav.Calendar, texts: tuple[str, ...]) -> dict[str, str]:
    return {text: str(collection.save_event(text).url) for text in texts}


@pytest.fixture(scope="module")
def seeded(radicale: RadicaleServer) -> Iterator[Seeded]:
    with caldav.DAVClient(radicale.url, username=USER, password=PASSWORD, timeout=10) as client:
        principal = client.principal()
        work = principal.make_calendar(name="Work", cal_id="work")
        home = principal.make_calendar(name="Home", cal_id="home")
        urls = _store(work, WORK_EVENTS) | _store(home, HOME_EVENTS)
        yield Seeded(radicale, str(work.url), str(home.url), urls)


# --------------------------------------------------------------------------- events


def test_calendar_url_reads_that_calendar_and_busy_time_matches(seeded: Seeded) -> None:
    calendars = fetch_calendars(
        seeded.work_url, WINDOW_START, WINDOW_END, username=USER, password=PASSWORD
    )
    busy = busy_periods(calendars, WINDOW_START, WINDOW_END)
    assert _rows(busy) == WORK_BUSY_UTC
    moved = [p for p in busy if p.recurrence_id == "20250331T100000Z"]
    assert [p.summary for p in moved] == ["Standup (moved)"]
    assert {p.source for p in busy} == {
        seeded.object_urls[text] for text in (SINGLE, WEEKLY, ALL_DAY, BERLIN)
    }


def test_whole_objects_of_the_whole_collection_come_back(seeded: Seeded) -> None:
    calendars = fetch_calendars(
        seeded.work_url, WINDOW_START, WINDOW_END, username=USER, password=PASSWORD
    )
    # No server time-range filter: every event object of the collection, also the February
    # one, comes back whole (master, RRULE, EXDATE, override); busy_periods does the window.
    assert sorted(_uids(calendars)) == sorted(
        str(parse_calendar(text).walk("VEVENT")[0]["UID"]) for text in WORK_EVENTS
    )
    uids = _uids(calendars)
    weekly = calendars[uids.index("weekly@cerebri.test")]
    events = weekly.walk("VEVENT")
    assert len(events) == 2
    assert any("RRULE" in event and "EXDATE" in event for event in events)
    assert any("RECURRENCE-ID" in event for event in events)
    # Transparent and cancelled events are stored data like any other: they come back and
    # busy_periods, not the transport, decides that they are not busy.
    assert {"transparent@cerebri.test", "cancelled@cerebri.test"} <= set(uids)


def test_objects_are_in_url_order(seeded: Seeded) -> None:
    calendars = fetch_calendars(
        seeded.principal_url, WINDOW_START, WINDOW_END, username=USER, password=PASSWORD
    )
    # Radicale names each object after its UID: /alice/home/gym%40cerebri.test.ics, ...
    assert _uids(calendars) == [
        "gym@cerebri.test",
        "allday@cerebri.test",
        "berlin@cerebri.test",
        "cancelled@cerebri.test",
        "holiday@cerebri.test",
        "old@cerebri.test",
        "single@cerebri.test",
        "transparent@cerebri.test",
        "weekly@cerebri.test",
    ]
    urls = [calendar_source(calendar) for calendar in calendars]
    assert urls == sorted(urls)
    assert urls[0] == seeded.object_urls[GYM]


def test_all_day_and_floating_follow_the_floating_zone(seeded: Seeded) -> None:
    calendars = fetch_calendars(
        seeded.work_url, WINDOW_START, WINDOW_END, username=USER, password=PASSWORD
    )
    berlin = _rows(busy_periods(calendars, WINDOW_START, WINDOW_END, floating_zone="Europe/Berlin"))
    assert ("2025-03-26T23:00:00Z", "2025-03-28T23:00:00Z", "allday@cerebri.test", None) in berlin
    # The all-day event of 2025-04-07 starts 2025-04-06T10:00Z at UTC+14, inside the window.
    kiritimati = _rows(
        busy_periods(calendars, WINDOW_START, WINDOW_END, floating_zone="Pacific/Kiritimati")
    )
    assert ("2025-04-06T10:00:00Z", "2025-04-07T10:00:00Z", "holiday@cerebri.test", None) in (
        kiritimati
    )


def test_principal_url_reads_every_calendar_in_url_order(seeded: Seeded) -> None:
    for url in (seeded.server.url, seeded.principal_url):
        calendars = fetch_calendars(url, WINDOW_START, WINDOW_END, username=USER, password=PASSWORD)
        busy = busy_periods(calendars, WINDOW_START, WINDOW_END)
        assert _rows(busy) == sorted([*WORK_BUSY_UTC, GYM_BUSY])
        uids = _uids(calendars)
        assert uids[0] == "gym@cerebri.test"  # /alice/home/ sorts before /alice/work/
        assert len(uids) == len(WORK_EVENTS) + len(HOME_EVENTS)


def test_another_users_principal_url_reads_their_calendars(seeded: Seeded) -> None:
    # Bob's calendar on the same server (auth "none" lets Alice reach it). Reading Bob's
    # principal URL as Alice must give Bob's busy time, never Alice's own calendars.
    server = seeded.server.url
    with caldav.DAVClient(server, username="bob", password=PASSWORD, timeout=10) as client:
        bob = client.principal().make_calendar(name="Bob", cal_id="bob-work")
        bob.save_event(_vcalendar(BOB_EVENT))
    calendars = fetch_calendars(
        f"{server}bob/", WINDOW_START, WINDOW_END, username=USER, password=PASSWORD
    )
    assert _rows(busy_periods(calendars, WINDOW_START, WINDOW_END)) == [
        ("2025-03-26T09:00:00Z", "2025-03-26T09:45:00Z", "bob@cerebri.test", None)
    ]


@pytest.mark.parametrize(
    ("name", "expected"),
    [("Home", [GYM_BUSY]), ("home", [GYM_BUSY]), ("Work", WORK_BUSY_UTC), ("work", WORK_BUSY_UTC)],
)
def test_filter_by_display_name_or_url_segment(
    seeded: Seeded, name: str, expected: list[tuple[str, str, str, str | None]]
) -> None:
    calendars = fetch_calendars(
        seeded.principal_url,
        WINDOW_START,
        WINDOW_END,
        username=USER,
        password=PASSWORD,
        calendar=name,
    )
    assert _rows(busy_periods(calendars, WINDOW_START, WINDOW_END)) == expected


def test_filter_matching_nothing_is_not_found(seeded: Seeded) -> None:
    with pytest.raises(CalDAVError) as caught:
        fetch_calendars(
            seeded.principal_url,
            WINDOW_START,
            WINDOW_END,
            username=USER,
            password=PASSWORD,
            calendar="Travel",
        )
    assert caught.value.code == "caldav.not_found"
    assert "Travel" in caught.value.message


@pytest.mark.parametrize("zone", ["UTC", "Europe/Berlin", "Pacific/Kiritimati"])
def test_same_result_as_reading_the_ics_text(seeded: Seeded, zone: str) -> None:
    fetched = fetch_calendars(
        seeded.principal_url, WINDOW_START, WINDOW_END, username=USER, password=PASSWORD
    )
    local = [
        parse_calendar(text, source=seeded.object_urls[text])
        for text in (*WORK_EVENTS, *HOME_EVENTS)
    ]
    via_caldav = busy_periods(fetched, WINDOW_START, WINDOW_END, floating_zone=zone)
    from_files = busy_periods(local, WINDOW_START, WINDOW_END, floating_zone=zone)
    assert via_caldav == from_files
    assert len(via_caldav) >= len(WORK_BUSY_UTC)


def test_window_of_the_year_before_has_no_busy_time(seeded: Seeded) -> None:
    start, end = Instant.parse("2024-06-01T00:00:00Z"), Instant.parse("2024-06-08T00:00:00Z")
    calendars = fetch_calendars(seeded.work_url, start, end, username=USER, password=PASSWORD)
    assert len(calendars) == len(WORK_EVENTS)
    assert busy_periods(calendars, start, end) == ()


# --------------------------------------------------------------------------- free/busy


def test_freebusy_query(seeded: Seeded) -> None:
    reply = fetch_freebusy(
        seeded.work_url, WINDOW_START, WINDOW_END, username=USER, password=PASSWORD
    )
    assert len(reply.walk("VFREEBUSY")) == 1
    busy = busy_periods(reply, WINDOW_START, WINDOW_END)
    assert {p.kind for p in busy} == {"freebusy"}
    # Radicale expands the series (EXDATE and override applied), leaves out the transparent
    # event, reports the cancelled one as FBTYPE=FREE (not busy), reads all-day dates in
    # UTC and merges overlapping periods: the Berlin instance of 2025-03-28 lies inside
    # the all-day conference.
    assert [(p.start.format(), p.end.format()) for p in busy] == [
        ("2025-03-25T14:00:00Z", "2025-03-25T15:30:00Z"),
        ("2025-03-26T10:00:00Z", "2025-03-26T11:00:00Z"),
        ("2025-03-27T00:00:00Z", "2025-03-29T00:00:00Z"),
        ("2025-03-29T08:00:00Z", "2025-03-29T08:30:00Z"),
        ("2025-03-30T07:00:00Z", "2025-03-30T07:30:00Z"),
        ("2025-03-31T07:00:00Z", "2025-03-31T07:30:00Z"),
        ("2025-04-01T12:00:00Z", "2025-04-01T13:00:00Z"),
        ("2025-04-02T10:00:00Z", "2025-04-02T11:00:00Z"),
    ]


def test_freebusy_needs_a_calendar_url(seeded: Seeded) -> None:
    with pytest.raises(CalDAVError) as caught:
        fetch_freebusy(
            seeded.principal_url, WINDOW_START, WINDOW_END, username=USER, password=PASSWORD
        )
    assert caught.value.code == "caldav.not_found"


# --------------------------------------------------------------------------- errors


def test_wrong_url_is_not_found(seeded: Seeded) -> None:
    missing = f"{seeded.principal_url}no-such-calendar/"
    for call in (fetch_calendars, fetch_freebusy):
        with pytest.raises(CalDAVError) as caught:
            call(missing, WINDOW_START, WINDOW_END, username=USER, password=PASSWORD)
        assert caught.value.code == "caldav.not_found"
        assert caught.value.url == missing
        assert missing in caught.value.message


def _closed_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def test_closed_port_is_unreachable() -> None:
    url = f"http://127.0.0.1:{_closed_port()}/"
    with pytest.raises(CalDAVError) as caught:
        fetch_calendars(url, WINDOW_START, WINDOW_END, timeout_seconds=5)
    assert caught.value.code == "caldav.unreachable"
    assert caught.value.url == url
    assert url in caught.value.message


def test_silent_server_is_unreachable_after_the_timeout() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(1)  # connections complete in the kernel; nothing ever answers
        url = f"http://127.0.0.1:{silent.getsockname()[1]}/"
        with pytest.raises(CalDAVError) as caught:
            fetch_calendars(url, WINDOW_START, WINDOW_END, timeout_seconds=0.3)
    assert caught.value.code == "caldav.unreachable"


def test_bad_password_is_unauthorized(radicale_htpasswd: RadicaleServer) -> None:
    server = radicale_htpasswd
    assert server.username is not None and server.password is not None
    with caldav.DAVClient(
        server.url, username=server.username, password=server.password, timeout=10
    ) as client:
        client.principal().make_calendar(name="Private", cal_id="private").save_event(SINGLE)
    calendar_url = f"{server.url}{server.username}/private/"
    wrong = "Wrong-Guess-99"
    for call in (fetch_calendars, fetch_freebusy):
        with pytest.raises(CalDAVError) as caught:
            call(calendar_url, WINDOW_START, WINDOW_END, username=server.username, password=wrong)
        assert caught.value.code == "caldav.unauthorized"
        assert wrong not in str(caught.value)
    in_url = calendar_url.replace("://", f"://{server.username}:{wrong}@")
    with pytest.raises(CalDAVError) as caught:
        fetch_calendars(in_url, WINDOW_START, WINDOW_END)
    assert caught.value.code == "caldav.unauthorized"
    assert wrong not in str(caught.value)
    assert caught.value.url == calendar_url
    with pytest.raises(CalDAVError) as caught:
        fetch_calendars(calendar_url, WINDOW_START, WINDOW_END)  # no credentials at all
    assert caught.value.code == "caldav.unauthorized"
    calendars = fetch_calendars(
        calendar_url, WINDOW_START, WINDOW_END, username=server.username, password=server.password
    )
    assert _rows(busy_periods(calendars, WINDOW_START, WINDOW_END)) == [WORK_BUSY_UTC[0]]


class _StubHandler(http.server.BaseHTTPRequestHandler):
    """A calendar collection that answers PROPFIND and refuses REPORT with ``status``."""

    report_status: ClassVar[int] = 501
    propfind_status: ClassVar[int] = 207

    def _reply(self, status: int, body: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_PROPFIND(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        body = (
            b'<?xml version="1.0"?><D:multistatus xmlns:D="DAV:" '
            b'xmlns:C="urn:ietf:params:xml:ns:caldav"><D:response><D:href>/cal/</D:href>'
            b"<D:propstat><D:prop><D:resourcetype><D:collection/><C:calendar/>"
            b"</D:resourcetype></D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat>"
            b"</D:response></D:multistatus>"
        )
        if self.propfind_status != 207:
            body = b"<html>no</html>"
        self._reply(self.propfind_status, body, "application/xml")

    def do_REPORT(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        self._reply(self.report_status, b"not here", "text/plain")

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def stub() -> Iterator[tuple[str, type[_StubHandler]]]:
    handler = type("Handler", (_StubHandler,), {})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/cal/", handler
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def test_freebusy_refused_by_the_server_is_unsupported(
    stub: tuple[str, type[_StubHandler]],
) -> None:
    url, handler = stub
    for status in (501, 405):
        handler.report_status = status
        with pytest.raises(CalDAVError) as caught:
            fetch_freebusy(url, WINDOW_START, WINDOW_END, timeout_seconds=5)
        assert caught.value.code == "caldav.unsupported"


def test_other_server_failures_are_protocol_errors(stub: tuple[str, type[_StubHandler]]) -> None:
    url, handler = stub
    handler.report_status = 500
    with pytest.raises(CalDAVError) as caught:
        fetch_calendars(url, WINDOW_START, WINDOW_END, timeout_seconds=5)
    assert caught.value.code == "caldav.protocol"
    handler.propfind_status = 500
    with pytest.raises(CalDAVError) as caught:
        fetch_freebusy(url, WINDOW_START, WINDOW_END, timeout_seconds=5)
    assert caught.value.code == "caldav.protocol"
    assert isinstance(caught.value, CerebriError)
    assert caught.value.to_wire()["code"] == "caldav.protocol"


# --------------------------------------------------------------------------- arguments


@pytest.mark.parametrize(
    ("url", "start", "end", "timeout"),
    [
        ("ftp://127.0.0.1/", WINDOW_START, WINDOW_END, 1.0),
        ("127.0.0.1/cal/", WINDOW_START, WINDOW_END, 1.0),
        ("http://127.0.0.1/", WINDOW_END, WINDOW_START, 1.0),
        ("http://127.0.0.1/", WINDOW_START, WINDOW_END, 0.0),
        ("http://127.0.0.1/", WINDOW_START, WINDOW_END, float("inf")),
    ],
)
def test_malformed_arguments_raise_value_error(
    url: str, start: Instant, end: Instant, timeout: float
) -> None:
    with pytest.raises(ValueError):
        fetch_calendars(url, start, end, timeout_seconds=timeout)
    with pytest.raises(ValueError):
        fetch_freebusy(url, start, end, timeout_seconds=timeout)
