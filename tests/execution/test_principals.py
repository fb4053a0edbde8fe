"""Principals are compared in one canonical form; agents never approve (trial finding)."""

from __future__ import annotations

import pytest

from cerebri.clock import FakeClock, SequentialIds
from cerebri.execution import ApprovalError, ExecutionError, Executor, decide, submit
from cerebri.execution.adapters import Adapters, NoopAdapter
from cerebri.execution.approvals import list_approvals
from cerebri.execution.principals import principal_id
from cerebri.execution.store import init, open_engine, parse_store_url
from cerebri.execution.worker import run_worker
from cerebri.temporal import Instant
from tests.execution._one_event import ONE_EVENT_DRAFT


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("principal:alice", "principal:alice"),
        ("  PRINCIPAL:Alice ", "principal:alice"),
        ("agent:Planner-1", "agent:planner-1"),
    ],
)
def test_canonical_form(text: str, canonical: str) -> None:
    assert principal_id(text) == canonical


@pytest.mark.parametrize(
    "text", ["alice", "principal:", "principal:a b", "user:alice", "", "   ", "principal:a:b", 7]
)
def test_not_a_principal(text: object) -> None:
    with pytest.raises(ExecutionError) as caught:
        principal_id(text)
    assert caught.value.code == "execution.invalid_principal"


def test_self_approval_cannot_be_spelled_around_and_agents_never_approve(store_url: str) -> None:
    init(store_url)
    executor = Executor(
        open_engine(parse_store_url(store_url)),
        FakeClock(Instant.parse("2026-12-01T09:00:00Z")),
        SequentialIds("q"),
        adapters=Adapters().with_adapter("calendar.event.create", NoopAdapter()),
    )
    done = submit(executor, ONE_EVENT_DRAFT, requester=" Principal:Alice")
    run_worker(executor, until_idle=True, poll_seconds=0.01)
    (request,) = list_approvals(executor)
    assert request["requester"] == "principal:alice"
    for spelling in ("principal:alice", "PRINCIPAL:ALICE", " principal:Alice "):
        with pytest.raises(ApprovalError) as refused:
            decide(executor, str(request["id"]), approve=True, by=spelling)
        assert refused.value.code == "approval.self_approval"
    with pytest.raises(ApprovalError) as agent:
        decide(executor, str(request["id"]), approve=True, by="agent:helper")
    assert agent.value.code == "approval.agent_cannot_approve"
    with pytest.raises(ExecutionError) as bad:
        decide(executor, str(request["id"]), approve=True, by="alice")
    assert bad.value.code == "execution.invalid_principal"
    assert decide(executor, str(request["id"]), approve=True, by="principal:Bob")["decided_by"] == (
        "principal:bob"
    )
    assert done.status.value == "validated"
