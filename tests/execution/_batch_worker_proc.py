"""A real worker process over several CalDAV calendars, killed at a chosen point (the batch
tests of issue #24, decision 0076).

Run by path: ``python tests/execution/_batch_worker_proc.py --store URL --calendar ID=URL
[--calendar ...] --journal FILE [--clock-offset SECONDS] [--kill-after N] [--lease
SECONDS]``. As :mod:`tests.execution._caldav_worker_proc` (its clock, kill points and
journal), but with one :class:`CalDavCalendar` over every ``--calendar`` and the built-in
capability registry unchanged: ``calendar.event.create`` and ``calendar.event.move`` require
approval, which a batch's gates give.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

if __package__ in (None, ""):  # run by path: make ``tests`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from cerebri.clock import UuidIds
from cerebri.execution import Executor
from cerebri.execution.adapters import Adapters, CalDavCalendar
from cerebri.execution.adapters.ics_file import CALENDAR_CAPABILITIES
from cerebri.execution.store import open_engine, parse_store_url
from cerebri.plans import builtin_registry
from tests.execution._caldav_worker_proc import (
    JournaledCalendar,
    Killer,
    ShiftedClock,
    add_kill_options,
    run_until_idle,
)


def build(
    store_url: str,
    calendars: dict[str, str],
    journal: Path,
    offset_seconds: float,
    killer: Killer,
) -> Executor:
    """The executor this process runs: ``calendars`` maps calendar id to collection URL."""
    clock = ShiftedClock(offset_seconds)
    calendar = JournaledCalendar(
        CalDavCalendar(calendars, clock, timeout_seconds=20), journal, killer
    )
    adapters = Adapters()
    for name in CALENDAR_CAPABILITIES:
        adapters = adapters.with_adapter(name, calendar)
    engine = open_engine(parse_store_url(store_url))
    return Executor(engine, clock, UuidIds(), registry=builtin_registry(), adapters=adapters)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="_batch_worker_proc")
    parser.add_argument("--store", required=True)
    parser.add_argument("--calendar", action="append", required=True)
    add_kill_options(parser)
    args = parser.parse_args(argv)
    calendars = dict(item.split("=", 1) for item in args.calendar)
    killer = Killer(args.kill_after)
    executor = build(args.store, calendars, args.journal, args.clock_offset, killer)
    return run_until_idle(executor, args, killer)


if __name__ == "__main__":
    sys.exit(main())
