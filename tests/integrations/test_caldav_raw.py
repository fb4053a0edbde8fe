"""CalDAV reads the text the server sent, byte for byte (after XML decoding) - no rewriting.

The ``caldav`` library's ``vcal.fix()`` drops the later of ``DTEND``/``DURATION`` and
restarts its bookkeeping at every ``BEGIN:``, a ``VALARM`` included; text read through
``Calendar.multiget(...).data`` is rewritten that way. These tests serve fixed bytes from a
stub server (:mod:`tests.integrations.stub_dav`) and compare the CalDAV answer with the
``.ics`` reading of the same bytes and with instants written by hand. Objects without
calendar data (a 0-byte resource) are also covered here.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import caldav
import pytest

from cerebri.ics import busy_periods, calendar_incomplete, parse_calendar, warnings_of
from cerebri.integrations import CalDAVError, CalendarCache, fetch_calendars_with_report
from cerebri.temporal import Instant
from tests.integrations.conftest import DavServer
from tests.integrations.stub_dav import StubCalendar, serving

START = Instant.parse("2026-10-05T00:00:00Z")
END = Instant.parse("2026-10-06T00:00:00Z")

_HEAD = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//cerebri tests//raw//EN\r\n"
_TAIL = "END:VCALENDAR\r\n"


def _crlf(*lines: str) -> bytes:
    return (_HEAD + "".join(f"{line}\r\n" for line in lines) + _TAIL).encode("utf-8")


# A VALARM with a DURATION before the event's DTEND: fix() drops the DTEND.
ALARM_FIRST = _crlf(
    "BEGIN:VEVENT",
    "UID:alarmfirst",
    "DTSTAMP:20260101T000000Z",
    "DTSTART:20261005T140000Z",
    "BEGIN:VALARM",
    "ACTION:DISPLAY",
    "DESCRIPTION:x",
    "TRIGGER:-PT15M",
    "DURATION:PT5M",
    "REPEAT:2",
    "END:VALARM",
    "DTEND:20261005T170000Z",
    "END:VEVENT",
)
# DTEND and DURATION both (RFC 5545 allows one) and disagreeing: cerebri reads the later end
# (DTSTART + PT3H = 12:00Z, never offering DURATION-only busy time as free) and warns.
BOTH = _crlf(
    "BEGIN:VEVENT",
    "UID:both",
    "DTSTAMP:20260101T000000Z",
    "DTSTART:20261005T090000Z",
    "DURATION:PT3H",
    "DTEND:20261005T100000Z",
    "END:VEVENT",
)
PLAIN = _crlf(
    "BEGIN:VEVENT",
    "UID:plain",
    "DTSTAMP:20260101T000000Z",
    "DTSTART:20261005T200000Z",
    "DTEND:20261005T203000Z",
    "END:VEVENT",
)

# By hand, UTC: the alarm-first event runs 14:00-17:00; the other to its later end (12:00).
EXPECTED = [
    ("2026-10-05T09:00:00Z", "2026-10-05T12:00:00Z", "both"),
    ("2026-10-05T14:00:00Z", "2026-10-05T17:00:00Z", "alarmfirst"),
    ("2026-10-05T20:00:00Z", "2026-10-05T20:30:00Z", "plain"),
]


@pytest.fixture
def stub() -> Iterator[StubCalendar]:
    members = {"alarmfirst.ics": ALARM_FIRST, "both.ics": BOTH, "plain.ics": PLAIN}
    with serving(StubCalendar(members)) as calendar:
        yield calendar


def _rows(calendars: object) -> list[tuple[str, str, str]]:
    periods = busy_periods(calendars, START, END)  # type: ignore[arg-type]
    return [(p.start.format(), p.end.format(), p.uid) for p in periods]


@pytest.mark.parametrize("sync_collection", [True, False], ids=["sync-collection", "etag"])
@pytest.mark.parametrize("cached", [False, True], ids=["no-cache", "cache"])
def test_caldav_reads_the_bytes_the_server_sent(
    stub: StubCalendar, tmp_path: Path, sync_collection: bool, cached: bool
) -> None:
    cache: CalendarCache | bool = CalendarCache(tmp_path / "c") if cached else False
    for _ in range(2 if cached else 1):  # with a cache, the second read comes from it
        result = fetch_calendars_with_report(
            stub.url, START, END, cache=cache, sync_collection=sync_collection, timeout_seconds=5
        )
        assert _rows(result.calendars) == EXPECTED
        local = [
            parse_calendar(stub.members[name].decode("utf-8"), source=stub.object_url(name))
            for name in sorted(stub.members)
        ]
        assert busy_periods(result.calendars, START, END) == busy_periods(local, START, END)
        # The lenient reading's warning survives the transport, with the object's URL.
        found = warnings_of(result.calendars)
        assert found == warnings_of(local)
        assert [(w.code, w.uid, w.source) for w in found] == [
            ("ics.lenient", "both", stub.object_url("both.ics"))
        ]
        assert "DURATION is read, DTEND ignored" in found[0].message
    if cached:
        assert result.collections[0].fetched == ()


# --------------------------------------------------------------------------- no calendar data


def test_object_without_calendar_data_fails_naming_its_url(stub: StubCalendar) -> None:
    stub.members["empty.ics"] = b""
    with pytest.raises(CalDAVError) as caught:
        fetch_calendars_with_report(stub.url, START, END, cache=False, timeout_seconds=5)
    assert caught.value.code == "caldav.protocol"
    assert caught.value.url == stub.object_url("empty.ics")
    assert stub.object_url("empty.ics") in caught.value.message
    assert "--skip-invalid-events" in caught.value.message


def test_object_without_calendar_data_is_skipped_on_request(
    stub: StubCalendar, tmp_path: Path
) -> None:
    stub.members["empty.ics"] = b""
    cache = CalendarCache(tmp_path / "c")
    for _ in range(2):  # the second read finds the empty object in the cache
        result = fetch_calendars_with_report(
            stub.url, START, END, cache=cache, skip_invalid_events=True, timeout_seconds=5
        )
        assert _rows(result.calendars) == EXPECTED  # the readable events stay busy
        found = [
            (w.code, w.uid, w.source)
            for w in warnings_of(result.calendars)
            if w.code == "ics.skipped_event"
        ]
        assert found == [("ics.skipped_event", None, stub.object_url("empty.ics"))]
        assert [calendar_incomplete(c) for c in result.calendars].count(True) == 1
    assert result.collections[0].fetched == ()

    from cerebri.calendars import freebusy
    from cerebri.integrations.caldav_reader import load_sources

    loaded = load_sources([], [stub.url], (START, END), skip_invalid_events=True)
    view = freebusy([calendar for _, calendar in loaded], START, END)
    assert view.complete is False
    assert "ics.skipped_event" in [w.code for w in view.warnings]


# --------------------------------------------------------------------------- real servers


@pytest.fixture
def raw_calendar(dav_server: DavServer) -> Iterator[tuple[caldav.Calendar, dict[str, str]]]:
    """A calendar holding the objects the server accepts, PUT as bytes: ``uid -> URL``.

    Radicale refuses ``BOTH`` (400: "cannot contain both DTEND and DURATION") and stores
    ``ALARM_FIRST`` re-serialised; Xandikos stores both as sent.
    """
    with caldav.DAVClient(
        dav_server.url, username=dav_server.username, password=dav_server.password, timeout=10
    ) as client:
        name = f"raw-{dav_server.name}"
        collection = client.principal().make_calendar(name=name, cal_id=name)
        urls: dict[str, str] = {}
        for uid, data in (("alarmfirst", ALARM_FIRST), ("both", BOTH)):
            url = str(collection.url.join(f"{uid}.ics"))
            # PUT the bytes as they are (caldav's save_event would run vcal.fix() first).
            put = client.put(url, data.decode("utf-8"), {"Content-Type": "text/calendar"})
            if put.status in (201, 204):
                urls[uid] = url
        yield collection, urls
        collection.delete()


_ACCEPTED = {"radicale": ["alarmfirst"], "xandikos": ["alarmfirst", "both"]}


def test_real_servers_text_is_read_as_sent(
    dav_server: DavServer, raw_calendar: tuple[caldav.Calendar, dict[str, str]]
) -> None:
    collection, urls = raw_calendar
    assert sorted(urls) == _ACCEPTED[dav_server.name]
    result = fetch_calendars_with_report(
        str(collection.url), START, END, username=dav_server.username, cache=False
    )
    # What the server returns on a plain GET, read as an .ics file.
    local = []
    for uid in sorted(urls):
        event = collection.event_by_url(urls[uid])
        event.load()
        assert event.raw_data is not None
        assert b"DTEND:20261005T" in event.raw_data  # the DTEND line is kept
        local.append(parse_calendar(event.raw_data.decode("utf-8"), source=str(event.url)))
    assert busy_periods(result.calendars, START, END) == busy_periods(local, START, END)
    assert _rows(result.calendars) == [row for row in EXPECTED if row[2] in urls]
    expected_warnings = [("ics.lenient", "both")] if "both" in urls else []
    assert [(w.code, w.uid) for w in warnings_of(result.calendars)] == expected_warnings
