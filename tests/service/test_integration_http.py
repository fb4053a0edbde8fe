"""The integration profile over HTTP (api.md section 5): fixture, envelopes, admission codes."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from http import HTTPStatus
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

import cerebri
from cerebri.service.integration import DETAILS, TRANSPORT_DETAILS
from tests.service.conftest import JSON, compact

pytestmark = pytest.mark.conformance

ROUTE = "/v1/integration/suggestions"
VERSION = {"major": 0, "minor": 1}


@pytest.fixture(scope="module")
def envelope(conformance: Path) -> dict[str, Any]:
    data = (conformance / "cerebri" / "integration" / "suggestion.json").read_bytes()
    return dict(json.loads(data))


def _post(client: TestClient, document: Any) -> Any:
    return client.post(ROUTE, content=compact(document), headers=JSON)


def _planned(request: dict[str, Any]) -> dict[str, Any]:
    return {
        "integration_version": VERSION,
        "status": "planned",
        "request_id": request["request_id"],
        "trace_id": request["trace_id"],
        "context_revision": request["context"]["revision"],
        "result": cerebri.plan(request).to_wire(),
    }


def test_fixture_is_planned(client: TestClient, envelope: dict[str, Any]) -> None:
    response = _post(client, envelope)
    assert response.status_code == 200
    expected = _planned(envelope["request"])
    assert response.json() == expected
    assert response.content == compact(expected)
    result = response.json()["result"]
    assert (result["outcome"], result["assessment"]) == ("Solution", "ProvenOptimal")
    starts = [c["proposed"]["placements"][0]["range"]["start"] for c in result["candidates"]]
    assert starts == [
        f"2026-10-01T{t}:00Z"
        for t in ("10:00", "10:15", "10:30", "10:45", "11:00", "11:15", "11:30")
    ]


def test_incomplete_coverage_is_planned_insufficient(
    client: TestClient, envelope: dict[str, Any]
) -> None:
    document = copy.deepcopy(envelope)
    document["request"]["context"]["temporal"]["coverage"] = "Incomplete"
    response = _post(client, document)
    assert response.status_code == 200
    assert response.json() == _planned(document["request"])
    result = response.json()["result"]
    assert result["outcome"] == "InsufficientInformation"
    assert result["candidates"] == []


def _set(pointer: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def change(document: dict[str, Any]) -> None:
        *parents, last = pointer.strip("/").split("/")
        node: Any = document
        for step in parents:
            node = node[int(step)] if isinstance(node, list) else node[step]
        if isinstance(node, list):
            node[int(last)] = value
        else:
            node[last] = value

    return change


def _drop_temporal(document: dict[str, Any]) -> None:
    del document["request"]["context"]["temporal"]


def _two_targets(document: dict[str, Any]) -> None:
    document["request"]["target_ids"] = ["new-event", "busy"]


GRANT = {
    "object_id": "new-event",
    "calendar_id": "synthetic-calendar",
    "integration_id": "mock",
    "kind": "CREATE_EVENT",
}
REJECTIONS = [
    ("unsupported_integration_version", _set("/integration_version/minor", 2)),
    ("unsupported_cpir_version", _set("/request/schema_version/minor", 1)),
    ("unsupported_operation", _set("/request/operation", "PLAN")),
    ("mutation_authority_forbidden", _set("/request/scope/max_mutations", 1)),
    ("mutation_authority_forbidden", _set("/request/policy/snapshot/mutation/max_mutations", 1)),
    (
        "mutation_authority_forbidden",
        _set("/request/policy/snapshot/mutation/allowed_actions", ["CREATE_EVENT"]),
    ),
    ("mutation_authority_forbidden", _set("/request/planning_capability/mutations", [GRANT])),
    ("unsupported_deployment_mode", _set("/request/policy/snapshot/mode", "Confirmation")),
    ("prospective_event_required", _two_targets),
    ("prospective_event_required", _set("/request/target_ids", ["busy"])),
    ("prospective_event_required", _set("/request/target_ids", ["ghost"])),
    (
        "prospective_event_required",
        _set(
            "/request/context/objects/0/kind",
            {"kind": "TASK", "details": {"splittable": False, "interruptible": False}},
        ),
    ),
    ("temporal_coverage_required", _drop_temporal),
    (
        "uncertain_duration_forbidden",
        _set("/request/policy/snapshot/allow_uncertain_duration", True),
    ),
    ("invalid_request", _set("/private-content", "secret")),
    ("invalid_request", _set("/request/unexpected", 1)),
    ("invalid_request", _set("/integration_version", "0.1")),
]
# The field each case above breaks, as the rejection's ``path`` (schema names only: an
# unknown key the client chose is never echoed, so "/private-content" answers "").
PATHS = [
    "/integration_version",
    "/request/schema_version",
    "/request/operation",
    "/request/scope/max_mutations",
    "/request/policy/snapshot/mutation/max_mutations",
    "/request/policy/snapshot/mutation/allowed_actions",
    "/request/planning_capability/mutations",
    "/request/policy/snapshot/mode",
    "/request/target_ids",
    "/request/target_ids",
    "/request/target_ids",
    "/request/target_ids",
    "/request/context",
    "/request/policy/snapshot/allow_uncertain_duration",
    "",
    "/request",
    "/integration_version",
]


def _rejected(code: str, status: int, path: str | None) -> dict[str, Any]:
    """The api.md 5.4 envelope plus the RFC 9457 members (decision 0027)."""
    return {
        "integration_version": VERSION,
        "status": "rejected",
        "code": code,
        "type": "about:blank",
        "title": HTTPStatus(status).phrase,
        "detail": TRANSPORT_DETAILS.get(status, DETAILS[code])
        if code == "invalid_request"
        else DETAILS[code],
        "path": path,
    }


@pytest.mark.parametrize(
    ("code", "change", "path"), [(*r, p) for r, p in zip(REJECTIONS, PATHS, strict=True)]
)
def test_admission_rejections(
    client: TestClient,
    envelope: dict[str, Any],
    code: str,
    change: Callable[[dict[str, Any]], None],
    path: str,
) -> None:
    document = copy.deepcopy(envelope)
    change(document)
    response = _post(client, document)
    assert response.status_code == 422, response.text
    assert response.json() == _rejected(code, 422, path)
    assert "secret" not in response.text
    assert "private" not in response.text


def test_first_failing_rule_wins(client: TestClient, envelope: dict[str, Any]) -> None:
    document = copy.deepcopy(envelope)
    _drop_temporal(document)
    document["request"]["operation"] = "PLAN"
    document["request"]["scope"]["max_mutations"] = 1
    assert _post(client, document).json()["code"] == "unsupported_operation"


def test_transport_rejections(client: TestClient, envelope: dict[str, Any]) -> None:
    cases = [
        (b"{}", JSON, 422, "invalid_request", ""),
        (b"private-invalid-json", JSON, 400, "invalid_request", None),
        (b" " * 262_145, JSON, 413, "request_too_large", None),
        (compact(envelope), {"Content-Type": "text/plain"}, 415, "invalid_request", None),
        (compact(envelope), {}, 415, "invalid_request", None),
    ]
    for body, headers, status, code, path in cases:
        response = client.post(ROUTE, content=body, headers=headers)
        assert response.status_code == status
        assert response.headers["content-type"] == "application/json"
        assert response.json() == _rejected(code, status, path)
        assert "private" not in response.text
