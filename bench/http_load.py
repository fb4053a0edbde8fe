"""HTTP load benchmark of ``POST /v1/plan`` against calling ``cerebri.plan`` in-process.

Run from the repository root::

    .venv/bin/python bench/http_load.py            # 2 000 requests or 20 s per level
    .venv/bin/python bench/http_load.py --quick    # 200 requests or 5 s per level

What is measured:

1. *direct*: in this process, ``cerebri.plan(body)`` on the bytes of the canonical request
   ``examples/design-review.json`` plus the compact JSON encoding of the result (the work a
   server has to do per request, without HTTP), called back to back;
2. *HTTP*: a ``uvicorn`` server started as a subprocess with
   ``--factory cerebri.service:create_app --workers W`` on a free port of 127.0.0.1, for
   W = 1 and 2. The client runs in this process: C threads (C = 1, 4, 16), each with its own
   keep-alive ``httpx.Client`` (one connection each), post the same body back to back until
   the level has sent its request cap or its time cap passed, whichever comes first.
   Every connection is warmed up with a few untimed requests first;
3. *http+nodelay* (skip with ``--no-nodelay-fix``): the multi-worker servers again, started
   through a launcher that turns TCP_NODELAY on for the listening socket. Plain
   ``uvicorn --workers N`` (N > 1) leaves Nagle's algorithm on for accepted connections
   (Kludex/uvicorn#3149), so each keep-alive response waits ~40 ms for a delayed ACK; these
   rows show what the extra worker is worth without that bug.

Every response must be 200 and byte-equal to the first response (across all levels and
both server configurations); anything else aborts the run. The server is always terminated,
also on errors.

Reported per level: requests sent, requests per second (requests / wall time of the level),
p50 and p99 latency (nearest rank over per-request ``time.perf_counter`` round trips) and the
overhead ratio, HTTP p50 latency / direct p50 latency. The ``rps/direct`` column is the
level's throughput relative to the single-threaded direct throughput.

The client shares the machine (and, with 2 cores, the CPUs) with the server: at high
concurrency the client's own Python overhead is part of what is measured.
"""

from __future__ import annotations

import argparse
import os
import platform
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import httpx

import cerebri
from _machine import load_average, source_revision
from cerebri._json import compact

ROOT = Path(__file__).resolve().parent.parent
CANONICAL = ROOT / "examples" / "design-review.json"
HOST = "127.0.0.1"
APP = "cerebri.service:create_app"
ROUTE = "/v1/plan"
HEALTH = "/health"
HEALTH_TRIES = 150  # x HEALTH_PAUSE seconds
HEALTH_PAUSE = 0.1
WARMUP_PER_CONNECTION = 5
STOP_TIMEOUT = 10.0
# ``uvicorn --workers N`` (N > 1) binds its listener with ``proto=0``; accepted sockets inherit
# it and asyncio then skips TCP_NODELAY, so every keep-alive response waits ~40 ms for a
# delayed ACK on Linux (Kludex/uvicorn#3149, fix proposed in #3155). With ``--nodelay-fix``
# the server is started through this launcher, which turns TCP_NODELAY on for the listener
# (accepted sockets inherit it on Linux) and then runs the unchanged uvicorn CLI.
NODELAY_LAUNCHER = """
import socket, sys
import uvicorn.config, uvicorn.main
_bind = uvicorn.config.Config.bind_socket
def bind_socket(self):
    sock = _bind(self)
    if sock.family in (socket.AF_INET, socket.AF_INET6):
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock
uvicorn.config.Config.bind_socket = bind_socket
sys.argv[0] = "uvicorn"
sys.exit(uvicorn.main.main())
"""
REQUEST_TIMEOUT = 30.0


@dataclass(frozen=True)
class Caps:
    requests: int
    seconds: float


@dataclass(frozen=True)
class Level:
    label: str
    workers: int | None  # None: direct, in-process
    concurrency: int
    latencies: list[float]  # seconds, one per request
    wall: float

    @property
    def requests(self) -> int:
        return len(self.latencies)

    @property
    def rps(self) -> float:
        return self.requests / self.wall

    def percentile(self, q: float) -> float:
        """Nearest-rank percentile ``q`` (0-100) of the latencies, in seconds."""
        ordered = sorted(self.latencies)
        rank = max(1, -(-len(ordered) * q // 100))  # ceil(n * q / 100)
        return ordered[int(rank) - 1]


# --------------------------------------------------------------------------- direct


def run_direct(body: bytes, caps: Caps) -> tuple[Level, bytes]:
    """``plan(body)`` + compact encoding, back to back, in this thread."""
    expected = compact(cerebri.plan(body).to_wire()).encode("utf-8")
    for _ in range(WARMUP_PER_CONNECTION):
        cerebri.plan(body)
    latencies: list[float] = []
    start = time.perf_counter()
    deadline = start + caps.seconds
    while len(latencies) < caps.requests:
        t0 = time.perf_counter()
        out = compact(cerebri.plan(body).to_wire()).encode("utf-8")
        t1 = time.perf_counter()
        latencies.append(t1 - t0)
        if out != expected:
            raise AssertionError("cerebri.plan is not deterministic on the canonical request")
        if t1 >= deadline:
            break
    wall = time.perf_counter() - start
    return Level("direct", None, 1, latencies, wall), expected


# --------------------------------------------------------------------------- server


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


@contextmanager
def uvicorn_server(workers: int, app: str = APP, *, nodelay_fix: bool = False) -> Iterator[str]:
    """Start ``uvicorn`` with ``workers`` processes; yield its base URL; always stop it."""
    port = free_port()
    launcher = ["-c", NODELAY_LAUNCHER] if nodelay_fix else ["-m", "uvicorn"]
    command = [
        sys.executable,
        *launcher,
        "--factory",
        app,
        "--workers",
        str(workers),
        "--host",
        HOST,
        "--port",
        str(port),
        "--no-access-log",
        "--log-level",
        "warning",
    ]
    proc = subprocess.Popen(command, cwd=ROOT, start_new_session=True)
    base = f"http://{HOST}:{port}"
    try:
        wait_healthy(proc, base)
        yield base
    finally:
        stop(proc)


def wait_healthy(proc: subprocess.Popen[bytes], base: str) -> None:
    with httpx.Client(base_url=base, timeout=2.0, trust_env=False) as client:
        for _ in range(HEALTH_TRIES):
            if proc.poll() is not None:
                raise RuntimeError(f"uvicorn exited with code {proc.returncode} before /health")
            with suppress(httpx.TransportError):
                if client.get(HEALTH).status_code == 200:
                    return
            time.sleep(HEALTH_PAUSE)
    raise RuntimeError(f"{base}{HEALTH} not healthy after {HEALTH_TRIES} tries")


def stop(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM the server (uvicorn stops its workers); SIGKILL its process group if it hangs."""
    if proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout=STOP_TIMEOUT)
    except subprocess.TimeoutExpired:
        # Not reaped yet, so the group id (its own session) is still ours: kill the group.
        with suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=STOP_TIMEOUT)


# --------------------------------------------------------------------------- load


class Reference:
    """The first response body; every later body must be byte-equal to it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.body: bytes | None = None

    def check(self, response: httpx.Response) -> None:
        if response.status_code != 200:
            raise AssertionError(
                f"HTTP {response.status_code} from {ROUTE}: {response.text[:300]!r}"
            )
        content = response.content
        with self._lock:
            if self.body is None:
                self.body = content
                return
        if content != self.body:
            raise AssertionError(
                f"response body differs from the first ({len(content)} vs {len(self.body)} bytes)"
            )


def run_http(
    base: str,
    body: bytes,
    *,
    label: str,
    workers: int,
    concurrency: int,
    caps: Caps,
    reference: Reference,
) -> Level:
    headers = {"content-type": "application/json"}
    clients = [
        httpx.Client(base_url=base, timeout=REQUEST_TIMEOUT, trust_env=False, headers=headers)
        for _ in range(concurrency)
    ]
    lock = threading.Lock()
    issued = 0
    stop_flag = threading.Event()
    errors: list[BaseException] = []
    per_thread: list[list[float]] = [[] for _ in range(concurrency)]
    clock: dict[str, float] = {}

    def start_clock() -> None:  # runs once, before the barrier releases any thread
        clock["start"] = time.perf_counter()
        clock["deadline"] = clock["start"] + caps.seconds

    start_barrier = threading.Barrier(concurrency + 1, action=start_clock)

    def claim() -> bool:
        nonlocal issued
        with lock:
            if stop_flag.is_set() or issued >= caps.requests:
                return False
            issued += 1
            return True

    def worker(index: int) -> None:
        client = clients[index]
        out = per_thread[index]
        try:
            for _ in range(WARMUP_PER_CONNECTION):
                reference.check(client.post(ROUTE, content=body))
        except BaseException as exc:
            errors.append(exc)
            stop_flag.set()
        start_barrier.wait()
        try:
            while claim():
                t0 = time.perf_counter()
                response = client.post(ROUTE, content=body)
                t1 = time.perf_counter()
                reference.check(response)
                out.append(t1 - t0)
                if t1 >= clock["deadline"]:
                    stop_flag.set()
        except BaseException as exc:
            errors.append(exc)
            stop_flag.set()

    threads = [threading.Thread(target=worker, args=(i,), daemon=True) for i in range(concurrency)]
    try:
        for thread in threads:
            thread.start()
        start_barrier.wait()  # every connection is open and warm
        for thread in threads:
            thread.join()
        wall = time.perf_counter() - clock["start"]
    finally:
        for client in clients:
            client.close()
    if errors:
        raise errors[0]
    latencies = [x for chunk in per_thread for x in chunk]
    return Level(label, workers, concurrency, latencies, wall)


# --------------------------------------------------------------------------- report


def machine_info() -> list[str]:
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        usable = os.cpu_count() or 0
    names = ("cerebri", "pydantic", "fastapi", "starlette", "uvicorn", "httpx", "h11")
    versions = []
    for name in names:
        try:
            versions.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            versions.append(f"{name} -")
    extras = [n for n in ("uvloop", "httptools") if _installed(n)]
    return [
        f"python   {sys.version.split()[0]} ({platform.python_implementation()}, "
        f"{' '.join(platform.python_build())})",
        f"platform {platform.platform()} / {platform.machine()} / "
        f"{platform.processor() or 'unknown cpu'}",
        f"cores    {os.cpu_count()} logical, {usable} usable by this process "
        "(client and server share them)",
        f"packages {', '.join(versions)}",
        f"uvicorn  extras: {', '.join(extras) or 'none (asyncio loop, h11 parser)'}",
        f"source   {source_revision()}",
        f"load     {load_average()} (1/5/15 min)",
    ]


def _installed(name: str) -> bool:
    try:
        metadata.version(name)
    except metadata.PackageNotFoundError:
        return False
    return True


def table(levels: list[Level], direct: Level) -> list[str]:
    header = ("mode", "workers", "conc", "requests", "rps", "p50 ms", "p99 ms", "p50/direct")
    header = (*header, "rps/direct")
    rows = [header]
    d50 = direct.percentile(50)
    for level in levels:
        p50 = level.percentile(50)
        rows.append(
            (
                level.label,
                "-" if level.workers is None else str(level.workers),
                str(level.concurrency),
                str(level.requests),
                f"{level.rps:.1f}",
                f"{p50 * 1e3:.3f}",
                f"{level.percentile(99) * 1e3:.3f}",
                f"{p50 / d50:.2f}",
                f"{level.rps / direct.rps:.2f}",
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    lines = []
    for n, row in enumerate(rows):
        cells = [
            cell.ljust(w) if i == 0 else cell.rjust(w)
            for i, (cell, w) in enumerate(zip(row, widths, strict=True))
        ]
        lines.append("  ".join(cells))
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    return lines


def parse_int_list(text: str) -> list[int]:
    values = [int(part) for part in text.split(",") if part.strip()]
    if not values or any(v < 1 for v in values):
        raise argparse.ArgumentTypeError(f"expected positive integers, got {text!r}")
    return values


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="cap each level at 200 req / 5 s")
    parser.add_argument("--workers", type=parse_int_list, default=[1, 2])
    parser.add_argument("--concurrency", type=parse_int_list, default=[1, 4, 16])
    parser.add_argument("--requests", type=int, help="request cap per level (overrides)")
    parser.add_argument("--seconds", type=float, help="time cap per level (overrides)")
    parser.add_argument(
        "--no-nodelay-fix",
        action="store_true",
        help="skip the extra multi-worker rows with TCP_NODELAY forced on (uvicorn#3149)",
    )
    parser.add_argument("--app", default=APP, help=f"uvicorn factory import string ({APP})")
    args = parser.parse_args(argv)

    caps = Caps(200, 5.0) if args.quick else Caps(2000, 20.0)
    caps = Caps(args.requests or caps.requests, args.seconds or caps.seconds)
    body = CANONICAL.read_bytes()

    print("HTTP load benchmark: POST /v1/plan vs cerebri.plan in-process")
    for line in machine_info():
        print(line)
    rel = CANONICAL.relative_to(ROOT).as_posix()
    print(f"request  {rel} ({len(body)} bytes)")
    print(f"caps     {caps.requests} requests or {caps.seconds:g} s per level, whichever first")
    print()

    direct, encoded = run_direct(body, caps)
    levels = [direct]
    reference = Reference()
    servers = [(w, False) for w in args.workers]
    if not args.no_nodelay_fix:
        servers += [(w, True) for w in args.workers if w > 1]
    for workers, fix in servers:
        label = "http+nodelay" if fix else "http"
        with uvicorn_server(workers, args.app, nodelay_fix=fix) as base:
            launch = "nodelay launcher, " if fix else ""
            print(f"server   uvicorn --workers {workers} ({launch}{base})", flush=True)
            for concurrency in args.concurrency:
                level = run_http(
                    base,
                    body,
                    label=label,
                    workers=workers,
                    concurrency=concurrency,
                    caps=caps,
                    reference=reference,
                )
                levels.append(level)
                print(
                    f"  c={concurrency:<3} {level.requests} requests in {level.wall:.2f} s",
                    flush=True,
                )
    print()
    for line in table(levels, direct):
        print(line)
    print()
    assert reference.body is not None
    same = "yes" if reference.body == encoded else "no"
    print(
        f"responses: all {sum(lv.requests for lv in levels[1:])} timed (and every warm-up) "
        f"were 200 and byte-equal ({len(reference.body)} bytes); "
        f"equal to compact(plan(body).to_wire()) in-process: {same}"
    )
    print(f"load     {load_average()} (1/5/15 min, at the end)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
