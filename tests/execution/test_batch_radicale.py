"""An optimised batch carried out on a real Radicale (issue #24's Must show, decision 0076).

The batch (:mod:`tests.plans.batch`): alice asks for three new meetings in her calendar
(the first also booked in room ``room-a``) and for the move of bob's 1:1 in bob's own
calendar. Its plan graph (:func:`draft_from_action_plan` with ``batch``) is submitted by
alice; carol approves the batch, bob (the owner) approves the move of his event; real
worker processes (:mod:`tests.execution._batch_worker_proc`) carry it out.

Read independently with the ``caldav`` library: every collection's events, their ranges,
``SEQUENCE`` (a move writes ``SEQUENCE`` + 1: exactly 1 means moved once) and
``X-CEREBRI-IDEMPOTENCY-KEY``; what the workers invoked from their journal (written before
each call).

The kill loop: worker processes die at seeded kill points (``CEREBRI_KILL_LOOP_SEED``
replays a run) and restart one lease later; approvals are given between runs once asked
for; creates blocked for verification are settled by reading the server. Nothing is
written before both approvals; at the end every event is there exactly once and the 1:1
moved once.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any, Final

import icalendar
import pytest
from caldav.davclient import DAVClient
from sqlalchemy import select

from cerebri.execution import ApprovalError, decide, list_approvals, resolve_step, submit
from cerebri.execution.adapters.fakes import journal_entries
from cerebri.execution.store import init, open_engine, parse_store_url
from cerebri.execution.store.schema import plans, steps
from cerebri.plans import PlanStatus, StepStatus, draft_from_action_plan
from tests._radicale import RadicaleServer
from tests.execution import _batch_worker_proc as proc
from tests.execution._caldav_worker_proc import Killer
from tests.plans import batch

pytestmark = pytest.mark.processes

LEASE_SECONDS: Final = 10
SCRIPT: Final = Path(proc.__file__)
DEFAULT_SEED: Final = 20261203
SEED_ENV: Final = "CEREBRI_KILL_LOOP_SEED"
KILL_AFTER: Final = (3, 30)
"""The range of each run's kill point (the whole batch passes about 60 points)."""
MAX_RUNS: Final = 20
MAX_KILLS: Final = 6
"""Runs after this many kills are not killed (bounded time; each run costs 1-3 s)."""
WRITES: Final = ("calendar.event.create", "calendar.event.move")
OPERATOR: Final = "principal:operator"


def _uid(meeting: str) -> str:
    """A created event's own UID (decision 0083), computed here from its definition."""
    return f"{meeting}-{hashlib.sha256(batch.PLAN_ID.encode()).hexdigest()[:12]}@cerebri"


# what the server must hold at the end: (calendar, uid) -> (start, end, idempotency key)
EXPECTED: Final = {
    (batch.ALICE_CAL, _uid("batch-interview-1")): ("20310505T090000Z", "20310505T100000Z", 0),
    (batch.ROOM_CAL, _uid("batch-interview-1")): ("20310505T090000Z", "20310505T100000Z", 0),
    (batch.ALICE_CAL, _uid("batch-interview-2")): ("20310505T100000Z", "20310505T110000Z", 1),
    (batch.BOB_CAL, "bob-1on1"): ("20310505T140000Z", "20310505T143000Z", 2),
    (batch.ALICE_CAL, _uid("batch-debrief")): ("20310505T110000Z", "20310505T113000Z", 3),
}

_BOB_1ON1: Final = (
    "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//cerebri tests//batch//EN\r\n"
    "BEGIN:VEVENT\r\nUID:bob-1on1\r\nDTSTAMP:20310401T000000Z\r\n"
    "DTSTART:20310505T090000Z\r\nDTEND:20310505T093000Z\r\nSUMMARY:1:1\r\n"
    "SEQUENCE:0\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
)


class World:
    """The collections, the store and the worker runs so far."""

    def __init__(self, store_url: str, collections: dict[str, Any], journal: Path) -> None:
        self.store_url = store_url
        self.collections = collections
        self.urls = {name: str(c.url) for name, c in collections.items()}
        self.journal = journal
        self.offset = 0.0
        self.kills = 0
        self.log: list[str] = []

    def run(self, kill_after: int | None) -> int:
        """One worker process until idle or killed; its return code."""
        command = [sys.executable, str(SCRIPT), "--store", self.store_url]
        for name, url in self.urls.items():
            command += ["--calendar", f"{name}={url}"]
        command += ["--journal", str(self.journal), "--clock-offset", str(self.offset)]
        command += ["--lease", str(LEASE_SECONDS)]
        if kill_after is not None:
            command += ["--kill-after", str(kill_after)]
        began = time.monotonic()
        done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
        self.offset += LEASE_SECONDS + 1  # the next worker is past every lease this one held
        last = [line for line in done.stdout.splitlines() if line.startswith("point ")][-1:]
        self.log.append(
            f"kill_after={kill_after} rc={done.returncode} {last} {time.monotonic() - began:.1f}s"
        )
        if done.returncode == -signal.SIGKILL:
            self.kills += 1
        else:
            assert done.returncode == 0, (done.returncode, done.stdout[-2000:], done.stderr)
        return done.returncode

    def here(self) -> Any:
        """An executor in this process (approvals, the operator)."""
        return proc.build(self.store_url, self.urls, self.journal.with_suffix(".here"), 0,
                          Killer(None))  # fmt: skip

    def events(self) -> dict[tuple[str, str], Any]:
        """(calendar, UID) -> VEVENT, every event of every collection, read with caldav."""
        found: dict[tuple[str, str], Any] = {}
        for name, collection in self.collections.items():
            for obj in collection.events():
                for event in icalendar.Calendar.from_ical(obj.data).walk("VEVENT"):
                    key = (name, str(event["UID"]))
                    assert key not in found, key  # one event per UID per calendar
                    found[key] = event
        return found

    def writes(self) -> list[dict[str, Any]]:
        return [e for e in journal_entries(self.journal) if e["capability"] in WRITES]

    def rows(self, table: Any) -> list[Any]:
        engine = open_engine(parse_store_url(self.store_url))
        try:
            with engine.connect() as connection:
                return list(connection.execute(select(table)).all())
        finally:
            engine.dispose()


@pytest.fixture
def world(radicale: RadicaleServer, tmp_path: Path, request: pytest.FixtureRequest) -> Any:
    """The three collections (bob's 1:1 in his) and a SQLite store (the store matrix of the
    other kill loops covers PostgreSQL)."""
    store_url = f"sqlite:///{tmp_path / 'store.sqlite3'}"
    user = f"batch-{request.node.name.split('[')[0][-12:]}"
    client = DAVClient(url=radicale.url, username=user, password="unused")
    principal = client.principal()
    collections = {
        name: principal.make_calendar(name=name, cal_id=name)
        for name in (batch.ALICE_CAL, batch.BOB_CAL, batch.ROOM_CAL)
    }
    bob = collections[batch.BOB_CAL]  # a raw PUT: the library's save_event bumps SEQUENCE
    headers = {"Content-Type": "text/calendar; charset=utf-8"}
    assert client.put(f"{bob.url}bob-1on1.ics", _BOB_1ON1, headers).status in (201, 204)
    init(store_url)
    yield World(store_url, collections, tmp_path / "journal.jsonl")
    for collection in collections.values():
        collection.delete()
    client.close()


def _submit(world: World) -> str:
    draft = draft_from_action_plan(
        batch.action_plan(), batch=batch.approvals(), titles=batch.TITLES
    )
    return submit(world.here(), draft, requester=batch.REQUESTER).plan_id


def _open_gate(world: World) -> dict[str, Any] | None:
    (gate, *more) = list_approvals(world.here()) or [None]
    assert not more, more  # the gates are asked one after the other
    return gate


def _untouched(world: World) -> None:
    """Nothing written: only bob's 1:1, where it was, SEQUENCE 0; no write invoked."""
    events = world.events()
    assert list(events) == [(batch.BOB_CAL, "bob-1on1")]
    event = events[(batch.BOB_CAL, "bob-1on1")]
    assert event.decoded("DTSTART").strftime("%Y%m%dT%H%M%SZ") == "20310505T090000Z"
    assert int(event["SEQUENCE"]) == 0
    assert world.writes() == []


def _assert_done_once(world: World) -> None:
    """Every event of the batch on the server exactly once, where the batch put it."""
    events = world.events()
    assert set(events) == set(EXPECTED)
    for key, (start, end, index) in EXPECTED.items():
        event = events[key]
        assert event.decoded("DTSTART").strftime("%Y%m%dT%H%M%SZ") == start, key
        assert event.decoded("DTEND").strftime("%Y%m%dT%H%M%SZ") == end, key
        suffix = "-room" if key[0] == batch.ROOM_CAL else ""
        idempotency = f"{batch.PLAN_ID}-{index}{suffix}"
        assert str(event["X-CEREBRI-IDEMPOTENCY-KEY"]) == idempotency, key
    assert int(events[(batch.BOB_CAL, "bob-1on1")]["SEQUENCE"]) == 1  # moved exactly once
    assert str(events[(batch.ALICE_CAL, _uid("batch-debrief"))]["SUMMARY"]) == "Debrief"


def test_batch_is_approved_by_the_batch_approver_and_the_owner_then_written_once(
    world: World,
) -> None:
    plan_id = _submit(world)
    here = world.here()

    assert world.run(None) == 0  # asks for the batch's approval; writes nothing
    gate = _open_gate(world)
    assert gate is not None and gate["request"]["step"]["key"] == "approve-batch"
    assert "approver" not in gate["request"]
    _untouched(world)
    with pytest.raises(ApprovalError) as refused:  # alice may not approve her own batch
        decide(here, gate["id"], approve=True, by=batch.REQUESTER)
    assert refused.value.code == "approval.self_approval"
    decide(here, gate["id"], approve=True, by=batch.BATCH_APPROVER)

    assert world.run(None) == 0  # asks bob for the move of his event; writes nothing
    owner = _open_gate(world)
    assert owner is not None and owner["request"]["step"]["key"] == "approve-owner-2"
    assert owner["request"]["approver"] == batch.OWNER
    _untouched(world)
    with pytest.raises(ApprovalError) as refused:  # carol is an approver, not the owner
        decide(here, owner["id"], approve=True, by=batch.BATCH_APPROVER)
    assert refused.value.code == "approval.not_approver"
    decide(here, owner["id"], approve=True, by=batch.OWNER)

    assert world.run(None) == 0
    _assert_done_once(world)
    assert {r.status for r in world.rows(plans) if r.id == plan_id} == {"completed"}
    done = {r.key: r.status for r in world.rows(steps) if r.plan_id == plan_id}
    assert set(done.values()) == {StepStatus.COMPLETED.value}, done
    # each write invoked once, with its own key; nothing asked twice
    invoked = Counter((e["capability"], e["target"]) for e in world.writes())
    assert invoked == Counter(
        {
            ("calendar.event.create", _uid("batch-interview-1")): 2,  # alice's, the room's
            ("calendar.event.create", _uid("batch-interview-2")): 1,
            ("calendar.event.move", "bob-1on1"): 1,
            ("calendar.event.create", _uid("batch-debrief")): 1,
        }
    )
    assert len(list_approvals(here, status=None)) == 2


def test_an_owner_who_refuses_leaves_nothing_written(world: World) -> None:
    plan_id = _submit(world)
    here = world.here()
    world.run(None)
    decide(here, _open_gate(world)["id"], approve=True, by=batch.BATCH_APPROVER)  # type: ignore[index]
    world.run(None)
    owner = _open_gate(world)
    assert owner is not None
    decide(here, owner["id"], approve=False, by=batch.OWNER, reason="not that afternoon")
    world.run(None)
    _untouched(world)
    status = {r.id: r.status for r in world.rows(plans)}[plan_id]
    assert status not in (PlanStatus.COMPLETED.value, PlanStatus.EXECUTING.value), status


def _settle_blocked(world: World, rng: random.Random) -> int:
    """Each write blocked for verification, settled by reading the server: present,
    at random confirmed or run again (adopted); absent, run again."""
    here = world.here()
    events = world.events()
    blocked = [
        r
        for r in world.rows(steps)
        if r.status == StepStatus.BLOCKED.value
        and (r.status_reason or "").startswith("needs_verification")
    ]
    for row in blocked:
        params = json.loads(row.spec)["params"]
        present = (params["calendar_id"], params["object_id"]) in events
        resolve_step(here, row.id, happened=present and rng.random() < 0.5, by=OPERATOR)
    return len(blocked)


def test_kill_loop_carries_the_batch_out_exactly_once(world: World) -> None:
    seed = int(os.environ.get(SEED_ENV, DEFAULT_SEED))
    print(f"batch kill loop seed {seed} ({SEED_ENV} replays it)")
    rng = random.Random(seed)
    plan_id = _submit(world)
    here = world.here()
    approved: list[str] = []
    settled = 0
    for _ in range(MAX_RUNS):
        kill = rng.randint(*KILL_AFTER) if world.kills < MAX_KILLS else None
        code = world.run(kill)
        if len(approved) < 2:  # nothing may be written before both approvals
            _untouched(world)
        gate = _open_gate(world)
        if gate is not None:
            step = gate["request"]["step"]["key"]
            by = batch.OWNER if step.startswith("approve-owner") else batch.BATCH_APPROVER
            decide(here, gate["id"], approve=True, by=by)
            approved.append(step)
            continue
        settled += _settle_blocked(world, rng)
        status = {r.id: r.status for r in world.rows(plans)}[plan_id]
        if code == 0 and status == PlanStatus.COMPLETED.value:
            break
    else:
        pytest.fail(f"seed {seed}: not done after {MAX_RUNS} runs: {world.log}")
    print("\n".join(world.log))
    assert approved == ["approve-batch", "approve-owner-2"], (seed, approved)
    assert world.kills >= 4, (seed, world.log)
    _assert_done_once(world)
    moves = [e for e in world.writes() if e["capability"] == "calendar.event.move"]
    print(
        f"seed {seed}: {world.kills} kills, {settled} writes settled by the operator, "
        f"{len(world.writes())} writes invoked, {len(moves)} move invocations"
    )
