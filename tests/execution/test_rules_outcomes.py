"""Which plans act and what their completion means (plans.md sections 4 and 6).

* A completed ``escalation`` does not fulfil its intention (it only informs the operator);
  a completed ``direct_action_verified`` plan does, and becomes a procedural memory.
* Plans of origin ``dream`` never act; any plan of a disabled sandbox never acts.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from cerebri.execution import ExecutionError, claim
from cerebri.execution.store.vocabulary import IntentionStatus
from cerebri.plans import PlanStatus, StepStatus
from tests.execution.rules_support import RulesEnv, capability_step, draft, open_env, wire


@pytest.fixture
def env(store_url: str, tmp_path: Path) -> Iterator[RulesEnv]:
    yield from open_env(store_url, tmp_path)


def test_a_completed_escalation_does_not_fulfil_the_intention(env: RulesEnv) -> None:
    submitted = env.submit(draft([capability_step("tell", "test.idem")], strategy="escalation"))
    env.run()
    plan = env.plan(submitted.plan_id)
    assert plan["status"] == PlanStatus.COMPLETED
    assert "escalation" in plan["status_reason"]
    assert "not fulfilled" in plan["status_reason"]
    intention = env.intention(submitted.intention_id)
    assert intention["status"] == IntentionStatus.OPEN
    assert intention["closed_at"] is None
    assert submitted.plan_id in intention["status_reason"]


def test_a_completed_direct_action_fulfils_it_and_is_remembered(env: RulesEnv) -> None:
    steps_ = [capability_step("act", "test.idem"), capability_step("look", "test.probe")]
    plan_draft = draft(steps_)
    submitted = env.submit(plan_draft, goal_key="probe:ok")
    env.run()
    plan = env.plan(submitted.plan_id)
    assert plan["status"] == PlanStatus.COMPLETED
    assert plan["status_reason"] is None
    assert plan["closed_at"] == env.now()
    intention = env.intention(submitted.intention_id)
    assert intention["status"] == IntentionStatus.FULFILLED
    (memory,) = env.memories()
    assert memory["plan_id"] == submitted.plan_id
    assert memory["intention_id"] == submitted.intention_id
    assert memory["goal_key"] == "probe:ok"
    remembered = wire(memory["steps"])
    assert [s["key"] for s in remembered["steps"]] == ["act", "look"]
    assert remembered["strategy"] == "direct_action_verified"


def test_a_dream_plan_never_acts(env: RulesEnv) -> None:
    steps_ = [capability_step("act", "test.idem"), capability_step("look", "test.probe")]
    submitted = env.submit(draft(steps_, origin="dream"))
    assert submitted.status == PlanStatus.VALIDATED
    for _ in range(3):
        assert env.run().claims == 0
        assert claim(env.ex, "worker:t") is None
        env.advance(3600)
    for step in env.steps(submitted.plan_id).values():
        assert step["status"] == StepStatus.PENDING
        assert step["next_run_at"] is None
        assert step["attempts"] == 0
    assert env.journal("test.idem") == []
    assert env.probe.calls == 0
    plan = env.plan(submitted.plan_id)
    assert plan["invocations"] == 0
    assert "dream" in plan["status_reason"]


def test_a_plan_of_a_disabled_sandbox_never_acts(env: RulesEnv) -> None:
    env.add_sandbox("box", enabled=False)
    steps_ = [
        capability_step("idem", "test.idem"),
        capability_step("effect", "test.effect"),
        capability_step("later", "test.idem", depends_on=["idem"]),
    ]
    submitted = env.submit(draft(steps_), sandbox="box")
    env.run()
    env.advance(3600)
    env.run()
    steps_by_key = env.steps(submitted.plan_id)
    for key in ("idem", "effect"):
        step = steps_by_key[key]
        assert step["status"] == StepStatus.BLOCKED
        assert step["status_reason"].startswith("sandbox_disabled")
        assert step["next_run_at"] is None and step["lease_token"] is None
    assert steps_by_key["later"]["status"] == StepStatus.PENDING
    assert env.journal("test.idem") == env.journal("test.effect") == []
    plan = env.plan(submitted.plan_id)
    assert plan["status"] == PlanStatus.BLOCKED
    assert plan["invocations"] == 0


def test_an_enabled_sandbox_acts_and_an_unknown_one_is_refused(env: RulesEnv) -> None:
    env.add_sandbox("box", enabled=True)
    submitted = env.submit(draft([capability_step("idem", "test.idem")]), sandbox="box")
    env.run()
    assert env.plan(submitted.plan_id)["status"] == PlanStatus.COMPLETED
    assert len(env.journal("test.idem")) == 1
    with pytest.raises(ExecutionError) as caught:
        env.submit(draft([capability_step("idem", "test.idem")]), sandbox="nowhere")
    assert caught.value.code == "execution.not_found"
