"""The shipped example, with expectations worked out by hand (no shared data needed).

examples/design-review.json: a 45-minute review on 2026-10-05 between 07:00 and 16:00 UTC,
15-minute grid, 15-minute buffer to every other event, ending by 15:00, preferred 12:00.
Busy: standup 07:30-07:45, customer call 09:00-10:30, lunch 10:30-11:30, planning
13:00-14:00. A start s is feasible iff [s-15m, s+60m) touches no busy block and s <= 14:15:
standup needs s >= 08:00; call+lunch need s <= 08:00 or s >= 11:45; planning needs
s <= 12:00 or s >= 14:15. Feasible: 08:00, 11:45, 12:00, 14:15. Grid: 07:00 … 15:15 = 34.
"""

from __future__ import annotations

import json

import cerebri
from tests.planner.helpers import DAY, example


def test_design_review_candidates_by_hand() -> None:
    result = cerebri.plan(example()).to_wire()
    got = [(c["start"], c["cost"]) for c in result["candidates"]]
    assert got == [
        (f"{DAY}12:00:00Z", 0),
        (f"{DAY}11:45:00Z", 900),
        (f"{DAY}14:15:00Z", 8100),
        (f"{DAY}08:00:00Z", 14400),
    ]
    assert result["outcome"] == "Solution"
    assert result["assessment"] == "ProvenOptimal"
    assert result["search_space"]["evaluated"] == 34
    assert len(result["conflicts"]["rejections"]) == 30


def test_design_review_rejection_reasons() -> None:
    rejections = {
        r["start"][11:16]: r["reasons"]
        for r in cerebri.plan(example()).to_wire()["conflicts"]["rejections"]
    }
    # 07:00: [06:45, 08:00) meets the standup: overlap and buffer, both blocked by standup.
    kinds = [
        (r["HardConstraint"]["constraint"]["kind"], r["HardConstraint"]["reason"])
        for r in rejections["07:00"]
    ]
    assert kinds == [("NO_OVERLAP", "Overlap"), ("REQUIRED_BUFFER", "InsufficientBuffer")]
    assert rejections["07:00"][0]["HardConstraint"]["evidence"]["blocking_objects"] == ["standup"]
    # 08:15 ends at 09:00 (touching the call, no overlap) but the buffer is 15 minutes short.
    assert [r["HardConstraint"]["reason"] for r in rejections["08:15"]] == ["InsufficientBuffer"]
    # 15:00: free of events, but it would end at 15:45, after LATEST_END 15:00.
    assert rejections["15:00"] == [
        {
            "HardConstraint": {
                "constraint": {"kind": "LATEST_END", "value": f"{DAY}15:00:00Z"},
                "object_id": "design-review",
                "reason": "OutsideBounds",
                "evidence": {"facts": [], "blocking_objects": [], "blocking_occurrences": []},
            }
        }
    ]


def test_same_input_same_bytes() -> None:
    first = json.dumps(cerebri.plan(example()).to_wire())
    second = json.dumps(cerebri.plan(json.dumps(example())).to_wire())
    assert first == second
