"""CalDavCalendar against a real Radicale (decision 0024).

Every test gets its own empty collection. What is on the server is read back independently
with the ``caldav`` library (listing the collection, parsing each object with ``icalendar``),
never through the adapter under test.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any, ClassVar

import icalendar
import pytest
from caldav.collection import Calendar as DAVCalendar
from caldav.davclient import DAVClient
from typer.testing import CliRunner

from cerebri.cli import app
from cerebri.clock import FakeClock
from cerebri.execution.adapters import AdapterError, CalDavCalendar, Invocation, default_adapters
from cerebri.execution.adapters.caldav_calendar import resource_name
from cerebri.temporal import Instant
from tests._radicale import RadicaleServer, free_port, serve

NOW = Instant.parse("2026-12-01T08:00:00Z")
USER = "bob"
_numbers = itertools.count(1)


@dataclass
class Scene:
    """One empty collection, the adapter on it, and an independent client."""

    dav: DAVCalendar
    url: str
    adapter: CalDavCalendar

    def objects(self) -> list[icalendar.Calendar]:
        """Every object in the collection, parsed by icalendar."""
        return [icalendar.Calendar.from_ical(o.data) for o in self.dav.events()]

    def uids(self) -> list[str]:
        """The UID of every VEVENT on the server (one per object and UID)."""
        return sorted(str(e["UID"]) for obj in self.objects() for e in obj.walk("VEVENT"))

    def event(self, uid: str) -> Any:
        """The one VEVENT with ``uid`` on the server."""
        found = [e for obj in self.objects() for e in obj.walk("VEVENT") if str(e["UID"]) == uid]
        assert len(found) == 1, found
        return found[0]

    def etag(self, name: str) -> str:
        """The ``ETag`` the server gives for resource ``name`` (a GET of its own)."""
        client = self.dav.client
        assert client is not None
        answer = client.request(f"{self.url}{name}", "GET")
        assert answer.status == 200, answer.status
        return str(answer.headers["ETag"])

    def put_foreign(self, uid: str, start: str, end: str, **extra: str) -> None:
        """An event written by another client, under a resource name of its own."""
        lines = [
            "BEGIN:VCALENDAR",
            "VERSION:2.0",
            "PRODID:-//another client//EN",
            "BEGIN:VEVENT",
            f"UID:{uid}",
            "DTSTAMP:20261201T000000Z",
            f"DTSTART:{start}",
            f"DTEND:{end}",
            *(f"{k}:{v}" for k, v in extra.items()),
            "END:VEVENT",
            "END:VCALENDAR",
            "",
        ]
        # a raw PUT (the library's save_event would bump SEQUENCE)
        client = self.dav.client
        assert client is not None
        name = f"foreign-{len(self.objects())}.ics"
        headers = {"Content-Type": "text/calendar; charset=utf-8"}
        answer = client.put(f"{self.url}{name}", "\r\n".join(lines), headers)
        assert answer.status in (201, 204), answer.status


@pytest.fixture
def scene(radicale: RadicaleServer) -> Iterator[Scene]:
    client = DAVClient(url=radicale.url, username=USER, password="unused")
    name = f"cal{next(_numbers)}"
    dav = client.principal().make_calendar(name=name, cal_id=name)
    url = str(dav.url)
    adapter = CalDavCalendar({"work": url}, FakeClock(NOW), username=USER, password="unused")
    yield Scene(dav, url, adapter)
    dav.delete()
    client.close()


def _event(**changes: Any) -> dict[str, Any]:
    return {
        "calendar_id": "work",
        "integration_id": "dav",
        "object_id": "e1",
        "start": "2026-12-02T10:00:00Z",
        "end": "2026-12-02T11:00:00Z",
        "idempotency_key": "k1",
        **changes,
    }


def _call(scene: Scene, capability: str, attempt: int = 0, **params: Any) -> dict[str, Any]:
    invocation = Invocation(
        capability,
        params.get("object_id"),
        params,
        origin="plan_step:s1",
        idempotency_key=f"p1:1:s1:{attempt}",
    )
    return scene.adapter.invoke(invocation)


def _fails(scene: Scene, capability: str, **params: Any) -> AdapterError:
    with pytest.raises(AdapterError) as caught:
        _call(scene, capability, **params)
    return caught.value


def test_create_writes_one_event_at_its_derived_resource(scene: Scene) -> None:
    result = _call(scene, "calendar.event.create", **_event(title="Design review"))

    assert result == {
        "object_id": "e1",
        "calendar_id": "work",
        "start": "2026-12-02T10:00:00Z",
        "end": "2026-12-02T11:00:00Z",
        "revision": 0,
        "created": True,
        "replayed": False,
    }
    assert scene.uids() == ["e1"]
    event = scene.event("e1")
    assert str(event["X-CEREBRI-IDEMPOTENCY-KEY"]) == "k1"  # the param, not the attempt's key
    assert str(event["SUMMARY"]) == "Design review"
    assert event.decoded("DTSTART").isoformat() == "2026-12-02T10:00:00+00:00"
    assert [str(o.url).rsplit("/", 1)[1] for o in scene.dav.events()] == ["e1.ics"]


def test_resource_names_are_plain_or_hashed_and_never_collide() -> None:
    assert resource_name("e1") == "e1.ics"
    hashed = resource_name("a/b c")
    assert hashed.startswith("_") and hashed.endswith(".ics") and len(hashed) == 1 + 64 + 4
    assert resource_name("a/b c") == hashed  # a pure function
    assert resource_name(hashed[:-4]) != hashed  # a plain name never starts with "_"


def test_a_repeated_create_is_adopted_and_writes_nothing_more(scene: Scene) -> None:
    first = _call(scene, "calendar.event.create", attempt=0, **_event())
    again = _call(scene, "calendar.event.create", attempt=1, **_event())

    assert first["replayed"] is False
    assert again == {**first, "replayed": True}
    assert scene.uids() == ["e1"]


def test_a_create_racing_its_earlier_try_is_adopted_through_if_none_match(
    scene: Scene, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first read misses the event (an earlier try's PUT lands just after it): the
    conditional PUT gets 412 and the event is read back and adopted."""
    _call(scene, "calendar.event.create", **_event())
    real_find = CalDavCalendar._find
    calls: list[int] = []

    def late_find(self: CalDavCalendar, *args: Any) -> Any:
        calls.append(1)
        return None if len(calls) == 1 else real_find(self, *args)

    monkeypatch.setattr(CalDavCalendar, "_find", late_find)
    again = _call(scene, "calendar.event.create", attempt=1, **_event())

    assert again["replayed"] is True and len(calls) == 2
    assert scene.uids() == ["e1"]


def test_a_create_with_another_key_on_the_same_uid_is_a_conflict(scene: Scene) -> None:
    _call(scene, "calendar.event.create", **_event())

    error = _fails(scene, "calendar.event.create", **_event(idempotency_key="k2"))

    assert error.code == "calendar.conflict" and error.retryable is False
    assert "another idempotency key" in error.message
    assert scene.uids() == ["e1"]
    assert str(scene.event("e1")["X-CEREBRI-IDEMPOTENCY-KEY"]) == "k1"


def test_a_create_whose_uid_another_client_used_is_a_conflict(scene: Scene) -> None:
    scene.put_foreign("e1", "20261202T100000Z", "20261202T110000Z")

    error = _fails(scene, "calendar.event.create", **_event())

    assert error.code == "calendar.conflict"
    assert scene.uids() == ["e1"]
    assert "X-CEREBRI-IDEMPOTENCY-KEY" not in scene.event("e1")


def test_a_create_on_a_busy_slot_writes_nothing(scene: Scene) -> None:
    scene.put_foreign("other", "20261202T103000Z", "20261202T120000Z")

    error = _fails(scene, "calendar.event.create", **_event())

    assert error.code == "calendar.slot_taken" and error.retryable is False
    assert "[2026-12-02T10:30:00Z, 2026-12-02T12:00:00Z)" in error.message
    assert "'other'" in error.message
    assert scene.uids() == ["other"]


def test_a_transparent_event_leaves_the_slot_free(scene: Scene) -> None:
    scene.put_foreign("fyi", "20261202T100000Z", "20261202T110000Z", TRANSP="TRANSPARENT")

    assert _call(scene, "calendar.event.create", **_event())["created"] is True
    assert scene.uids() == ["e1", "fyi"]


def test_move_rewrites_the_event_with_the_next_sequence(scene: Scene) -> None:
    _call(scene, "calendar.event.create", **_event())
    moved = _event(start="2026-12-02T14:00:00Z", end="2026-12-02T15:00:00Z", idempotency_key="m1")

    result = _call(scene, "calendar.event.move", **moved, expected_revision=0)
    again = _call(scene, "calendar.event.move", attempt=1, **moved, expected_revision=0)

    assert result == {
        "object_id": "e1",
        "calendar_id": "work",
        "start": "2026-12-02T14:00:00Z",
        "end": "2026-12-02T15:00:00Z",
        "revision": 1,
        "moved": True,
        "replayed": False,
        "uid": "e1",
        "recurrence_id": None,
        "scope": "SERIES",
        "new_uid": None,
    }
    assert again == {**result, "replayed": True}  # the same move, not a revision mismatch
    event = scene.event("e1")
    assert int(event["SEQUENCE"]) == 1
    assert event.decoded("DTSTART").isoformat() == "2026-12-02T14:00:00+00:00"
    assert str(event["X-CEREBRI-IDEMPOTENCY-KEY"]) == "m1"


def test_move_with_another_expected_revision_writes_nothing(scene: Scene) -> None:
    _call(scene, "calendar.event.create", **_event())
    moved = _event(start="2026-12-02T14:00:00Z", end="2026-12-02T15:00:00Z", idempotency_key="m1")

    error = _fails(scene, "calendar.event.move", **moved, expected_revision=3)

    assert error.code == "calendar.revision_mismatch"
    assert int(scene.event("e1").get("SEQUENCE", 0)) == 0


def test_move_with_a_stale_etag_is_a_revision_mismatch(
    scene: Scene, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another client changes the event between the adapter's read and its PUT: the
    ``If-Match`` fails on the server, and the other client's change stands."""
    _call(scene, "calendar.event.create", **_event())
    real_find = CalDavCalendar._find

    def find_then_edit(self: CalDavCalendar, *args: Any) -> Any:
        found = real_find(self, *args)
        (obj,) = scene.dav.events()
        obj.icalendar_component["SUMMARY"] = "edited elsewhere"
        obj.save()
        return found

    monkeypatch.setattr(CalDavCalendar, "_find", find_then_edit)
    moved = _event(start="2026-12-02T14:00:00Z", end="2026-12-02T15:00:00Z", idempotency_key="m1")

    error = _fails(scene, "calendar.event.move", **moved, expected_revision=0)

    assert error.code == "calendar.revision_mismatch" and error.retryable is False
    event = scene.event("e1")
    assert str(event["SUMMARY"]) == "edited elsewhere"
    assert event.decoded("DTSTART").isoformat() == "2026-12-02T10:00:00+00:00"


def test_move_into_a_busy_slot_writes_nothing(scene: Scene) -> None:
    _call(scene, "calendar.event.create", **_event())
    scene.put_foreign("other", "20261202T140000Z", "20261202T143000Z")
    moved = _event(start="2026-12-02T14:00:00Z", end="2026-12-02T15:00:00Z", idempotency_key="m1")

    error = _fails(scene, "calendar.event.move", **moved, expected_revision=0)

    assert error.code == "calendar.slot_taken"
    assert "[2026-12-02T14:00:00Z, 2026-12-02T14:30:00Z)" in error.message
    assert scene.event("e1").decoded("DTSTART").isoformat() == "2026-12-02T10:00:00+00:00"


def test_move_within_its_own_range_is_not_blocked_by_itself(scene: Scene) -> None:
    _call(scene, "calendar.event.create", **_event())
    moved = _event(start="2026-12-02T10:30:00Z", end="2026-12-02T11:30:00Z", idempotency_key="m1")

    assert _call(scene, "calendar.event.move", **moved, expected_revision=None)["revision"] == 1


def test_move_of_an_absent_event_is_not_found(scene: Scene) -> None:
    error = _fails(scene, "calendar.event.move", **_event(), expected_revision=None)

    assert error.code == "calendar.not_found"
    assert scene.uids() == []


def test_cancel_removes_the_event_and_a_second_cancel_finds_nothing(scene: Scene) -> None:
    _call(scene, "calendar.event.create", **_event())
    params = {"calendar_id": "work", "integration_id": "dav", "object_id": "e1",
              "idempotency_key": "c1"}  # fmt: skip

    first = _call(scene, "calendar.event.cancel", **params)
    second = _call(scene, "calendar.event.cancel", attempt=1, **params)

    shown = ("object_id", "calendar_id", "cancelled", "existed", "replayed", "uid", "scope")
    assert {k: first[k] for k in shown} == {
        "object_id": "e1",
        "calendar_id": "work",
        "cancelled": True,
        "existed": True,
        "replayed": False,
        "uid": "e1",
        "scope": "SERIES",
    }
    assert second == {**first, "cancelled": False, "existed": False, "revision": None}
    assert scene.uids() == []


def test_get_reads_an_event_another_client_wrote_by_its_uid(scene: Scene) -> None:
    scene.put_foreign(
        "meeting@example.org",
        "20261202T090000Z",
        "20261202T093000Z",
        SUMMARY="Standup",
        SEQUENCE="4",
        ATTENDEE="mailto:ann@example.org",
    )

    got = _call(scene, "calendar.event.get", calendar_id="work", object_id="meeting@example.org")

    assert got == {
        "object_id": "meeting@example.org",
        "calendar_id": "work",
        "exists": True,
        "start": "2026-12-02T09:00:00Z",
        "end": "2026-12-02T09:30:00Z",
        "range": {"start": "2026-12-02T09:00:00Z", "end": "2026-12-02T09:30:00Z"},
        "revision": 4,
        "title": "Standup",
        "sequence": 4,
        "etag": scene.etag("foreign-0.ics"),
        "attendees": ["mailto:ann@example.org"],
    }


def test_get_of_an_absent_event(scene: Scene) -> None:
    got = _call(scene, "calendar.event.get", calendar_id="work", object_id="nope")

    assert got["exists"] is False and got["range"] is None and got["revision"] is None


def test_freebusy_reads_busy_and_free_time_over_the_window(scene: Scene) -> None:
    _call(scene, "calendar.event.create", **_event())
    scene.put_foreign("late", "20261202T150000Z", "20261202T160000Z")
    scene.put_foreign("outside", "20261203T150000Z", "20261203T160000Z")

    view = _call(
        scene,
        "calendar.freebusy",
        calendar_ids=["work"],
        start="2026-12-02T08:00:00Z",
        end="2026-12-02T18:00:00Z",
    )

    assert [(b["object_id"], b["start"], b["end"], b["calendar_id"]) for b in view["busy"]] == [
        ("e1", "2026-12-02T10:00:00Z", "2026-12-02T11:00:00Z", "work"),
        ("late", "2026-12-02T15:00:00Z", "2026-12-02T16:00:00Z", "work"),
    ]
    assert view["free"] == [
        {"start": "2026-12-02T08:00:00Z", "end": "2026-12-02T10:00:00Z"},
        {"start": "2026-12-02T11:00:00Z", "end": "2026-12-02T15:00:00Z"},
        {"start": "2026-12-02T16:00:00Z", "end": "2026-12-02T18:00:00Z"},
    ]
    assert view["unknown"] == [] and view["complete"] is True


def test_an_unreachable_server_is_unavailable_and_retryable() -> None:
    closed = f"http://127.0.0.1:{free_port()}/bob/work/"
    adapter = CalDavCalendar({"work": closed}, FakeClock(NOW), timeout_seconds=5)
    for capability, params in (
        ("calendar.event.get", {"calendar_id": "work", "object_id": "e1"}),
        ("calendar.event.create", _event()),
    ):
        with pytest.raises(AdapterError) as caught:
            adapter.invoke(Invocation(capability, "e1", params, "plan_step:s1", "p1:1:s1:0"))
        assert caught.value.code == "adapter.unavailable"
        assert caught.value.retryable is True
        assert caught.value.before_effect is True  # no connection: nothing was sent


def test_a_collection_the_server_lacks_is_an_unknown_calendar(radicale: RadicaleServer) -> None:
    missing = f"{radicale.url}{USER}/no-such-calendar/"
    adapter = CalDavCalendar({"work": missing}, FakeClock(NOW), username=USER)

    with pytest.raises(AdapterError) as caught:
        adapter.invoke(Invocation("calendar.event.create", "e1", _event(), "plan_step:s", "k"))

    assert caught.value.code == "calendar.unknown_calendar" and not caught.value.retryable


def test_a_calendar_id_not_configured_is_an_unknown_calendar(scene: Scene) -> None:
    error = _fails(scene, "calendar.event.get", calendar_id="home", object_id="e1")

    assert error.code == "calendar.unknown_calendar"


@pytest.fixture(scope="module")
def guarded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RadicaleServer]:
    """A Radicale that checks passwords (plain htpasswd, one user ``ann``)."""
    folder = tmp_path_factory.mktemp("radicale-htpasswd")
    users = folder / "users"
    users.write_text("ann:right-Horse-9\n", encoding="utf-8")  # a test value, not a secret
    yield from serve(
        folder,
        "--auth-type",
        "htpasswd",
        "--auth-htpasswd-filename",
        str(users),
        "--auth-htpasswd-encryption",
        "plain",
        username="ann",
        password="right-Horse-9",
    )


def test_credentials_are_sent_and_a_wrong_password_is_unauthorized(
    guarded: RadicaleServer,
) -> None:
    client = DAVClient(url=guarded.url, username=guarded.username, password=guarded.password)
    collection = str(client.principal().make_calendar(name="work", cal_id="work").url)
    right = CalDavCalendar(
        {"work": collection}, FakeClock(NOW), username="ann", password=guarded.password
    )
    wrong = CalDavCalendar(
        {"work": collection}, FakeClock(NOW), username="ann", password="wrong-Pass-1"
    )

    created = right.invoke(Invocation("calendar.event.create", "e1", _event(), "plan_step:s", "k"))
    with pytest.raises(AdapterError) as caught:
        wrong.invoke(Invocation("calendar.event.create", "e2", _event(object_id="e2",
                                start="2026-12-02T12:00:00Z", end="2026-12-02T13:00:00Z"),
                                "plan_step:s", "k"))  # fmt: skip

    assert created["created"] is True
    assert caught.value.code == "calendar.unauthorized" and not caught.value.retryable
    assert "wrong-Pass-1" not in caught.value.message
    events = client.calendar(url=collection).events()
    assert [str(icalendar.Calendar.from_ical(e.data).walk("VEVENT")[0]["UID"]) for e in events] == [
        "e1"
    ]
    client.close()


@pytest.mark.parametrize(
    "url", ["file:///etc/", "http://[bad/", "http://exa mple/c/", "http://h:99999/c/", "http:///c/"]
)
def test_a_url_that_is_not_http_with_a_host_is_refused_up_front(url: str) -> None:
    with pytest.raises(AdapterError) as caught:
        CalDavCalendar({"work": url}, FakeClock(NOW))

    assert caught.value.code == "adapter.invalid_argument"


def test_default_adapters_send_each_calendar_to_its_kind(scene: Scene, tmp_path: Path) -> None:
    ics = tmp_path / "home.ics"
    adapters = default_adapters(
        FakeClock(NOW),
        ics_calendars={"home": ics},
        caldav_calendars={"work": scene.url},
        caldav_username=USER,
        caldav_password="unused",
    )
    create = adapters.get("calendar.event.create")
    assert create is not None
    for calendar_id, uid in (("work", "w1"), ("home", "h1")):
        params = _event(calendar_id=calendar_id, object_id=uid)
        create.invoke(Invocation("calendar.event.create", uid, params, "plan_step:s", "k"))

    assert scene.uids() == ["w1"]
    on_file = icalendar.Calendar.from_ical(ics.read_bytes()).walk("VEVENT")
    assert [str(e["UID"]) for e in on_file] == ["h1"]
    with pytest.raises(AdapterError) as caught:
        default_adapters(
            FakeClock(NOW), ics_calendars={"work": ics}, caldav_calendars={"work": scene.url}
        )
    assert caught.value.code == "adapter.invalid_argument"


@pytest.mark.parametrize(
    ("values", "problem"),
    [
        (["work"], "it is not ID=URL"),
        (["work=ftp://h/c/"], "not http:// or https://"),
        (["work=http://h/a/", "work=http://h/b/"], "named twice"),
    ],
)
def test_worker_refuses_a_bad_caldav_calendar_option(
    tmp_path: Path, values: list[str], problem: str
) -> None:
    options = [part for value in values for part in ("--caldav-calendar", value)]
    store = f"sqlite:///{tmp_path / 's.sqlite3'}"

    done = CliRunner().invoke(app, ["worker", "--until-idle", "--store", store, *options])

    assert done.exit_code != 0
    assert "execution.invalid_argument" in done.output and problem in done.output


def test_worker_never_echoes_a_password_in_a_caldav_url(tmp_path: Path) -> None:
    value = "work=http://ann:pass-Word-5@h/c/"
    store = f"sqlite:///{tmp_path / 's.sqlite3'}"

    done = CliRunner().invoke(
        app,
        ["worker", "--until-idle", "--store", store, "--ics-calendar",
         f"work={tmp_path / 'w.ics'}", "--caldav-calendar", value],
    )  # fmt: skip

    assert done.exit_code != 0 and "also given to --ics-calendar" in done.output
    assert "pass-Word-5" not in done.output


class _LastPutServer(BaseHTTPRequestHandler):
    """Answers a create's reads as an empty collection (``GET`` 404, ``REPORT`` an empty
    multistatus), one connection per request (HTTP/1.0); a ``PUT`` is read whole and its
    connection closed without an answer (the request was sent, its outcome is unknown)."""

    puts: ClassVar[list[int]] = []
    reports: ClassVar[list[int]] = []
    refuse_the_put = False

    def do_GET(self) -> None:
        self.send_response(404)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_REPORT(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        body = b'<?xml version="1.0" encoding="utf-8"?><multistatus xmlns="DAV:"/>'
        type(self).reports.append(1)
        if len(type(self).reports) == 2 and type(self).refuse_the_put:
            self.server.socket.close()  # before the last read is answered: no race
        self.send_response(207)
        self.send_header("Content-Type", "application/xml; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_PUT(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        type(self).puts.append(1)
        self.close_connection = True  # no status line: the answer is lost

    def log_message(self, *_args: Any) -> None:
        return None


@pytest.mark.parametrize("put_reaches_the_server", [False, True])
def test_a_create_s_put_is_before_effect_only_when_it_never_connected(
    put_reaches_the_server: bool,
) -> None:
    """Decision 0040: the server goes away after the reads (its listening socket closed, so
    the ``PUT`` cannot connect: nothing was sent, ``before_effect``), or takes the ``PUT`` and
    drops the connection (it may have acted: not ``before_effect``, read as "may have
    happened"). Both are ``adapter.unavailable``, retryable."""
    _LastPutServer.puts, _LastPutServer.reports = [], []
    _LastPutServer.refuse_the_put = not put_reaches_the_server
    server = HTTPServer(("127.0.0.1", 0), _LastPutServer)
    reads = 3  # GET of the resource, REPORT by UID, REPORT of the range

    def serve_then_go() -> None:
        for _ in range(reads + (1 if put_reaches_the_server else 0)):
            server.handle_request()
        server.server_close()

    worker = threading.Thread(target=serve_then_go, daemon=True)
    worker.start()
    url = f"http://127.0.0.1:{server.server_address[1]}/bob/work/"
    adapter = CalDavCalendar({"work": url}, FakeClock(NOW), timeout_seconds=10)
    try:
        with pytest.raises(AdapterError) as caught:
            adapter.invoke(Invocation("calendar.event.create", "e1", _event(), "plan_step:s", "k"))
    finally:
        worker.join(timeout=30)
        server.server_close()
    error = caught.value
    assert (error.code, error.retryable) == ("adapter.unavailable", True)
    assert error.message.startswith("PUT ")
    assert len(_LastPutServer.puts) == (1 if put_reaches_the_server else 0)
    assert error.before_effect is (not put_reaches_the_server)


def test_get_reads_an_all_day_event_in_the_zone_the_plan_used(scene: Scene) -> None:
    scene.put_foreign("offsite@example.org", "20261202", "20261204", SUMMARY="Offsite")
    params = {"calendar_id": "work", "object_id": "offsite@example.org"}

    refused = _fails(scene, "calendar.event.get", **params)
    got = _call(scene, "calendar.event.get", **params, timezone="Europe/Berlin")

    assert refused.code == "calendar.unsupported"
    # midnights of 2 and 4 December in Berlin (winter time, UTC+1)
    span = {"start": "2026-12-01T23:00:00Z", "end": "2026-12-03T23:00:00Z"}
    assert (got["exists"], got["range"], got["title"]) == (True, span, "Offsite")
