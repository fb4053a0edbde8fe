"""Transport cases of api.md section 4: status classes, problem bodies, agreement with core."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest
from fastapi.testclient import TestClient

import cerebri
from cerebri import ParseError
from tests.service.conftest import JSON, compact
from tests.test_bad_input import BASE, CASES

ROUTES = ("/v1/plan", "/v1/validate")
CORE = {"/v1/plan": cerebri.plan, "/v1/validate": cerebri.validate}
EXAMPLE = compact(BASE)
LIMIT = 262_144
LIMITS = {"/v1/optimize": 4 * 1024 * 1024}  # the optimiser's admission limit (decision 0077)


def _problem(response: Any, status: int, code: str | None = None) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/problem+json"
    body = response.json()
    assert set(body) == {"type", "title", "status", "detail", "code", "path"}
    assert body["status"] == status
    if code is not None:
        assert body["code"] == code
    return dict(body)


def _agrees(client: TestClient, route: str, data: bytes) -> None:
    """A 4xx problem when the core cannot parse ``data``; else 200 equal to the core."""
    response = client.post(route, content=data, headers=JSON)
    assert response.status_code < 500
    try:
        expected = CORE[route](data).to_wire()
    except ParseError as error:
        if response.status_code == 413:
            return
        body = _problem(response, response.status_code, error.code)
        assert 400 <= body["status"] < 500
        assert body["path"] == error.path
        return
    if response.status_code == 413:
        assert len(data) > LIMIT
        return
    assert response.status_code == 200, response.text
    assert response.content == compact(expected)


def _as_bytes(source: Any) -> bytes:
    if isinstance(source, bytes):
        return source
    if isinstance(source, str):
        return source.encode("utf-8", "surrogatepass")
    return json.dumps(source, ensure_ascii=False).encode("utf-8", "surrogatepass")


@pytest.mark.parametrize("route", ROUTES)
def test_malformed_corpus(client: TestClient, route: str) -> None:
    for case in CASES:
        _agrees(client, route, _as_bytes(case.values[0]()))


@pytest.mark.parametrize("route", ROUTES)
def test_seeded_byte_mutations(client: TestClient, route: str) -> None:
    rng = random.Random(20_260_930)
    for _ in range(128):
        data = bytearray(EXAMPLE)
        kind = rng.randrange(3)
        at = rng.randrange(len(data))
        if kind == 0:
            del data[at:]
        elif kind == 1:
            del data[at]
        else:
            data[at] = rng.choice(b'{}[]"0:x ')
        _agrees(client, route, bytes(data))


def test_extreme_date_is_no_solution(client: TestClient) -> None:
    document = copy.deepcopy(BASE)
    start, end = "+262142-12-31T23:59:57Z", "+262142-12-31T23:59:59Z"
    document["scope"]["time_range"] = {"start": start, "end": end}
    document["context"]["objects"] = [
        o for o in document["context"]["objects"] if o["id"] in document["target_ids"]
    ]
    document["context"]["facts"] = []
    document["preferences"]["preferences"] = []
    document["duration"]["value"]["knowledge"]["data"] = 1
    document["granularity"] = 1
    rule = {"kind": "EXPLICIT_DATE", "value": "+262142-12-31"}
    target = document["target_ids"][0]
    document["constraints"] = [{"object_id": target, "rule": rule, "evidence": []}]
    data = compact(document)
    try:
        expected = cerebri.plan(data).to_wire()
    except ParseError as error:  # the shape of EXPLICIT_DATE differs: report it clearly
        pytest.fail(f"extreme-date request does not parse: {error}")
    response = client.post("/v1/plan", content=data, headers=JSON)
    assert response.status_code == 200
    assert response.content == compact(expected)
    assert expected["outcome"] == "NoSolution"
    assert expected["assessment"] == "Complete"


@pytest.mark.parametrize("route", [*ROUTES, "/v1/temporal", "/v1/optimize"])
def test_status_codes(client: TestClient, route: str) -> None:
    limit = LIMITS.get(route, LIMIT)
    _problem(client.post(route, content=b" " * (limit + 1), headers=JSON), 413, "input.too_large")
    _problem(client.post(route, content=b"{}", headers=JSON), 422, "cpir.missing_field")
    _problem(client.post(route, content=b"[]", headers=JSON), 422, "json.not_object")
    _problem(client.post(route, content=b"private-invalid-json", headers=JSON), 400, "json.syntax")
    _problem(client.post(route, content=b"", headers=JSON), 400, "json.syntax")
    _problem(client.post(route, content=b'{"a":NaN}', headers=JSON), 400)
    _problem(client.post(route, content=b'{"a":1e9999}', headers=JSON), 400)
    _problem(client.post(route, content=b'{"a":1,"a":2}', headers=JSON), 400, "json.duplicate_key")
    _problem(client.post(route, content=b"[" * 140 + b"]" * 140, headers=JSON), 400)
    _problem(client.post(route, content=b"\xff{}", headers=JSON), 400, "json.syntax")
    for content_type in (None, "text/plain", "application/json; charset=latin-1", "text/json"):
        headers = {} if content_type is None else {"Content-Type": content_type}
        response = client.post(route, content=EXAMPLE, headers=headers)
        _problem(response, 415, "http.unsupported_media_type")
    for content_type in ("application/json; charset=UTF-8", "application/cpir+json"):
        response = client.post(route, content=b"{}", headers={"Content-Type": content_type})
        assert response.status_code == 422


def test_exact_limit_is_parsed(client: TestClient) -> None:
    padded = EXAMPLE + b" " * (LIMIT - len(EXAMPLE))
    assert len(padded) == LIMIT
    response = client.post("/v1/plan", content=padded, headers=JSON)
    assert response.status_code == 200
    assert response.content == compact(cerebri.plan(padded).to_wire())


def test_streamed_oversize_body_is_413(client: TestClient) -> None:
    def chunks() -> Any:
        for _ in range(5):
            yield b" " * 65_536
        yield b"{}"

    response = client.post("/v1/plan", content=chunks(), headers=JSON)
    _problem(response, 413, "input.too_large")


def test_unplannable_request_is_200(client: TestClient) -> None:
    document = copy.deepcopy(BASE)
    document["operation"] = "CANCEL"
    data = compact(document)
    response = client.post("/v1/plan", content=data, headers=JSON)
    assert response.status_code == 200
    assert response.content == compact(cerebri.plan(data).to_wire())


@pytest.mark.parametrize("route", [*ROUTES, "/v1/temporal", "/v1/optimize"])
def test_problem_path_is_a_pointer_the_root_or_null(client: TestClient, route: str) -> None:
    """``path`` is an RFC 6901 pointer to the fault: ``""`` only when the whole document is
    at fault (not an object), ``null`` when no position applies (syntax, size, media type,
    unknown route); never ``""`` for "no position"."""

    def path_of(content: bytes, status: int, headers: dict[str, str] = JSON) -> Any:
        return _problem(client.post(route, content=content, headers=headers), status)["path"]

    assert path_of(b"[]", 422) == ""
    assert path_of(b'"text"', 422) == ""
    assert path_of(b'{"zzz":1}', 422) == "/zzz"
    assert path_of(b"{", 400) is None
    assert path_of(b"", 400) is None
    assert path_of(b" " * (LIMITS.get(route, LIMIT) + 1), 413) is None
    assert path_of(b"{}", 415, {"Content-Type": "text/plain"}) is None
    assert _problem(client.get("/v1/nowhere"), 404)["path"] is None
