"""The cerebri half of ``bench/execution.py``: no-op steps through the durable executor.

Protocol (the same as the peers', ``_peers``): initialise a fresh store; start ``workers``
processes of ``_cerebri_worker`` and wait until each has made its first (empty) claim; submit
the steps (not timed) as plans of :data:`STEPS_PER_PLAN` independent ``bench.noop`` steps
(budget raised to match); the clock runs from the last committed submit until a poll (every
5 ms) counts every step ``completed``. Claim latency is each claim call that took a step,
timed inside the workers. Every worker claims one step at a time (as procrastinate's
default worker does).
"""

from __future__ import annotations

import math
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from sqlalchemy import func, select

from _cerebri_worker import NOOP, executor
from cerebri.execution import submit
from cerebri.execution.store import init
from cerebri.execution.store.schema import steps as steps_table

__all__ = ["STEPS_PER_PLAN", "run_cerebri"]

STEPS_PER_PLAN = 100
POLL_SECONDS = 0.005
READY_TIMEOUT_SECONDS = 60.0
RUN_TIMEOUT_SECONDS = 600.0


def _store_url(url: str) -> str:
    return url.replace("postgresql://", "postgresql+psycopg://", 1)


def _draft(index: int, count: int) -> dict[str, object]:
    return {
        "objective": f"bench plan {index}",
        "origin": "operator",
        "strategy": "bench",
        "budget": {"max_capability_invocations": count},
        "steps": [
            {"key": f"s{i}", "kind": "capability", "capability": NOOP, "params": {}}
            for i in range(count)
        ],
    }


def _percentile(values: list[int], fraction: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(fraction * len(ordered)))  # nearest rank
    return ordered[rank - 1] / 1e6


def run_cerebri(url: str, steps: int, workers: int) -> dict[str, object]:
    """Run ``steps`` no-op steps with ``workers`` processes on ``url``; see the module doc."""
    store = _store_url(url)
    init(store)
    ex = executor(store)
    folder = Path(tempfile.mkdtemp(prefix="cerebri-bench-"))
    stop = folder / "stop"
    here = Path(__file__).parent
    procs = []
    for n in range(workers):
        procs.append(
            subprocess.Popen(
                [
                    sys.executable,
                    str(here / "_cerebri_worker.py"),
                    store,
                    str(folder / f"ready{n}"),
                    str(stop),
                    str(folder / f"latency{n}"),
                ]
            )
        )
    try:
        deadline = time.monotonic() + READY_TIMEOUT_SECONDS
        while not all((folder / f"ready{n}").exists() for n in range(workers)):
            if time.monotonic() > deadline:
                raise RuntimeError("cerebri workers did not start")
            time.sleep(POLL_SECONDS)
        left, index = steps, 0
        while left > 0:
            count = min(STEPS_PER_PLAN, left)
            submit(ex, _draft(index, count))
            left -= count
            index += 1
        started = time.perf_counter()
        done_query = select(func.count()).where(steps_table.c.status == "completed")
        deadline = time.monotonic() + RUN_TIMEOUT_SECONDS
        while True:
            with ex.engine.connect() as connection:
                done = connection.execute(done_query).scalar_one()
                connection.rollback()
            if done >= steps:
                break
            if time.monotonic() > deadline:
                raise RuntimeError(f"only {done} of {steps} steps completed")
            time.sleep(POLL_SECONDS)
        seconds = time.perf_counter() - started
    finally:
        stop.write_text("stop")
        for proc in procs:
            proc.wait(timeout=60)
        ex.engine.dispose()
    latencies: list[int] = []
    for n in range(workers):
        path = folder / f"latency{n}"
        if path.exists():
            latencies.extend(int(line) for line in path.read_text().split())
    return {
        "steps_per_s": steps / seconds,
        "seconds": seconds,
        "claim_p50_ms": _percentile(latencies, 0.50),
        "claim_p99_ms": _percentile(latencies, 0.99),
        "claims_timed": len(latencies),
    }
