"""Many meetings at once, measured against the best (issue #24, decision 0071).

```
.venv/bin/pip install -e '.[bench]'          # the Timefold peer (needs javac/java 17)
.venv/bin/python bench/optimize.py           # the 50- and 100-meeting sets, a few minutes
.venv/bin/python bench/optimize.py --sets 50,100,200,400,800 --budget 30 --timefold-seconds 30
.venv/bin/python bench/optimize.py --peers cerebri,cpsat --write bench/results/optimize.md
```

In one run, per Timefold meeting-scheduling set (``$CEREBRI_OPTIMIZE_DIR``, default
``../shared/optimize``): cerebri's ``solve`` with a deterministic budget, a plain CP-SAT model
of the same rules with the same budget (``_optimize_cpsat``), and Timefold itself (its Java
solver on ``bench/timefold_java``, decision 0079) with a wall-clock budget
(``_optimize_timefold``). Every placement is scored by the bench's own
Timefold scorer (``_optimize_score``), never by the peer that produced it. Reported: wall
seconds to the first feasible placement (no hard penalty), the score after the budget and
the wall seconds spent; ratios against Timefold.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from _machine import load_average, source_revision
from _optimize_cpsat import solve_plain
from _optimize_score import Placement, TfScore, score
from _timefold_data import SETS, TimefoldSet, data_dir, read_set, to_batch_problem
from cerebri.optimize import BatchProblem, OptimizeError, SolverBudget, solve

PEERS = ("cerebri", "cpsat", "timefold")


@dataclass(frozen=True, slots=True)
class Row:
    """One peer on one set: the scorer's verdict and the wall times (``None``: not reached)."""

    set_name: str
    peer: str
    score: TfScore | None
    first_seconds: float | None
    wall_seconds: float
    note: str


def _cerebri_placement(solution_assignments: tuple[object, ...]) -> Placement:
    placement: Placement = {}
    for a in solution_assignments:
        meeting_id = int(a.meeting_id.removeprefix("meeting-"))  # type: ignore[attr-defined]
        room = a.room_id  # type: ignore[attr-defined]
        placement[meeting_id] = (
            a.start,  # type: ignore[attr-defined]
            int(room.removeprefix("room-")) if room is not None else None,
        )
    return placement


def _with_budget(problem: BatchProblem, units: float, workers: int) -> BatchProblem:
    return BatchProblem(
        grain_seconds=problem.grain_seconds,
        grains=problem.grains,
        meetings=problem.meetings,
        people=problem.people,
        rooms=problem.rooms,
        travel=problem.travel,
        weights=problem.weights,
        budget=SolverBudget(deterministic_time=units, workers=workers),
    )


def run_cerebri(
    data: TimefoldSet, units: float, workers: int, ladder: bool, ladder_start: float = 1.0
) -> Row:
    """cerebri's ``solve`` with ``units`` of deterministic time. ``solve`` returns once, at the
    end, so the time to the first feasible placement is measured as the wall time of the
    smallest budget of the ladder ``ladder_start`` x 1, 2, 4, ... (< ``units``) that returns a
    placement."""
    problem = to_batch_problem(data)
    first: float | None = None
    if ladder:
        step = ladder_start
        while step < units and first is None:
            started = time.perf_counter()
            try:
                answer = solve(_with_budget(problem, step, workers))
            except OptimizeError:
                answer = None
            if answer is not None and answer.assignments:
                first = time.perf_counter() - started
            step *= 2
    started = time.perf_counter()
    try:
        answer = solve(_with_budget(problem, units, workers))
    except OptimizeError as error:
        wall = time.perf_counter() - started
        return Row(data.name, "cerebri", None, first, wall, f"error {error.code}")
    wall = time.perf_counter() - started
    if first is None and answer.assignments:
        first = wall
    note = f"{answer.status.value}, {answer.stats.deterministic_time:.1f} units"
    if not answer.assignments:
        return Row(data.name, "cerebri", None, first, wall, note)
    return Row(
        data.name, "cerebri", score(data, _cerebri_placement(answer.assignments)), first, wall, note
    )


def run_cpsat(data: TimefoldSet, units: float, workers: int) -> Row:
    """The plain CP-SAT model with the same deterministic budget."""
    result = solve_plain(data, units, workers)
    note = f"{result.status}, {result.deterministic_time:.1f} units"
    found = score(data, result.placement) if result.placement is not None else None
    return Row(data.name, "cpsat", found, result.first_seconds, result.wall_seconds, note)


def run_timefold(data: TimefoldSet, seconds: float, moves: int = 0) -> Row:
    """Timefold's Java solver (``_optimize_timefold``) with a ``seconds`` wall-clock budget
    (and a limit of ``moves`` evaluated moves when above 0, whichever comes first).
    Its first-feasible and wall seconds count from its call to ``solve``; the note gives its
    own score (flagged when it differs from the bench scorer), the whole process's wall and
    CPU seconds (JVM start and solver build included), when its construction heuristic
    ended and its move evaluation speed."""
    from _optimize_timefold import solve_timefold  # noqa: PLC0415 - optional peer

    result = solve_timefold(data, seconds, moves=moves)
    answer = result.answer
    hard_level = None
    for at, best in answer.improved:  # the trace of the hard level, for the reading
        if best.split("hard/")[0] != hard_level:
            hard_level = best.split("hard/")[0]
            print(f"  timefold best at {at:.1f} s: {best}", flush=True)
    found = score(data, answer.placement) if answer.placement is not None else None
    note = f"own score {answer.score}"
    if found is None:
        note = (
            f"construction not finished in the budget ({answer.placed} of "
            f"{len(data.meetings)} meetings placed; partial: {answer.score})"
        )
    elif str(found) != answer.score:
        note += " (**differs from the bench scorer**)"
    if result.construction_seconds is not None:
        ended = "cut off" if found is None else "ended"
        note += f"; construction heuristic {ended} at {result.construction_seconds:.1f} s"
    if result.move_speed is not None:
        note += f"; {result.move_speed} moves/s"
    note += f"; process {result.process_seconds:.1f} s wall, {result.cpu_seconds:.1f} s CPU"
    return Row(data.name, "timefold", found, answer.feasible_seconds, answer.solve_seconds, note)


def _seconds(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def _ratio(value: float | None, base: float | None) -> str:
    if value is None or base is None or base == 0:
        return "-"
    return f"{value / base:.2f}"


def table(rows: list[Row]) -> list[str]:
    """The Markdown table: per set and peer, first feasible (s, and x Timefold's), the score,
    the soft penalty / Timefold's, and the wall seconds spent."""
    lines = [
        "| set | peer | first feasible s | x Timefold | hard/medium/soft | soft x Timefold "
        "| wall s | note |",
        "| --- | --- | ---: | ---: | --- | ---: | ---: | --- |",
    ]
    timefold = {r.set_name: r for r in rows if r.peer == "timefold"}
    for r in rows:
        base = timefold.get(r.set_name)
        soft_ratio = "-"
        if r.score is not None and base is not None and base.score is not None:
            soft_ratio = _ratio(r.score.soft, base.score.soft)
        lines.append(
            f"| {r.set_name} | {r.peer} | {_seconds(r.first_seconds)} "
            f"| {_ratio(r.first_seconds, base.first_seconds if base else None)} "
            f"| {r.score if r.score is not None else 'no placement'} | {soft_ratio} "
            f"| {r.wall_seconds:.1f} | {r.note} |"
        )
    return lines


def _version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "not installed"


def machine_lines() -> list[str]:
    """Where and with what the run happened."""
    return [
        f"- source: {source_revision()}; Python {platform.python_version()} on "
        f"{platform.platform()}, {os.cpu_count()} cores (shared with other work: load average "
        f"{load_average()} at the start)",
        f"- ortools {_version('ortools')}, timefold {_version('timefold')}",
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default="50,100", help="meeting counts, from 50,100,200,400,800")
    parser.add_argument("--peers", default=",".join(PEERS), help="cerebri,cpsat,timefold")
    parser.add_argument("--budget", type=float, default=10.0, help="CP-SAT deterministic time")
    parser.add_argument("--workers", type=int, default=1, help="CP-SAT workers (both peers)")
    parser.add_argument("--timefold-seconds", type=float, default=30.0)
    parser.add_argument(
        "--timefold-moves",
        type=int,
        default=0,
        help="also stop Timefold after this many evaluated moves (0: no such limit)",
    )
    parser.add_argument(
        "--no-ladder", action="store_true", help="skip cerebri's first-feasible ladder"
    )
    parser.add_argument(
        "--ladder-start", type=float, default=1.0, help="cerebri's first ladder budget (units)"
    )
    parser.add_argument("--write", type=Path, help="also write the report (Markdown) here")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sets.split(",")]
    peers = [p for p in args.peers.split(",") if p]
    unknown = [s for s in sizes if s not in SETS] + [p for p in peers if p not in PEERS]
    if unknown:
        parser.error(f"unknown sets or peers: {unknown}")
    head = machine_lines()
    head.append(
        f"- budgets: CP-SAT {args.budget} deterministic units, {args.workers} worker(s); "
        f"Timefold {args.timefold_seconds} s wall (Java API, spent limit, seed 0)"
        + (f" or {args.timefold_moves} moves" if args.timefold_moves > 0 else "")
    )
    if "timefold" in peers:
        from _optimize_timefold import java_version  # noqa: PLC0415 - optional peer

        head.append(f"- Timefold peer: timefold-solver-core jars of the package, {java_version()}")
    print("\n".join(head), flush=True)
    rows: list[Row] = []
    for size in sizes:
        data = read_set(data_dir() / f"{SETS[size]}.json")
        for peer in peers:
            if peer == "cerebri":
                row = run_cerebri(
                    data, args.budget, args.workers, not args.no_ladder, args.ladder_start
                )
            elif peer == "cpsat":
                row = run_cpsat(data, args.budget, args.workers)
            else:
                row = run_timefold(data, args.timefold_seconds, args.timefold_moves)
            rows.append(row)
            print(
                f"{row.set_name} {row.peer}: {row.score} first {_seconds(row.first_seconds)} s, "
                f"wall {row.wall_seconds:.1f} s, {row.note}",
                flush=True,
            )
    lines = table(rows)
    head.append(f"- load average at the end: {load_average()}")
    print("\n".join(lines))
    if args.write is not None:
        args.write.parent.mkdir(parents=True, exist_ok=True)
        args.write.write_text("\n".join([*head, "", *lines, ""]), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
