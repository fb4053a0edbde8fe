"""The grid search's fast paths give what the general code gives (decision 0031).

The search walks the grid with ``PlacementChecker.check_grid`` (one merge walk over the busy
events, one violation record per run of positions blocked by the same events), which equals
``check_one`` at every position, itself held to the general ``check``; it builds ranges and
result records without validation. These tests hold them to the general code, to the
constructors and to a brute force over the busy events.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

import cerebri
from cerebri.cpir import ProposedPlan, RankedCandidate, Rejection, TimeRange
from cerebri.planner.checks import PlacementChecker
from cerebri.planner.search import _time_range
from cerebri.temporal import Instant
from planner.helpers import event, example
from tests.strategies import busy_spans

NS = 1_000_000_000
DAY0 = datetime(2026, 10, 5, 7, tzinfo=UTC)


def iso(minutes: int) -> str:
    return (DAY0 + timedelta(minutes=minutes)).strftime("%Y-%m-%dT%H:%M:%SZ")


def busy_request(spans: list[tuple[int, int]]) -> dict[str, Any]:
    """The shipped example with only the target and events at ``spans`` (minutes)."""
    request = example()
    objects = request["context"]["objects"]
    target = next(o for o in objects if o["id"] == request["target_ids"][0])
    request["context"]["objects"] = [target] + [
        event(f"busy-{i:02d}", iso(a), iso(b)) for i, (a, b) in enumerate(spans)
    ]
    request["constraints"] = []
    return request


spans_strategy = busy_spans()


def test_unvalidated_range_equals_the_validated_one() -> None:
    start, end = Instant.parse("2026-10-05T07:00:00Z"), Instant.parse("2026-10-05T07:45:00Z")
    made = _time_range(start, end)
    built = TimeRange(start=start, end=end)
    assert made == built
    assert made.model_fields_set == built.model_fields_set == {"start", "end"}
    assert made.model_dump(mode="json") == built.model_dump(mode="json")
    assert repr(made) == repr(built)


@settings(max_examples=40, deadline=None)
@given(spans_strategy)
def test_check_one_equals_check_along_the_grid(spans: list[tuple[int, int]]) -> None:
    parsed = cerebri.parse_request(busy_request(spans))
    target = parsed.target_ids[0]
    fast = PlacementChecker(parsed, 2700, (target,))
    general = PlacementChecker(parsed, 2700, (target,))
    step, duration = parsed.granularity * NS, 2700 * NS
    s = parsed.scope.time_range.start.ns
    while s + duration <= parsed.scope.time_range.end.ns:
        one = fast.check_one(target, s, s + duration)
        assert [r.to_wire() for r in one] == [
            r.to_wire() for r in general.check({target: (s, s + duration)})
        ]
        s += step


@settings(max_examples=40, deadline=None)
@given(spans_strategy)
def test_every_rejection_names_exactly_the_overlapping_events(
    spans: list[tuple[int, int]],
) -> None:
    result = cerebri.plan(busy_request(spans)).to_wire()
    rejections = result["conflicts"]["rejections"]
    assert isinstance(rejections, list)
    seen = 0
    for rejection in rejections:
        start = datetime.fromisoformat(rejection["start"])
        a = int((start - DAY0).total_seconds()) // 60
        b = a + 45
        expected = sorted(f"busy-{i:02d}" for i, (s, e) in enumerate(spans) if s < b and a < e)
        overlap = [
            r["HardConstraint"]["evidence"]["blocking_objects"]
            for r in rejection["reasons"]
            if isinstance(r, dict) and "HardConstraint" in r
        ]
        assert overlap == ([expected] if expected else [])
        seen += 1
    candidates = result["candidates"]
    assert isinstance(candidates, list)
    assert seen + len(candidates) == result["search_space"]["evaluated"]  # type: ignore[index]


def test_dict_input_still_locates_a_lone_surrogate() -> None:
    request = example()
    request["request_id"] = "ab\ud800"
    try:
        cerebri.parse_request(request)
    except cerebri.ParseError as caught:
        assert (caught.code, caught.path) == ("json.syntax", "/request_id")
    else:  # pragma: no cover - the assertion below reports it
        raise AssertionError("a lone surrogate was accepted")


def test_dict_input_with_keys_equal_as_text_is_a_duplicate_key() -> None:
    request: dict[Any, Any] = example()
    request["scope"][1] = "x"
    request["scope"]["1"] = "y"
    try:
        cerebri.parse_request(request)
    except cerebri.ParseError as caught:
        assert caught.code == "json.duplicate_key"
    else:  # pragma: no cover
        raise AssertionError("duplicate keys were accepted")


def _with_constraints(request: dict[str, Any], buffer: int, fixed_no_overlap: bool) -> None:
    target = request["target_ids"][0]
    request["constraints"] = [
        {"object_id": target, "rule": {"kind": "REQUIRED_BUFFER", "value": buffer}, "evidence": []}
    ]
    busy = [o["id"] for o in request["context"]["objects"] if o["id"] != target]
    if fixed_no_overlap and busy:
        request["constraints"].append(
            {"object_id": busy[0], "rule": {"kind": "NO_OVERLAP"}, "evidence": []}
        )


@settings(max_examples=40, deadline=None)
@given(
    spans_strategy,
    st.integers(1, 1800),
    st.booleans(),
    st.integers(1, 4),
    st.integers(-2, 3),
)
def test_check_grid_equals_check_one_at_every_position(
    spans: list[tuple[int, int]], buffer: int, fixed_rule: bool, stride: int, shift: int
) -> None:
    request = busy_request(spans)
    _with_constraints(request, buffer, fixed_rule)
    parsed = cerebri.parse_request(request)
    target = parsed.target_ids[0]
    grid = PlacementChecker(parsed, 2700, (target,))
    one = PlacementChecker(parsed, 2700, (target,))
    step, duration = stride * parsed.granularity * NS, 2700 * NS
    # ``shift`` grid steps before the scope start (< 0) exercises the fall-back path.
    first = parsed.scope.time_range.start.ns + shift * parsed.granularity * NS
    count = (parsed.scope.time_range.end.ns - duration - first) // step + 1
    walked = list(grid.check_grid(target, first, step, count, duration))
    assert len(walked) == count
    for k, reasons in enumerate(walked):
        s = first + k * step
        expected = one.check_one(target, s, s + duration)
        assert [r.to_wire() for r in reasons] == [r.to_wire() for r in expected]


def test_search_records_equal_the_constructed_ones() -> None:
    result = cerebri.plan(busy_request([(0, 30), (100, 200), (240, 250), (400, 530)]))
    assert result.candidates and result.rejections
    for candidate in result.candidates:
        fields = {name: getattr(candidate, name) for name in RankedCandidate.__dataclass_fields__}
        rebuilt = RankedCandidate(**fields)
        assert rebuilt == candidate
        assert rebuilt.to_wire() == candidate.to_wire()
        plan = candidate.proposed
        assert plan == ProposedPlan(plan.source_revision, plan.placements, plan._digest)
        assert plan.id.startswith("p-")
        assert candidate.start == Instant(candidate.start.ns)
    for rejection in result.rejections:
        assert rejection == Rejection(Instant(rejection.start.ns), rejection.reasons)
        assert hash(rejection.start) == hash(Instant(rejection.start.ns))
