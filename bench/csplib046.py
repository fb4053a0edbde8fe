"""CSPLib problem 046 (meeting scheduling with travel times): the 27 published instances solved
by ``cerebri.optimize.solve`` and judged independently (issue #24, decision 0072).

    CEREBRI_OPTIMIZE_DIR=/work/shared/optimize .venv/bin/python bench/csplib046.py
        [--budget 30] [--no-search] [--out bench/results/csplib046.md]

For each instance: the batch problem of ``_csplib046.to_problem`` is solved with a
deterministic-time budget (``--budget``, CP-SAT's work units; an infeasible instance may
spend as much again on its conflicting set). Then, without cerebri code:

* a placement (SAT) must pass ``_csplib046.violations``, the checker written from the
  specification;
* a conflicting set (INFEASIBLE) of ``travel`` rules must admit no schedule on its own, and
  each rule left out must admit one (``_csplib046.search``, exhaustive backtracking);
* the outcome must be the published one (``results/results.md``): every satisfiable instance
  solved, every infeasible one proven infeasible. The published solutions are checked too.

Unless ``--no-search``, the same backtracking search also decides every whole instance on its
own (a second, independent reference; it takes about two minutes in all).

The table (Markdown) goes to ``--out`` and to standard output. Wall times are
``time.perf_counter`` around one call, on whatever else the machine runs (load printed).
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from pathlib import Path

from _csplib046 import (
    Instance,
    Known,
    data_dir,
    meeting_id,
    parse_instances,
    parse_results,
    search,
    to_problem,
    violations,
)
from _machine import load_average, source_revision
from cerebri.optimize import BatchSolution, SolverBudget, SolveStatus, solve

OUT = Path(__file__).resolve().parent / "results" / "csplib046.md"


def _times(instance: Instance, answer: BatchSolution) -> dict[int, int]:
    number = {meeting_id(m): m for m in range(instance.meetings)}
    return {number[a.meeting_id]: a.start for a in answer.assignments}


def _all_gaps(instance: Instance) -> dict[tuple[int, int], int]:
    return {
        (i, j): instance.distance[i][j]
        for attended in instance.agents
        for i in attended
        for j in attended
        if i < j
    }


def _conflict_verdict(instance: Instance, answer: BatchSolution) -> str:
    """``"proven, minimal"`` when the independent search agrees with the conflicting set."""
    number = {meeting_id(m): m for m in range(instance.meetings)}
    if any(ref.kind != "travel" for ref in answer.conflict):
        kinds = sorted({ref.kind for ref in answer.conflict})
        return f"not checked (kinds {kinds})"
    gaps = {
        (number[ref.ids[0]], number[ref.ids[1]]): instance.distance[number[ref.ids[0]]][
            number[ref.ids[1]]
        ]
        for ref in answer.conflict
    }
    if search(instance.domain, gaps, sorted({m for pair in gaps for m in pair})) is not None:
        return "WRONG: the set admits a schedule"
    for pair in gaps:
        rest = {p: g for p, g in gaps.items() if p != pair}
        if search(instance.domain, rest, sorted({m for p in gaps for m in p})) is None:
            return f"not minimal (without {pair})"
    return "infeasible alone, minimal"


def _row(instance: Instance, known: Known, budget: float, run_search: bool) -> tuple[str, bool]:
    problem = to_problem(instance, SolverBudget(deterministic_time=budget))
    began = time.perf_counter()
    answer = solve(problem)
    wall = time.perf_counter() - began
    solved = answer.status in (SolveStatus.OPTIMAL, SolveStatus.FEASIBLE)
    if solved:
        wrong = violations(instance, _times(instance, answer))
        verdict = "passes the checker" if not wrong else f"WRONG: {wrong[0]}"
        good = not wrong and known.satisfiable
    elif answer.status is SolveStatus.INFEASIBLE:
        verdict = f"{len(answer.conflict)} rules: " + _conflict_verdict(instance, answer)
        good = verdict.endswith("minimal") and not known.satisfiable
    else:
        verdict, good = "nothing proven", False
    published = "SAT" if known.satisfiable else "INFEASIBLE"
    if known.times is not None:
        wrong_published = violations(instance, known.times)
        if wrong_published:
            published += f" (published solution breaks {len(wrong_published)} constraints)"
    reference = "-"
    if run_search:
        began = time.perf_counter()
        found = search(instance.domain, _all_gaps(instance), range(instance.meetings))
        took = time.perf_counter() - began
        reference = f"{'SAT' if found is not None else 'INFEASIBLE'} in {took:.2f} s"
        good = good and (found is not None) == known.satisfiable
    status = "SAT" if solved else answer.status.value
    stats = answer.stats
    cells = [
        str(instance.number),
        f"{instance.meetings}/{len(instance.agents)}/{instance.domain}",
        published,
        status,
        f"{stats.deterministic_time:.3f}",
        f"{stats.branches:,}".replace(",", " "),
        f"{wall:.2f}",
        verdict,
        reference,
        "yes" if good else "NO",
    ]
    return "| " + " | ".join(cells) + " |", good


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=float, default=30.0, help="deterministic time limit")
    parser.add_argument("--no-search", action="store_true", help="skip the whole-instance search")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    folder = data_dir()
    if not folder.is_dir():
        print(f"data not found: {folder} (set CEREBRI_OPTIMIZE_DIR)", file=sys.stderr)
        return 2
    instances = parse_instances((folder / "data" / "instances.md").read_text())
    known = parse_results((folder / "results" / "results.md").read_text())
    start_load = load_average()
    lines = [
        "| # | meetings/agents/slots | published | cerebri | det. time | branches | wall s "
        "| independent check | backtracking reference | agrees |",
        "| ---: | :---: | --- | --- | ---: | ---: | ---: | --- | --- | --- |",
    ]
    agreed = 0
    total_wall = time.perf_counter()
    for instance in instances:
        line, good = _row(instance, known[instance.number], args.budget, not args.no_search)
        agreed += good
        lines.append(line)
        print(line, flush=True)
    total_wall = time.perf_counter() - total_wall
    head = [
        "# CSPLib 046 with cerebri.optimize.solve",
        "",
        f"Source `{source_revision()}`, Python {platform.python_version()}, "
        f"{platform.platform()}, budget {args.budget} deterministic time per instance, "
        f"load average {start_load} -> {load_average()}; {agreed}/{len(instances)} agree "
        f"with the published outcome; whole run {total_wall:.0f} s.",
        "",
    ]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join([*head, *lines, ""]))
    print(f"{agreed}/{len(instances)} agree; table in {args.out}")
    return 0 if agreed == len(instances) else 1


if __name__ == "__main__":
    raise SystemExit(main())
