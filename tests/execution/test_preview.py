"""Preview (plans.md section 6): what the executor would decide, with the store unchanged."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from sqlalchemy import insert, select

from cerebri.clock import FakeClock, SequentialIds
from cerebri.execution import (
    Executor,
    decide,
    list_approvals,
    preview_draft,
    preview_plan,
    run_worker,
    submit,
)
from cerebri.execution.adapters import Adapters, NoopAdapter
from cerebri.execution.store import METADATA, init, open_engine, parse_store_url
from cerebri.execution.store.schema import sandboxes
from cerebri.plans import Capability, Risk, builtin_registry, draft_from_action_plan
from cerebri.temporal import Instant
from tests.plans import batch

START = Instant.parse("2026-12-01T09:00:00Z")

_GUARDED = Capability(
    name="test.guarded",
    description="an effect that needs a grant",
    params_schema={"type": "object"},
    read_only=False,
    idempotent=True,
    risk=Risk.MEDIUM,
)
_EVENT = {
    "calendar_id": "work",
    "integration_id": "local",
    "object_id": "e1",
    "start": "2026-12-02T10:00:00Z",
    "end": "2026-12-02T11:00:00Z",
    "idempotency_key": "k1",
}


def _draft(*steps: dict[str, Any], origin: str = "operator") -> dict[str, Any]:
    return {"objective": "preview", "origin": origin, "strategy": "s", "steps": list(steps)}


_READ = {"key": "read", "kind": "capability", "capability": "service.status", "target": "mail",
         "params": {"service": "mail"}}  # fmt: skip
_CREATE = {"key": "create", "kind": "capability", "capability": "calendar.event.create",
           "target": "e1", "params": _EVENT}  # fmt: skip
_GUARD = {"key": "guard", "kind": "capability", "capability": "test.guarded", "params": {}}
_WAIT = {"key": "pause", "kind": "wait", "wait": {"seconds": 30}, "depends_on": ["read"]}


def _executor(url: str) -> Executor:
    init(url)
    registry = builtin_registry().register(_GUARDED)
    adapters = (
        Adapters()
        .with_adapter("service.status", NoopAdapter())
        .with_adapter("calendar.event.create", NoopAdapter())
    )
    return Executor(
        open_engine(parse_store_url(url)),
        FakeClock(START),
        SequentialIds("p"),
        registry=registry,
        adapters=adapters,
    )


def _why(answer: dict[str, Any]) -> dict[str, tuple[bool, str]]:
    return {s["key"]: (s["allowed"], s["why"].split(":")[0]) for s in answer["steps"]}


def _state(executor: Executor, url: str) -> Any:
    """Every row of every table, and for SQLite the bytes of the file and its WAL."""
    with executor.engine.connect() as connection:
        rows = {
            name: sorted(map(repr, connection.execute(select(table)).all()))
            for name, table in METADATA.tables.items()
        }
        connection.rollback()
    files = []
    if url.startswith("sqlite"):
        path = Path(url.removeprefix("sqlite:///"))
        for f in (path, Path(f"{path}-wal")):
            files.append(hashlib.sha256(f.read_bytes()).hexdigest() if f.exists() else None)
    return rows, files


def test_a_draft_preview_names_each_decision_without_a_store() -> None:
    registry = builtin_registry().register(_GUARDED)
    answer = preview_draft(_draft(_READ, _CREATE, _GUARD, _WAIT), registry=registry)
    assert answer["plan"]["valid"] is True
    assert _why(answer) == {
        "read": (True, "allowed"),
        "create": (True, "needs_approval"),
        "guard": (False, "capability.not_granted"),
        "pause": (True, "allowed"),
    }
    # 3 capability steps: the wait invokes nothing
    assert answer["plan"]["budget"]["minimum_needed"] == 3


def test_never_acting_plans_and_adapters_in_a_preview() -> None:
    dream = preview_draft(_draft(_READ, _CREATE, origin="dream"))
    assert {k: v[0] for k, v in _why(dream).items()} == {"read": False, "create": False}
    assert {v[1] for v in _why(dream).values()} == {"origin_dream"}
    sandboxed = preview_draft(_draft(_READ, _CREATE), sandbox_enabled=False)
    assert _why(sandboxed) == {"read": (True, "allowed"), "create": (False, "sandbox_disabled")}
    no_calendar = preview_draft(_draft(_CREATE), adapters=Adapters())
    assert _why(no_calendar) == {"create": (False, "no_adapter")}
    invalid = preview_draft(_draft({**_READ, "capability": "no.such"}))
    assert invalid["plan"]["valid"] is False
    assert _why(invalid) == {"read": (False, "draft")}


def test_a_stored_plan_preview_leaves_the_store_byte_for_byte_unchanged(store_url: str) -> None:
    executor = _executor(store_url)
    done = submit(executor, _draft(_READ, _CREATE, _WAIT))
    run_worker(executor, until_idle=True, poll_seconds=0.01)
    before = _state(executor, store_url)
    answer = preview_plan(executor, done.plan_id)
    assert _state(executor, store_url) == before
    steps = {s["key"]: s for s in answer["steps"]}
    assert steps["read"]["status"] == "completed"
    assert (steps["read"]["allowed"], steps["read"]["why"]) == (False, "done: completed")
    assert steps["create"]["status"] == "awaiting_approval"
    assert steps["create"]["why"].startswith("awaiting_approval: waiting for approval ")
    assert steps["pause"]["status"] == "waiting"
    assert answer["plan"]["budget"]["used"] == 1  # the read; the create gave its count back

    (request,) = list_approvals(executor)
    decide(executor, str(request["id"]), approve=False, by="principal:bob")
    closed = preview_plan(executor, done.plan_id)
    assert closed["plan"]["status"] == "failed"
    assert {s["why"] for s in closed["steps"] if s["status"] == "cancelled"} == {"done: cancelled"}


def test_a_disabled_sandbox_shows_in_a_stored_preview(store_url: str) -> None:
    executor = _executor(store_url)
    with executor.transaction() as connection:
        connection.execute(insert(sandboxes).values(name="lab", enabled=False, updated_at=START.ns))
    done = submit(executor, _draft(_READ, _CREATE), sandbox="lab")
    assert _why(preview_plan(executor, done.plan_id)) == {
        "read": (True, "allowed"),
        "create": (False, "sandbox_disabled"),
    }


def test_a_batch_previews_its_gates_and_the_effects_they_cover() -> None:
    draft = draft_from_action_plan(batch.action_plan(), batch=batch.approvals())
    why = {s["key"]: s["why"] for s in preview_draft(draft)["steps"]}  # type: ignore[index,union-attr]
    assert why["approve-batch"] == (
        "needs_approval: asks an approver other than the requester; the effects after it "
        "act on that approval"
    )
    assert why["approve-owner-2"].startswith("needs_approval: asks principal:bob;")
    for key in ("create-0", "room-0", "create-1", "move-2", "create-3"):
        assert why[key] == (
            "needs_approval: acts on the approval of approve-batch, approve-owner-2, given "
            "before it"
        ), key
