"""The JSON schemas know the ``batch`` member and the OPTIMIZE answers (decision 0070):
requests against :func:`cerebri.cpir.request_json_schema`, answers and every batch issue
against the published result components."""

from __future__ import annotations

from typing import Any

from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

import cerebri
from cerebri.cpir import request_json_schema
from cerebri.cpir.result_schema import component_schemas
from tests.optimize_wire.test_wire_answer import repair, three
from tests.optimize_wire.wire_helpers import (
    MONDAY,
    brute_force,
    existing,
    meeting,
    optimize_request,
)

_BASE = "urn:cerebri:components"


def _validator(name: str) -> Draft202012Validator:
    document = {"components": {"schemas": component_schemas()}}
    resource = Resource(contents=document, specification=DRAFT202012)
    registry: Registry[Any] = Registry().with_resource(_BASE, resource)
    return Draft202012Validator({"$ref": f"{_BASE}#/components/schemas/{name}"}, registry=registry)


REQUEST = Draft202012Validator(request_json_schema())
RESULT = _validator("PlanningResult")
REPORT = _validator("ValidationReport")


def _errors(validator: Draft202012Validator, body: Any) -> list[Any]:
    return [(list(e.absolute_path), e.message[:200]) for e in validator.iter_errors(body)]


def test_optimize_requests_and_answers_fit() -> None:
    for request in (three(), repair(1), repair(0)):
        assert _errors(REQUEST, request) == []
        result = cerebri.plan(request, solver=brute_force).to_wire()
        assert "batch" in result
        assert _errors(RESULT, result) == []


def test_a_wrong_batch_report_does_not_fit() -> None:
    result = cerebri.plan(three(), solver=brute_force).to_wire()
    result["batch"]["status"] = "DONE"
    assert _errors(RESULT, result) != []


def test_every_batch_issue_fits() -> None:
    sync = existing("sync", MONDAY + "08:30:00Z", MONDAY + "09:30:00Z", calendar="ann-cal")
    request = optimize_request(
        [
            meeting("m-a", ["cy"], after=[{"object_id": "x"}]),
            meeting("sync", ["ann"]),
            meeting("ghost", ["ann"]),
        ],
        objects=[sync],
    )
    request["constraints"] = [{"object_id": "m-a", "rule": {"kind": "NO_OVERLAP"}, "evidence": []}]
    request["scope"]["max_mutations"] = 0
    report = cerebri.validate(request).to_wire()
    names = {next(iter(issue)) for issue in report["issues"]}
    assert names == {"InvalidBatch", "UnsupportedBatchConstraint"}
    assert _errors(REPORT, report) == []
    other = optimize_request([meeting("m-a", ["ann"])])
    other["scope"]["max_mutations"] = 0
    del other["batch"]
    assert _errors(REPORT, cerebri.validate(other).to_wire()) == []
    other["operation"] = "CREATE"
    other["batch"] = optimize_request([meeting("m-a", ["ann"])])["batch"]
    report = cerebri.validate(other).to_wire()
    assert report["issues"] == [{"BatchNotAllowed": "CREATE"}]
    assert _errors(REPORT, report) == []
