"""Changes to events already on a calendar, through both calendar adapters (decision 0051).

Each test runs on an ``.ics`` file (:class:`IcsFileCalendar`) and on CalDAV collections
(:class:`CalDavCalendar`) on a real Radicale and a real Xandikos. Two calendars: alice's
(the organizer's, where the event lives) and bob's (an attendee's). What is stored is read
back independently (the file's bytes, or the ``caldav`` library listing the collection),
and the instances a series has are expanded by ``recurring-ical-events``, never by cerebri.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import icalendar
import pytest
import recurring_ical_events
from caldav.collection import Calendar as DAVCalendar
from caldav.davclient import DAVClient

from cerebri.calendars.changes import resource_etag
from cerebri.clock import FakeClock
from cerebri.execution.adapters import AdapterError, CalDavCalendar, IcsFileCalendar, Invocation
from cerebri.execution.adapters._caldav_changes import ChangeWriter
from cerebri.execution.adapters.base import DispatchingAdapter
from cerebri.temporal import Instant
from tests._dav_servers import run_xandikos
from tests._radicale import RadicaleServer

NOW = Instant.parse("2026-12-01T08:00:00Z")
WINDOW = (datetime(2026, 12, 1, tzinfo=UTC), datetime(2027, 1, 31, tzinfo=UTC))
_numbers = itertools.count(1)


def _object(uid: str, *lines: str) -> str:
    """One calendar object resource as another client writes it (CRLF lines)."""
    body = [
        "BEGIN:VCALENDAR",
        "VERSION:2.0",
        "PRODID:-//another client//EN",
        "BEGIN:VEVENT",
        f"UID:{uid}",
        "DTSTAMP:20261201T000000Z",
        *lines,
        "END:VEVENT",
        "END:VCALENDAR",
        "",
    ]
    return "\r\n".join(body)


STANDUP = _object(
    "standup",
    "DTSTART:20261207T090000Z",
    "DTEND:20261207T093000Z",
    "RRULE:FREQ=WEEKLY;COUNT=4",
    "SUMMARY:Standup",
    "ORGANIZER:mailto:alice@example.com",
    "ATTENDEE;ROLE=REQ-PARTICIPANT:mailto:bob@example.com",
)
"""A weekly series of four Mondays, 09:00-09:30 UTC, from 7 December 2026."""
REVIEW = _object(
    "review",
    "DTSTART:20261202T100000Z",
    "DTEND:20261202T110000Z",
    "SUMMARY:Review",
    "ORGANIZER:mailto:alice@example.com",
    "ATTENDEE;ROLE=REQ-PARTICIPANT:mailto:bob@example.com",
)
"""A single event on Wednesday 2 December 2026, 10:00-11:00 UTC."""
BOB_BUSY = _object("bob-lunch", "DTSTART:20261202T113000Z", "DTEND:20261202T123000Z")
"""Bob is busy from 11:30 to 12:30 on the review's day, in his own calendar."""


def _z(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


@dataclass
class Backend:
    """The adapter under test and an independent view of alice's and bob's calendars."""

    name: str
    adapter: DispatchingAdapter
    files: dict[str, Path] = field(default_factory=dict)
    collections: dict[str, DAVCalendar] = field(default_factory=dict)

    def put(self, calendar_id: str, text: str) -> None:
        """Store ``text`` as another client would (replacing the object of its UID)."""
        new = icalendar.Calendar.from_ical(text)
        uid = str(next(iter(new.walk("VEVENT")))["UID"])
        if calendar_id in self.files:
            path = self.files[calendar_id]
            old = icalendar.Calendar.from_ical(path.read_bytes()) if path.exists() else new
            if old is not new:
                old.subcomponents = [
                    c for c in old.subcomponents if str(c.get("UID")) != uid
                ] + list(new.walk("VEVENT"))
            path.write_bytes(old.to_ical())
            return
        dav = self.collections[calendar_id]
        assert dav.client is not None
        headers = {"Content-Type": "text/calendar; charset=utf-8"}
        answer = dav.client.put(f"{dav.url}{uid}.ics", text, headers)
        assert answer.status in (201, 204), answer.status

    def objects(self, calendar_id: str) -> list[icalendar.Calendar]:
        """Everything stored in the calendar, parsed by icalendar."""
        if calendar_id in self.files:
            path = self.files[calendar_id]
            return [icalendar.Calendar.from_ical(path.read_bytes())] if path.exists() else []
        return [
            icalendar.Calendar.from_ical(o.data) for o in self.collections[calendar_id].events()
        ]

    def snapshot(self, calendar_id: str) -> list[str]:
        """The stored bytes (file) or every object's text, to tell "nothing written"."""
        if calendar_id in self.files:
            return [self.files[calendar_id].read_text(encoding="utf-8")]
        return sorted(str(o.data) for o in self.collections[calendar_id].events())

    def snapshots(self) -> dict[str, list[str]]:
        """:meth:`snapshot` of alice's and bob's calendars, by calendar id."""
        return {who: self.snapshot(who) for who in ("alice", "bob")}

    def instances(self, calendar_id: str = "alice") -> list[tuple[str, str, str]]:
        """``(uid, start, end)`` of every instance in the window, expanded by
        recurring-ical-events, sorted."""
        found = []
        for obj in self.objects(calendar_id):
            for event in recurring_ical_events.of(obj).between(*WINDOW):
                start, end = event.decoded("DTSTART"), event.decoded("DTEND")
                found.append(
                    (
                        str(event["UID"]),
                        start.astimezone(UTC).isoformat(),
                        end.astimezone(UTC).isoformat(),
                    )
                )
        return sorted(found)

    def sequences(self, calendar_id: str = "alice") -> list[tuple[str, str, int]]:
        """``(uid, RECURRENCE-ID or "" for a master, SEQUENCE)`` of every stored VEVENT,
        sorted."""
        return sorted(
            (
                str(e["UID"]),
                "" if "RECURRENCE-ID" not in e else e.decoded("RECURRENCE-ID").isoformat(),
                int(e.get("SEQUENCE", 0)),
            )
            for obj in self.objects(calendar_id)
            for e in obj.walk("VEVENT")
        )

    def call(self, capability: str, key: str = "k1", **params: Any) -> dict[str, Any]:
        base = {"calendar_id": "alice", "integration_id": "cal", "idempotency_key": key}
        invocation = Invocation(
            capability, params.get("object_id"), {**base, **params}, "plan_step:s1", f"p:1:{key}"
        )
        return self.adapter.invoke(invocation)

    def refused(self, capability: str, **params: Any) -> AdapterError:
        with pytest.raises(AdapterError) as caught:
            self.call(capability, **params)
        assert caught.value.before_effect is True
        return caught.value


@pytest.fixture(scope="module")
def xandikos_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A Xandikos on a free port (one principal ``/alice/``, no authentication)."""
    with run_xandikos(tmp_path_factory.mktemp("xandikos"), "alice") as url:
        yield url


def _on_dav(name: str, url: str, user: str) -> Iterator[Backend]:
    """Alice's and bob's new collections on the server at ``url`` and the adapter on them."""
    client = DAVClient(url=url, username=user, password="unused")
    principal = client.principal()
    collections = {}
    for who in ("alice", "bob"):
        cal_id = f"{who}{next(_numbers)}"
        collections[who] = principal.make_calendar(name=cal_id, cal_id=cal_id)
    urls = {who: str(c.url) for who, c in collections.items()}
    adapter = CalDavCalendar(urls, FakeClock(NOW), username=user, password="unused")
    yield Backend(name, adapter, collections=collections)
    for collection in collections.values():
        collection.delete()
    client.close()


@pytest.fixture(params=["ics", "radicale", "xandikos"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    if request.param == "ics":
        files = {who: tmp_path / f"{who}.ics" for who in ("alice", "bob")}
        yield Backend("ics", IcsFileCalendar(files, FakeClock(NOW)), files=files)
    elif request.param == "radicale":
        server: RadicaleServer = request.getfixturevalue("radicale")
        yield from _on_dav("radicale", server.url, "changes")
    else:
        yield from _on_dav("xandikos", request.getfixturevalue("xandikos_url"), "alice")


# ---------------------------------------------------------------------------- move


def test_move_one_instance_then_replay_it(backend: Backend) -> None:
    backend.put("alice", STANDUP)
    params = {
        "object_id": "standup",
        "recurrence_id": "2026-12-14T09:00:00Z",
        "scope": "INSTANCE",
        "start": "2026-12-14T13:00:00Z",
        "end": "2026-12-14T13:30:00Z",
        "expected_revision": 0,
        "check_calendar_ids": ["bob"],
    }
    result = backend.call("calendar.event.move", **params)

    assert (result["moved"], result["replayed"], result["revision"]) == (True, False, 1)
    assert backend.instances() == [
        ("standup", "2026-12-07T09:00:00+00:00", "2026-12-07T09:30:00+00:00"),
        ("standup", "2026-12-14T13:00:00+00:00", "2026-12-14T13:30:00+00:00"),
        ("standup", "2026-12-21T09:00:00+00:00", "2026-12-21T09:30:00+00:00"),
        ("standup", "2026-12-28T09:00:00+00:00", "2026-12-28T09:30:00+00:00"),
    ]
    # the override carries the change (RFC 5546 2.1.4), the master stays as it was
    assert backend.sequences() == [
        ("standup", "", 0),
        ("standup", "2026-12-14T09:00:00+00:00", 1),
    ]
    got = backend.call(
        "calendar.event.get", object_id="standup", recurrence_id="2026-12-14T09:00:00Z"
    )
    assert (got["start"], got["sequence"]) == ("2026-12-14T13:00:00Z", 1)

    before = backend.snapshot("alice")
    again = backend.call("calendar.event.move", **params)  # the step tried again
    assert (again["replayed"], again["revision"]) == (True, 1)
    assert backend.snapshot("alice") == before


def test_move_the_whole_series(backend: Backend) -> None:
    backend.put("alice", STANDUP)
    result = backend.call(
        "calendar.event.move",
        object_id="standup",
        start="2026-12-07T10:00:00Z",
        end="2026-12-07T10:30:00Z",
        expected_revision=0,
    )

    assert result["revision"] == 1
    assert backend.instances() == [
        ("standup", f"2026-12-{day}T10:00:00+00:00", f"2026-12-{day}T10:30:00+00:00")
        for day in ("07", "14", "21", "28")
    ]
    assert backend.sequences() == [("standup", "", 1)]


def test_move_this_and_future_splits_the_series(backend: Backend) -> None:
    backend.put("alice", STANDUP)
    params = {
        "object_id": "standup",
        "recurrence_id": "2026-12-21T09:00:00Z",
        "scope": "THIS_AND_FUTURE",
        "start": "2026-12-21T11:00:00Z",
        "end": "2026-12-21T11:30:00Z",
    }
    result = backend.call("calendar.event.move", **params)

    new_uid = result["new_uid"]
    assert isinstance(new_uid, str) and new_uid != "standup"
    starts = [(uid, start) for uid, start, _end in backend.instances()]
    assert starts == sorted(
        [
            ("standup", "2026-12-07T09:00:00+00:00"),
            ("standup", "2026-12-14T09:00:00+00:00"),
            (new_uid, "2026-12-21T11:00:00+00:00"),
            (new_uid, "2026-12-28T11:00:00+00:00"),
        ]
    )
    before = backend.snapshot("alice")
    again = backend.call("calendar.event.move", **params)  # the step tried again
    assert (again["replayed"], again["new_uid"]) == (True, new_uid)
    assert backend.snapshot("alice") == before


# ------------------------------------------------------- series moves, every instance (0063)

BOB_WEEK_3 = _object("bob-week-3", "DTSTART:20261221T100000Z", "DTEND:20261221T103000Z")
"""Bob's block on Monday 21 December 10:00-10:30 UTC: the third instance of the standup moved
to 10:00, booked after the move was approved."""


def test_a_series_move_meeting_busy_time_in_its_third_week_writes_nothing(
    backend: Backend,
) -> None:
    backend.put("alice", STANDUP)
    backend.put("bob", BOB_WEEK_3)
    before = backend.snapshots()

    # the anchor (7 December 10:00-10:30) is free; the instance of 21 December is not
    error = backend.refused(
        "calendar.event.move",
        object_id="standup",
        start="2026-12-07T10:00:00Z",
        end="2026-12-07T10:30:00Z",
        expected_revision=0,
        check_calendar_ids=["bob"],
    )

    assert (error.code, error.retryable) == ("calendar.slot_taken", False)
    assert "calendar bob" in error.message and "bob-week-3" in error.message
    assert "2026-12-21T10:00:00Z" in error.message
    assert backend.snapshots() == before


def test_a_this_and_future_move_meeting_busy_time_leaves_no_new_series(
    backend: Backend,
) -> None:
    backend.put("alice", STANDUP)
    # from 7 December on, moved to 10:00: the new series is 12-07, 12-14, 12-21 (its third
    # instance, where bob is busy), 12-28; nothing of it may be left behind
    backend.put("bob", BOB_WEEK_3)
    before = backend.snapshots()

    error = backend.refused(
        "calendar.event.move",
        object_id="standup",
        recurrence_id="2026-12-14T09:00:00Z",
        scope="THIS_AND_FUTURE",
        start="2026-12-14T10:00:00Z",
        end="2026-12-14T10:30:00Z",
        check_calendar_ids=["bob"],
    )

    assert error.code == "calendar.slot_taken"
    assert "bob-week-3" in error.message
    assert backend.snapshots() == before
    # out of bob's way (10:30) the same move goes through
    done = backend.call(
        "calendar.event.move",
        key="k2",
        object_id="standup",
        recurrence_id="2026-12-14T09:00:00Z",
        scope="THIS_AND_FUTURE",
        start="2026-12-14T10:30:00Z",
        end="2026-12-14T11:00:00Z",
        check_calendar_ids=["bob"],
    )
    assert done["moved"] is True and isinstance(done["new_uid"], str)


BERLIN_STANDUP = _object(
    "berlin",
    "DTSTART;TZID=Europe/Berlin:20261012T090000",
    "DTEND;TZID=Europe/Berlin:20261012T093000",
    "RRULE:FREQ=WEEKLY;COUNT=4",
    "SUMMARY:Standup",
)
"""Mondays 09:00 Berlin from 12 October 2026: 07:00Z while CEST, 08:00Z from 26 October."""


@pytest.mark.parametrize(
    ("busy", "taken"),
    [
        # moved to 10:00 Berlin, 27 October is 10:00 CET = 09:00Z: that block is in the way
        (("DTSTART:20261027T090000Z", "DTEND:20261027T093000Z"), True),
        # where a fixed UTC offset from the anchor (08:00Z) would put it: not in the way
        (("DTSTART:20261027T080000Z", "DTEND:20261027T083000Z"), False),
    ],
)
def test_act_time_instances_follow_the_series_zone_across_dst(
    tmp_path: Path, busy: tuple[str, str], taken: bool
) -> None:
    files = {who: tmp_path / f"{who}.ics" for who in ("alice", "bob")}
    backend = Backend("ics", IcsFileCalendar(files, FakeClock(NOW)), files=files)
    backend.put("alice", BERLIN_STANDUP)
    backend.put("bob", _object("bob-block", *busy))
    before = backend.snapshot("alice")
    move = {
        "object_id": "berlin",
        "start": "2026-10-13T08:00:00Z",  # Tuesday 10:00 CEST
        "end": "2026-10-13T08:30:00Z",
        "check_calendar_ids": ["bob"],
        "timezone": "Europe/Berlin",
    }
    if taken:
        error = backend.refused("calendar.event.move", **move)
        assert error.code == "calendar.slot_taken" and "bob-block" in error.message
        assert backend.snapshot("alice") == before
    else:
        assert backend.call("calendar.event.move", **move)["moved"] is True


# ---------------------------------------------------------------------------- cancel


def test_cancel_one_instance_then_the_whole_series(backend: Backend) -> None:
    backend.put("alice", STANDUP)
    one = backend.call(
        "calendar.event.cancel",
        object_id="standup",
        recurrence_id="2026-12-14T09:00:00Z",
        scope="INSTANCE",
        expected_revision=0,
    )

    assert (one["cancelled"], one["existed"], one["replayed"]) == (True, True, False)
    starts = [start for _uid, start, _end in backend.instances()]
    assert starts == [f"2026-12-{d}T09:00:00+00:00" for d in ("07", "21", "28")]

    whole = backend.call("calendar.event.cancel", key="k2", object_id="standup")
    assert (whole["cancelled"], whole["existed"]) == (True, True)
    assert backend.instances() == []
    gone = backend.call("calendar.event.cancel", key="k2", object_id="standup")
    assert (gone["cancelled"], gone["existed"]) == (False, False)


# ---------------------------------------------------------------------------- update


def test_update_the_duration_into_a_conflict_then_out_of_it(backend: Backend) -> None:
    backend.put("alice", REVIEW)
    backend.put("bob", BOB_BUSY)
    longer = {
        "object_id": "review",
        "start": "2026-12-02T10:00:00Z",
        "expected_revision": 0,
        "check_calendar_ids": ["bob"],
    }
    before = backend.snapshot("alice")

    error = backend.refused("calendar.event.update", **longer, end="2026-12-02T12:00:00Z")

    assert (error.code, error.retryable) == ("calendar.slot_taken", False)
    assert "calendar bob" in error.message and "bob-lunch" in error.message
    assert backend.snapshot("alice") == before

    done = backend.call(
        "calendar.event.update", key="k2", **longer, end="2026-12-02T11:30:00Z", title="Review+"
    )

    assert (done["updated"], done["revision"], done["end"]) == (
        True,
        1,
        "2026-12-02T11:30:00Z",
    )
    assert backend.instances() == [
        ("review", "2026-12-02T10:00:00+00:00", "2026-12-02T11:30:00+00:00")
    ]
    assert backend.sequences() == [("review", "", 1)]
    [event] = [e for obj in backend.objects("alice") for e in obj.walk("VEVENT")]
    assert str(event["SUMMARY"]) == "Review+"


# ---------------------------------------------------------------------------- ETag


def _planned_etag(backend: Backend, how: str) -> str:
    """The ETag a planner holds: the adapter's get answer (the HTTP ``ETag`` on CalDAV), or
    the digest of the stored object it read without one (``resource_etag`` of the object
    as the independent reader parses it; the calendar holds only this event)."""
    if how == "get":
        planned = backend.call("calendar.event.get", object_id="review")["etag"]
        assert isinstance(planned, str)
        return planned
    [stored] = backend.objects("alice")
    return resource_etag(stored)


@pytest.mark.parametrize("how", ["get", "digest"])
def test_an_etag_moved_between_plan_and_act_writes_nothing(backend: Backend, how: str) -> None:
    backend.put("alice", REVIEW)
    planned = _planned_etag(backend, how)
    backend.put("alice", REVIEW.replace("SUMMARY:Review", "SUMMARY:Renamed elsewhere"))
    edited = backend.snapshot("alice")
    move = {
        "object_id": "review",
        "start": "2026-12-02T14:00:00Z",
        "end": "2026-12-02T15:00:00Z",
        "expected_revision": 0,  # SEQUENCE did not move: only the ETag tells
    }

    error = backend.refused("calendar.event.move", **move, expected_etag=planned)

    assert (error.code, error.retryable) == ("calendar.revision_mismatch", False)
    assert backend.snapshot("alice") == edited
    moved = backend.call("calendar.event.move", **move, expected_etag=_planned_etag(backend, how))
    assert (moved["revision"], moved["replayed"]) == (1, False)


def test_a_split_refused_half_way_takes_its_new_series_back(
    radicale: RadicaleServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The new series is written, then someone else edits the original before its
    ``If-Match`` rewrite: the adapter removes the new series again, so the refusal leaves
    the calendar as the other client left it (``before_effect``)."""
    backend = next(_on_dav("radicale", radicale.url, "changes"))
    backend.put("alice", STANDUP)
    real_put_new = ChangeWriter.put_new
    edited = STANDUP.replace("SUMMARY:Standup", "SUMMARY:Edited elsewhere")

    def put_new_then_edit(self: ChangeWriter, *args: Any) -> Any:
        written = real_put_new(self, *args)
        backend.put("alice", edited)
        return written

    monkeypatch.setattr(ChangeWriter, "put_new", put_new_then_edit)
    error = backend.refused(
        "calendar.event.move",
        object_id="standup",
        recurrence_id="2026-12-21T09:00:00Z",
        scope="THIS_AND_FUTURE",
        start="2026-12-21T11:00:00Z",
        end="2026-12-21T11:30:00Z",
    )

    assert error.code == "calendar.revision_mismatch"
    [stored] = backend.objects("alice")  # the new series is gone again
    assert [str(e["SUMMARY"]) for e in stored.walk("VEVENT")] == ["Edited elsewhere"]
    assert [start for uid, start, _end in backend.instances()] == [
        f"2026-12-{day}T09:00:00+00:00" for day in ("07", "14", "21", "28")
    ]


# ---------------------------------------------------------------------------- create


def test_create_stamps_organizer_and_attendees_and_read_resource_reads_it(
    backend: Backend,
) -> None:
    created = backend.call(
        "calendar.event.create",
        object_id="kickoff",
        start="2026-12-03T15:00:00Z",
        end="2026-12-03T16:00:00Z",
        title="Kickoff",
        organizer="mailto:alice@example.com",
        attendees=[
            {"address": "mailto:bob@example.com", "name": "Bob", "required": True},
            {"address": "carol@example.com", "name": None, "required": False},
        ],
    )

    assert (created["created"], created["revision"]) == (True, 0)
    [event] = [e for obj in backend.objects("alice") for e in obj.walk("VEVENT")]
    assert str(event["ORGANIZER"]) == "mailto:alice@example.com"
    people = {
        str(a): (a.params.get("ROLE"), a.params.get("PARTSTAT"), a.params.get("RSVP"))
        for a in event["ATTENDEE"]
    }
    assert people == {
        "mailto:bob@example.com": ("REQ-PARTICIPANT", "NEEDS-ACTION", "TRUE"),
        "mailto:carol@example.com": ("OPT-PARTICIPANT", "NEEDS-ACTION", "TRUE"),
    }
    assert int(event["SEQUENCE"]) == 0 and "METHOD" not in next(iter(backend.objects("alice")))
    resource = backend.adapter.read_resource("alice", "kickoff")  # type: ignore[attr-defined]
    assert [str(e["UID"]) for e in resource.walk("VEVENT")] == ["kickoff"]
    assert backend.adapter.read_resource("alice", "nothing") is None  # type: ignore[attr-defined]


def test_a_bad_attendee_address_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    files = {"alice": tmp_path / "alice.ics"}
    backend = Backend("ics", IcsFileCalendar(files, FakeClock(NOW)), files=files)
    backend.put("alice", REVIEW)
    before = backend.snapshot("alice")
    for capability, extra in (
        ("calendar.event.create", {"object_id": "x", "start": "2026-12-09T10:00:00Z",
                                   "end": "2026-12-09T11:00:00Z"}),
        ("calendar.event.update", {"object_id": "review", "title": "New"}),
    ):  # fmt: skip
        error = backend.refused(capability, **extra, attendees=[{"address": "bob at home"}])
        assert error.code == "change.bad_address"  # as calendars.changes says it
    assert backend.snapshot("alice") == before
