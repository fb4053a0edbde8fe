"""The worker loop: claim, run, repeat; no state kept between steps (plans.md section 6).

:func:`run_worker` runs ``concurrency`` threads in this process, each claiming one step at a
time (:func:`~cerebri.execution.claims.claim`) and running it
(:func:`~cerebri.execution.runner.run_claim`). One heartbeat thread extends the lease of every
step in flight every third of the lease. Due timers (approval expiry) are fired when a thread
finds nothing to claim, and at most every :data:`TIMER_SWEEP_SECONDS` while busy. Idle
threads poll every ``poll_seconds``. ``until_idle`` returns once no step is due and none is
in flight; otherwise the loop runs until ``stop`` is set.

The worker's id is fresh per call (the id generator's), so two processes never share one.
Waiting (polls, heartbeats) uses ``threading.Event.wait`` on real time: it paces the loop and
decides nothing; every decision reads the injected clock.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from types import NoneType

from cerebri._guard import CALLABLE, arguments
from cerebri.execution.approvals import expire_due
from cerebri.execution.claims import Claim, claim, heartbeat, taken_over
from cerebri.execution.context import NS, Executor
from cerebri.execution.errors import ExecutionError, execution_argument_error
from cerebri.execution.runner import Hook, run_claim

__all__ = ["TIMER_SWEEP_SECONDS", "WorkerReport", "run_worker"]

TIMER_SWEEP_SECONDS = 1
"""A busy worker fires due timers (approval expiry) at most this often; an idle one each time
it finds nothing to claim."""


@dataclass
class WorkerReport:
    """What one :func:`run_worker` call did: its ``worker_id``, steps claimed (``claims``),
    takeovers of expired leases among them, leases lost (taken over by another worker while
    this one still ran the step), timers fired, and
    unexpected errors (the step is left to its lease's expiry; ``last_error`` says what)."""

    worker_id: str
    claims: int = 0
    takeovers: int = 0
    leases_lost: int = 0
    timers_fired: int = 0
    errors: int = 0
    last_error: str | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def count(self, name: str, amount: int = 1) -> None:
        """Add ``amount`` to counter ``name`` (thread-safe)."""
        with self._lock:
            setattr(self, name, getattr(self, name) + amount)

    def to_wire(self) -> dict[str, int | str]:
        """``{"worker_id", "claims", "takeovers", "leases_lost", "timers_fired", "errors"}``."""
        return {
            "worker_id": self.worker_id,
            "claims": self.claims,
            "takeovers": self.takeovers,
            "leases_lost": self.leases_lost,
            "timers_fired": self.timers_fired,
            "errors": self.errors,
        }


class _InFlight:
    """The claims being run, for the heartbeat thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._claims: dict[str, Claim] = {}

    def add(self, held: Claim) -> None:
        with self._lock:
            self._claims[held.token] = held

    def remove(self, held: Claim) -> None:
        with self._lock:
            self._claims.pop(held.token, None)

    def holds(self, held: Claim) -> bool:
        with self._lock:
            return held.token in self._claims

    def snapshot(self) -> list[Claim]:
        with self._lock:
            return list(self._claims.values())

    def __len__(self) -> int:
        with self._lock:
            return len(self._claims)


def _check(concurrency: int, lease_seconds: float, poll_seconds: float) -> None:
    if isinstance(concurrency, bool) or not isinstance(concurrency, int) or concurrency < 1:
        raise ExecutionError(
            f"concurrency is a whole number >= 1, not {concurrency!r}",
            code="execution.invalid_argument",
        )
    if not 0 < poll_seconds <= 60:
        raise ExecutionError(
            f"poll_seconds is more than 0 and at most 60 seconds, not {poll_seconds!r}",
            code="execution.invalid_argument",
        )
    if not 1 <= lease_seconds <= 86_400:
        raise ExecutionError(
            f"a lease lasts 1 to 86400 seconds, not {lease_seconds!r}",
            code="execution.invalid_argument",
        )


@arguments(
    execution_argument_error,
    executor=Executor,
    concurrency=int,
    lease_seconds=(int, float),
    until_idle=bool,
    poll_seconds=(int, float),
    max_claims=(int, NoneType),
    stop=(threading.Event, NoneType),
    hook=(CALLABLE, NoneType),
    on_claim=(CALLABLE, NoneType),
)
def run_worker(
    executor: Executor,
    *,
    concurrency: int = 1,
    lease_seconds: float = 30,
    until_idle: bool = False,
    poll_seconds: float = 0.5,
    max_claims: int | None = None,
    stop: threading.Event | None = None,
    hook: Hook | None = None,
    on_claim: Callable[[Claim], None] | None = None,
) -> WorkerReport:
    """Claim and run steps until ``stop`` is set, ``max_claims`` steps were claimed, or (with
    ``until_idle``) nothing is due and nothing in flight.

    ``lease_seconds`` (1 to 86 400) is how long a claim lasts without a heartbeat;
    ``poll_seconds`` (more than 0, at most 60) how long an idle thread waits before looking
    again. ``hook`` is called at each step boundary (:data:`~cerebri.execution.runner.Hook`);
    ``on_claim`` after each claim (progress display). Raises :class:`ExecutionError`
    ``execution.invalid_argument`` for values outside those ranges.
    """
    _check(concurrency, lease_seconds, poll_seconds)
    stop = stop or threading.Event()
    report = WorkerReport(worker_id=f"worker:{executor.ids.new_id()}")
    in_flight = _InFlight()
    claimed = threading.Semaphore(max_claims) if max_claims is not None else None
    idle_threads = [False] * concurrency
    idle_lock = threading.Lock()
    beats_done = threading.Event()

    def beat() -> None:
        while not beats_done.wait(lease_seconds / 3):
            for held in in_flight.snapshot():
                if heartbeat(executor, held, lease_seconds) or not in_flight.holds(held):
                    continue
                in_flight.remove(held)
                if taken_over(executor, held):  # not merely finished or cancelled meanwhile
                    report.count("leases_lost")

    def all_idle(index: int, idle: bool) -> bool:
        with idle_lock:
            idle_threads[index] = idle
            return all(idle_threads) and len(in_flight) == 0

    timers_due = [0]  # next instant (ns, injected clock) at which this worker fires timers

    def fire_timers(force: bool) -> None:
        now = executor.now_ns()
        with idle_lock:
            if not force and now < timers_due[0]:
                return
            timers_due[0] = now + TIMER_SWEEP_SECONDS * NS
        fired = expire_due(executor)
        if fired:
            report.count("timers_fired", fired)

    def loop(index: int) -> None:
        while not stop.is_set():
            fire_timers(force=False)
            if claimed is not None and not claimed.acquire(blocking=False):
                return
            held = claim(executor, report.worker_id, lease_seconds)
            if held is None:
                if claimed is not None:
                    claimed.release()
                fire_timers(force=True)
                if until_idle and all_idle(index, True):
                    return
                stop.wait(poll_seconds)
                continue
            all_idle(index, False)
            report.count("claims")
            if held.takeover:
                report.count("takeovers")
            if on_claim is not None:
                on_claim(held)
            in_flight.add(held)
            try:
                if hook is None:
                    run_claim(executor, held)
                else:
                    run_claim(executor, held, hook)
            except Exception as error:  # the store or an adapter broke: the lease expires and
                report.count("errors")  # a takeover settles the step by the crash rules
                report.last_error = f"{type(error).__name__}: {error}"
            finally:
                in_flight.remove(held)

    heart = threading.Thread(target=beat, name="cerebri-heartbeat", daemon=True)
    heart.start()
    threads = [
        threading.Thread(target=loop, args=(i,), name=f"cerebri-worker-{i}", daemon=True)
        for i in range(concurrency)
    ]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        beats_done.set()
        heart.join()
    return report
