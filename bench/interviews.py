"""Issue #24's realistic case (decision 0081), measured: 40 interviews over eight
interviewers' generated one-week .ics calendars.

    .venv/bin/python bench/interviews.py [--out DIR] [--seed N] [--budget UNITS ...]

Writes the case (``bench/_interviews_data.py``) into DIR (a temporary folder by default),
builds the ``OPTIMIZE`` request from the calendars as ``cerebri optimize --ics-calendar``
does, and for each budget solves it with the file's repairs and with none, printing per run:
the status, the score, the moves, CP-SAT's deterministic work units and the wall time (loose
on a shared machine; the units are what the answer depends on). The table of the first
budget's answer follows, as ``cerebri optimize`` prints it.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _interviews_data import write_case
from cerebri.calendars.batch_file import CalendarBatch
from cerebri.calendars.batch_request import batch_request
from cerebri.calendars.sources import load_sources
from cerebri.cli.render_batch import batch_text
from cerebri.cpir import parse_request
from cerebri.cpir.parse import parse_model
from cerebri.optimize import plan_batch


def _request(folder: Path, seed: int, budget: float, repairs: int | None) -> dict[str, Any]:
    case = write_case(folder, seed=seed, deterministic_time=budget)
    document = json.loads(case.batch.read_text(encoding="utf-8"))
    if repairs is not None:
        document["repairs"]["max_repairs"] = repairs
    spec = parse_model(CalendarBatch, document)
    window = (spec.window.start, spec.window.end)
    started = time.perf_counter()
    loaded = load_sources(list(case.calendars.values()), [], window, ids=list(case.calendars))
    built = batch_request(spec, loaded)
    took = time.perf_counter() - started
    objects = len(built.request["context"]["objects"])  # type: ignore[arg-type]
    print(
        f"calendars read and request built in {took:.2f} s: {objects} objects, "
        f"{len(built.movable)} movable events, {len(spec.batch.meetings)} new meetings"
    )
    return built.request


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--budget", type=float, nargs="+", default=[0.5, 2.0, 5.0])
    args = parser.parse_args()
    folder = args.out or Path(tempfile.mkdtemp(prefix="cerebri-interviews-bench-"))
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, load {os.getloadavg()}")
    first: tuple[Any, Any] | None = None
    for budget in args.budget:
        for repairs in (None, 0):
            request = parse_request(_request(folder, args.seed, budget, repairs))
            started = time.perf_counter()
            result = plan_batch(request).to_wire()
            wall = time.perf_counter() - started
            batch = result["batch"]
            moved = sum(a["moved"] for a in batch["assignments"])
            label = "file's repairs" if repairs is None else "no repairs"
            print(
                f"budget {budget:>4} units, {label:>14}: {batch['status']:>10}  "
                f"score {batch['score']}  moved {moved}  "
                f"units {batch['stats']['deterministic_time']}  wall {wall:.1f} s"
            )
            if first is None and repairs is None:
                first = (request, result)
    assert first is not None
    print()
    print(batch_text(*first), end="")


if __name__ == "__main__":
    main()
