"""find-slot never offers a start that overlaps a busy instance (issue #11, "Must show").

Hypothesis writes calendars with single events, daily and weekly series (``COUNT``,
``UNTIL``, ``EXDATE``), ``RECURRENCE-ID`` overrides that move an instance near or far
(into or out of the window, or cancel it), cancelled and transparent events, in zones whose
clocks change inside the window (Europe/Berlin on 2026-10-25). The busy instances are
expanded here, independently of cerebri (plain ``zoneinfo`` arithmetic on wall-clock times,
RFC 5545 section 3.3.10), and the expected candidates are every grid start whose meeting
overlaps none of them. The same calendar is read as text and over CalDAV from Radicale and
from Xandikos (servers started by ``conftest.py``), and every answer must equal the expected
set exactly: no busy start offered, no free start lost.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import caldav
import pytest
from hypothesis import HealthCheck, example, given, settings

from cerebri.calendars import SlotQuery, find_slot
from cerebri.ics import parse_calendar
from cerebri.integrations import fetch_calendars
from cerebri.temporal import Instant
from tests.integrations.conftest import DavServer
from tests.strategies import CalendarEvent as Event
from tests.strategies import Series, Single, caldav_events
from tests.strategies import local_day as _day

WINDOW_START = datetime(2026, 10, 24, tzinfo=UTC)
WINDOW_END = datetime(2026, 10, 27, tzinfo=UTC)
DURATION = timedelta(minutes=60)
GRID = timedelta(minutes=15)


def _aware(local: datetime, zone: str) -> datetime:
    return local.replace(tzinfo=ZoneInfo(zone)).astimezone(UTC)


def _local_text(local: datetime) -> str:
    return local.strftime("%Y%m%dT%H%M%S")


def _utc_text(instant: datetime) -> str:
    return instant.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")


def _dt(name: str, local: datetime, zone: str, written_in: str | None = None) -> str:
    if written_in is not None and written_in != zone:  # the same instant in another zone
        instant = _aware(local, zone)
        local = instant.astimezone(ZoneInfo(written_in)).replace(tzinfo=None)
        zone = written_in
    if zone == "UTC":
        return f"{name}:{_utc_text(_aware(local, zone))}"
    return f"{name};TZID={zone}:{_local_text(local)}"


def _instances(series: Series) -> Iterator[tuple[int, datetime]]:
    """``(index, local start)`` of the rule's instances, up to COUNT/UNTIL or 120 of them."""
    limit = series.count if series.count is not None else 120
    for index in range(limit):
        local = series.start + timedelta(days=index * series.step_days)
        if series.until_index is not None and index > series.until_index:
            return
        yield index, local


def _texts(event: Event) -> list[str]:
    """The VEVENT components of one UID (a master and its overrides)."""
    if isinstance(event, Single):
        lines = [
            f"UID:{event.uid}",
            "DTSTAMP:20260901T000000Z",
            _dt("DTSTART", event.start, event.zone),
            _dt("DTEND", event.start + timedelta(minutes=event.minutes), event.zone),
        ]
        if event.status:
            lines.append(f"STATUS:{event.status}")
        if event.transparent:
            lines.append("TRANSP:TRANSPARENT")
        return ["\n".join(lines)]
    rule = f"RRULE:FREQ={'DAILY' if event.step_days == 1 else 'WEEKLY'}"
    if event.count is not None:
        rule += f";COUNT={event.count}"
    if event.until_index is not None:
        last = event.start + timedelta(days=event.until_index * event.step_days)
        until = _aware(last, event.zone)
        rule += f";UNTIL={_utc_text(until)}"
    master = [
        f"UID:{event.uid}",
        "DTSTAMP:20260901T000000Z",
        _dt("DTSTART", event.start, event.zone),
        _dt("DTEND", event.start + timedelta(minutes=event.minutes), event.zone),
        rule,
    ]
    starts = dict(_instances(event))
    for index in sorted(event.exdates):
        if index in starts:  # the instant of an instance, maybe in another zone
            master.append(_dt("EXDATE", starts[index], event.zone, event.value_zone))
    components = ["\n".join(master)]
    for index, new_start in event.moved:
        if index not in starts or index in event.exdates:
            continue
        lines = [
            f"UID:{event.uid}",
            "DTSTAMP:20260901T000000Z",
            _dt("RECURRENCE-ID", starts[index], event.zone, event.value_zone),
        ]
        if new_start is None:
            lines += [
                _dt("DTSTART", starts[index], event.zone),
                _dt("DTEND", starts[index] + timedelta(minutes=event.minutes), event.zone),
                "STATUS:CANCELLED",
            ]
        else:
            lines += [
                _dt("DTSTART", new_start, event.zone),
                _dt("DTEND", new_start + timedelta(minutes=event.minutes), event.zone),
            ]
        components.append("\n".join(lines))
    if event.future is not None and event.future[0] in starts:
        index, shift = event.future
        original = starts[index]
        lines = [
            f"UID:{event.uid}",
            "DTSTAMP:20260901T000000Z",
            _dt("RECURRENCE-ID;RANGE=THISANDFUTURE", original, event.zone),
            _dt("DTSTART", original + shift, event.zone),
            _dt("DTEND", original + shift + timedelta(minutes=event.minutes), event.zone),
        ]
        components.append("\n".join(lines))
    return components


def _vcalendar(components: list[str]) -> str:
    body = "".join(f"BEGIN:VEVENT\n{text}\nEND:VEVENT\n" for text in components)
    return f"BEGIN:VCALENDAR\nVERSION:2.0\nPRODID:-//cerebri tests//EN\n{body}END:VCALENDAR\n"


def _busy(event: Event) -> list[tuple[datetime, datetime]]:
    """Busy ``[start, end)`` UTC intervals of one UID, expanded here (not by cerebri)."""
    if isinstance(event, Single):
        if event.status == "CANCELLED" or event.transparent:
            return []
        start = _aware(event.start, event.zone)
        end = _aware(event.start + timedelta(minutes=event.minutes), event.zone)
        return [(start, end)]
    moved = dict(event.moved)
    starts = dict(_instances(event))
    length = timedelta(minutes=event.minutes)  # each DTEND is DTSTART + length, wall clock
    master_exact = _aware(event.start + length, event.zone) - _aware(event.start, event.zone)
    busy: list[tuple[datetime, datetime]] = []
    for index, local in _instances(event):
        if index in event.exdates:
            continue
        # DTEND-defined instances keep the exact duration of the component that defines
        # them (RFC 5545 section 3.8.5.3): the master's, a single override's own DTSTART to
        # DTEND, or the THISANDFUTURE override's for the instances it moves.
        if index in moved:
            actual = moved[index]
            if actual is None:  # the override cancels this instance
                continue
            busy.append((_aware(actual, event.zone), _aware(actual + length, event.zone)))
            continue
        if event.future is not None and index >= event.future[0]:
            first, shift = event.future
            anchor = starts[first] + shift
            exact = _aware(anchor + length, event.zone) - _aware(anchor, event.zone)
            start = _aware(local + shift, event.zone)
            busy.append((start, start + exact))
            continue
        start = _aware(local, event.zone)
        busy.append((start, start + master_exact))
    return busy


def _expected(events: list[Event]) -> list[datetime]:
    busy = [interval for event in events for interval in _busy(event)]
    starts: list[datetime] = []
    start = WINDOW_START
    while start + DURATION <= WINDOW_END:
        end = start + DURATION
        if not any(b_start < end and start < b_end for b_start, b_end in busy if b_start < b_end):
            starts.append(start)
        start += GRID
    return starts


# Cases the issue reports, as explicit examples: a series that ended before the window whose
# THISANDFUTURE override (itself before the window) shifts its last instances five days into
# it, and one with an
# instance moved into the window from months back.
SHIFTED_INTO_WINDOW = [
    Series(
        "shifted@prop",
        "Europe/Berlin",
        _day(-12, 10, 0),
        60,
        1,
        10,
        None,
        frozenset(),
        (),
        (2, timedelta(days=5)),
    )
]
MOVED_FROM_FAR = [
    Series(
        "old@prop",
        "UTC",
        _day(-200, 9, 0),
        30,
        7,
        4,
        None,
        frozenset(),
        ((2, _day(1, 11, 0)),),
    )
]


def _query() -> SlotQuery:
    return SlotQuery(
        window_start=Instant.from_datetime(WINDOW_START),
        window_end=Instant.from_datetime(WINDOW_END),
        duration_seconds=int(DURATION.total_seconds()),
        granularity_seconds=int(GRID.total_seconds()),
        zone="Europe/Berlin",
    )


def _offered(calendars: list[tuple[str, object]]) -> list[datetime]:
    _, result = find_slot(calendars, _query())  # type: ignore[arg-type]
    return sorted(candidate.start.to_datetime() for candidate in result.candidates)


# ----------------------------------------------------------------------------- tests


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(events=caldav_events())
@example(events=SHIFTED_INTO_WINDOW)
@example(events=MOVED_FROM_FAR)
def test_read_as_a_file_offers_exactly_the_free_starts(events: list[Event]) -> None:
    text = _vcalendar([part for event in events for part in _texts(event)])
    calendar = parse_calendar(text, source="generated.ics")
    assert _offered([("generated", calendar)]) == _expected(events)


_collections = itertools.count()


@pytest.fixture
def principal(dav_server: DavServer) -> Iterator[tuple[DavServer, caldav.Principal]]:
    with caldav.DAVClient(
        dav_server.url, username=dav_server.username, password=dav_server.password, timeout=10
    ) as client:
        yield dav_server, client.principal()


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(events=caldav_events())
@example(events=SHIFTED_INTO_WINDOW)
@example(events=MOVED_FROM_FAR)
def test_read_over_caldav_offers_exactly_the_free_starts(
    principal: tuple[DavServer, caldav.Principal], events: list[Event]
) -> None:
    server, home = principal
    name = f"prop-{next(_collections)}-{os.getpid()}"
    collection = home.make_calendar(name=name, cal_id=name)
    for event in events:  # one calendar object resource per UID (RFC 4791 section 4.1)
        collection.save_event(_vcalendar(_texts(event)))
    fetched = fetch_calendars(
        str(collection.url),
        Instant.from_datetime(WINDOW_START),
        Instant.from_datetime(WINDOW_END),
        username=server.username,
        password=server.password,
        cache=False,
    )
    offered = _offered([(name, calendar) for calendar in fetched])
    assert offered == _expected(events)
    # The same text read as one file gives the same answer.
    text = _vcalendar([part for event in events for part in _texts(event)])
    assert _offered([(name, parse_calendar(text))]) == offered
