"""The MCP tools over stdio, checked against the Python API (issue #15)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest

import cerebri
from cerebri.calendars import ImportedCalendars, SlotQuery, freebusy
from cerebri.calendars.options import parse_window
from cerebri.calendars.wire import freebusy_wire
from cerebri.ics import parse_calendar
from cerebri.plans import builtin_registry, parse_model_draft
from cerebri.service.openapi import component_schemas
from tests.mcp_server.support import EXAMPLE, MEETING_DRAFT, Live, live_server

AT = "2026-10-01T00:00:00Z"


def _ics(events: list[tuple[str, str, str]]) -> str:
    lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//test//mcp//EN"]
    for uid, start, end in events:
        lines += [
            "BEGIN:VEVENT",
            f"UID:{uid}",
            "DTSTAMP:20260101T000000Z",
            f"DTSTART:{start}",
            f"DTEND:{end}",
            f"SUMMARY:{uid}",
            "END:VEVENT",
        ]
    return "\r\n".join([*lines, "END:VCALENDAR", ""])


@pytest.fixture(scope="module")
def calendars(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("calendars")
    alice = folder / "alice.ics"
    alice.write_text(_ics([("standup", "20261005T090000Z", "20261005T093000Z")]))
    bob = folder / "bob.ics"
    bob.write_text(_ics([("review", "20261005T100000Z", "20261005T113000Z")]))
    return {"alice": alice, "bob": bob}


@pytest.fixture(scope="module")
def live(calendars: dict[str, Path]) -> Iterator[Live]:
    with live_server("--at", AT, "--ics-root", str(calendars["alice"].parent)) as connected:
        yield connected


def _example() -> dict[str, Any]:
    document: dict[str, Any] = json.loads(EXAMPLE.read_text())
    return document


def test_the_tools_are_listed_and_none_approves(live: Live) -> None:
    names = [tool.name for tool in live.tools()]
    assert names == [
        "validate_request",
        "plan",
        "optimize_batch",
        "find_slot",
        "freebusy",
        "draft_plan",
        "propose",
        "reschedule_event",
        "cancel_event",
        "update_event",
    ]  # preview and plan_status only with --store
    assert not any(word in name for name in names for word in ("approve", "reject", "grant"))
    for tool in live.tools():
        assert tool.input_schema["type"] == "object"
        jsonschema.Draft202012Validator.check_schema(tool.input_schema)


def test_the_request_schema_is_the_cpir_schema(live: Live) -> None:
    [plan_tool] = [tool for tool in live.tools() if tool.name == "plan"]
    schema = plan_tool.input_schema
    expected = cerebri.cpir.request_json_schema()
    assert schema["$defs"]["PlanningRequest"]["properties"] == expected["properties"]
    validator = jsonschema.Draft202012Validator(schema)
    assert list(validator.iter_errors({"request": _example()})) == []
    assert list(validator.iter_errors({"request": 42})) != []


def test_plan_answers_as_the_python_api(live: Live) -> None:
    answer = live.ok("plan", {"request": _example()})
    assert answer == cerebri.plan(EXAMPLE.read_bytes()).to_wire()
    # JSON text works too, and the output schema of the tool holds the answer
    assert live.ok("plan", {"request": EXAMPLE.read_text()}) == answer
    [plan_tool] = [tool for tool in live.tools() if tool.name == "plan"]
    assert plan_tool.output_schema is not None
    jsonschema.Draft202012Validator(plan_tool.output_schema).validate(answer)


def test_optimize_batch_answers_as_the_cli_and_refuses_other_operations(live: Live) -> None:
    from tests.optimize_wire.test_wire_answer import three

    request = three()
    answer = live.ok("optimize_batch", {"request": request})
    assert answer == cerebri.plan(json.dumps(request)).to_wire()
    # by hand (tests/optimize_wire): m-a 08-09Z, m-b and m-c 09-10Z, soft 8, proven optimal
    assert (answer["batch"]["status"], answer["batch"]["score"]["soft"]) == ("OPTIMAL", 8)
    [tool] = [tool for tool in live.tools() if tool.name == "optimize_batch"]
    assert tool.output_schema is not None
    jsonschema.Draft202012Validator(tool.output_schema).validate(answer)
    wire = live.error("optimize_batch", {"request": _example()})
    assert (wire["code"], wire["path"]) == ("input.invalid_argument", "/request/operation")


def test_validate_request_answers_as_the_python_api(live: Live) -> None:
    answer = live.ok("validate_request", {"request": _example()})
    assert answer == cerebri.validate(EXAMPLE.read_bytes()).to_wire()


@pytest.mark.parametrize(
    ("arguments", "code", "path"),
    [
        ({}, "input.invalid_option", "/request"),
        ({"request": {}, "extra": 1}, "input.invalid_option", "/extra"),
        ({"request": 42}, "input.invalid_option", "/request"),
        ({"request": "{not json"}, "json.syntax", "/request"),
        ({"request": {"schema_version": {"major": 0, "minor": 2}}}, "cpir.missing_field", None),
        ({"request": _example(), "limits": "huge"}, "input.invalid_option", "/limits"),
    ],
)
def test_bad_arguments_are_typed_errors(
    live: Live, arguments: dict[str, Any], code: str, path: str | None
) -> None:
    wire = live.error("plan", arguments)
    assert wire["code"] == code
    if path is not None:
        assert wire["path"] == path
    else:
        assert wire["path"].startswith("/request/")


def test_a_cpir_error_points_into_the_request(live: Live) -> None:
    request = _example()
    request["scope"]["surprise"] = True
    wire = live.error("validate_request", {"request": request})
    with pytest.raises(cerebri.CerebriError) as caught:
        cerebri.validate(json.dumps(request))
    assert wire["code"] == caught.value.code
    assert wire["path"] == "/request" + str(caught.value.path)


def test_an_unknown_tool_is_refused(live: Live) -> None:
    for name in ("approve", "reject", "decide"):
        assert live.error(name, {})["code"] == "mcp.unknown_tool"


def _query(between: str, duration: int) -> SlotQuery:
    start, end = parse_window(between, "UTC")
    return SlotQuery(start, end, duration, zone="UTC")


def test_find_slot_answers_as_the_python_api(live: Live, calendars: dict[str, Path]) -> None:
    between = "2026-10-05T08:00/2026-10-05T12:00"
    answer = live.ok(
        "find_slot",
        {
            "ics": [str(calendars["alice"]), str(calendars["bob"])],
            "duration": "30m",
            "between": between,
        },
    )
    named = [
        (name, parse_calendar(path.read_bytes(), source=str(path)))
        for name, path in calendars.items()
    ]
    expected = ImportedCalendars(named, floating_zone="UTC").find_slot(_query(between, 1800))
    assert answer == {**expected.result.to_wire(), "warnings": expected.warnings_wire()}
    # independently: the best slot is free in both calendars (08:00, before the standup)
    assert answer["candidates"][0]["start"] == "2026-10-05T08:00:00Z"


def test_find_slot_refuses_bad_options_with_their_path(
    live: Live, calendars: dict[str, Path]
) -> None:
    base = {
        "ics": [str(calendars["alice"])],
        "duration": "30m",
        "between": "2026-10-05T08:00/2026-10-05T12:00",
    }
    assert live.error("find_slot", {**base, "duration": "soon"})["path"] == "/duration"
    assert live.error("find_slot", {**base, "between": "later"})["path"] == "/between"
    assert live.error("find_slot", {**base, "tz": "Mars/Base"})["path"] == "/tz"
    unknown = live.error("find_slot", {**base, "caldav": ["work"]})
    assert (unknown["code"], unknown["path"]) == ("mcp.not_configured", "/caldav/0")
    missing = live.error("find_slot", {**base, "ics": ["nonexistent.ics"]})
    assert (missing["code"], missing["path"]) == ("input.unreadable", "/ics/0")
    negative = live.error("find_slot", {**base, "duration": -5})
    assert (negative["path"], negative["code"]) == ("/duration", "input.invalid_option")
    assert "greater than 0" in negative["message"]
    share = live.error("find_slot", {**base, "min_attendance": 2})
    assert share["path"] == "/min_attendance"
    assert "not a fraction from 0 to 1" in share["message"]
    assert live.ok("find_slot", {**base, "min_attendance": 0.5})["candidates"]


def test_freebusy_answers_as_the_python_api(live: Live, calendars: dict[str, Path]) -> None:
    between = "2026-10-05T08:00/2026-10-05T12:00"
    answer = live.ok("freebusy", {"ics": [str(calendars["bob"])], "between": between})
    start, end = parse_window(between, "UTC")
    bob = calendars["bob"]
    view = freebusy([parse_calendar(bob.read_bytes(), source=str(bob))], start, end)
    assert answer == freebusy_wire(view, "UTC")
    assert [(b["start"], b["end"]) for b in answer["busy"]] == [
        ("2026-10-05T10:00:00Z", "2026-10-05T11:30:00Z")
    ]


def test_draft_plan_drops_and_reports_authority(live: Live) -> None:
    draft = json.loads(MEETING_DRAFT.read_text())
    draft["approvals"] = [{"by": "principal:alice", "decision": "approve"}]
    draft["origin"] = "operator"
    draft["steps"][0]["status"] = "succeeded"
    draft["steps"][0]["grant"] = {"capability": "calendar.event.create"}
    draft["require_approval"] = False
    answer = live.ok("draft_plan", {"draft": draft})
    expected = parse_model_draft(json.dumps(draft), builtin_registry())
    assert answer["report"] == expected.report.to_wire()
    assert expected.draft is not None
    assert answer["draft"] == expected.draft.to_wire()
    assert {
        "/approvals",
        "/origin",
        "/require_approval",
        "/steps/0/grant",
        "/steps/0/status",
    } <= set(answer["report"]["ignored"])
    assert answer["draft"]["origin"] == "model"


def test_draft_plan_of_a_non_draft_is_an_error(live: Live) -> None:
    wire = live.error("draft_plan", {"draft": "[1, 2]"})
    assert wire["code"].startswith("draft.")


def test_propose_without_a_key_is_unsigned(live: Live) -> None:
    answer = live.ok("propose", {"request": _example(), "expires_in": 7 * 86400})
    envelope = answer["envelope"]
    assert answer["signed"] is False
    assert "signature" not in envelope
    assert envelope["author"] == {"kind": "service", "id": "cerebri-mcp"}
    assert envelope["human-in-loop/required"] is True
    assert envelope["proposed-at"] == AT
    assert answer["artifact"]["type"] == "cerebri.action-plan.v1"
    assert answer["payload_digest"] == cerebri.proposals.envelope_digest(envelope)
    assert answer["still_required"] == list(cerebri.proposals.STILL_REQUIRED)
    assert answer["submitted"] is None


def test_propose_submit_needs_a_key_and_a_store(live: Live) -> None:
    wire = live.error("propose", {"request": _example(), "expires_in": 7 * 86400, "submit": True})
    assert (wire["code"], wire["path"]) == ("mcp.not_configured", "/submit")


def test_output_schemas_carry_only_the_definitions_they_reach(live: Live) -> None:
    components = component_schemas()
    for tool in live.tools():
        if tool.output_schema is None:
            continue
        defs = tool.output_schema["$defs"]
        text = json.dumps(tool.output_schema)
        # every definition kept is referenced, and every reference resolves
        refs = set(re.findall(r'"\$ref": "#/\$defs/([^"]+)"', text))
        assert refs == set(defs), tool.name
        assert len(defs) < len(components)
    [validate_tool] = [tool for tool in live.tools() if tool.name == "validate_request"]
    assert validate_tool.output_schema is not None
    report = live.ok("validate_request", {"request": _example()})
    jsonschema.Draft202012Validator(validate_tool.output_schema).validate(report)


def test_propose_refuses_ambiguous_input(live: Live) -> None:
    both = live.error("propose", {"request": _example(), "draft": {"steps": []}})
    assert both["code"] == "input.invalid_option"
    assert live.error("propose", {"request": _example(), "authority": "me"})["path"] == "/authority"


def test_store_tools_need_a_store(live: Live) -> None:
    assert live.error("plan_status", {"plan_id": "x"})["code"] == "mcp.unknown_tool"
