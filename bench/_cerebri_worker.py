"""A cerebri worker process for ``bench/execution.py`` (see ``_cerebri_runner``).

``python bench/_cerebri_worker.py STORE_URL READY_FILE STOP_FILE LATENCY_FILE``: builds an
executor with the bench's no-op capability, writes READY_FILE after its first (empty) claim,
then claims and runs steps one at a time until STOP_FILE exists, timing every claim that
took a step (``time.perf_counter_ns``) and writing the durations (ns, one per line) to
LATENCY_FILE at the end.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from cerebri.clock import SystemClock, UuidIds
from cerebri.execution import Executor, claim, run_claim
from cerebri.execution.adapters import Adapters, NoopAdapter
from cerebri.execution.store import open_engine, parse_store_url
from cerebri.plans import Capability, CapabilityRegistry, Risk, builtin_registry

NOOP = "bench.noop"


def registry() -> CapabilityRegistry:
    """The built-in capabilities plus ``bench.noop``: an idempotent effect allowed by default."""
    return builtin_registry().register(
        Capability(
            name=NOOP,
            description="does nothing (benchmark)",
            params_schema={"type": "object"},
            read_only=False,
            idempotent=True,
            risk=Risk.LOW,
            allowed_by_default=True,
        )
    )


def executor(url: str) -> Executor:
    """An executor on ``url`` with the system clock, UUIDs and the no-op adapter."""
    return Executor(
        open_engine(parse_store_url(url)),
        SystemClock(),
        UuidIds(),
        registry=registry(),
        adapters=Adapters().with_adapter(NOOP, NoopAdapter()),
    )


def main(url: str, ready: Path, stop: Path, latencies: Path) -> None:
    ex = executor(url)
    worker = f"bench:{UuidIds().new_id()}"
    claim(ex, worker, 30)  # connects and warms the statement cache; the store is empty
    ready.write_text("ready")
    taken: list[int] = []
    while not stop.exists():
        started = time.perf_counter_ns()
        held = claim(ex, worker, 30)
        if held is None:
            time.sleep(0.005)
            continue
        taken.append(time.perf_counter_ns() - started)
        run_claim(ex, held)
    latencies.write_text("".join(f"{ns}\n" for ns in taken))


if __name__ == "__main__":
    main(sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3]), Path(sys.argv[4]))
