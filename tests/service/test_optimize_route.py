"""``POST /v1/optimize`` (decision 0077): the PlanningResult of an OPTIMIZE, equal to the
CLI's ``cerebri plan`` bytes; 4 MiB body limit; other operations refused; its documented
200 schema fits real answers."""

from __future__ import annotations

import json
from typing import Any

from fastapi.testclient import TestClient

import cerebri
from cerebri._json import compact
from tests.optimize_wire.test_wire_answer import repair, three
from tests.service.conftest import JSON
from tests.service.test_response_schemas import _is_valid


def _post(client: TestClient, body: bytes) -> Any:
    return client.post("/v1/optimize", content=body, headers=JSON)


def test_answers_the_batch_as_cerebri_plan(client: TestClient) -> None:
    body = json.dumps(three()).encode()
    response = _post(client, body)
    assert response.status_code == 200, response.text
    assert response.content == compact(cerebri.plan(body).to_wire()).encode()
    batch = response.json()["batch"]
    # by hand (tests/optimize_wire): m-a 08-09Z, m-b and m-c 09-10Z, soft 8
    assert (batch["status"], batch["score"]) == (
        "OPTIMAL",
        {"hard": 0, "medium": 0, "soft": 8},
    )
    assert [a["range"]["start"] for a in batch["assignments"]] == [
        "2026-10-05T08:00:00Z",
        "2026-10-05T09:00:00Z",
        "2026-10-05T09:00:00Z",
    ]


def test_infeasible_is_an_answer(client: TestClient) -> None:
    response = _post(client, json.dumps(repair(0)).encode())
    assert response.status_code == 200
    answer = response.json()
    assert (answer["outcome"], answer["batch"]["status"]) == ("NoSolution", "INFEASIBLE")
    assert answer["batch"]["conflict"]


def test_other_operations_are_refused(client: TestClient) -> None:
    body = json.dumps(three() | {"operation": "CREATE", "batch": None}).encode()
    response = _post(client, body)
    assert response.status_code == 422
    problem = response.json()
    assert (problem["code"], problem["path"]) == ("input.invalid_argument", "/operation")


def test_body_limit_is_the_optimisers_four_mib(client: TestClient) -> None:
    request = three()
    # JSON white space as padding: over 256 KiB, under 4 MiB
    text = json.dumps(request)
    big = text[:-1] + " " * (300 * 1024) + "}"
    assert 256 * 1024 < len(big) < 4 * 1024 * 1024
    assert _post(client, big.encode()).status_code == 200
    assert client.post("/v1/plan", content=big.encode(), headers=JSON).status_code == 413
    huge = text[:-1] + " " * (4 * 1024 * 1024) + "}"
    response = _post(client, huge.encode())
    assert (response.status_code, response.json()["code"]) == (413, "input.too_large")


def test_the_documented_schema_fits(client: TestClient) -> None:
    document = client.get("/openapi.json").json()
    post = document["paths"]["/v1/optimize"]["post"]
    schema = post["responses"]["200"]["content"]["application/json"]["schema"]
    assert schema == {"$ref": "#/components/schemas/PlanningResult"}
    for request in (three(), repair(0)):
        answer = _post(client, json.dumps(request).encode()).json()
        assert _is_valid(document, "/v1/optimize", answer)
