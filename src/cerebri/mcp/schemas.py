"""The tools as MCP lists them: name, description, ``inputSchema`` and ``outputSchema``.

Input schemas are the JSON Schemas of the argument models (:mod:`cerebri.mcp.arguments`);
where a tool takes a CPIR request, its ``request`` member is the CPIR request schema
(:func:`cerebri.cpir.request_json_schema`) or JSON text. The output schemas of ``plan`` and
``validate_request`` are the HTTP service's result schemas
(:func:`cerebri.cpir.result_schema.component_schemas`, ``$ref`` re-pointed into ``$defs``),
or the summary of a large answer (:data:`cerebri.mcp.results.SUMMARY_SCHEMA`), each with
only the component schemas its result reaches. Tools are
listed in a fixed order; ``preview`` and ``plan_status`` only with an execution store.
There is no tool that approves, rejects, grants or executes.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import mcp_types as types
from pydantic import BaseModel

from cerebri.cpir.schema import request_json_schema
from cerebri.mcp.arguments import (
    CancelEventArgs,
    DraftArgs,
    FindSlotArgs,
    FreeBusyArgs,
    OptimizeArgs,
    PlanStatusArgs,
    PreviewArgs,
    ProposeArgs,
    RequestArgs,
    RescheduleEventArgs,
    UpdateEventArgs,
)
from cerebri.mcp.results import SUMMARY_SCHEMA

__all__ = ["STORE_TOOLS", "TOOLS", "ToolSpec", "tool_list"]

_COMPONENTS = "#/components/schemas/"
_DEFS = "#/$defs/"


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """One tool: its name, what it does, its argument model and result schema name."""

    name: str
    description: str
    arguments: type[BaseModel]
    result: str | None = None
    read_only: bool = True


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        "validate_request",
        "Check a CPIR planning request: what is known, missing or uncertain "
        "(a ValidationReport; `cerebri validate`).",
        RequestArgs,
        "ValidationReport",
    ),
    ToolSpec(
        "plan",
        "Plan a CPIR request: ranked, explained candidate slots with an honest assessment "
        "(a PlanningResult; `cerebri plan`). Large answers are summarised; read the full one "
        "from the resource the summary names.",
        RequestArgs,
        "PlanningResult",
    ),
    ToolSpec(
        "optimize_batch",
        "Optimise many meetings at once (a CPIR OPTIMIZE request: meetings, people, rooms, "
        "movable events): proven optimal, best found with its bound, or proven infeasible "
        "with the conflicting rules, every cost named (a PlanningResult with a batch member; "
        "`cerebri optimize --json`). Writes and approves nothing; propose the request to act.",
        OptimizeArgs,
        "PlanningResult",
    ),
    ToolSpec(
        "find_slot",
        "Find free meeting slots across attendees' calendars (.ics paths or configured CalDAV "
        "sources) in a window; `cerebri find-slot --json`.",
        FindSlotArgs,
    ),
    ToolSpec(
        "freebusy",
        "Busy, free and unknown time of calendars over a window, in UTC and a local zone "
        "(`cerebri freebusy --json`).",
        FreeBusyArgs,
    ),
    ToolSpec(
        "draft_plan",
        "Read a plan graph draft written by a model: fields that claim authority or progress "
        "(approvals, grants, status, origin...) are dropped and listed in report.ignored; the "
        "draft is validated against the built-in capabilities.",
        DraftArgs,
    ),
    ToolSpec(
        "propose",
        "Wrap a request's ranked candidate (or a draft) in a proposal envelope: signed with "
        "the server's configured key, or unsigned when none is configured. An OPTIMIZE batch "
        "as a plan graph is requested by the server's author (a principal). A proposal grants "
        "nothing: a human other than the author must approve it.",
        ProposeArgs,
        read_only=False,
    ),
    ToolSpec(
        "reschedule_event",
        "Find new times for an event already on the calendars (by UID; one instance, this and "
        "future ones, or a series): every required attendee free, least disruption first. "
        "Answers `cerebri reschedule --json` plus the CPIR request; with propose, also the "
        "proposal (a human must approve it).",
        RescheduleEventArgs,
        read_only=False,
    ),
    ToolSpec(
        "cancel_event",
        "Plan cancelling an event, one instance, this and future ones, or a series: "
        "`cerebri cancel-event --json` plus the CPIR request; with propose, also the proposal. "
        "Nothing is cancelled until a human approves.",
        CancelEventArgs,
        read_only=False,
    ),
    ToolSpec(
        "update_event",
        "Plan changing an event's title, length (checked against every required attendee), "
        "place or attendees: `cerebri update-event --json` plus the CPIR request; with "
        "propose, also the proposal. Nothing changes until a human approves.",
        UpdateEventArgs,
        read_only=False,
    ),
)

STORE_TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        "preview",
        "What the executor would decide for each step of a draft or a stored plan, and why "
        "(nothing is invoked; `cerebri preview --json`).",
        PreviewArgs,
    ),
    ToolSpec(
        "plan_status",
        "A stored plan's status, steps, attempts and approvals (read only).",
        PlanStatusArgs,
    ),
)


def _rehome(node: Any) -> Any:
    if isinstance(node, dict):
        return {
            key: "#/$defs/" + value.removeprefix(_COMPONENTS)
            if key == "$ref" and isinstance(value, str) and value.startswith(_COMPONENTS)
            else _rehome(value)
            for key, value in node.items()
        }
    if isinstance(node, list):
        return [_rehome(item) for item in node]
    return node


@functools.cache
def _components() -> dict[str, Any]:
    """The CPIR component schemas with ``$ref`` into ``#/$defs/``."""
    from cerebri.cpir.result_schema import component_schemas  # noqa: PLC0415 - listing only

    rehomed: dict[str, Any] = _rehome(component_schemas())
    return rehomed


@functools.cache
def _request_schema() -> tuple[dict[str, Any], dict[str, Any]]:
    """(the PlanningRequest schema without ``$defs``, its ``$defs``)."""
    schema = dict(request_json_schema())
    schema.pop("$schema", None)
    defs = schema.pop("$defs", {})
    return schema, defs


def _input_schema(spec: ToolSpec) -> dict[str, Any]:
    schema = spec.arguments.model_json_schema()
    properties = schema.get("properties", {})
    if "request" in properties:
        request, defs = _request_schema()
        described = {"description": properties["request"].get("description", "")}
        alternatives = [{"$ref": "#/$defs/PlanningRequest"}, {"type": "string"}]
        if spec.arguments is ProposeArgs:
            alternatives.append({"type": "null"})
        properties["request"] = {**described, "anyOf": alternatives}
        schema["$defs"] = {**schema.get("$defs", {}), **defs, "PlanningRequest": request}
    return schema


def _refs(node: Any) -> Iterator[str]:
    """The names of the ``$ref: #/$defs/<name>`` references anywhere in ``node``.

    (Discriminator ``mapping`` values are not followed: JSON Schema ignores that OpenAPI
    keyword, and the service's mappings name the models' own titles, not components.)"""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str) and value.startswith(_DEFS):
                yield value.removeprefix(_DEFS)
            else:
                yield from _refs(value)
    elif isinstance(node, list):
        for item in node:
            yield from _refs(item)


@functools.cache
def _reachable(name: str) -> dict[str, Any]:
    """The component schemas ``name`` needs (itself and what it references, transitively),
    in the components' order: an output schema carries only these (the listing size,
    docs/decisions/0033-mcp-tool-server.md)."""
    components = _components()
    needed: set[str] = set()
    todo = [name]
    while todo:
        current = todo.pop()
        if current not in needed:
            needed.add(current)
            todo.extend(_refs(components[current]))
    return {key: value for key, value in components.items() if key in needed}


def _output_schema(spec: ToolSpec) -> dict[str, Any] | None:
    if spec.result is None:
        return None
    return {
        "type": "object",
        "oneOf": [{"$ref": _DEFS + spec.result}, SUMMARY_SCHEMA],
        "$defs": _reachable(spec.result),
    }


def _tool(spec: ToolSpec) -> types.Tool:
    return types.Tool(
        name=spec.name,
        description=spec.description,
        input_schema=_input_schema(spec),
        output_schema=_output_schema(spec),
        annotations=types.ToolAnnotations(
            read_only_hint=spec.read_only, destructive_hint=False, open_world_hint=False
        ),
    )


def tool_list(*, with_store: bool) -> list[types.Tool]:
    """The tools in listing order (:data:`TOOLS`, then :data:`STORE_TOOLS` with a store)."""
    specs = TOOLS + (STORE_TOOLS if with_store else ())
    return [_tool(spec) for spec in specs]
