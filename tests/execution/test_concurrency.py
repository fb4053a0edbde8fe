"""Several worker processes over the same store run every step exactly once (plans.md section 6:
claims by conditional update, no step run twice while its lease holds).

2 processes on SQLite and 4 on PostgreSQL share 2,000 independent steps (100 plans of 20,
the default invocation budget per plan). Each process journals every invocation in its own
file, so "ran exactly once" is read from the journals, apart from the store rows. The run's
throughput is printed (``-s`` shows it) and kept as the test's ``steps_per_second`` property.
"""

from __future__ import annotations

import subprocess
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from cerebri.clock import FakeClock, SequentialIds, SystemClock
from cerebri.execution import submit
from cerebri.execution.adapters.fakes import journal_entries
from cerebri.execution.store import init, parse_store_url
from cerebri.execution.store.schema import plans
from cerebri.plans import PlanStatus, StepStatus
from tests.execution import _worker_proc as proc
from tests.execution._procs import (
    PROCESS_TIMEOUT_SECONDS,
    history_rows,
    open_attempts,
    step_rows,
    worker_command,
)

pytestmark = pytest.mark.processes

PLANS = 100
STEPS_PER_PLAN = 20
PROCESSES = {"sqlite": 2, "postgresql": 4}


def _draft(plan: int) -> dict[str, Any]:
    return {
        "objective": f"touch {STEPS_PER_PLAN} things, batch {plan}",
        "origin": "operator",
        "strategy": "direct_action_verified",
        "steps": [
            {
                "key": f"s{index}",
                "kind": "capability",
                "capability": proc.EFFECT,
                "target": f"p{plan}-s{index}",
                "params": {},
            }
            for index in range(STEPS_PER_PLAN)
        ],
    }


def test_worker_processes_run_every_step_exactly_once(
    store_url: str, tmp_path: Path, record_property: Any
) -> None:
    backend = parse_store_url(store_url).get_backend_name()
    processes = PROCESSES[backend]
    init(store_url)
    clock = FakeClock(SystemClock().now())  # due now for the workers' wall clocks
    ics = tmp_path / "unused.ics"
    executor, _ = proc.build(store_url, ics, tmp_path / "unused.jsonl", clock, SequentialIds("t"))
    for plan in range(PLANS):
        submit(executor, _draft(plan))
    journals = [tmp_path / f"journal-{n}.jsonl" for n in range(processes)]

    started = time.monotonic()
    workers = [
        subprocess.Popen(
            worker_command(store_url, ics, journal),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for journal in journals
    ]
    outputs = [worker.communicate(timeout=3 * PROCESS_TIMEOUT_SECONDS) for worker in workers]
    elapsed = time.monotonic() - started
    for worker, (out, err) in zip(workers, outputs, strict=True):
        assert worker.returncode == 0, (out, err[-2000:])

    total = PLANS * STEPS_PER_PLAN
    rate = total / elapsed
    record_property("steps_per_second", round(rate, 1))
    print(f"\n{backend}: {processes} processes, {total} steps in {elapsed:.1f} s ({rate:.0f}/s)")

    engine = executor.engine
    rows = step_rows(engine)
    assert len(rows) == total
    # the journals, written by the adapters: each step invoked exactly once, by some process
    ran = Counter(
        str(entry["origin"]).removeprefix("plan_step:")
        for journal in journals
        for entry in journal_entries(journal)
    )
    assert set(ran) == set(rows)
    assert [step for step, times in ran.items() if times != 1] == []
    busy = [len(journal_entries(journal)) for journal in journals]
    assert sum(busy) == total
    # the store: every step completed, one completed attempt each, nothing left open
    assert Counter(r.status for r in rows.values()) == {StepStatus.COMPLETED.value: total}
    history = history_rows(engine)
    assert Counter(r.outcome for r in history) == {"completed": total}
    assert Counter(r.step_id for r in history) == Counter(dict.fromkeys(rows, 1))
    assert open_attempts(engine) == []
    with engine.connect() as connection:
        statuses = connection.execute(select(plans.c.status)).scalars().all()
    assert Counter(statuses) == {PlanStatus.COMPLETED.value: PLANS}
