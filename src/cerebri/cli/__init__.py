"""The ``cerebri`` command line. Every command has a Python API twin.

Commands live in one module per subject (``_planning``, ``_calendars``, ``_serve``...) and
register on the shared :data:`app` when their module is imported. Exit codes: 0 for any
answer (a refusal is an answer), 2 for input that cannot be read or parsed (a one-line typed
error on stderr: ``error <code> at <path>: <message>``).

Fast start: importing this package imports no command module. :func:`main` imports only the
module of the command named on the command line (:data:`COMMAND_MODULES`), so
``cerebri plan`` never loads the execution stage, the HTTP service or the MCP server; any
other command line (``--help``, ``--version``, a typo) imports every command module first.
Exactly ``cerebri plan FILE`` does not load typer or rich at all (:mod:`cerebri.cli._light`;
decision 0045 gives the rule for new commands).
``cerebri.cli.app`` (a PEP 562 module attribute) is the app with every command registered.
"""

from __future__ import annotations

import importlib
import sys
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from cerebri.cli._app import EXIT_INPUT, MAX_INPUT_BYTES, app

__all__ = ["COMMAND_MODULES", "EXIT_INPUT", "MAX_INPUT_BYTES", "app", "load_commands", "main"]

_MODULES: Final = (
    "_bridge",
    "_calendars",
    "_changes",
    "_execution",
    "_itip_reply",
    "_mcp",
    "_operations",
    "_outbox",
    "_plan_graph",
    "_planning",
    "_preview",
    "_principals",
    "_proposals",
    "_request_new",
    "_serve",
    "_store",
)
"""Every command module, in the order that fixes the order of ``cerebri --help``."""

COMMAND_MODULES: Final = {
    "bridge": "_bridge",
    "plan": "_planning",
    "optimize": "_planning",
    "validate": "_planning",
    "temporal": "_planning",
    "schema": "_planning",
    "find-slot": "_calendars",
    "freebusy": "_calendars",
    "reschedule": "_changes",
    "cancel-event": "_changes",
    "update-event": "_changes",
    "submit": "_execution",
    "worker": "_execution",
    "itip-reply": "_itip_reply",
    "mcp": "_mcp",
    "stuck": "_operations",
    "plans": "_operations",
    "approvals": "_operations",
    "sandbox": "_operations",
    "steps": "_operations",
    "outbox": "_outbox",
    "preview": "_preview",
    "propose": "_proposals",
    "verify": "_proposals",
    "keys": "_proposals",
    "serve": "_serve",
    "store": "_store",
    "plan-graph": "_plan_graph",
    "principals": "_principals",
    "request": "_request_new",
}
"""Top-level command (or command group) name -> the module under ``cerebri.cli`` that
registers it (tests/cli/test_cli_startup.py checks it against the full registration)."""


def load_commands(modules: tuple[str, ...] = _MODULES) -> None:
    """Import the command modules ``modules`` (names under ``cerebri.cli``), registering
    their commands on the app; already imported ones are left as they are."""
    for name in modules:
        importlib.import_module(f"cerebri.cli.{name}")


def __getattr__(name: str) -> Any:
    """PEP 562: ``app`` with every command registered, and the re-exported constants."""
    if name in ("app", "EXIT_INPUT", "MAX_INPUT_BYTES"):
        if name == "app":
            load_commands()
        return getattr(importlib.import_module("cerebri.cli._app"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def main() -> None:
    """Entry point of the ``cerebri`` console script: registers the command named by the
    first argument (every command when it names none) and runs the app; exactly
    ``cerebri plan FILE`` runs without typer (:mod:`cerebri.cli._light`, same output)."""
    if len(sys.argv) == 3 and sys.argv[1] == "plan":
        from cerebri.cli._light import plain_plan, run_plan  # noqa: PLC0415 - fast CLI start

        file = plain_plan(sys.argv[1:])
        if file is not None:
            run_plan(file)
    module = COMMAND_MODULES.get(sys.argv[1]) if len(sys.argv) > 1 else None
    load_commands(_MODULES if module is None else (module,))
    from cerebri.cli._app import app  # noqa: PLC0415 - fast CLI start

    app()
