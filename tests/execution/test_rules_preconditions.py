"""Preconditions skip a step when the world already changed (plans.md sections 2 and 6).

A precondition ``{check, satisfied_if_false}`` must hold before a step acts; when it does
not, the step is ``skipped`` (done: its dependants go on) and its effect is never invoked.
With ``satisfied_if_false`` the skip means the desired state already holds.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from cerebri.plans import PlanStatus, StepStatus
from tests.execution.rules_support import RulesEnv, capability_step, draft, open_env, probe_check


@pytest.fixture
def env(store_url: str, tmp_path: Path) -> Iterator[RulesEnv]:
    yield from open_env(store_url, tmp_path)


def _guarded(satisfied_if_false: bool, capability: str = "test.effect") -> dict[str, object]:
    return draft(
        [
            capability_step(
                "act",
                capability,
                precondition={"check": probe_check(True), "satisfied_if_false": satisfied_if_false},
            ),
            capability_step("after", "test.idem", depends_on=["act"]),
        ]
    )


def test_a_precondition_that_holds_lets_the_step_act(env: RulesEnv) -> None:
    env.probe.ok = True
    plan_id = env.submit(_guarded(False)).plan_id
    env.run()
    act = env.step(plan_id, "act")
    assert act["status"] == StepStatus.COMPLETED
    assert [e["origin"] for e in env.journal("test.effect")] == [f"plan_step:{act['id']}"]
    assert env.probe.calls == 1
    assert env.plan(plan_id)["status"] == PlanStatus.COMPLETED


@pytest.mark.parametrize(
    ("satisfied_if_false", "reason", "capability"),
    [(True, "already_satisfied", "test.effect"), (False, "precondition_false", "test.idem")],
)
def test_a_precondition_that_does_not_hold_skips_without_acting(
    env: RulesEnv, satisfied_if_false: bool, reason: str, capability: str
) -> None:
    env.probe.ok = False
    plan_id = env.submit(_guarded(satisfied_if_false, capability)).plan_id
    env.run()
    act = env.step(plan_id, "act")
    assert act["status"] == StepStatus.SKIPPED
    assert act["status_reason"].startswith(reason)
    assert act["next_run_at"] is None and act["lease_token"] is None
    # the precondition was observed once; the effect was never invoked
    assert env.probe.calls == 1
    after = env.step(plan_id, "after")
    invoked = env.journal("test.effect") + env.journal("test.idem")
    assert [e["origin"] for e in invoked] == [f"plan_step:{after['id']}"]
    # a skipped step is done: its dependant ran and the plan completed
    assert after["status"] == StepStatus.COMPLETED
    assert env.plan(plan_id)["status"] == PlanStatus.COMPLETED
    # the precondition's observation and "after" (checks count, as validation counts them);
    # the skipped effect's own count was given back
    assert env.plan(plan_id)["invocations"] == 2
