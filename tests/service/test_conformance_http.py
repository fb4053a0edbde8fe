"""Every conformance request on each route equals the Python API's JSON, byte for byte."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

import cerebri
from tests.service.conftest import JSON, compact

pytestmark = pytest.mark.conformance


def _planning_files(conformance: Path) -> list[Path]:
    folder = conformance / "cerebri"
    files = [*sorted(folder.glob("[0-9][0-9]-*.json")), folder / "request.json"]
    manifest = json.loads((folder / "planner" / "manifest.json").read_bytes())
    files += [
        folder / "planner" / s["file"] for s in manifest["scenarios"] if s["route"] == "/v1/plan"
    ]
    return files


def _temporal_files(conformance: Path) -> list[Path]:
    folder = conformance / "cerebri"
    manifest = json.loads((folder / "planner" / "manifest.json").read_bytes())
    planner = [
        folder / "planner" / s["file"]
        for s in manifest["scenarios"]
        if s["route"] == "/v1/temporal"
    ]
    return [folder / "temporal-request.json", *planner]


def test_plan_and_validate_equal_the_core(client: TestClient, conformance: Path) -> None:
    files = _planning_files(conformance)
    assert len(files) >= 20
    for path in files:
        data = path.read_bytes()
        for route, run in (("/v1/plan", cerebri.plan), ("/v1/validate", cerebri.validate)):
            response = client.post(route, content=data, headers=JSON)
            assert response.status_code == 200, (path.name, route, response.text)
            expected = run(data).to_wire()
            assert response.json() == expected, (path.name, route)
            assert response.content == compact(expected), (path.name, route)


def test_temporal_equals_the_core(client: TestClient, conformance: Path) -> None:
    for path in _temporal_files(conformance):
        data = path.read_bytes()
        response = client.post("/v1/temporal", content=data, headers=JSON)
        assert response.status_code == 200, path.name
        expected = cerebri.temporal_report(data).to_wire()
        assert response.json() == expected
        assert response.content == compact(expected)


def test_temporal_rejected_is_200(client: TestClient, conformance: Path) -> None:
    document = json.loads((conformance / "cerebri" / "temporal-request.json").read_bytes())
    result = cerebri.temporal_report(document).to_wire()
    assert isinstance(result, dict)
    response = client.post("/v1/temporal", content=compact(document), headers=JSON)
    assert response.status_code == 200
    assert response.json() == result
