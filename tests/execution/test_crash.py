"""A worker process killed with SIGKILL at every boundary of a step's run, then recovered by
another worker (plans.md section 6: no step lost, a non-idempotent action never repeated on
its own, a saved outcome adopted, an idempotent step re-run).

Each test: a plan with a non-idempotent ``calendar.event.create`` on an ``.ics`` file (it
needs approval: a first worker in this process asks, ``principal:other`` approves) and an
idempotent journaled effect; a worker *process* (:mod:`tests.execution._worker_proc`) runs
them and kills itself at the boundary; a worker in this process whose clock is past the dead
worker's lease recovers. What happened is read from the journal and the ``.ics`` file (what
the adapters did) and from the store rows (what the executor recorded), separately.
"""

from __future__ import annotations

import os
import signal
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import icalendar
import pytest
from sqlalchemy import select

from cerebri.clock import FakeClock, SequentialIds, SystemClock
from cerebri.execution import Executor, WorkerReport, decide, list_approvals, run_worker, submit
from cerebri.execution.adapters.fakes import journal_entries
from cerebri.execution.context import NS
from cerebri.execution.store import init
from cerebri.execution.store.schema import plans
from cerebri.plans import PlanStatus, StepStatus
from cerebri.temporal import Instant
from tests.execution import _worker_proc as proc
from tests.execution._procs import (
    history_rows,
    open_attempts,
    run_worker_process,
    step_rows,
    worker_command,
)

pytestmark = pytest.mark.processes

LEASE_SECONDS = 30
UID = "ev-crash-1"
CREATE = "calendar.event.create"
SETTLED = {"completed", "skipped", "failed", "cancelled", "blocked"}


def _draft() -> dict[str, Any]:
    return {
        "objective": "put the design review on the calendar and note it",
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
                    "idempotency_key": "crash-create-1",
                    "title": "Design review",
                },
            },
            {
                "key": "note",
                "kind": "capability",
                "capability": proc.EFFECT,
                "target": "note",
                "params": {"text": "review booked"},
                "require_approval": True,
            },
        ],
    }


@dataclass
class Scene:
    """One crash run: the store, the files, and this process's executor (a fake clock)."""

    url: str
    ics: Path
    journal: Path
    clock: FakeClock
    executor: Executor
    asked_by: str = ""

    def prepare(self) -> None:
        """Submit the plan, let a worker here ask for both approvals, approve them."""
        submitted = submit(self.executor, _draft())
        assert submitted.to_wire()["status"] == PlanStatus.VALIDATED.value
        asked = run_worker(self.executor, until_idle=True, poll_seconds=0.01)
        self.asked_by = asked.worker_id
        open_requests = list_approvals(self.executor)
        assert len(open_requests) == 2
        for request in open_requests:
            decide(self.executor, str(request["id"]), approve=True, by="principal:other")

    def crash(self, boundary: str, step_key: str, *, lose_answers: bool = False) -> None:
        """A worker process runs the plan and SIGKILLs itself at ``boundary`` of ``step_key``
        (``lose_answers``: its calendar writes act, then raise a retryable error)."""
        command = worker_command(
            self.url,
            self.ics,
            self.journal,
            kill_at=boundary,
            kill_step=step_key,
            lease_seconds=LEASE_SECONDS,
            lose_answers=lose_answers,
        )
        done = run_worker_process(command)
        assert done.returncode == -signal.SIGKILL, (done.returncode, done.stdout, done.stderr)

    def recover(self) -> WorkerReport:
        """A worker here whose clock is 1 s past any lease the dead worker could hold."""
        self.clock.set(Instant(SystemClock().now().ns + (LEASE_SECONDS + 1) * NS))
        report = run_worker(self.executor, until_idle=True, poll_seconds=0.01)
        assert report.errors == 0, report.last_error
        return report

    def events(self) -> int:
        """``VEVENT``s with the plan's UID in the ``.ics`` file (parsed with icalendar)."""
        if not self.ics.exists():
            return 0
        calendar = icalendar.Calendar.from_ical(self.ics.read_bytes())
        return sum(1 for event in calendar.walk("VEVENT") if str(event.get("UID")) == UID)

    def invocations(self, capability: str) -> list[dict[str, Any]]:
        """Journal entries of ``capability`` (each written before the adapter acted)."""
        return [e for e in journal_entries(self.journal) if e["capability"] == capability]


@pytest.fixture
def scene(store_url: str, tmp_path: Path) -> Scene:
    init(store_url)
    clock = FakeClock(SystemClock().now())
    ics, journal = tmp_path / "work.ics", tmp_path / "journal.jsonl"
    executor, _ = proc.build(store_url, ics, journal, clock, SequentialIds("here"))
    return Scene(store_url, ics, journal, clock, executor)


def _by_key(scene: Scene) -> dict[str, Any]:
    return {row.key: row for row in step_rows(scene.executor.engine).values()}


def _assert_nothing_lost(scene: Scene) -> None:
    rows = step_rows(scene.executor.engine)
    assert {r.key: r.status for r in rows.values() if r.status not in SETTLED} == {}
    assert open_attempts(scene.executor.engine) == []
    note = next(r for r in rows.values() if r.key == "note")
    assert note.status == StepStatus.COMPLETED.value  # the idempotent step is never stuck
    assert len(scene.invocations(proc.EFFECT)) == 1
    assert scene.events() <= 1
    assert len(scene.invocations(CREATE)) <= 1


def _history(scene: Scene, key: str) -> list[Any]:
    step_id = _by_key(scene)[key].id
    return [r for r in history_rows(scene.executor.engine) if r.step_id == step_id]


def _killed_attempts(scene: Scene, key: str, recovered_by: str) -> list[Any]:
    """History rows of ``key`` written for the dead worker (neither worker of this process)."""
    here = {scene.asked_by, recovered_by}
    return [r for r in _history(scene, key) if r.worker_id not in here]


def test_killed_after_the_claim_runs_the_create_once_after_recovery(scene: Scene) -> None:
    scene.prepare()
    scene.crash("claimed", "create")
    assert scene.invocations(CREATE) == []  # died before acting

    report = scene.recover()

    _assert_nothing_lost(scene)
    create = _by_key(scene)["create"]
    assert create.status == StepStatus.COMPLETED.value
    assert [e["pid"] for e in scene.invocations(CREATE)] == [os.getpid()]
    assert scene.events() == 1
    assert report.takeovers == 1
    killed = _killed_attempts(scene, "create", report.worker_id)
    assert [r.outcome for r in killed] == ["interrupted"]
    mine = [r.outcome for r in _history(scene, "create") if r.worker_id == report.worker_id]
    assert mine == ["completed"]


@pytest.mark.parametrize("boundary", ["invoking", "during", "invoked"])
def test_killed_once_the_create_may_have_begun_blocks_it_for_verification(
    scene: Scene, boundary: str
) -> None:
    scene.prepare()
    scene.crash(boundary, "create")
    acted = boundary != "invoking"  # "invoking" dies after invoked_at, before the adapter
    assert len(scene.invocations(CREATE)) == int(acted)
    assert scene.events() == int(acted)

    report = scene.recover()

    _assert_nothing_lost(scene)
    create = _by_key(scene)["create"]
    assert create.status == StepStatus.BLOCKED.value
    assert create.status_reason.startswith("needs_verification")
    assert create.next_run_at is None and create.lease_token is None
    assert len(scene.invocations(CREATE)) == int(acted)  # never re-invoked
    assert all(e["pid"] != os.getpid() for e in scene.invocations(CREATE))
    assert scene.events() == int(acted)
    killed = _killed_attempts(scene, "create", report.worker_id)
    assert [r.outcome for r in killed] == ["interrupted"]

    # a second recovery later still leaves it alone
    scene.clock.advance(3600)
    assert run_worker(scene.executor, until_idle=True, poll_seconds=0.01).claims == 0
    assert len(scene.invocations(CREATE)) == int(acted)


def test_killed_after_the_outcome_was_saved_adopts_it(scene: Scene) -> None:
    scene.prepare()
    scene.crash("outcome_saved", "create")
    assert len(scene.invocations(CREATE)) == 1

    report = scene.recover()

    _assert_nothing_lost(scene)
    create = _by_key(scene)["create"]
    assert create.status == StepStatus.COMPLETED.value
    assert create.status_reason.startswith("adopted")
    assert create.result is not None and '"created":true' in create.result.replace(" ", "")
    assert len(scene.invocations(CREATE)) == 1
    assert scene.invocations(CREATE)[0]["pid"] != os.getpid()
    assert scene.events() == 1
    killed = _killed_attempts(scene, "create", report.worker_id)
    assert [r.outcome for r in killed] == ["completed"]  # its saved outcome, adopted
    assert killed[0].result == create.result
    # decision 0066: the adoption is not a second completed attempt; the takeover's own
    # attempt did nothing and is not in history, and the step counts one attempt
    history = _history(scene, "create")
    assert [r for r in history if r.worker_id == report.worker_id] == []
    assert create.attempts == len(history) == len({r.number for r in history})


def test_killed_after_recording_reruns_nothing(scene: Scene) -> None:
    scene.prepare()
    scene.crash("recorded", "create")
    create = _by_key(scene)["create"]
    assert create.status == StepStatus.COMPLETED.value  # committed before the kill

    report = scene.recover()

    _assert_nothing_lost(scene)
    assert _by_key(scene)["create"].status == StepStatus.COMPLETED.value
    assert len(scene.invocations(CREATE)) == 1
    assert scene.invocations(CREATE)[0]["pid"] != os.getpid()
    assert scene.events() == 1
    assert report.takeovers == 0
    history = _history(scene, "create")
    assert all(r.worker_id != report.worker_id for r in history)
    assert [r.outcome for r in _killed_attempts(scene, "create", report.worker_id)] == ["completed"]


@pytest.mark.parametrize("boundary", ["invoking", "during"])
def test_idempotent_step_killed_mid_invoke_runs_again(scene: Scene, boundary: str) -> None:
    scene.prepare()
    scene.crash(boundary, "note")
    before = scene.invocations(proc.EFFECT)
    assert len(before) == int(boundary == "during")

    report = scene.recover()

    note = _by_key(scene)["note"]
    assert note.status == StepStatus.COMPLETED.value
    effects = scene.invocations(proc.EFFECT)
    assert [e["pid"] for e in effects][len(before) :] == [os.getpid()]
    assert len({e["idempotency_key"] for e in effects}) == 1  # the same intended effect
    killed = _killed_attempts(scene, "note", report.worker_id)
    assert [r.outcome for r in killed] == ["interrupted"]
    mine = [r.outcome for r in _history(scene, "note") if r.worker_id == report.worker_id]
    assert mine == ["completed"]
    # the create ran once, in whichever worker claimed it
    assert _by_key(scene)["create"].status == StepStatus.COMPLETED.value
    assert len(scene.invocations(CREATE)) == 1
    assert scene.events() == 1
    assert open_attempts(scene.executor.engine) == []


def test_killed_after_saving_a_lost_answer_blocks_the_create_for_verification(
    scene: Scene,
) -> None:
    """The create acted but its answer was lost (a retryable error): the worker saves that
    failure and dies before moving the step. Adopting it must give what the worker would
    have recorded, ``blocked`` for verification, not a failure that replans the write."""
    scene.prepare()
    scene.crash("outcome_saved", "create", lose_answers=True)
    assert len(scene.invocations(CREATE)) == 1 and scene.events() == 1

    report = scene.recover()

    _assert_nothing_lost(scene)
    create = _by_key(scene)["create"]
    assert create.status == StepStatus.BLOCKED.value
    assert create.status_reason.startswith("needs_verification")
    with scene.executor.engine.connect() as connection:
        plan = connection.execute(select(plans.c.status, plans.c.revision)).all()
    assert [tuple(p) for p in plan] == [(PlanStatus.BLOCKED.value, 1)]  # no replanning
    assert len(scene.invocations(CREATE)) == 1 and scene.events() == 1
    killed = _killed_attempts(scene, "create", report.worker_id)
    assert [r.outcome for r in killed] == ["failed"]  # the saved outcome, adopted
    history = _history(scene, "create")  # decision 0066: adopted once, not failed twice
    assert [r.outcome for r in history if r.worker_id == report.worker_id] == []
