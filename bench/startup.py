"""Start-up cost of the ``cerebri`` command line and MCP server, in fresh processes.

Run from the repository root::

    .venv/bin/python bench/startup.py            # 11 runs of each command
    .venv/bin/python bench/startup.py --runs 5   # quicker
    .venv/bin/python bench/startup.py --baseline /tmp/base/src   # before/after in one run

Every command runs ``--runs`` times, each in a new process (the commands interleave, so a
burst of load elsewhere spreads over all of them). Reported per command: the median wall
time (``time.perf_counter`` around the child) and the median CPU time of the child (user +
system, from ``resource.getrusage(RUSAGE_CHILDREN)`` before and after), both in ms, and
each as a ratio to ``python -c pass`` (the same interpreter, so the ratio is the start-up
cerebri adds on top of a bare interpreter).

Commands:

* ``python -c pass``: the bare interpreter (the baseline);
* ``cerebri --help``;
* ``cerebri plan examples/design-review.json`` (the canonical request);
* ``cerebri find-slot`` over two small .ics files written to a temporary folder;
* MCP initialise: ``cerebri mcp`` is started, one JSON-RPC ``initialize`` request is
  written to its stdin and the clock stops at the first line of its reply; stdin is then
  closed and the server exits. The CPU column covers the whole process (it also includes
  the shutdown after the reply).

Before measuring, the cerebri sources are compiled to bytecode (``compileall``, as installing
a wheel does), so no run pays for compiling them, whatever ``PYTHONDONTWRITEBYTECODE`` says.
With ``--baseline SRC`` (the ``src`` folder of another checkout, e.g. from ``git archive``)
every cerebri command also runs with ``PYTHONPATH=SRC`` (that checkout's ``cerebri``, the same
interpreter and packages), interleaved with this checkout's runs: a before/after table from
one run under the same load.

Targets (issue 22): ``cerebri plan`` within 5x of ``python -c pass`` and under 250 ms on an
idle machine; MCP initialise under 1 s.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from _machine import ROOT, load_average, source_revision

PYTHON = sys.executable
CEREBRI = str(Path(PYTHON).parent / "cerebri")

_CALENDAR = """BEGIN:VCALENDAR\r
VERSION:2.0\r
PRODID:-//cerebri bench//startup//EN\r
{events}END:VCALENDAR\r
"""

_EVENT = """BEGIN:VEVENT\r
UID:{uid}@bench.invalid\r
DTSTAMP:20260101T000000Z\r
DTSTART:{start}\r
DTEND:{end}\r
SUMMARY:busy {uid}\r
END:VEVENT\r
"""


def write_calendars(folder: Path) -> list[Path]:
    """Two small calendars (three busy events each) in the week of 2026-10-05."""
    paths = []
    for who, hours in (("alice", (9, 11, 14)), ("bob", (10, 13, 15))):
        events = "".join(
            _EVENT.format(
                uid=f"{who}-{day}-{hour}",
                start=f"202610{day:02d}T{hour:02d}0000Z",
                end=f"202610{day:02d}T{hour:02d}4500Z",
            )
            for day in (5, 6, 7)
            for hour in hours
        )
        path = folder / f"{who}.ics"
        path.write_text(_CALENDAR.format(events=events), encoding="utf-8", newline="")
        paths.append(path)
    return paths


def compile_sources(src: Path) -> None:
    """Write the bytecode of the ``cerebri`` package under ``src`` (quietly)."""
    subprocess.run(
        [PYTHON, "-m", "compileall", "-q", str(src / "cerebri")],
        check=True,
        stdout=subprocess.DEVNULL,
    )


def _cpu_children() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_command(argv: list[str], env: dict[str, str] | None = None) -> tuple[float, float]:
    """Wall and CPU seconds of one run of ``argv`` (output discarded; a failure raises)."""
    cpu = _cpu_children()
    start = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=True, env=env)
    wall = time.perf_counter() - start
    return wall, _cpu_children() - cpu


_INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "cerebri-bench", "version": "0"},
    },
}


def run_mcp_initialise(env: dict[str, str] | None = None) -> tuple[float, float]:
    """Wall seconds from spawning ``cerebri mcp`` to the first line of its reply to
    ``initialize``, and the CPU seconds of the whole process."""
    cpu = _cpu_children()
    start = time.perf_counter()
    with subprocess.Popen(
        [CEREBRI, "mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
    ) as child:
        assert child.stdin is not None and child.stdout is not None
        child.stdin.write(json.dumps(_INITIALIZE).encode() + b"\n")
        child.stdin.flush()
        line = child.stdout.readline()
        wall = time.perf_counter() - start
        reply = json.loads(line)
        if reply.get("id") != 1 or "result" not in reply:
            raise RuntimeError(f"unexpected initialize reply: {line!r}")
        child.stdin.close()
        child.stdout.read()
        if child.wait(timeout=60) != 0:
            raise RuntimeError(f"cerebri mcp exited with {child.returncode}")
    return wall, _cpu_children() - cpu


def commands(
    folder: Path, baseline: Path | None = None
) -> dict[str, Callable[[], tuple[float, float]]]:
    """The commands to time by name; with ``baseline``, each cerebri command also as
    ``NAME (baseline)`` with ``PYTHONPATH=baseline``."""
    alice, bob = write_calendars(folder)
    find_slot = [
        CEREBRI,
        "find-slot",
        "--ics",
        str(alice),
        "--ics",
        str(bob),
        "--duration",
        "30m",
        "--between",
        "2026-10-05T08:00/2026-10-07T18:00",
    ]

    envs: dict[str, dict[str, str] | None] = {"": None}
    if baseline is not None:
        envs[" (baseline)"] = {**os.environ, "PYTHONPATH": str(baseline)}

    def run(argv: list[str], env: dict[str, str] | None) -> Callable[[], tuple[float, float]]:
        return lambda: run_command(argv, env)

    def mcp(env: dict[str, str] | None) -> Callable[[], tuple[float, float]]:
        return lambda: run_mcp_initialise(env)

    todo = {"python -c pass": run([PYTHON, "-c", "pass"], None)}
    for tag, env in envs.items():
        todo |= {
            f"cerebri --help{tag}": run([CEREBRI, "--help"], env),
            f"cerebri plan design-review{tag}": run(
                [CEREBRI, "plan", str(ROOT / "examples" / "design-review.json")], env
            ),
            f"cerebri find-slot 2 x .ics{tag}": run(find_slot, env),
            f"MCP initialise{tag}": mcp(env),
        }
    return todo


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=11, help="runs per command (default 11)")
    parser.add_argument(
        "--baseline",
        type=Path,
        metavar="SRC",
        help="also time the cerebri package under SRC (another checkout's src folder)",
    )
    args = parser.parse_args()
    compile_sources(ROOT / "src")
    if args.baseline is not None:
        compile_sources(args.baseline)

    print(f"cerebri {source_revision()}, Python {platform.python_version()}, {platform.platform()}")
    print(f"cores: {os.cpu_count()}, load average at start: {load_average()}")
    with tempfile.TemporaryDirectory(prefix="cerebri-startup-") as tmp:
        todo = commands(Path(tmp), args.baseline)
        for run in todo.values():  # warm the file cache; not counted
            run()
        samples: dict[str, list[tuple[float, float]]] = {name: [] for name in todo}
        for _ in range(args.runs):
            for name, run in todo.items():
                samples[name].append(run())
    print(f"load average at end: {load_average()}; {args.runs} runs each, medians\n")

    base_wall = statistics.median(w for w, _ in samples["python -c pass"])
    base_cpu = statistics.median(c for _, c in samples["python -c pass"])
    print(f"{'command':<39} {'wall ms':>9} {'x pass':>8} {'CPU ms':>9} {'x pass':>8}")
    for name, runs in samples.items():
        wall = statistics.median(w for w, _ in runs)
        cpu = statistics.median(c for _, c in runs)
        print(
            f"{name:<39} {wall * 1e3:>9.1f} {wall / base_wall:>8.1f} "
            f"{cpu * 1e3:>9.1f} {cpu / base_cpu:>8.1f}"
        )


if __name__ == "__main__":
    sys.exit(main())
