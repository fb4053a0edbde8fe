"""Numbers JSON cannot carry, sent as raw JSON-RPC lines to a ``cerebri mcp`` subprocess (the
SDK's client would turn ``NaN`` into ``null`` before sending): typed tool errors with their
path, never ``internal.error``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

CLI = str(Path(sys.executable).parent / "cerebri")
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"},
    },
}


def _exchange(arguments_text: str) -> dict[str, Any]:
    """The answer to one ``tools/call`` of ``plan`` whose arguments are ``arguments_text``."""
    lines = [
        json.dumps(INITIALIZE),
        json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"plan",'
        f'"arguments":{arguments_text}}}}}',
    ]
    with subprocess.Popen(
        [CLI, "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    ) as server:
        assert server.stdin is not None and server.stdout is not None
        server.stdin.write("\n".join(lines) + "\n")
        server.stdin.flush()
        answers = [json.loads(server.stdout.readline()) for _ in range(2)]
        server.stdin.close()
        server.wait(timeout=60)
    [answer] = [a for a in answers if a.get("id") == 2]
    result: dict[str, Any] = answer["result"]
    return result


def _error(result: dict[str, Any]) -> dict[str, Any]:
    """The typed error of a raw ``isError`` result (its one text block; no
    ``structuredContent``, docs/decisions/0038-mcp-error-results.md)."""
    assert result["isError"] is True
    assert "structuredContent" not in result
    [block] = result["content"]
    assert block["type"] == "text"
    wire: dict[str, Any] = json.loads(block["text"])
    return wire


@pytest.mark.parametrize(
    ("text", "path"),
    [
        ('{"request": {"scope": {"x": NaN}}}', "/request/scope/x"),
        ('{"request": [1, 1e999]}', "/request/1"),
        ('{"request": {"a": -Infinity}}', "/request/a"),
    ],
)
def test_non_finite_numbers_are_typed_errors_with_their_path(text: str, path: str) -> None:
    wire = _error(_exchange(text))
    assert (wire["code"], wire["path"]) == ("json.non_finite_number", path)


def test_arguments_nested_too_deep_are_a_typed_error() -> None:
    depth = 150  # deeper than the 128 levels cerebri reads, within what the SDK parses
    wire = _error(_exchange('{"request": ' + "[" * depth + "]" * depth + "}"))
    assert wire["code"] == "json.too_deep"
    assert wire["path"] == "/request" + "/0" * 127
