"""An optimised batch on its signed path through the command line, with the calendar owners
the store records (decisions 0076, 0077, 0082), real ``cerebri`` processes and ``.ics``
calendars.

alice asks for one new meeting ``m-a`` with ann and bob (created in ann's calendar
``ann-cal`` and booked in room ``r1``'s ``r1-cal``); the only hour ann has is the hour of
bob's "sync" in ``bob-cal``, so the optimiser moves the sync to bob's other hour. The store
says bob owns ``bob-cal`` (``cerebri principals own``): carol approves the batch, bob the
move of his event; carol deciding bob's gate and a decision signed with the wrong key are
refused. The worker then writes each event once; the ``.ics`` files are read back with
``icalendar``, not with cerebri's reader.

The second test names the wrong owner in the proposal: mallory (the request's person whose
calendar is ``bob-cal``). The store knew no owner when it was submitted and mallory
approved; then the store records bob as the owner, and the worker refuses the batch with
``approval.not_owner`` before any write. A new proposal that names mallory again is refused
at ``submit``.

The commands the test is about (``store init``, ``propose``, ``submit``, ``approvals
approve``, ``worker``) are processes of the installed ``cerebri`` executable; the chores
(keys, principals, grants, listing approvals) run through typer's test runner over the same
application, in this process: each process costs one to three seconds of imports.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import chdir, closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import icalendar
import pytest
from typer.testing import CliRunner

from cerebri.cli import app
from tests.optimize_wire.wire_helpers import MONDAY, existing, meeting, optimize_request

pytestmark = pytest.mark.processes

CEREBRI: Final = Path(sys.executable).parent / "cerebri"
TIMEOUT_SECONDS: Final = 120
WAIT_SECONDS: Final = 90.0
POLL_SECONDS: Final = 0.1
CALENDARS: Final = ("ann-cal", "bob-cal", "r1-cal")
_RUNNER: Final = CliRunner()


def _monday() -> datetime.date:
    """A Monday one to two weeks ahead of today (UTC): the worker and ``propose`` use the
    system clock, and an envelope is valid for at most a year."""
    today = datetime.datetime.now(datetime.UTC).date()
    return today + datetime.timedelta(days=14 - today.weekday())


def _request(day: datetime.date, owner_of_bob_cal: str, request_id: str) -> dict[str, Any]:
    """The batch (module doc), all times UTC. ann is free only 08-09Z and bob 08-10Z; the
    sync (bob only) sits at 08-09Z. By hand: m-a must take 08-09Z, the sync moves to 09-10Z
    (early 2 + early 3 + move 10 = 15; keeping the sync is infeasible)."""
    sync = existing("sync", MONDAY + "08:00:00Z", MONDAY + "09:00:00Z", calendar="bob-cal")
    bob = owner_of_bob_cal
    request = optimize_request(
        [meeting("m-a", ["ann", bob], room={}), meeting("sync", [bob])], objects=[sync]
    )
    ann_person, bob_person = request["batch"]["people"]
    ann_person.update(timezone="UTC", hours=[{"days": ["Mon"], "start": "08:00", "end": "09:00"}])
    bob_person.update(
        id=bob, timezone="UTC", hours=[{"days": ["Mon"], "start": "08:00", "end": "10:00"}]
    )
    request["request_id"] = request_id
    request["scope"]["movable_object_ids"] = ["sync"]
    request["budget"].update(max_repairs=1, max_moved_objects=1, max_depth=1)
    day_before = day - datetime.timedelta(days=1)
    text = json.dumps(request).replace(MONDAY, f"{day}T").replace("2026-10-04T", f"{day_before}T")
    moved: dict[str, Any] = json.loads(text)
    return moved


def _sync_ics(day: datetime.date) -> str:
    """bob's calendar: the sync at 08-09Z, revision (SEQUENCE) 2 as the request says."""
    stamp = day.strftime("%Y%m%d")
    return (
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//cerebri tests//owners//EN\r\n"
        f"BEGIN:VEVENT\r\nUID:sync\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:{stamp}T080000Z\r\n"
        f"DTEND:{stamp}T090000Z\r\nSUMMARY:Sync\r\nSEQUENCE:2\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
    )


@dataclass
class Team:
    """One store and folder: keys in ``keys/``, artifacts in ``objects/``, the calendars as
    ``<id>.ics``."""

    folder: Path
    day: datetime.date = field(default_factory=_monday)
    worker: subprocess.Popen[str] | None = None

    @property
    def store(self) -> str:
        return f"sqlite:///{self.folder / 'store.sqlite3'}"

    def process(self, *args: str) -> subprocess.CompletedProcess[str]:
        """``cerebri ARGS`` as a process of the installed executable, any exit code."""
        env = {**os.environ, "CEREBRI_STORE": self.store}
        return subprocess.run(
            [str(CEREBRI), *args],
            cwd=self.folder,
            env=env,
            capture_output=True,
            text=True,
            timeout=TIMEOUT_SECONDS,
            check=False,
        )

    def ok(self, *args: str) -> str:
        """:meth:`process`, failing the test on a non-zero exit; its stdout."""
        done = self.process(*args)
        assert done.returncode == 0, (args, done.stdout, done.stderr)
        return done.stdout

    def chore(self, *args: str, code: int = 0) -> str:
        """``cerebri ARGS`` in this process (typer's runner); its output. Fails the test
        unless it exits ``code``."""
        with chdir(self.folder):
            done = _RUNNER.invoke(app, list(args), env={"CEREBRI_STORE": self.store})
        assert done.exit_code == code, (args, done.output)
        return done.output

    def prepare(self) -> None:
        """Keys, principals, alice's grants and bob's calendar file (the store exists)."""
        for person in ("alice", "carol", "bob", "ann", "mallory"):
            principal = f"principal:{person}"
            self.chore("keys", "new", "--dir", "keys", person, "--principal", principal)
            role = "requester" if person == "alice" else "approver"
            self.chore("principals", "add", principal, "--role", role)
            self.chore("principals", "key", principal, "--keys", "keys", "--keyid", person)
        for capability, calendar in (
            ("calendar.event.create", "ann-cal"),
            ("calendar.event.create", "r1-cal"),
            ("calendar.event.move", "bob-cal"),
        ):
            self.chore("principals", "grant", "principal:alice", capability, "--calendar", calendar)
        (self.folder / "bob-cal.ics").write_text(_sync_ics(self.day), newline="")

    def propose(self, name: str, owner_of_bob_cal: str) -> list[str]:
        """Write ``<name>.json`` (the batch, naming ``owner_of_bob_cal``'s calendar
        ``bob-cal``); the arguments of ``propose`` signing it as alice's plan graph."""
        request = _request(self.day, owner_of_bob_cal, name)
        (self.folder / f"{name}.json").write_text(json.dumps(request), encoding="utf-8")
        return [
            "propose", f"{name}.json", "--as", "plan-graph", "--key", "keys/alice.pem",
            "--keyid", "alice", "--objects", "objects", "--expires-in", "30d",
            "--out", f"{name}.envelope.json",
        ]  # fmt: skip

    def envelope(self, name: str) -> dict[str, Any]:
        loaded: dict[str, Any] = json.loads((self.folder / f"{name}.envelope.json").read_text())
        return loaded

    def serves(self) -> list[str]:
        return [f"--ics-calendar={c}={c}.ics" for c in CALENDARS]

    def start_worker(self) -> None:
        """``cerebri worker`` in the background (as a deployment runs it)."""
        log = (self.folder / "worker.log").open("a", encoding="utf-8")
        with log:
            self.worker = subprocess.Popen(
                [str(CEREBRI), "worker", "--poll", "100ms", *self.serves()],
                cwd=self.folder,
                env={**os.environ, "CEREBRI_STORE": self.store},
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                text=True,
            )

    def stop_worker(self) -> None:
        """SIGTERM the worker this test started; fails the test on a non-zero exit."""
        worker, self.worker = self.worker, None
        if worker is None:
            return
        if worker.poll() is None:
            worker.send_signal(signal.SIGTERM)
            try:
                worker.wait(timeout=TIMEOUT_SECONDS)
            except subprocess.TimeoutExpired:
                worker.kill()
                worker.wait()
        log = (self.folder / "worker.log").read_text(encoding="utf-8")
        assert worker.returncode == 0, log

    def query(self, sql: str, *args: str) -> list[tuple[Any, ...]]:
        """A read-only look into the SQLite store (a poll per process would cost more)."""
        path = self.folder / "store.sqlite3"
        with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10)) as db:
            return list(db.execute(sql, args).fetchall())

    def wait(self, what: str, ready: Callable[[], Any]) -> Any:
        """Poll ``ready()`` until it answers something truthy (the worker is another
        process; nothing here moves time)."""
        deadline = time.monotonic() + WAIT_SECONDS
        while time.monotonic() < deadline:
            if self.worker is not None and self.worker.poll() is not None:
                raise AssertionError(f"the worker stopped while waiting for {what}")
            answer = ready()
            if answer:
                return answer
            time.sleep(POLL_SECONDS)
        raise AssertionError(f"gave up waiting for {what}")

    def asked(self, plan: str, step_key: str) -> str:
        """Wait for the plan's open approval of step ``step_key``; its id."""
        sql = (
            "SELECT a.id FROM approvals a JOIN steps s ON s.id = a.step_id "
            "WHERE a.plan_id = ? AND a.status = 'open' AND s.key = ?"
        )
        ((approval,),) = self.wait(f"{step_key} asked", lambda: self.query(sql, plan, step_key))
        return str(approval)

    def plan_status(self, plan: str) -> tuple[str, str]:
        ((status, reason),) = self.query(
            "SELECT status, status_reason FROM plans WHERE id = ?", plan
        )
        return str(status), str(reason or "")

    def events(self, calendar: str) -> list[Any]:
        """The VEVENTs of ``<calendar>.ics`` (none when the file does not exist)."""
        path = self.folder / f"{calendar}.ics"
        if not path.exists():
            return []
        return list(icalendar.Calendar.from_ical(path.read_bytes()).walk("VEVENT"))


@pytest.fixture
def team(tmp_path: Path) -> Iterator[Team]:
    made = Team(tmp_path)
    try:
        yield made
    finally:
        made.stop_worker()


def _utc(event: Any, name: str) -> str:
    return str(event.decoded(name).strftime("%Y%m%dT%H%M%SZ"))


def _untouched(team: Team) -> None:
    """Nothing written: bob's file as the test wrote it, no other calendar file."""
    assert (team.folder / "bob-cal.ics").read_bytes() == _sync_ics(team.day).encode()
    assert not (team.folder / "ann-cal.ics").exists()
    assert not (team.folder / "r1-cal.ics").exists()


def test_the_owner_of_the_store_approves_the_move_and_the_batch_is_written_once(
    team: Team,
) -> None:
    team.ok("store", "init")
    team.prepare()
    team.chore("principals", "own", "principal:bob", "bob-cal")
    team.chore("principals", "own", "principal:ann", "ann-cal")  # creates there ask no one
    team.ok(*team.propose("batch", "bob"))
    key = team.envelope("batch")["idempotency/key"]
    submitted = team.ok("submit", "batch.envelope.json", "--objects", "objects", "--json")
    plan = json.loads(submitted)["plan_id"]
    team.start_worker()

    batch_gate = team.asked(plan, "approve-batch")
    _untouched(team)
    team.ok(
        "approvals", "approve", batch_gate, "--as", "principal:carol", "--key", "keys/carol.pem"
    )

    owner_gate = team.asked(plan, "approve-owner-1")  # the move of bob's sync (action 1)
    carol = team.chore(
        "approvals", "approve", owner_gate, "--as", "principal:carol", "--key",
        "keys/carol.pem", code=2,
    )  # fmt: skip
    assert "approval.not_approver" in carol
    forged = team.process(
        "approvals", "approve", owner_gate, "--as", "principal:bob", "--key", "keys/mallory.pem"
    )
    assert forged.returncode == 2
    assert "approval.wrong_key" in forged.stderr + forged.stdout
    assert team.query("SELECT status FROM approvals WHERE id = ?", owner_gate) == [("open",)]
    _untouched(team)
    team.ok("approvals", "approve", owner_gate, "--as", "principal:bob", "--key", "keys/bob.pem")

    status = team.wait(
        "the plan to finish",
        lambda: (s := team.plan_status(plan))[0] in {"completed", "failed"} and s,
    )
    team.stop_worker()
    assert status == ("completed", "")
    stamp = team.day.strftime("%Y%m%d")
    [meeting_event] = team.events("ann-cal")
    [room_event] = team.events("r1-cal")
    [sync] = team.events("bob-cal")
    for event, suffix in ((meeting_event, ""), (room_event, "-room")):
        # the created meeting's own UID (decision 0083): meeting id, 12 hex of the plan id
        assert str(event["UID"]) == f"m-a-{hashlib.sha256(key.encode()).hexdigest()[:12]}@cerebri"
        assert (_utc(event, "DTSTART"), _utc(event, "DTEND")) == (
            f"{stamp}T080000Z",
            f"{stamp}T090000Z",
        )
        assert int(event["SEQUENCE"]) == 0
        assert str(event["X-CEREBRI-IDEMPOTENCY-KEY"]) == f"{key}-0{suffix}"
    assert str(sync["UID"]) == "sync"
    assert (_utc(sync, "DTSTART"), _utc(sync, "DTEND")) == (f"{stamp}T090000Z", f"{stamp}T100000Z")
    assert int(sync["SEQUENCE"]) == 3  # 2 + one move: moved exactly once
    assert str(sync["X-CEREBRI-IDEMPOTENCY-KEY"]) == f"{key}-1"
    decided = team.query(
        "SELECT s.key, a.decided_by FROM approvals a JOIN steps s ON s.id = a.step_id "
        "WHERE a.plan_id = ? AND a.status = 'approved' ORDER BY s.key",
        plan,
    )
    assert decided == [("approve-batch", "principal:carol"), ("approve-owner-1", "principal:bob")]


def test_a_proposal_naming_the_wrong_owner_is_refused_when_it_acts_and_at_submit(
    team: Team,
) -> None:
    team.chore("store", "init")
    team.prepare()
    # the request says the person whose calendar is bob-cal is mallory; nobody owns bob-cal
    # in the store yet, so the plan is taken in and asks mallory
    team.chore(*team.propose("wrong", "mallory"))
    submitted = team.ok("submit", "wrong.envelope.json", "--objects", "objects", "--json")
    plan = json.loads(submitted)["plan_id"]
    worker = ["worker", "--until-idle", "--poll", "50ms", *team.serves()]
    team.chore(*worker)
    gate = team.asked(plan, "approve-batch")
    team.chore("approvals", "approve", gate, "--as", "principal:carol", "--key", "keys/carol.pem")
    team.chore(*worker)
    gate = team.asked(plan, "approve-owner-1")
    team.chore(
        "approvals", "approve", gate, "--as", "principal:mallory", "--key", "keys/mallory.pem"
    )
    team.chore("principals", "own", "principal:bob", "bob-cal")  # the store's record

    team.ok(*worker)
    status, reason = team.plan_status(plan)
    assert status == "failed"
    assert reason.startswith(
        "approval.not_owner: step move-1 changes an event in calendar bob-cal, which "
        "principal:bob owns (the store's record); the plan asks principal:mallory to approve "
        "it, not principal:bob"
    )
    _untouched(team)

    team.chore(*team.propose("again", "mallory"))
    refused = team.process("submit", "again.envelope.json", "--objects", "objects", "--json")
    assert refused.returncode == 2
    error = json.loads(refused.stdout or refused.stderr)
    assert error["code"] == "approval.not_owner", error
    assert team.query("SELECT count(*) FROM plans") == [(1,)]  # nothing new stored
