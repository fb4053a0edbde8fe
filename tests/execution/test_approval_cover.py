"""One approval covers the effects after it that only the plan asks approval for (decision
0056): under a plan's ``require_approval``, an effect that depends on a step whose approval
was consumed acts on that approval; an effect with no approved ancestor, or whose capability
requires approval itself, still asks."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from cerebri.execution import decide
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
