"""One approval covers the effects after it that only the plan asks approval for (decision
0056): under a plan's ``require_approval``, an effect that depends on a step whose approval
was consumed acts on that approval; an effect with no approved ancestor, or whose capability
requires approval itself, still asks."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from cerebri.execution import ApprovalError, decide
from cerebri.plans import StepStatus
from tests.execution.rules_support import RulesEnv, capability_step, draft, open_env

ALICE, BOB = "principal:alice", "principal:bob"


@pytest.fixture
def env(store_url: str, tmp_path: Path) -> Iterator[RulesEnv]:
    yield from open_env(store_url, tmp_path)


def _asked(env: RulesEnv, plan_id: str) -> dict[str, str]:
    """The step key of every approval of the plan -> its status."""
    keys = {row["id"]: key for key, row in env.steps(plan_id).items()}
    return {keys[a["step_id"]]: a["status"] for a in env.approvals(plan_id)}


def test_an_approval_covers_what_depends_on_it_and_nothing_else(env: RulesEnv) -> None:
    plan_id = env.submit(
        draft(
            [
                capability_step("ask", "test.approve"),
                capability_step("after", "test.effect", depends_on=["ask"]),
                capability_step("later", "test.idem", depends_on=["after"]),
                capability_step("apart", "test.idem2"),
                capability_step("again", "test.approve", depends_on=["ask"]),
            ],
            require_approval=True,
        ),
        requester=ALICE,
    ).plan_id
    env.run()
    assert _asked(env, plan_id) == {"ask": "open", "apart": "open"}
    ask = next(a for a in env.approvals(plan_id) if a["step_id"] == env.step(plan_id, "ask")["id"])
    decide(env.ex, ask["id"], approve=True, by=BOB)
    env.run()
    steps = env.steps(plan_id)
    assert {k: steps[k]["status"] for k in ("ask", "after", "later")} == dict.fromkeys(
        ("ask", "after", "later"), StepStatus.COMPLETED
    )
    assert (len(env.journal("test.effect")), len(env.journal("test.idem"))) == (1, 1)
    # not downstream of the approval: asks; its capability requires approval: asks
    assert _asked(env, plan_id) == {"ask": "approved", "apart": "open", "again": "open"}
    assert env.journal("test.idem2") == []


def _gate(key: str, **fields: object) -> dict[str, object]:
    """An approval gate (decision 0076)."""
    return {
        "key": key,
        "kind": "internal",
        "internal": {"action": "await_approval"},
        "require_approval": True,
        **fields,
    }


def _approval_of(env: RulesEnv, plan_id: str, key: str) -> dict[str, object]:
    step_id = env.step(plan_id, key)["id"]
    return next(a for a in env.approvals(plan_id) if a["step_id"] == step_id)


def test_gates_cover_effects_whose_capability_requires_approval(env: RulesEnv) -> None:
    carol, dan = "principal:carol", "principal:dan"
    plan_id = env.submit(
        draft(
            [
                _gate("batch"),
                _gate("owner", approver=BOB, depends_on=["batch"]),
                capability_step("write", "test.approve", depends_on=["batch", "owner"]),
                capability_step(
                    "own", "test.approve", depends_on=["batch", "owner"], require_approval=True
                ),
            ],
            require_approval=True,
        ),
        requester=ALICE,
    ).plan_id
    env.run()
    assert _asked(env, plan_id) == {"batch": "open"}  # one at a time, the batch first
    decide(env.ex, _approval_of(env, plan_id, "batch")["id"], approve=True, by=carol)
    env.run()
    assert _asked(env, plan_id) == {"batch": "approved", "owner": "open"}
    owner = _approval_of(env, plan_id, "owner")
    assert json.loads(str(owner["request"]))["approver"] == BOB
    for other in (carol, dan):  # approvers both, but not the owner
        with pytest.raises(ApprovalError) as refused:
            decide(env.ex, str(owner["id"]), approve=True, by=other)
        assert refused.value.code == "approval.not_approver"
    assert env.journal("test.approve") == []  # nothing acted before both approvals
    decide(env.ex, str(owner["id"]), approve=True, by=BOB)
    env.run()
    steps = env.steps(plan_id)
    assert steps["write"]["status"] == StepStatus.COMPLETED  # covered: asked nobody
    assert json.loads(steps["owner"]["result"]) == {"approval": owner["id"], "decided_by": BOB}
    # its own require_approval still asks, though its capability is covered
    assert _asked(env, plan_id) == {"batch": "approved", "owner": "approved", "own": "open"}
    assert len(env.journal("test.approve")) == 1


def test_a_rejected_gate_leaves_every_effect_undone(env: RulesEnv) -> None:
    plan_id = env.submit(
        draft(
            [_gate("batch"), capability_step("write", "test.effect", depends_on=["batch"])],
            require_approval=True,
        ),
        requester=ALICE,
    ).plan_id
    env.run()
    decide(env.ex, _approval_of(env, plan_id, "batch")["id"], approve=False, by=BOB)
    env.run()
    assert env.steps(plan_id)["batch"]["status"] == StepStatus.FAILED
    assert env.steps(plan_id)["write"]["status"] != StepStatus.COMPLETED
    assert env.journal("test.effect") == []


def test_an_effect_naming_its_approver_is_decided_by_that_principal_only(env: RulesEnv) -> None:
    plan_id = env.submit(
        draft([capability_step("write", "test.effect", require_approval=True, approver=BOB)]),
        requester=ALICE,
    ).plan_id
    env.run()
    asked = _approval_of(env, plan_id, "write")
    with pytest.raises(ApprovalError) as refused:
        decide(env.ex, str(asked["id"]), approve=True, by="principal:carol")
    assert refused.value.code == "approval.not_approver"
    decide(env.ex, str(asked["id"]), approve=True, by=BOB)
    env.run()
    assert env.steps(plan_id)["write"]["status"] == StepStatus.COMPLETED
    assert len(env.journal("test.effect")) == 1
