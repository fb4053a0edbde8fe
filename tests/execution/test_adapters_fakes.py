"""Test adapters: RecordingAdapter's journal across processes, NoopAdapter."""

from __future__ import annotations

import multiprocessing
import os
import pickle
from pathlib import Path

import pytest

from cerebri.execution.adapters import (
    AdapterError,
    Invocation,
    NoopAdapter,
    RecordingAdapter,
    journal_entries,
)


def call(n: int, capability: str = "service.status") -> Invocation:
    return Invocation(
        capability, "mail", {"service": "mail", "n": n}, f"plan_step:s-{n}", f"p:1:k{n}:0"
    )


def test_each_invocation_is_one_journal_line_before_the_answer(tmp_path: Path) -> None:
    journal = tmp_path / "journal.jsonl"
    adapter = RecordingAdapter(journal, result={"active": True, "nested": {"a": [1]}})
    first = adapter.invoke(call(1))
    assert first == {"active": True, "nested": {"a": [1]}}
    first["nested"] = {}  # the caller owns its copy
    assert adapter.invoke(call(2)) == {"active": True, "nested": {"a": [1]}}
    assert journal_entries(journal) == [
        {
            "capability": "service.status",
            "target": "mail",
            "idempotency_key": f"p:1:k{n}:0",
            "origin": f"plan_step:s-{n}",
            "params": {"service": "mail", "n": n},
            "pid": os.getpid(),
            "failed": False,
        }
        for n in (1, 2)
    ]


def test_configured_failures_are_journalled_before_raising(tmp_path: Path) -> None:
    journal = tmp_path / "journal.jsonl"
    adapter = RecordingAdapter(
        journal, fail_times=2, error_code="adapter.unavailable", retryable=True
    )
    for n in (1, 2):
        with pytest.raises(AdapterError) as caught:
            adapter.invoke(call(n))
        assert (caught.value.code, caught.value.retryable) == ("adapter.unavailable", True)
        assert len(journal_entries(journal)) == n  # on disk before the raise
    assert adapter.invoke(call(3)) == {}
    assert [e["failed"] for e in journal_entries(journal)] == [True, True, False]


def test_journal_of_nothing_is_empty(tmp_path: Path) -> None:
    assert journal_entries(tmp_path / "absent.jsonl") == []


def _invoke_many(adapter: RecordingAdapter, first: int, count: int, failures: object) -> None:
    failed = 0
    for n in range(first, first + count):
        try:
            adapter.invoke(call(n))
        except AdapterError:
            failed += 1
    failures.put(failed)  # type: ignore[attr-defined]


def test_two_processes_share_one_journal_and_one_failure_count(tmp_path: Path) -> None:
    journal = tmp_path / "journal.jsonl"
    adapter = RecordingAdapter(journal, fail_times=3, retryable=False)
    context = multiprocessing.get_context("spawn")  # fresh interpreters: the adapter pickles
    failures = context.Queue()
    workers = [
        context.Process(target=_invoke_many, args=(adapter, first, 20, failures))
        for first in (0, 100)
    ]
    for worker in workers:
        worker.start()
    raised = sum(failures.get(timeout=30) for _ in workers)
    for worker in workers:
        worker.join(timeout=30)
        assert worker.exitcode == 0
    entries = journal_entries(journal)
    assert len(entries) == 40
    assert sorted(e["params"]["n"] for e in entries) == [*range(20), *range(100, 120)]  # type: ignore[index]
    assert len({e["pid"] for e in entries}) == 2
    assert os.getpid() not in {e["pid"] for e in entries}
    assert raised == 3
    assert [e["failed"] for e in entries] == [True] * 3 + [False] * 37


def test_recording_adapter_pickles_with_its_settings(tmp_path: Path) -> None:
    adapter = RecordingAdapter(tmp_path / "j", result={"x": 1}, fail_times=1, error_code="e.x")
    copy = pickle.loads(pickle.dumps(adapter))
    assert (copy.journal, copy.result, copy.fail_times, copy.error_code, copy.retryable) == (
        tmp_path / "j",
        {"x": 1},
        1,
        "e.x",
        True,
    )


def test_noop_returns_an_empty_object_and_writes_nothing(tmp_path: Path) -> None:
    adapter = NoopAdapter()
    assert adapter.invoke(call(1)) == {}
    assert adapter.invoke(call(1)) is not adapter.invoke(call(1))
    assert list(tmp_path.iterdir()) == []
