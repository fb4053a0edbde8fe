"""Execution benchmark: cerebri's durable executor against procrastinate and pgqueuer.

Run from the repository root (the peers are an extra requirement of this benchmark only)::

    .venv/bin/pip install -e '.[bench]'      # procrastinate, pgqueuer[asyncpg]
    .venv/bin/python bench/execution.py                        # 2000 steps, workers 1,2,4
    .venv/bin/python bench/execution.py --steps 500 --workers 1,4 --json

What is measured, all in one run against the same PostgreSQL server:

* rows ``sqlite / 1``: cerebri alone (the peers need PostgreSQL), on a fresh SQLite file;
* rows ``postgresql / W`` for each ``--workers`` value W: cerebri, procrastinate and
  pgqueuer, each on its own fresh database (``CREATE DATABASE bench_exec_<pid>_<n>`` on the
  server of ``--pg-url``, dropped after the row), each with W worker processes doing the
  same number (``--steps``) of no-op jobs.

Every measurement follows the same protocol (``_peers`` for the peers, the contract in
``_cerebri_runner`` for cerebri): install the schema; start W real worker processes and
wait until each has made its first claim attempt on the empty queue (not timed); enqueue
all jobs in one bulk call (not timed); the clock runs from the committed enqueue until a
poll (every 5 ms) of the queue's tables sees every job done. Throughput = jobs / that
time. Claim latency: the duration of each claim call that claimed work, measured inside the
workers (procrastinate claims one job per call, pgqueuer a batch of up to 10).

Reported per row: throughput of each system, the ratios cerebri / peer, and claim p50/p99
(nearest rank) in milliseconds, then the issue's goals (#12): >= 300 steps/s on SQLite,
>= 1000 steps/s with 4 PostgreSQL workers, claim p99 <= 10 ms, cerebri >= procrastinate.

``--hosts N`` (N >= 2; Linux, root; not part of CI) runs instead the many-machines scenario
of ``_hosts``: N network namespaces joined to this machine by veth pairs on 10.231.0.0/16,
``--workers-per-host`` cerebri workers in each against one throwaway PostgreSQL reached over
those links, host 1's link cut once ``--cut-at`` of the ``--steps`` are done; the report
checks that every step completed exactly once (the other hosts take over the expired leases)::

    sudo .venv/bin/python bench/execution.py --hosts 2        # 2000 steps, 2 workers per host

Workers and this process share the machine (2 cores on the development machine): with 4
workers the CPUs are oversubscribed, and PostgreSQL runs on the same cores.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import signal
import sys
import tempfile
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from statistics import median_low
from typing import Any

import psycopg
from sqlalchemy.engine import make_url

from _cerebri_runner import run_cerebri
from _hosts import HostsSettings, cannot_run, report_lines, run_hosts, summary
from _machine import load_average, source_revision
from _peers import PEERS, PeerResult, fresh_database, missing_peers, run_peer

DEFAULT_PG_URL = "postgresql://postgres@127.0.0.1:5432/postgres"
CONNECT_TIMEOUT = 3  # seconds, for the reachability check of the server
GOAL_SQLITE = 300.0  # steps/s, SQLite, 1 worker
GOAL_PG4 = 1000.0  # steps/s, PostgreSQL, 4 workers
GOAL_CLAIM_P99_MS = 10.0


@dataclass
class Row:
    backend: str  # "sqlite" or "postgresql"
    workers: int
    cerebri: dict[str, Any] | None = None
    peers: dict[str, PeerResult | None] = field(default_factory=dict)

    def cerebri_rate(self) -> float | None:
        if self.cerebri is None:
            return None
        return float(self.cerebri["steps_per_s"])

    def ratio(self, peer: str) -> float | None:
        mine, theirs = self.cerebri_rate(), self.peers.get(peer)
        if mine is None or theirs is None:
            return None
        return mine / theirs.jobs_per_s

    def to_dict(self) -> dict[str, Any]:
        return {
            "backend": self.backend,
            "workers": self.workers,
            "cerebri": self.cerebri,
            **{
                peer: None if result is None else result.to_dict()
                for peer, result in self.peers.items()
            },
            **{f"ratio_cerebri_{peer}": self.ratio(peer) for peer in self.peers},
        }


# --------------------------------------------------------------------------- running


def say(text: str) -> None:
    """Progress, on stderr so that ``--json`` keeps stdout clean."""
    print(text, file=sys.stderr, flush=True)


def measure_cerebri(row: Row, url: str, steps: int) -> None:
    row.cerebri = dict(run_cerebri(url, steps, row.workers))
    say(f"  cerebri {row.backend} W={row.workers}: {row.cerebri_rate():.1f} steps/s")


def measure_peer(row: Row, peer: str, server: str, steps: int, repeats: int) -> None:
    results = []
    for _ in range(repeats):
        with fresh_database(server) as url:
            result = run_peer(peer, url, steps, row.workers)
        say(
            f"  {peer} W={row.workers}: {result.jobs} jobs in {result.seconds:.3f} s "
            f"= {result.jobs_per_s:.1f} jobs/s (workers up in {result.startup_seconds:.2f} s, "
            f"enqueue {result.enqueue_seconds * 1e3:.0f} ms, not timed)"
        )
        results.append(result)
    # The median run by throughput (the lower middle one for an even count).
    middle = median_low(r.jobs_per_s for r in results)
    row.peers[peer] = next(r for r in results if r.jobs_per_s == middle)


def reachable(url: str) -> str | None:
    """None if a connection to ``url`` works, else the reason."""
    try:
        with psycopg.connect(url, connect_timeout=CONNECT_TIMEOUT) as conn:
            conn.execute("SELECT 1")
    except psycopg.Error as exc:
        return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return None


def server_version(url: str) -> str:
    with psycopg.connect(url, connect_timeout=CONNECT_TIMEOUT) as conn:
        row = conn.execute("SHOW server_version").fetchone()
    return str(row[0]) if row else "unknown"


# --------------------------------------------------------------------------- report


def machine_info(pg: str) -> list[str]:
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        usable = os.cpu_count() or 0
    names = ("cerebri", "sqlalchemy", "psycopg", "procrastinate", "pgqueuer", "asyncpg", "uvloop")
    versions = []
    for name in names:
        try:
            versions.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            versions.append(f"{name} -")
    return [
        f"python   {sys.version.split()[0]} ({platform.python_implementation()})",
        f"platform {platform.platform()} / {platform.machine()}",
        f"cores    {os.cpu_count()} logical, {usable} usable "
        "(workers, PostgreSQL and this process share them)",
        f"packages {', '.join(versions)}",
        f"postgres {pg}",
        f"source   {source_revision()}",
        f"load     {load_average()} (1/5/15 min)",
    ]


def _rate(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def _ratio(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def _claims(p50: Any, p99: Any) -> str:
    if p50 is None or p99 is None:
        return "-"
    return f"{float(p50):.2f}/{float(p99):.2f}"


SHORT = {"procrastinate": "procr", "pgqueuer": "pgq"}


def table(rows: list[Row], peers: list[str]) -> list[str]:
    """Throughput (per second), ratios cerebri / peer, claim p50/p99 in milliseconds."""
    header = ["backend", "workers", "cerebri steps/s"]
    header += [f"{peer} jobs/s" for peer in peers]
    header += [f"cerebri/{SHORT[peer]}" for peer in peers]
    header += ["claim ms cerebri"]
    header += [f"claim ms {SHORT[peer]}" for peer in peers]
    lines_in: list[list[str]] = [header]
    for row in rows:
        cells = [row.backend, str(row.workers), _rate(row.cerebri_rate())]
        cells += [
            _rate(None if (r := row.peers.get(peer)) is None else r.jobs_per_s) for peer in peers
        ]
        cells += [_ratio(row.ratio(peer)) for peer in peers]
        mine = row.cerebri or {}
        cells.append(_claims(mine.get("claim_p50_ms"), mine.get("claim_p99_ms")))
        for peer in peers:
            result = row.peers.get(peer)
            cells.append(
                "-" if result is None else _claims(result.claim_ms(50), result.claim_ms(99))
            )
        lines_in.append(cells)
    widths = [max(len(cells[i]) for cells in lines_in) for i in range(len(header))]
    lines = []
    for n, cells in enumerate(lines_in):
        lines.append(
            "  ".join(
                cell.ljust(w) if i == 0 else cell.rjust(w)
                for i, (cell, w) in enumerate(zip(cells, widths, strict=True))
            )
        )
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    return lines


def goals(rows: list[Row]) -> list[dict[str, Any]]:
    """The issue's targets, each ``met`` True/False, or None when not measured."""

    def verdict(values: list[bool]) -> bool | None:
        return all(values) if values else None

    sqlite = [r.cerebri_rate() for r in rows if r.backend == "sqlite" and r.workers == 1]
    pg4 = [r.cerebri_rate() for r in rows if r.backend == "postgresql" and r.workers == 4]
    p99s = [
        float(r.cerebri["claim_p99_ms"])
        for r in rows
        if r.cerebri is not None and r.cerebri.get("claim_p99_ms") is not None
    ]
    versus = [r.ratio("procrastinate") for r in rows if r.backend == "postgresql"]
    return [
        {
            "goal": f"cerebri >= {GOAL_SQLITE:g} steps/s, SQLite, 1 worker",
            "met": verdict([v >= GOAL_SQLITE for v in sqlite if v is not None]),
        },
        {
            "goal": f"cerebri >= {GOAL_PG4:g} steps/s, PostgreSQL, 4 workers",
            "met": verdict([v >= GOAL_PG4 for v in pg4 if v is not None]),
        },
        {
            "goal": f"cerebri claim p99 <= {GOAL_CLAIM_P99_MS:g} ms, every row",
            "met": verdict([v <= GOAL_CLAIM_P99_MS for v in p99s]),
        },
        {
            "goal": "cerebri >= procrastinate, every PostgreSQL row",
            "met": verdict([v >= 1.0 for v in versus if v is not None]),
        },
    ]


def parse_int_list(text: str) -> list[int]:
    values = [int(part) for part in text.split(",") if part.strip()]
    if not values or any(v < 1 for v in values):
        raise argparse.ArgumentTypeError(f"expected positive integers, got {text!r}")
    return values


def parse_peers(text: str) -> list[str]:
    names = [part.strip() for part in text.split(",") if part.strip()]
    unknown = [n for n in names if n not in PEERS]
    if unknown:
        raise argparse.ArgumentTypeError(f"unknown peers {unknown}; expected some of {PEERS}")
    return names


def many_hosts(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    """``--hosts N``: the simulated many-machines run of ``_hosts`` and its report."""
    if args.hosts < 2 or args.workers_per_host < 1 or not 0 < args.cut_at < 1:
        parser.error("--hosts needs N >= 2, --workers-per-host >= 1 and 0 < --cut-at < 1")
    problem = cannot_run()
    if problem is not None:
        parser.error(f"--hosts: {problem}")
    settings = HostsSettings(
        hosts=args.hosts,
        workers=args.workers_per_host,
        steps=args.steps,
        lease=args.lease,
        delay_ms=args.step_delay_ms,
        cut_at=args.cut_at,
        server_timeouts=not args.no_server_timeouts,
    )
    # SIGTERM ends the run like Ctrl-C, so that the namespaces and the server are removed.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    data = summary(run_hosts(settings, say))
    if args.json:
        print(json.dumps({"machine": machine_info("throwaway, see server"), **data}, indent=2))
        return 0
    print("Execution benchmark: many machines, simulated (network namespaces, one link cut)")
    print("\n".join(machine_info("a throwaway server reached over the namespaces' links")))
    print()
    print("\n".join(report_lines(data)))
    print(f"load     {load_average()} (1/5/15 min, at the end)")
    return 0 if data["every_step_exactly_once"] else 1


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=2000, help="no-op jobs per row (2000)")
    parser.add_argument(
        "--workers", type=parse_int_list, default=[1, 2, 4], help="PostgreSQL worker processes"
    )
    parser.add_argument(
        "--pg-url",
        help="PostgreSQL server to create throwaway databases on (a database URL the user can "
        f"run CREATE DATABASE from); default {DEFAULT_PG_URL}, skipped if unreachable",
    )
    parser.add_argument(
        "--peers", type=parse_peers, default=list(PEERS), help="peers to run (both)"
    )
    parser.add_argument(
        "--repeats", type=int, default=1, help="runs per peer measurement; the median is kept"
    )
    parser.add_argument(
        "--pgqueuer-driver",
        choices=("asyncpg", "psycopg"),
        default="asyncpg",
        help="pgqueuer's database driver in its workers (asyncpg, its CLI's first choice)",
    )
    parser.add_argument(
        "--hosts",
        type=int,
        help="N >= 2: the many-machines scenario instead (root, Linux; see _hosts): N network "
        "namespaces, --workers-per-host workers each, host 1's link cut mid-run",
    )
    parser.add_argument(
        "--workers-per-host", type=int, default=2, help="with --hosts: workers per host (2)"
    )
    parser.add_argument("--lease", type=float, default=3.0, help="with --hosts: lease seconds (3)")
    parser.add_argument(
        "--step-delay-ms", type=float, default=5.0, help="with --hosts: ms per step (5)"
    )
    parser.add_argument(
        "--cut-at",
        type=float,
        default=0.4,
        help="with --hosts: cut host 1 once this fraction of the steps completed (0.4)",
    )
    parser.add_argument(
        "--no-server-timeouts",
        action="store_true",
        help="with --hosts: leave PostgreSQL's idle-in-transaction and keepalive settings at "
        "their defaults",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    return parser


def _postgres(
    parser: argparse.ArgumentParser, args: argparse.Namespace
) -> tuple[str, str | None, str]:
    """The server URL, why it is not reachable (``None``: it is) and the line that says so.
    An unreachable ``--pg-url`` given explicitly ends the run (``parser.error``)."""
    server = args.pg_url or DEFAULT_PG_URL
    shown = make_url(server).render_as_string(hide_password=True)
    problem = reachable(server)
    if problem is not None and args.pg_url:
        parser.error(f"--pg-url {shown} is not reachable: {problem}")
    if problem is None:
        pg = f"{shown} (PostgreSQL {server_version(server)}), a fresh database per measurement"
    else:
        pg = f"not reachable at {shown} ({problem}): PostgreSQL rows skipped"
    return server, problem, pg


def _peers(args: argparse.Namespace) -> tuple[list[str], list[str]]:
    """The peers that can run, and what is missing for the others."""
    missing = missing_peers(tuple(args.peers))
    if "pgqueuer" in args.peers and args.pgqueuer_driver == "asyncpg":
        missing += [f"pgqueuer (asyncpg driver: {m})" for m in missing_peers(("asyncpg",))]
    peers = [p for p in args.peers if not any(m.startswith(p) for m in missing)]
    return peers, missing


def _measure_rows(
    args: argparse.Namespace, server: str, problem: str | None, pg: str, peers: list[str]
) -> list[Row]:
    """The SQLite row, then one PostgreSQL row per worker count (when it is reachable)."""
    rows = [Row("sqlite", 1)]
    say("sqlite, 1 worker")
    with tempfile.TemporaryDirectory(prefix="bench-exec-") as tmp:
        measure_cerebri(rows[0], f"sqlite:///{Path(tmp, 'cerebri.db')}", args.steps)
    if problem is None:
        for workers in args.workers:
            row = Row("postgresql", workers)
            rows.append(row)
            say(f"postgresql, {workers} worker process(es)")
            with fresh_database(server) as url:
                measure_cerebri(row, url, args.steps)
            for peer in peers:
                measure_peer(row, peer, server, args.steps, args.repeats)
    else:
        say(f"PostgreSQL {pg}")
    return rows


def _print_report(rows: list[Row], peers: list[str], verdicts: list[dict[str, Any]]) -> None:
    print()
    for line in table(rows, peers):
        print(line)
    print("(claim ms: p50/p99 of the claim calls that claimed work; pgq claims up to 10 a call)")
    print()
    print("goals (#12):")
    for verdict in verdicts:
        met = {True: "met", False: "NOT met", None: "not measured"}[verdict["met"]]
        print(f"  {verdict['goal']}: {met}")
    print(f"load     {load_average()} (1/5/15 min, at the end)")


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.steps < 1 or args.repeats < 1:
        parser.error("--steps and --repeats must be positive")
    if args.hosts is not None:
        return many_hosts(parser, args)
    os.environ["BENCH_PGQUEUER_DRIVER"] = args.pgqueuer_driver  # read by the workers

    server, problem, pg = _postgres(parser, args)
    peers, missing = _peers(args)
    header = [
        "Execution benchmark: cerebri durable executor vs procrastinate and pgqueuer (no-op jobs)",
        *machine_info(pg),
        f"steps    {args.steps} per measurement; PostgreSQL workers "
        f"{','.join(map(str, args.workers))}; repeats {args.repeats}; "
        f"pgqueuer driver {args.pgqueuer_driver}",
    ]
    if missing:
        header.append(
            f"missing  {', '.join(missing)}: pip install procrastinate 'pgqueuer[asyncpg]'"
        )
    if not args.json:
        print("\n".join(header), flush=True)
        print(flush=True)

    rows = _measure_rows(args, server, problem, pg, peers)
    verdicts = goals(rows)
    if args.json:
        document = {
            "machine": header[1:],
            "steps": args.steps,
            "workers": args.workers,
            "repeats": args.repeats,
            "pgqueuer_driver": args.pgqueuer_driver,
            "hosts": args.hosts,
            "rows": [row.to_dict() for row in rows],
            "goals": verdicts,
        }
        print(json.dumps(document, indent=2))
        return 0
    _print_report(rows, peers, verdicts)
    return 0


if __name__ == "__main__":
    sys.exit(main())
