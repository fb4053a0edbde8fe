"""A real worker process on a CalDAV calendar, killed at a chosen point (the kill loop).

Run by path: ``python tests/execution/_caldav_worker_proc.py --store URL --caldav URL
--journal FILE [--clock-offset SECONDS] [--kill-after N] [--lease SECONDS]``. It builds an
:class:`~cerebri.execution.Executor` on the store with the wall clock shifted by
``--clock-offset`` seconds (each restart of the loop is one lease further on, so it takes
over what the killed worker held without anyone waiting) and random ids, and runs
:func:`~cerebri.execution.run_worker` until idle.

Adapters: the calendar capabilities over a :class:`CalDavCalendar` on ``--caldav`` (calendar
id :data:`CALENDAR_ID`), each invocation journaled first (``pid`` included). The registry is
the built-in one with ``calendar.event.create`` allowed by default and not requiring
approval, so plans run without a person.

``--kill-after N`` SIGKILLs the process at its N-th kill point: every runner boundary
(``claimed``, ``invoking``, ``invoked``, ``outcome_saved``, ``recorded``) of any step, and
``during``, right after a calendar invocation returned and before its result reaches the
runner. With it, the process prints each point it passes (``point <n> <name> <step key>``) first.
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import os
import signal
import sys
import threading
from pathlib import Path
from typing import Final

if __package__ in (None, ""):  # run by path: make ``tests`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from cerebri._json import JSONValue
from cerebri.clock import SystemClock, UuidIds
from cerebri.execution import Claim, Executor, Hook, run_worker
from cerebri.execution.adapters import Adapters, CalDavCalendar, Invocation
from cerebri.execution.adapters.fakes import RecordingAdapter
from cerebri.execution.adapters.ics_file import CALENDAR_CAPABILITIES
from cerebri.execution.store import open_engine, parse_store_url
from cerebri.plans import BUILTIN_CAPABILITIES, CapabilityRegistry
from cerebri.temporal import Instant

CALENDAR_ID: Final = "work"
_NS: Final = 1_000_000_000


class ShiftedClock:
    """The wall clock, ``offset_seconds`` ahead."""

    def __init__(self, offset_seconds: float) -> None:
        self._offset = round(offset_seconds * _NS)
        self._wall = SystemClock()

    def now(self) -> Instant:
        return Instant(self._wall.now().ns + self._offset)


class Killer:
    """Counts kill points (thread-safe) and SIGKILLs the process at the ``after``-th."""

    def __init__(self, after: int | None) -> None:
        self.after = after
        self._count = itertools.count(1)
        self._lock = threading.Lock()

    def point(self, name: str, key: str) -> None:
        with self._lock:
            if self.after is None:
                return
            number = next(self._count)
            print(f"point {number} {name} {key}", flush=True)
            if number >= self.after:
                os.kill(os.getpid(), signal.SIGKILL)  # a real crash: no cleanup, no flush

    def hook(self) -> Hook:
        def on_boundary(name: str, held: Claim) -> None:
            self.point(name, held.key)

        return on_boundary


class JournaledCalendar:
    """Journals each invocation, lets the CalDAV calendar act, then passes kill point
    ``during`` before the result is returned to the runner."""

    def __init__(self, inner: CalDavCalendar, journal: Path, killer: Killer) -> None:
        self.inner = inner
        self.recorder = RecordingAdapter(journal)
        self.killer = killer

    def invoke(self, invocation: Invocation) -> dict[str, JSONValue]:
        self.recorder.invoke(invocation)
        result = self.inner.invoke(invocation)
        self.killer.point("during", invocation.origin)
        return result


def registry() -> CapabilityRegistry:
    """The built-in capabilities, ``calendar.event.create`` allowed without approval or
    grant (so the 50 plans run without a person)."""
    table = CapabilityRegistry()
    for declared in BUILTIN_CAPABILITIES:
        unattended = declared.name == "calendar.event.create"
        table = table.register(
            dataclasses.replace(declared, requires_approval=False, allowed_by_default=True)
            if unattended
            else declared
        )
    return table


def add_kill_options(parser: argparse.ArgumentParser) -> None:
    """The options every killable CalDAV worker process takes: ``--journal FILE``,
    ``--clock-offset SECONDS`` (0), ``--kill-after N``, ``--lease SECONDS`` (10), ``--poll
    SECONDS`` (0.01)."""
    parser.add_argument("--journal", type=Path, required=True)
    parser.add_argument("--clock-offset", type=float, default=0)
    parser.add_argument("--kill-after", type=int)
    parser.add_argument("--lease", type=float, default=10)
    parser.add_argument("--poll", type=float, default=0.01)


def run_until_idle(executor: Executor, args: argparse.Namespace, killer: Killer) -> int:
    """Run the worker until idle with ``args``' lease and poll and ``killer``'s kill points;
    print its report's wire form; 1 when it saw errors, else 0."""
    report = run_worker(
        executor,
        lease_seconds=args.lease,
        until_idle=True,
        poll_seconds=args.poll,
        hook=killer.hook(),
    )
    print(report.to_wire(), flush=True)
    return 1 if report.errors else 0


def build(
    store_url: str, caldav_url: str, journal: Path, offset_seconds: float, killer: Killer
) -> Executor:
    """The executor this process runs."""
    clock = ShiftedClock(offset_seconds)
    calendar = JournaledCalendar(
        CalDavCalendar({CALENDAR_ID: caldav_url}, clock, timeout_seconds=20), journal, killer
    )
    adapters = Adapters()
    for name in CALENDAR_CAPABILITIES:
        adapters = adapters.with_adapter(name, calendar)
    engine = open_engine(parse_store_url(store_url))
    return Executor(engine, clock, UuidIds(), registry=registry(), adapters=adapters)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="_caldav_worker_proc")
    parser.add_argument("--store", required=True)
    parser.add_argument("--caldav", required=True)
    add_kill_options(parser)
    args = parser.parse_args(argv)
    killer = Killer(args.kill_after)
    executor = build(args.store, args.caldav, args.journal, args.clock_offset, killer)
    return run_until_idle(executor, args, killer)


if __name__ == "__main__":
    sys.exit(main())
