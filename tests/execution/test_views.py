"""The operator's Python API over the store: list_plans, show_plan, stuck, cancel_plan,
set_sandbox, recall and resolve_step, on both back ends (FakeClock, sequential ids)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from cerebri.clock import FakeClock, SequentialIds
from cerebri.execution import (
    ExecutionError,
    Executor,
    cancel_plan,
    claim,
    decide,
    list_approvals,
    list_plans,
    list_sandboxes,
    recall,
    resolve_step,
    run_claim,
    run_worker,
    set_sandbox,
    show_plan,
    stuck,
    submit,
)
from cerebri.execution import store as execution_store
from cerebri.execution.adapters import Adapters, RecordingAdapter, ServiceStatusAdapter
from cerebri.plans import Capability, PlanDraft, Risk, builtin_registry
from cerebri.temporal import Instant

START = Instant.parse("2026-12-01T10:00:00Z")
EFFECT = "test.effect"


@dataclass
class World:
    executor: Executor
    clock: FakeClock
    journal: Path

    def work(self) -> None:
        run_worker(self.executor, until_idle=True, poll_seconds=0.01)

    def entries(self) -> list[dict[str, Any]]:
        if not self.journal.exists():
            return []
        lines = self.journal.read_text(encoding="utf-8").splitlines()
        return [json.loads(line) for line in lines]


@pytest.fixture
def world(store_url: str, tmp_path: Path) -> World:
    execution_store.init(store_url)
    clock = FakeClock(START)
    registry = builtin_registry().register(
        Capability(
            name=EFFECT,
            description="a non-idempotent effect for tests",
            params_schema={"type": "object"},
            read_only=False,
            idempotent=False,
            risk=Risk.LOW,
            allowed_by_default=True,
        )
    )
    journal = tmp_path / "journal.jsonl"
    adapters = (
        Adapters()
        .with_adapter(EFFECT, RecordingAdapter(journal, result={"done": True}))
        .with_adapter("service.status", ServiceStatusAdapter({}))  # knows no service
    )
    engine = execution_store.open_engine(execution_store.parse_store_url(store_url))
    executor = Executor(engine, clock, SequentialIds("t"), registry=registry, adapters=adapters)
    return World(executor, clock, journal)


def _draft(*steps: dict[str, Any], strategy: str = "direct_action_verified") -> dict[str, Any]:
    return {
        "objective": "test objective",
        "origin": "operator",
        "strategy": strategy,
        "steps": list(steps),
    }


WAIT_THEN_SUMMARY = _draft(
    {"key": "pause", "kind": "wait", "wait": {"seconds": 5}},
    {
        "key": "summary",
        "kind": "internal",
        "depends_on": ["pause"],
        "internal": {"action": "summarise_findings"},
    },
)
EFFECT_STEP = {"key": "act", "kind": "capability", "capability": EFFECT, "target": "x"}


def _step(shown: dict[str, Any], key: str) -> dict[str, Any]:
    return next(s for s in shown["steps"] if s["key"] == key)


def _entry(entries: list[dict[str, Any]], step_key: str) -> dict[str, Any]:
    return next(e for e in entries if e["kind"] == "step" and e["step_key"] == step_key)


def test_list_and_show_a_completed_plan(world: World) -> None:
    first = submit(world.executor, WAIT_THEN_SUMMARY)
    world.clock.advance(1)
    second = submit(world.executor, _draft(EFFECT_STEP), requester="principal:carol")
    world.work()  # pause waits 5 s, act completes
    listed = list_plans(world.executor)
    assert [p["id"] for p in listed] == [first.plan_id, second.plan_id]  # created_at order
    assert listed[0] == {
        "id": first.plan_id,
        "intention_id": first.intention_id,
        "revision": 1,
        "status": "executing",
        "status_reason": None,
        "origin": "operator",
        "strategy": "direct_action_verified",
        "steps_done": 0,
        "steps_total": 2,
        "created_at": "2026-12-01T10:00:00Z",
        "updated_at": "2026-12-01T10:00:01Z",
    }
    assert listed[1]["status"] == "completed"
    assert [p["id"] for p in list_plans(world.executor, open_only=True)] == [first.plan_id]
    assert [p["id"] for p in list_plans(world.executor, status="completed")] == [second.plan_id]

    world.clock.advance(5)
    world.work()
    shown = show_plan(world.executor, first.plan_id)
    assert shown["status"] == "completed"
    assert (shown["steps_done"], shown["steps_total"]) == (2, 2)
    assert [s["key"] for s in shown["steps"]] == ["pause", "summary"]
    pause = _step(shown, "pause")
    # the wait was claimed twice: parked waiting, then completed when due
    assert [a["outcome"] for a in pause["attempt_history"]] == ["completed", "completed"]
    assert [a["number"] for a in pause["attempt_history"]] == [1, 2]
    assert {a["idempotency_key"] for a in pause["attempt_history"]} == {
        f"{first.plan_id}:1:pause:1"
    }
    assert pause["observation"] == {"waited_seconds": 5}
    summary = _step(shown, "summary")
    assert summary["result"]["findings"][0]["key"] == "pause"
    assert shown["revisions"] == [
        {
            "id": first.plan_id,
            "revision": 1,
            "status": "completed",
            "supersedes": None,
            "superseded_by": None,
        }
    ]
    assert show_plan(world.executor, second.plan_id)["requester"] == "principal:carol"
    with pytest.raises(ExecutionError) as caught:
        show_plan(world.executor, "nope")
    assert caught.value.code == "execution.not_found"


def test_show_plan_follows_the_revision_chain(world: World) -> None:
    failing = _draft(
        {"key": "look", "kind": "capability", "capability": "service.status", "target": "mail",
         "params": {"service": "mail"}},
    )  # fmt: skip
    fallback = _draft(EFFECT_STEP, strategy="escalate_to_operator")
    first = submit(world.executor, failing, alternatives=[fallback])
    world.work()
    shown = show_plan(world.executor, first.plan_id)
    assert shown["status"] == "superseded"
    successor = shown["superseded_by"]
    assert isinstance(successor, str)
    chain = show_plan(world.executor, successor)["revisions"]
    assert [(r["revision"], r["status"]) for r in chain] == [(1, "superseded"), (2, "completed")]
    assert chain[1]["supersedes"] == first.plan_id
    assert chain[0]["superseded_by"] == successor
    assert _step(shown, "look")["error"]["code"] == "service.not_found"


def _crash_after_invoking(world: World) -> str:
    """Run the effect step and stop the worker after the invocation returned, before its
    outcome was recorded; then let the lease expire and a second worker take over."""
    held = claim(world.executor, "worker:a", lease_seconds=30)
    assert held is not None

    def die(name: str, _claim: Any) -> None:
        if name == "invoked":
            raise RuntimeError("worker killed")

    with pytest.raises(RuntimeError):
        run_claim(world.executor, held, die)
    world.clock.advance(31)
    again = claim(world.executor, "worker:b", lease_seconds=30)
    assert again is not None and again.takeover
    run_claim(world.executor, again)
    return held.step_id


def test_stuck_blocked_step_then_resolved_as_happened(world: World) -> None:
    done = submit(world.executor, _draft(EFFECT_STEP, WAIT_THEN_SUMMARY["steps"][1] | {
        "depends_on": ["act"]}))  # fmt: skip
    step_id = _crash_after_invoking(world)
    assert len(world.entries()) == 1  # invoked once
    entries = stuck(world.executor)
    blocked = _entry(entries, "act")
    assert blocked["id"] == step_id
    assert blocked["status"] == "blocked"
    assert blocked["owner"] == "operator"
    assert blocked["stuck"] is True
    assert blocked["timeout"] is None
    assert str(blocked["reason"]).startswith("needs_verification")
    pending = _entry(entries, "summary")
    assert (pending["owner"], pending["stuck"]) == ("dependencies", False)
    plan_entry = entries[0]
    assert (plan_entry["kind"], plan_entry["id"], plan_entry["stuck"]) == (
        "plan",
        done.plan_id,
        False,
    )
    assert list_plans(world.executor)[0]["status"] == "blocked"

    step = resolve_step(world.executor, step_id, happened=True, by="principal:ops")
    assert step["status"] == "completed"
    assert step["result"] == {"resolved_by": "principal:ops", "happened": True}
    assert list_plans(world.executor)[0]["status"] == "executing"
    world.work()
    assert list_plans(world.executor)[0]["status"] == "completed"
    assert len(world.entries()) == 1  # never repeated
    assert stuck(world.executor) == []
    with pytest.raises(ExecutionError) as caught:
        resolve_step(world.executor, step_id, happened=True, by="principal:ops")
    assert caught.value.code == "execution.invalid_state"


def test_resolved_as_not_happened_runs_again_with_a_new_key(world: World) -> None:
    done = submit(world.executor, _draft(EFFECT_STEP))
    step_id = _crash_after_invoking(world)
    step = resolve_step(world.executor, step_id, happened=False, by="principal:ops")
    assert (step["status"], step["attempt_group"]) == ("ready", 2)
    assert step["next_run_at"] == world.clock.now().format()
    world.work()
    keys = [e["idempotency_key"] for e in world.entries()]
    assert keys == [f"{done.plan_id}:1:act:1", f"{done.plan_id}:1:act:2"]
    assert show_plan(world.executor, done.plan_id)["status"] == "completed"
    with pytest.raises(ExecutionError) as caught:
        resolve_step(world.executor, "nope", happened=False, by="principal:ops")
    assert caught.value.code == "execution.not_found"


def test_stuck_overdue_steps_and_expired_leases(world: World) -> None:
    done = submit(world.executor, _draft(EFFECT_STEP))
    [ready] = [e for e in stuck(world.executor) if e["kind"] == "step"]
    assert (ready["owner"], ready["stuck"], ready["timeout"]) == (
        "workers",
        False,
        "2026-12-01T10:00:00Z",
    )
    world.clock.advance(61)  # past the 60 s grace: no worker is running
    late = _entry(stuck(world.executor), "act")
    assert late["stuck"] is True
    assert "no worker is running" in str(late["reason"])
    held = claim(world.executor, "worker:gone", lease_seconds=30)
    assert held is not None and held.plan_id == done.plan_id
    leased = _entry(stuck(world.executor), "act")
    assert (leased["status"], leased["owner"], leased["stuck"]) == (
        "executing",
        "worker:gone",
        False,
    )
    assert leased["timeout"] == Instant(world.clock.now().ns + 30 * 10**9).format()
    world.clock.advance(30 + 61)
    expired = _entry(stuck(world.executor), "act")
    assert expired["stuck"] is True
    assert "lease expired" in str(expired["reason"])


def test_stuck_awaiting_approval_and_a_late_prediction(world: World) -> None:
    predicted = dict(EFFECT_STEP) | {
        "expectation": {"description": "x holds", "confidence": 0.9, "within_seconds": 10},
        "require_approval": True,
    }
    done = submit(world.executor, _draft(predicted))
    world.work()
    [approval] = list_approvals(world.executor)
    waiting = _entry(stuck(world.executor), "act")
    assert (waiting["owner"], waiting["stuck"], waiting["timeout"]) == (
        "approver",
        False,
        approval["expires_at"],
    )
    decide(world.executor, str(approval["id"]), approve=True, by="principal:bob")
    world.work()
    assert list_plans(world.executor)[0]["status"] == "completed"
    [prediction] = stuck(world.executor)  # the plan is closed; its prediction is open
    assert prediction["kind"] == "prediction"
    assert (prediction["plan_id"], prediction["owner"], prediction["stuck"]) == (
        done.plan_id,
        "operator",
        False,
    )
    assert prediction["timeout"] == "2026-12-01T10:00:10Z"
    world.clock.advance(11)
    [late] = stuck(world.executor)
    assert late["stuck"] is True
    assert "no verify step" in str(late["reason"])


def test_cancel_plan(world: World) -> None:
    done = submit(world.executor, _draft(dict(EFFECT_STEP) | {"require_approval": True}))
    world.work()
    cancelled = cancel_plan(world.executor, done.plan_id, by="principal:ops", reason="not now")
    assert cancelled["status"] == "abandoned"
    assert cancelled["status_reason"] == "cancelled by principal:ops: not now"
    shown = show_plan(world.executor, done.plan_id)
    assert _step(shown, "act")["status"] == "cancelled"
    assert [a["status"] for a in shown["approvals"]] == ["withdrawn"]
    assert stuck(world.executor) == []
    with pytest.raises(ExecutionError) as closed:
        cancel_plan(world.executor, done.plan_id, by="principal:ops")
    assert closed.value.code == "execution.invalid_state"
    with pytest.raises(ExecutionError) as unknown:
        cancel_plan(world.executor, "nope", by="principal:ops")
    assert unknown.value.code == "execution.not_found"


def test_sandbox_disable_blocks_and_enable_readies(world: World) -> None:
    set_sandbox(world.executor, "trial", enabled=False, reason="trying")
    done = submit(world.executor, _draft(EFFECT_STEP), sandbox="trial")
    world.work()
    blocked = _entry(stuck(world.executor), "act")
    assert (blocked["status"], blocked["owner"], blocked["stuck"]) == ("blocked", "operator", True)
    assert str(blocked["reason"]).startswith("sandbox_disabled")
    assert world.entries() == []  # nothing acted
    world.clock.advance(3)
    enabled = set_sandbox(world.executor, "trial", enabled=True)
    assert enabled == {
        "name": "trial",
        "enabled": True,
        "reason": None,
        "updated_at": "2026-12-01T10:00:03Z",
        "steps_readied": 1,
    }
    step = _step(show_plan(world.executor, done.plan_id), "act")
    assert (step["status"], step["next_run_at"]) == ("ready", "2026-12-01T10:00:03Z")
    assert list_plans(world.executor)[0]["status"] == "executing"
    world.work()
    assert list_plans(world.executor)[0]["status"] == "completed"
    assert len(world.entries()) == 1
    assert list_sandboxes(world.executor) == [
        {"name": "trial", "enabled": True, "reason": None, "updated_at": "2026-12-01T10:00:03Z"}
    ]


def test_recall_the_last_completed_draft_for_a_goal(world: World) -> None:
    assert recall(world.executor, "checkin") is None
    first = _draft(EFFECT_STEP)
    submit(world.executor, first, goal_key="checkin")
    world.work()
    world.clock.advance(1)
    second = _draft(EFFECT_STEP | {"target": "y"})
    submit(world.executor, second, goal_key="checkin")
    world.work()
    remembered = recall(world.executor, "checkin")
    assert remembered == PlanDraft.model_validate(second)
    again = submit(world.executor, remembered, goal_key="checkin")
    world.work()
    assert show_plan(world.executor, again.plan_id)["status"] == "completed"
    assert [e["target"] for e in world.entries()] == ["x", "y", "y"]


def test_a_failed_plans_prediction_is_closed_with_it_not_stuck(world: World) -> None:
    """Decision 0066: an open prediction of a plan that failed is never verified and nobody
    owns it; ``stuck`` lists it as closed with its plan, not as stuck."""
    predicted = dict(EFFECT_STEP) | {
        "expectation": {"description": "x holds", "confidence": 0.9, "within_seconds": 10},
    }
    failing = {"key": "look", "kind": "capability", "capability": "service.status",
               "target": "mail", "params": {"service": "mail"}, "depends_on": ["act"]}  # fmt: skip
    done = submit(world.executor, _draft(predicted, failing))
    world.work()
    shown = show_plan(world.executor, done.plan_id)
    assert shown["status"] == "failed"
    assert [p["status"] for p in shown["predictions"]] == ["open"]
    world.clock.advance(11)  # past due: a completed plan's prediction would be stuck now
    [prediction] = stuck(world.executor)
    assert (prediction["kind"], prediction["plan_id"]) == ("prediction", done.plan_id)
    assert (prediction["owner"], prediction["stuck"]) == ("nobody", False)
    assert prediction["reason"] == "closed with its plan (failed): never verified"
