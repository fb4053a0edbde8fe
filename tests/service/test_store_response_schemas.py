"""The documented schemas of the store routes fit real answers, through a whole flow.

A plan is submitted (as a draft and as an envelope), asked for approval, approved with a
signature, run to completion and listed; every success body is validated (draft 2020-12)
against the route's documented schema for its status, ``$ref``s resolved against the
OpenAPI document itself; every refusal against ``Problem``. A few mutated bodies must fail.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from cerebri.execution import list_approvals, show_plan
from tests.execution._one_event import ONE_EVENT_DRAFT
from tests.service._store_world import World, auth, build_world
from tests.service.conftest import JSON
from tests.service.test_plans_api import WAIT_DRAFT, _envelope

_BASE = "urn:cerebri:openapi"
ALICE = auth("principal:alice")
BOB = auth("principal:bob")


def _validator(document: dict[str, Any], path: str, method: str, status: int) -> Any:
    answer = document["paths"][path][method]["responses"][str(status)]
    media = "application/json" if status < 400 else "application/problem+json"
    schema = answer["content"][media]["schema"]
    resource = Resource(contents=document, specification=DRAFT202012)
    registry: Registry[Any] = Registry().with_resource(_BASE, resource)
    rooted = json.loads(json.dumps(schema).replace('"#/components', f'"{_BASE}#/components'))
    return Draft202012Validator(rooted, registry=registry)


class Checked:
    """Calls the routes and validates each answer against its documented schema."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.document: dict[str, Any] = world.client.get("/openapi.json").json()
        self.seen: set[tuple[str, str, int]] = set()

    def call(
        self, method: str, url: str, template: str, headers: dict[str, str], body: Any = None
    ) -> Any:
        content = None if body is None else json.dumps(body)
        extra = JSON if body is not None else {}
        response = self.world.client.request(
            method, url, content=content, headers={**extra, **headers}
        )
        validator = _validator(self.document, template, method.lower(), response.status_code)
        errors = [
            (list(e.absolute_path), e.message[:200]) for e in validator.iter_errors(response.json())
        ]
        assert not errors, (method, url, response.status_code, errors)
        self.seen.add((method, template, response.status_code))
        return response.json()


def test_the_documented_schemas_fit_a_whole_flow(tmp_path: Path) -> None:
    world = build_world(f"sqlite:///{tmp_path / 'store.sqlite3'}")
    checked = Checked(world)
    made = checked.call("POST", "/v1/plans", "/v1/plans", ALICE, world.proposal(ONE_EVENT_DRAFT))
    envelope = _envelope(world, WAIT_DRAFT)
    checked.call("POST", "/v1/plans", "/v1/plans", ALICE, envelope)
    replayed = checked.call("POST", "/v1/plans", "/v1/plans", ALICE, envelope)
    assert replayed["replayed"] is True
    world.work()
    (approval,) = list_approvals(world.executor)
    one = f"/v1/approvals/{approval['id']}"
    checked.call("GET", "/v1/approvals", "/v1/approvals", BOB)
    detail = checked.call("GET", one, "/v1/approvals/{approval_id}", BOB)
    assert detail["signing"] is not None
    decision = world.signed_decision(approval["id"], "approve", "principal:bob")
    template = "/v1/approvals/{approval_id}/decision"
    checked.call("POST", f"{one}/decision", template, BOB, decision)
    checked.call("POST", f"{one}/decision", template, BOB, decision)  # 409
    closed = checked.call("GET", one, "/v1/approvals/{approval_id}", BOB)
    assert closed["signing"] is None
    world.work()
    plan = f"/v1/plans/{made['plan_id']}"
    shown = checked.call("GET", plan, "/v1/plans/{plan_id}", ALICE)
    assert shown["status"] == "completed"
    checked.call("GET", "/v1/plans", "/v1/plans", ALICE)
    step = show_plan(world.executor, made["plan_id"])["steps"][0]
    checked.call("GET", f"/v1/executions/{step['id']}", "/v1/executions/{step_id}", ALICE)
    checked.call("POST", f"{plan}/cancel", "/v1/plans/{plan_id}/cancel", ALICE)  # 409
    checked.call("GET", "/v1/plans/nope", "/v1/plans/{plan_id}", ALICE)  # 404
    checked.call("GET", "/v1/plans", "/v1/plans", {})  # 401
    assert {status for _, _, status in checked.seen} == {200, 201, 401, 404, 409}

    plan_schema = _validator(checked.document, "/v1/plans/{plan_id}", "get", 200)
    broken = copy.deepcopy(shown)
    broken["steps"][0]["status"] = "sleeping"
    assert not plan_schema.is_valid(broken)
    del broken["steps"]
    assert not plan_schema.is_valid(broken)
    approval_schema = _validator(checked.document, "/v1/approvals/{approval_id}", "get", 200)
    assert not approval_schema.is_valid({**closed, "signing": {"approve": "x"}})
    assert not approval_schema.is_valid({**closed, "requester": "alice"})
