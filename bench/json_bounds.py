"""Memory and time of strict JSON reading against the size of the text (decision 0017).

Run from the repository root::

    .venv/bin/python bench/json_bounds.py               # 1, 4 and 16 MiB
    .venv/bin/python bench/json_bounds.py --sizes 1,4   # a quicker subset

For each shape of document and each size, one fresh subprocess builds the text, then runs
one stage and reports its peak resident memory growth (``ru_maxrss`` after minus before,
so the text itself is excluded; this includes memory pydantic-core allocates outside
Python) and its seconds. Stages:

* ``load_json``: ``cerebri.cpir.load_json(text)`` (decode, count, check depth and strings);
* ``parse_request``: ``cerebri.parse_request(text)`` (the above plus the pydantic model;
  every shape here is refused by the model, which is the path ``cerebri plan`` takes).

Shapes: ``objects`` ``{"a":[{},{},...]}`` (the trial's 23.9 GB case), ``zeros``
``[0,0,...]`` (refused as not an object), ``zeros-in-object`` ``{"a":[0,0,...]}`` and
``nested`` ``{"a":[[[...]]],[[[...]]],...]}``, arrays 100 levels deep side by side, and
``known-array`` ``{"target_ids":[0,0,...]}``: a known member whose every item is wrong (one
pydantic error per item, each missing member copying the whole document), and
``known-objects`` ``{"context":{"objects":[{},{},...]}}``: known items missing every member.
Both are read by the fail-fast shadow of the model (more than ``FAIL_FAST_VALUES`` values).

The table gives ratios, never pass/fail: peak growth / text size and seconds per MiB. Each
child runs under an address-space cap (``--cap-gib``, default 6) so a blow-up reports
``MemoryError`` instead of exhausting the machine.
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys

from _machine import load_average, source_revision

SHAPES = ("objects", "zeros", "zeros-in-object", "nested", "known-array", "known-objects")
STAGES = ("load_json", "parse_request")

_CHILD = r"""
import json, resource, sys, time
shape, size, stage, cap = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
if shape == "objects":
    text = '{"a":[' + '{},' * ((size - 9) // 3) + '{}]}'
elif shape == "zeros":
    text = '[' + '0,' * ((size - 3) // 2) + '0]'
elif shape == "zeros-in-object":
    text = '{"a":[' + '0,' * ((size - 9) // 2) + '0]}'
elif shape == "known-array":
    text = '{"target_ids":[' + '0,' * ((size - 19) // 2) + '0]}'
elif shape == "known-objects":
    text = '{"context":{"objects":[' + '{},' * ((size - 28) // 3) + '{}]}}'
else:
    block = '[' * 100 + ']' * 100
    text = '{"a":[' + ','.join([block] * max(1, (size - 8) // 201)) + ']}'
import cerebri
from cerebri import cpir
call = cpir.load_json if stage == "load_json" else cerebri.parse_request
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
start = time.perf_counter()
try:
    call(text)
    outcome = "accepted"
except MemoryError:
    outcome = "MemoryError"
except Exception as exc:
    outcome = getattr(exc, "code", type(exc).__name__)
seconds = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - before
print(json.dumps({"bytes": len(text), "peak": peak, "seconds": seconds, "outcome": outcome}))
"""


def _run(shape: str, mib: int, stage: str, cap: int) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, shape, str(mib * 1024 * 1024), stage, str(cap)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        return {"outcome": f"exit {done.returncode}", "bytes": mib * 1024 * 1024}
    result: dict[str, object] = json.loads(done.stdout)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="1,4,16", help="MiB, comma-separated")
    parser.add_argument("--cap-gib", type=float, default=6.0)
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    cap = int(args.cap_gib * 1024**3)
    print(f"python {platform.python_version()} on {platform.platform()}")
    print(f"revision {source_revision()}, load average {load_average()}")
    print(f"{'shape':<16} {'MiB':>4} {'stage':<14} {'peak/size':>9} {'s/MiB':>7}  outcome")
    for shape in SHAPES:
        for mib in sizes:
            for stage in STAGES:
                row = _run(shape, mib, stage, cap)
                size = float(str(row["bytes"]))
                if "peak" in row:
                    ratio = f"{float(str(row['peak'])) / size:9.1f}"
                    rate = f"{float(str(row['seconds'])) / (size / 1024**2):7.2f}"
                else:
                    ratio, rate = f"{'-':>9}", f"{'-':>7}"
                print(f"{shape:<16} {mib:>4} {stage:<14} {ratio} {rate}  {row['outcome']}")


if __name__ == "__main__":
    main()
