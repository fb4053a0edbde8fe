"""Plain routes: /health, manifest, examples, Lab redirect, 404s, bearer token."""

from __future__ import annotations

import json
from pathlib import Path

from fastapi.testclient import TestClient

import cerebri
from cerebri.service import ServiceSettings, create_app
from tests.service.conftest import JSON, compact

REPO = Path(__file__).resolve().parents[2]
PACKAGED = REPO / "src" / "cerebri" / "service" / "examples"


def test_health(client: TestClient) -> None:
    response = client.get("/health")
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    assert response.json() == {
        "cpir_schema": "0.2",
        "release_state": "research",
        "software_version": cerebri.__version__,
        "status": "ok",
        "supported_cpir_schemas": ["0.1", "0.2"],
    }
    assert list(response.json()) == sorted(response.json())


def test_manifest(client: TestClient) -> None:
    response = client.get("/v1/integration/manifest")
    assert response.status_code == 200
    assert response.json() == {
        "integration_version": {"major": 0, "minor": 1},
        "software_version": cerebri.__version__,
        "profile": "single_event_suggestion",
        "cpir_schema_version": {"major": 0, "minor": 2},
        "operations": ["FIND_SLOT"],
        "deployment_modes": ["Test", "Shadow", "Suggestion"],
        "temporal_coverage_required": True,
        "execution_supported": False,
        "max_request_bytes": 262144,
    }


def test_packaged_example_is_a_copy_of_the_repository_example() -> None:
    assert (PACKAGED / "design-review.json").read_bytes() == (
        REPO / "examples" / "design-review.json"
    ).read_bytes()


def test_examples(client: TestClient) -> None:
    listing = client.get("/v1/examples")
    assert listing.status_code == 200
    assert "design-review" in listing.json()
    for name in ("design-review", "design-review.json"):
        one = client.get(f"/v1/examples/{name}")
        assert one.status_code == 200
        assert one.content == (PACKAGED / "design-review.json").read_bytes()
        planned = client.post("/v1/plan", content=one.content, headers=JSON)
        assert planned.content == compact(cerebri.plan(one.content).to_wire())
    for missing in ("nope", "..%2Fsettings.py", ".hidden"):
        response = client.get(f"/v1/examples/{missing}")
        assert response.status_code == 404
        assert response.headers["content-type"] == "application/problem+json"


def test_lab_redirect_and_static(client: TestClient) -> None:
    response = client.get("/lab", follow_redirects=False)
    assert response.status_code == 308
    assert response.headers["location"] == "/lab/"
    page = client.get("/lab/")
    assert page.status_code == 200
    assert "text/html" in page.headers["content-type"]


def test_lab_absent_is_404(tmp_path: Path) -> None:
    app = create_app(ServiceSettings(lab_dir=tmp_path / "missing"))
    assert TestClient(app).get("/lab/").status_code == 404


def test_no_execution_route(client: TestClient) -> None:
    for path in ("/v1/execute", "/v1/integration/execute"):
        response = client.post(path, content=b"{}", headers=JSON)
        assert response.status_code == 404
        body = response.json()
        assert body["status"] == 404
        assert body["code"] == "http.not_found"
    assert client.get("/v1/plan").status_code == 405


def test_openapi_describes_every_route(client: TestClient) -> None:
    document = client.get("/openapi.json").json()
    assert set(document["paths"]) == {
        "/health",
        "/v1/validate",
        "/v1/plan",
        "/v1/temporal",
        "/v1/optimize",
        "/v1/integration/manifest",
        "/v1/integration/suggestions",
        "/v1/examples",
        "/v1/examples/{name}",
        "/v1/find-slot",
        "/v1/find-slot/event",
        "/v1/find-slot/events",
        "/v1/events/reschedule",
        "/v1/events/cancel",
        "/v1/events/update",
    }
    body = document["paths"]["/v1/plan"]["post"]["requestBody"]["content"]["application/json"]
    assert body["schema"] == {"$ref": "#/components/schemas/PlanningRequest"}
    schemas = document["components"]["schemas"]
    for ref in _refs(document):
        assert ref.removeprefix("#/components/schemas/") in schemas, ref
    assert client.get("/docs").status_code == 200


def _refs(node: object) -> list[str]:
    if isinstance(node, dict):
        own = [node["$ref"]] if isinstance(node.get("$ref"), str) else []
        return own + [r for value in node.values() for r in _refs(value)]
    if isinstance(node, list):
        return [r for item in node for r in _refs(item)]
    return []


def test_bearer_token() -> None:
    client = TestClient(create_app(ServiceSettings(token="s3cret")))
    example = (PACKAGED / "design-review.json").read_bytes()
    for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": "s3cret"}):
        response = client.get("/health", headers=headers)
        assert response.status_code == 401
        assert response.headers["content-type"] == "application/problem+json"
        assert response.json()["code"] == "auth.unauthorized"
        assert (
            client.post("/v1/plan", content=example, headers={**JSON, **headers}).status_code == 401
        )
    good = {"Authorization": "Bearer s3cret"}
    assert client.get("/health", headers=good).status_code == 200
    planned = client.post("/v1/plan", content=example, headers={**JSON, **good})
    assert planned.status_code == 200
    assert json.loads(planned.content) == cerebri.plan(example).to_wire()
