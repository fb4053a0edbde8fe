"""The official MCP Inspector's CLI mode (npm, TypeScript SDK client) against ``cerebri mcp``
(issue 21 item 14, docs/decisions/0038-mcp-error-results.md).

The Inspector validates a tool result's ``structuredContent`` against the tool's
``outputSchema`` whether or not it is an error, and refuses a result that does not fit
(exit 1, "data must have required property 'outcome'..."): cerebri's typed errors never
reached it while they were structured content. Here a refused ``plan`` and
``validate_request`` reach its output with their code and path (exit 5, the Inspector's "the
tool returned isError"), and a successful ``plan`` passes its schema check. The three calls
run at once; each starts the Inspector and a server (about 10 s on a busy 2-core machine).

Needs npm and Node.js: without npm the test is skipped, except under ``CI=true`` where it
fails. The Inspector is installed once (:mod:`tests.mcp_server.mcp_inspector`).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import cerebri
from tests.mcp_server.mcp_inspector import install
from tests.mcp_server.support import EXAMPLE

CLI = str(Path(sys.executable).parent / "cerebri")
TOOL_ERROR_EXIT = 5
"""The Inspector CLI's exit status for a result with ``isError: true``."""
CALL_TIMEOUT = 300
CONNECT_TIMEOUT_MS = 240_000
"""The Inspector gives a server 15 s to start by default; a loaded machine takes longer."""
SCHEMA_COMPLAINTS = ("output schema", "outputSchema", "structured content", "data must")


@dataclass(frozen=True)
class Outcome:
    returncode: int
    stdout: str
    stderr: str
    seconds: float

    def result(self) -> dict[str, Any]:
        envelope: dict[str, Any] = json.loads(self.stdout)
        result: dict[str, Any] = envelope["result"]
        return result


@pytest.fixture(scope="module")
def inspector() -> Path:
    if shutil.which("npm") is None or shutil.which("node") is None:
        if os.environ.get("CI") == "true":
            pytest.fail("npm and node are needed for the MCP Inspector test (make node-deps)")
        pytest.skip("npm or node is not on PATH: the MCP Inspector cannot be installed")
    try:
        return install()
    except subprocess.CalledProcessError as error:
        pytest.fail(f"npm could not install the MCP Inspector:\n{error.stdout}\n{error.stderr}")


def _calls(inspector: Path, home: Path, calls: list[tuple[str, dict[str, Any]]]) -> list[Outcome]:
    """``tools/call`` of each (tool, arguments) through the Inspector's CLI, all at once, each
    with its own ``cerebri mcp`` over stdio. The Inspector's files go under ``home``."""
    env = {
        **os.environ,
        "HOME": str(home),
        "MCP_CATALOG_PATH": str(home / "catalog.json"),
        "MCP_CLIENT_CONFIG_PATH": str(home / "client.json"),
    }
    options = ("--cli", "--format", "json", "--connect-timeout", str(CONNECT_TIMEOUT_MS))
    options += (CLI, "mcp", "--method", "tools/call", "--tool-name")
    started = time.monotonic()
    running = [
        subprocess.Popen(
            [str(inspector), *options, name, "--tool-args-json", json.dumps(arguments)],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name, arguments in calls
    ]
    outcomes = []
    for process in running:
        stdout, stderr = process.communicate(timeout=CALL_TIMEOUT)
        outcomes.append(Outcome(process.returncode, stdout, stderr, time.monotonic() - started))
    return outcomes


def test_typed_errors_reach_the_inspector(inspector: Path, tmp_path: Path) -> None:
    example = json.loads(EXAMPLE.read_text())
    bad = {"request": {**example, "surprise": 1}}
    outcomes = _calls(
        inspector,
        tmp_path,
        [("plan", bad), ("validate_request", bad), ("plan", {"request": example})],
    )
    print("Inspector calls took", [round(o.seconds, 1) for o in outcomes], "s")
    for outcome in outcomes[:2]:
        assert outcome.returncode == TOOL_ERROR_EXIT, outcome
        result = outcome.result()
        assert result["isError"] is True
        assert "structuredContent" not in result
        [block] = result["content"]
        error = json.loads(block["text"])
        assert error["code"] == "cpir.unknown_field"
        assert error["path"] == "/request/surprise"
        assert "tool_is_error" in outcome.stderr
        for complaint in SCHEMA_COMPLAINTS:
            assert complaint not in outcome.stdout + outcome.stderr, outcome
    # a success is checked against the output schema by the Inspector, and passes
    success = outcomes[2]
    assert success.returncode == 0, success
    assert success.result()["structuredContent"] == cerebri.plan(EXAMPLE.read_bytes()).to_wire()
