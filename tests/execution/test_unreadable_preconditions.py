"""A precondition that could not be read never skips its step (decision 0047).

The new-user trial: the calendar plan's ``create`` step carries the precondition "the event
is not already there" with ``satisfied_if_false``; a worker started without the calendar
(no ``--ics-calendar alice=...``, or only another calendar) could not read it, took the
failed read for "false" and skipped the create as ``already_satisfied``. Unknown is not
false: the failed read is a refusal before any effect (decision 0040), retried with the
executor's backoff up to :data:`PRE_EFFECT_ATTEMPTS` tries, then the step fails with the
read's error code; nothing is written and no approval is asked for. The plan has failed
(no other strategy); the user starts the worker with the calendar and submits it again.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from cerebri.clock import FakeClock, SequentialIds
from cerebri.execution import Executor, list_approvals, run_worker, show_plan, submit
from cerebri.execution.adapters import default_adapters
from cerebri.execution.context import NS
from cerebri.execution.runner import PRE_EFFECT_ATTEMPTS
from cerebri.execution.store import init, open_engine, parse_store_url
from cerebri.plans import StepStatus, builtin_registry
from cerebri.temporal import Instant
from tests.execution._procs import history_rows, step_rows

_SCRIPT = Path(sys.executable).with_name("cerebri")
CEREBRI = (
    [str(_SCRIPT)]
    if _SCRIPT.exists()
    else [sys.executable, "-c", "from cerebri.cli import main; main()"]
)
UID = "event-design-review"
START, END = "2026-12-05T11:30:00Z", "2026-12-05T12:00:00Z"


def _draft() -> dict[str, Any]:
    """The shape ``propose --as plan-graph`` gives a create (plans.from_action_plan)."""
    read = {
        "capability": "calendar.event.get",
        "target": UID,
        "params": {"calendar_id": "alice", "object_id": UID},
        "path": "range",
        "value": {"start": START, "end": END},
    }
    return {
        "objective": "put the design review on alice's calendar",
        "origin": "operator",
        "strategy": "direct_action_verified",
        "steps": [
            {
                "key": "create-0",
                "kind": "capability",
                "capability": "calendar.event.create",
                "target": UID,
                "require_approval": True,
                "params": {
                    "calendar_id": "alice",
                    "integration_id": "local",
                    "object_id": UID,
                    "start": START,
                    "end": END,
                    "idempotency_key": "design-review-1",
                    "title": "Design review",
                },
                "precondition": {"check": {**read, "op": "ne"}, "satisfied_if_false": True},
            }
        ],
    }


def _executor(url: str, clock: FakeClock, calendars: dict[str, Path], tag: str) -> Executor:
    adapters = default_adapters(clock, ics_calendars=calendars)
    engine = open_engine(parse_store_url(url))
    return Executor(
        engine, clock, SequentialIds(tag), registry=builtin_registry(), adapters=adapters
    )


def _create(executor: Executor, plan_id: str) -> Any:
    [row] = [
        r
        for r in step_rows(executor.engine).values()
        if r.key == "create-0" and r.plan_id == plan_id
    ]
    return row


def _run(executor: Executor) -> None:
    report = run_worker(executor, until_idle=True, poll_seconds=0.01)
    assert report.errors == 0, report.last_error


@pytest.mark.parametrize("served", [{}, {"bob": "bob.ics"}], ids=["no-calendar", "other-calendar"])
def test_a_worker_without_the_calendar_never_skips_the_create(
    store_url: str, tmp_path: Path, served: dict[str, str]
) -> None:
    init(store_url)
    clock = FakeClock(Instant.parse("2026-12-03T12:00:00Z"))
    alice = tmp_path / "alice.ics"
    calendars = {name: tmp_path / file for name, file in served.items()}
    without = _executor(store_url, clock, calendars, "without")
    plan_id = submit(without, _draft()).plan_id

    _run(without)
    create = _create(without, plan_id)
    assert create.status == StepStatus.READY.value, create.status_reason
    assert create.status_reason.startswith(f"retry 2 of {PRE_EFFECT_ATTEMPTS} in 5 s after ")
    assert "calendar.unknown_calendar" in create.status_reason
    assert create.next_run_at == clock.now().ns + 5 * NS
    delays = []  # seconds to each retry: the executor's backoff, doubling from 5 s
    while _create(without, plan_id).status == StepStatus.READY.value:
        due = _create(without, plan_id).next_run_at
        delays.append((due - clock.now().ns) // NS)
        clock.set(Instant(due))
        _run(without)

    create = _create(without, plan_id)
    assert create.status == StepStatus.FAILED.value
    assert create.status_reason.startswith("calendar.unknown_calendar: ")
    assert "this worker serves no calendar 'alice'" in create.status_reason
    assert "--ics-calendar alice=FILE" in create.status_reason
    assert delays == [5 * 2**n for n in range(PRE_EFFECT_ATTEMPTS - 1)]
    failures = [
        r for r in history_rows(without.engine) if r.step_id == create.id and r.outcome == "failed"
    ]
    assert len(failures) == PRE_EFFECT_ATTEMPTS
    assert all("calendar.unknown_calendar" in str(r.error) for r in failures)
    assert list_approvals(without) == []  # nobody asked on the strength of a failed read
    assert not alice.exists()
    plan = show_plan(without, plan_id)
    assert plan["status"] == "failed"

    # the plan stays failed for a worker that serves the calendar; submitted again, it runs
    with_alice = _executor(store_url, clock, {"alice": alice}, "with")
    _run(with_alice)
    assert show_plan(with_alice, plan_id)["status"] == "failed"
    assert not alice.exists()
    again = submit(with_alice, _draft()).plan_id
    assert again != plan_id
    _run(with_alice)
    assert _create(with_alice, again).status == StepStatus.AWAITING_APPROVAL.value
    assert len(list_approvals(with_alice)) == 1


@pytest.mark.processes
def test_the_trial_as_processes_a_worker_without_ics_calendar(tmp_path: Path) -> None:
    """``submit``, then ``cerebri worker --until-idle`` without ``--ics-calendar``: the
    create's precondition cannot be read by this worker (``calendar.unknown_calendar``); the
    step is left, with its retry, for a worker that serves the calendar, and the worker ends
    with exit 3 naming it (decision 0066; before, it waited out every retry, 75 s, and the
    plan failed)."""
    env = {**os.environ, "CEREBRI_STORE": f"sqlite:///{tmp_path / 'store.sqlite3'}"}
    draft = tmp_path / "plan.json"
    draft.write_text(json.dumps(_draft()), encoding="utf-8")

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*CEREBRI, *args], env=env, cwd=tmp_path, capture_output=True, text=True,
            timeout=300, check=False,
        )  # fmt: skip

    assert cli("store", "init").returncode == 0
    submitted = cli("submit", str(draft), "--json")
    assert submitted.returncode == 0, submitted.stderr
    plan_id = json.loads(submitted.stdout)["plan_id"]

    worker = cli("worker", "--until-idle", "--poll", "0.1s")

    assert worker.returncode == 3, (worker.stdout, worker.stderr)
    assert "0 errors" in worker.stdout and "skipped" not in worker.stdout + worker.stderr
    [line] = [x for x in worker.stdout.splitlines() if "out of this worker's reach" in x]
    assert line.startswith("step create-0 (") and f" of plan {plan_id} " in line
    assert "calendar.unknown_calendar: " in line and "--ics-calendar alice=FILE" in line
    assert worker.stderr.startswith("error execution.out_of_reach: ")
    shown = json.loads(cli("plans", "show", plan_id, "--json").stdout)
    assert shown["status"] == "executing"  # open: it goes on with a worker that can
    [create] = [s for s in shown["steps"] if s["key"] == "create-0"]
    assert create["status"] == "ready"
    assert create["status_reason"].startswith("retry 2 of 5 in 5 s after calendar.unknown_")
    assert json.loads(cli("approvals", "list", "--json").stdout) == []
    assert not (tmp_path / "alice.ics").exists()
