"""A cerebri worker process for ``bench/execution.py --hosts`` (see ``_hosts``).

``python bench/_host_worker.py STORE_URL WORKER_ID READY STOP JOURNAL EVENTS LEASE DELAY_MS``
runs inside one simulated host's network namespace. It builds an executor whose
``bench.noop`` adapter sleeps DELAY_MS milliseconds and then records the invocation in
JOURNAL (:class:`~cerebri.execution.adapters.RecordingAdapter`: one JSON line per
invocation, fsynced, with the idempotency key and this process's pid), writes READY after
its first (empty) claim, then claims and runs steps one at a time with a lease of LEASE
seconds until STOP exists.

The worker id (``bench:h<host>:w<n>``) is what the store records in ``attempt_history``.
Anything unusual goes to EVENTS, one line each, ``<unix ns> <what>``: an error from the
store (the loop goes on after 0.1 s, as ``run_worker`` does), and any claim or run that took
longer than :data:`SLOW_SECONDS` (a call that hung on a dead link and came back). The file
``EVENTS.busy`` exists while the adapter runs (the bench cuts the link at such a moment, so
that the step's outcome cannot reach the store).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from _cerebri_worker import NOOP, registry
from cerebri._json import JSONValue
from cerebri.clock import SystemClock, UuidIds
from cerebri.execution import Executor, claim, run_claim
from cerebri.execution.adapters import Adapters, Invocation, RecordingAdapter
from cerebri.execution.store import open_engine, parse_store_url

SLOW_SECONDS = 1.0
ERROR_PAUSE_SECONDS = 0.1
IDLE_SECONDS = 0.005


class SlowRecordingAdapter:
    """Sleeps ``delay_seconds`` (the step's "work"), then records like RecordingAdapter;
    the file ``busy`` exists while it does."""

    __slots__ = ("busy", "delay_seconds", "recorder")

    def __init__(self, journal: Path, delay_seconds: float, busy: Path) -> None:
        self.recorder = RecordingAdapter(journal)
        self.delay_seconds = delay_seconds
        self.busy = busy

    def invoke(self, invocation: Invocation) -> dict[str, JSONValue]:
        """Sleep, then record ``invocation``; returns ``{}``."""
        self.busy.touch()
        try:
            time.sleep(self.delay_seconds)
            return self.recorder.invoke(invocation)
        finally:
            self.busy.unlink(missing_ok=True)


def _event(events: Path, text: str) -> None:
    with events.open("a", encoding="utf-8") as handle:
        handle.write(f"{time.time_ns()} {text}\n")


def main(argv: list[str]) -> None:
    url, worker, ready, stop, journal, events = argv[:6]
    lease, delay = float(argv[6]), float(argv[7]) / 1000
    adapter = SlowRecordingAdapter(Path(journal), delay, Path(f"{events}.busy"))
    ex = Executor(
        open_engine(parse_store_url(url)),
        SystemClock(),
        UuidIds(),
        registry=registry(),
        adapters=Adapters().with_adapter(NOOP, adapter),
    )
    claim(ex, worker, lease)  # connects over the link; the store is empty
    Path(ready).write_text("ready")
    stop_file, events_file = Path(stop), Path(events)
    while not stop_file.exists():
        started = time.monotonic()
        what = "claim"
        try:
            held = claim(ex, worker, lease)
            if held is None:
                time.sleep(IDLE_SECONDS)
                continue
            what = f"run of step {held.step_id}{' (takeover)' if held.takeover else ''}"
            run_claim(ex, held)
        except Exception as error:  # the store broke (a dead link): note it, keep going
            _event(events_file, f"error in {what}: {type(error).__name__}: {error}".strip())
            time.sleep(ERROR_PAUSE_SECONDS)
            continue
        finally:
            took = time.monotonic() - started
            if took > SLOW_SECONDS:
                _event(events_file, f"slow {what}: {took:.1f} s")
    _event(events_file, "stopped")


if __name__ == "__main__":
    main(sys.argv[1:])
