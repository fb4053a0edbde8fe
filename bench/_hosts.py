"""Many machines, simulated: ``bench/execution.py --hosts N`` (Linux, root; not part of CI).

Each simulated host is a network namespace ``cerebri-bench-h<i>`` joined to this machine by
a veth pair: ``cbh<i>`` here with 10.231.<i>.1/24, ``cbn<i>`` in the namespace with
10.231.<i>.2/24 (and ``lo`` up). The namespaces have no other link and no default route; a
``blackhole`` route for 10.231.0.0/16 here keeps their traffic on this machine when a link
is down (nothing is forwarded or NATed). A throwaway PostgreSQL runs as the ``postgres``
system user (``runuser``), listening on the ``cbh`` addresses only (TCP trusted from
10.231.0.0/16 only) and on a Unix socket in its temporary folder, which this process uses.

The run: create a store; start ``workers`` processes of ``_host_worker`` in each namespace
(``ip netns exec``), each connecting to the server over its own link with a ``lease`` of a
few seconds; wait until each has made its first (empty) claim; submit the steps as plans of
:data:`STEPS_PER_PLAN` ``bench.noop`` steps (the adapter sleeps ``delay_ms`` and journals
each invocation); once ``cut_at`` of them are completed, cut host 1's link
(``ip link set cbh1 down``) and note the time. Host 1's workers keep running, stuck on a
dead link; the other hosts' workers must take over the leases that expire. When every step
is completed (or after ``timeout``), everything stops and the store and journals are read.

Reported: steps completed per host (``attempt_history.worker_id``), takeovers (rows with
outcome ``interrupted``), the store's record (each step exactly one ``completed`` history row,
none left open), invocations from the journals (steps invoked twice because the cut host's
outcome never arrived are counted apart: allowed for idempotent steps), the time from the
cut to the first takeover, throughput before and after the cut, and what the cut host's
workers reported (errors, slow calls) before they were killed.

Everything made (namespaces, links, route, server, folders) is removed in ``finally`` and by
``atexit``, also on Ctrl-C.
"""

from __future__ import annotations

import atexit
import contextlib
import glob
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, func, select, text

from _cerebri_runner import STEPS_PER_PLAN
from _cerebri_worker import NOOP, executor
from cerebri.execution import submit
from cerebri.execution.adapters import journal_entries
from cerebri.execution.store import init
from cerebri.execution.store.schema import attempt_history, attempts, plans, steps
from cerebri.plans import OPEN_PLAN_STATUSES, TERMINAL_STEP_STATUSES

__all__ = ["HostsSettings", "cannot_run", "report_lines", "run_hosts"]

SUBNET = "10.231.0.0/16"
NAMESPACE = "cerebri-bench-h{}"
HOST_LINK = "cbh{}"
NAMESPACE_LINK = "cbn{}"
DATABASE = "postgres"
POLL_SECONDS = 0.02
READY_TIMEOUT_SECONDS = 60.0
STOP_GRACE_SECONDS = 10.0
BUSY_WAIT_SECONDS = 2.0
CUT_HOST = 1
TERMINAL = tuple(sorted(status.value for status in TERMINAL_STEP_STATUSES))
OPEN_PLAN = tuple(sorted(status.value for status in OPEN_PLAN_STATUSES))
SERVER_SETTINGS = (
    # A backend whose client vanished mid-transaction would keep its row locks (and the
    # claim's SKIP LOCKED would pass over that step) until the kernel gives up on the
    # connection; these bound that, see the report's notes.
    "idle_in_transaction_session_timeout=10s",
    "tcp_keepalives_idle=5",
    "tcp_keepalives_interval=2",
    "tcp_keepalives_count=3",
)


@dataclass(frozen=True)
class HostsSettings:
    """``hosts`` namespaces (>= 2) with ``workers`` processes each; ``steps`` no-op steps of
    ``delay_ms`` ms each; leases of ``lease`` s; host 1 cut at ``cut_at`` (0..1) of the steps
    completed; ``timeout`` s for the whole run after the submit."""

    hosts: int = 2
    workers: int = 2
    steps: int = 2000
    lease: float = 3.0
    delay_ms: float = 5.0
    cut_at: float = 0.4
    timeout: float = 300.0
    server_timeouts: bool = True


def cannot_run() -> str | None:
    """Why this machine cannot run the bench (not root, no ``ip``/``runuser``/PostgreSQL)."""
    if sys.platform != "linux":
        return "needs Linux network namespaces"
    if os.geteuid() != 0:
        return "needs root (ip netns, veth, runuser)"
    for tool in ("ip", "runuser"):
        if shutil.which(tool) is None:
            return f"no {tool} on PATH"
    if not _pg_bindir():
        return "no /usr/lib/postgresql/*/bin/pg_ctl"
    try:
        pwd.getpwnam("postgres")
    except KeyError:
        return "no 'postgres' system user"
    return None


def _pg_bindir() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"), key=_version_key)
    return Path(found[-1]).parent if found else None


def _version_key(path: str) -> tuple[int, str]:
    version = Path(path).parent.parent.name
    return (int(version), path) if version.isdigit() else (0, path)


def _run(*command: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, check=check, capture_output=True, text=True, timeout=120)


# --------------------------------------------------------------------------- network


class Network:
    """The namespaces, veth pairs and blackhole route of :data:`SUBNET`."""

    def __init__(self, hosts: int) -> None:
        self.hosts = hosts
        self.route = False

    def namespace(self, host: int) -> str:
        return NAMESPACE.format(host)

    def server_address(self, host: int) -> str:
        return f"10.231.{host}.1"

    def up(self) -> None:
        self.down()  # leftovers of an interrupted run, by our own names only
        _run("ip", "route", "add", "blackhole", SUBNET)
        self.route = True
        for host in range(1, self.hosts + 1):
            ns, here, there = (
                self.namespace(host),
                HOST_LINK.format(host),
                NAMESPACE_LINK.format(host),
            )
            _run("ip", "netns", "add", ns)
            _run("ip", "link", "add", here, "type", "veth", "peer", "name", there)
            _run("ip", "link", "set", there, "netns", ns)
            _run("ip", "addr", "add", f"10.231.{host}.1/24", "dev", here)
            _run("ip", "link", "set", here, "up")
            _run("ip", "-n", ns, "addr", "add", f"10.231.{host}.2/24", "dev", there)
            _run("ip", "-n", ns, "link", "set", there, "up")
            _run("ip", "-n", ns, "link", "set", "lo", "up")

    def cut(self, host: int) -> None:
        _run("ip", "link", "set", HOST_LINK.format(host), "down")

    def sockets(self, host: int) -> list[str]:
        """``ss -tno`` in ``host``'s namespace: its TCP connections and their timers."""
        done = _run("ip", "netns", "exec", self.namespace(host), "ss", "-tno", check=False)
        return [" ".join(line.split()) for line in done.stdout.splitlines()[1:] if line.strip()]

    def down(self) -> None:
        for host in range(1, self.hosts + 1):
            # Deleting the namespace deletes its veth end, and with it our end.
            _run("ip", "netns", "delete", self.namespace(host), check=False)
            _run("ip", "link", "delete", HOST_LINK.format(host), check=False)
        _run("ip", "route", "delete", "blackhole", SUBNET, check=False)
        self.route = False


# --------------------------------------------------------------------------- server


class Server:
    """A throwaway PostgreSQL run as the ``postgres`` user in a temporary folder."""

    def __init__(self, listen: list[str], settings: tuple[str, ...]) -> None:
        bindir = _pg_bindir()
        assert bindir is not None
        self.bindir = bindir
        self.listen = listen
        self.settings = settings
        self.folder: Path | None = None
        self.port = 0
        self.running = False

    def _as_postgres(self, *command: str) -> None:
        _run("runuser", "-u", "postgres", "--", *command)

    def start(self) -> None:
        owner = pwd.getpwnam("postgres")
        self.folder = Path(tempfile.mkdtemp(prefix="cerebri-hosts-pg-"))
        os.chown(self.folder, owner.pw_uid, owner.pw_gid)
        data = self.folder / "data"
        self._as_postgres(
            str(self.bindir / "initdb"), "-D", str(data), "-A", "trust", "-U", "postgres",
            "-E", "UTF8", "--no-sync",
        )  # fmt: skip
        hba = data / "pg_hba.conf"
        hba.write_text(f"local all all trust\nhost all all {SUBNET} trust\n")
        with socket.socket() as probe:  # a port free on every address
            probe.bind(("", 0))
            self.port = probe.getsockname()[1]
        options = [f"-F -p {self.port} -k {self.folder}"]
        options.append(f"-c listen_addresses={','.join(self.listen)}")
        options += [f"-c {setting}" for setting in self.settings]
        self._as_postgres(
            str(self.bindir / "pg_ctl"), "-D", str(data), "-l", str(self.folder / "server.log"),
            "-w", "-o", " ".join(options), "start",
        )  # fmt: skip
        self.running = True

    def local_url(self) -> str:
        """Over the Unix socket (this process)."""
        return f"postgresql+psycopg://postgres@/{DATABASE}?host={self.folder}&port={self.port}"

    def url(self, address: str) -> str:
        return f"postgresql+psycopg://postgres@{address}:{self.port}/{DATABASE}"

    def stop(self) -> None:
        if self.running and self.folder is not None:
            self._as_postgres(
                str(self.bindir / "pg_ctl"), "-D", str(self.folder / "data"), "-m",
                "immediate", "stop",
            )  # fmt: skip
            self.running = False
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)
            self.folder = None


# --------------------------------------------------------------------------- workers


@dataclass
class Worker:
    host: int
    number: int
    worker_id: str
    proc: subprocess.Popen[bytes]
    ready: Path
    journal: Path
    events: Path


def _start_worker(
    settings: HostsSettings, network: Network, server: Server, folder: Path, *, host: int, n: int
) -> Worker:
    name = f"h{host}w{n}"
    worker_id = f"bench:h{host}:w{n}"
    ready, journal = folder / f"ready-{name}", folder / f"journal-{name}.jsonl"
    events = folder / f"events-{name}.txt"
    command = [
        "ip", "netns", "exec", network.namespace(host),
        sys.executable, str(Path(__file__).parent / "_host_worker.py"),
        server.url(network.server_address(host)), worker_id, str(ready),
        str(folder / "stop"), str(journal), str(events),
        str(settings.lease), str(settings.delay_ms),
    ]  # fmt: skip
    proc = subprocess.Popen(command, start_new_session=True)
    return Worker(host, n, worker_id, proc, ready, journal, events)


def _wait_busy(workers: list[Worker]) -> None:
    """Wait (at most :data:`BUSY_WAIT_SECONDS`) for a moment when every one of ``workers``
    is inside its adapter, so that the cut strands their steps' outcomes and leaves leases
    behind to take over."""
    deadline = time.monotonic() + BUSY_WAIT_SECONDS
    while time.monotonic() < deadline:
        if all(Path(f"{w.events}.busy").exists() for w in workers):
            return
        time.sleep(0.0005)


def _draft(index: int, count: int) -> dict[str, object]:
    return {
        "objective": f"bench hosts plan {index}",
        "origin": "operator",
        "strategy": "bench",
        # A takeover counts the step's invocation again: room for the re-runs.
        "budget": {"max_capability_invocations": 2 * count},
        "steps": [
            {"key": f"s{i}", "kind": "capability", "capability": NOOP, "params": {}}
            for i in range(count)
        ],
    }


def _completed(engine: Engine) -> int:
    with engine.connect() as connection:
        done = connection.execute(
            select(func.count()).where(steps.c.status == "completed")
        ).scalar_one()
        connection.rollback()
    return int(done)


# --------------------------------------------------------------------------- the run


@dataclass
class Outcome:
    """What one run saw: instants in ns since the epoch (this machine's clock); ``history``
    rows ``(step id, worker id, outcome, finished_at, started_at)``; journals and events per
    worker id; the cut host's sockets and server sessions at the end."""

    settings: HostsSettings
    server_settings: tuple[str, ...] = ()
    submitted_ns: int = 0
    cut_ns: int | None = None
    cut_done: int = 0
    ended_ns: int = 0
    timed_out: bool = False
    statuses: dict[str, int] = field(default_factory=dict)
    plan_statuses: dict[str, int] = field(default_factory=dict)
    plans_open_all_done: list[str] = field(default_factory=list)
    history: list[tuple[str, str | None, str, int, int]] = field(default_factory=list)
    open_attempts: int = 0
    journals: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    events: dict[str, list[str]] = field(default_factory=dict)
    killed: list[str] = field(default_factory=list)
    cut_sockets: list[str] = field(default_factory=list)
    cut_backends: list[str] = field(default_factory=list)


def run_hosts(settings: HostsSettings, say: Any = print) -> Outcome:
    """Run the scenario of the module doc; cleans up whatever happens."""
    network = Network(settings.hosts)
    server_settings = SERVER_SETTINGS if settings.server_timeouts else ()
    addresses = [network.server_address(h) for h in range(1, settings.hosts + 1)]
    server = Server(addresses, server_settings)
    folder = Path(tempfile.mkdtemp(prefix="cerebri-hosts-"))
    workers: list[Worker] = []
    engine: Engine | None = None

    def clean() -> None:
        for worker in workers:
            if worker.proc.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(worker.proc.pid, signal.SIGKILL)
                worker.proc.wait()
        try:
            if engine is not None:
                engine.dispose()
            server.stop()
        finally:
            network.down()
            shutil.rmtree(folder, ignore_errors=True)

    atexit.register(clean)
    outcome = Outcome(settings, server_settings)
    try:
        network.up()
        server.start()
        say(f"network up: {settings.hosts} namespaces; PostgreSQL on port {server.port}")
        init(server.local_url())
        ex = executor(server.local_url())
        engine = ex.engine
        for host in range(1, settings.hosts + 1):
            for n in range(settings.workers):
                workers.append(_start_worker(settings, network, server, folder, host=host, n=n))
        _wait_connected(workers)
        say(f"{len(workers)} workers connected; submitting {settings.steps} steps")
        _submit_steps(ex, settings.steps)
        outcome.submitted_ns = time.time_ns()
        _run_until_done(settings, network, engine, workers, outcome, say=say)
        outcome.ended_ns = time.time_ns()
        outcome.cut_sockets = network.sockets(CUT_HOST)
        outcome.cut_backends = _backends(engine, network.server_address(CUT_HOST))
        (folder / "stop").write_text("stop")
        _stop_workers(workers, outcome)
        _read_store(engine, outcome)
        for worker in workers:
            outcome.journals[worker.worker_id] = list(journal_entries(worker.journal))
            if worker.events.exists():
                outcome.events[worker.worker_id] = worker.events.read_text().splitlines()
    finally:
        clean()
        atexit.unregister(clean)
    return outcome


def _wait_connected(workers: list[Worker]) -> None:
    """Wait until every worker says it is ready (RuntimeError when one exits or after
    READY_TIMEOUT_SECONDS)."""
    deadline = time.monotonic() + READY_TIMEOUT_SECONDS
    while not all(w.ready.exists() for w in workers):
        if time.monotonic() > deadline or any(w.proc.poll() is not None for w in workers):
            raise RuntimeError("the workers did not all connect over their links")
        time.sleep(POLL_SECONDS)


def _submit_steps(ex: Any, steps: int) -> None:
    """Submit ``steps`` no-op steps in plans of at most STEPS_PER_PLAN."""
    left, index = steps, 0
    while left > 0:
        count = min(STEPS_PER_PLAN, left)
        submit(ex, _draft(index, count))
        left, index = left - count, index + 1


def _run_until_done(
    settings: HostsSettings,
    network: Network,
    engine: Engine,
    workers: list[Worker],
    outcome: Outcome,
    *,
    say: Any,
) -> None:
    """Poll until every step completed or the timeout; cut CUT_HOST's link once the
    ``cut_at`` fraction of the steps completed (recorded in ``outcome``)."""
    deadline = time.monotonic() + settings.timeout
    cut_when = settings.cut_at * settings.steps
    while True:
        done = _completed(engine)
        if outcome.cut_ns is None and done >= cut_when:
            _wait_busy([w for w in workers if w.host == CUT_HOST])
            network.cut(CUT_HOST)
            outcome.cut_ns, outcome.cut_done = time.time_ns(), done
            say(f"cut host {CUT_HOST}'s link at {done} steps completed")
        if done >= settings.steps:
            return
        if time.monotonic() > deadline:
            outcome.timed_out = True
            say(f"timed out with {done} of {settings.steps} steps completed")
            return
        time.sleep(POLL_SECONDS)


def _stop_workers(workers: list[Worker], outcome: Outcome) -> None:
    """Give the workers STOP_GRACE_SECONDS to stop, then kill (and record) the stuck ones."""
    grace = time.monotonic() + STOP_GRACE_SECONDS
    for worker in workers:
        with contextlib.suppress(subprocess.TimeoutExpired):
            worker.proc.wait(timeout=max(0.1, grace - time.monotonic()))
        if worker.proc.poll() is None:
            outcome.killed.append(worker.worker_id)
            os.killpg(worker.proc.pid, signal.SIGKILL)
            worker.proc.wait()


def _backends(engine: Engine, server_address: str) -> list[str]:
    """The server's sessions for the cut host's clients: state, seconds in it, query start."""
    subnet = server_address.rsplit(".", 1)[0] + ".0/24"
    query = text(
        "SELECT state, extract(epoch FROM clock_timestamp() - state_change) AS seconds, "
        "backend_xid IS NOT NULL AS wrote, left(regexp_replace(query, '\\s+', ' ', 'g'), 60) "
        "AS query FROM pg_stat_activity WHERE client_addr <<= CAST(:subnet AS inet) "
        "ORDER BY state_change"
    )
    with engine.connect() as connection:
        rows = connection.execute(query, {"subnet": subnet}).all()
        connection.rollback()
    return [
        f"{r.state} for {float(r.seconds):.1f} s{' holding a transaction id' if r.wrote else ''}"
        f": {r.query}"
        for r in rows
    ]


def _read_store(engine: Engine, outcome: Outcome) -> None:
    with engine.connect() as connection:
        outcome.statuses = {
            str(status): int(count)
            for status, count in connection.execute(
                select(steps.c.status, func.count()).group_by(steps.c.status)
            )
        }
        outcome.plan_statuses = {
            str(status): int(count)
            for status, count in connection.execute(
                select(plans.c.status, func.count()).group_by(plans.c.status)
            )
        }
        open_steps = (
            select(steps.c.id)
            .where(steps.c.plan_id == plans.c.id, steps.c.status.not_in(TERMINAL))
            .exists()
        )
        outcome.plans_open_all_done = [
            str(plan_id)
            for plan_id in connection.execute(
                select(plans.c.id).where(plans.c.status.in_(OPEN_PLAN), ~open_steps)
            ).scalars()
        ]
        outcome.history = [
            (str(r.step_id), r.worker_id, str(r.outcome), int(r.finished_at), int(r.started_at))
            for r in connection.execute(
                select(
                    attempt_history.c.step_id,
                    attempt_history.c.worker_id,
                    attempt_history.c.outcome,
                    attempt_history.c.finished_at,
                    attempt_history.c.started_at,
                )
            )
        ]
        outcome.open_attempts = int(
            connection.execute(select(func.count()).select_from(attempts)).scalar_one()
        )


# --------------------------------------------------------------------------- report


def _host_of(worker_id: str | None) -> str:
    if worker_id and worker_id.startswith("bench:h"):
        return worker_id.split(":")[1]
    return "?"


def summary(outcome: Outcome) -> dict[str, Any]:
    """The numbers of the report, as one JSON-able dictionary."""
    s = outcome.settings
    completed = [h for h in outcome.history if h[2] == "completed"]
    interrupted = [h for h in outcome.history if h[2] == "interrupted"]
    result: dict[str, Any] = {
        "hosts": s.hosts,
        "workers_per_host": s.workers,
        "steps": s.steps,
        "lease_seconds": s.lease,
        "step_delay_ms": s.delay_ms,
        "server_settings": list(outcome.server_settings),
        "timed_out": outcome.timed_out,
        "cut_host": f"h{CUT_HOST}",
        "cut_at_completed": outcome.cut_done if outcome.cut_ns is not None else None,
        **_store_counts(outcome, completed, interrupted),
        **_invocation_counts(outcome),
        **_timings(outcome, completed, interrupted),
        "workers_killed_at_end": outcome.killed,
        "cut_host_sockets_at_end": outcome.cut_sockets,
        "cut_host_server_sessions_at_end": outcome.cut_backends,
        "worker_events": {
            worker: _digest_events(lines, outcome.cut_ns)
            for worker, lines in sorted(outcome.events.items())
        },
    }
    result["every_step_exactly_once"] = (
        not outcome.timed_out
        and result["steps_with_one_completed_attempt"] == s.steps
        and result["steps_with_several_completed_attempts"] == 0
        and result["steps_not_terminal"] == 0
        and result["open_attempt_rows"] == 0
        and outcome.statuses.get("completed") == s.steps
    )
    return result


_History = list[tuple[str, str | None, str, int, int]]


def _store_counts(outcome: Outcome, completed: _History, interrupted: _History) -> dict[str, Any]:
    """What the store holds at the end: completions and takeovers per host, statuses."""
    per_step = Counter(h[0] for h in completed)
    finisher = {h[0]: _host_of(h[1]) for h in completed}
    terminal = set(TERMINAL)
    return {
        "completed_per_host": dict(sorted(Counter(_host_of(h[1]) for h in completed).items())),
        "takeovers": len(interrupted),
        # An idempotent step's interrupted attempt is rebuilt from the step row at the takeover
        # and has no worker id; the host that took it over is the one that completed it.
        "takeovers_by_host": dict(
            sorted(Counter(finisher.get(h[0], "?") for h in interrupted).items())
        ),
        "step_statuses": outcome.statuses,
        "plan_statuses": outcome.plan_statuses,
        # Every step terminal, the plan still open: its last step's outcome was committed and
        # the worker went away before the separate transaction that completes the plan.
        "plans_open_with_every_step_done": outcome.plans_open_all_done,
        "steps_with_one_completed_attempt": sum(1 for c in per_step.values() if c == 1),
        "steps_with_several_completed_attempts": sum(1 for c in per_step.values() if c > 1),
        "steps_not_terminal": sum(n for st, n in outcome.statuses.items() if st not in terminal),
        "open_attempt_rows": outcome.open_attempts,
    }


def _invocation_counts(outcome: Outcome) -> dict[str, Any]:
    """What the adapters' journals say: how often each step was invoked, and why twice."""
    invoked: dict[str, list[str]] = defaultdict(list)
    for worker_id, entries in outcome.journals.items():
        for entry in entries:
            invoked[str(entry["origin"])].append(_host_of(worker_id))
    times = Counter(len(hosts) for hosts in invoked.values())
    cut_name = f"h{CUT_HOST}"
    twice_cut = sum(
        1 for hosts in invoked.values() if len(hosts) == 2 and hosts.count(cut_name) == 1
    )
    return {
        "invocations": sum(len(h) for h in invoked.values()),
        "steps_invoked": {str(k): v for k, v in sorted(times.items())},
        "steps_never_invoked": outcome.settings.steps - len(invoked),
        "invoked_twice_cut_outcome_lost": twice_cut,
        "invoked_twice_other": times.get(2, 0) - twice_cut,
    }


def _since(later: int | None, earlier: int | None, extra_ns: float = 0) -> float | None:
    """``later + extra_ns - earlier`` in seconds, ``None`` when either is unknown."""
    if later is None or earlier is None:
        return None
    return (later + extra_ns - earlier) / 1e9


def _per_second(count: int, start: int | None, end: int) -> float | None:
    """``count`` steps over ``[start, end]`` (ns) per second; ``None`` for no steps or no
    time."""
    if not count or start is None or end <= start:
        return None
    return count / (end - start) * 1e9


def _timings(outcome: Outcome, completed: _History, interrupted: _History) -> dict[str, Any]:
    """Recovery times after the cut and throughput before and after it."""
    cut = outcome.cut_ns
    before = [h for h in completed if cut is None or h[3] < cut]
    after = [h for h in completed if cut is not None and h[3] >= cut]
    last = max((h[3] for h in completed), default=outcome.ended_ns)
    first_takeover = min((h[3] for h in interrupted), default=None)
    # The interrupted attempt's start is its claim: its lease ran out ``lease`` s later.
    expiry = max((h[4] for h in interrupted), default=None)
    recovered = [h for h in after if first_takeover is not None and h[3] >= first_takeover]
    return {
        "seconds_cut_to_first_takeover": _since(first_takeover, cut),
        "seconds_cut_to_last_dead_lease_expiry": _since(expiry, cut, outcome.settings.lease * 1e9),
        "steps_per_s_before_cut": len(before) / ((cut or last) - outcome.submitted_ns) * 1e9
        if before
        else None,
        "steps_per_s_after_cut": _per_second(len(after), cut, last),
        "steps_per_s_after_first_takeover": _per_second(len(recovered), first_takeover, last),
        "seconds_total": (last - outcome.submitted_ns) / 1e9,
    }


def _digest_events(lines: list[str], cut: int | None) -> list[str]:
    """Events as ``+<s after the cut> <what>``, repeats of the same text folded."""
    out: list[str] = []
    seen: Counter[str] = Counter()
    for line in lines:
        stamp, _, what = line.partition(" ")
        seen[what] += 1
        if seen[what] == 1:
            at = (int(stamp) - cut) / 1e9 if cut is not None else 0.0
            out.append(f"{at:+.1f} s {what}")
    return out + [f"(x{n}) {what}" for what, n in seen.items() if n > 1]


def report_lines(data: dict[str, Any]) -> list[str]:
    """The summary as text."""

    def rate(value: float | None) -> str:
        return "-" if value is None else f"{value:.1f} steps/s"

    recover = data["seconds_cut_to_first_takeover"]
    lines = [
        f"hosts {data['hosts']} x {data['workers_per_host']} workers; {data['steps']} no-op "
        f"steps of {data['step_delay_ms']:g} ms; lease {data['lease_seconds']:g} s",
        f"server   {', '.join(data['server_settings']) or 'default timeouts'}",
        f"cut      {data['cut_host']}'s link at {data['cut_at_completed']} steps completed"
        + (" (TIMED OUT before the end)" if data["timed_out"] else ""),
        "completed per host (attempt_history): "
        + ", ".join(f"{h} {n}" for h, n in data["completed_per_host"].items()),
        f"takeovers (interrupted attempts): {data['takeovers']} (taken over by "
        + (", ".join(f"{h} {n}" for h, n in data["takeovers_by_host"].items()) or "-")
        + ")",
        f"store    step statuses {data['step_statuses']}; plan statuses {data['plan_statuses']}; "
        f"{data['steps_with_one_completed_attempt']} steps with exactly one completed attempt, "
        f"{data['steps_with_several_completed_attempts']} with more; "
        f"{data['steps_not_terminal']} not terminal; {data['open_attempt_rows']} open attempt rows",
        "plans open with every step done: "
        + (", ".join(data["plans_open_with_every_step_done"]) or "none"),
        f"journal  {data['invocations']} invocations; steps by times invoked "
        f"{data['steps_invoked']}; never invoked {data['steps_never_invoked']}",
        f"         invoked twice because the cut host's outcome never arrived: "
        f"{data['invoked_twice_cut_outcome_lost']}; invoked twice otherwise: "
        f"{data['invoked_twice_other']}",
        "recovery "
        + ("-" if recover is None else f"{recover:.2f} s from the cut to the first takeover")
        + (
            ""
            if data["seconds_cut_to_last_dead_lease_expiry"] is None
            else f" (the cut host's leases ran out "
            f"{data['seconds_cut_to_last_dead_lease_expiry']:.2f} s after the cut)"
        ),
        f"throughput before the cut {rate(data['steps_per_s_before_cut'])}, after "
        f"{rate(data['steps_per_s_after_cut'])} (from the first takeover on "
        f"{rate(data['steps_per_s_after_first_takeover'])}); {data['seconds_total']:.1f} s in all",
        f"killed at the end (stuck): {', '.join(data['workers_killed_at_end']) or 'none'}",
    ]
    lines.append(f"{data['cut_host']}'s TCP connections at the end (ss -tno in its namespace):")
    lines += [f"  {line}" for line in data["cut_host_sockets_at_end"]] or ["  none"]
    lines.append(f"the server's sessions for {data['cut_host']} at the end (pg_stat_activity):")
    lines += [f"  {line}" for line in data["cut_host_server_sessions_at_end"]] or ["  none"]
    for worker, events in data["worker_events"].items():
        lines.append(f"events of {worker} (time from the cut):")
        lines += [f"  {event}" for event in events]
    lines.append(
        "every step ran exactly once: " + ("YES" if data["every_step_exactly_once"] else "NO")
    )
    return lines
