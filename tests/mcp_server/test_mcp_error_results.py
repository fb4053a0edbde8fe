"""Every tool's refusals fit what the tool declares (issue 21 item 14,
docs/decisions/0038-mcp-error-results.md).

A tool that declares an ``outputSchema`` binds its ``structuredContent`` to it (MCP spec,
"Output Schema"); clients that validate it even on ``isError`` results (the TypeScript SDK's,
the MCP Inspector) refused cerebri's errors, which put ``{code, path, message}`` there. Here
every listed tool (with an execution store, so all eight) is made to fail, through the
argument check and through its own code, over a real ``cerebri mcp`` subprocess: each error
is ``isError`` with the typed error as the JSON text of its one content block and no
structured content, and each success of a tool with an output schema validates against it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import jsonschema
import mcp_types as types
import pytest

import cerebri
from cerebri.execution.store import init
from cerebri.mcp.schemas import tool_list
from tests.mcp_server.support import EXAMPLE, Live, error_of, live_server

AT = "2026-10-01T00:00:00Z"
WINDOW = "2026-10-05T08:00/2026-10-05T18:00"
SUMMARY_BYTES = 4096
"""Between validate_request's answer (tens of bytes) and plan's (tens of KB): the server
returns one whole and summarises the other, so both branches of the output schema are seen."""


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    root = tmp_path_factory.mktemp("errors")
    url = f"sqlite:///{root / 'plans.db'}"
    init(url)
    (root / "ics").mkdir()
    options = ["--at", AT, "--store", url, "--ics-root", str(root / "ics")]
    with live_server(*options, "--summary-bytes", str(SUMMARY_BYTES)) as connected:
        yield connected


def _example() -> dict[str, Any]:
    document: dict[str, Any] = json.loads(EXAMPLE.read_text())
    return document


# One refusal from inside each tool's own code: (arguments, code, path).
OWN_ERRORS: dict[str, tuple[dict[str, Any], str, str | None]] = {
    "validate_request": ({"request": {"bogus": 1}}, "cpir.unknown_field", "/request/bogus"),
    "plan": ({"request": {"bogus": 1}}, "cpir.unknown_field", "/request/bogus"),
    "optimize_batch": ({"request": {"bogus": 1}}, "cpir.unknown_field", "/request/bogus"),
    "find_slot": (
        {"ics": ["/etc/hosts"], "between": WINDOW, "duration": "30m"},
        "mcp.path_not_allowed",
        "/ics/0",
    ),
    "freebusy": ({"caldav": ["nowhere"], "between": WINDOW}, "mcp.not_configured", "/caldav/0"),
    "draft_plan": ({"draft": "{not json"}, "json.syntax", "/draft"),
    "propose": ({}, "input.invalid_option", ""),
    "preview": ({"draft": {}, "plan_id": "p-1"}, "input.invalid_option", ""),
    "plan_status": ({"plan_id": "p-no-such-plan"}, "execution.not_found", "/plan_id"),
    "reschedule_event": (
        {"uid": "u-1", "between": WINDOW, "ics": ["/etc/hosts"]},
        "mcp.path_not_allowed",
        "/ics/0",
    ),
    "cancel_event": (
        {"uid": "u-1", "caldav": ["nowhere"], "between": WINDOW},
        "mcp.not_configured",
        "/caldav/0",
    ),
    "update_event": ({"uid": "u-1", "ics": []}, "input.missing", "/ics"),
}


# Each tool's required arguments, so that an unknown one is the only problem.
REQUIRED: dict[str, dict[str, Any]] = {
    "validate_request": {"request": {}},
    "plan": {"request": {}},
    "optimize_batch": {"request": {}},
    "find_slot": {"between": WINDOW, "duration": "30m"},
    "freebusy": {"between": WINDOW},
    "draft_plan": {"draft": {}},
    "propose": {},
    "preview": {},
    "plan_status": {"plan_id": "p-1"},
    "reschedule_event": {"uid": "u-1", "between": WINDOW},
    "cancel_event": {"uid": "u-1"},
    "update_event": {"uid": "u-1"},
}


def _tools(live: Live) -> dict[str, types.Tool]:
    return {tool.name: tool for tool in live.tools()}


def _fits(tool: types.Tool, result: types.CallToolResult) -> None:
    """What a validating client checks: structured content, when there is any, validates
    against the tool's output schema (jsonschema, the dialect MCP names: 2020-12)."""
    if tool.output_schema is not None and result.structured_content is not None:
        jsonschema.Draft202012Validator(tool.output_schema).validate(result.structured_content)


def test_every_listed_tool_has_a_forced_error(live: Live) -> None:
    assert set(_tools(live)) == set(OWN_ERRORS) == set(REQUIRED)
    assert {name for name, tool in _tools(live).items() if tool.output_schema} == {
        "validate_request",
        "plan",
        "optimize_batch",
    }


@pytest.mark.parametrize("name", sorted(OWN_ERRORS))
def test_an_error_from_the_tools_own_code_is_text_only(live: Live, name: str) -> None:
    arguments, code, path = OWN_ERRORS[name]
    result = live.call(name, arguments)
    _fits(_tools(live)[name], result)
    wire = error_of(result)  # isError, no structured content, the typed error as JSON text
    assert (wire["code"], wire["path"]) == (code, path)
    assert wire["message"]


@pytest.mark.parametrize("name", sorted(OWN_ERRORS))
def test_an_unknown_argument_is_a_text_only_error(live: Live, name: str) -> None:
    result = live.call(name, {**REQUIRED[name], "surprise": 1})
    _fits(_tools(live)[name], result)
    wire = error_of(result)
    assert (wire["code"], wire["path"]) == ("input.invalid_option", "/surprise")


def test_an_unknown_tool_is_a_text_only_error(live: Live) -> None:
    wire = error_of(live.call("approve", {}))
    assert (wire["code"], wire["path"]) == ("mcp.unknown_tool", None)


@pytest.mark.parametrize(("name", "summarised"), [("validate_request", False), ("plan", True)])
def test_successes_fit_the_output_schema(live: Live, name: str, summarised: bool) -> None:
    result = live.call(name, {"request": _example()})
    assert not result.is_error
    assert isinstance(result.structured_content, dict)
    _fits(_tools(live)[name], result)
    assert result.structured_content.get("summarised", False) is summarised
    if not summarised:
        assert result.structured_content == cerebri.validate(EXAMPLE.read_bytes()).to_wire()


def test_an_error_would_not_fit_the_output_schema() -> None:
    """The old shape, ``{code, path, message}`` as structured content, fails both schemas
    (what the Inspector reported), so carrying none is what makes errors fit."""
    old = {"code": "cpir.unknown_field", "path": "/request/bogus", "message": "unknown field"}
    for tool in tool_list(with_store=False):
        if tool.output_schema is not None:
            validator = jsonschema.Draft202012Validator(tool.output_schema)
            assert not validator.is_valid(old), tool.name


BAD_TEXTS = ["a\x00b"]
"""A NUL character and a lone surrogate: text no store holds and UTF-8 cannot carry."""

# Each tool's string arguments, each to be replaced by a bad text (the others kept valid).
STRING_ARGUMENTS: dict[str, dict[str, Any]] = {
    "validate_request": {"request": {"cpir_version": "0.2"}},
    "plan": {"request": {"cpir_version": "0.2"}},
    "optimize_batch": {"request": {"cpir_version": "0.2"}},
    "find_slot": {"between": WINDOW, "duration": "30m", "tz": "UTC"},
    "freebusy": {"between": WINDOW, "tz": "UTC"},
    "draft_plan": {"draft": "{}"},
    "propose": {"title": "Design review"},
    "preview": {"plan_id": "p-1"},
    "plan_status": {"plan_id": "p-1"},
    "reschedule_event": {"uid": "u-1", "between": WINDOW, "tz": "UTC", "instance": WINDOW[:10]},
    "cancel_event": {"uid": "u-1", "calendar": "c", "this_and_future": WINDOW[:10]},
    "update_event": {"uid": "u-1", "title": "T", "location": "L", "duration": "30m"},
}


@pytest.mark.parametrize("bad", BAD_TEXTS, ids=["nul"])
@pytest.mark.parametrize("name", sorted(STRING_ARGUMENTS))
def test_bad_text_in_any_string_argument_is_a_typed_error(live: Live, name: str, bad: str) -> None:
    """Issue #21 item 6 for the tools: a NUL or a lone surrogate in any string argument is
    a typed, text-only error (never ``internal.error``), and the server keeps answering."""
    assert set(STRING_ARGUMENTS) == set(_tools(live))
    for argument, value in STRING_ARGUMENTS[name].items():
        given = {argument: bad} if isinstance(value, str) else {argument: {"cpir_version": bad}}
        result = live.call(name, {**STRING_ARGUMENTS[name], **given})
        _fits(_tools(live)[name], result)
        if result.is_error:
            wire = error_of(result)
            assert wire["code"] != "internal.error", (name, argument, wire)
            assert wire["code"] and wire["message"], (name, argument, wire)
    assert not live.call("validate_request", {"request": _example()}).is_error  # still up
