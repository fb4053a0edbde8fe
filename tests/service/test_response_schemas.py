"""The documented 200 schemas of /v1/validate, /v1/plan and /v1/temporal fit real responses.

Every conformance request and every example request is answered by the service, and the body
is validated (draft 2020-12) against the route's documented schema, ``$ref``s resolved
against the OpenAPI document itself. A few mutated results must be rejected.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from tests.service.conftest import JSON

REPO = Path(__file__).resolve().parent.parent.parent
EXAMPLES = [
    REPO / "examples" / "design-review.json",
    *sorted((REPO / "src" / "cerebri" / "service" / "examples").glob("*.json")),
]
ROUTES = ("/v1/validate", "/v1/plan", "/v1/temporal")
_BASE = "urn:cerebri:openapi"


@pytest.fixture(scope="module")
def document(client: TestClient) -> dict[str, Any]:
    response = client.get("/openapi.json")
    assert response.status_code == 200
    body: dict[str, Any] = response.json()
    return body


def _validator(document: dict[str, Any], route: str) -> Draft202012Validator:
    content = document["paths"][route]["post"]["responses"]["200"]["content"]
    schema = content["application/json"]["schema"]
    resource = Resource(contents=document, specification=DRAFT202012)
    registry: Registry[Any] = Registry().with_resource(_BASE, resource)
    return Draft202012Validator({"$ref": _BASE + schema["$ref"]}, registry=registry)


def _is_valid(document: dict[str, Any], route: str, body: Any) -> bool:
    return _validator(document, route).is_valid(body)


def _assert_fits(document: dict[str, Any], route: str, body: Any, name: str) -> None:
    errors = list(_validator(document, route).iter_errors(body))
    assert not errors, (name, route, [(list(e.absolute_path), e.message[:300]) for e in errors])


def _manifest_files(conformance: Path, route: str) -> list[Path]:
    planner = conformance / "cerebri" / "planner"
    manifest = json.loads((planner / "manifest.json").read_bytes())
    return [planner / s["file"] for s in manifest["scenarios"] if s["route"] == route]


def _planning_files(conformance: Path) -> list[Path]:
    folder = conformance / "cerebri"
    files = [*sorted(folder.glob("[0-9][0-9]-*.json")), folder / "request.json"]
    return files + _manifest_files(conformance, "/v1/plan")


def _temporal_files(conformance: Path) -> list[Path]:
    folder = conformance / "cerebri"
    return [folder / "temporal-request.json", *_manifest_files(conformance, "/v1/temporal")]


def _answer(client: TestClient, route: str, data: bytes) -> Any:
    response = client.post(route, content=data, headers=JSON)
    assert response.status_code == 200, (route, response.text)
    return response.json()


def test_routes_reference_the_result_components(document: dict[str, Any]) -> None:
    names = {"/v1/validate": "ValidationReport", "/v1/plan": "PlanningResult"}
    names["/v1/temporal"] = "TemporalResult"
    for route, name in names.items():
        content = document["paths"][route]["post"]["responses"]["200"]["content"]
        assert content["application/json"]["schema"] == {"$ref": f"#/components/schemas/{name}"}
        assert name in document["components"]["schemas"]
    Draft202012Validator.check_schema(document["components"]["schemas"]["PlanningResult"])


@pytest.mark.conformance
def test_conformance_planning_responses_fit(
    client: TestClient, document: dict[str, Any], conformance: Path
) -> None:
    files = _planning_files(conformance)
    assert len(files) >= 20
    outcomes = set()
    for path in files:
        data = path.read_bytes()
        for route in ("/v1/validate", "/v1/plan"):
            body = _answer(client, route, data)
            _assert_fits(document, route, body, path.name)
            if route == "/v1/plan":
                outcomes.add(body["outcome"])
    assert {"Solution", "NoSolution", "InsufficientInformation"} <= outcomes


@pytest.mark.conformance
def test_conformance_temporal_responses_fit(
    client: TestClient, document: dict[str, Any], conformance: Path
) -> None:
    files = _temporal_files(conformance)
    assert len(files) >= 2
    for path in files:
        body = _answer(client, "/v1/temporal", path.read_bytes())
        _assert_fits(document, "/v1/temporal", body, path.name)


def test_example_responses_fit(client: TestClient, document: dict[str, Any]) -> None:
    assert EXAMPLES[0].is_file()
    for path in EXAMPLES:
        data = path.read_bytes()
        temporal = "operation" not in json.loads(data)
        for route in ("/v1/temporal",) if temporal else ("/v1/validate", "/v1/plan"):
            _assert_fits(document, route, _answer(client, route, data), path.name)


def test_temporal_rejection_fits(document: dict[str, Any]) -> None:
    rejected = {"status": "Rejected", "data": "OccurrenceLimitExceeded"}
    assert _is_valid(document, "/v1/temporal", rejected)
    assert not _is_valid(document, "/v1/temporal", {**rejected, "data": "InvalidRange"})
    assert not _is_valid(document, "/v1/temporal", {"status": "Complete", "data": "Overflow"})


@pytest.fixture(scope="module")
def solution(client: TestClient) -> dict[str, Any]:
    body: dict[str, Any] = _answer(client, "/v1/plan", EXAMPLES[0].read_bytes())
    assert body["outcome"] == "Solution" and body["candidates"]
    return body


def test_the_unmutated_solution_fits(document: dict[str, Any], solution: dict[str, Any]) -> None:
    assert _is_valid(document, "/v1/plan", solution)


def test_unknown_outcome_is_rejected(document: dict[str, Any], solution: dict[str, Any]) -> None:
    mutated = {**solution, "outcome": "Maybe"}
    assert not _is_valid(document, "/v1/plan", mutated)


def test_outcome_assessment_mismatch_is_rejected(
    document: dict[str, Any], solution: dict[str, Any]
) -> None:
    assert not _is_valid(document, "/v1/plan", {**solution, "assessment": "Complete"})


def test_extra_key_in_a_candidate_is_rejected(
    document: dict[str, Any], solution: dict[str, Any]
) -> None:
    mutated = copy.deepcopy(solution)
    mutated["candidates"][0]["score"] = 1
    assert not _is_valid(document, "/v1/plan", mutated)


def test_missing_search_space_is_rejected(
    document: dict[str, Any], solution: dict[str, Any]
) -> None:
    mutated = {key: value for key, value in solution.items() if key != "search_space"}
    assert not _is_valid(document, "/v1/plan", mutated)


@pytest.mark.parametrize(
    "issue",
    ["Unsupported", {"ScopeViolation": "a", "NoTargets": "b"}, {"RequiredDuration": "Late"}],
)
def test_malformed_issues_are_rejected(document: dict[str, Any], issue: Any) -> None:
    report = {"state": "InsufficientInformation", "issues": [issue]}
    assert not _is_valid(document, "/v1/validate", report)
    good = {"state": "InsufficientInformation", "issues": ["NoTargets", {"ScopeViolation": "a"}]}
    assert _is_valid(document, "/v1/validate", good)


def test_half_set_ranking_features_are_rejected(
    document: dict[str, Any], solution: dict[str, Any]
) -> None:
    mutated = copy.deepcopy(solution)
    features = mutated["candidates"][0]["ranking_features"]
    features["preferred_start_distance_seconds"] = 0
    features["preferred_start_source"] = None
    assert not _is_valid(document, "/v1/plan", mutated)
