"""The fast paths of parsing (decision 0031) give what the exact paths give.

``plain_tree_size`` must agree with the exact walks (``too_deep_at`` + ``expanded_size``)
whenever it answers, and must decline (``None``) for everything that is not plain data;
``collector_paused`` must leave the collector as it found it.
"""

from __future__ import annotations

import copy
import gc
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import cerebri
from cerebri import ParseError
from cerebri._collector import PROMOTE_AFTER, collector_paused
from cerebri._nesting import expanded_size, plain_tree_size, too_deep_at
from cerebri.cpir import parse
from tests.strategies import json_scalars
from tests.strategies import json_values as json_values_of

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "design-review.json"

json_values = json_values_of(
    json_scalars(max_text=4, allow_infinity=False),
    keys=st.text(max_size=3),
    max_items=4,
    max_members=None,
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.text(max_size=3), json_values), st.integers(1, 6))
def test_plain_trees_are_counted_like_the_exact_walks(value: dict[str, Any], limit: int) -> None:
    fast = plain_tree_size(value, limit, 10**6)
    if too_deep_at(value, limit) is not None:
        assert fast is None
    else:
        assert fast == expanded_size(value, 10**6)
        # The count is also the number of values json.loads meets in the written text.
        assert fast == _count(json.loads(json.dumps(value)))


def _count(value: Any) -> int:
    if isinstance(value, dict):
        return 1 + sum(_count(v) for v in value.values())
    if isinstance(value, list):
        return 1 + sum(_count(v) for v in value)
    return 1


def test_plain_tree_size_declines_what_only_the_exact_walks_can_judge() -> None:
    shared: list[Any] = [1]
    cyclic: dict[str, Any] = {}
    cyclic["self"] = cyclic
    declined: list[Any] = [
        [1],  # not an object
        cyclic,
        {1: "int key"},
        {"a": (1, 2)},  # a tuple
        {"a": 10**64},  # 65 digits
        {"a": -(10**64)},
        {"a": {"b": {"c": {}}}},  # four levels, limit three below
        {"a": [0] * 20},  # more values than the cap below
        {"a": b"bytes"},
    ]
    for value in declined:
        assert plain_tree_size(value, 3, 20) is None, value
    assert plain_tree_size({"a": 10**64 - 1, "b": -(10**64) + 1}, 3, 20) == 3
    assert plain_tree_size({"a": {"b": {}}}, 3, 20) == 3
    assert plain_tree_size({"a": [0] * 18}, 3, 20) == 20
    # A value held at two places counts at both, as once written out.
    for value in ({"a": shared, "b": shared}, {"a": [shared, shared]}):
        assert plain_tree_size(value, 3, 20) == expanded_size(value, 20)
    bomb: list[Any] = [0]
    for _ in range(40):
        bomb = [bomb, bomb]
    assert plain_tree_size({"a": bomb}, 128, 1000) is None


def test_a_dict_request_parses_like_its_text_and_is_left_unchanged() -> None:
    document = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    before = copy.deepcopy(document)
    from_dict = cerebri.parse_request(document)
    assert document == before
    assert from_dict == cerebri.parse_request(json.dumps(document))


def test_a_dict_request_with_an_unknown_member_reports_it_without_changing_the_input() -> None:
    document = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    document["context"]["objects"][0]["junk"] = [{"deep": 1}]
    del document["trace_id"]
    before = copy.deepcopy(document)
    with pytest.raises(ParseError) as from_dict:
        cerebri.parse_request(document)
    with pytest.raises(ParseError) as from_text:
        cerebri.parse_request(json.dumps(document))
    assert document == before  # the blanking happened on a copy
    assert (from_dict.value.code, from_dict.value.path, str(from_dict.value)) == (
        from_text.value.code,
        from_text.value.path,
        str(from_text.value),
    )
    assert from_dict.value.path == "/context/objects/0/junk"


@pytest.mark.parametrize("allocate", [10, 2 * PROMOTE_AFTER])
@pytest.mark.parametrize("enabled", [True, False])
def test_collector_paused_restores_the_collector(allocate: int, enabled: bool) -> None:
    was = gc.isenabled()
    try:
        if enabled:
            gc.enable()
        else:
            gc.disable()
        with collector_paused():
            assert not gc.isenabled()
            kept = [[i] for i in range(allocate)]
        assert gc.isenabled() is enabled
        assert gc.get_freeze_count() == 0  # nothing is left frozen
        assert len(kept) == allocate
    finally:
        if was:
            gc.enable()
        else:
            gc.disable()


def test_collector_paused_leaves_frozen_objects_frozen() -> None:
    was = gc.isenabled()
    gc.enable()
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        assert frozen > 1000  # the test process holds far more than that
        with collector_paused():
            kept = [[i] for i in range(2 * PROMOTE_AFTER)]
        after = gc.get_freeze_count()
        # An unfreeze (the freeze-then-unfreeze promotion) would leave 0 frozen and a freeze
        # would add the 2 * PROMOTE_AFTER new lists. Threads other tests of this process
        # left running may free a few frozen objects meanwhile (each leaves the permanent
        # generation when freed), so the count may fall by a handful, never to 0 or above.
        assert frozen - 100 <= after <= frozen, (frozen, after)
        assert len(kept) == 2 * PROMOTE_AFTER
    finally:
        gc.unfreeze()
        if not was:
            gc.disable()


@pytest.mark.parametrize("as_bytes", [False, True])
def test_text_with_a_lone_surrogate_escape_is_located(as_bytes: bool) -> None:
    text = EXAMPLE.read_text(encoding="utf-8")
    document = json.loads(text)
    document["scope"]["junk\ud800"] = 1
    written = json.dumps(document)  # ensure_ascii: the surrogate becomes an escape
    assert "\\ud800" in written
    with pytest.raises(ParseError) as caught:
        cerebri.parse_request(written.encode() if as_bytes else written)
    assert (caught.value.code, caught.value.path) == ("json.syntax", "/scope/junk\ud800")


def test_a_surrogate_pair_escape_is_one_character_not_a_syntax_error() -> None:
    document = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    document["trace_id"] = "trace-\U0001f600"
    written = json.dumps(document)  # the emoji becomes a pair of escapes
    assert "\\ud83d\\ude00" in written
    with pytest.raises(ParseError) as from_text:
        cerebri.parse_request(written)
    with pytest.raises(ParseError) as from_dict:
        cerebri.parse_request(document)
    # The model, not the JSON layer, refuses it: ids are ASCII.
    assert (from_text.value.code, from_text.value.path) == ("cpir.invalid_value", "/trace_id")
    assert str(from_text.value) == str(from_dict.value)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.text(max_size=3), json_values))
def test_plain_json_writes_the_same_json_value_as_json_dumps(value: dict[str, Any]) -> None:
    data = parse._plain_json(value)
    if data is None:  # only for a text that spells a non-finite number or a surrogate
        written = json.dumps(value, ensure_ascii=False)
        assert "NaN" in written or "Infinity" in written or not _encodes(written)
        return
    # Same members, order and values; floats spelled so that they read back identically.
    assert json.dumps(json.loads(data)) == json.dumps(value)


def _encodes(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def test_plain_json_declines_what_strict_json_cannot_hold() -> None:
    for value in (
        {"a": float("nan")},
        {"a": [float("inf")]},
        {"a": -float("inf")},
        {"a": "lone \ud800"},
        {"lone \udc00": 1},
        {"a": "the word NaN"},  # declined too: the caller's json.dumps path reads it
    ):
        assert parse._plain_json(value) is None, value
    assert parse._plain_json({"a": '\u2028/\x00"', "b": 1.5e-300}) is not None


def _example() -> dict[str, Any]:
    document: dict[str, Any] = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    return document


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -float("inf")])
def test_a_dict_with_a_non_finite_number_is_refused_as_before(value: float) -> None:
    document = _example()
    document["granularity"] = value
    with pytest.raises(ParseError) as caught:
        cerebri.parse_request(document)
    assert caught.value.code == "json.non_finite_number"


def test_a_dict_with_a_lone_surrogate_is_located() -> None:
    document = _example()
    document["scope"]["junk\ud800"] = 1
    with pytest.raises(ParseError) as caught:
        cerebri.parse_request(document)
    assert (caught.value.code, caught.value.path) == ("json.syntax", "/scope/junk\ud800")


@pytest.mark.parametrize("title", ["NaN", "-Infinity is far", "plain"])
def test_a_dict_spelling_nan_in_a_string_parses_like_its_text(title: str) -> None:
    document = _example()
    document["request_id"] = title
    try:
        expected: object = cerebri.parse_request(json.dumps(document))
    except ParseError as exc:
        expected = (exc.code, exc.path, str(exc))
    try:
        got: object = cerebri.parse_request(document)
    except ParseError as exc:
        got = (exc.code, exc.path, str(exc))
    assert got == expected


def test_a_dict_that_once_held_a_key_not_a_str_takes_the_exact_walks() -> None:
    document = _example()
    scope: dict[Any, Any] = document["scope"]
    scope[1] = "gone"
    del scope[1]  # the dict keeps its general (not str-only) table
    assert all(isinstance(key, str) for key in scope)
    assert plain_tree_size(document, 128, 10**6) is None
    assert too_deep_at(document, 128) is None
    assert cerebri.parse_request(document) == cerebri.parse_request(json.dumps(document))
