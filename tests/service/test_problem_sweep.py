"""Every route in the OpenAPI document answers bad input with an RFC 9457 body.

For each operation of the app with a store (so the plan and approval routes are there) the
sweep sends: a wrong method (405), for a route with a body a non-JSON body (400), a body that
is not an object (422), a body with an unknown key (422) and a wrong media type (415); for a
route with path parameters an id that does not exist (404); for a route with query
parameters a bad value (422); and a route that does not exist (404). Every 4xx answer must
carry ``type``, ``title``, ``status``, ``detail`` (non-empty), a stable code, and a ``path``
member, which is a JSON pointer string whenever the body is at fault (422).
"""

from __future__ import annotations

import json
import re
from http import HTTPStatus
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from httpx import Response

from tests.service._store_world import World, auth, build_world
from tests.service.conftest import JSON

SUGGESTIONS = "/v1/integration/suggestions"
METHODS = ("get", "post", "put", "delete", "patch")


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> World:
    folder: Path = tmp_path_factory.mktemp("sweep")
    return build_world(f"sqlite:///{folder / 'store.sqlite3'}")


def _operations(client: TestClient) -> list[tuple[str, str, dict[str, Any]]]:
    document = client.get("/openapi.json").json()
    return [
        (method, path, operation)
        for path, item in document["paths"].items()
        for method, operation in item.items()
        if method in METHODS
    ]


def _check(response: Response, status: int, where: str) -> None:
    assert response.status_code == status, (where, response.text)
    body = response.json()
    assert isinstance(body, dict), where
    for field in ("type", "title", "status", "detail", "code", "path"):
        assert field in body, (where, field, body)
    assert isinstance(body["type"], str) and body["type"], where
    assert body["title"] == HTTPStatus(status).phrase, where
    assert isinstance(body["detail"], str) and body["detail"].strip(), where
    assert isinstance(body["code"], str) and body["code"], where
    if where == f"POST {SUGGESTIONS}":
        # api.md 5.4 fixes "status": "rejected" in the envelope (decision 0027).
        assert body["status"] == "rejected", where
    else:
        assert response.headers["content-type"] == "application/problem+json", where
        assert body["status"] == status, where
    if status == 422:
        assert isinstance(body["path"], str), (where, body)
        assert body["path"] == "" or body["path"].startswith("/"), (where, body)


def _concrete(path: str) -> str:
    return re.sub(r"\{[^}]+\}", "no-such-id", path)


def test_every_route_answers_bad_input_with_a_full_problem(world: World) -> None:
    client = world.client
    headers = auth("principal:alice")
    operations = _operations(client)
    assert len(operations) >= 15  # planning, integration, examples, plans, approvals
    checked = 0
    for method, path, operation in operations:
        url = _concrete(path)
        where = f"{method.upper()} {path}"
        unused = next(m for m in METHODS if m not in {m for m, p, _ in operations if p == path})
        _check(client.request(unused.upper(), url, headers=headers), 405, f"{unused} {path}")
        if "requestBody" in operation:
            send = {**headers, **JSON}
            if "{" not in path:
                _check(client.request(method, url, content=b"{", headers=send), 400, where)
                _check(client.request(method, url, content=b"[]", headers=send), 422, where)
                _check(
                    client.request(method, url, content=b'{"zz-unknown": 1}', headers=send),
                    422,
                    where,
                )
                plain = {**headers, "Content-Type": "text/plain"}
                _check(client.request(method, url, content=b"{}", headers=plain), 415, where)
            checked += 1
        parameters = operation.get("parameters", [])
        if any(p["in"] == "path" for p in parameters):
            content = (
                json.dumps(_minimal_body(path)).encode() if "requestBody" in operation else None
            )
            send = {**headers, **JSON} if content else headers
            _check(client.request(method, url, content=content, headers=send), 404, where)
            checked += 1
        for parameter in (p for p in parameters if p["in"] == "query"):
            if parameter.get("schema", {}).get("type") == "string" and "enum" not in parameter.get(
                "schema", {}
            ):
                continue
            bad = client.request(method, url, params={parameter["name"]: "zz-bad"}, headers=headers)
            _check(bad, 422, where)
            checked += 1
    assert checked >= 10
    _check(client.get("/v1/no-such-route", headers=headers), 404, "GET /v1/no-such-route")


def _minimal_body(path: str) -> dict[str, Any]:
    """A well-formed body for a route with an id in its path (only the id is wrong)."""
    if path.endswith("/decision"):
        return {"decision": "approve", "keyid": "alice", "signature": "AAAA"}
    return {}
