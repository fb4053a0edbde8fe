"""The peer queues of ``bench/execution.py``: procrastinate and pgqueuer on no-op jobs.

Extra requirement: ``pip install -e '.[bench]'`` (procrastinate, pgqueuer[asyncpg]).
pgqueuer's workers use asyncpg by default (``BENCH_PGQUEUER_DRIVER=psycopg`` for psycopg 3).

One measurement, ``run_peer(peer, url, jobs, workers)``, on a fresh, empty database ``url``:

1. the peer's schema is installed with the peer's own API (procrastinate
   ``schema_manager.apply_schema_async``, pgqueuer ``Queries.install``);
2. ``workers`` worker processes are started, each the peer's normal worker command (see
   ``_peer_workers``), and the run waits until every one has made its first claim attempt
   on the empty queue (not timed: interpreter start and imports are not the queue's cost);
3. ``jobs`` no-op jobs are enqueued in one bulk call (procrastinate ``batch_defer_async``
   on queue ``bench_noop``, pgqueuer ``Queries.enqueue`` with lists, entrypoint ``noop``);
   the enqueue is not timed, the clock starts when it has returned (committed);
4. this process polls the peer's tables every ``POLL_INTERVAL`` seconds until all jobs are
   done: procrastinate, ``procrastinate_jobs`` rows with ``status = 'succeeded'``;
   pgqueuer, the ``pgqueuer`` table empty (a finished job's row is deleted and logged to
   ``pgqueuer_log``). The clock stops at the first poll that sees them all done;
5. the workers get SIGTERM and write their claim durations; the run checks that exactly
   ``jobs`` jobs succeeded (pgqueuer: ``pgqueuer_log`` rows with status ``successful``).

Throughput is ``jobs / (stop - start)`` in jobs per second. Claim latency is the duration
of the peer's claim call, measured in the worker around it (procrastinate: the
``fetch_job`` query, one job per call; pgqueuer: ``dequeue``, a batch of up to 10 jobs per
call), counted only for calls that claimed something.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from importlib import metadata
from itertools import count
from pathlib import Path

import psycopg
from psycopg import sql
from sqlalchemy.engine import make_url

BENCH_DIR = Path(__file__).resolve().parent
PEERS = ("procrastinate", "pgqueuer")
PROCRASTINATE_QUEUE = "bench_noop"  # same as _peer_workers.PROCRASTINATE_QUEUE
TASK_NAME = "noop"  # same as _peer_workers.TASK_NAME
POLL_INTERVAL = 0.005  # seconds between completion polls
READY_TIMEOUT = 60.0  # seconds for all workers to make their first claim attempt
STOP_TIMEOUT = 15.0  # seconds for a worker to exit after SIGTERM
MIN_RUN_TIMEOUT = 120.0  # seconds; the run deadline is max(this, jobs / 10 s)

__all__ = [
    "PEERS",
    "PeerResult",
    "PeerUnavailableError",
    "fresh_database",
    "missing_peers",
    "percentile",
    "run_peer",
]


class PeerUnavailableError(RuntimeError):
    """The peer's package is not installed."""


@dataclass(frozen=True)
class PeerResult:
    """One measurement: ``jobs`` done by ``workers`` processes in ``seconds``."""

    peer: str
    workers: int
    jobs: int
    seconds: float  # enqueue committed -> all jobs seen done
    startup_seconds: float  # spawn -> every worker made its first claim attempt
    enqueue_seconds: float  # the bulk enqueue call (not in ``seconds``)
    claims: list[float] = field(repr=False)  # seconds per claim call that claimed work

    @property
    def jobs_per_s(self) -> float:
        return self.jobs / self.seconds

    def claim_ms(self, q: float) -> float | None:
        return percentile(self.claims, q) * 1e3 if self.claims else None

    def to_dict(self) -> dict[str, object]:
        return {
            "peer": self.peer,
            "workers": self.workers,
            "jobs": self.jobs,
            "seconds": self.seconds,
            "jobs_per_s": self.jobs_per_s,
            "startup_seconds": self.startup_seconds,
            "enqueue_seconds": self.enqueue_seconds,
            "claim_calls": len(self.claims),
            "claim_p50_ms": self.claim_ms(50),
            "claim_p99_ms": self.claim_ms(99),
        }


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile ``q`` (0-100) of ``values`` (not empty)."""
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * q // 100))  # ceil(n * q / 100)
    return ordered[int(rank) - 1]


def missing_peers(peers: tuple[str, ...] = PEERS) -> list[str]:
    """The distributions among ``peers`` (e.g. "pgqueuer", "asyncpg") not installed."""
    missing = []
    for name in peers:
        try:
            metadata.version(name)
        except metadata.PackageNotFoundError:
            missing.append(name)
    return missing


# --------------------------------------------------------------------------- databases

_SEQUENCE = count(1)


@contextmanager
def fresh_database(server_url: str, label: str = "exec") -> Iterator[str]:
    """Create an empty database on the server of ``server_url``; yield its URL; drop it.

    ``server_url`` is a ``postgresql://`` URL of a database the user can connect to and
    run ``CREATE DATABASE`` from. The new database is ``bench_<label>_<pid>_<n>``; it is
    dropped with ``FORCE`` (PostgreSQL 13+) even when the body raises.
    """
    name = f"bench_{label}_{os.getpid()}_{next(_SEQUENCE)}"
    with psycopg.connect(server_url, autocommit=True) as admin:
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    try:
        yield make_url(server_url).set(database=name).render_as_string(hide_password=False)
    finally:
        with psycopg.connect(server_url, autocommit=True) as admin:
            admin.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
            )


# --------------------------------------------------------------------------- peers


async def _procrastinate_install(url: str) -> None:
    import procrastinate  # noqa: PLC0415 - optional dependency

    app = procrastinate.App(connector=procrastinate.PsycopgConnector(conninfo=url))
    async with app.open_async():
        await app.schema_manager.apply_schema_async()


async def _procrastinate_enqueue(url: str, jobs: int) -> float:
    import procrastinate  # noqa: PLC0415 - optional dependency

    app = procrastinate.App(connector=procrastinate.PsycopgConnector(conninfo=url))
    async with app.open_async():
        deferrer = app.configure_task(name=TASK_NAME, queue=PROCRASTINATE_QUEUE)
        t0 = time.perf_counter()
        await deferrer.batch_defer_async(*({} for _ in range(jobs)))
        return time.perf_counter() - t0


async def _pgqueuer_install(url: str) -> None:
    from pgqueuer import PsycopgDriver  # noqa: PLC0415 - optional dependency
    from pgqueuer.queries import Queries  # noqa: PLC0415

    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as connection:
        await Queries(PsycopgDriver(connection)).install()


async def _pgqueuer_enqueue(url: str, jobs: int) -> float:
    from pgqueuer import PsycopgDriver  # noqa: PLC0415 - optional dependency
    from pgqueuer.queries import Queries  # noqa: PLC0415

    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as connection:
        queries = Queries(PsycopgDriver(connection))
        t0 = time.perf_counter()
        await queries.enqueue([TASK_NAME] * jobs, [None] * jobs, [0] * jobs)
        return time.perf_counter() - t0


_INSTALL = {"procrastinate": _procrastinate_install, "pgqueuer": _pgqueuer_install}
_ENQUEUE = {"procrastinate": _procrastinate_enqueue, "pgqueuer": _pgqueuer_enqueue}

_DONE_QUERY = {
    "procrastinate": (
        "SELECT count(*) = %(jobs)s FROM procrastinate_jobs WHERE status = 'succeeded'"
    ),
    "pgqueuer": "SELECT NOT EXISTS (SELECT 1 FROM pgqueuer)",
}
_SUCCEEDED_QUERY = {
    "procrastinate": "SELECT count(*) FROM procrastinate_jobs WHERE status = 'succeeded'",
    "pgqueuer": "SELECT count(*) FROM pgqueuer_log WHERE status = 'successful'",
}
_FAILED_QUERY = {
    "procrastinate": "SELECT count(*) FROM procrastinate_jobs WHERE status = 'failed'",
    "pgqueuer": "SELECT count(*) FROM pgqueuer_log WHERE status IN ('exception', 'failed')",
}


def _worker_command(peer: str) -> list[str]:
    if peer == "procrastinate":
        return [
            sys.executable,
            "-m",
            "procrastinate",
            "--app=_peer_workers.procrastinate_app",
            "worker",
            f"--queues={PROCRASTINATE_QUEUE}",
        ]
    return [sys.executable, str(BENCH_DIR / "_peer_workers.py"), "pgqueuer"]


def run_peer(peer: str, url: str, jobs: int, workers: int) -> PeerResult:
    """Measure ``peer`` doing ``jobs`` no-op jobs with ``workers`` processes on ``url``.

    ``url`` must name a fresh, empty database (see ``fresh_database``). Raises
    ``PeerUnavailableError`` if the peer is not installed, ``RuntimeError`` if a worker dies,
    the run misses its deadline, or the number of succeeded jobs is not ``jobs``.
    """
    if peer not in PEERS:
        raise ValueError(f"unknown peer {peer!r}; expected one of {PEERS}")
    if missing_peers((peer,)):
        raise PeerUnavailableError(f"{peer} is not installed (pip install -e '.[bench]')")
    asyncio.run(_INSTALL[peer](url))
    with tempfile.TemporaryDirectory(prefix=f"bench-{peer}-") as tmp:
        out = Path(tmp)
        env = {
            **os.environ,
            "BENCH_PEER_DSN": url,
            "BENCH_PEER_DIR": tmp,
            "PYTHONPATH": os.pathsep.join(
                p for p in (str(BENCH_DIR), os.environ.get("PYTHONPATH", "")) if p
            ),
        }
        procs: list[subprocess.Popen[bytes]] = []
        logs = []
        try:
            spawned = time.perf_counter()
            for index in range(workers):
                log = (out / f"worker-{index}.log").open("wb")
                logs.append(log)
                procs.append(
                    subprocess.Popen(
                        _worker_command(peer),
                        cwd=BENCH_DIR,
                        env=env,
                        stdout=log,
                        stderr=subprocess.STDOUT,
                        start_new_session=True,
                    )
                )
            _wait_ready(procs, out)
            startup = time.perf_counter() - spawned
            enqueue = asyncio.run(_ENQUEUE[peer](url, jobs))
            start = time.perf_counter()
            stop = _wait_done(peer, url, jobs, procs)
        finally:
            for proc in procs:
                _stop(proc)
            for log in logs:
                log.close()
        _check_outcome(peer, url, jobs)
        claims = [
            float(line)
            for path in sorted(out.glob("claims-*.txt"))
            for line in path.read_text().split()
        ]
        missing = workers - len(list(out.glob("claims-*.txt")))
        if missing:
            print(f"{peer}: {missing} worker(s) wrote no claim durations", file=sys.stderr)
    return PeerResult(peer, workers, jobs, stop - start, startup, enqueue, claims)


def _worker_failure(procs: list[subprocess.Popen[bytes]], out: Path) -> str | None:
    for index, proc in enumerate(procs):
        if proc.poll() is not None:
            tail = (out / f"worker-{index}.log").read_text(errors="replace")[-2000:]
            return f"worker {index} exited with code {proc.returncode}:\n{tail}"
    return None


def _wait_ready(procs: list[subprocess.Popen[bytes]], out: Path) -> None:
    deadline = time.perf_counter() + READY_TIMEOUT
    while len(list(out.glob("ready-*"))) < len(procs):
        if (failure := _worker_failure(procs, out)) is not None:
            raise RuntimeError(failure)
        if time.perf_counter() > deadline:
            raise RuntimeError(f"workers not ready after {READY_TIMEOUT} s")
        time.sleep(0.02)


def _wait_done(peer: str, url: str, jobs: int, procs: list[subprocess.Popen[bytes]]) -> float:
    """Poll until the peer's tables show every job done; return that ``perf_counter``."""
    deadline = time.perf_counter() + max(MIN_RUN_TIMEOUT, jobs / 10)
    with psycopg.connect(url, autocommit=True) as poll:
        while True:
            row = poll.execute(_DONE_QUERY[peer], {"jobs": jobs}).fetchone()
            now = time.perf_counter()
            if row is not None and row[0]:
                return now
            if any(proc.poll() is not None for proc in procs):
                raise RuntimeError(f"{peer}: a worker exited before all jobs were done")
            if now > deadline:
                raise RuntimeError(f"{peer}: jobs not done before the deadline")
            time.sleep(POLL_INTERVAL)


def _check_outcome(peer: str, url: str, jobs: int) -> None:
    with psycopg.connect(url, autocommit=True) as conn:
        failed = conn.execute(_FAILED_QUERY[peer]).fetchone()
        succeeded = conn.execute(_SUCCEEDED_QUERY[peer]).fetchone()
    if failed is None or succeeded is None or failed[0] or succeeded[0] != jobs:
        raise RuntimeError(
            f"{peer}: expected {jobs} succeeded jobs and none failed, got "
            f"{succeeded and succeeded[0]} succeeded and {failed and failed[0]} failed"
        )


def _stop(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM the worker (both peers shut down gracefully); SIGKILL its group if it hangs."""
    if proc.poll() is not None:
        return
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=STOP_TIMEOUT)
    except subprocess.TimeoutExpired:
        with suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=STOP_TIMEOUT)
