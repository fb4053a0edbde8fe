"""A real worker process for the crash and concurrency tests.

Run as ``python -m tests.execution._worker_proc --store URL --ics FILE --journal FILE
[--kill-at BOUNDARY --kill-step KEY] [--lease SECONDS] [--concurrency N]``. It builds an
:class:`~cerebri.execution.Executor` on the store with the wall clock (``SystemClock``) and
random ids (``UuidIds``) and runs :func:`~cerebri.execution.run_worker` until idle.

Adapters: the calendar capabilities over an :class:`IcsFileCalendar` on ``--ics`` (calendar
id :data:`CALENDAR_ID`), each invocation first journaled by a :class:`RecordingAdapter` on
``--journal``; :data:`EFFECT` (idempotent) served by a :class:`RecordingAdapter` on the same
journal; :data:`NOOP` by a :class:`NoopAdapter`.

``--kill-at`` makes the process SIGKILL itself when step ``--kill-step`` reaches a boundary:
``claimed``, ``invoking``, ``invoked``, ``outcome_saved``, ``recorded`` (the runner's hook),
or ``during``: inside the adapter, after the journal line and the effect were written and
before the invocation returns. ``--lose-answers`` makes every calendar write act and then
raise a retryable ``adapter.unavailable`` (the answer was lost: it may have acted).
``--lock-timeout`` is the ``.ics`` adapter's longest wait for the file's lock, in seconds.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from pathlib import Path
from typing import Final

from cerebri._json import JSONValue
from cerebri.clock import Clock, IdGenerator, SystemClock, UuidIds
from cerebri.execution import Claim, Executor, Hook, run_worker
from cerebri.execution.adapters import Adapter, AdapterError, Adapters, Invocation
from cerebri.execution.adapters.fakes import NoopAdapter, RecordingAdapter
from cerebri.execution.adapters.ics_file import (
    CALENDAR_CAPABILITIES,
    LOCK_TIMEOUT_SECONDS,
    IcsFileCalendar,
)
from cerebri.execution.store import open_engine, parse_store_url
from cerebri.plans import Capability, CapabilityRegistry, Risk, builtin_registry

CALENDAR_ID: Final = "work"
EFFECT: Final = "test.effect"
"""An idempotent effect, allowed by default: one journal line per invocation."""
NOOP: Final = "test.noop"
"""An idempotent effect that does nothing."""
BOUNDARIES: Final = ("claimed", "invoking", "during", "invoked", "outcome_saved", "recorded")

_ANY_PARAMS: Final = {"type": "object"}


def registry() -> CapabilityRegistry:
    """The built-in capabilities plus :data:`EFFECT` and :data:`NOOP`."""
    extra = builtin_registry()
    for name in (EFFECT, NOOP):
        extra = extra.register(
            Capability(
                name=name,
                description=f"{name}: a test effect, idempotent",
                params_schema=_ANY_PARAMS,
                read_only=False,
                idempotent=True,
                risk=Risk.LOW,
                allowed_by_default=True,
            )
        )
    return extra


def kill_self() -> None:
    """SIGKILL this process: no cleanup, no flush, no atexit (a real crash)."""
    os.kill(os.getpid(), signal.SIGKILL)


class Journaled:
    """Journals each invocation (a :class:`RecordingAdapter` line, on disk first), then lets
    ``inner`` carry it out; while :attr:`armed` is set, the process dies right after ``inner``
    returned, before the result reaches the runner (the ``during`` boundary). With
    ``lose_answers`` an invocation that acted raises a retryable ``adapter.unavailable``."""

    def __init__(
        self, inner: Adapter, recorder: RecordingAdapter, *, lose_answers: bool = False
    ) -> None:
        self.inner = inner
        self.recorder = recorder
        self.lose_answers = lose_answers
        self.armed = threading.Event()

    def invoke(self, invocation: Invocation) -> dict[str, JSONValue]:
        self.recorder.invoke(invocation)
        result = self.inner.invoke(invocation)
        if self.armed.is_set():
            kill_self()
        if self.lose_answers:
            raise AdapterError("the answer was lost", code="adapter.unavailable", retryable=True)
        return result


def build(
    store_url: str,
    ics: Path,
    journal: Path,
    clock: Clock,
    ids: IdGenerator,
    *,
    lose_answers: bool = False,
    lock_timeout: float = LOCK_TIMEOUT_SECONDS,
) -> tuple[Executor, list[Journaled]]:
    """The executor the worker runs, and its journaling adapters (to arm for ``during``);
    ``lose_answers`` for the calendar (see :class:`Journaled`); ``lock_timeout`` (seconds)
    for the ``.ics`` file's lock."""
    recorder = RecordingAdapter(journal)
    files = IcsFileCalendar({CALENDAR_ID: ics}, clock, lock_timeout_seconds=lock_timeout)
    calendar = Journaled(files, recorder, lose_answers=lose_answers)
    effect = Journaled(NoopAdapter(), recorder)
    adapters = Adapters().with_adapter(EFFECT, effect).with_adapter(NOOP, NoopAdapter())
    for name in CALENDAR_CAPABILITIES:
        adapters = adapters.with_adapter(name, calendar)
    engine = open_engine(parse_store_url(store_url))
    executor = Executor(engine, clock, ids, registry=registry(), adapters=adapters)
    return executor, [calendar, effect]


def killer(boundary: str | None, step_key: str | None, armed: list[Journaled]) -> Hook:
    """The hook that kills this process when ``step_key`` reaches ``boundary``."""

    def hook(name: str, held: Claim) -> None:
        if boundary is None or held.key != step_key:
            return
        if boundary == "during" and name == "invoking":
            for adapter in armed:
                adapter.armed.set()
        elif name == boundary:
            kill_self()

    return hook


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="_worker_proc")
    parser.add_argument("--store", required=True)
    parser.add_argument("--ics", type=Path, required=True)
    parser.add_argument("--journal", type=Path, required=True)
    parser.add_argument("--kill-at", choices=BOUNDARIES)
    parser.add_argument("--kill-step")
    parser.add_argument("--lease", type=float, default=30)
    parser.add_argument("--concurrency", type=int, default=1)
    parser.add_argument("--poll", type=float, default=0.01)
    parser.add_argument("--lose-answers", action="store_true")
    parser.add_argument("--lock-timeout", type=float, default=LOCK_TIMEOUT_SECONDS)
    args = parser.parse_args(argv)
    executor, armed = build(
        args.store,
        args.ics,
        args.journal,
        SystemClock(),
        UuidIds(),
        lose_answers=args.lose_answers,
        lock_timeout=args.lock_timeout,
    )
    report = run_worker(
        executor,
        concurrency=args.concurrency,
        lease_seconds=args.lease,
        until_idle=True,
        poll_seconds=args.poll,
        hook=killer(args.kill_at, args.kill_step, armed),
    )
    print(report.to_wire(), flush=True)
    return 1 if report.errors else 0


if __name__ == "__main__":
    sys.exit(main())
