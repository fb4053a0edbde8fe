"""Strict JSON reading stays proportional to the input in memory (decision 0017).

Peak memory is measured with ``tracemalloc`` (Python allocations only, deterministic for a
given input), never with timings. The bounds are written per decoded value, from the sizes
CPython gives the objects ``json`` itself must build; the walks that check a document may
only add memory proportional to its depth.
"""

from __future__ import annotations

import json
import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import cerebri
from cerebri import InputTooLargeError, ParseError, cpir
from cerebri._nesting import expanded_size, too_deep_at
from cerebri.cpir import parse
from cerebri.cpir._unknown import blank_unknown_members

N = 200_000


def _peak(call: Callable[[], object]) -> int:
    """Bytes allocated at the peak of ``call`` beyond what was allocated before it."""
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        call()
        return tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()


def test_checking_a_decoded_document_takes_memory_of_its_depth_not_its_size() -> None:
    document = {"a": [{} for _ in range(N)], "b": ["x"] * N, "c": list(range(N))}
    # The old walk held a (value, depth, path list) entry per value: over 20 MB here.
    assert _peak(lambda: parse._check_structure(document)) < 64 * 1024


def test_load_json_of_a_long_array_stays_within_a_small_multiple_of_its_text() -> None:
    text = "[" + "0," * (N - 1) + "0]"
    # The decoded list holds a pointer (8 bytes) per 2-byte element, about 4x the text,
    # plus over-allocation while it grows; the old walk added over 60x.
    assert _peak(lambda: cpir.load_json(text)) < 8 * len(text)


def test_walks_of_python_values_take_memory_of_their_depth() -> None:
    value = {"a": [0] * N, "b": {str(i): i for i in range(1000)}}
    assert too_deep_at(value, 128) is None
    assert expanded_size(value, 10**9) == 1 + 1 + N + 1 + 1000  # by hand
    # Copying the (key, child) pairs of the list would take over 10 MB.
    assert _peak(lambda: too_deep_at(value, 128)) < 256 * 1024
    assert _peak(lambda: expanded_size(value, 10**9)) < 256 * 1024


@pytest.fixture
def small_cap(monkeypatch: pytest.MonkeyPatch) -> Iterator[int]:
    monkeypatch.setattr(parse, "MAX_DECODED_VALUES", 1000)
    yield 1000


@pytest.mark.parametrize(
    ("item", "extra"),
    [("0", 0), ("1.5", 0), ("{}", 0), ("[]", 0), ('"s"', 0), ("null", 0), ('{"k":true}', 1)],
)
def test_text_with_more_values_than_the_cap_is_too_large(
    small_cap: int, item: str, extra: int
) -> None:
    # An array of m items holds 1 + m values, each item counting 1 + extra.
    fits = (small_cap - 1) // (1 + extra)
    text = "[" + ",".join([item] * fits) + "]"
    assert len(cpir.load_json(text)) == fits
    over = "[" + ",".join([item] * (fits + 1)) + "]"
    with pytest.raises(InputTooLargeError) as caught:
        cpir.load_json(over)
    assert caught.value.code == "input.too_large"


def test_objects_and_numbers_are_refused_while_decoding(small_cap: int) -> None:
    # Counted by the decoder's hooks: the cap is met before the syntax error at the end.
    for item in ("{}", "7"):
        with pytest.raises(InputTooLargeError):
            cpir.load_json("[" + ",".join([item] * (small_cap + 1)) + ", oops")


def test_parse_request_counts_values_of_text(small_cap: int) -> None:
    text = '{"a":[' + ",".join(["0"] * small_cap) + "]}"
    with pytest.raises(InputTooLargeError):
        cerebri.parse_request(text)


class _Untouchable(list[Any]):
    """A list that fails the test if anything walks its items."""

    def __iter__(self) -> Iterator[Any]:
        raise AssertionError("the items of a non-object document were walked")

    def __getitem__(self, index: Any) -> Any:
        raise AssertionError("the items of a non-object document were walked")


@pytest.mark.parametrize(
    "call",
    [cerebri.parse_request, cerebri.plan, cerebri.validate, cerebri.temporal_report],
)
def test_a_python_non_object_is_refused_before_any_walk(call: Callable[[Any], object]) -> None:
    with pytest.raises(ParseError) as caught:
        call(_Untouchable([0] * 10))
    assert caught.value.code == "json.not_object"


def test_text_that_is_not_an_object_is_still_checked_as_json_first() -> None:
    # Depth and lone surrogates are syntax-level (HTTP 400, api.md 4), as in the reference
    # decoder, whatever the top-level type; only well-formed text is json.not_object.
    for text, code in (
        ('[0, "\\ud800"]', "json.syntax"),
        ("[" * 140 + "]" * 140, "json.too_deep"),
        ("[0, 0]", "json.not_object"),
    ):
        with pytest.raises(ParseError) as caught:
            cerebri.parse_request(text)
        assert caught.value.code == code, text
    with pytest.raises(ParseError) as inside:
        cerebri.parse_request('{"a": [0, "\\ud800"]}')
    assert (inside.value.code, inside.value.path) == ("json.syntax", "/a/1")


def test_errors_name_the_first_offending_value_in_document_order() -> None:
    with pytest.raises(ParseError) as caught:
        cpir.load_json('{"a": ["ok", "\\udc00"], "b": "\\ud800"}')
    assert caught.value.path == "/a/1"
    deep = '{"x": 1, "k": ' + "[" * 128 + "]" * 128 + "}"
    with pytest.raises(ParseError) as too_deep:
        cpir.load_json(deep)
    assert (too_deep.value.code, too_deep.value.path) == ("json.too_deep", "/k" + "/0" * 127)


EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "design-review.json"


def test_unknown_members_are_blanked_where_the_model_reads_them() -> None:
    document = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    document["junk"] = [1, 2]
    document["scope"]["junk"] = {"x": 1}
    event = document["context"]["objects"][0]
    event["junk"] = "x"
    event["kind"]["junk"] = [3]  # inside a union tagged by "kind"
    event["time"]["value"]["knowledge"]["junk"] = 4  # tagged unions two levels deep
    blank_unknown_members(cpir.PlanningRequest, document)
    assert document["junk"] is None
    assert document["scope"]["junk"] is None
    assert event["junk"] is None
    assert event["kind"]["junk"] is None
    assert event["time"]["value"]["knowledge"]["junk"] is None
    # What the model reads is untouched: blanking only the junk gives the original back.
    original = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    for holder in (document, document["scope"], event, event["kind"]):
        del holder["junk"]
    del event["time"]["value"]["knowledge"]["junk"]
    assert document == original


def test_an_unknown_member_reports_the_same_error_whatever_its_value() -> None:
    base = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    for where in ((), ("scope",), ("context", "objects", 1, "kind")):
        errors = []
        for junk in (1, [{"deep": [{}] * 50}] * 50):
            document = json.loads(json.dumps(base))
            holder = document
            for step in where:
                holder = holder[step]
            holder["junk"] = junk
            del document["trace_id"]  # a missing member too: its error copies the object
            with pytest.raises(ParseError) as caught:
                cerebri.parse_request(json.dumps(document))
            errors.append((caught.value.code, caught.value.path, str(caught.value)))
        assert errors[0] == errors[1]
        assert errors[0][1] == "".join(f"/{step}" for step in where) + "/junk"


def test_a_large_unknown_member_is_refused_in_memory_proportional_to_it() -> None:
    text = '{"a":[' + "{}," * (N - 1) + "{}]}"
    # Decoding builds N empty dicts (64 bytes each, about 24x the text); pydantic used to
    # copy the document into every one of its 16 errors (over 400x).
    with pytest.raises(ParseError) as caught:
        _peak(lambda: cerebri.parse_request(text))
    assert (caught.value.code, caught.value.path) == ("cpir.unknown_field", "/a")
    assert _peak(lambda: _refused(text)) < 40 * len(text)


def _refused(text: str) -> None:
    with pytest.raises(ParseError):
        cerebri.parse_request(text)


@pytest.mark.parametrize(
    ("text", "bound"),
    [
        ('{"target_ids":[' + "0," * (N - 1) + "0]}", 20),
        ('{"context":{"objects":[' + "{}," * (N - 1) + "{}]}}", 36),
    ],
    ids=["ids-of-wrong-type", "objects-without-members"],
)
def test_a_known_array_of_wrong_items_is_refused_in_memory_proportional_to_it(
    text: str, bound: int
) -> None:
    # The model alone lists one error per wrong item (about 700 bytes each) and copies the
    # document into each of the 14 missing members' errors: over 300x the text. Decoding
    # itself costs about 4x (ints) and 24x (empty dicts).
    with pytest.raises(ParseError) as caught:
        cerebri.parse_request(text)
    # Every top-level member is missing; the first one the model names is schema_version.
    assert (caught.value.code, caught.value.path) == ("cpir.missing_field", "/schema_version")
    assert _peak(lambda: _refused(text)) < bound * len(text)


def _mutated(change: Callable[[dict[str, Any]], object]) -> str:
    document = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    change(document)
    return json.dumps(document)


def _set(path: tuple[str | int, ...], value: object) -> Callable[[dict[str, Any]], object]:
    def change(document: dict[str, Any]) -> None:
        holder: Any = document
        for step in path[:-1]:
            holder = holder[step]
        holder[path[-1]] = value

    return change


def _delete(*path: str | int) -> Callable[[dict[str, Any]], object]:
    def change(document: dict[str, Any]) -> None:
        holder: Any = document
        for step in path[:-1]:
            holder = holder[step]
        del holder[path[-1]]

    return change


BAD_DOCUMENTS = {
    "missing top-level member": _delete("trace_id"),
    "missing nested member": _delete("context", "objects", 0, "id"),
    "missing tag": _delete("context", "objects", 1, "kind", "kind"),
    "missing deep tag": _delete("context", "objects", 1, "time", "value", "knowledge", "state"),
    "wrong tag": _set(("constraints", 0, "rule", "kind"), "NOPE"),
    "wrong item deep": _set(("context", "objects", 1, "resource_ids"), [7]),
    "unknown nested member": _set(("context", "objects", 1, "kind", "junk"), 1),
    "wrong item type": _set(("target_ids",), ["ok", 0, 1]),
    "wrong enum": _set(("operation",), "NOPE"),
    "wrong object type": _set(("budget",), "fast"),
    "wrong constraint": _set(("constraints",), [1, {}]),
    "value out of range": _set(("granularity",), -5),
}


@pytest.mark.parametrize("name", sorted(BAD_DOCUMENTS))
def test_the_fail_fast_shadow_reports_the_models_code_and_path(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = _mutated(BAD_DOCUMENTS[name])
    with pytest.raises(ParseError) as by_model:  # small: the model alone reads it
        cerebri.parse_request(text)
    monkeypatch.setattr(parse, "FAIL_FAST_VALUES", 0)
    with pytest.raises(ParseError) as by_shadow:
        cerebri.parse_request(text)
    assert (by_shadow.value.code, by_shadow.value.path) == (
        by_model.value.code,
        by_model.value.path,
    )


def test_a_large_valid_request_parses_to_what_the_model_alone_gives(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    extra = [f"t{i}" for i in range(parse.FAIL_FAST_VALUES)]
    text = _mutated(lambda d: d["target_ids"].extend(extra))
    bounded: list[type[Any]] = []
    shadowed: list[type[Any]] = []
    real_bounded, real_checker = parse.bounded_validator, parse.checker

    def spy_bounded(model: type[Any]) -> Any:
        bounded.append(model)
        return real_bounded(model)

    def spy_checker(model: type[Any]) -> Any:
        shadowed.append(model)
        return real_checker(model)

    monkeypatch.setattr(parse, "bounded_validator", spy_bounded)
    monkeypatch.setattr(parse, "checker", spy_checker)
    parsed = cerebri.parse_request(text)
    # A valid large document is read once, by the bounded copy of the model; the shadow,
    # which only serves to report an error, is not asked (decision 0031, round 3).
    assert bounded == [cpir.PlanningRequest]
    assert shadowed == []
    alone = cpir.PlanningRequest.model_validate_json(text)
    assert parsed == alone
    assert parsed.model_dump_json() == alone.model_dump_json()
    assert parsed.target_ids[-1] == f"t{parse.FAIL_FAST_VALUES - 1}"
