"""Worker-side code of the peer queues for ``bench/execution.py`` (imported by their CLIs).

Each worker process is the peer's own worker command, pointed at this module:

* procrastinate: ``python -m procrastinate --app=_peer_workers.procrastinate_app worker
  --queues=bench_noop`` (its default concurrency, 1 job at a time per process);
* pgqueuer: ``python _peer_workers.py pgqueuer``, which runs ``pgqueuer.run(factory)``
  on uvloop, exactly what ``pgq run _peer_workers:pgqueuer_factory`` does (its defaults:
  batch size 10, no concurrency cap), on one connection through the driver named by
  ``BENCH_PGQUEUER_DRIVER``: ``asyncpg`` (default, what pgqueuer's own CLI picks first) or
  ``psycopg`` (its ``PsycopgDriver`` waits for notifications holding the connection for
  up to 1 s at a time, which stalls claims on a single connection). The
  ``pgq run`` command itself fails at start with pgqueuer 1.6.0 under typer 0.29 / click
  8.5 (its ``--log-level`` default reaches the logger as a ``str``).

Both register one no-op task, ``noop``. The only additions to the peers' normal setup are
thin subclasses that time the claim call (procrastinate's ``fetch_job`` query, pgqueuer's
``Queries.dequeue``) with ``time.perf_counter``:

* the first claim attempt of a process (on the empty queue, before any job is enqueued)
  writes ``<BENCH_PEER_DIR>/ready-<pid>``, so the orchestrator knows the worker is up,
  listening and polling;
* the duration of every claim call that returned at least one job is kept, and written to
  ``<BENCH_PEER_DIR>/claims-<pid>.txt`` (seconds, one a line) when the process exits.
  A pgqueuer claim takes a batch of up to 10 jobs; its duration is one sample.

Environment: ``BENCH_PEER_DSN`` (the fresh database of the run), ``BENCH_PEER_DIR`` and
``BENCH_PGQUEUER_DRIVER``.
"""

from __future__ import annotations

import asyncio
import atexit
import os
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pgqueuer
import procrastinate
import psycopg
from pgqueuer import AsyncpgDriver, PsycopgDriver, QueueManager
from pgqueuer.models import Job
from pgqueuer.ports.driver import Driver
from pgqueuer.queries import Queries
from procrastinate import sql as procrastinate_sql

PROCRASTINATE_QUEUE = "bench_noop"
TASK_NAME = "noop"
DSN = os.environ.get("BENCH_PEER_DSN", "")
OUT_DIR = os.environ.get("BENCH_PEER_DIR", "")
PGQUEUER_DRIVER = os.environ.get("BENCH_PGQUEUER_DRIVER", "asyncpg")


class ClaimLog:
    """Claim durations of this process (seconds) and the one-off readiness marker."""

    def __init__(self) -> None:
        self.durations: list[float] = []
        self.announced = False
        atexit.register(self.dump)

    def record(self, seconds: float, *, claimed: bool) -> None:
        if not self.announced:
            self.announced = True
            if OUT_DIR:
                Path(OUT_DIR, f"ready-{os.getpid()}").touch()
        if claimed:
            self.durations.append(seconds)

    def dump(self) -> None:
        if OUT_DIR:
            text = "".join(f"{x!r}\n" for x in self.durations)
            Path(OUT_DIR, f"claims-{os.getpid()}.txt").write_text(text)


CLAIMS = ClaimLog()

# --------------------------------------------------------------------------- procrastinate


class TimedPsycopgConnector(procrastinate.PsycopgConnector):
    """procrastinate's psycopg connector, timing the ``fetch_job`` query."""

    async def execute_query_one_async(self, query: Any, **arguments: Any) -> dict[str, Any]:
        if query != procrastinate_sql.queries["fetch_job"]:
            return await super().execute_query_one_async(query, **arguments)
        t0 = time.perf_counter()
        row = await super().execute_query_one_async(query, **arguments)
        CLAIMS.record(time.perf_counter() - t0, claimed=row.get("id") is not None)
        return row


procrastinate_app = procrastinate.App(connector=TimedPsycopgConnector(conninfo=DSN))


@procrastinate_app.task(name=TASK_NAME, queue=PROCRASTINATE_QUEUE)
async def procrastinate_noop() -> None:
    """The no-op job."""


# --------------------------------------------------------------------------- pgqueuer


class TimedQueries(Queries):
    """pgqueuer's repository, timing ``dequeue`` (one call claims up to a batch)."""

    async def dequeue(self, *args: Any, **kwargs: Any) -> list[Job]:
        t0 = time.perf_counter()
        jobs = await super().dequeue(*args, **kwargs)
        CLAIMS.record(time.perf_counter() - t0, claimed=bool(jobs))
        return jobs


async def pgqueuer_noop(job: Job) -> None:
    """The no-op job."""


@asynccontextmanager
async def pgqueuer_factory() -> AsyncIterator[QueueManager]:
    """What ``pgq run`` runs: a QueueManager on one connection (asyncpg or psycopg)."""
    if PGQUEUER_DRIVER == "psycopg":
        async with await psycopg.AsyncConnection.connect(DSN, autocommit=True) as connection:
            yield _pgqueuer_manager(PsycopgDriver(connection))
        return
    import asyncpg  # noqa: PLC0415 - optional: pip install 'pgqueuer[asyncpg]'

    connection = await asyncpg.connect(DSN)
    try:
        yield _pgqueuer_manager(AsyncpgDriver(connection))
    finally:
        await connection.close()


def _pgqueuer_manager(driver: Driver) -> QueueManager:
    manager = QueueManager(TimedQueries(driver))
    manager.entrypoint(TASK_NAME)(pgqueuer_noop)
    return manager


def run_pgqueuer_worker() -> None:
    """Run one pgqueuer worker until SIGTERM/SIGINT, as ``pgq run`` does."""
    try:
        import uvloop  # noqa: PLC0415 - pgqueuer's CLI prefers it when installed
    except ImportError:
        asyncio.run(pgqueuer.run(pgqueuer_factory))
    else:
        uvloop.run(pgqueuer.run(pgqueuer_factory))


if __name__ == "__main__":
    if sys.argv[1:] != ["pgqueuer"]:
        raise SystemExit("usage: python _peer_workers.py pgqueuer")
    run_pgqueuer_worker()
