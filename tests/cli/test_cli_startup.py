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

ROOT = Path(__file__).resolve().parents[2]
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


@pytest.mark.parametrize(
    "args",
    [  # through typer (``plan FILE`` alone takes the light path: test_plan_file_loads_...)
        ("plan", "--limits", "reference", str(REQUEST)),
        ("plan", "--table", str(REQUEST)),
    ],
)
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


LIGHT = ("typer", "rich", "click", "cerebri.cli._app", "cerebri.cli._planning", "cerebri.calendars")
"""What exactly ``cerebri plan FILE`` does not load either (:mod:`cerebri.cli._light`)."""

_THROUGH_TYPER = """
import sys
sys.argv = ["cerebri", *sys.argv[1:]]
from cerebri.cli import app
app()
"""


def test_plan_file_loads_no_typer_or_rich() -> None:
    done, modules = _modules_after("plan", str(REQUEST))
    assert done.returncode == 0, done.stderr
    assert "cerebri.cli._light" in modules
    assert _heavy(modules) == []
    light = [m for m in modules if any(m == h or m.startswith(h + ".") for h in LIGHT)]
    assert sorted(light) == []


@pytest.mark.parametrize(
    ("args", "light"),
    [
        (["plan", "request.json"], "request.json"),
        (["plan", "-"], "-"),
        (["plan", ""], ""),
        (["plan", "--table", "request.json"], None),
        (["plan", "request.json", "--table"], None),
        (["plan", "--help"], None),
        (["plan", "-x"], None),
        (["plan"], None),
        (["validate", "request.json"], None),
        (["plan", "a.json", "b.json"], None),
    ],
)
def test_only_plan_file_takes_the_light_path(args: list[str], light: str | None) -> None:
    from cerebri.cli._light import plain_plan

    assert plain_plan(args) == light


def test_shell_completion_takes_the_typer_path(monkeypatch: pytest.MonkeyPatch) -> None:
    from cerebri.cli._light import plain_plan

    monkeypatch.setenv("_CEREBRI_COMPLETE", "bash_complete")
    assert plain_plan(["plan", "request.json"]) is None


def _plan_cases(tmp: Path) -> list[tuple[str, str]]:
    """(FILE argument, stdin) pairs covering an answer, notes and hint, and every refusal."""
    wide = tmp / "wide.json"  # breaks an admission limit: the hint line on stderr
    wide.write_text(
        REQUEST.read_text(encoding="utf-8").replace(
            '"max_candidates": 256', '"max_candidates": 5000'
        ),
        encoding="utf-8",
    )
    assert wide.read_text(encoding="utf-8") != REQUEST.read_text(encoding="utf-8")
    broken = tmp / "broken.json"
    broken.write_text('{"schema_version": ', encoding="utf-8")
    shape = tmp / "shape.json"
    shape.write_text('{"a": 1}', encoding="utf-8")
    return [
        (str(REQUEST), ""),
        (str(wide), ""),
        (str(broken), ""),
        (str(shape), ""),
        (str(tmp / "missing\x1b[31m.json"), ""),
        (str(tmp), ""),
        ("", ""),
        ("-", REQUEST.read_text(encoding="utf-8")),
        ("-", "not json"),
    ]


def test_the_light_plan_path_answers_as_typer_does(tmp_path: Path) -> None:
    """Same stdout, stderr and exit status as the typer command, answer or refusal."""
    for file, stdin in _plan_cases(tmp_path):
        light, modules = _modules_after("plan", file, stdin=stdin)
        assert "cerebri.cli._light" in modules
        assert "typer" not in modules
        full = subprocess.run(
            [sys.executable, "-c", _THROUGH_TYPER, "plan", file],
            input=stdin,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert light.returncode == full.returncode, file
        assert light.stdout == full.stdout, file
        assert light.stderr.split("\nMODULES ")[0].rstrip("\n") == full.stderr.rstrip("\n"), file


def test_failures_on_the_light_path_end_as_under_typer(monkeypatch: pytest.MonkeyPatch) -> None:
    """An interrupt exits 130, a broken pipe 1 (quietly), a bug goes to typer's hook."""
    import errno

    from cerebri.cli._light import _through_typer

    for name in ("excepthook", "stdout", "stderr"):
        monkeypatch.setattr(sys, name, getattr(sys, name))
    with pytest.raises(SystemExit) as interrupted:
        _through_typer(KeyboardInterrupt())
    assert interrupted.value.code == 130
    with pytest.raises(SystemExit) as broken:
        _through_typer(OSError(errno.EPIPE, "Broken pipe"))
    assert broken.value.code == 1
    bug = RuntimeError("a bug")
    with pytest.raises(RuntimeError) as raised:
        _through_typer(bug)
    assert raised.value is bug
    assert sys.excepthook.__module__ == "typer.main"


def test_bridge_starts_without_the_calendar_stack() -> None:
    """``cerebri bridge`` loads the find_slot route's reader (calendars, icalendar,
    starlette) at its first find_slot request only."""
    done, modules = _modules_after("bridge", stdin="")
    assert done.returncode == 0, done.stderr
    assert "cerebri.bridge" in modules
    later = (
        *STORE_AND_NETWORK,
        "icalendar",
        "caldav",
        "cerebri.calendars",
        "starlette",
    )
    assert [m for m in modules if any(m == h or m.startswith(h + ".") for h in later)] == []


def test_the_plans_package_loads_jsonschema_with_its_first_registry() -> None:
    code = (
        "import sys, cerebri.plans as p; a = 'jsonschema' in sys.modules; "
        "p.builtin_registry(); print(a, 'jsonschema' in sys.modules)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.split() == ["False", "True"]


@pytest.mark.parametrize("enabled", [True, False])
def test_importing_cerebri_leaves_the_collector_as_it_found_it(enabled: bool) -> None:
    """The import pauses the cyclic collector and promotes what it built (decision 0045)."""
    code = (
        f"import gc; {'' if enabled else 'gc.disable(); '}import cerebri; "
        "print(gc.isenabled(), gc.get_freeze_count())"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.split() == [str(enabled), "0"]
