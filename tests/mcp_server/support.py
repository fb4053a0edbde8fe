"""A live ``cerebri mcp`` subprocess driven by the SDK's own client, for synchronous tests.

The client runs in an anyio blocking portal (one event loop thread), so a module-scoped
fixture holds one server process for all the module's tests.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import mcp_types as types
from anyio.from_thread import BlockingPortal, start_blocking_portal
from mcp import Client, StdioServerParameters

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "design-review.json"
MEETING_DRAFT = REPO / "examples" / "plans" / "meeting.json"


@dataclass
class Live:
    """A connected client: ``call`` a tool, ``read`` a resource, ``tools`` listed."""

    portal: BlockingPortal
    client: Client

    def call(self, name: str, arguments: dict[str, Any]) -> types.CallToolResult:
        result: types.CallToolResult = self.portal.call(self.client.call_tool, name, arguments)
        return result

    def ok(self, name: str, arguments: dict[str, Any]) -> Any:
        """The structured content of a successful call (its text content says the same)."""
        result = self.call(name, arguments)
        assert not result.is_error, result.structured_content
        [text] = result.content
        assert isinstance(text, types.TextContent)
        assert json.loads(text.text) == result.structured_content
        return result.structured_content

    def error(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """The ``{"code", "path", "message"}`` of a refused call (:func:`error_of`)."""
        return error_of(self.call(name, arguments))

    def tools(self) -> list[types.Tool]:
        listed: types.ListToolsResult = self.portal.call(self.client.list_tools)
        return list(listed.tools)

    def read(self, uri: str) -> str:
        result: types.ReadResourceResult = self.portal.call(self.client.read_resource, uri)
        [content] = result.contents
        assert isinstance(content, types.TextResourceContents)
        return content.text


def error_of(result: types.CallToolResult) -> dict[str, Any]:
    """The typed error of an ``isError`` result: the JSON text of its one content block; an
    error result carries no structured content (docs/decisions/0038-mcp-error-results.md)."""
    assert result.is_error, result.structured_content
    assert result.structured_content is None
    [text] = result.content
    assert isinstance(text, types.TextContent)
    wire = json.loads(text.text)
    assert isinstance(wire, dict)
    assert set(wire) == {"code", "path", "message"}
    assert "Traceback" not in wire["message"]
    return wire


def server_parameters(*options: str, cwd: Path | None = None) -> StdioServerParameters:
    """``cerebri mcp OPTIONS`` as a subprocess (the console script beside the interpreter)."""
    return StdioServerParameters(
        command=str(Path(sys.executable).parent / "cerebri"),
        args=["mcp", *options],
        cwd=str(cwd) if cwd else None,
    )


@contextmanager
def live_server(*options: str) -> Iterator[Live]:
    """A ``cerebri mcp`` subprocess over stdio with ``options``, connected."""
    with start_blocking_portal() as portal:
        client = Client(server_parameters(*options), read_timeout_seconds=120)
        with portal.wrap_async_context_manager(client) as connected:
            yield Live(portal, connected)
