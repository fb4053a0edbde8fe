"""Expectations become predictions; verify steps resolve them; a miss replans (plans.md 2, 4, 6).

A completed step with an expectation opens a prediction due ``within_seconds`` after the
completion. A ``verify`` step polls its check every ``interval_seconds`` (a durable
``next_run_at``, no worker held): the check holding confirms the prediction; ``within_seconds``
passing misses it, halves the belief it rests on, fails the step and replans the plan: a new
revision supersedes the old one, which is kept (``superseded``) with its open approvals
withdrawn and open steps cancelled. A strategy that failed is never reused, and replanning
stops at ``max_replans``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cerebri.execution import ApprovalError, decide
from cerebri.execution.context import NS
from cerebri.execution.store.schema import intentions
from cerebri.execution.store.vocabulary import (
    ApprovalStatus,
    IntentionStatus,
    PredictionStatus,
)
from cerebri.plans import PlanStatus, StepStatus
from tests.execution.rules_support import (
    RulesEnv,
    capability_step,
    draft,
    open_env,
    probe_check,
    rows,
    wire,
)

WITHIN = 60
INTERVAL = 10


@pytest.fixture
def env(store_url: str, tmp_path: Path) -> Iterator[RulesEnv]:
    yield from open_env(store_url, tmp_path)


def _verified(extra: list[dict[str, Any]] = (), **fields: Any) -> dict[str, Any]:  # type: ignore[assignment]
    expectation = {
        "description": "the probe reports ok",
        "confidence": 0.9,
        "within_seconds": WITHIN,
        "belief_id": "b1",
    }
    verify = {
        "key": "verify",
        "kind": "verify",
        "depends_on": ["act"],
        "verify": {
            "of": "act",
            "check": probe_check(True),
            "within_seconds": WITHIN,
            "interval_seconds": INTERVAL,
        },
    }
    return draft([capability_step("act", expectation=expectation), verify, *extra], **fields)


def _diagnosis() -> dict[str, Any]:
    return draft([capability_step("look", "test.probe")], strategy="read_only_diagnosis")


def test_a_completed_expectation_opens_a_prediction_and_verify_polls(env: RulesEnv) -> None:
    t0 = env.now()
    plan_id = env.submit(_verified()).plan_id
    env.run()
    act, verify = env.step(plan_id, "act"), env.step(plan_id, "verify")
    assert act["status"] == StepStatus.COMPLETED
    (prediction,) = env.predictions(plan_id)
    assert prediction["status"] == PredictionStatus.OPEN
    assert prediction["step_id"] == act["id"] == env.step(plan_id, "act")["id"]
    assert act["prediction_id"] == prediction["id"]
    assert prediction["due_at"] == act["finished_at"] + WITHIN * NS == t0 + WITHIN * NS
    # the check does not hold yet: the verify step waits for its next poll, holding nothing
    assert verify["status"] == StepStatus.WAITING
    assert verify["next_run_at"] == t0 + INTERVAL * NS
    assert verify["lease_token"] is None
    assert env.run().claims == 0  # not due before the interval passes


def test_verify_confirms_the_prediction_when_the_check_holds(env: RulesEnv) -> None:
    env.set_belief("b1", 0.8)
    plan_id = env.submit(_verified()).plan_id
    env.run()
    env.probe.ok = True
    t1 = env.advance(INTERVAL)
    env.run()
    (prediction,) = env.predictions(plan_id)
    assert prediction["status"] == PredictionStatus.CONFIRMED
    assert prediction["resolved_at"] == t1
    assert env.step(plan_id, "verify")["status"] == StepStatus.COMPLETED
    assert env.belief("b1") == pytest.approx(0.9)  # halfway to 1
    assert env.plan(plan_id)["status"] == PlanStatus.COMPLETED


def _miss(env: RulesEnv, plan_id: str) -> int:
    """Run the plan and poll until ``within_seconds`` passed; the instant of the miss."""
    env.run()
    for polls in range(1, WITHIN // INTERVAL):
        env.advance(INTERVAL)
        env.run()
        verify = env.step(plan_id, "verify")
        assert verify["status"] == StepStatus.WAITING, polls
        assert verify["next_run_at"] == env.now() + INTERVAL * NS
    missed_at = env.advance(INTERVAL)
    env.run()
    return missed_at


def test_a_missed_prediction_weakens_the_belief_and_replans(env: RulesEnv) -> None:
    env.set_belief("b1", 0.8)
    t0 = env.now()
    first = env.submit(_verified(), alternatives=[_diagnosis()])
    missed_at = _miss(env, first.plan_id)
    assert missed_at == t0 + WITHIN * NS
    (prediction,) = env.predictions(first.plan_id)
    assert prediction["status"] == PredictionStatus.MISSED
    assert prediction["resolved_at"] == missed_at
    assert env.belief("b1") == pytest.approx(0.4)  # halved
    verify = env.step(first.plan_id, "verify")
    assert verify["status"] == StepStatus.FAILED
    assert verify["status_reason"].startswith("prediction_missed")
    old, new = env.plans_of(first.intention_id)
    # the old revision is kept as history, superseded by the new one
    assert old["id"] == first.plan_id and old["revision"] == 1
    assert old["status"] == PlanStatus.SUPERSEDED
    assert old["superseded_by"] == new["id"]
    assert "prediction_missed" in old["status_reason"]
    assert old["closed_at"] == missed_at
    assert new["revision"] == 2 and new["supersedes"] == old["id"]
    assert wire(new["draft"])["strategy"] == "read_only_diagnosis"
    assert env.step(first.plan_id, "act")["status"] == StepStatus.COMPLETED  # history kept
    assert env.history(verify["id"])  # its attempts too
    # the new revision ran and fulfilled the intention
    assert new["status"] == PlanStatus.COMPLETED
    assert env.intention(first.intention_id)["status"] == IntentionStatus.FULFILLED


def test_replanning_withdraws_open_approvals_and_cancels_open_steps(env: RulesEnv) -> None:
    ask = capability_step("ask", "test.approve")
    first = env.submit(_verified([ask]), alternatives=[_diagnosis()])
    env.run()
    (approval,) = env.approvals(first.plan_id)
    asking = env.step(first.plan_id, "ask")
    assert approval["status"] == ApprovalStatus.OPEN
    assert asking["status"] == StepStatus.AWAITING_APPROVAL
    missed_at = _miss(env, first.plan_id)
    (approval,) = env.approvals(first.plan_id)
    assert approval["status"] == ApprovalStatus.WITHDRAWN
    assert approval["decided_at"] == missed_at
    asking = env.step(first.plan_id, "ask")
    assert asking["status"] == StepStatus.CANCELLED
    assert asking["next_run_at"] is None and asking["lease_token"] is None
    (subordinate,) = rows(env.engine, intentions, intentions.c.parent_step_id == asking["id"])
    assert subordinate["status"] == IntentionStatus.ABANDONED
    assert env.plan(first.plan_id)["status"] == PlanStatus.SUPERSEDED
    assert env.plan(first.plan_id)["open_steps"] == 0
    with pytest.raises(ApprovalError) as caught:
        decide(env.ex, approval["id"], approve=True, by="principal:bob")
    assert caught.value.code == "approval.not_open"
    assert env.journal("test.approve") == []


def _failing(strategy: str) -> dict[str, Any]:
    return draft([capability_step("boom", "test.effect")], strategy=strategy)


def test_a_failed_strategy_is_never_reused(env: RulesEnv) -> None:
    env.with_recorder("test.effect", fail_times=100, retryable=False)
    alternatives = [
        _failing("direct_action_verified"),  # the same strategy again: never chosen
        _failing("escalation"),
        _failing("read_only_diagnosis"),
    ]
    first = env.submit(_failing("direct_action_verified"), alternatives=alternatives)
    env.run()
    revisions = env.plans_of(first.intention_id)
    strategies = [wire(p["draft"])["strategy"] for p in revisions]
    # preferred order of section 4, each strategy once
    assert strategies == ["direct_action_verified", "read_only_diagnosis", "escalation"]
    assert [p["status"] for p in revisions] == ["superseded", "superseded", "failed"]
    assert [p["revision"] for p in revisions] == [1, 2, 3]
    assert [p["supersedes"] for p in revisions] == [None, revisions[0]["id"], revisions[1]["id"]]
    assert "no strategy left" in revisions[-1]["status_reason"]
    assert len(env.journal("test.effect")) == 3
    assert env.intention(first.intention_id)["status"] == IntentionStatus.ABANDONED


@pytest.mark.parametrize("max_replans", [0, 1])
def test_replanning_stops_at_max_replans(env: RulesEnv, max_replans: int) -> None:
    env.with_recorder("test.effect", fail_times=100, retryable=False)
    alternatives = [_failing("read_only_diagnosis"), _failing("escalation")]
    first = env.submit(
        _failing("direct_action_verified"), alternatives=alternatives, max_replans=max_replans
    )
    env.run()
    revisions = env.plans_of(first.intention_id)
    assert len(revisions) == max_replans + 1
    last = revisions[-1]
    assert last["status"] == PlanStatus.FAILED
    assert "max_replans" in last["status_reason"]
    assert last["superseded_by"] is None
    assert len(env.journal("test.effect")) == max_replans + 1
    intention = env.intention(first.intention_id)
    assert intention["status"] == IntentionStatus.ABANDONED
    assert "max_replans" in intention["status_reason"]


def test_a_prediction_is_not_confirmed_after_it_was_due(env: RulesEnv) -> None:
    t0 = env.now()
    late = _verified()
    late["steps"].insert(1, {"key": "pause", "kind": "wait", "wait": {"seconds": 30}})
    late["steps"][2]["depends_on"] = ["act", "pause"]
    plan_id = env.submit(late).plan_id
    env.run()  # act completes at t0, its prediction due at t0+60
    env.advance(30)
    env.run()  # the pause ends; verify starts polling at t0+30
    assert env.step(plan_id, "verify")["status"] == StepStatus.WAITING
    while env.now() < t0 + (WITHIN + INTERVAL) * NS:
        env.advance(INTERVAL)
        env.run()
    env.probe.ok = True  # the expected state shows up only after the prediction was due
    env.advance(INTERVAL)
    env.run()
    (prediction,) = env.predictions(plan_id)
    assert prediction["due_at"] == t0 + WITHIN * NS
    assert prediction["status"] == PredictionStatus.MISSED
