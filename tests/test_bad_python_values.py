"""Python values that are not JSON documents get typed errors, never a crash (decision 0017).

A request dict nested 100 000 levels deep answers ``json.too_deep`` exactly like the same
document as JSON text; a dict that contains itself too. Every public function of the facades
``cerebri``, ``cerebri.cpir``, ``cerebri.plans`` and ``cerebri.proposals`` that takes a
document answers ``None``, numbers, lists and other wrong values with a ``CerebriError``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import cerebri
from cerebri import CerebriError, InputTooLargeError, ParseError, cpir, plans, proposals
from cerebri._nesting import expanded_size, too_deep_at
from cerebri.temporal import Instant
from tests.proposals.helpers import ARTIFACT, NOW, registry

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "design-review.json"
DEPTH = 100_000


def nested_dict(levels: int) -> dict[str, Any]:
    """``{"a": {"a": ... {}}}`` with ``levels`` objects, built without recursion."""
    root: dict[str, Any] = {}
    node = root
    for _ in range(levels - 1):
        child: dict[str, Any] = {}
        node["a"] = child
        node = child
    return root


def nested_list(levels: int) -> list[Any]:
    root: list[Any] = []
    node = root
    for _ in range(levels - 1):
        child: list[Any] = []
        node.append(child)
        node = child
    return root


def nested_text(levels: int) -> str:
    return '{"a":' * (levels - 1) + "{}" + "}" * (levels - 1)


def cyclic() -> dict[str, Any]:
    value: dict[str, Any] = {"schema_version": "0.2"}
    value["self"] = value
    return value


def doubling_dag(levels: int) -> list[Any]:
    """``[x, x]`` nested ``levels`` deep: 2**levels paths through shared lists."""
    value: list[Any] = []
    for _ in range(levels):
        value = [value, value]
    return value


REQUEST_ENTRY_POINTS: dict[str, Callable[[Any], object]] = {
    "cerebri.parse_request": cerebri.parse_request,
    "cerebri.plan": cerebri.plan,
    "cerebri.validate": cerebri.validate,
    "cerebri.temporal_report": cerebri.temporal_report,
    "cerebri.cpir.parse_model": lambda v: cpir.parse_model(cpir.PlanningRequest, v),
    "cerebri.plans.parse_draft": plans.parse_draft,
    "cerebri.plans.parse_model_draft": lambda v: plans.parse_model_draft(
        v, plans.builtin_registry()
    ),
}


@pytest.mark.parametrize("name", sorted(REQUEST_ENTRY_POINTS))
def test_deep_python_values_are_json_too_deep(name: str) -> None:
    call = REQUEST_ENTRY_POINTS[name]
    deep = (nested_dict(DEPTH), {"a": nested_list(DEPTH)}, cyclic(), {"a": doubling_dag(200)})
    for value in deep:
        with pytest.raises(ParseError) as caught:
            call(value)
        assert caught.value.code == "json.too_deep", name
    if name != "cerebri.plans.parse_model_draft":  # the model cleaner drops unknown members
        with pytest.raises(ParseError) as deep_text:
            call(nested_text(DEPTH))
        assert deep_text.value.code == "json.too_deep"


@pytest.mark.parametrize("name", sorted(REQUEST_ENTRY_POINTS))
def test_shallow_values_that_expand_astronomically_are_too_large(name: str) -> None:
    """60 levels of ``[x, x]``: 2**61 - 1 values as text, refused before serialising."""
    with pytest.raises(InputTooLargeError) as caught:
        REQUEST_ENTRY_POINTS[name]({"a": doubling_dag(60)})
    assert caught.value.code == "input.too_large"


def test_canonical_json_refuses_an_astronomical_value() -> None:
    with pytest.raises(proposals.ProposalError) as caught:
        proposals.canonical_json(doubling_dag(60))
    assert caught.value.code == "proposal.canonical_json"


def test_expanded_size_counts_every_place() -> None:
    assert expanded_size({"a": [1, 2, {"b": None}]}, 100) == 6  # by hand: 3 containers, 3 scalars
    assert expanded_size(doubling_dag(10), 10**6) == 2**11 - 1
    assert expanded_size(doubling_dag(60), 1000) > 1000
    assert expanded_size("x", 10) == 1


def test_python_value_and_text_agree_at_the_limit() -> None:
    """129 levels are refused, 128 are not too deep (they fail on shape instead)."""
    for levels, too_deep in ((129, True), (128, False)):
        for source in (nested_dict(levels), nested_text(levels)):
            with pytest.raises(ParseError) as caught:
                cerebri.parse_request(source)
            assert (caught.value.code == "json.too_deep") is too_deep, (levels, type(source))
    with pytest.raises(ParseError) as caught:
        cerebri.parse_request(nested_dict(129))
    assert caught.value.path == "/a" * 128  # the 129th object sits under 128 "a" members


def test_a_real_request_nested_inside_still_parses() -> None:
    document = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    assert cerebri.parse_request(document) == cerebri.parse_request(EXAMPLE.read_bytes())


def test_too_deep_at_walks_shared_values_once() -> None:
    assert too_deep_at(doubling_dag(127), 128) is None  # 128 levels: within
    assert too_deep_at(doubling_dag(128), 128) == "/0" * 128
    four_levels = {"a": [1, {"b": ()}]}  # object, array, object, empty array
    assert too_deep_at(four_levels, 4) is None
    assert too_deep_at(four_levels, 3) == "/a/1/b"
    assert too_deep_at(four_levels, 2) == "/a/1"
    assert too_deep_at("text", 0) is None
    shared: dict[str, Any] = {}
    assert too_deep_at([shared, shared], 2) is None  # seen twice, not a cycle


WRONG_VALUES: list[Any] = [None, 7, 1.5, [], ["x"], (), {1, 2}, object(), True]

DOCUMENT_FUNCTIONS: dict[str, Callable[[Any], object]] = {
    **REQUEST_ENTRY_POINTS,
    "cerebri.cpir.load_json": cpir.load_json,
    "cerebri.proposals.canonical_json": proposals.canonical_json,
    "cerebri.proposals.envelope_payload": proposals.envelope_payload,
    "cerebri.proposals.envelope_digest": proposals.envelope_digest,
    "cerebri.proposals.load_json": proposals.load_json,
    "cerebri.proposals.parse_registry": proposals.parse_registry,
    "cerebri.proposals.verify": lambda v: proposals.verify(
        v,
        registry=registry(),
        clock_now=NOW,
        artifact_bytes=ARTIFACT,
        replay=proposals.InMemoryReplayLedger(),
    ),
    "cerebri.proposals.digest_of_ref": proposals.digest_of_ref,
    "cerebri.proposals.ref_for_digest": proposals.ref_for_digest,
    "cerebri.proposals.artifact_for": proposals.artifact_for,
    "cerebri.proposals.sha256_digest": proposals.sha256_digest,
    "cerebri.proposals.parse_subject": proposals.parse_subject,
    "cerebri.proposals.pae": lambda v: proposals.pae(v, b""),
}

# canonical_json takes any JSON value: of the wrong values only these are not JSON.
_NOT_JSON: dict[str, list[Any]] = {"cerebri.proposals.canonical_json": [{1, 2}, object()]}


@pytest.mark.parametrize("name", sorted(DOCUMENT_FUNCTIONS))
def test_wrong_python_values_get_typed_errors(name: str) -> None:
    call = DOCUMENT_FUNCTIONS[name]
    for value in _NOT_JSON.get(name, WRONG_VALUES):
        with pytest.raises(CerebriError):
            call(value)


def test_the_codes_of_wrong_values() -> None:
    with pytest.raises(ParseError) as request:
        cerebri.plan(None)  # type: ignore[arg-type]
    assert (request.value.code, request.value.path) == ("json.not_object", "")
    with pytest.raises(ParseError) as text:
        cpir.load_json(7)  # type: ignore[arg-type]
    assert text.value.code == "json.syntax"
    with pytest.raises(proposals.ProposalError) as ref:
        proposals.digest_of_ref(None)  # type: ignore[arg-type]
    assert ref.value.code == "proposal.bad_ref"
    with pytest.raises(proposals.ProposalError) as envelope:
        proposals.envelope_digest([])  # type: ignore[arg-type]
    assert (envelope.value.code, envelope.value.path) == ("proposal.schema", "")
    assert proposals.is_rfc3339_utc(None) is False  # type: ignore[arg-type]


def test_check_envelope_reports_a_wrong_value_as_a_schema_failure() -> None:
    report = proposals.check_envelope(
        {"schema/v": 2},  # type: ignore[arg-type]
        registry=registry(),
        clock_now=Instant.parse("2025-03-01T12:00:00Z"),
    )
    assert report.checks[0].code == "proposal.schema"
    assert report.failed
