"""Terminal states are final (plans.md section 5).

Once a plan is closed (completed, or cancelled: abandoned by its operator) no call of the
executor's API changes its rows: not its steps, approvals, intentions, predictions or
memories, and not its counters. A worker still holding a claim from before acts on nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from cerebri.execution import (
    ApprovalError,
    Claim,
    claim,
    decide,
    expire_due,
    heartbeat,
    run_claim,
    withdraw,
)
from cerebri.execution.progress import stop_plan
from cerebri.execution.store.schema import attempts
from cerebri.execution.store.vocabulary import ApprovalStatus
from cerebri.plans import PlanStatus, StepStatus
from tests.execution.rules_support import (
    RulesEnv,
    capability_step,
    changes,
    draft,
    open_env,
    rows,
)

ALICE = "principal:alice"
BOB = "principal:bob"


@pytest.fixture
def env(store_url: str, tmp_path: Path) -> Iterator[RulesEnv]:
    yield from open_env(store_url, tmp_path)


def _claim_key(env: RulesEnv, key: str) -> Claim:
    """Claim due steps, running the others, until ``key`` is held (and not run)."""
    for _ in range(10):
        held = claim(env.ex, "worker:old")
        assert held is not None
        if held.key == key:
            return held
        run_claim(env.ex, held)
    raise AssertionError(f"{key} never claimed")


def _refused(env: RulesEnv, approval_id: str) -> None:
    """Every decision on the approval is refused as not open."""
    for by, approve in ((BOB, True), (BOB, False)):
        with pytest.raises(ApprovalError) as caught:
            decide(env.ex, approval_id, approve=approve, by=by)
        assert caught.value.code == "approval.not_open"
    with pytest.raises(ApprovalError) as caught:
        withdraw(env.ex, approval_id, by=ALICE)
    assert caught.value.code == "approval.not_open"


def _stops_nothing(env: RulesEnv, plan_id: str) -> None:
    for status in (PlanStatus.FAILED, PlanStatus.ABANDONED):
        with env.ex.transaction() as connection:
            assert stop_plan(connection, env.ex, plan_id, status, "again") is None


def _journals(env: RulesEnv) -> list[object]:
    return [env.journal(c) for c in ("test.idem", "test.approve")]


def test_a_completed_plan_is_final(env: RulesEnv) -> None:
    plan_id = env.submit(
        draft(
            [
                capability_step("ask", "test.approve"),
                capability_step("after", "test.idem", depends_on=["ask"]),
            ]
        ),
        requester=ALICE,
    ).plan_id
    env.run()
    (approval,) = env.approvals(plan_id)
    decide(env.ex, approval["id"], approve=True, by=BOB)
    stale = _claim_key(env, "ask")  # a worker that stops before acting
    env.advance(31)  # its lease expires; another worker takes over and finishes the plan
    env.run()
    assert env.plan(plan_id)["status"] == PlanStatus.COMPLETED
    before, journals = env.snapshot(), _journals(env)

    assert heartbeat(env.ex, stale) is False
    run_claim(env.ex, stale)
    _refused(env, approval["id"])
    env.advance(86_400 * 2)  # past the approval's expiry
    expire_due(env.ex)
    assert env.run().claims == 0
    assert claim(env.ex, "worker:new") is None
    _stops_nothing(env, plan_id)

    assert changes(before, env.snapshot()) == []
    assert _journals(env) == journals


def test_a_cancelled_plan_is_final(env: RulesEnv) -> None:
    steps_ = [
        capability_step("ask", "test.approve"),
        capability_step("s0", "test.idem"),
        capability_step("s1", "test.idem", depends_on=["s0"]),
        capability_step("s2", "test.idem", depends_on=["s1"]),
    ]
    submitted = env.submit(draft(steps_), requester=ALICE)
    held = _claim_key(env, "s1")  # s0 and ask ran; s1 is executing when the plan is cancelled
    with env.ex.transaction() as connection:
        stop_plan(connection, env.ex, submitted.plan_id, PlanStatus.ABANDONED, "cancelled",
                  replan=False)  # fmt: skip
    statuses = {k: s["status"] for k, s in env.steps(submitted.plan_id).items()}
    assert statuses == {
        "ask": StepStatus.CANCELLED,
        "s0": StepStatus.COMPLETED,
        "s1": StepStatus.CANCELLED,
        "s2": StepStatus.CANCELLED,
    }
    plan = env.plan(submitted.plan_id)
    assert plan["status"] == PlanStatus.ABANDONED and plan["open_steps"] == 0
    (approval,) = env.approvals(submitted.plan_id)
    assert approval["status"] == ApprovalStatus.WITHDRAWN
    # the attempt s1's worker had open was closed with the step: no open attempt is left
    assert rows(env.engine, attempts) == []
    (interrupted,) = env.history(held.step_id)
    assert interrupted["id"] == held.attempt.id
    assert interrupted["outcome"] == "interrupted"
    before, journals = env.snapshot(), _journals(env)

    assert heartbeat(env.ex, held) is False
    run_claim(env.ex, held)  # the worker that held s1 acts on nothing and records nothing
    _refused(env, approval["id"])
    env.advance(86_400 * 2)
    expire_due(env.ex)
    assert env.run().claims == 0
    _stops_nothing(env, submitted.plan_id)

    assert changes(before, env.snapshot()) == []
    # the stale worker may still call s1's idempotent capability (no round trip checks the
    # lease before an idempotent invocation, decision 0020), but nothing it did is recorded
    idem_before, approve_before = journals
    assert env.journal("test.approve") == approve_before
    stale = env.journal("test.idem")[len(idem_before) :]
    assert [e["idempotency_key"] for e in stale] == [held.idempotency_key]
    assert len(env.journal("test.idem")) == 2  # s0, and the stale call of s1
