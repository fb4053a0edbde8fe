"""``cerebri plan FILE`` without typer or rich (decision 0045).

:func:`plain_plan` recognises the one command line this path serves: exactly ``plan FILE``
(FILE not an option; ``-`` is stdin), no shell-completion request in the environment, not
on Windows (where click expands wildcards in arguments). :func:`run_plan` then does what
the typer command does for it, by the same functions (:mod:`cerebri.cli._io`,
:mod:`cerebri.cli._plan_text`): the same bytes on stdout and stderr and the same exit
status (0 for an answer, :data:`~cerebri.cli._io.EXIT_INPUT` for a refused input). Any
other exception goes through a typer app, so an interrupt, a broken pipe or a bug ends the
process exactly as under the full command line. Every other command line (options, help,
other commands) takes the typer app.
"""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from cerebri.cli._io import EXIT_INPUT, error_line, load_request
from cerebri.cli._plan_text import write_plan_json
from cerebri.errors import CerebriError
from cerebri.optimize import plan
from cerebri.planner import DEFAULT_LIMITS

__all__ = ["plain_plan", "run_plan"]


def plain_plan(args: Sequence[str]) -> str | None:
    """FILE when ``args`` (the command line after the program name) is exactly
    ``plan FILE`` and the light path gives what typer would; ``None`` otherwise."""
    if len(args) != 2 or args[0] != "plan" or os.name == "nt":
        return None
    file = args[1]
    if file.startswith("-") and file != "-":
        return None
    if any(name.startswith("_") and name.endswith("_COMPLETE") for name in os.environ):
        return None  # click's shell completion (_CEREBRI_COMPLETE) answers instead
    return file


def run_plan(file: str) -> NoReturn:
    """``cerebri plan FILE`` with the reference limits: the PlanningResult JSON on stdout
    (notes and hint on stderr), exit 0; a refused input's ``error …`` line on stderr, exit
    :data:`~cerebri.cli._io.EXIT_INPUT`."""
    try:
        status = _plan(file)
    except (Exception, KeyboardInterrupt) as exc:
        _through_typer(exc)
    # Everything left is needed until exit: the interpreter's final collections need not
    # walk it (about 25 ms of a 200 ms run; no object of a plan has a finalizer to run).
    gc.freeze()
    sys.exit(status)


def _plan(file: str) -> int:
    try:
        request = load_request(file)
        result = plan(request, limits=DEFAULT_LIMITS)
    except CerebriError as error:
        sys.stderr.write(error_line(error))
        return EXIT_INPUT
    write_plan_json(request, result, reference=True)
    return 0


def _through_typer(exc: BaseException) -> NoReturn:
    """End as a typer command raising ``exc`` ends (typer's standalone main: exit 130 on an
    interrupt, 1 on a broken pipe or end of input, its traceback hook for anything else)."""
    import typer  # noqa: PLC0415 - only on this path

    again = typer.Typer(add_completion=False)

    @again.command()
    def _raise() -> None:
        raise exc

    again(args=[], prog_name="cerebri")
    raise AssertionError("typer returned from a failed command")  # pragma: no cover
