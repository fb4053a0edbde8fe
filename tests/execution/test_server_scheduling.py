"""Detecting a CalDAV server that schedules by itself (RFC 6638, decision 0068).

The probe (``CalDavCalendar.schedules``) is measured on the three servers the tests start,
and on Cyrus with its own scheduling turned on (``caldav_allowscheduling: on``), where a
worker with no ``--server-schedules`` leaves the messages and the attendees' copies to the
server and Cyrus itself delivers the invitation into bob's default calendar, once.
"""

from __future__ import annotations

import contextlib
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from caldav.davclient import DAVClient
from caldav.lib.error import NotFoundError
from icalendar import Calendar

from cerebri.clock import FakeClock
from cerebri.execution.adapters import Adapters, Invocation, default_adapters
from cerebri.execution.adapters.caldav_calendar import CalDavCalendar
from cerebri.execution.adapters.itip_delivery import with_itip_delivery
from cerebri.integrations.credentials import CalDAVLogins
from cerebri.temporal import Instant
from tests._dav_servers import CalDavServer, start

CLOCK_START = "2026-12-03T09:00:00Z"
UID = "probe-0068@example.com"


def _event(organizer: str, attendee: str, *, uid: str = UID, sequence: int = 0) -> str:
    """One organizer's object with one attendee, written out by hand (RFC 5545)."""
    lines = [
        "BEGIN:VCALENDAR",
        "VERSION:2.0",
        "PRODID:-//cerebri tests//0068//EN",
        "BEGIN:VEVENT",
        f"UID:{uid}",
        "DTSTAMP:20261203T090000Z",
        "DTSTART:20261210T100000Z",
        "DTEND:20261210T110000Z",
        "SUMMARY:Probe",
        f"SEQUENCE:{sequence}",
        f"ORGANIZER:{organizer}",
        f"ATTENDEE;PARTSTAT=ACCEPTED:{organizer}",
        f"ATTENDEE;PARTSTAT=NEEDS-ACTION;RSVP=TRUE:{attendee}",
        "END:VEVENT",
        "END:VCALENDAR",
        "",
    ]
    return "\r\n".join(lines)


def _put(server: CalDavServer, user: str, url: str, body: str) -> None:
    with server.client(user) as client:
        response = client.request(
            url, "PUT", body, {"Content-Type": "text/calendar", "If-None-Match": "*"}
        )
    assert response.status in (201, 204), response.status


def _adapter(server: CalDavServer, calendars: dict[str, str]) -> CalDavCalendar:
    account = server.account("alice")
    return CalDavCalendar(
        calendars,
        FakeClock(Instant.parse(CLOCK_START)),
        username=account.user,
        password=account.password,
    )


def _addresses(server: CalDavServer, user: str) -> list[str]:
    """The principal's ``calendar-user-address-set`` read with the ``caldav`` library."""
    with server.client(user) as client:
        try:
            return [a for a in client.principal().calendar_user_address_set() if a]
        except NotFoundError:  # a server without the property: no address
            return []


def test_the_matrix_servers_do_not_schedule_cerebris_events(dav_matrix: CalDavServer) -> None:
    """Radicale does not advertise ``calendar-auto-schedule``; Xandikos does (with an
    inbox and outbox) but its principals have no address, so no event of theirs is a
    scheduling object; the tests' Cyrus has scheduling off. So every e2e test there
    keeps cerebri's own delivery (one message and one copy per attendee)."""
    calendar = dav_matrix.new_calendar("alice", "probe")
    with dav_matrix.client("alice") as client:
        header = client.options(calendar).headers.get("DAV", "")
    advertised = "calendar-auto-schedule" in header
    assert advertised == (dav_matrix.name == "xandikos")
    adapter = _adapter(dav_matrix, {"work": calendar})
    own = _addresses(dav_matrix, "alice")
    for organizer in ("mailto:alice@example.com", *own):
        assert adapter.schedules("work", organizer) is False


@pytest.fixture(scope="module")
def scheduling_cyrus() -> Iterator[CalDavServer]:
    """Cyrus with ``caldav_allowscheduling: on`` (its own folder, stopped after)."""
    folder = Path(tempfile.mkdtemp(prefix="cerebri-test-sched-"))
    servers = start("cyrus", folder, scheduling=True)
    yield next(servers)
    with contextlib.suppress(StopIteration):
        next(servers)


def _invoke(adapters: Adapters, capability: str, params: dict[str, Any]) -> Any:
    adapter = adapters.get(capability)
    assert adapter is not None
    target = params.get("recipient", params["uid"])
    return adapter.invoke(Invocation(capability, target, params, "plan_step:s", "k:1"))


def _copy_params(attendee: str) -> dict[str, Any]:
    return {
        "calendar_id": "bob",
        "organizer_calendar_id": "work",
        "uid": UID,
        "method": "REQUEST",
        "sequence": 0,
        "attendee": attendee,
        "idempotency_key": "probe-copy",
    }


def _uids(client: DAVClient, url: str) -> list[str]:
    calendar = client.calendar(url=url)
    return sorted(str(o.icalendar_component.get("UID")) for o in calendar.events())


def test_cyrus_with_scheduling_on_is_left_to_deliver(
    scheduling_cyrus: CalDavServer, tmp_path: Path
) -> None:
    """Detection says yes for alice's own address only; the worker's default (no
    ``--server-schedules``) then sends nothing and writes no copy, and Cyrus delivers the
    invitation into bob's default calendar by itself, once; bob's calendar that the plan
    named stays empty (decision 0057's limit)."""
    server = scheduling_cyrus
    alice, bob = _addresses(server, "alice"), _addresses(server, "bob")
    assert alice == ["mailto:alice@internal"] and bob == ["mailto:bob@internal"]
    work, bobs = server.new_calendar("alice", "work"), server.new_calendar("bob", "att")
    with server.client("alice") as client:
        assert "calendar-auto-schedule" in client.options(work).headers["DAV"]
    adapter = _adapter(server, {"work": work})
    assert adapter.schedules("work", "mailto:alice@internal") is True
    assert adapter.schedules("work", "MAILTO:Alice@Internal") is True  # no case (RFC 6638)
    assert adapter.schedules("work", "mailto:alice@example.com") is False

    _put(server, "alice", f"{work}probe.ics", _event(alice[0], bob[0]))
    clock = FakeClock(Instant.parse(CLOCK_START))
    logins = CalDAVLogins.load(
        credentials_file=server.write_credentials(tmp_path / "logins.json"),
        username=None,
        password=None,
        environ={},
        home=None,
    )
    base = default_adapters(
        clock, caldav_calendars={"work": work, "bob": bobs}, caldav_logins=logins
    )
    adapters = with_itip_delivery(base, clock, outbox=tmp_path / "outbox")
    sent = _invoke(
        adapters,
        "message.itip.send",
        {
            "calendar_id": "work",
            "uid": UID,
            "recurrence_id": None,
            "method": "REQUEST",
            "sequence": 0,
            "recipient": bob[0],
            "organizer": alice[0],
            "attendees": [
                {"address": alice[0], "name": None, "required": True, "status": "ACCEPTED"},
                {"address": bob[0], "name": None, "required": True, "status": "NEEDS-ACTION"},
            ],
            "idempotency_key": "probe-send",
        },
    )
    assert (sent["delivery"], sent["sent"]) == ("server", False)
    copied = _invoke(adapters, "calendar.itip.deliver", _copy_params(bob[0]))
    assert (copied["outcome"], copied["written"], copied["delivery"]) == (
        "left_to_server",
        False,
        "server",
    )
    with server.client("bob") as client:
        assert _uids(client, bobs) == []  # cerebri wrote nothing there
        default = f"{server.account('bob').home_url}Default/"
        for _ in range(50):  # Cyrus delivers as the PUT is answered; allow it a moment
            if _uids(client, default):
                break
            time.sleep(0.1)
        assert _uids(client, default) == [UID]  # the server's one delivery


def test_forced_client_delivery_silences_a_scheduling_server(
    scheduling_cyrus: CalDavServer,
) -> None:
    """``--no-server-schedules`` (``client_schedules``): every write of an event the server
    would schedule carries ``SCHEDULE-AGENT=CLIENT`` on each ``ATTENDEE`` (RFC 6638 7.1),
    and Cyrus then delivers nothing into bob's calendars; the caller's object is not
    touched."""
    server = scheduling_cyrus
    work = server.new_calendar("alice", "forced")
    account = server.account("alice")
    adapter = CalDavCalendar(
        {"work": work},
        FakeClock(Instant.parse(CLOCK_START)),
        username=account.user,
        password=account.password,
        client_schedules=True,
    )
    uid = "forced-0068@example.com"
    content = Calendar.from_ical(_event("mailto:alice@internal", "mailto:bob@internal", uid=uid))
    before = content.to_ical()
    adapter.write_copy("work", uid, content, None)
    assert content.to_ical() == before
    stored = adapter.read_copy("work", uid)
    assert stored is not None
    people = stored.calendar.walk("VEVENT")[0].get("ATTENDEE")
    assert sorted((str(p), str(p.params.get("SCHEDULE-AGENT"))) for p in people) == [
        ("mailto:alice@internal", "CLIENT"),
        ("mailto:bob@internal", "CLIENT"),
    ]
    time.sleep(1)  # what Cyrus delivers, it delivers as the PUT is answered
    with server.client("bob") as client:
        default = f"{server.account('bob').home_url}Default/"
        assert uid not in _uids(client, default)
    # an event organized by someone the server does not schedule for is left as it is
    other = "other-0068@example.com"
    foreign = Calendar.from_ical(
        _event("mailto:alice@example.com", "mailto:bob@example.com", uid=other)
    )
    adapter.write_copy("work", other, foreign, None)
    stored = adapter.read_copy("work", other)
    assert stored is not None
    assert all(
        "SCHEDULE-AGENT" not in p.params for p in stored.calendar.walk("VEVENT")[0]["ATTENDEE"]
    )
