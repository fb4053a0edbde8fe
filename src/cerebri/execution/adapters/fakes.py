"""Adapters for tests and benchmarks.

:class:`RecordingAdapter` appends one JSON line per invocation to a journal file and makes
it durable (flush, fsync) *before* it returns or raises, so a test can count invocations made
by several processes, including one killed right after acting. :class:`NoopAdapter` does
nothing and returns ``{}`` (the cost floor a benchmark measures against).
"""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Mapping
from pathlib import Path
from types import NoneType
from typing import Final

import filelock

from cerebri._guard import PATH, arguments
from cerebri._json import JSONValue, compact
from cerebri.execution.adapters.base import AdapterError, Invocation, adapter_argument_error

__all__ = ["NoopAdapter", "RecordingAdapter", "journal_entries"]

_LOCK_TIMEOUT_SECONDS: Final = 30.0


@arguments(adapter_argument_error, journal=PATH)
def journal_entries(journal: Path) -> list[dict[str, JSONValue]]:
    """The entries of ``journal`` in the order written (``[]`` when it does not exist)."""
    try:
        text = Path(journal).read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    return [json.loads(line) for line in text.splitlines() if line]


class RecordingAdapter:
    """Records every invocation in ``journal`` (one JSON line), then answers.

    Entry: ``{"capability", "target", "idempotency_key", "origin", "params", "pid",
    "failed"}``, ``pid`` the writing process, ``failed`` whether this invocation raises.
    The first ``fail_times`` invocations recorded in the journal (by any process; counted
    under ``<journal>.lock``) raise :class:`AdapterError` with ``error_code`` and
    ``retryable``; the others return a copy of ``result`` (default ``{}``). The line is on
    disk (flushed and fsynced) before either happens.

    The adapter holds only its settings, so it pickles and works the same in any process.
    """

    __slots__ = ("error_code", "fail_times", "journal", "result", "retryable")

    @arguments(
        adapter_argument_error,
        journal=PATH,
        result=(Mapping, NoneType),
        fail_times=int,
        error_code=str,
        retryable=bool,
    )
    def __init__(
        self,
        journal: Path,
        result: Mapping[str, JSONValue] | None = None,
        fail_times: int = 0,
        error_code: str = "adapter.failed",
        retryable: bool = True,
    ) -> None:
        self.journal = Path(journal)
        self.result: dict[str, JSONValue] = dict(result or {})
        self.fail_times = fail_times
        self.error_code = error_code
        self.retryable = retryable

    def invoke(self, invocation: Invocation) -> dict[str, JSONValue]:
        """Record ``invocation``, then return ``result`` or raise (see the class doc)."""
        with filelock.FileLock(f"{self.journal}.lock", timeout=_LOCK_TIMEOUT_SECONDS):
            # reading the journal costs O(lines): only when failures are configured
            fails = self.fail_times > 0 and len(journal_entries(self.journal)) < self.fail_times
            entry: dict[str, JSONValue] = {
                "capability": invocation.capability,
                "target": invocation.target,
                "idempotency_key": invocation.idempotency_key,
                "origin": invocation.origin,
                "params": dict(invocation.params),
                "pid": os.getpid(),
                "failed": fails,
            }
            with self.journal.open("a", encoding="utf-8") as handle:
                handle.write(compact(entry) + "\n")
                handle.flush()
                os.fsync(handle.fileno())
        if fails:
            raise AdapterError(
                f"{invocation.capability} failed as configured",
                code=self.error_code,
                retryable=self.retryable,
            )
        return copy.deepcopy(self.result)


class NoopAdapter:
    """Returns ``{}`` for any invocation, and does nothing else."""

    __slots__ = ()

    def invoke(self, invocation: Invocation) -> dict[str, JSONValue]:
        """``{}``."""
        return {}
