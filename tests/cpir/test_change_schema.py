"""The JSON schemas know the ``change`` member and the change operations' answers
(docs/decisions/0049-cpir-change-operations.md).

Requests are checked against :func:`cerebri.cpir.request_json_schema`; answers of every kind
(solution, refusal, each validation issue of the change member) against the result
components of :func:`cerebri.cpir.result_schema.component_schemas`, as the HTTP service
publishes them.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

import cerebri
from cerebri.cpir import request_json_schema
from cerebri.cpir.result_schema import component_schemas
from tests.planner.change_helpers import CURRENT, request_for

_BASE = "urn:cerebri:components"


def _validator(name: str) -> Draft202012Validator:
    document = {"components": {"schemas": component_schemas()}}
    resource = Resource(contents=document, specification=DRAFT202012)
    registry: Registry[Any] = Registry().with_resource(_BASE, resource)
    return Draft202012Validator({"$ref": f"{_BASE}#/components/schemas/{name}"}, registry=registry)


REQUEST = Draft202012Validator(request_json_schema())
RESULT = _validator("PlanningResult")
REPORT = _validator("ValidationReport")


def _fits(validator: Draft202012Validator, body: Any) -> None:
    errors = [(list(e.absolute_path), e.message[:200]) for e in validator.iter_errors(body)]
    assert not errors


@pytest.mark.parametrize("operation", ["RESCHEDULE", "CANCEL", "UPDATE"])
def test_change_requests_and_answers_fit(operation: str) -> None:
    document = request_for(operation)
    _fits(REQUEST, document)
    result = cerebri.plan(document).to_wire()
    assert result["outcome"] == "Solution"
    _fits(RESULT, result)


def test_refusals_and_change_issues_fit() -> None:
    conflict = cerebri.plan(request_for("UPDATE", duration=7200)).to_wire()
    assert conflict["outcome"] == "NoSolution"
    _fits(RESULT, conflict)
    wrong = request_for("MOVE", scope="INSTANCE", sequence=9)
    wrong["change"]["attendees"] *= 2
    report = cerebri.validate(wrong).to_wire()
    assert {next(iter(i)) for i in report["issues"]} == {
        "ChangeNotAllowed",
        "RequiredRecurrenceId",
        "InvalidChange",
    }
    _fits(REPORT, report)
    _fits(RESULT, cerebri.plan(wrong).to_wire())
    rescheduled = cerebri.plan(request_for("RESCHEDULE")).to_wire()
    assert any(
        r["reasons"] == [{"Unchanged": "weekly"}] for r in rescheduled["conflicts"]["rejections"]
    )
    _fits(RESULT, rescheduled)


def test_schemas_reject_what_the_parser_rejects() -> None:
    document = request_for("CANCEL", recurrence_id=CURRENT[0])
    _fits(REQUEST, document)
    for edit in (
        {"extra": 1},
        {"scope": "ALL"},
        {"uid": ""},
        {"organizer": "ann@example.com"},
        {"attendees": [{"address": "mailto:b@x", "required": True, "role": "CHAIR"}]},
    ):
        bad = copy.deepcopy(document)
        bad["change"].update(edit)
        assert not REQUEST.is_valid(bad), edit
    missing = copy.deepcopy(document)
    del missing["change"]["sequence"]
    assert not REQUEST.is_valid(missing)
    absent = copy.deepcopy(document)
    del absent["change"]
    _fits(REQUEST, absent)


def test_result_schema_rejects_unknown_disruption_classes() -> None:
    result = cerebri.plan(request_for("RESCHEDULE")).to_wire()
    bad = copy.deepcopy(result)
    bad["candidates"][0]["explanation"][1]["reason"]["Disruption"]["class"] = 3
    assert not RESULT.is_valid(bad)
    bad = copy.deepcopy(result)
    bad["candidates"][0]["explanation"][1]["reason"]["Disruption"]["extra"] = 0
    assert not RESULT.is_valid(bad)
