"""Property-based API test generated from /openapi.json (schemathesis, in-process ASGI).

Asserts for a few generated requests per operation: no 5xx, documented status codes and
content types, and bodies conforming to the documented response schemas. Twice: the default
app, and an app serving a governed execution store (plans, executions, approvals, and the
outbox resolve over a throwaway folder), whose requests carry the token of a principal
holding every role; that store holds a plan waiting for approval, so the lists are not empty.

Requests go through Starlette's ``TestClient`` (httpx) rather than schemathesis's own
``requests`` transport: ``caldav`` pulls in ``urllib3-future``, whose pool container breaks
schemathesis's connection counting (``'TrafficPolice' object has no attribute 'keys'``).
"""

from __future__ import annotations

import atexit
import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

import schemathesis
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from cerebri.execution import add_principal, issue_token
from cerebri.service import ServiceSettings, create_app
from tests.execution._one_event import ONE_EVENT_DRAFT
from tests.service._store_world import build_world

APP = create_app()
CLIENT = TestClient(APP)
schema = schemathesis.openapi.from_asgi("/openapi.json", APP)

_FOLDER = Path(tempfile.mkdtemp(prefix="cerebri-schemathesis-"))
atexit.register(shutil.rmtree, _FOLDER, ignore_errors=True)
# the outbox route settles sends in a throwaway folder, never the user's default outbox
_WORLD = build_world(
    f"sqlite:///{_FOLDER / 'store.sqlite3'}", ServiceSettings(outbox=_FOLDER / "outbox")
)
add_principal(_WORLD.executor, "principal:root", roles=["approver", "operator", "requester"])
issue_token(_WORLD.executor, "principal:root", secret="root-token-0123456789")
_ROOT = {"Authorization": "Bearer root-token-0123456789"}
_WORLD.client.post("/v1/plans", json=_WORLD.proposal(ONE_EVENT_DRAFT), headers=_ROOT)
_WORLD.work()  # the plan now waits for approval
STORE_APP = _WORLD.client.app
store_schema = schemathesis.openapi.from_asgi("/openapi.json", STORE_APP, headers=_ROOT).include(
    path_regex="^/v1/(plans|executions|approvals|outbox)"  # the others are the default app's
)

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]


@schema.parametrize()
@settings(max_examples=5, deadline=None, suppress_health_check=list(HealthCheck))
def test_api_conforms_to_its_schema(case: schemathesis.Case) -> None:
    kwargs = case.as_transport_kwargs(base_url="http://testserver")
    response = CLIENT.request(
        kwargs["method"],
        kwargs["url"],
        headers=kwargs.get("headers"),
        params=kwargs.get("params"),
        content=_content(kwargs),
    )
    case.validate_response(response, checks=CHECKS)


@store_schema.parametrize()
@settings(max_examples=5, deadline=None, suppress_health_check=list(HealthCheck))
def test_store_api_conforms_to_its_schema(case: schemathesis.Case) -> None:
    kwargs = case.as_transport_kwargs(base_url="http://testserver")
    response = _WORLD.client.request(
        kwargs["method"],
        kwargs["url"],
        headers={**(kwargs.get("headers") or {}), **_ROOT},
        params=kwargs.get("params"),
        content=_content(kwargs),
    )
    case.validate_response(response, checks=CHECKS)


def _content(kwargs: dict[str, Any]) -> bytes | None:
    if "json" in kwargs:
        return json.dumps(kwargs["json"]).encode("utf-8")
    data = kwargs.get("data")
    if data is None or isinstance(data, bytes):
        return data
    return str(data).encode("utf-8")
