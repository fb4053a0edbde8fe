"""The worker loop: claim, run, repeat; no state kept between steps (plans.md section 6).

:func:`run_worker` runs ``concurrency`` threads in this process, each claiming one step at a
time (:func:`~cerebri.execution.claims.claim`) and running it
(:func:`~cerebri.execution.runner.run_claim`). One heartbeat thread extends the lease of every
step in flight every third of the lease. Due timers (approval expiry) are fired when a thread
finds nothing to claim, and at most every :data:`TIMER_SWEEP_SECONDS` while busy. Idle
threads poll every ``poll_seconds``. ``until_idle`` returns once no step is due and none is
in flight; otherwise the loop runs until ``stop`` is set.

A store outage (decision 0035) is ridden out through one
:class:`~cerebri.execution.outages.OutageGuard`: claims and timer sweeps are retried with
backoff, heartbeats skipped, a step whose run the outage broke is abandoned to its lease (a
takeover settles it by the crash rules of decision 0021, so an effect that may have happened
is never repeated), and an outage is never idleness. Past the outage limit the worker stops
and :func:`run_worker` raises :class:`~cerebri.execution.store.StoreError`
(``store.unavailable`` or ``store.full``); an error that is not an outage while claiming or
sweeping stops it too and is raised as it is.

The worker's id is fresh per call (the id generator's), so two processes never share one.
Waiting (polls, heartbeats) uses ``threading.Event.wait`` on real time: it paces the loop and
decides nothing; every decision reads the injected clock.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from types import NoneType

from cerebri._guard import CALLABLE, arguments
from cerebri.execution.approvals import expire_due
from cerebri.execution.claims import Claim, claim, heartbeat, taken_over
from cerebri.execution.context import NS, Executor
from cerebri.execution.errors import ExecutionError, execution_argument_error
from cerebri.execution.outages import OutageGuard, StoppedDuringOutageError
from cerebri.execution.runner import Hook, run_claim

__all__ = ["TIMER_SWEEP_SECONDS", "WorkerReport", "run_worker"]

TIMER_SWEEP_SECONDS = 1
"""A busy worker fires due timers (approval expiry) at most this often; an idle one each time
it finds nothing to claim."""


@dataclass
class WorkerReport:
    """What one :func:`run_worker` call did: its ``worker_id``, steps claimed (``claims``),
    takeovers of expired leases among them, ``pass_ons`` among them (claims this worker left
    for another, for want of an adapter: decision 0075), leases lost (taken over by another
    worker while this one still ran the step), timers fired, store outages ridden out (the
    store came back), and unexpected errors (the step is left to its lease's expiry;
    ``last_error`` says what)."""

    worker_id: str
    claims: int = 0
    takeovers: int = 0
    pass_ons: int = 0
    leases_lost: int = 0
    timers_fired: int = 0
    outages: int = 0
    errors: int = 0
    last_error: str | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def count(self, name: str, amount: int = 1) -> None:
        """Add ``amount`` to counter ``name`` (thread-safe)."""
        with self._lock:
            setattr(self, name, getattr(self, name) + amount)

    def to_wire(self) -> dict[str, int | str]:
        """``{"worker_id", "claims", "takeovers", "pass_ons", "leases_lost", "timers_fired",
        "outages", "errors"}``."""
        return {
            "worker_id": self.worker_id,
            "claims": self.claims,
            "takeovers": self.takeovers,
            "pass_ons": self.pass_ons,
            "leases_lost": self.leases_lost,
            "timers_fired": self.timers_fired,
            "outages": self.outages,
            "errors": self.errors,
        }

    def failed(self, error: BaseException) -> None:
        """Count an unexpected error and remember it as ``last_error``."""
        with self._lock:
            self.errors += 1
            self.last_error = f"{type(error).__name__}: {error}"


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
    outages=(OutageGuard, NoneType),
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
    outages: OutageGuard | None = None,
) -> WorkerReport:
    """Claim and run steps until ``stop`` is set, ``max_claims`` steps were claimed, or (with
    ``until_idle``) nothing is due and nothing in flight.

    ``lease_seconds`` (1 to 86 400) is how long a claim lasts without a heartbeat;
    ``poll_seconds`` (more than 0, at most 60) how long an idle thread waits before looking
    again. ``hook`` is called at each step boundary (:data:`~cerebri.execution.runner.Hook`);
    ``on_claim`` after each claim (progress display). ``outages`` rides out store outages
    (module docstring; default: an :class:`OutageGuard` on the executor's clock with the
    default limit and no report of events); its ``stop`` must be ``stop``.

    Raises :class:`ExecutionError` ``execution.invalid_argument`` for values outside those
    ranges; :class:`~cerebri.execution.store.StoreError` ``store.unavailable`` or
    ``store.full`` when an outage outlasts the limit, or is still on when the worker stops;
    and any error that is not an outage raised while claiming or firing timers.
    """
    _check(concurrency, lease_seconds, poll_seconds)
    if outages is not None and stop is not None and outages.stop is not stop:
        raise execution_argument_error("run_worker(outages=...) must share the worker's stop")
    stop = stop or (outages.stop if outages is not None else threading.Event())
    settings = _Settings(
        concurrency=concurrency,
        lease_seconds=lease_seconds,
        until_idle=until_idle,
        poll_seconds=poll_seconds,
        max_claims=max_claims,
        hook=hook,
        on_claim=on_claim,
    )
    guard = outages or OutageGuard(executor.now_ns, stop=stop)
    return _Worker(executor, settings, stop, guard).run()


@dataclass(frozen=True)
class _Settings:
    """The arguments of one :func:`run_worker` call, checked."""

    concurrency: int
    lease_seconds: float
    until_idle: bool
    poll_seconds: float
    max_claims: int | None
    hook: Hook | None
    on_claim: Callable[[Claim], None] | None


class _Worker:
    """One :func:`run_worker` call: its threads, the heartbeat, the timers and the report."""

    def __init__(
        self, executor: Executor, settings: _Settings, stop: threading.Event, guard: OutageGuard
    ) -> None:
        self.ex = executor
        self.settings = settings
        self.stop = stop
        self.guard = guard
        self.report = WorkerReport(worker_id=f"worker:{executor.ids.new_id()}")
        self.in_flight = _InFlight()
        most = settings.max_claims
        self.claimed = threading.Semaphore(most) if most is not None else None
        self.idle_threads = [False] * settings.concurrency
        self.idle_lock = threading.Lock()
        self.beats_done = threading.Event()
        self.timers_due = 0  # next instant (ns, injected clock) at which this worker fires timers
        self.fatal: list[Exception] = []

    # -- the heartbeat -----------------------------------------------------------------

    def beat_once(self, held: Claim) -> None:
        extend = partial(heartbeat, self.ex, held, self.settings.lease_seconds)
        kept = self.guard.attempt(extend, wrote=bool, default=None)
        if kept is None or kept or not self.in_flight.holds(held):
            return  # an outage: try again at the next beat (the lease may run out meanwhile)
        self.in_flight.remove(held)
        lost = self.guard.attempt(partial(taken_over, self.ex, held), wrote=_no, default=False)
        if lost:  # not merely finished or cancelled meanwhile
            self.report.count("leases_lost")

    def beat(self) -> None:
        while not self.beats_done.wait(self.settings.lease_seconds / 3):
            for held in self.in_flight.snapshot():
                try:
                    self.beat_once(held)
                except Exception as error:  # not an outage: counted, the heartbeat goes on
                    self.report.failed(error)

    # -- the claiming threads ----------------------------------------------------------

    def all_idle(self, index: int, idle: bool) -> bool:
        with self.idle_lock:
            self.idle_threads[index] = idle
            return all(self.idle_threads) and len(self.in_flight) == 0

    def fire_timers(self, force: bool) -> None:
        now = self.ex.now_ns()
        with self.idle_lock:
            if not force and now < self.timers_due:
                return
            self.timers_due = now + TIMER_SWEEP_SECONDS * NS
        fired = self.guard.retry(partial(expire_due, self.ex), wrote=bool)
        if fired:
            self.report.count("timers_fired", fired)

    def loop(self, index: int) -> None:
        try:
            self.work(index)
        except StoppedDuringOutageError:
            return  # stopped while the store was away: raised below as the outage's error
        except Exception as error:  # past the outage limit, or not an outage: stop them all
            with self.idle_lock:
                self.fatal.append(error)
            self.stop.set()

    def work(self, index: int) -> None:
        take = partial(claim, self.ex, self.report.worker_id, self.settings.lease_seconds)
        while not self.stop.is_set():
            self.fire_timers(force=False)
            if self.claimed is not None and not self.claimed.acquire(blocking=False):
                return
            held = self.guard.retry(take, wrote=_taken)
            if held is None:
                if self.idle(index):
                    return
                continue
            self.all_idle(index, False)
            self.run_one(held)

    def idle(self, index: int) -> bool:
        """Nothing was due: give back the claim slot, fire timers, and wait a poll; whether
        the worker is done (``until_idle`` and every thread idle with nothing in flight)."""
        if self.claimed is not None:
            self.claimed.release()
        self.fire_timers(force=True)
        if self.settings.until_idle and not self.guard.ongoing and self.all_idle(index, True):
            return True
        self.stop.wait(self.settings.poll_seconds)
        return False

    def run_one(self, held: Claim) -> None:
        self.report.count("claims")
        if held.takeover:
            self.report.count("takeovers")
        if self.settings.on_claim is not None:
            self.settings.on_claim(held)
        self.in_flight.add(held)
        try:
            if self.settings.hook is None:
                passed = run_claim(self.ex, held)
            else:
                passed = run_claim(self.ex, held, self.settings.hook)
            if passed:
                self.report.count("pass_ons")
            self.guard.succeeded(wrote=True)
        except Exception as error:  # the store or an adapter broke: the lease expires and
            if not self.guard.failed(error):  # a takeover settles the step by the crash rules
                self.report.failed(error)
        finally:
            self.in_flight.remove(held)

    # -- the whole call ----------------------------------------------------------------

    def run(self) -> WorkerReport:
        heart = threading.Thread(target=self.beat, name="cerebri-heartbeat", daemon=True)
        heart.start()
        threads = [
            threading.Thread(target=self.loop, args=(i,), name=f"cerebri-worker-{i}", daemon=True)
            for i in range(self.settings.concurrency)
        ]
        try:
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
        finally:
            self.beats_done.set()
            heart.join()
        self.report.outages = self.guard.outages
        if self.fatal:
            raise self.fatal[0]
        if self.guard.ongoing:
            raise self.guard.error()
        return self.report


def _taken(held: Claim | None) -> bool:
    return held is not None


def _no(_result: object) -> bool:
    return False
