"""Upstream-asserted behaviours of CPIR 0.2 compilation beyond the fixtures
(planner.md section 10: composition, horizon-certified buffer, schema round trip)."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

import pytest

import cerebri

pytestmark = pytest.mark.conformance

T = "2026-10-01T"


@pytest.fixture
def series_request(conformance: Path) -> dict[str, Any]:
    text = (conformance / "cerebri" / "planner" / "recurrence-busy.json").read_text("utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


def _rule(kind: str, value: Any = None) -> dict[str, Any]:
    rule: dict[str, Any] = {"kind": kind}
    if value is not None:
        rule["value"] = value
    return {"object_id": "new-event", "rule": rule, "evidence": []}


def _span(start: str, end: str) -> dict[str, str]:
    return {"start": f"{T}{start}:00Z", "end": f"{T}{end}:00Z"}


COMPOSITION = [
    _rule("NO_OVERLAP"),
    _rule("EXPLICIT_TIME", _span("10:45", "11:15")),
    _rule("EXPLICIT_DATE", "2026-10-01"),
    _rule("EARLIEST_START", f"{T}10:30:00Z"),
    _rule("LATEST_END", f"{T}11:30:00Z"),
    _rule("DEADLINE", f"{T}11:15:00Z"),
    _rule("MIN_DURATION", 1800),
    _rule("FIXED_DURATION", 1800),
    _rule("AVAILABILITY_WINDOW", _span("10:30", "11:45")),
    _rule("DEPENDENCY_ORDER", "busy"),
    _rule("REQUIRED_BUFFER", 900),
    _rule("TIMEZONE_INTEGRITY", "Europe/Berlin"),
]

CONTRADICTIONS = {
    "other explicit time": _rule("EXPLICIT_TIME", _span("11:00", "11:30")),
    "other explicit date": _rule("EXPLICIT_DATE", "2026-10-02"),
    "earliest 11:00": _rule("EARLIEST_START", f"{T}11:00:00Z"),
    "latest 11:00": _rule("LATEST_END", f"{T}11:00:00Z"),
    "deadline 11:00": _rule("DEADLINE", f"{T}11:00:00Z"),
    "min 3600": _rule("MIN_DURATION", 3600),
    "fixed 3600": _rule("FIXED_DURATION", 3600),
    "window 09-10": _rule("AVAILABILITY_WINDOW", _span("09:00", "10:00")),
    "buffer 1800": _rule("REQUIRED_BUFFER", 1800),
    "timezone UTC": _rule("TIMEZONE_INTEGRITY", "UTC"),
    "external lock": _rule("EXTERNAL_LOCK", {"provenance": "USER_EXPLICIT", "reason": "no"}),
    "recurrence rule": _rule("RECURRENCE_RULE"),
}


def _composed(base: dict[str, Any]) -> dict[str, Any]:
    request = copy.deepcopy(base)
    request["context"]["temporal"]["series"][0]["rule"]["duration"] = 1800  # 10:00-10:30Z
    request["constraints"] = copy.deepcopy(COMPOSITION)
    return request


def test_twelve_constraints_admit_exactly_one_slot(series_request: dict[str, Any]) -> None:
    result = cerebri.plan(_composed(series_request)).to_wire()
    assert [c["start"] for c in result["candidates"]] == [f"{T}10:45:00Z"]
    assert (result["outcome"], result["assessment"]) == ("Solution", "ProvenOptimal")


@pytest.mark.parametrize("name", sorted(CONTRADICTIONS))
def test_any_contradiction_leaves_no_solution(series_request: dict[str, Any], name: str) -> None:
    request = _composed(series_request)
    request["constraints"].append(CONTRADICTIONS[name])
    result = cerebri.plan(request).to_wire()
    assert (result["outcome"], result["assessment"]) == ("NoSolution", "Complete")


def test_buffer_is_certified_only_inside_the_horizon(series_request: dict[str, Any]) -> None:
    request = copy.deepcopy(series_request)
    request["context"]["objects"] = [o for o in request["context"]["objects"] if o["id"] != "busy"]
    request["context"]["temporal"]["series"] = []
    request["constraints"] = [_rule("REQUIRED_BUFFER", 900)]
    starts = [c["start"] for c in cerebri.plan(request).to_wire()["candidates"]]
    # [s - 15 min, s + 45 min) must lie in 09:00-12:00: s from 09:15 to 11:15.
    assert starts[0] == f"{T}09:15:00Z"
    assert starts[-1] == f"{T}11:15:00Z"
    assert len(starts) == 9


@pytest.mark.parametrize("minor", [0, 1, 2, 3, 65535])
@pytest.mark.parametrize("with_temporal", [True, False])
def test_schema_roundtrip(series_request: dict[str, Any], minor: int, with_temporal: bool) -> None:
    request = copy.deepcopy(series_request)
    request["schema_version"]["minor"] = minor
    if not with_temporal:
        del request["context"]["temporal"]
    outcome = cerebri.plan(request).to_wire()["outcome"]
    plannable = minor == 2 or (minor == 1 and not with_temporal)
    assert (outcome == "Solution") is plannable


def test_shuffled_series_and_evidence_give_identical_bytes(series_request: dict[str, Any]) -> None:
    request = copy.deepcopy(series_request)
    series = request["context"]["temporal"]["series"]
    extra = copy.deepcopy(series[0])
    extra["id"] = "retro"
    extra["evidence"] = ["z-fact", "a-fact", "series-source", "a-fact"]
    extra["rule"]["local_time"] = "13:30:00"
    series.append(extra)
    reference = json.dumps(cerebri.plan(request).to_wire())
    rng = random.Random(7)
    for _ in range(5):
        shuffled = copy.deepcopy(request)
        rng.shuffle(shuffled["context"]["temporal"]["series"])
        for entry in shuffled["context"]["temporal"]["series"]:
            rng.shuffle(entry["evidence"])
        rng.shuffle(shuffled["context"]["objects"])
        assert json.dumps(cerebri.plan(shuffled).to_wire()) == reference
