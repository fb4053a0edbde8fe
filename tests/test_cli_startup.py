"""Fast CLI start (issue 22): a command imports only what it uses.

Checked on ``sys.modules`` of a real ``cerebri`` run, never on timings (the numbers live in
bench/startup.py and bench/README.md).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import cerebri.cli

ROOT = Path(__file__).resolve().parent.parent
REQUEST = ROOT / "examples" / "design-review.json"

HEAVY = (
    "sqlalchemy",
    "fastapi",
    "starlette",
    "caldav",
    "mcp",
    "psycopg",
    "uvicorn",
    "alembic",
    "niquests",
    "cryptography",
    "cerebri.execution",
    "cerebri.service",
    "cerebri.mcp",
    "typer.rich_utils",
)
"""Packages and modules that ``cerebri plan`` does not need."""

_RUN_AND_LIST_MODULES = """
import atexit, json, sys
atexit.register(lambda: sys.stderr.write("\\nMODULES " + json.dumps(sorted(sys.modules)) + "\\n"))
sys.argv = ["cerebri", *sys.argv[1:]]
from cerebri.cli import main
main()
"""


def _modules_after(
    *args: str, stdin: str = ""
) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    """Run ``cerebri ARGS`` in a fresh interpreter through :func:`cerebri.cli.main` with
    ``stdin`` as its input; the finished process and the names in its ``sys.modules`` at
    exit."""
    done = subprocess.run(
        [sys.executable, "-c", _RUN_AND_LIST_MODULES, *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    line = next(x for x in done.stderr.splitlines() if x.startswith("MODULES "))
    return done, set(json.loads(line.removeprefix("MODULES ")))


def _heavy(modules: set[str]) -> list[str]:
    return sorted(
        name for name in modules if any(name == h or name.startswith(h + ".") for h in HEAVY)
    )


@pytest.mark.parametrize("args", [("plan", str(REQUEST)), ("plan", "--table", str(REQUEST))])
def test_plan_loads_no_heavy_package(args: tuple[str, ...]) -> None:
    done, modules = _modules_after(*args)
    assert done.returncode == 0, done.stderr
    assert "cerebri.cli._planning" in modules  # the check sees the run
    assert _heavy(modules) == []


def test_plan_help_loads_no_execution_service_or_network_stack() -> None:
    done, modules = _modules_after("plan", "--help")
    assert done.returncode == 0, done.stderr
    assert "Usage: cerebri plan" in done.stdout
    assert [m for m in _heavy(modules) if m != "typer.rich_utils"] == []


_INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "0"},
    },
}

STORE_AND_NETWORK = (
    "sqlalchemy",
    "fastapi",
    "psycopg",
    "alembic",
    "cerebri.execution",
    "cerebri.service.app",
)
"""What an MCP server without a store answering ``initialize`` does not need (the MCP SDK
itself brings starlette, uvicorn and cryptography)."""

MCP_TOOLS = (
    "caldav",
    "niquests",
    "icalendar",
    "jsonschema",
    "cerebri.integrations",
    "cerebri.ics",
    "cerebri.calendars",
    "cerebri.plans",
    "cerebri.proposals",
    "cerebri.mcp.tools",
    "cerebri.mcp.calendar_tools",
    "cerebri.mcp.schemas",
    "cerebri.mcp.arguments",
    "typer.rich_utils",
)
"""What ``initialize`` does not need either: the tools, their argument models and schemas,
and the calendar, CalDAV, plan and proposal packages behind them load at the first
``tools/list`` or ``tools/call`` (decision 0045)."""


def test_mcp_initialise_loads_no_store_or_http_service() -> None:
    done, modules = _modules_after("mcp", stdin=json.dumps(_INITIALIZE) + "\n")
    assert done.returncode == 0, done.stderr
    reply = json.loads(done.stdout.splitlines()[0])
    assert reply["id"] == 1
    assert reply["result"]["serverInfo"]["name"]
    assert "cerebri.mcp.server" in modules
    loaded = [m for m in modules if any(m == h or m.startswith(h + ".") for h in STORE_AND_NETWORK)]
    assert sorted(loaded) == []
    tools = [m for m in modules if any(m == h or m.startswith(h + ".") for h in MCP_TOOLS)]
    assert sorted(tools) == []


def test_importing_the_cli_package_loads_no_command() -> None:
    code = (
        "import sys, cerebri.cli; "
        "print(sorted(m for m in sys.modules if m.startswith('cerebri.cli.')))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.strip() == "[]"


def test_the_command_table_names_every_registered_command() -> None:
    """Each top-level command or group is registered by the module COMMAND_MODULES names for
    it, and every registered name is in the table (so ``main`` can load just that module)."""
    app = cerebri.cli.app  # every command registered
    registered: dict[str, str] = {}
    for command in app.registered_commands:
        assert command.callback is not None
        name = command.name or command.callback.__name__.replace("_", "-")
        registered[name] = command.callback.__module__
    for group in app.registered_groups:
        assert group.name is not None
        modules = {
            c.callback.__module__ for c in group.typer_instance.registered_commands if c.callback
        }
        assert len(modules) == 1, group.name
        registered[group.name] = modules.pop()
    expected = {
        name: f"cerebri.cli.{module}" for name, module in cerebri.cli.COMMAND_MODULES.items()
    }
    assert registered == expected
