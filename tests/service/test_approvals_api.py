"""The approval routes over a governed store: inbox, signing payloads, signed decisions,
withdrawal, and every refusal leaving the store as it was."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cerebri.execution import (
    decision_payload,
    describe_approval,
    list_approvals,
    show_approval,
    show_plan,
)
from cerebri.proposals import APPROVAL_PAYLOAD_TYPE
from tests.execution._one_event import ONE_EVENT_DRAFT
from tests.service._store_world import World, auth, b64, build_world
from tests.service.conftest import JSON

ALICE = auth("principal:alice")
BOB = auth("principal:bob")
DAVE = auth("principal:dave")


@pytest.fixture
def world(tmp_path: Path) -> World:
    return build_world(f"sqlite:///{tmp_path / 'store.sqlite3'}")


def _asked(world: World, requester: str = "principal:alice") -> tuple[str, dict[str, Any]]:
    """Submit alice's proposal of the one-event draft as ``requester`` and run a worker:
    (plan id, approval)."""
    response = world.client.post(
        "/v1/plans",
        content=json.dumps(world.proposal(ONE_EVENT_DRAFT)),
        headers={**JSON, **auth(requester)},
    )
    assert response.status_code == 201, response.text
    world.work()
    plan_id = response.json()["plan_id"]
    (approval,) = [a for a in list_approvals(world.executor) if a["plan_id"] == plan_id]
    return plan_id, approval


def _decide(world: World, approval_id: str, body: dict[str, Any], by: str) -> Any:
    return world.client.post(
        f"/v1/approvals/{approval_id}/decision",
        content=json.dumps(body),
        headers={**JSON, **auth(by)},
    )


def _problem(response: Any, status: int, code: str, path: str | None = None) -> None:
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/problem+json"
    body = response.json()
    assert (body["status"], body["code"], body["path"]) == (status, code, path)


def _step_status(world: World, plan_id: str) -> str:
    return str(show_plan(world.executor, plan_id)["steps"][0]["status"])


def test_every_route_needs_a_principal_token(world: World) -> None:
    for method, path in (
        ("GET", "/v1/approvals"),
        ("GET", "/v1/approvals/x"),
        ("POST", "/v1/approvals/x/decision"),
        ("POST", "/v1/approvals/x/withdraw"),
    ):
        _problem(world.client.request(method, path), 401, "auth.unauthorized")


def test_the_inbox(world: World) -> None:
    plan_id, approval = _asked(world)
    inbox = world.client.get("/v1/approvals", headers=BOB)
    assert inbox.status_code == 200
    assert inbox.json() == json.loads(json.dumps(list_approvals(world.executor)))
    (item,) = inbox.json()
    assert (item["plan_id"], item["requester"], item["status"]) == (
        plan_id,
        "principal:alice",
        "open",
    )
    assert item["request"]["step"]["params"]["calendar_id"] == "work"
    assert world.client.get("/v1/approvals?status=approved", headers=BOB).json() == []
    assert [a["id"] for a in world.client.get("/v1/approvals?status=all", headers=BOB).json()] == [
        approval["id"]
    ]
    _problem(
        world.client.get("/v1/approvals?status=lost", headers=BOB),
        422,
        "http.invalid_parameter",
        "/query/status",
    )


def test_one_approval_carries_the_callers_signing_payloads(world: World) -> None:
    _, approval = _asked(world)
    response = world.client.get(f"/v1/approvals/{approval['id']}", headers=BOB)
    assert response.status_code == 200
    body = response.json()
    signing = body.pop("signing")
    assert body == json.loads(json.dumps(describe_approval(world.executor, approval["id"])))
    assert {
        k: v for k, v in body.items() if k in show_approval(world.executor, approval["id"])
    } == (json.loads(json.dumps(show_approval(world.executor, approval["id"]))))
    proposed = body["proposed"]  # what bob approves: the draft's create step, as proposed
    params = ONE_EVENT_DRAFT["steps"][0]["params"]
    assert (proposed["capability"], proposed["title"], proposed["calendar_id"]) == (
        "calendar.event.create",
        params.get("title"),
        params["calendar_id"],
    )
    assert (proposed["start"], proposed["end"]) == (params["start"], params["end"])
    assert proposed["timezone"] is proposed["local_start"] is None  # the draft names no zone
    assert body["envelope_digest"].startswith("sha256:")
    assert signing == {
        "payload_type": APPROVAL_PAYLOAD_TYPE,
        "approve": b64(
            decision_payload(world.executor, approval["id"], decision="approve", by="principal:bob")
        ),
        "reject": b64(
            decision_payload(world.executor, approval["id"], decision="reject", by="principal:bob")
        ),
    }
    erin = world.client.get(f"/v1/approvals/{approval['id']}", headers=auth("principal:erin"))
    assert erin.json()["signing"]["approve"] != signing["approve"]  # names its principal
    _problem(world.client.get("/v1/approvals/nope", headers=BOB), 404, "execution.not_found")


def test_a_signed_approval_readies_the_step(world: World) -> None:
    plan_id, approval = _asked(world)
    assert _step_status(world, plan_id) == "awaiting_approval"
    body = {**world.signed_decision(approval["id"], "approve", "principal:bob"), "reason": "fine"}
    response = _decide(world, approval["id"], body, "principal:bob")
    assert response.status_code == 200, response.text
    decided = response.json()
    assert (decided["status"], decided["decided_by"]) == ("approved", "principal:bob")
    assert decided == json.loads(json.dumps(show_approval(world.executor, approval["id"])))
    assert _step_status(world, plan_id) == "ready"
    world.work()
    assert show_plan(world.executor, plan_id)["status"] == "completed"
    again = _decide(world, approval["id"], body, "principal:bob")
    assert again.status_code == 409
    assert again.json()["code"] in {"approval.not_open", "approval.replayed"}


def test_a_signed_rejection_fails_the_step(world: World) -> None:
    plan_id, approval = _asked(world)
    body = world.signed_decision(approval["id"], "reject", "principal:bob")
    response = _decide(world, approval["id"], body, "principal:bob")
    assert response.status_code == 200, response.text
    assert response.json()["status"] == "rejected"
    assert _step_status(world, plan_id) == "failed"


def _unchanged(world: World, plan_id: str, approval_id: str) -> None:
    assert show_approval(world.executor, approval_id)["status"] == "open"
    assert _step_status(world, plan_id) == "awaiting_approval"


def test_self_approval_is_refused_and_changes_nothing(world: World) -> None:
    plan_id, approval = _asked(world, "principal:selfie")
    body = world.signed_decision(approval["id"], "approve", "principal:selfie")
    _problem(
        _decide(world, approval["id"], body, "principal:selfie"), 403, "approval.self_approval"
    )
    _unchanged(world, plan_id, approval["id"])


def test_an_agent_never_approves(world: World) -> None:
    plan_id, approval = _asked(world)
    body = world.signed_decision(approval["id"], "approve", "principal:bob")
    response = _decide(world, approval["id"], body, "agent:helper")
    assert response.status_code == 403
    assert response.json()["code"] in {"approval.agent_cannot_approve", "approval.not_approver"}
    _unchanged(world, plan_id, approval["id"])


def test_a_requester_without_the_approver_role_cannot_decide(world: World) -> None:
    plan_id, approval = _asked(world)
    body = world.signed_decision(approval["id"], "approve", "principal:bob")
    _problem(_decide(world, approval["id"], body, "principal:dave"), 403, "approval.not_approver")
    _unchanged(world, plan_id, approval["id"])


def test_a_signature_that_does_not_prove_the_decision_is_refused(world: World) -> None:
    plan_id, approval = _asked(world)
    approve = world.signed_decision(approval["id"], "approve", "principal:bob")
    reject = world.signed_decision(approval["id"], "reject", "principal:bob")
    erins = world.signed_decision(
        approval["id"], "approve", "principal:bob", key_of="principal:erin"
    )
    cases = [
        ({**approve, "signature": reject["signature"]}, "approval.bad_signature"),  # other payload
        ({**approve, "decision": "reject"}, "approval.bad_signature"),
        (erins, "approval.wrong_key"),  # erin's key, bob's token
        ({**approve, "keyid": "nobody-key"}, "approval.unknown_key"),
    ]
    for body, code in cases:
        _problem(_decide(world, approval["id"], body, "principal:bob"), 422, code)
        _unchanged(world, plan_id, approval["id"])


@pytest.mark.parametrize(
    ("change", "path"),
    [
        ({"keyid": None}, "/keyid"),
        ({"signature": None}, "/signature"),
        ({"decision": "maybe"}, "/decision"),
        ({"extra": 1}, "/extra"),
    ],
)
def test_a_malformed_decision_body_is_refused(
    world: World, change: dict[str, Any], path: str
) -> None:
    plan_id, approval = _asked(world)
    body = {**world.signed_decision(approval["id"], "approve", "principal:bob"), **change}
    body = {k: v for k, v in body.items() if v is not None}
    _problem(_decide(world, approval["id"], body, "principal:bob"), 422, "http.invalid_body", path)
    _unchanged(world, plan_id, approval["id"])


def test_an_expired_request_is_never_approved(world: World) -> None:
    plan_id, approval = _asked(world)
    body = world.signed_decision(approval["id"], "approve", "principal:bob")
    world.clock.advance(world.executor.approval_ttl_seconds + 1)
    _problem(_decide(world, approval["id"], body, "principal:bob"), 409, "approval.expired")
    assert show_approval(world.executor, approval["id"])["status"] == "expired"
    assert _step_status(world, plan_id) == "failed"


def test_only_the_requester_withdraws(world: World) -> None:
    plan_id, approval = _asked(world)
    for headers in (DAVE, BOB):
        response = world.client.post(f"/v1/approvals/{approval['id']}/withdraw", headers=headers)
        _problem(response, 403, "approval.not_requester")
        _unchanged(world, plan_id, approval["id"])
    response = world.client.post(f"/v1/approvals/{approval['id']}/withdraw", headers=ALICE)
    assert response.status_code == 200
    assert response.json()["status"] == "withdrawn"
    assert show_plan(world.executor, plan_id)["status"] == "abandoned"
    again = world.client.post(f"/v1/approvals/{approval['id']}/withdraw", headers=ALICE)
    _problem(again, 409, "approval.not_open")
    _problem(
        world.client.post("/v1/approvals/nope/withdraw", headers=ALICE), 404, "execution.not_found"
    )
