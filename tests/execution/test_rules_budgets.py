"""Budgets stop runaway plans with a clear status reason (plans.md sections 1 and 6).

``budget: {max_capability_invocations, max_wall_seconds?, max_money?, max_human_approvals?}``:
zero means unlimited except invocations, which default to 20. A plan over budget is
``failed`` with a ``budget.*`` reason, its remaining steps ``cancelled``, nothing more invoked.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cerebri.execution import Submitted, decide, list_approvals
from cerebri.execution.store.vocabulary import IntentionStatus
from cerebri.plans import DEFAULT_MAX_INVOCATIONS, PlanStatus, StepStatus
from tests.execution.rules_support import RulesEnv, capability_step, draft, open_env


@pytest.fixture
def env(store_url: str, tmp_path: Path) -> Iterator[RulesEnv]:
    yield from open_env(store_url, tmp_path)


def _chain(count: int, capability: str = "test.idem", **fields: Any) -> dict[str, Any]:
    """``count`` capability steps s0 → s1 → ... (each depends on the previous one)."""
    return draft(
        [
            capability_step(f"s{i}", capability, depends_on=[f"s{i - 1}"] if i else [])
            for i in range(count)
        ],
        **fields,
    )


def _assert_stopped(
    env: RulesEnv, submitted: Submitted, code: str, *, ran: int, total: int
) -> None:
    plan_id, intention_id = submitted.plan_id, submitted.intention_id
    plan = env.plan(plan_id)
    assert plan["status"] == PlanStatus.FAILED
    assert plan["status_reason"].startswith(code), plan["status_reason"]
    assert plan["superseded_by"] is None  # a budget stop is not replanned
    assert plan["open_steps"] == 0
    statuses = [s["status"] for s in env.steps(plan_id).values()]
    assert statuses == [StepStatus.COMPLETED] * ran + [StepStatus.CANCELLED] * (total - ran)
    for step in list(env.steps(plan_id).values())[ran:]:
        assert step["next_run_at"] is None and step["lease_token"] is None
    intention = env.intention(intention_id)
    assert intention["status"] == IntentionStatus.ABANDONED


def test_a_draft_needing_more_invocations_than_its_budget_never_runs(env: RulesEnv) -> None:
    # 21 capability steps need 21 invocations: over the default budget of 20, refused by
    # validation (section 3), stored as a draft that never runs
    submitted = env.submit(_chain(21))
    assert submitted.status == PlanStatus.DRAFT
    problems = submitted.validation["problems"]
    assert isinstance(problems, list)
    codes = [p["code"] for p in problems if isinstance(p, dict)]
    assert codes == ["draft.budget_below_estimate"]
    assert env.run().claims == 0
    assert env.steps(submitted.plan_id) == {}
    assert env.journal("test.idem") == []


def test_invocations_default_to_twenty(env: RulesEnv) -> None:
    # a step retried without end (retryable failures, up to 100 attempts) is a runaway: its
    # 21st invocation is refused by the default budget of 20
    assert DEFAULT_MAX_INVOCATIONS == 20
    env.with_recorder("test.idem", fail_times=1000)
    steps_ = [
        capability_step("s0", "test.idem", max_attempts=100),
        capability_step("s1", "test.idem2", depends_on=["s0"]),
    ]
    submitted = env.submit(draft(steps_), alternatives=[_chain(1, strategy="read_only_diagnosis")])
    env.drain()
    assert len(env.journal("test.idem")) == 20
    assert env.plan(submitted.plan_id)["invocations"] == 20
    _assert_stopped(env, submitted, "budget.capability_invocations", ran=0, total=2)
    assert len(env.plans_of(submitted.intention_id)) == 1
    assert env.journal("test.idem2") == []


def test_an_explicit_invocation_budget(env: RulesEnv) -> None:
    env.with_recorder("test.idem", fail_times=2)
    steps_ = [
        capability_step("s0", "test.idem", max_attempts=3),
        capability_step("s1", "test.idem2", depends_on=["s0"]),
        capability_step("s2", "test.idem2", depends_on=["s1"]),
    ]
    submitted = env.submit(draft(steps_, budget={"max_capability_invocations": 4}))
    env.drain()
    # s0: two failures and a success (3 invocations); s1 the fourth; s2 would be the fifth
    assert [e["failed"] for e in env.journal("test.idem")] == [True, True, False]
    assert len(env.journal("test.idem2")) == 1
    _assert_stopped(env, submitted, "budget.capability_invocations", ran=2, total=3)


def test_wall_seconds(env: RulesEnv) -> None:
    steps_ = [
        capability_step("s0", "test.idem"),
        {"key": "s1", "kind": "wait", "depends_on": ["s0"], "wait": {"seconds": 200}},
        capability_step("s2", "test.idem", depends_on=["s1"]),
    ]
    submitted = env.submit(draft(steps_, budget={"max_wall_seconds": 100}))
    env.run()
    assert env.step(submitted.plan_id, "s1")["status"] == StepStatus.WAITING
    env.advance(200)
    env.run()
    assert len(env.journal("test.idem")) == 1  # s2 never acted
    # the wall_deadline timer (due at submission + 100 s) fires before the wait's step is
    # claimed again: the waiting step is cancelled with the rest
    _assert_stopped(env, submitted, "budget.wall_seconds", ran=1, total=3)


def test_money(env: RulesEnv) -> None:
    env.with_recorder("test.idem", result={"money": 3})
    submitted = env.submit(_chain(4, budget={"max_money": 5}))
    env.run()
    # 3 spent < 5: the second step may act; 6 spent >= 5: the third may not
    assert len(env.journal("test.idem")) == 2
    assert env.plan(submitted.plan_id)["money_spent"] == pytest.approx(6)
    _assert_stopped(env, submitted, "budget.money", ran=2, total=4)


def test_human_approvals(env: RulesEnv) -> None:
    submitted = env.submit(_chain(3, "test.approve", budget={"max_human_approvals": 1}))
    env.run()
    (approval,) = list_approvals(env.ex)
    decide(env.ex, str(approval["id"]), approve=True, by="principal:bob")
    env.run()
    assert len(env.journal("test.approve")) == 1
    assert env.plan(submitted.plan_id)["approvals_requested"] == 1
    assert len(env.approvals(submitted.plan_id)) == 1  # the second was never asked
    _assert_stopped(env, submitted, "budget.human_approvals", ran=1, total=3)


def test_wall_seconds_run_out_while_the_plan_waits(env: RulesEnv) -> None:
    # every non-terminal state has an owner and a timeout: the wall budget is one
    submitted = env.submit(_chain(2, "test.approve", budget={"max_wall_seconds": 100}))
    env.run()
    (approval,) = list_approvals(env.ex)
    env.advance(101)
    env.run()  # a worker fires due timers
    assert env.approvals(submitted.plan_id)[0]["status"] == "withdrawn"
    assert str(approval["id"]) == env.approvals(submitted.plan_id)[0]["id"]
    _assert_stopped(env, submitted, "budget.wall_seconds", ran=0, total=2)
