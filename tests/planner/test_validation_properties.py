"""Property tests for validation: issue order, de-duplication, state rule, order independence."""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

import cerebri
from tests.planner.helpers import DAY, event, example

# Mutations that each add known issues; combinations exercise sorting and de-duplication.
MUTATIONS = {
    "schema": lambda r: r["schema_version"].update(minor=7),
    "optimize": lambda r: r.update(operation="OPTIMIZE"),
    # a CREATE whose change names one instance: RequiredRecurrenceId and InvalidChange
    "change": lambda r: r.update(change={"uid": "u@x", "scope": "INSTANCE", "sequence": 0}),
    "no_read": lambda r: r["planning_capability"].update(read=False),
    "depth": lambda r: r["budget"].update(max_depth=2),
    "dup_object": lambda r: r["context"]["objects"].append(
        event("lunch", f"{DAY}05:00:00Z", f"{DAY}05:30:00Z")
    ),
    "dup_target": lambda r: r["target_ids"].append("design-review"),
    "ghost_target": lambda r: r["target_ids"].append("ghost"),
    "unknown_constraint": lambda r: r["constraints"].append(
        {"object_id": "nobody", "rule": {"kind": "NO_OVERLAP"}, "evidence": []}
    ),
    "cycle": lambda r: r["constraints"].extend(
        [
            {
                "object_id": "lunch",
                "rule": {"kind": "DEPENDENCY_ORDER", "value": "planning"},
                "evidence": [],
            },
            {
                "object_id": "planning",
                "rule": {"kind": "DEPENDENCY_ORDER", "value": "lunch"},
                "evidence": [],
            },
        ]
    ),
    "unknown_duration": lambda r: r["duration"]["value"].update(knowledge={"state": "UNKNOWN"}),
    "bad_fact": lambda r: r["context"]["facts"].append(
        {
            "id": "f1",
            "object_id": "lunch",
            "value": {"kind": "EXTERNAL_LOCK"},
            "provenance": "DEFAULT",
        }
    ),
}


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


@settings(max_examples=120, deadline=None)
@given(chosen=st.sets(st.sampled_from(sorted(MUTATIONS))), seed=st.integers(0, 2**32 - 1))
def test_report_is_sorted_unique_and_order_independent(chosen: set[str], seed: int) -> None:
    request = example()
    for name in sorted(chosen):
        MUTATIONS[name](request)
    report = cerebri.validate(request).to_wire()
    texts = [_compact(issue) for issue in report["issues"]]
    assert texts == sorted(set(texts))
    assert (report["state"] == "InsufficientInformation") is bool(texts)
    assert bool(chosen) is bool(texts)  # every mutation above yields at least one issue

    shuffled = json.loads(json.dumps(request))
    rng = random.Random(seed)
    for key in ("objects", "facts"):
        rng.shuffle(shuffled["context"][key])
    rng.shuffle(shuffled["constraints"])
    rng.shuffle(shuffled["planning_capability"]["mutations"])
    assert cerebri.validate(shuffled).to_wire() == report
    assert json.dumps(cerebri.plan(shuffled).to_wire()) == json.dumps(
        cerebri.plan(request).to_wire()
    )
