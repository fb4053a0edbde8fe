"""``POST /v1/plans`` refuses an envelope its author could no longer sign (issue #21 item 2,
decision 0034), on SQLite and PostgreSQL: a disabled author or a revoked signing key is a
422 problem naming ``/envelope/author`` or the signature, and nothing is stored. An envelope
taken in while all held, and approved, still does not act once its author is disabled."""

from __future__ import annotations

import json

import pytest

from cerebri.execution import disable_principal, list_plans, revoke_key, show_plan
from tests.execution._one_event import ONE_EVENT_DRAFT
from tests.service._store_world import auth, build_world, keyid_of
from tests.service.conftest import JSON

DAVE = auth("principal:dave")
BOB = auth("principal:bob")


@pytest.mark.parametrize(
    ("revoke", "code", "path"),
    [
        ("disable", "proposal.author_disabled", "/envelope/author"),
        ("key", "proposal.revoked_key", None),
    ],
)
def test_an_envelope_its_author_could_no_longer_sign_is_refused(
    store_url: str, revoke: str, code: str, path: str | None
) -> None:
    world = build_world(store_url)
    body = world.proposal(ONE_EVENT_DRAFT)  # signed by alice, submitted by dave
    if revoke == "disable":
        disable_principal(world.executor, "principal:alice")
    else:
        revoke_key(world.executor, keyid_of("principal:alice"))
    response = world.client.post("/v1/plans", content=json.dumps(body), headers={**JSON, **DAVE})
    assert response.status_code == 422, response.text
    assert response.headers["content-type"] == "application/problem+json"
    problem = response.json()
    assert problem["code"] == code
    if path is not None:
        assert problem["path"] == path
    assert list_plans(world.executor) == []


def test_an_approved_plan_of_a_disabled_author_does_not_act(store_url: str) -> None:
    world = build_world(store_url)
    response = world.client.post(
        "/v1/plans",
        content=json.dumps(world.proposal(ONE_EVENT_DRAFT)),
        headers={**JSON, **DAVE},
    )
    assert response.status_code == 201, response.text
    plan_id = response.json()["plan_id"]
    world.work()
    [approval] = show_plan(world.executor, plan_id)["approvals"]
    decided = world.client.post(
        f"/v1/approvals/{approval['id']}/decision",
        content=json.dumps(world.signed_decision(approval["id"], "approve", "principal:bob")),
        headers={**JSON, **BOB},
    )
    assert decided.status_code == 200, decided.text
    disable_principal(world.executor, "principal:alice")
    world.work()
    plan = show_plan(world.executor, plan_id)
    assert plan["status"] == "failed"
    assert str(plan["status_reason"]).startswith("proposal.author_disabled: principal:alice")
    assert plan["proposal"]["submitted_by"] == "principal:dave"  # type: ignore[index]
    [step] = plan["steps"]  # type: ignore[misc]
    assert step["status"] != "succeeded"
