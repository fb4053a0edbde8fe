"""Approvals are durable rows: ``open → approved | rejected | expired | withdrawn`` (plans.md 6).

Waiting for one forms a subordinate intention and blocks the parent step with the reason,
holding no worker. The author of the plan may not approve it; a request expires and fails
closed; an approval is consumed once (``consumed_at``, a conditional update); the requester
may withdraw its own open request.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cerebri.execution import ApprovalError, claim, decide, expire_due, withdraw
from cerebri.execution.context import NS
from cerebri.execution.store.schema import attempts, intentions
from cerebri.execution.store.vocabulary import ApprovalStatus, IntentionStatus
from cerebri.plans import PlanStatus, StepStatus
from tests.execution.rules_support import RulesEnv, capability_step, draft, open_env, rows

ALICE = "principal:alice"
BOB = "principal:bob"
TTL = 3600


@pytest.fixture
def env(store_url: str, tmp_path: Path) -> Iterator[RulesEnv]:
    for env in open_env(store_url, tmp_path):
        env.with_executor(approval_ttl_seconds=TTL)
        yield env


def _asking(env: RulesEnv, **step: Any) -> tuple[str, str]:
    """Submit ask (needs approval) → after, as ALICE, and run: (plan id, intention id)."""
    submitted = env.submit(
        draft(
            [
                capability_step("ask", "test.approve", **step),
                capability_step("after", "test.idem", depends_on=["ask"]),
            ]
        ),
        requester=ALICE,
    )
    env.run()
    return submitted.plan_id, submitted.intention_id


def _only_approval(env: RulesEnv, plan_id: str) -> dict[str, Any]:
    (approval,) = env.approvals(plan_id)
    return approval


def _subordinate(env: RulesEnv, step_id: str) -> dict[str, Any]:
    (row,) = rows(env.engine, intentions, intentions.c.parent_step_id == step_id)
    return row


def test_waiting_for_approval_holds_no_worker_and_forms_a_subordinate_intention(
    env: RulesEnv,
) -> None:
    t0 = env.now()
    plan_id, _ = _asking(env)
    approval = _only_approval(env, plan_id)
    step = env.step(plan_id, "ask")
    assert step["status"] == StepStatus.AWAITING_APPROVAL
    assert approval["id"] in step["status_reason"]
    assert step["lease_token"] is None and step["lease_until"] is None
    assert step["next_run_at"] is None
    assert rows(env.engine, attempts, attempts.c.step_id == step["id"]) == []
    assert claim(env.ex, "worker:t") is None
    assert approval["status"] == ApprovalStatus.OPEN
    assert approval["step_id"] == step["id"] and step["approval_id"] == approval["id"]
    assert approval["requester"] == ALICE
    assert approval["expires_at"] == t0 + TTL * NS
    subordinate = _subordinate(env, step["id"])
    assert subordinate["status"] == IntentionStatus.OPEN
    assert step["intention_id"] == subordinate["id"]
    assert env.plan(plan_id)["status"] == PlanStatus.AWAITING_APPROVAL
    assert env.journal("test.approve") == []


def test_an_approval_readies_the_step_and_is_consumed_once(env: RulesEnv) -> None:
    plan_id, intention_id = _asking(env)
    approval = _only_approval(env, plan_id)
    t1 = env.advance(5)
    decided = decide(env.ex, approval["id"], approve=True, by=BOB)
    assert decided["status"] == ApprovalStatus.APPROVED and decided["decided_by"] == BOB
    step = env.step(plan_id, "ask")
    assert step["status"] == StepStatus.READY and step["next_run_at"] == t1
    assert _subordinate(env, step["id"])["status"] != IntentionStatus.OPEN
    assert _only_approval(env, plan_id)["consumed_at"] is None  # consumed when used
    t2 = env.advance(5)
    env.run()
    assert _only_approval(env, plan_id)["consumed_at"] == t2
    assert len(env.journal("test.approve")) == 1
    assert env.plan(plan_id)["status"] == PlanStatus.COMPLETED
    assert env.intention(intention_id)["status"] == IntentionStatus.FULFILLED
    for by, approve in ((BOB, True), (BOB, False)):
        with pytest.raises(ApprovalError) as caught:
            decide(env.ex, approval["id"], approve=approve, by=by)
        assert caught.value.code == "approval.not_open"
    with pytest.raises(ApprovalError) as caught:
        withdraw(env.ex, approval["id"], by=ALICE)
    assert caught.value.code == "approval.not_open"


def test_a_retry_under_an_approval_does_not_consume_it_again(env: RulesEnv) -> None:
    env.with_recorder("test.approve", fail_times=1)
    plan_id, _ = _asking(env, max_attempts=2)
    decide(env.ex, _only_approval(env, plan_id)["id"], approve=True, by=BOB)
    used = env.now()
    env.run()
    assert env.step(plan_id, "ask")["status"] == StepStatus.READY  # a retry is due
    env.advance(5)
    env.run()
    assert env.step(plan_id, "ask")["status"] == StepStatus.COMPLETED
    assert _only_approval(env, plan_id)["consumed_at"] == used
    assert [e["failed"] for e in env.journal("test.approve")] == [True, False]
    assert len(env.approvals(plan_id)) == 1


def test_a_rejection_fails_the_step(env: RulesEnv) -> None:
    plan_id, intention_id = _asking(env)
    approval = _only_approval(env, plan_id)
    decided = decide(env.ex, approval["id"], approve=False, by=BOB, reason="not now")
    assert decided["status"] == ApprovalStatus.REJECTED
    step = env.step(plan_id, "ask")
    assert step["status"] == StepStatus.FAILED
    assert "rejected" in step["status_reason"]
    assert env.step(plan_id, "after")["status"] == StepStatus.CANCELLED
    assert env.plan(plan_id)["status"] == PlanStatus.FAILED  # no strategy left to replan
    assert env.intention(intention_id)["status"] == IntentionStatus.ABANDONED
    env.run()
    assert env.journal("test.approve") == []
    assert _only_approval(env, plan_id)["consumed_at"] is None


def test_the_requester_may_not_approve_its_own_request(env: RulesEnv) -> None:
    plan_id, _ = _asking(env)
    approval = _only_approval(env, plan_id)
    with pytest.raises(ApprovalError) as caught:
        decide(env.ex, approval["id"], approve=True, by=ALICE)
    assert caught.value.code == "approval.self_approval"
    assert _only_approval(env, plan_id)["status"] == ApprovalStatus.OPEN
    assert env.step(plan_id, "ask")["status"] == StepStatus.AWAITING_APPROVAL
    env.run()
    assert env.journal("test.approve") == []


def test_approving_after_expiry_fails_closed(env: RulesEnv) -> None:
    plan_id, intention_id = _asking(env)
    approval = _only_approval(env, plan_id)
    env.advance(TTL + 1)
    with pytest.raises(ApprovalError) as caught:
        decide(env.ex, approval["id"], approve=True, by=BOB)
    assert caught.value.code == "approval.expired"
    expired = _only_approval(env, plan_id)
    assert expired["status"] == ApprovalStatus.EXPIRED  # recorded although decide raised
    assert expired["decided_by"] is None
    step = env.step(plan_id, "ask")
    assert step["status"] == StepStatus.FAILED
    assert "expired" in step["status_reason"]
    assert _subordinate(env, step["id"])["status"] == IntentionStatus.ABANDONED
    assert env.plan(plan_id)["status"] == PlanStatus.FAILED
    assert env.intention(intention_id)["status"] == IntentionStatus.ABANDONED
    env.run()
    assert env.journal("test.approve") == []


def test_expire_due_fires_the_expiry_timer(env: RulesEnv) -> None:
    t0 = env.now()
    plan_id, _ = _asking(env)
    env.advance(TTL - 1)
    assert expire_due(env.ex) == 0
    assert _only_approval(env, plan_id)["status"] == ApprovalStatus.OPEN
    env.advance(1)
    assert expire_due(env.ex) == 1
    approval = _only_approval(env, plan_id)
    assert approval["status"] == ApprovalStatus.EXPIRED
    assert approval["decided_at"] == t0 + TTL * NS
    assert env.step(plan_id, "ask")["status"] == StepStatus.FAILED
    assert expire_due(env.ex) == 0
    assert env.journal("test.approve") == []


def test_a_worker_fires_due_expiry_timers(env: RulesEnv) -> None:
    plan_id, _ = _asking(env)
    env.advance(TTL)
    assert env.run().timers_fired == 1
    assert _only_approval(env, plan_id)["status"] == ApprovalStatus.EXPIRED
    assert env.step(plan_id, "ask")["status"] == StepStatus.FAILED


def test_only_the_requester_may_withdraw_and_the_plan_is_abandoned(env: RulesEnv) -> None:
    plan_id, intention_id = _asking(env)
    approval = _only_approval(env, plan_id)
    with pytest.raises(ApprovalError) as caught:
        withdraw(env.ex, approval["id"], by=BOB)
    assert caught.value.code == "approval.not_requester"
    assert _only_approval(env, plan_id)["status"] == ApprovalStatus.OPEN
    withdrawn = withdraw(env.ex, approval["id"], by=ALICE)
    assert withdrawn["status"] == ApprovalStatus.WITHDRAWN
    steps_ = env.steps(plan_id)
    assert [s["status"] for s in steps_.values()] == [StepStatus.CANCELLED] * 2
    assert _subordinate(env, steps_["ask"]["id"])["status"] == IntentionStatus.ABANDONED
    plan = env.plan(plan_id)
    assert plan["status"] == PlanStatus.ABANDONED and plan["superseded_by"] is None
    assert plan["open_steps"] == 0
    assert env.intention(intention_id)["status"] == IntentionStatus.ABANDONED
    with pytest.raises(ApprovalError) as caught:
        decide(env.ex, approval["id"], approve=True, by=BOB)
    assert caught.value.code == "approval.not_open"
    env.run()
    assert env.journal("test.approve") == []
