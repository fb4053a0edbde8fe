"""The store boundary refuses text a back end cannot hold, the same on SQLite and PostgreSQL.

A NUL character (U+0000) or a lone surrogate in any value a statement sends to the store, a
looked-up id or a written text alike, is ``input.invalid_text`` before the driver sees it
(:mod:`cerebri.execution.store.text`, docs/decisions/0036), and the transaction it was part
of is rolled back: nothing is half-applied.
"""

from __future__ import annotations

import pytest

from cerebri._text import first_unstorable, text_fault
from cerebri.clock import FakeClock, SequentialIds
from cerebri.errors import InvalidArgumentError
from cerebri.execution import Executor, cancel_plan, show_plan, show_step, submit
from cerebri.execution.store import init, open_engine, parse_store_url
from cerebri.temporal import Instant

WAIT = {
    "objective": "wait",
    "origin": "operator",
    "strategy": "manual",
    "steps": [{"key": "first", "kind": "wait", "wait": {"seconds": 30}}],
}


def test_text_fault_names_the_character_and_its_offset() -> None:
    assert text_fault("plain é ✓ 𝄞") is None
    assert text_fault("ab\x00") == "a NUL character (U+0000) at offset 2"
    assert text_fault("\udcff") == "a lone surrogate (U+DCFF) at offset 0"
    document = {"a/b": [1, {"ok": "x", "c~d": ["y", "z\x00"]}]}
    assert first_unstorable(document, "/body") == (
        "/body/a~1b/1/c~0d/1",
        "a NUL character (U+0000) at offset 1",
    )
    assert first_unstorable({"k\ud800": 1}) == (
        "/k\ud800",
        "a lone surrogate (U+D800) at offset 1 in a member name",
    )
    deep: object = "\x00"
    for _ in range(10_000):
        deep = [deep]
    assert first_unstorable(deep) == ("/0" * 10_000, "a NUL character (U+0000) at offset 0")


def test_ids_and_texts_with_nul_or_surrogates_are_invalid_text(store_url: str) -> None:
    init(store_url)
    executor = Executor(
        open_engine(parse_store_url(store_url)),
        FakeClock(Instant.parse("2026-12-01T09:00:00Z")),
        SequentialIds("u"),
    )
    plan_id = submit(executor, WAIT, requester="principal:alice").plan_id
    before = show_plan(executor, plan_id)
    for bad in ("plan\x00", "plan\ud800"):
        for show in (show_plan, show_step):
            with pytest.raises(InvalidArgumentError) as refused:
                show(executor, bad)
            assert refused.value.code == "input.invalid_text"
    with pytest.raises(InvalidArgumentError) as refused:
        cancel_plan(executor, plan_id, by="principal:alice", reason="because\x00")
    assert refused.value.code == "input.invalid_text"
    assert "NUL character (U+0000) at offset" in refused.value.message
    assert show_plan(executor, plan_id) == before  # nothing half-applied
    with pytest.raises(InvalidArgumentError) as refused:
        cancel_plan(executor, plan_id, by="principal:al\x00ice")
    assert (refused.value.code, refused.value.message.split(" holds")[0]) == (
        "input.invalid_text",
        "a principal",
    )
    assert cancel_plan(executor, plan_id, by="principal:alice")["status"] == "abandoned"
