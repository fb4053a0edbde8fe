"""A write refused before any effect is tried again, never blocked as "may have happened"
(decision 0040, issue 21 item 8).

A non-idempotent ``calendar.event.create`` on an ``.ics`` file whose lock another *process*
holds: the adapter raises ``calendar.busy`` (retryable, ``before_effect``) without writing.
The executor must retry it after its backoff (up to :data:`PRE_EFFECT_ATTEMPTS` invocations)
and then complete it once the lock is free, or fail it as an ordinary failure when the lock
stays held; never ``blocked`` with ``needs_verification``. Also when the worker process dies
right after saving that refusal: the takeover adopts it as a retry. What happened is read
from the ``.ics`` file and the journal (what the adapter did) and from the store rows.
"""

from __future__ import annotations

import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import icalendar
import pytest

from cerebri.clock import FakeClock, SequentialIds, SystemClock
from cerebri.execution import Executor, decide, list_approvals, run_worker, show_plan, submit
from cerebri.execution.adapters import AdapterError, IcsFileCalendar, Invocation
from cerebri.execution.adapters.fakes import journal_entries
from cerebri.execution.context import NS
from cerebri.execution.runner import PRE_EFFECT_ATTEMPTS
from cerebri.execution.store import init
from cerebri.plans import StepStatus
from cerebri.temporal import Instant
from tests.execution import _worker_proc as proc
from tests.execution._procs import history_rows, run_worker_process, step_rows, worker_command

pytestmark = pytest.mark.processes

UID = "ev-busy-1"
CREATE = "calendar.event.create"
LOCK_WAIT_SECONDS = 0.2
"""The adapter's wait for the lock in these tests (the holder never lets go meanwhile)."""
LEASE_SECONDS = 30
_HOLDER = (
    "import sys, filelock\n"
    "lock = filelock.FileLock(sys.argv[1])\n"
    "lock.acquire()\n"
    "print('held', flush=True)\n"
    "sys.stdin.read()\n"  # until the test closes our stdin; the lock goes with the process
)


@contextmanager
def lock_held_elsewhere(ics: Path) -> Iterator[None]:
    """Another process holds ``<ics>.lock`` (the adapter's ``filelock``) until the block
    ends; it has taken the lock before the block starts."""
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLDER, f"{ics}.lock"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdin is not None and holder.stdout is not None
    try:
        assert holder.stdout.readline().strip() == "held"
        yield
    finally:
        holder.stdin.close()
        assert holder.wait(timeout=60) == 0


def _draft() -> dict[str, Any]:
    return {
        "objective": "put the design review on the calendar",
        "origin": "operator",
        "strategy": "direct_action_verified",
        "steps": [
            {
                "key": "create",
                "kind": "capability",
                "capability": CREATE,
                "target": UID,
                "params": {
                    "calendar_id": proc.CALENDAR_ID,
                    "integration_id": "local",
                    "object_id": UID,
                    "start": "2026-12-02T10:00:00Z",
                    "end": "2026-12-02T11:00:00Z",
                    "idempotency_key": "busy-create-1",
                    "title": "Design review",
                },
            }
        ],
    }


@dataclass
class World:
    """The store, the calendar file, the journal and this process's executor (fake clock)."""

    url: str
    ics: Path
    journal: Path
    clock: FakeClock
    executor: Executor

    def approved(self) -> str:
        """Submit the plan, let a worker ask for the create's approval, approve it; the
        plan id."""
        plan_id = submit(self.executor, _draft()).plan_id
        self.run()
        [request] = list_approvals(self.executor)
        decide(self.executor, str(request["id"]), approve=True, by="principal:other")
        return plan_id

    def run(self) -> None:
        report = run_worker(self.executor, until_idle=True, poll_seconds=0.01)
        assert report.errors == 0, report.last_error

    def create(self) -> Any:
        [row] = [r for r in step_rows(self.executor.engine).values() if r.key == "create"]
        return row

    def busy_failures(self) -> list[Any]:
        """History rows of the create that failed with ``calendar.busy``."""
        step_id = self.create().id
        return [
            r
            for r in history_rows(self.executor.engine)
            if r.step_id == step_id and r.outcome == "failed" and "calendar.busy" in str(r.error)
        ]

    def until_due(self) -> None:
        """Move the clock to the create's ``next_run_at``."""
        due = self.create().next_run_at
        assert due is not None and due > self.clock.now().ns
        self.clock.set(Instant(due))

    def events(self) -> list[Any]:
        """The file's ``VEVENT``s with the plan's UID (parsed with icalendar)."""
        if not self.ics.exists():
            return []
        calendar = icalendar.Calendar.from_ical(self.ics.read_bytes())
        return [e for e in calendar.walk("VEVENT") if str(e.get("UID")) == UID]

    def invocations(self) -> int:
        """Create invocations the adapter saw (journaled before it acts)."""
        return sum(1 for e in journal_entries(self.journal) if e["capability"] == CREATE)

    def blocked(self) -> list[Any]:
        return [r for r in step_rows(self.executor.engine).values() if r.status == "blocked"]


@pytest.fixture
def world(store_url: str, tmp_path: Path) -> World:
    init(store_url)
    clock = FakeClock(SystemClock().now())
    ics, journal = tmp_path / "work.ics", tmp_path / "journal.jsonl"
    executor, _ = proc.build(
        store_url, ics, journal, clock, SequentialIds("here"), lock_timeout=LOCK_WAIT_SECONDS
    )
    return World(store_url, ics, journal, clock, executor)


def test_busy_is_a_retryable_refusal_before_any_effect(tmp_path: Path) -> None:
    ics = tmp_path / "work.ics"
    adapter = IcsFileCalendar({"work": ics}, FakeClock(Instant.parse("2026-12-01T08:00:00Z")),
                              lock_timeout_seconds=LOCK_WAIT_SECONDS)  # fmt: skip
    params = dict(_draft()["steps"][0]["params"], calendar_id="work")
    invocation = Invocation(CREATE, UID, params, "plan_step:s", "p:1:create:0")
    with lock_held_elsewhere(ics), pytest.raises(AdapterError) as caught:
        adapter.invoke(invocation)
    error = caught.value
    assert (error.code, error.retryable, error.before_effect) == ("calendar.busy", True, True)
    assert not ics.exists()
    assert adapter.invoke(invocation)["created"] is True
    with pytest.raises(AdapterError) as again:  # another effect's event under the same UID
        adapter.invoke(Invocation(CREATE, UID, {**params, "idempotency_key": "other"}, "o", "k"))
    assert (again.value.code, again.value.before_effect) == ("calendar.conflict", True)


def test_a_busy_calendar_is_retried_and_the_event_written_once(world: World) -> None:
    plan_id = world.approved()
    with lock_held_elsewhere(world.ics):
        world.run()
        create = world.create()
        assert create.status == StepStatus.READY.value, create.status_reason
        assert create.status_reason.startswith(f"retry 2 of {PRE_EFFECT_ATTEMPTS} in 5 s")
        assert "calendar.busy" in create.status_reason
        assert create.next_run_at == world.clock.now().ns + 5 * NS  # retry_base_seconds
        world.until_due()
        world.run()
        create = world.create()
        assert create.status == StepStatus.READY.value, create.status_reason
        assert create.next_run_at == world.clock.now().ns + 10 * NS  # doubled
        assert world.events() == [] and world.blocked() == []
    world.until_due()
    world.run()

    create = world.create()
    assert create.status == StepStatus.COMPLETED.value, create.status_reason
    assert len(world.events()) == 1
    assert str(world.events()[0]["SUMMARY"]) == "Design review"
    assert world.invocations() == 3  # two refused while the lock was held, one written
    assert len(world.busy_failures()) == 2
    assert show_plan(world.executor, plan_id)["status"] == "completed"


def test_a_calendar_locked_past_the_retry_budget_fails_the_create(world: World) -> None:
    world.approved()
    with lock_held_elsewhere(world.ics):
        world.run()
        while world.create().status == StepStatus.READY.value:
            world.until_due()
            world.run()

    create = world.create()
    assert create.status == StepStatus.FAILED.value
    assert create.status_reason.startswith("calendar.busy: ")
    assert world.invocations() == PRE_EFFECT_ATTEMPTS
    assert len(world.busy_failures()) == PRE_EFFECT_ATTEMPTS
    assert world.events() == []
    assert world.blocked() == []  # an ordinary failure: nothing waits for a person


def test_a_worker_killed_after_saving_a_busy_refusal_is_retried_by_the_takeover(
    world: World,
) -> None:
    """The worker process saves the refusal (the outcome mark) and dies before moving the
    step: the takeover adopts it as the worker would have, a retry, not a verification."""
    world.approved()
    with lock_held_elsewhere(world.ics):
        command = worker_command(
            world.url,
            world.ics,
            world.journal,
            kill_at="outcome_saved",
            kill_step="create",
            lease_seconds=LEASE_SECONDS,
            lock_timeout=LOCK_WAIT_SECONDS,
        )
        done = run_worker_process(command)
        assert done.returncode == -signal.SIGKILL, (done.returncode, done.stdout, done.stderr)
        assert world.invocations() == 1 and world.events() == []
    world.clock.set(Instant(SystemClock().now().ns + (LEASE_SECONDS + 1) * NS))
    world.run()  # the takeover
    create = world.create()
    assert create.status == StepStatus.READY.value, create.status_reason
    assert "calendar.busy" in create.status_reason and world.blocked() == []
    world.until_due()
    world.run()

    assert world.create().status == StepStatus.COMPLETED.value
    assert len(world.events()) == 1
    assert world.invocations() == 2
