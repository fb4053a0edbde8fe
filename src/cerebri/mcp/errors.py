"""Tool errors as MCP answers: ``isError`` results carrying the stable cerebri code.

A refused tool call is an MCP *tool* result (``isError: true``), not a protocol error, so the
agent sees the reason and can repair its arguments. Its one content block is a text block
holding ``{"code": …, "path": …, "message": …}`` as compact JSON
(:meth:`cerebri.errors.CerebriError.to_wire`): ``path`` is an RFC 6901 JSON pointer into the
tool's *arguments* (``/request/duration``, ``/between``) or ``null``. An error result carries
no ``structuredContent``: the MCP spec (2025-06-18 on, "Output Schema") binds a tool's
``structuredContent`` to its declared ``outputSchema``, and TypeScript SDK clients (the MCP
Inspector among them) validate it even on ``isError`` results, so an error object there would
be refused as a bad answer before the agent saw it (docs/decisions/0038-mcp-error-results.md).
The same holds for every tool, with an output schema or not. Nothing else reaches the agent:
an unexpected Python exception becomes ``internal.error`` without its traceback.

Codes of the server itself (besides those of the planner, calendars, proposals...):

* ``input.invalid_option``: an argument is missing, unknown, of the wrong type or form;
* ``mcp.unknown_tool``: no tool of that name (``approve`` is one: there is none);
* ``mcp.not_configured``: the tool needs configuration the server was not started with
  (a signing key's registry, a CalDAV source name, an execution store);
* ``mcp.unknown_resource``: ``resources/read`` of a URI the server does not hold;
* ``internal.error``: a bug; the message says no more.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import mcp_types as types
from pydantic import ValidationError

from cerebri._json import JSONValue, compact
from cerebri.errors import CerebriError

__all__ = [
    "INTERNAL_ERROR",
    "MAX_DEPTH",
    "argument_error",
    "check_values",
    "error_result",
    "pointer",
]

MAX_DEPTH = 128
"""Deepest nesting of arrays and objects accepted in tool arguments (as the CPIR parser)."""

INTERNAL_ERROR = "internal.error"


def pointer(location: Sequence[int | str]) -> str:
    """The RFC 6901 pointer of a pydantic error location (``""`` for the whole object)."""
    parts = (str(part).replace("~", "~0").replace("/", "~1") for part in location)
    return "".join("/" + part for part in parts)


def argument_error(exc: ValidationError, *, prefix: str = "") -> CerebriError:
    """The first problem of a pydantic validation as ``input.invalid_option`` with its path.

    Union member names that pydantic appends to a location (``str``, ``int``, ...) are left
    out, so the path names the argument as the agent wrote it; ``prefix`` is prepended.
    """
    errors = exc.errors(include_url=False)
    first = errors[0]
    location = [p for p in first["loc"] if not (isinstance(p, str) and _is_member_tag(p))]
    # A union argument gets one error per member; the member of the value's own type says
    # the real reason ("greater than 0"), not "should be a valid string".
    same_place = [
        e
        for e in errors
        if [p for p in e["loc"] if not (isinstance(p, str) and _is_member_tag(p))] == location
    ]
    first = next((e for e in same_place if not str(e["type"]).endswith("_type")), first)
    path = prefix + pointer(location)
    return CerebriError(
        f"{path or 'arguments'}: {first['msg']}", code="input.invalid_option", path=path
    )


def check_values(arguments: object) -> None:
    """Refuse what JSON cannot carry: a ``NaN``/``Infinity`` number (the SDK's parser reads
    ``NaN`` and ``1e999`` as floats) is ``json.non_finite_number``, nesting deeper than
    :data:`MAX_DEPTH` is ``json.too_deep``, each at its pointer in the arguments. Iterative,
    so any depth is examined without recursion.

    Raises:
        CerebriError: as above.
    """
    stack: list[tuple[object, str, int]] = [(arguments, "", 0)]
    while stack:
        value, path, depth = stack.pop()
        if isinstance(value, float) and not math.isfinite(value):
            raise CerebriError(
                f"{path or 'arguments'}: {value!r} is not a JSON number (NaN and infinities "
                "are not allowed)",
                code="json.non_finite_number",
                path=path,
            )
        if isinstance(value, dict | list):
            if depth >= MAX_DEPTH:
                raise CerebriError(
                    f"arguments nest deeper than {MAX_DEPTH} levels",
                    code="json.too_deep",
                    path=path,
                )
            items = value.items() if isinstance(value, dict) else enumerate(value)
            stack.extend((item, path + pointer([key]), depth + 1) for key, item in items)


def _is_member_tag(part: str) -> bool:
    return part in {"str", "int", "dict", "bool", "float", "list"} or part.startswith(
        ("constrained-", "function-", "dict[", "list[")
    )


def error_result(error: CerebriError) -> types.CallToolResult:
    """The ``isError`` tool result for ``error``: the typed error as JSON text, no
    ``structuredContent`` (the module docstring)."""
    wire: dict[str, JSONValue] = dict(error.to_wire())
    return types.CallToolResult(content=[types.TextContent(text=compact(wire))], is_error=True)
