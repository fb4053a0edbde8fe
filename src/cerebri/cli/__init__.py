"""The ``cerebri`` command line. Every command has a Python API twin.

Commands live in one module per subject (``_planning``, ``_calendars``, ``_serve``...) and
register on the shared :data:`app`. Exit codes: 0 for any answer (a refusal is an answer),
2 for input that cannot be read or parsed (a one-line typed error on stderr:
``error <code> at <path>: <message>``).
"""

from __future__ import annotations

from cerebri.cli import (
    _bridge,
    _calendars,
    _execution,
    _mcp,
    _operations,
    _plan_graph,
    _planning,
    _preview,
    _principals,
    _proposals,
    _request_new,
    _serve,
    _store,
)
from cerebri.cli._app import EXIT_INPUT, MAX_INPUT_BYTES, app

__all__ = ["EXIT_INPUT", "MAX_INPUT_BYTES", "app", "main"]

_COMMANDS = (
    _planning,
    _calendars,
    _serve,
    _proposals,
    _plan_graph,
    _store,
    _execution,
    _operations,
    _principals,
    _preview,
    _request_new,
    _bridge,
    _mcp,
)  # imported for their registrations


def main() -> None:
    """Entry point of the ``cerebri`` console script."""
    app()
