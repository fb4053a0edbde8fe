"""Approve racing withdraw has one winner (issue #21 item 3, decision 0034), on SQLite and
PostgreSQL, with two real processes meeting at a barrier before every round.

Each round is one open approval of a governed plan. Exactly one side wins; the loser is refused
``approval.not_open`` and changes nothing; the approval's status, its step and its plan show
the winner only; and after the worker drains, exactly the approved plans acted (the adapter's
own journal), the withdrawn ones never.
"""

from __future__ import annotations

import multiprocessing
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cerebri.execution import (
    add_principal,
    decide,
    decision_payload,
    grant,
    register_key,
    submit_envelope,
)
from cerebri.plans import PlanStatus, StepStatus
from cerebri.proposals import (
    APPROVAL_PAYLOAD_TYPE,
    artifact_for,
    canonical_json,
    parse_subject,
    propose,
    sign,
)
from cerebri.temporal import Instant
from tests.execution._approval_race import ALICE, BOB, key_of, race
from tests.execution.rules_support import START, RulesEnv, capability_step, draft, open_env

pytestmark = pytest.mark.processes

ROUNDS = 100


@pytest.fixture
def env(store_url: str, tmp_path: Path) -> Iterator[RulesEnv]:
    for env in open_env(store_url, tmp_path):
        env.with_executor(approval_ttl_seconds=3600)
        add_principal(env.ex, ALICE, roles=["requester"])
        add_principal(env.ex, BOB, roles=["approver"])
        register_key(env.ex, ALICE, keyid="alice", public_key=key_of("alice").public_key())
        register_key(env.ex, BOB, keyid="bob", public_key=key_of("bob").public_key())
        grant(env.ex, ALICE, "test.approve")
        yield env


def _ask(env: RulesEnv, count: int) -> list[tuple[str, str]]:
    """``count`` plans of one ``test.approve`` step each (``n`` tells them apart in the
    journal), signed by alice and run until each asks: ``[(plan id, approval id)]``."""
    plan_ids = []
    for n in range(count):
        body = canonical_json(
            draft([capability_step("act", "test.approve", params={"calendar_id": "work", "n": n})])
        )
        envelope = propose(
            artifact_for(body),
            "cerebri.plan-graph.v1",
            author=parse_subject(ALICE),
            author_node_id="test",
            query_id="q",
            room_id="room",
            turn_id="turn",
            class_key="Personal",
            executor_mode="plan-executor",
            proposed_at=START,
            expires_at=Instant(START.ns + 86_400 * 10**9),
            idempotency_key=f"race-{n}",
            signing_keys=[(key_of("alice"), "alice")],
        )
        plan_ids.append(submit_envelope(env.ex, envelope, artifact=body).plan_id)
    env.run()
    asked = []
    for plan_id in plan_ids:
        [approval] = env.approvals(plan_id)
        assert approval["status"] == "open"
        asked.append((plan_id, approval["id"]))
    return asked


def _race(store_url: str, now_ns: int, approval_ids: list[str]) -> list[tuple[str, str, str]]:
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(2)
    results = context.Queue()
    sides = [
        context.Process(
            target=race, args=(side, store_url, now_ns, approval_ids, (barrier, results))
        )
        for side in ("approve", "withdraw")
    ]
    for process in sides:
        process.start()
    outcomes = [results.get(timeout=300) for _ in range(2 * len(approval_ids))]
    for process in sides:
        process.join(timeout=60)
        assert process.exitcode == 0
    return outcomes


def test_approve_racing_withdraw_has_one_winner(env: RulesEnv, store_url: str) -> None:
    asked = _ask(env, ROUNDS)
    outcomes = _race(store_url, env.now(), [approval_id for _, approval_id in asked])
    by_approval: dict[str, dict[str, str]] = {}
    for side, approval_id, outcome in outcomes:
        by_approval.setdefault(approval_id, {})[side] = outcome
    approved: set[str] = set()
    for plan_id, approval_id in asked:
        sides = by_approval[approval_id]
        winners = [side for side, outcome in sides.items() if outcome == "ok"]
        assert len(winners) == 1, (approval_id, sides)
        [loser] = set(sides) - set(winners)
        assert sides[loser] == "approval.not_open", (approval_id, sides)
        [approval] = env.approvals(plan_id)
        step = env.step(plan_id, "act")
        if winners == ["approve"]:
            approved.add(plan_id)
            assert approval["status"] == "approved"
            assert step["status"] == StepStatus.READY.value
        else:
            assert approval["status"] == "withdrawn"
            assert step["status"] == StepStatus.CANCELLED.value
            assert env.plan(plan_id)["status"] == PlanStatus.ABANDONED.value
    env.drain()
    acted = sorted(entry["params"]["n"] for entry in env.journal("test.approve"))  # type: ignore[index]
    expected = sorted(n for n, (plan_id, _) in enumerate(asked) if plan_id in approved)
    assert acted == expected
    for plan_id, _ in asked:
        status = env.plan(plan_id)["status"]
        want = PlanStatus.COMPLETED if plan_id in approved else PlanStatus.ABANDONED
        assert status == want.value, plan_id


def test_the_loser_on_the_command_line_exits_2(env: RulesEnv, store_url: str) -> None:
    """The CLI answers a lost race (here: withdrawing what bob approved) with one
    ``error approval.not_open`` line and exit 2, the store unchanged."""
    [(plan_id, approval_id)] = _ask(env, 1)
    payload = decision_payload(env.ex, approval_id, decision="approve", by=BOB)
    signature = sign(APPROVAL_PAYLOAD_TYPE, payload, key_of("bob"), "bob").sig
    decide(env.ex, approval_id, approve=True, by=BOB, keyid="bob", signature=signature)
    done = _cli(store_url, "approvals", "withdraw", approval_id, "--as", ALICE)
    assert done.returncode == 2, done
    [line] = done.stderr.splitlines()
    assert line.startswith("error approval.not_open"), line
    assert env.approvals(plan_id)[0]["status"] == "approved"


def _cli(store_url: str, *args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-c", "from cerebri.cli import main; main()", *args]
    env: dict[str, Any] = {"CEREBRI_STORE": store_url, "PATH": "/usr/bin:/bin"}
    return subprocess.run(
        command, capture_output=True, text=True, timeout=120, env=env, check=False
    )
