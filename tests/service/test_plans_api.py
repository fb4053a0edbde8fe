"""The plan and execution routes over a governed store (SQLite; one flow on PostgreSQL)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cerebri.execution import list_plans, revoke_token, show_plan, show_step
from cerebri.proposals import artifact_for, canonical_json, parse_subject, propose
from cerebri.temporal import Instant
from tests.execution._one_event import ONE_EVENT_DRAFT
from tests.service._store_world import START, World, auth, build_world, keyid_of
from tests.service.conftest import JSON

ALICE = auth("principal:alice")
DAVE = auth("principal:dave")
CAROL = auth("principal:carol")
BOB = auth("principal:bob")

WAIT_DRAFT: dict[str, Any] = {
    "objective": "wait then wait",
    "origin": "operator",
    "strategy": "manual",
    "steps": [
        {"key": "first", "kind": "wait", "wait": {"seconds": 30}},
        {"key": "second", "kind": "wait", "wait": {"seconds": 30}, "depends_on": ["first"]},
    ],
}
"""Two waits, the second after the first: no approval, no effect."""


@pytest.fixture
def world(tmp_path: Path) -> World:
    return build_world(f"sqlite:///{tmp_path / 'store.sqlite3'}")


def _submit(world: World, draft: dict[str, Any], headers: dict[str, str]) -> dict[str, Any]:
    """Submit alice's signed proposal of ``draft`` with ``headers`` (the requester)."""
    response = world.client.post(
        "/v1/plans", content=json.dumps(world.proposal(draft)), headers={**JSON, **headers}
    )
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body


def _problem(response: Any, status: int, code: str, path: str | None = None) -> None:
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/problem+json"
    body = response.json()
    assert (body["status"], body["code"], body["path"]) == (status, code, path)
    assert body["detail"]


def test_every_route_needs_a_principal_token(world: World) -> None:
    routes = [
        ("GET", "/v1/plans"),
        ("POST", "/v1/plans"),
        ("GET", "/v1/plans/x"),
        ("POST", "/v1/plans/x/cancel"),
        ("GET", "/v1/executions/x"),
    ]
    for method, path in routes:
        for headers in (
            {},
            {"Authorization": "Bearer not-a-token-of-anyone"},
            {"Authorization": "alice"},
        ):
            response = world.client.request(method, path, headers=headers)
            _problem(response, 401, "auth.unauthorized")
            assert response.headers["www-authenticate"] == "Bearer"


def test_a_revoked_token_is_refused(world: World) -> None:
    assert world.client.get("/v1/plans", headers=ALICE).status_code == 200
    revoke_token(world.executor, world.token_ids["principal:alice"])
    _problem(world.client.get("/v1/plans", headers=ALICE), 401, "auth.token_revoked")


def test_submit_a_draft(world: World) -> None:
    response = world.client.post(
        "/v1/plans", content=json.dumps({"draft": WAIT_DRAFT}), headers={**JSON, **ALICE}
    )
    assert response.status_code == 201
    body = response.json()
    assert response.headers["location"] == f"/v1/plans/{body['plan_id']}"
    stored = show_plan(world.executor, body["plan_id"])
    assert (body["status"], body["revision"]) == ("validated", 1)
    assert body["intention_id"] == stored["intention_id"]
    assert body["validation"] == stored["validation"]
    assert stored["requester"] == "principal:alice"  # the token's principal, not the body's
    assert [s["key"] for s in stored["steps"]] == ["first", "second"]


def test_an_invalid_draft_is_stored_as_draft(world: World) -> None:
    broken = {**WAIT_DRAFT, "steps": [{**WAIT_DRAFT["steps"][1]}]}  # depends on a missing step
    body = _submit(world, broken, ALICE)
    assert body["status"] == "draft"
    assert body["validation"]["valid"] is False
    assert show_plan(world.executor, body["plan_id"])["steps"] == []


@pytest.mark.parametrize(
    ("document", "code", "path"),
    [
        ({"draft": {**WAIT_DRAFT, "colour": "red"}}, "draft.schema", "/draft/colour"),
        ({"draft": {**WAIT_DRAFT, "steps": "none"}}, "draft.schema", "/draft/steps"),
        ({"draft": WAIT_DRAFT, "extra": 1}, "http.invalid_body", "/extra"),
        ({"draft": [1]}, "http.invalid_body", "/draft"),
        ({"plan": WAIT_DRAFT}, "http.invalid_body", "/envelope"),
        ([WAIT_DRAFT], "json.not_object", ""),
    ],
)
def test_a_body_that_is_not_a_submission_changes_nothing(
    world: World, document: Any, code: str, path: str
) -> None:
    response = world.client.post(
        "/v1/plans", content=json.dumps(document), headers={**JSON, **ALICE}
    )
    _problem(response, 422, code, path)
    assert list_plans(world.executor) == []


def test_transport_failures_on_submit(world: World) -> None:
    _problem(
        world.client.post("/v1/plans", content=b"{", headers={**JSON, **ALICE}), 400, "json.syntax"
    )
    response = world.client.post(
        "/v1/plans", content=b"{}", headers={"Content-Type": "text/plain", **ALICE}
    )
    _problem(response, 415, "http.unsupported_media_type")
    big = b'{"draft": "' + b"x" * 300_000 + b'"}'
    _problem(
        world.client.post("/v1/plans", content=big, headers={**JSON, **ALICE}),
        413,
        "input.too_large",
    )
    assert list_plans(world.executor) == []


def test_only_requesters_submit(world: World) -> None:
    for headers in (BOB, CAROL):
        response = world.client.post(
            "/v1/plans", content=json.dumps({"draft": WAIT_DRAFT}), headers={**JSON, **headers}
        )
        _problem(response, 403, "auth.forbidden")
    assert list_plans(world.executor) == []


def test_list_and_show(world: World) -> None:
    first = _submit(world, WAIT_DRAFT, ALICE)
    second = _submit(world, WAIT_DRAFT, DAVE)
    listed = world.client.get("/v1/plans", headers=BOB)
    assert listed.status_code == 200
    assert listed.json() == json.loads(json.dumps(list_plans(world.executor)))
    assert [p["id"] for p in listed.json()] == [first["plan_id"], second["plan_id"]]
    shown = world.client.get(f"/v1/plans/{first['plan_id']}", headers=CAROL)
    assert shown.status_code == 200
    assert shown.json() == json.loads(json.dumps(show_plan(world.executor, first["plan_id"])))
    assert [s["spec"]["depends_on"] for s in shown.json()["steps"]] == [[], ["first"]]
    _problem(world.client.get("/v1/plans/nope", headers=ALICE), 404, "execution.not_found")


def test_list_filters(world: World) -> None:
    kept = _submit(world, WAIT_DRAFT, ALICE)
    gone = _submit(world, WAIT_DRAFT, ALICE)
    assert (
        world.client.post(f"/v1/plans/{gone['plan_id']}/cancel", headers=ALICE).status_code == 200
    )

    def ids(query: str) -> list[str]:
        response = world.client.get(f"/v1/plans{query}", headers=ALICE)
        assert response.status_code == 200, response.text
        return [p["id"] for p in response.json()]

    assert ids("?status=abandoned") == [gone["plan_id"]]
    assert ids("?status=validated") == [kept["plan_id"]]
    assert ids("?open=true") == [kept["plan_id"]]
    assert ids("?open=false") == [kept["plan_id"], gone["plan_id"]]
    for query in ("?status=lost", "?open=maybe"):
        _problem(
            world.client.get(f"/v1/plans{query}", headers=ALICE),
            422,
            "http.invalid_parameter",
            "/query/" + query[1:].split("=")[0],
        )


def test_cancel_by_the_requester_or_an_operator_only(world: World) -> None:
    mine = _submit(world, WAIT_DRAFT, ALICE)
    before = show_plan(world.executor, mine["plan_id"])
    for headers in (DAVE, BOB):  # another requester, an approver
        response = world.client.post(f"/v1/plans/{mine['plan_id']}/cancel", headers=headers)
        _problem(response, 403, "auth.forbidden")
    assert show_plan(world.executor, mine["plan_id"]) == before

    response = world.client.post(
        f"/v1/plans/{mine['plan_id']}/cancel",
        content=json.dumps({"reason": "no longer needed"}),
        headers={**JSON, **ALICE},
    )
    assert response.status_code == 200
    assert response.json()["status"] == "abandoned"
    assert response.json()["status_reason"] == "cancelled by principal:alice: no longer needed"
    again = world.client.post(f"/v1/plans/{mine['plan_id']}/cancel", headers=ALICE)
    _problem(again, 409, "execution.invalid_state")

    theirs = _submit(world, WAIT_DRAFT, DAVE)
    by_operator = world.client.post(f"/v1/plans/{theirs['plan_id']}/cancel", headers=CAROL)
    assert by_operator.status_code == 200
    assert show_plan(world.executor, theirs["plan_id"])["status_reason"] == (
        "cancelled by principal:carol"
    )
    _problem(world.client.post("/v1/plans/nope/cancel", headers=CAROL), 404, "execution.not_found")
    bad = world.client.post(
        f"/v1/plans/{theirs['plan_id']}/cancel",
        content=json.dumps({"why": "x"}),
        headers={**JSON, **CAROL},
    )
    _problem(bad, 422, "http.invalid_body", "/why")


def test_an_execution_is_a_step_and_its_attempts(world: World) -> None:
    submitted = _submit(world, WAIT_DRAFT, ALICE)
    world.work()
    step = show_plan(world.executor, submitted["plan_id"])["steps"][0]
    response = world.client.get(f"/v1/executions/{step['id']}", headers=DAVE)
    assert response.status_code == 200
    body = response.json()
    assert body == json.loads(json.dumps(show_step(world.executor, step["id"])))
    assert (body["plan_id"], body["key"], body["status"]) == (
        submitted["plan_id"],
        "first",
        "waiting",
    )
    assert [a["number"] for a in body["attempt_history"]] == [1]
    _problem(world.client.get("/v1/executions/nope", headers=DAVE), 404, "execution.not_found")


def test_the_openapi_document_lists_the_store_routes(world: World) -> None:
    document = world.client.get("/openapi.json", headers=ALICE).json()
    for path in (
        "/v1/plans",
        "/v1/plans/{plan_id}",
        "/v1/plans/{plan_id}/cancel",
        "/v1/executions/{step_id}",
        "/v1/approvals",
        "/v1/approvals/{approval_id}",
        "/v1/approvals/{approval_id}/decision",
        "/v1/approvals/{approval_id}/withdraw",
    ):
        assert path in document["paths"], path
    assert "step's run" in document["paths"]["/v1/executions/{step_id}"]["get"]["description"]
    post = document["paths"]["/v1/plans"]["post"]
    assert set(post["responses"]) >= {"200", "201", "401", "403", "409", "422", "503"}
    assert post["security"] == [{"principalToken": []}]


def test_one_approved_plan_on_postgresql(postgres_url: str) -> None:
    world = build_world(postgres_url)
    submitted = _submit(world, ONE_EVENT_DRAFT, ALICE)
    world.work()
    (approval,) = world.client.get("/v1/approvals", headers=BOB).json()
    decision = world.signed_decision(approval["id"], "approve", "principal:bob")
    response = world.client.post(
        f"/v1/approvals/{approval['id']}/decision",
        content=json.dumps(decision),
        headers={**JSON, **BOB},
    )
    assert response.status_code == 200, response.text
    world.work()
    plan = world.client.get(f"/v1/plans/{submitted['plan_id']}", headers=ALICE).json()
    assert plan["status"] == "completed"
    assert [s["status"] for s in plan["steps"]] == ["completed"]


def _envelope(world: World, draft: dict[str, Any], *, key: str = "idem-1") -> dict[str, Any]:
    """An envelope of ``draft`` (a plan graph) authored and signed by principal:selfie."""
    artifact = canonical_json(draft)
    signed = propose(
        artifact_for(artifact),
        "cerebri.plan-graph.v1",
        author=parse_subject("principal:selfie"),
        author_node_id="node-1",
        query_id="query-1",
        room_id="room-1",
        turn_id="turn-1",
        class_key="Personal",
        executor_mode="plan-executor",
        proposed_at=START,
        expires_at=Instant(START.ns + 86_400 * 10**9),
        idempotency_key=key,
        signing_keys=[(world.keys["principal:selfie"], keyid_of("principal:selfie"))],
    )
    return {"envelope": json.loads(signed), "artifact": draft}


def test_submit_a_signed_envelope(world: World) -> None:
    body = _envelope(world, WAIT_DRAFT)
    first = world.client.post("/v1/plans", content=json.dumps(body), headers={**JSON, **ALICE})
    assert first.status_code == 201, first.text
    made = first.json()
    assert first.headers["location"] == f"/v1/plans/{made['plan_id']}"
    assert (made["status"], made["replayed"], made["author"]) == (
        "validated",
        False,
        "principal:selfie",
    )
    stored = show_plan(world.executor, made["plan_id"])
    assert stored["requester"] == "principal:alice"  # who submitted it, not who wrote it
    assert [s["key"] for s in stored["steps"]] == ["first", "second"]

    again = world.client.post("/v1/plans", content=json.dumps(body), headers={**JSON, **ALICE})
    assert again.status_code == 200
    assert (again.json()["plan_id"], again.json()["replayed"]) == (made["plan_id"], True)
    assert len(list_plans(world.executor)) == 1

    other = _envelope(world, {**WAIT_DRAFT, "objective": "something else"})
    response = world.client.post("/v1/plans", content=json.dumps(other), headers={**JSON, **ALICE})
    _problem(response, 409, "proposal.replayed", "/envelope/idempotency~1key")
    assert len(list_plans(world.executor)) == 1


def test_an_envelope_that_does_not_verify_changes_nothing(world: World) -> None:
    body = _envelope(world, WAIT_DRAFT, key="idem-2")
    tampered = {**body, "artifact": {**WAIT_DRAFT, "objective": "not what was signed"}}
    response = world.client.post(
        "/v1/plans", content=json.dumps(tampered), headers={**JSON, **ALICE}
    )
    assert response.status_code == 422
    assert response.json()["code"].startswith("proposal.")
    forged = json.loads(json.dumps(body))
    forged["envelope"]["room/id"] = "another room"  # the signature no longer covers it
    response = world.client.post("/v1/plans", content=json.dumps(forged), headers={**JSON, **ALICE})
    assert response.status_code == 422
    assert response.json()["code"].startswith("proposal.")
    missing = world.client.post(
        "/v1/plans", content=json.dumps({"envelope": body["envelope"]}), headers={**JSON, **ALICE}
    )
    _problem(missing, 422, "http.invalid_body", "/artifact")
    assert list_plans(world.executor) == []
