"""Every route answers unstorable text (a NUL character) with 422 ``input.invalid_text``.

The sweep reads the app's OpenAPI document (with a store, so the plan and approval routes
are there) and, on a SQLite and on a PostgreSQL store, sends ``a<NUL>b``:

* in each path parameter of each operation (the others set to a plain id): 422
  ``input.invalid_text`` at ``/path/<name>``;
* in each query parameter: 422 at ``/query/<name>``;
* for an operation of the store (one with a bearer-token ``security`` requirement), in each
  string of each example body of :func:`_bodies`, and in a member name: 422 at the pointer
  of that string. Every store operation with a body must have examples here.

PostgreSQL cannot hold a NUL (``psycopg.DataError``, formerly a 500) while SQLite can; the
answer must not depend on the back end. Operations outside the store (planning, find-slot,
integration) never store their text and keep their core parser's rules (their bodies are
byte-identical to the Python API's answers, docs/decisions/0036): for them the sweep only
asks that a body with a NUL in a member name and a value is a 4xx problem, never a 5xx.
Nothing the sweep sends may be stored: the store holds no plan at the end.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from httpx import Response

from cerebri.execution import list_approvals, list_plans
from cerebri.service.settings import EXAMPLES_DIR
from tests.execution._one_event import ONE_EVENT_DRAFT
from tests.service._store_world import World, auth, build_world
from tests.service.conftest import JSON

NUL_TEXT = "a\x00b"
METHODS = ("get", "post", "put", "delete", "patch")
HEADERS = {**auth("principal:alice"), **JSON}


@pytest.fixture(params=["sqlite", "postgresql"])
def world(request: pytest.FixtureRequest, tmp_path: Path) -> World:
    if request.param == "sqlite":
        return build_world(f"sqlite:///{tmp_path / 'store.sqlite3'}")
    return build_world(request.getfixturevalue("postgres_url"))


def _bodies(world: World, method: str, path: str) -> list[dict[str, Any]]:
    """Well-formed example bodies of a store operation (all of its string members)."""
    examples: dict[tuple[str, str], list[dict[str, Any]]] = {
        ("post", "/v1/plans"): [{"draft": ONE_EVENT_DRAFT}, world.proposal(ONE_EVENT_DRAFT)],
        ("post", "/v1/plans/{plan_id}/cancel"): [{"reason": "no longer needed"}],
        ("post", "/v1/approvals/{approval_id}/decision"): [
            {"decision": "approve", "reason": "fine", "keyid": "bob-key", "signature": "AAAA"}
        ],
        ("post", "/v1/outbox/resolve"): [
            {"key": "change-1:itip", "recipient": "mailto:bob@example.com", "happened": True}
        ],
        ("post", "/v1/proposals/prepare"): [
            {
                "request": json.loads((EXAMPLES_DIR / "design-review.json").read_text()),
                "title": "Review",
            }
        ],
    }
    return examples[(method, path)]


def _strings(value: Any, at: str = "") -> Iterator[tuple[str, list[str | int]]]:
    """``(pointer, location)`` of every string in a JSON value (location: keys/indexes)."""
    stack: list[tuple[Any, list[str | int]]] = [(value, [])]
    while stack:
        item, location = stack.pop()
        if isinstance(item, str):
            escaped = (str(p).replace("~", "~0").replace("/", "~1") for p in location)
            yield at + "".join("/" + part for part in escaped), location
        elif isinstance(item, dict):
            stack.extend((v, [*location, k]) for k, v in item.items())
        elif isinstance(item, list):
            stack.extend((v, [*location, i]) for i, v in enumerate(item))


def _with(value: Any, location: list[str | int], text: str) -> Any:
    """A deep copy of ``value`` with the string at ``location`` replaced by ``text``."""
    copy = json.loads(json.dumps(value))
    here = copy
    for part in location[:-1]:
        here = here[part]
    here[location[-1]] = text
    return copy


def _refused(response: Response, path: str, where: str) -> None:
    assert response.status_code == 422, (where, response.status_code, response.text)
    assert response.headers["content-type"] == "application/problem+json", where
    body = response.json()
    assert (body["status"], body["code"], body["path"]) == (422, "input.invalid_text", path), (
        where,
        body,
    )
    assert body["title"] == "Unprocessable Entity" and body["type"] == "about:blank", where
    assert "NUL character (U+0000) at offset 1" in body["detail"], (where, body)


def _url(path: str, values: dict[str, str]) -> str:
    return re.sub(r"\{([^}]+)\}", lambda m: quote(values[m.group(1)], safe=""), path)


def test_nul_in_any_parameter_or_store_body_string_is_invalid_text(world: World) -> None:
    client = world.client
    document = client.get("/openapi.json").json()
    operations = [
        (method, path, operation)
        for path, item in document["paths"].items()
        for method, operation in item.items()
        if method in METHODS
    ]
    store_operations = [o for o in operations if o[2].get("security")]
    # plans, cancel, executions, approvals, decisions, prepare, outbox resolve
    assert len(store_operations) == 11
    sent = {"path": 0, "query": 0, "body": 0, "other": 0}
    for method, path, operation in operations:
        parameters = operation.get("parameters", [])
        in_path = [p["name"] for p in parameters if p["in"] == "path"]
        in_query = [p["name"] for p in parameters if p["in"] == "query"]
        is_store = bool(operation.get("security"))
        body = _bodies(world, method, path)[0] if is_store and "requestBody" in operation else None
        plain = dict.fromkeys(in_path, "x")
        for name in in_path:
            url = _url(path, {**plain, name: NUL_TEXT})
            response = client.request(method, url, json=body, headers=HEADERS)
            _refused(response, f"/path/{name}", f"{method} {path} path {name}")
            sent["path"] += 1
        for name in in_query:
            response = client.request(
                method, _url(path, plain), params={name: NUL_TEXT}, headers=HEADERS
            )
            _refused(response, f"/query/{name}", f"{method} {path} query {name}")
            sent["query"] += 1
        if "requestBody" not in operation:
            continue
        if not is_store:
            response = client.request(
                method, _url(path, plain), json={NUL_TEXT: NUL_TEXT}, headers=HEADERS
            )
            assert 400 <= response.status_code < 500, (method, path, response.text)
            assert response.json()["code"], (method, path, response.text)
            sent["other"] += 1
            continue
        for example in _bodies(world, method, path):
            for pointer, location in _strings(example):
                response = client.request(
                    method,
                    _url(path, plain),
                    json=_with(example, location, NUL_TEXT),
                    headers=HEADERS,
                )
                _refused(response, pointer, f"{method} {path} body {pointer}")
                sent["body"] += 1
            response = client.request(
                method, _url(path, plain), json={**example, NUL_TEXT: 1}, headers=HEADERS
            )
            _refused(response, f"/{NUL_TEXT}", f"{method} {path} member name")
    assert sent["path"] >= 7 and sent["query"] >= 2 and sent["other"] >= 5
    assert sent["body"] >= 20  # the envelope alone holds more strings than that
    assert list_plans(world.executor) == []
    assert list_approvals(world.executor, status=None) == []


@pytest.mark.parametrize(
    "raw",
    [b'{"\\ud800":1}', b'{"a":"\\udfff"}', b'{"x":{"\\ud800\\ud800":[1]}}'],
    ids=["member-name", "value", "nested-name"],
)
def test_a_lone_surrogate_in_any_body_is_a_4xx_problem(world: World, raw: bytes) -> None:
    """A lone surrogate cannot be encoded as UTF-8, so a problem that names it (its ``path``)
    must escape it: every route with a body answers a 4xx problem whose path and detail write
    the surrogate as its JSON escape text, never a 5xx (issue #21, decision 0036)."""
    client = world.client
    document = client.get("/openapi.json").json()
    sent = 0
    for path, item in document["paths"].items():
        for method, operation in item.items():
            if method not in METHODS or "requestBody" not in operation:
                continue
            url = _url(path, {p["name"]: "x" for p in operation.get("parameters", [])})
            response = client.request(method, url, content=raw, headers=HEADERS)
            where = (method, path, response.status_code, response.text)
            assert 400 <= response.status_code < 500, where
            # the suggestions route keeps api.md's own rejection body (application/json)
            problem = "application/json" if "suggestions" in path else "application/problem+json"
            assert response.headers["content-type"] == problem, where
            body = response.json()
            assert body["code"] and body["detail"], where
            if body["path"] is not None and raw.startswith(b'{"\\ud800"'):
                assert body["path"] == "/\\ud800", where  # the escape's text, encodable
            sent += 1
    assert sent >= 8
    assert list_plans(world.executor) == []
