"""Convert a Timefold meeting-scheduling set to cerebri's batch problem, as JSON.

```
.venv/bin/python bench/timefold_to_request.py 50 > /tmp/50.json
.venv/bin/python bench/timefold_to_request.py path/to/set.json --budget 30 -o /tmp/set.json
```

The CPIR ``OPTIMIZE`` request mapping is not on main yet, so this writes the solver model
(``cerebri.optimize.BatchProblem``, decision 0069) field by field: frozensets as sorted
lists, ``None`` as ``null``. The conversion itself is ``_timefold_data.to_batch_problem``
(decision 0071); the data set is named by its meeting count (read from
``$CEREBRI_OPTIMIZE_DIR``) or by a path.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path
from typing import Any

from _timefold_data import SETS, data_dir, read_set, to_batch_problem
from cerebri.optimize import SolverBudget


def _plain(value: Any) -> Any:
    if isinstance(value, frozenset):
        return sorted(value)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("set", help="meeting count (50, 100, 200, 400, 800) or a JSON file")
    parser.add_argument("--budget", type=float, default=10.0, help="deterministic time units")
    parser.add_argument("-o", "--output", type=Path, help="file to write (default: stdout)")
    args = parser.parse_args(argv)
    path = data_dir() / f"{SETS[int(args.set)]}.json" if args.set.isdigit() else Path(args.set)
    problem = to_batch_problem(read_set(path), SolverBudget(deterministic_time=args.budget))
    text = json.dumps(_plain(dataclasses.asdict(problem)), indent=1, sort_keys=True) + "\n"
    if args.output is None:
        sys.stdout.write(text)
    else:
        args.output.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
