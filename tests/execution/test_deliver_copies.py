"""Changes delivered into every attendee's calendar (issue #23, decision 0057).

A weekly series organized by alice (calendar ``work``) with copies in bob's and carol's
calendars (at other resource names than alice's on CalDAV) is moved for one instance,
cancelled for one instance, cancelled as a whole, and updated with carol removed, each
through the plan graph (one approval, the fake clock), on ``.ics`` files and on Radicale,
Xandikos and Cyrus. Every calendar is then read with icalendar and recurring-ical-events
only (for CalDAV through :mod:`tests._dav_reader`, the ``caldav`` library) and compared with
events written out by hand: each event once, with its SEQUENCE, bob's own
``PARTSTAT=ACCEPTED`` kept, carol's copy made where she had none. A repeat of every delivery
writes nothing.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import icalendar
import pytest
import recurring_ical_events

from cerebri.calendars.changes import resource_etag
from cerebri.clock import FakeClock, SequentialIds
from cerebri.cpir import MutationKind
from cerebri.cpir.scalars import TimeRange
from cerebri.execution import Executor, list_approvals, show_plan, submit
from cerebri.execution import store as execution_store
from cerebri.execution.adapters import (
    AdapterError,
    Adapters,
    CalDavCalendar,
    IcsFileCalendar,
    Invocation,
    default_adapters,
)
from cerebri.execution.adapters.itip_delivery import with_itip_delivery
from cerebri.integrations.credentials import CalDAVLogins
from cerebri.plans import draft_from_action_plan
from cerebri.temporal import Instant
from tests._dav_servers import CalDavServer
from tests.execution._ics_change_world import run_and_approve
from tests.plans.test_change_drafts import _change, _plan

UID = "weekly-copies@example.com"
RID = "2026-10-05T08:00:00Z"  # the second Monday, 10:00 in Berlin
ALICE, BOB, CAROL = (f"mailto:{p}@example.com" for p in ("alice", "bob", "carol"))
PEOPLE = [
    {"address": ALICE, "name": "Alice", "required": True, "calendar_id": "work"},
    {"address": BOB, "name": "Bob", "required": True, "calendar_id": "bob"},
    {"address": CAROL, "name": "Carol", "required": True, "calendar_id": "carol"},
]


def _series(bob_partstat: str) -> str:
    """Mondays 10:00-11:00 Berlin from 2026-09-28, four times, SEQUENCE 2; alice's copy has
    bob at NEEDS-ACTION, bob's own copy has his answer."""
    return (
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//copies//EN\r\n"
        f"BEGIN:VEVENT\r\nUID:{UID}\r\nDTSTAMP:20260901T000000Z\r\n"
        "DTSTART;TZID=Europe/Berlin:20260928T100000\r\n"
        "DTEND;TZID=Europe/Berlin:20260928T110000\r\n"
        "RRULE:FREQ=WEEKLY;COUNT=4\r\nSEQUENCE:2\r\nSUMMARY:Weekly\r\n"
        "ORGANIZER;CN=Alice:mailto:alice@example.com\r\n"
        "ATTENDEE;ROLE=REQ-PARTICIPANT;PARTSTAT=ACCEPTED:mailto:alice@example.com\r\n"
        f"ATTENDEE;ROLE=REQ-PARTICIPANT;PARTSTAT={bob_partstat}:mailto:bob@example.com\r\n"
        "ATTENDEE;ROLE=REQ-PARTICIPANT;PARTSTAT=NEEDS-ACTION:mailto:carol@example.com\r\n"
        "END:VEVENT\r\nEND:VCALENDAR\r\n"
    )


def _utc(*parts: int) -> datetime:
    return datetime(*parts, tzinfo=UTC)


MONDAYS = [_utc(2026, 9, 28, 8), _utc(2026, 10, 5, 8), _utc(2026, 10, 12, 8), _utc(2026, 10, 19, 8)]
MOVED = _utc(2026, 10, 5, 12)  # _plan's action: 2026-10-05 12:00-12:45 UTC


# -- reading, independently of cerebri ------------------------------------------------------


def _when(value: Any) -> datetime:
    return value.dt.astimezone(UTC)


def _partstat(event: Any, address: str) -> str | None:
    found = event.get("ATTENDEE")
    for line in found if isinstance(found, list) else [found] if found else []:
        if str(line).lower() == address:
            return str(line.params.get("PARTSTAT"))
    return None


def _read(calendars: list[icalendar.Calendar], person: str) -> dict[str, Any]:
    """What one calendar holds: its events (UID, RECURRENCE-ID, start, SEQUENCE, the
    person's PARTSTAT, EXDATEs), the instances in October, and resources per UID."""
    events, instances, resources = [], [], []
    for calendar in calendars:
        assert "METHOD" not in calendar  # RFC 4791 4.1
        resources += sorted({str(e["UID"]) for e in calendar.walk("VEVENT")})
        for event in calendar.walk("VEVENT"):
            exdates = event.get("EXDATE")
            listed = exdates if isinstance(exdates, list) else [exdates] if exdates else []
            events.append(
                (
                    str(event["UID"]),
                    _when(event["RECURRENCE-ID"]) if "RECURRENCE-ID" in event else None,
                    _when(event["DTSTART"]),
                    int(event.get("SEQUENCE", 0)),
                    _partstat(event, person),
                    sorted(d.dt.astimezone(UTC) for x in listed for d in x.dts),
                )
            )
            assert not [k for k in event if str(k).startswith("X-CEREBRI-")] or person == ALICE
        window = recurring_ical_events.of(calendar).between(_utc(2026, 9, 1), _utc(2026, 11, 1))
        instances += [(str(e["UID"]), _when(e["DTSTART"])) for e in window]
    return {
        "events": sorted(events, key=lambda e: (e[0], e[1] is not None, str(e[1]))),
        "instances": sorted(instances),
        "resources": sorted(resources),
    }


def _event(partstat: str | None, *, rid: datetime | None = None, start: datetime = MONDAYS[0],
           sequence: int = 2, exdates: tuple[datetime, ...] = ()) -> tuple[Any, ...]:  # fmt: skip
    return (UID, rid, start, sequence, partstat, list(exdates))


def _holding(events: list[tuple[Any, ...]], starts: list[datetime]) -> dict[str, Any]:
    return {
        "events": events,
        "instances": [(UID, s) for s in sorted(starts)],
        "resources": [UID] if events else [],
    }


# -- the world: calendars, adapters, executor -------------------------------------------------


@dataclasses.dataclass
class World:
    executor: Executor
    adapters: Adapters
    read: Callable[[str], dict[str, Any]]  # calendar id -> _read of it


def _world(
    tmp_path: Path, calendar_adapters: Callable[[FakeClock], Adapters], read: Any
) -> Iterator[World]:
    url = f"sqlite:///{tmp_path / 'store.sqlite3'}"
    execution_store.init(url)
    engine = execution_store.open_engine(execution_store.parse_store_url(url))
    clock = FakeClock(Instant.parse("2026-10-01T08:00:00Z"))
    outbox = tmp_path / "outbox"
    outbox.mkdir()
    adapters = with_itip_delivery(calendar_adapters(clock), clock, outbox=outbox)
    try:
        yield World(Executor(engine, clock, SequentialIds("g"), adapters=adapters), adapters, read)
    finally:
        engine.dispose()


WHO = {"work": ALICE, "bob": BOB, "carol": CAROL}


@pytest.fixture
def ics_world(tmp_path: Path) -> Iterator[tuple[World, Callable[..., None]]]:
    files = {name: tmp_path / f"{name}.ics" for name in WHO}

    def seed(calendar_id: str, text: str) -> None:
        files[calendar_id].write_text(text, encoding="utf-8")

    def read(calendar_id: str) -> dict[str, Any]:
        path = files[calendar_id]
        found = [icalendar.Calendar.from_ical(path.read_bytes())] if path.exists() else []
        return _read(found, WHO[calendar_id])

    for world in _world(tmp_path, lambda c: default_adapters(c, ics_calendars=files), read):
        yield world, seed


@pytest.fixture
def dav_world(
    dav_matrix: CalDavServer, people_calendars: dict[str, str], tmp_path: Path
) -> Iterator[tuple[World, Callable[..., None]]]:
    urls = {"work": people_calendars["alice"], "bob": people_calendars["bob"]}
    urls["carol"] = people_calendars["carol"]
    users = {"work": "alice", "bob": "bob", "carol": "carol"}
    logins = CalDAVLogins.load(
        credentials_file=dav_matrix.write_credentials(tmp_path / "logins.json"),
        username=None,
        password=None,
        environ={},
        home=None,
    )

    def seed(calendar_id: str, text: str) -> None:
        # the copies live under other names than alice's event (found by UID, not by name)
        name = None if calendar_id == "work" else f"{calendar_id}-copy-of-weekly.ics"
        dav_matrix.reader(users[calendar_id], urls[calendar_id]).seed(text, name)

    def read(calendar_id: str) -> dict[str, Any]:
        objects = dav_matrix.reader(users[calendar_id], urls[calendar_id]).objects()
        return _read([o.calendar for o in objects], WHO[calendar_id])

    def adapters(clock: FakeClock) -> Adapters:
        return default_adapters(clock, caldav_calendars=urls, caldav_logins=logins)

    try:
        for world in _world(tmp_path, adapters, read):
            yield world, seed
    finally:  # Cyrus keeps a UID unique across a person's calendars: leave none behind
        for calendar_id, url in urls.items():
            with dav_matrix.client(users[calendar_id]) as client:
                client.delete(url)


# -- carrying a change out ------------------------------------------------------------------


def _carry_out(world: World, kind: MutationKind, scope: str, **extra: Any) -> dict[str, Any]:
    """Plan ``kind`` of the series (or of the instance at RID), submit, run, approve once,
    run: the plan as shown."""
    plan, action = _plan(kind, revision=2)
    if scope == "SERIES" and kind is MutationKind.UPDATE_EVENT:  # no move: the first range
        first = TimeRange(start=Instant.parse("2026-09-28T08:00:00Z"),
                          end=Instant.parse("2026-09-28T09:00:00Z"))  # fmt: skip
        action = dataclasses.replace(
            action, placement=dataclasses.replace(action.placement, range=first)
        )
        plan = dataclasses.replace(plan, actions=(action,))
    calendar = world.adapters.get("calendar.event.get")
    assert isinstance(calendar, IcsFileCalendar | CalDavCalendar)
    resource = calendar.read_resource("work", UID)
    assert resource is not None
    change = _change(
        scope,
        uid=UID,
        recurrence_id=None if scope == "SERIES" else RID,
        etag=resource_etag(resource),
        sequence=2,
        organizer=ALICE,
        **{"attendees": PEOPLE, **extra},
    )
    draft = draft_from_action_plan(
        plan, change=change, previous_attendees=PEOPLE, titles={action.target: "Weekly"}
    )
    executor = world.executor
    plan_id = submit(executor, draft, requester="principal:alice").plan_id
    run_and_approve(executor)
    assert len(list_approvals(executor, status=None)) == 1  # one decision for the change
    shown = show_plan(executor, plan_id)
    assert shown["status"] == "completed"
    return {"draft": draft, "action": action}


def _repeat_writes_nothing(world: World, draft: Any) -> None:
    before = {c: world.read(c) for c in WHO}
    delivery = world.adapters.get("calendar.itip.deliver")
    assert delivery is not None
    delivers = [s for s in draft.steps if s.capability == "calendar.itip.deliver"]
    assert delivers
    for step in delivers:
        result = delivery.invoke(
            Invocation(step.capability, step.target, step.params, "plan_step:again", "again:1")
        )
        assert result["written"] is False
        assert result["outcome"] in ("unchanged", "absent")
    assert {c: world.read(c) for c in WHO} == before


def _seed(seed: Callable[..., None], *, carol: bool = True) -> None:
    seed("work", _series("NEEDS-ACTION"))
    seed("bob", _series("ACCEPTED"))
    if carol:
        seed("carol", _series("NEEDS-ACTION"))


# -- the scenarios, on both kinds of calendar -----------------------------------------------


def _move_one_instance(world: World, seed: Callable[..., None]) -> None:
    _seed(seed, carol=False)  # carol has no copy yet: she gets one
    done = _carry_out(world, MutationKind.MOVE_EVENT, "INSTANCE")
    starts = [MONDAYS[0], MOVED, MONDAYS[2], MONDAYS[3]]
    # the moved instance is asked again (RFC 6638 3.2.8, decision 0073): bob's answer to
    # the series stays, his answer to the instance's old time does not; alice organizes
    for calendar_id, partstat, moved in (("work", "ACCEPTED", "ACCEPTED"),
                                         ("bob", "ACCEPTED", "NEEDS-ACTION"),
                                         ("carol", "NEEDS-ACTION", "NEEDS-ACTION")):  # fmt: skip
        expected = [
            _event(partstat),
            _event(moved, rid=MONDAYS[1], start=MOVED, sequence=3),
        ]
        assert world.read(calendar_id) == _holding(expected, starts), calendar_id
    _repeat_writes_nothing(world, done["draft"])


def _cancel_one_instance(world: World, seed: Callable[..., None]) -> None:
    _seed(seed)
    done = _carry_out(world, MutationKind.DELETE_EVENT, "INSTANCE")
    starts = [MONDAYS[0], MONDAYS[2], MONDAYS[3]]
    for calendar_id, partstat in (("work", "ACCEPTED"), ("bob", "ACCEPTED"),
                                  ("carol", "NEEDS-ACTION")):  # fmt: skip
        expected = [_event(partstat, sequence=3, exdates=(MONDAYS[1],))]
        assert world.read(calendar_id) == _holding(expected, starts), calendar_id
    _repeat_writes_nothing(world, done["draft"])


def _cancel_whole(world: World, seed: Callable[..., None]) -> None:
    _seed(seed)
    done = _carry_out(world, MutationKind.DELETE_EVENT, "SERIES")
    for calendar_id in WHO:
        assert world.read(calendar_id) == _holding([], []), calendar_id
    _repeat_writes_nothing(world, done["draft"])


def _update_removing_carol(world: World, seed: Callable[..., None]) -> None:
    _seed(seed)
    kept = [p for p in PEOPLE if p["address"] != CAROL]
    done = _carry_out(
        world, MutationKind.UPDATE_EVENT, "SERIES", attendees=kept, title="Weekly (new)"
    )
    for calendar_id, partstat in (("work", "ACCEPTED"), ("bob", "ACCEPTED")):
        assert world.read(calendar_id) == _holding([_event(partstat, sequence=3)], MONDAYS)
    assert world.read("carol") == _holding([], [])  # her copy went with her invitation
    _repeat_writes_nothing(world, done["draft"])


def _update_one_instance_removing_carol(world: World, seed: Callable[..., None]) -> None:
    _seed(seed)
    kept = [p for p in PEOPLE if p["address"] != CAROL]
    done = _carry_out(world, MutationKind.UPDATE_EVENT, "INSTANCE", attendees=kept, title="Long")
    starts = [MONDAYS[0], MOVED, MONDAYS[2], MONDAYS[3]]
    for calendar_id, moved in (("work", "ACCEPTED"), ("bob", "NEEDS-ACTION")):  # new time (0073)
        expected = [_event("ACCEPTED"), _event(moved, rid=MONDAYS[1], start=MOVED, sequence=3)]
        assert world.read(calendar_id) == _holding(expected, starts), calendar_id
    # carol is no longer invited to that one instance: her copy excludes it (RFC 5545 3.8.5.1)
    carol = [_event("NEEDS-ACTION", exdates=(MONDAYS[1],))]
    assert world.read("carol") == _holding(carol, [MONDAYS[0], MONDAYS[2], MONDAYS[3]])
    _repeat_writes_nothing(world, done["draft"])


def _split_uid(action_key: str) -> str:
    """decision 0050: sha256 over uid, recurrence id and the change's key, 32 hex digits."""
    text = "\x00".join((UID, RID, action_key))
    return hashlib.sha256(text.encode()).hexdigest()[:32] + "-split@cerebri"


def test_ics_calendars_this_and_future_delivers_both_series(
    ics_world: tuple[World, Callable[..., None]],
) -> None:
    world, seed = ics_world
    _seed(seed)
    done = _carry_out(world, MutationKind.MOVE_EVENT, "THIS_AND_FUTURE")
    new_uid = _split_uid(done["action"].idempotency_key)
    later = [MOVED, _utc(2026, 10, 12, 12), _utc(2026, 10, 19, 12)]
    for calendar_id, partstat in (("work", "ACCEPTED"), ("bob", "ACCEPTED"),
                                  ("carol", "NEEDS-ACTION")):  # fmt: skip
        held = world.read(calendar_id)
        assert held["resources"] == sorted([UID, new_uid]), calendar_id
        # the split-off series is a new event (a new UID): bob has not answered it yet, as
        # its REQUEST says (decision 0057); the organizer's own answer stays hers
        fresh = "ACCEPTED" if calendar_id == "work" else "NEEDS-ACTION"
        assert [(e[0], e[1], e[2], e[3], e[4]) for e in held["events"]] == sorted(
            [(new_uid, None, MOVED, 0, fresh), (UID, None, MONDAYS[0], 3, partstat)]
        ), calendar_id
        assert held["instances"] == sorted(
            [(UID, MONDAYS[0])] + [(new_uid, start) for start in later]
        ), calendar_id
    _repeat_writes_nothing(world, done["draft"])


SCENARIOS = {
    "move-one-instance": _move_one_instance,
    "cancel-one-instance": _cancel_one_instance,
    "cancel-whole": _cancel_whole,
    "update-removing-carol": _update_removing_carol,
}


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_ics_calendars(ics_world: tuple[World, Callable[..., None]], scenario: str) -> None:
    SCENARIOS[scenario](*ics_world)


def test_ics_calendars_one_instance_without_an_attendee(
    ics_world: tuple[World, Callable[..., None]],
) -> None:
    _update_one_instance_removing_carol(*ics_world)


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_caldav_calendars(dav_world: tuple[World, Callable[..., None]], scenario: str) -> None:
    SCENARIOS[scenario](*dav_world)


# -- the adapter's own rules ----------------------------------------------------------------


def _deliver(adapters: Adapters, **extra: Any) -> dict[str, Any]:
    params = {
        "calendar_id": "bob",
        "organizer_calendar_id": "work",
        "uid": UID,
        "method": "REQUEST",
        "sequence": 2,
        "attendee": BOB,
        "idempotency_key": "k-copy",
        **extra,
    }
    delivery = adapters.get("calendar.itip.deliver")
    assert delivery is not None
    return delivery.invoke(Invocation("calendar.itip.deliver", UID, params, "plan_step:s", "k:1"))


def test_a_later_copy_is_left_alone_and_a_moved_organizer_is_refused(
    ics_world: tuple[World, Callable[..., None]],
) -> None:
    world, seed = ics_world
    seed("work", _series("NEEDS-ACTION"))
    seed("bob", _series("ACCEPTED").replace("SEQUENCE:2", "SEQUENCE:9"))
    before = world.read("bob")
    assert _deliver(world.adapters)["outcome"] == "superseded"
    assert world.read("bob") == before
    with pytest.raises(AdapterError) as caught:
        _deliver(world.adapters, sequence=3)  # the organizer's event is at 2
    assert (caught.value.code, caught.value.before_effect) == ("itip.sequence_moved", True)
    with pytest.raises(AdapterError) as caught:
        _deliver(world.adapters, uid="gone@example.com")
    assert (caught.value.code, caught.value.before_effect) == ("calendar.not_found", True)
    assert world.read("bob") == before


def test_a_server_that_schedules_delivers_itself(tmp_path: Path) -> None:
    """With ``--server-schedules`` (RFC 6638) the worker writes no copy: the server does,
    and the plan's read-back of the attendee's calendar observes it (decision 0057)."""
    files = {name: tmp_path / f"{name}.ics" for name in WHO}
    files["work"].write_text(_series("NEEDS-ACTION"), encoding="utf-8")
    clock = FakeClock(Instant.parse("2026-10-01T08:00:00Z"))
    outbox = tmp_path / "outbox"
    adapters = with_itip_delivery(
        default_adapters(clock, ics_calendars=files), clock, outbox=outbox, server_schedules=True
    )
    result = _deliver(adapters)
    assert (result["outcome"], result["written"], result["delivery"]) == (
        "left_to_server",
        False,
        "server",
    )
    assert not files["bob"].exists()
