"""Cancelling a plan while its non-idempotent step is being carried out (trial finding).

The worker's invocation goes through after the cancellation: the event exists. Before, the
store said nothing had happened (the attempt stayed open, the step plainly cancelled). Now the
attempt's history row holds what the invocation did and the step's reason says so.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from sqlalchemy import select

from cerebri.clock import FakeClock, SequentialIds
from cerebri.execution import (
    Claim,
    Executor,
    cancel_plan,
    claim,
    decide,
    list_approvals,
    run_claim,
    run_worker,
    submit,
)
from cerebri.execution.adapters import Adapters, IcsFileCalendar
from cerebri.execution.store import init, open_engine, parse_store_url
from cerebri.execution.store.schema import attempt_history, attempts, steps
from cerebri.temporal import Instant
from tests.execution._one_event import ONE_EVENT_DRAFT


def test_an_effect_that_went_through_after_a_cancel_is_recorded(
    store_url: str, tmp_path: Path
) -> None:
    init(store_url)
    clock = FakeClock(Instant.parse("2026-12-01T09:00:00Z"))
    work = tmp_path / "work.ics"
    calendar = IcsFileCalendar({"work": work}, clock)
    executor = Executor(
        open_engine(parse_store_url(store_url)),
        clock,
        SequentialIds("c"),
        adapters=Adapters().with_adapter("calendar.event.create", calendar),
    )
    done = submit(executor, ONE_EVENT_DRAFT, requester="principal:alice")
    run_worker(executor, until_idle=True, poll_seconds=0.01)
    (request,) = list_approvals(executor)
    decide(executor, str(request["id"]), approve=True, by="principal:bob")
    held = claim(executor, "worker:slow", 30)
    assert held is not None

    def cancel_while_invoking(name: str, step: Claim) -> None:
        if name == "invoking":  # the invocation has begun; a person cancels the plan now
            cancel_plan(executor, done.plan_id, by="principal:alice")

    run_claim(executor, held, cancel_while_invoking)

    assert "UID:e1" in work.read_text(encoding="utf-8")  # the effect happened
    with executor.engine.connect() as connection:
        step = connection.execute(select(steps)).one()
        history: Any = connection.execute(select(attempt_history)).all()
        still_open = connection.execute(select(attempts)).all()
    assert step.status == "cancelled"
    assert "ended completed: check its result" in step.status_reason
    assert still_open == []
    [attempt] = [h for h in history if h.id == held.attempt.id]
    assert attempt.outcome == "completed"
    assert json.loads(attempt.result)["object_id"] == "e1"
