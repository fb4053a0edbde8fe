"""Checks against structured results (cerebri.execution.checks; plans.md section 2)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cerebri._json import JSONValue
from cerebri.execution.checks import CheckOutcome, evaluate_check, json_equal
from cerebri.plans import Check, CheckOp
from tests.strategies import json_scalars
from tests.strategies import json_values as json_values_of

STATUS: dict[str, JSONValue] = {
    "service": "mail",
    "active": True,
    "count": 3,
    "ratio": 0.5,
    "note": None,
    "properties": {"ActiveState": "active", "SubState": "running"},
    "busy": [{"start": "2026-10-05T09:00:00Z"}, {"start": "2026-10-05T11:00:00Z"}],
    "tags": ["a", 1, True],
    "0": "member named zero",
}


def check(path: str, op: str, *value: Any) -> Check:
    fields: dict[str, Any] = {"capability": "service.status", "path": path, "op": op}
    if value:
        fields["value"] = value[0]
    return Check(**fields)


@pytest.mark.parametrize(
    ("path", "observed"),
    [
        ("properties.ActiveState", "active"),
        ("busy.1.start", "2026-10-05T11:00:00Z"),
        ("busy.0", {"start": "2026-10-05T09:00:00Z"}),
        ("tags.2", True),
        ("0", "member named zero"),
        ("note", None),
    ],
)
def test_dot_path_walks_members_and_indexes(path: str, observed: JSONValue) -> None:
    assert evaluate_check(check(path, "exists"), STATUS) == CheckOutcome(
        True, observed, True, f"path {path!r} exists"
    )


@pytest.mark.parametrize(
    "path",
    ["missing", "properties.Missing", "busy.2", "busy.x", "busy.-1", "service.0", "count.x",
     "properties.ActiveState.deeper", "busy.0.start.0"],
)  # fmt: skip
@pytest.mark.parametrize(("op", "value"), [("eq", None), ("ne", 1), ("lt", 5), ("contains", "a")])
def test_missing_path_fails_every_op_but_exists(path: str, op: str, value: JSONValue) -> None:
    outcome = evaluate_check(check(path, op, value), STATUS)
    assert (outcome.holds, outcome.found, outcome.observed) == (False, False, None)
    assert evaluate_check(check(path, "exists"), STATUS).holds is False


def test_ne_on_a_missing_path_does_not_hold() -> None:
    # "differs from" needs something to differ: an absent value proves nothing
    assert evaluate_check(check("nothing", "ne", "x"), STATUS).holds is False


@pytest.mark.parametrize(
    ("path", "op", "value", "holds"),
    [
        ("properties.ActiveState", "eq", "active", True),
        ("properties.ActiveState", "ne", "active", False),
        ("active", "eq", True, True),
        ("active", "eq", 1, False),  # a boolean is not the number 1
        ("count", "eq", True, False),
        ("count", "eq", 3.0, True),  # JSON numbers compare by value
        ("note", "eq", None, True),
        ("note", "ne", None, False),
        ("count", "eq", None, False),
        ("properties", "eq", {"SubState": "running", "ActiveState": "active"}, True),
        ("properties", "eq", {"ActiveState": "active"}, False),
        ("tags", "eq", ["a", 1, True], True),
        ("tags", "eq", ["a", True, True], False),
        ("tags", "eq", ["a", 1], False),
        ("count", "lt", 4, True),
        ("count", "lt", 3, False),
        ("count", "lte", 3, True),
        ("ratio", "gt", 0.25, True),
        ("ratio", "gte", 0.75, False),
        ("service", "lt", "post", True),  # "mail" < "post" by code points
        ("service", "gte", "mail", True),
        ("properties.ActiveState", "contains", "ctiv", True),
        ("properties.ActiveState", "contains", "dead", False),
        ("tags", "contains", 1, True),
        ("tags", "contains", True, True),
        ("tags", "contains", "b", False),
        ("busy", "contains", {"start": "2026-10-05T09:00:00Z"}, True),
        ("properties", "contains", "SubState", True),
        ("properties", "contains", "active", False),  # a value is not a member name
    ],
)
def test_ops(path: str, op: str, value: JSONValue, holds: bool) -> None:
    outcome = evaluate_check(check(path, op, value), STATUS)
    assert outcome.found is True
    assert outcome.holds is holds, outcome.detail


def test_bool_in_list_is_not_the_number_one() -> None:
    result: dict[str, JSONValue] = {"flags": [True]}
    assert evaluate_check(check("flags", "contains", 1), result).holds is False
    assert evaluate_check(check("flags", "contains", True), result).holds is True


@pytest.mark.parametrize(
    ("path", "op", "value", "why"),
    [
        ("count", "lt", "4", "cannot order number against string"),
        ("service", "gt", 1, "cannot order string against number"),
        ("active", "lte", 1, "cannot order boolean against number"),
        ("note", "gte", 0, "cannot order null against number"),
        ("properties", "lt", "z", "cannot order object against string"),
        ("count", "contains", 3, "a number contains nothing"),
        ("service", "contains", 1, "a string contains only strings, not a number"),
        ("properties", "contains", 1, "an object's member names are strings, not a number"),
    ],
)
def test_mismatched_types_do_not_hold_and_say_why(
    path: str, op: str, value: JSONValue, why: str
) -> None:
    outcome = evaluate_check(check(path, op, value), STATUS)
    assert (outcome.holds, outcome.found, outcome.detail) == (False, True, why)


def test_outcome_reports_the_observed_value() -> None:
    outcome = evaluate_check(check("busy.0.start", "lt", "2026-10-05T10:00:00Z"), STATUS)
    assert outcome == CheckOutcome(
        True,
        "2026-10-05T09:00:00Z",
        True,
        "'2026-10-05T09:00:00Z' lt '2026-10-05T10:00:00Z' is true",
    )


json_values = json_values_of(
    json_scalars(max_text=5, allow_infinity=None),
    keys=st.text(max_size=3),
    max_items=3,
    max_members=3,
    max_leaves=8,
)


@given(observed=json_values, expected=json_values)
def test_eq_and_ne_are_complements_when_found(observed: JSONValue, expected: JSONValue) -> None:
    result: dict[str, JSONValue] = {"v": observed}
    eq = evaluate_check(check("v", "eq", expected), result)
    ne = evaluate_check(check("v", "ne", expected), result)
    assert eq.found and ne.found
    assert eq.holds is not ne.holds


@given(value=json_values)
def test_json_equal_is_reflexive(value: JSONValue) -> None:
    assert json_equal(value, value)
    assert evaluate_check(check("v", "eq", value), {"v": value}).holds


numbers = st.integers(-(10**6), 10**6) | st.floats(-1e6, 1e6, allow_nan=False)


@given(observed=numbers, expected=numbers)
def test_ordered_ops_are_complements_on_numbers(observed: float, expected: float) -> None:
    result: dict[str, JSONValue] = {"v": observed}

    def holds(op: str) -> bool:
        return evaluate_check(check("v", op, expected), result).holds

    assert holds("lt") is not holds("gte")
    assert holds("gt") is not holds("lte")
    assert holds("lte") is (observed <= expected)


@given(observed=st.text(max_size=6), expected=st.text(max_size=6))
def test_ordered_ops_on_strings_follow_code_points(observed: str, expected: str) -> None:
    result: dict[str, JSONValue] = {"v": observed}
    assert evaluate_check(check("v", "lt", expected), result).holds is (observed < expected)
    assert evaluate_check(check("v", "gte", expected), result).holds is (observed >= expected)


@given(text=st.text(max_size=8), start=st.integers(0, 8), size=st.integers(0, 8))
def test_contains_finds_every_substring(text: str, start: int, size: int) -> None:
    piece = text[start : start + size]
    assert evaluate_check(check("v", "contains", piece), {"v": text}).holds


def test_calendar_get_shape_meets_the_read_back_check() -> None:
    # what cerebri.plans.from_action_plan compares: path "range", an object of two instants
    planned = {"start": "2026-10-05T09:00:00Z", "end": "2026-10-05T09:30:00Z"}
    at_range: dict[str, JSONValue] = {"exists": True, "range": dict(planned)}
    absent: dict[str, JSONValue] = {"exists": False, "range": None}
    assert evaluate_check(check("range", "eq", planned), at_range).holds
    assert not evaluate_check(check("range", "ne", planned), at_range).holds
    assert not evaluate_check(check("range", "eq", planned), absent).holds
    assert evaluate_check(check("range", "ne", planned), absent).holds
    assert CheckOp.EQ.value == "eq"
