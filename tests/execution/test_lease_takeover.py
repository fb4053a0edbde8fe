"""A worker whose lease was taken over cannot commit anything (plans.md section 6; the claim
protocol in ``cerebri.execution.claims``): every write it tries is refused and leaves the
rows as worker B's claim left them; B then runs the step once."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, select

from cerebri.clock import FakeClock, SequentialIds
from cerebri.execution import (
    Executor,
    claim,
    decide,
    heartbeat,
    list_approvals,
    run_claim,
    run_worker,
    submit,
)
from cerebri.execution.adapters.fakes import journal_entries
from cerebri.execution.claims import mark_invoking, save_outcome
from cerebri.execution.store import init
from cerebri.execution.store.schema import (
    approvals,
    attempt_history,
    attempts,
    plans,
    predictions,
    steps,
)
from cerebri.execution.store.vocabulary import AttemptOutcome
from cerebri.plans import StepStatus
from cerebri.temporal import Instant
from tests.execution import _worker_proc as proc

LEASE = 30
START = Instant.parse("2026-12-01T10:00:00Z")

_CREATE = {
    "key": "create",
    "kind": "capability",
    "capability": "calendar.event.create",
    "target": "ev-lease",
    "params": {
        "calendar_id": proc.CALENDAR_ID,
        "integration_id": "local",
        "object_id": "ev-lease",
        "start": "2026-12-02T10:00:00Z",
        "end": "2026-12-02T11:00:00Z",
        "idempotency_key": "lease-create",
    },
}
_NOTE = {
    "key": "note",
    "kind": "capability",
    "capability": proc.EFFECT,
    "target": "n",
    "params": {},
}


def _snapshot(engine: Engine) -> dict[str, list[tuple[Any, ...]]]:
    """Every row a worker could write, per table, in a stable order."""
    tables = (steps, attempts, attempt_history, plans, approvals, predictions)
    with engine.connect() as connection:
        return {
            table.name: sorted(
                (tuple(row) for row in connection.execute(select(table)).all()), key=repr
            )
            for table in tables
        }


@pytest.fixture
def setting(store_url: str, tmp_path: Path) -> tuple[Executor, FakeClock, Path]:
    init(store_url)
    clock = FakeClock(START)
    journal = tmp_path / "journal.jsonl"
    executor, _ = proc.build(store_url, tmp_path / "work.ics", journal, clock, SequentialIds("t"))
    return executor, clock, journal


@pytest.mark.parametrize("step", [_NOTE, _CREATE], ids=["idempotent", "non_idempotent"])
def test_a_worker_whose_lease_was_taken_over_cannot_commit(
    setting: tuple[Executor, FakeClock, Path], step: dict[str, Any]
) -> None:
    executor, clock, journal = setting
    draft = {"objective": "one effect", "origin": "operator", "strategy": "direct_action_verified"}
    submit(executor, {**draft, "steps": [step]})
    if step is _CREATE:  # it asks for approval first; another principal approves
        run_worker(executor, until_idle=True, poll_seconds=0.01)
        (request,) = list_approvals(executor)
        decide(executor, str(request["id"]), approve=True, by="principal:other")

    stale = claim(executor, "worker:A", LEASE)
    assert stale is not None and not stale.takeover
    clock.advance(LEASE + 1)
    taker = claim(executor, "worker:B", LEASE)
    assert taker is not None and taker.takeover
    assert taker.step_id == stale.step_id
    assert [a.id for a in taker.interrupted] == [stale.attempt.id]
    before = _snapshot(executor.engine)

    assert heartbeat(executor, stale, LEASE) is False
    assert mark_invoking(executor, stale) is False
    assert save_outcome(executor, stale, AttemptOutcome.COMPLETED, {"forged": True}, None) is False
    run_claim(executor, stale)

    assert _snapshot(executor.engine) == before
    stale_calls = journal_entries(journal)
    if step is _CREATE:
        assert stale_calls == []  # mark_invoking refused: the non-idempotent effect never ran
    else:
        # an idempotent step is not checked before it invokes (decision 0020: repeating it
        # is harmless by definition, and the check would cost a round trip per step); what
        # it returned is never recorded
        assert [e["idempotency_key"] for e in stale_calls] == [stale.idempotency_key]
    with executor.engine.connect() as connection:
        row = connection.execute(select(steps).where(steps.c.id == stale.step_id)).one()
    assert (row.status, row.lease_token) == (StepStatus.EXECUTING.value, taker.token)
    assert row.lease_until == taker.lease_until

    run_claim(executor, taker)

    taken = [e for e in journal_entries(journal)[len(stale_calls) :]]
    assert [e["capability"] for e in taken] == [step["capability"]]
    with executor.engine.connect() as connection:
        row = connection.execute(select(steps).where(steps.c.id == stale.step_id)).one()
        history = connection.execute(
            select(attempt_history.c.id, attempt_history.c.worker_id, attempt_history.c.outcome)
            .where(attempt_history.c.step_id == stale.step_id)
            .order_by(attempt_history.c.number)
        ).all()
        left_open = connection.execute(select(attempts)).all()
        invocations = connection.execute(select(plans.c.invocations)).scalar()
    assert row.status == StepStatus.COMPLETED.value
    # A's attempt was never stored (an idempotent one never is while it runs, and A's
    # invoked_at mark was refused), so its history row is rebuilt from the step row by B's
    # takeover, without A's worker id (decision 0019)
    assert [(h.worker_id, h.outcome) for h in history][-2:] == [
        (None, "interrupted"),
        ("worker:B", "completed"),
    ]
    assert history[-2].id == stale.attempt.id
    assert left_open == []
    # each claim of a capability step counts one invocation; A's stays counted because a
    # worker that stopped may have invoked before it stopped (decision 0020)
    assert invocations == 2
