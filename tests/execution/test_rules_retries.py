"""Idempotent steps retry with backoff up to ``max_attempts``; others never (plans.md 6).

The backoff is ``retry_base_seconds`` doubling per failure (5, 10, 20 s ...), at most
``retry_max_seconds``, a durable ``next_run_at``. A non-idempotent step is never retried: a
permanent failure fails it, a retryable one (it may have acted) blocks it for verification.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from cerebri.execution.context import NS
from cerebri.plans import PlanStatus, StepStatus
from tests.execution.rules_support import RulesEnv, capability_step, draft, open_env


@pytest.fixture
def env(store_url: str, tmp_path: Path) -> Iterator[RulesEnv]:
    yield from open_env(store_url, tmp_path)


def _delays(env: RulesEnv, plan_id: str, key: str, rounds: int) -> list[float]:
    """Run ``rounds`` times, each time moving the clock to the step's next_run_at; the delays
    (seconds) between each failure and the retry it scheduled."""
    delays = []
    env.run()
    for _ in range(rounds):
        step = env.step(plan_id, key)
        if step["status"] != StepStatus.READY:
            break
        delays.append((step["next_run_at"] - env.now()) / NS)
        env.advance(delays[-1])
        env.run()
    return delays


def test_an_idempotent_step_retries_with_backoff_and_completes(env: RulesEnv) -> None:
    env.with_recorder("test.idem", fail_times=3)
    plan_id = env.submit(draft([capability_step("s", "test.idem", max_attempts=4)])).plan_id
    assert _delays(env, plan_id, "s", 10) == [5, 10, 20]
    step = env.step(plan_id, "s")
    assert step["status"] == StepStatus.COMPLETED
    assert step["attempts"] == 4
    journal = env.journal("test.idem")
    assert [e["failed"] for e in journal] == [True, True, True, False]
    assert len({e["idempotency_key"] for e in journal}) == 1  # the same key for every retry
    assert [h["outcome"] for h in env.history(step["id"])] == ["failed"] * 3 + ["completed"]
    assert env.plan(plan_id)["status"] == PlanStatus.COMPLETED


def test_an_idempotent_step_fails_after_max_attempts(env: RulesEnv) -> None:
    env.with_recorder("test.idem", fail_times=100)
    plan_id = env.submit(draft([capability_step("s", "test.idem", max_attempts=3)])).plan_id
    assert _delays(env, plan_id, "s", 10) == [5, 10]
    step = env.step(plan_id, "s")
    assert step["status"] == StepStatus.FAILED
    assert step["next_run_at"] is None
    assert len(env.journal("test.idem")) == 3
    assert env.plan(plan_id)["status"] == PlanStatus.FAILED


def test_the_backoff_is_capped(env: RulesEnv) -> None:
    env.with_executor(retry_base_seconds=5, retry_max_seconds=15)
    env.with_recorder("test.idem", fail_times=4)
    plan_id = env.submit(draft([capability_step("s", "test.idem", max_attempts=5)])).plan_id
    assert _delays(env, plan_id, "s", 10) == [5, 10, 15, 15]
    assert env.step(plan_id, "s")["status"] == StepStatus.COMPLETED


def test_a_permanent_failure_is_not_retried(env: RulesEnv) -> None:
    env.with_recorder("test.idem", fail_times=100, retryable=False)
    plan_id = env.submit(draft([capability_step("s", "test.idem", max_attempts=5)])).plan_id
    env.drain()
    assert env.step(plan_id, "s")["status"] == StepStatus.FAILED
    assert len(env.journal("test.idem")) == 1


def test_a_non_idempotent_step_is_never_retried(env: RulesEnv) -> None:
    # it may not even ask for retries (validation, section 3)
    refused = env.submit(draft([capability_step("s", "test.effect", max_attempts=3)]))
    assert refused.status == PlanStatus.DRAFT
    problems = refused.validation["problems"]
    assert isinstance(problems, list)
    assert [p["code"] for p in problems if isinstance(p, dict)] == ["draft.retry_not_idempotent"]
    env.with_recorder("test.effect", fail_times=1, retryable=False)
    plan_id = env.submit(draft([capability_step("s", "test.effect")])).plan_id
    env.drain()
    env.advance(3600)
    env.run()
    step = env.step(plan_id, "s")
    assert step["status"] == StepStatus.FAILED
    assert len(env.journal("test.effect")) == 1


def test_a_retryable_error_on_a_non_idempotent_step_needs_verification(env: RulesEnv) -> None:
    env.with_recorder("test.effect", fail_times=1, retryable=True)
    plan_id = env.submit(draft([capability_step("s", "test.effect")])).plan_id
    env.run()
    step = env.step(plan_id, "s")
    assert step["status"] == StepStatus.BLOCKED
    assert step["status_reason"].startswith("needs_verification")
    assert step["next_run_at"] is None and step["lease_token"] is None
    assert env.plan(plan_id)["status"] == PlanStatus.BLOCKED
    env.advance(3600)
    assert env.run().claims == 0
    assert len(env.journal("test.effect")) == 1
