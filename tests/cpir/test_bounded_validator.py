"""The bounded copy of a model's validator (decision 0031, round 3).

It reads large documents alone when they are valid; it must give exactly the model's
instance, never accept what the model refuses, and fail without listing one error per item
or copying the document into ``missing`` errors.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

import cerebri
from cerebri import ParseError, cpir
from cerebri.cpir import parse
from cerebri.cpir._bounded import Absent, bounded_validator
from cerebri.cpir._failfast import checker

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "design-review.json"


def _example() -> dict[str, Any]:
    document: dict[str, Any] = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    return document


def _validator() -> Any:
    validator = bounded_validator(cpir.PlanningRequest)
    assert validator is not None
    return validator


def _valid_documents(conformance: Path) -> list[dict[str, Any]]:
    found = [_example()]
    for path in sorted((conformance / "cerebri").glob("*.json")):
        document = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(document, dict) and "context" in document and "operation" in document:
            found.append(document)
    return found


def test_valid_requests_give_exactly_the_models_instance(conformance: Path) -> None:
    documents = _valid_documents(conformance)
    assert len(documents) > 5
    for document in documents:
        text = json.dumps(document)
        try:
            alone = cpir.PlanningRequest.model_validate_json(text)
        except ValidationError:
            continue  # a conformance case that is meant to be refused
        bounded = _validator().validate_json(text)
        assert type(bounded) is cpir.PlanningRequest
        assert bounded == alone
        assert bounded.model_fields_set == alone.model_fields_set
        assert bounded.model_dump_json() == alone.model_dump_json()


def _changed(change: Callable[[dict[str, Any]], None]) -> str:
    document = _example()
    change(document)
    return json.dumps(document)


def _set(document: dict[str, Any], path: tuple[str | int, ...], value: object) -> None:
    holder: Any = document
    for step in path[:-1]:
        holder = holder[step]
    holder[path[-1]] = value


def _drop(document: dict[str, Any], path: tuple[str | int, ...]) -> None:
    holder: Any = document
    for step in path[:-1]:
        holder = holder[step]
    del holder[path[-1]]


REFUSED: dict[str, Callable[[dict[str, Any]], None]] = {
    "missing top-level member": lambda d: _drop(d, ("trace_id",)),
    "missing nested member": lambda d: _drop(d, ("context", "objects", 0, "id")),
    "missing tag": lambda d: _drop(d, ("context", "objects", 1, "kind", "kind")),
    "wrong tag": lambda d: _set(d, ("constraints", 0, "rule", "kind"), "NOPE"),
    "wrong item deep": lambda d: _set(d, ("context", "objects", 1, "resource_ids"), [7]),
    "unknown nested member": lambda d: _set(d, ("context", "objects", 1, "kind", "junk"), 1),
    "wrong item type": lambda d: _set(d, ("target_ids",), ["ok", 0, 1]),
    "wrong enum": lambda d: _set(d, ("operation",), "NOPE"),
    "wrong object type": lambda d: _set(d, ("budget",), "fast"),
    "value out of range": lambda d: _set(d, ("granularity",), -5),
    "bad instant": lambda d: _set(d, ("context", "captured_at"), "2026-02-30T00:00:00Z"),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_what_the_model_refuses_is_refused(name: str) -> None:
    text = _changed(REFUSED[name])
    with pytest.raises(ValidationError):
        cpir.PlanningRequest.model_validate_json(text)
    with pytest.raises((ValidationError, Absent)):
        _validator().validate_json(text)


def test_a_left_out_member_stops_at_once_without_a_missing_error() -> None:
    # The model lists every left-out member, each error holding the object around it.
    text = json.dumps({"target_ids": ["a"]})
    with pytest.raises(ValidationError) as by_model:
        cpir.PlanningRequest.model_validate_json(text)
    assert by_model.value.error_count() == 14
    with pytest.raises(Absent):
        _validator().validate_json(text)


def test_an_array_of_wrong_items_makes_one_error() -> None:
    wrong = 1000
    text = _changed(lambda d: _set(d, ("target_ids",), list(range(wrong))))
    with pytest.raises(ValidationError) as by_model:
        cpir.PlanningRequest.model_validate_json(text)
    assert by_model.value.error_count() == wrong
    with pytest.raises(ValidationError) as by_bounded:
        _validator().validate_json(text)
    assert by_bounded.value.error_count() == 1
    assert by_bounded.value.errors()[0]["loc"] == ("target_ids", 0)


def test_a_large_document_it_refuses_gets_the_models_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    text = _changed(lambda d: _set(d, ("target_ids",), ["ok", 0, 1]))
    with pytest.raises(ParseError) as small:
        cerebri.parse_request(text)
    monkeypatch.setattr(parse, "FAIL_FAST_VALUES", 0)
    with pytest.raises(ParseError) as large:
        cerebri.parse_request(text)
    assert (large.value.code, large.value.path) == (small.value.code, small.value.path)
    assert (large.value.code, large.value.path) == ("cpir.invalid_value", "/target_ids/1")


@pytest.mark.parametrize("refusal", [Absent(), ValueError("any other refusal")])
def test_a_valid_document_it_refuses_is_read_by_the_shadow_and_the_model(
    refusal: Exception, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Such a document exists in principle (a left-out member inside one member of an
    # untagged union stops the bounded validator before the next member is tried).
    class Refusing:
        def validate_json(self, text: str | bytes) -> Any:
            raise refusal

    shadowed: list[type[Any]] = []

    def spy(model: type[Any]) -> Any:
        shadowed.append(model)
        return checker(model)

    monkeypatch.setattr(parse, "FAIL_FAST_VALUES", 0)
    monkeypatch.setattr(parse, "bounded_validator", lambda model: Refusing())
    monkeypatch.setattr(parse, "checker", spy)
    text = EXAMPLE.read_text(encoding="utf-8")
    for source in (text, _example()):
        parsed = cerebri.parse_request(source)
        alone = cpir.PlanningRequest.model_validate_json(text)
        assert parsed == alone
        assert parsed.model_dump_json() == alone.model_dump_json()
    assert shadowed == [cpir.PlanningRequest, cpir.PlanningRequest]


def test_large_text_reaches_the_validators_with_unknown_members_blanked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # pydantic-core builds its own tree of the whole text; a large unknown member must not
    # be in it (decision 0017's memory bounds), so the bounded validator reads the blanked
    # text, as the shadow and the model do.
    document = _example()
    document["context"]["objects"][0]["junk"] = {"big": ["unknown-content"] * 50}
    seen: list[str | bytes] = []
    real = bounded_validator(cpir.PlanningRequest)

    class Spy:
        def validate_json(self, text: str | bytes) -> Any:
            seen.append(text)
            return real.validate_json(text) if real is not None else None

    monkeypatch.setattr(parse, "FAIL_FAST_VALUES", 0)
    monkeypatch.setattr(parse, "bounded_validator", lambda model: Spy())
    with pytest.raises(ParseError) as caught:
        cerebri.parse_request(json.dumps(document))
    where = (caught.value.code, caught.value.path)
    assert where == ("cpir.unknown_field", "/context/objects/0/junk")
    assert len(seen) == 1
    text = seen[0] if isinstance(seen[0], str) else seen[0].decode()
    assert '"junk": null' in text or '"junk":null' in text
    assert "unknown-content" not in text
