"""Shared set-up of the execution-rule tests (plans.md sections 5-6, issue #12).

:class:`RulesEnv` is one fresh store (SQLite or PostgreSQL) with a :class:`FakeClock`,
:class:`SequentialIds`, a registry holding four test capabilities and their adapters:

* ``test.effect``: an effect, **not** idempotent, allowed by default, recorded in
  ``test.effect.jsonl``;
* ``test.idem``: an idempotent effect, allowed by default, recorded in ``test.idem.jsonl``;
* ``test.idem2``: the same, recorded in ``test.idem2.jsonl``;
* ``test.approve``: an idempotent effect that needs human approval, recorded in
  ``test.approve.jsonl``;
* ``test.probe``: a read-only, idempotent observation answering ``{"ok": <probe.ok>}``
  (:class:`Probe`), what checks, preconditions and verify steps read.

Nothing here sleeps: time moves only by :meth:`RulesEnv.advance`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, func, insert, select

from cerebri._json import JSONValue
from cerebri.clock import FakeClock, SequentialIds
from cerebri.execution import Executor, WorkerReport, run_worker, submit
from cerebri.execution import store as execution_store
from cerebri.execution._rows import loads
from cerebri.execution.adapters import Adapters, Invocation, RecordingAdapter, journal_entries
from cerebri.execution.context import NS
from cerebri.execution.store.schema import (
    approvals,
    attempt_history,
    beliefs,
    intentions,
    plans,
    predictions,
    procedural_memories,
    sandboxes,
    steps,
)
from cerebri.execution.submit import Submitted
from cerebri.plans import Capability, CapabilityRegistry, Risk, builtin_registry
from cerebri.temporal import Instant

__all__ = [
    "START",
    "Probe",
    "RulesEnv",
    "capability_step",
    "draft",
    "open_env",
    "probe_check",
    "rows",
]

START = Instant.parse("2026-12-01T10:00:00Z")
"""Where every test's clock starts."""

_FREE: Mapping[str, Any] = {"type": "object"}


def _registry() -> CapabilityRegistry:
    registry = builtin_registry()
    for capability in (
        Capability("test.effect", "a non-idempotent effect", _FREE, read_only=False,
                   idempotent=False, risk=Risk.LOW, allowed_by_default=True),
        Capability("test.idem", "an idempotent effect", _FREE, read_only=False,
                   idempotent=True, risk=Risk.LOW, allowed_by_default=True),
        Capability("test.idem2", "another idempotent effect", _FREE, read_only=False,
                   idempotent=True, risk=Risk.LOW, allowed_by_default=True),
        Capability("test.approve", "an effect needing approval", _FREE, read_only=False,
                   idempotent=True, risk=Risk.MEDIUM, requires_approval=True),
        Capability("test.probe", "a read-only observation", _FREE, read_only=True,
                   idempotent=True, risk=Risk.LOW, bounded=True, allowed_by_default=True),
    ):  # fmt: skip
        registry = registry.register(capability)
    return registry


@dataclass
class Probe:
    """The world as ``test.probe`` sees it: ``{"ok": ok}``; counts its invocations."""

    ok: bool = False
    calls: int = 0

    def invoke(self, invocation: Invocation) -> dict[str, JSONValue]:
        self.calls += 1
        return {"ok": self.ok}


def probe_check(value: bool = True) -> dict[str, JSONValue]:
    """A check that holds when the probe answers ``ok == value``."""
    return {"capability": "test.probe", "path": "ok", "op": "eq", "value": value}


def capability_step(key: str, capability: str = "test.idem", **fields: Any) -> dict[str, Any]:
    """A ``capability`` step spec (``depends_on``, ``expectation`` etc. in ``fields``)."""
    return {"key": key, "kind": "capability", "capability": capability, "params": {}, **fields}


def draft(
    steps_: list[dict[str, Any]],
    *,
    strategy: str = "direct_action_verified",
    origin: str = "operator",
    **fields: Any,
) -> dict[str, Any]:
    """A draft of ``steps_`` (wire form)."""
    return {
        "objective": f"test plan ({strategy})",
        "origin": origin,
        "strategy": strategy,
        "steps": steps_,
        **fields,
    }


def rows(engine: Engine, table: Any, *where: Any, order: Any = None) -> list[dict[str, Any]]:
    """Every row of ``table`` matching ``where`` as dicts (ordered by ``order`` or id)."""
    query = select(table).where(*where)
    key = order if order is not None else next(iter(table.primary_key.columns))
    with engine.connect() as connection:
        return [dict(r._mapping) for r in connection.execute(query.order_by(key))]


@dataclass
class RulesEnv:
    """One store and what a test needs to drive it."""

    engine: Engine
    clock: FakeClock
    ids: SequentialIds
    ex: Executor
    folder: Path
    probe: Probe
    recorders: dict[str, RecordingAdapter] = field(default_factory=dict)

    # -- building --------------------------------------------------------------------

    def with_recorder(self, capability: str, **settings: Any) -> None:
        """Replace ``capability``'s adapter by a fresh :class:`RecordingAdapter` over the
        same journal with ``settings`` (``fail_times``, ``retryable``, ``result``)."""
        recorder = RecordingAdapter(self.journal_path(capability), **settings)
        self.recorders[capability] = recorder
        self.ex = replace(self.ex, adapters=self._adapters())

    def with_executor(self, **changes: Any) -> None:
        """Replace fields of the executor (``approval_ttl_seconds``, ``replanner``...)."""
        self.ex = replace(self.ex, **changes)

    def _adapters(self) -> Adapters:
        adapters = Adapters().with_adapter("test.probe", self.probe)
        for name, recorder in self.recorders.items():
            adapters = adapters.with_adapter(name, recorder)
        return adapters

    def journal_path(self, capability: str) -> Path:
        return self.folder / f"{capability}.jsonl"

    def journal(self, capability: str) -> list[dict[str, JSONValue]]:
        """The invocations ``capability``'s recorder saw, in order."""
        return journal_entries(self.journal_path(capability))

    # -- driving ---------------------------------------------------------------------

    def submit(self, draft_: dict[str, Any], **options: Any) -> Submitted:
        return submit(self.ex, draft_, **options)

    def run(self) -> WorkerReport:
        """Run a worker until nothing is due now (the clock does not move)."""
        report = run_worker(self.ex, until_idle=True, poll_seconds=0.01)
        assert report.errors == 0, report.last_error
        return report

    def drain(self, rounds: int = 100) -> int:
        """Run, then move the clock to the next due step, until no step is due any more;
        the number of clock moves."""
        for moves in range(rounds):
            self.run()
            with self.engine.connect() as connection:
                due = connection.execute(
                    select(func.min(steps.c.next_run_at)).where(
                        steps.c.status.in_(("ready", "waiting"))
                    )
                ).scalar()
            if due is None:
                return moves
            if due > self.now():
                self.clock.set(Instant(due))
        raise AssertionError(f"still due after {rounds} rounds")

    def advance(self, seconds: float) -> int:
        """Move the clock on; the new instant in ns."""
        return self.clock.advance(seconds).ns

    def now(self) -> int:
        return self.clock.now().ns

    # -- reading ---------------------------------------------------------------------

    def plan(self, plan_id: str) -> dict[str, Any]:
        (row,) = rows(self.engine, plans, plans.c.id == plan_id)
        return row

    def plans_of(self, intention_id: str) -> list[dict[str, Any]]:
        where = plans.c.intention_id == intention_id
        return rows(self.engine, plans, where, order=plans.c.revision)

    def steps(self, plan_id: str) -> dict[str, dict[str, Any]]:
        found = rows(self.engine, steps, steps.c.plan_id == plan_id, order=steps.c.position)
        return {row["key"]: row for row in found}

    def step(self, plan_id: str, key: str) -> dict[str, Any]:
        return self.steps(plan_id)[key]

    def intention(self, intention_id: str) -> dict[str, Any]:
        (row,) = rows(self.engine, intentions, intentions.c.id == intention_id)
        return row

    def approvals(self, plan_id: str | None = None) -> list[dict[str, Any]]:
        where = () if plan_id is None else (approvals.c.plan_id == plan_id,)
        return rows(self.engine, approvals, *where, order=approvals.c.created_at)

    def predictions(self, plan_id: str) -> list[dict[str, Any]]:
        return rows(self.engine, predictions, predictions.c.plan_id == plan_id)

    def belief(self, belief_id: str) -> float:
        (row,) = rows(self.engine, beliefs, beliefs.c.id == belief_id)
        return float(row["confidence"])

    def memories(self) -> list[dict[str, Any]]:
        return rows(self.engine, procedural_memories)

    def history(self, step_id: str) -> list[dict[str, Any]]:
        return rows(
            self.engine,
            attempt_history,
            attempt_history.c.step_id == step_id,
            order=attempt_history.c.number,
        )

    def insert(self, table: Any, **values: Any) -> None:
        with self.engine.begin() as connection:
            connection.execute(insert(table).values(**values))

    def set_belief(self, belief_id: str, confidence: float) -> None:
        self.insert(beliefs, id=belief_id, confidence=confidence, updated_at=self.now())

    def add_sandbox(self, name: str, *, enabled: bool) -> None:
        self.insert(sandboxes, name=name, enabled=enabled, reason="test", updated_at=self.now())

    def snapshot(self) -> dict[str, list[dict[str, Any]]]:
        """Every row of the tables a plan's progress writes, for before/after comparisons."""
        tables = (plans, steps, approvals, intentions, predictions, procedural_memories)
        return {t.name: rows(self.engine, t) for t in tables}


def changes(
    before: dict[str, list[dict[str, Any]]], after: dict[str, list[dict[str, Any]]]
) -> list[tuple[str, Any, str, Any, Any]]:
    """What differs between two :meth:`RulesEnv.snapshot`: ``(table, row id, column, before,
    after)``, with ``column`` ``"<row>"`` for a row that appeared or disappeared."""
    found: list[tuple[str, Any, str, Any, Any]] = []
    for table in sorted(set(before) | set(after)):
        old = {r["id"]: r for r in before.get(table, [])}
        new = {r["id"]: r for r in after.get(table, [])}
        for row_id in sorted(set(old) | set(new)):
            if row_id not in old or row_id not in new:
                found.append((table, row_id, "<row>", old.get(row_id), new.get(row_id)))
                continue
            for column, value in old[row_id].items():
                if new[row_id][column] != value:
                    found.append((table, row_id, column, value, new[row_id][column]))
    return found


def seconds(ns: int) -> float:
    """Nanoseconds as seconds."""
    return ns / NS


def wire(value: Any) -> Any:
    """A JSON column's value."""
    return loads(value)


def open_env(store_url: str, folder: Path) -> Iterator[RulesEnv]:
    """A fresh store at ``store_url`` with the test capabilities; disposed afterwards."""
    execution_store.init(store_url)
    engine = execution_store.open_engine(execution_store.parse_store_url(store_url))
    clock = FakeClock(START)
    ids = SequentialIds("r")
    env = RulesEnv(
        engine=engine,
        clock=clock,
        ids=ids,
        ex=Executor(engine, clock, ids, registry=_registry()),
        folder=folder,
        probe=Probe(),
    )
    for capability in ("test.effect", "test.idem", "test.idem2", "test.approve"):
        env.with_recorder(capability)
    try:
        yield env
    finally:
        engine.dispose()
