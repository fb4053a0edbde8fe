"""Tool errors as MCP answers: ``isError`` results carrying the stable cerebri code.

A refused tool call is an MCP *tool* result (``isError: true``), not a protocol error, so the
agent sees the reason and can repair its arguments. Its ``structuredContent`` is
``{"code": …, "path": …, "message": …}`` (:meth:`cerebri.errors.CerebriError.to_wire`):
``path`` is an RFC 6901 JSON pointer into the tool's *arguments* (``/request/duration``,
``/between``) or ``null``. The text content is the same object as JSON. Nothing else reaches
the agent: an unexpected Python exception becomes ``internal.error`` without its traceback.

Codes of the server itself (besides those of the planner, calendars, proposals...):

* ``input.invalid_option``: an argument is missing, unknown, of the wrong type or form;
* ``mcp.unknown_tool``: no tool of that name (``approve`` is one: there is none);
* ``mcp.not_configured``: the tool needs configuration the server was not started with
  (a signing key's registry, a CalDAV source name, an execution store);
* ``mcp.unknown_resource``: ``resources/read`` of a URI the server does not hold;
* ``internal.error``: a bug; the message says no more.
"""

from __future__ import annotations

from collections.abc import Sequence

import mcp_types as types
from pydantic import ValidationError

from cerebri._json import JSONValue, compact
from cerebri.errors import CerebriError

__all__ = ["INTERNAL_ERROR", "argument_error", "error_result", "pointer"]

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
    first = exc.errors(include_url=False)[0]
    location = [p for p in first["loc"] if not (isinstance(p, str) and _is_member_tag(p))]
    path = prefix + pointer(location)
    return CerebriError(
        f"{path or 'arguments'}: {first['msg']}", code="input.invalid_option", path=path
    )


def _is_member_tag(part: str) -> bool:
    return part in {"str", "int", "dict", "bool", "float", "list"} or part.startswith(
        ("constrained-", "function-", "dict[", "list[")
    )


def error_result(error: CerebriError) -> types.CallToolResult:
    """The ``isError`` tool result for ``error`` (shape: the module docstring)."""
    wire: dict[str, JSONValue] = dict(error.to_wire())
    return types.CallToolResult(
        content=[types.TextContent(text=compact(wire))],
        structured_content=wire,
        is_error=True,
    )
