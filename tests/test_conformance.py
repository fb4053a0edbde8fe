"""Public conformance requests (``$CEREBRI_CONFORMANCE_DIR/cerebri``) against the expected
values listed in the conformance README, plus byte-for-byte golden results.

The expectations below are copied as data from ``conformance/README.md`` (upstream manifest
values and upstream-asserted full orders); they are not produced by cerebri. Golden files
under ``tests/golden/`` record cerebri's full PlanningResult so that any behaviour change is a
visible diff; regenerate them deliberately with ``CEREBRI_UPDATE_GOLDENS=1``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import pytest

import cerebri
from cerebri._json import pretty

GOLDEN = Path(__file__).parent / "golden"
DAY = "2026-10-01T"


@dataclass(frozen=True)
class Expected:
    file: str
    validation: str
    outcome: str
    assessment: str
    order: tuple[str, ...]  # full candidate order as HH:MM on 2026-10-01 UTC
    evaluated: int
    exhausted: bool
    issues: tuple[object, ...] = ()
    rejected: int | None = None
    graph_order: tuple[str, ...] | None = None


ALL_DAY = ("10:00", "10:15", "10:30", "10:45", "11:00", "11:15", "11:30")
CYCLE = {
    "Dependency": {
        "Cycle": {
            "members": ["busy", "new-event"],
            "edges": [
                {"predecessor": "busy", "dependent": "new-event"},
                {"predecessor": "new-event", "dependent": "busy"},
            ],
        }
    }
}

PLANNER_CASES = [
    Expected(
        "00-legacy-baseline-0.1.json",
        "Valid",
        "Solution",
        "ProvenOptimal",
        ALL_DAY,
        11,
        True,
        rejected=4,
    ),
    Expected(
        "01-basic-feasible.json",
        "Valid",
        "Solution",
        "ProvenOptimal",
        ALL_DAY,
        11,
        True,
        rejected=4,
    ),
    Expected(
        "02-ranking-preferred-start.json",
        "Valid",
        "Solution",
        "ProvenOptimal",
        ("10:45", "10:30", "11:00", "10:15", "11:15", "10:00", "11:30"),
        11,
        True,
        rejected=4,
    ),
    Expected(
        "03-halfopen-touching-boundary.json",
        "Valid",
        "Solution",
        "ProvenOptimal",
        ("10:00",),
        2,
        True,
        rejected=1,
    ),
    Expected(
        "04-halfopen-one-second-overlap.json",
        "Valid",
        "NoSolution",
        "Complete",
        (),
        2,
        True,
        rejected=2,
    ),
    Expected(
        "05-dense-three-exact-gaps.json",
        "Valid",
        "Solution",
        "ProvenOptimal",
        ("11:00", "09:45", "12:15"),
        15,
        True,
        rejected=12,
    ),
    Expected(
        "06-constraint-composition.json",
        "Valid",
        "Solution",
        "ProvenOptimal",
        ("11:15", "11:00", "10:45"),
        14,
        True,
        rejected=11,
    ),
    Expected(
        "07-dependency-chain.json",
        "Valid",
        "Solution",
        "ProvenOptimal",
        ("10:15", "10:30", "10:45", "11:00", "11:15", "11:30"),
        11,
        True,
        rejected=5,
    ),
    Expected(
        "08-resource-scope-subset-rejection.json",
        "InsufficientInformation",
        "InsufficientInformation",
        "BestFound",
        (),
        0,
        False,
        issues=({"ScopeViolation": "new-event"},),
        rejected=0,
    ),
    Expected(
        "09-budget-best-found.json",
        "Valid",
        "Solution",
        "BestFound",
        ("09:30", "09:15", "09:00"),
        3,
        False,
        rejected=0,
    ),
    Expected(
        "10-compound-unique-slot.json",
        "Valid",
        "Solution",
        "ProvenOptimal",
        ("12:15",),
        18,
        True,
        rejected=17,
    ),
    Expected("request.json", "Valid", "Solution", "ProvenOptimal", ALL_DAY, 11, True, rejected=4),
    Expected(
        "planner/feasible.json", "Valid", "Solution", "ProvenOptimal", ALL_DAY, 11, True, rejected=4
    ),
    Expected(
        "planner/hard-rejection.json", "Valid", "NoSolution", "Complete", (), 11, True, rejected=11
    ),
    Expected(
        "planner/insufficient-information.json",
        "InsufficientInformation",
        "InsufficientInformation",
        "BestFound",
        (),
        0,
        False,
        issues=({"RequiredDuration": "Unknown"},),
        rejected=0,
    ),
    Expected(
        "planner/scope-exclusion.json",
        "InsufficientInformation",
        "InsufficientInformation",
        "BestFound",
        (),
        0,
        False,
        issues=({"ScopeViolation": "new-event"},),
        rejected=0,
    ),
    Expected(
        "planner/dependency-order.json",
        "Valid",
        "Solution",
        "ProvenOptimal",
        ("11:00", "11:15", "11:30"),
        11,
        True,
        rejected=8,
        graph_order=("busy", "new-event"),
    ),
    Expected(
        "planner/dependency-cycle.json",
        "InsufficientInformation",
        "InsufficientInformation",
        "BestFound",
        (),
        0,
        False,
        issues=(CYCLE,),
        rejected=0,
        graph_order=(),
    ),
]

OCCURRENCE = "occ-46584fc6779fc9410ad8b175056c06a8da7462a1bb34d7584b3cd1420d31bcfa"

# CPIR 0.2 scenarios with recurring series (conformance README section 2).
SERIES_CASES = [
    Expected(
        "planner/recurrence-busy.json",
        "Valid",
        "Solution",
        "ProvenOptimal",
        ("11:00", "11:15", "11:30"),
        11,
        True,
        rejected=8,
    ),
    Expected(
        "planner/incomplete-coverage.json",
        "InsufficientInformation",
        "InsufficientInformation",
        "BestFound",
        (),
        0,
        False,
        issues=("IncompleteCoverage",),
        rejected=0,
    ),
    Expected(
        "planner/duplicate-series.json",
        "InsufficientInformation",
        "InsufficientInformation",
        "BestFound",
        (),
        0,
        False,
        issues=({"Compilation": {"DuplicateSeries": "standup"}},),
        rejected=0,
    ),
]
DST_PLANNING = "planner/dst-skipped-planning.json"


def _golden_name(file: str) -> str:
    return file.replace("/", "__").removesuffix(".json") + ".result.json"


@pytest.mark.conformance
@pytest.mark.parametrize("case", PLANNER_CASES + SERIES_CASES, ids=lambda c: c.file)
def test_planner_conformance(conformance: Path, case: Expected) -> None:
    text = (conformance / "cerebri" / case.file).read_text(encoding="utf-8")
    result = cerebri.plan(text).to_wire()
    assert result["validation"]["state"] == case.validation
    assert result["validation"]["issues"] == list(case.issues)
    assert result["outcome"] == case.outcome
    assert result["assessment"] == case.assessment
    candidates = result["candidates"]
    assert [c["start"] for c in candidates] == [f"{DAY}{hm}:00Z" for hm in case.order]
    assert result["search_space"]["evaluated"] == case.evaluated
    assert result["search_space"]["exhausted"] is case.exhausted
    assert len(result["conflicts"]["rejections"]) == case.rejected
    assert case.evaluated == len(candidates) + len(result["conflicts"]["rejections"])
    if case.graph_order is not None:
        assert result["dependency_graph"]["order"] == list(case.graph_order)
    # /v1/validate on the same input equals the plan's validation (single-target inputs).
    assert cerebri.validate(text).to_wire() == result["validation"]
    for candidate in candidates:
        features = candidate["ranking_features"]
        assert features["schema_version"] == {"major": 0, "minor": 1}
        assert set(features) == {
            "schema_version",
            "preferred_start_distance_seconds",
            "preferred_start_source",
            "mutation_count",
            "shift_seconds",
        }


@pytest.mark.conformance
@pytest.mark.parametrize("file", [c.file for c in PLANNER_CASES + SERIES_CASES] + [DST_PLANNING])
def test_planner_golden(conformance: Path, file: str) -> None:
    text = (conformance / "cerebri" / file).read_text(encoding="utf-8")
    produced = pretty(cerebri.plan(text).to_wire())
    golden = GOLDEN / _golden_name(file)
    if os.environ.get("CEREBRI_UPDATE_GOLDENS") == "1":
        golden.write_text(produced, encoding="utf-8")
    assert golden.exists(), f"missing golden {golden.name}; run with CEREBRI_UPDATE_GOLDENS=1"
    assert produced == golden.read_text(encoding="utf-8")


@pytest.mark.conformance
def test_recurrence_busy_compilation(conformance: Path) -> None:
    text = (conformance / "cerebri" / "planner/recurrence-busy.json").read_text("utf-8")
    result = cerebri.plan(text).to_wire()
    compilation = result["compilation"]
    assert [o["id"] for o in compilation["occurrences"]] == [OCCURRENCE]
    occurrence = compilation["occurrences"][0]
    assert occurrence["provenance"] == "INTEGRATION_FACT"
    assert occurrence["source_revision"] == 7
    assert occurrence["occurrence"]["range"] == {
        "start": f"{DAY}10:00:00Z",
        "end": f"{DAY}11:00:00Z",
    }
    assert compilation["series"][0]["series"]["state"]["kind"] == "Existing"
    blocked = [
        reason["HardConstraint"]["evidence"]
        for rejection in result["conflicts"]["rejections"]
        for reason in rejection["reasons"]
        if OCCURRENCE in reason["HardConstraint"]["evidence"]["blocking_occurrences"]
    ]
    assert blocked
    assert all("series-source" in evidence["facts"] for evidence in blocked)


@pytest.mark.conformance
def test_incomplete_coverage_reports_unknown_not_free(conformance: Path) -> None:
    text = (conformance / "cerebri" / "planner/incomplete-coverage.json").read_text("utf-8")
    compilation = cerebri.plan(text).to_wire()["compilation"]
    assert len(compilation["occurrences"]) == 1
    assert compilation["availability"]["free"] == []
    assert len(compilation["availability"]["unknown"]) == 1


@pytest.mark.conformance
def test_duplicate_series_has_no_compilation(conformance: Path) -> None:
    text = (conformance / "cerebri" / "planner/duplicate-series.json").read_text("utf-8")
    assert cerebri.plan(text).to_wire()["compilation"] is None


@pytest.mark.conformance
def test_dst_skipped_occurrence_frees_the_night(conformance: Path) -> None:
    text = (conformance / "cerebri" / DST_PLANNING).read_text("utf-8")
    result = cerebri.plan(text).to_wire()
    assert (result["outcome"], result["assessment"]) == ("Solution", "ProvenOptimal")
    assert len(result["candidates"]) == 15
    assert result["candidates"][0]["start"] == "2026-03-29T00:00:00Z"
    assert result["search_space"]["evaluated"] == 15
    assert result["conflicts"]["rejections"] == []
    compilation = result["compilation"]
    assert compilation["occurrences"] == []
    assert compilation["series"][0]["expansion"]["skipped"] == [
        {"sequence": 1, "date": "2026-03-29", "reason": "NonexistentLocalTime"}
    ]


@pytest.mark.conformance
def test_explanations_follow_preferences(conformance: Path) -> None:
    # Conformance README section 1 (derived): explicit preference → PreferredStart entry.
    for name in ("02-ranking-preferred-start.json", "10-compound-unique-slot.json"):
        result = cerebri.plan((conformance / "cerebri" / name).read_bytes()).to_wire()
        for candidate in result["candidates"]:
            reasons = [e["reason"] for e in candidate["explanation"]]
            assert reasons == ["FeasibleWithinScope", {"PreferredStart": "ExplicitCurrentRequest"}]
            assert candidate["mutation_count"] == 1
            assert candidate["shifted_seconds"] == 0
    result = cerebri.plan((conformance / "cerebri" / "01-basic-feasible.json").read_bytes())
    for candidate in result.to_wire()["candidates"]:
        assert [e["reason"] for e in candidate["explanation"]] == [
            "FeasibleWithinScope",
            "EarliestTieBreak",
        ]
