"""The shared parts of the ``cerebri`` command line: the typer app, input reading, errors.

Exit codes: 0 for any answer (a refusal is an answer), 2 for input that cannot be read or
parsed (a one-line typed error on stderr: ``error <code> at <path>: <message>``).
"""

from __future__ import annotations

import sys
from enum import StrEnum
from typing import Annotated

import typer
from rich.console import Console

from cerebri import __version__
from cerebri.cli._help import HelpGroup
from cerebri.cli._io import (
    EXIT_INPUT,
    MAX_INPUT_BYTES,
    error_line,
    load_request,
    printable,
    read_input,
)
from cerebri.errors import CerebriError
from cerebri.planner import DEFAULT_LIMITS, PlannerLimits

__all__ = [
    "DEFAULT_TOP",
    "EXIT_INPUT",
    "MAX_INPUT_BYTES",
    "FileArg",
    "LimitSet",
    "LimitsOption",
    "TopOption",
    "app",
    "fail",
    "limits_for",
    "load_request",
    "printable",
    "read_input",
    "table_console",
]

app = typer.Typer(
    cls=HelpGroup,
    add_completion=False,
    no_args_is_help=True,
    help="cerebri: deterministic, explained calendar planning over CPIR requests.",
)


class LimitSet(StrEnum):
    """Which admission limits ``plan``/``validate`` apply."""

    REFERENCE = "reference"
    LOCAL = "local"


LimitsOption = Annotated[
    LimitSet,
    typer.Option(
        "--limits",
        help="reference: the CPIR service limits (256 objects, 4096 positions); local: the "
        "find-slot limits (100 000 objects and positions), e.g. to replay --emit-request.",
    ),
]


def limits_for(choice: LimitSet) -> PlannerLimits:
    if choice is LimitSet.LOCAL:
        from cerebri.calendars import FIND_SLOT_LIMITS  # noqa: PLC0415 - fast CLI start

        return FIND_SLOT_LIMITS
    return DEFAULT_LIMITS


DEFAULT_TOP = 10
"""How many ranked candidates a table shows unless ``--top`` says otherwise (every command)."""

TopOption = Annotated[
    int,
    typer.Option(
        "--top", min=0, metavar="INTEGER", help="Show at most this many candidates (0 = all)."
    ),
]
"""``--top``: one meaning and one default (:data:`DEFAULT_TOP`) in every command."""

FileArg = Annotated[
    str, typer.Argument(metavar="FILE", help="CPIR request JSON file, or - for stdin.")
]


def _version(value: bool) -> None:
    if value:
        sys.stdout.write(f"cerebri {__version__}\n")
        raise typer.Exit


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="Print the version."),
    ] = False,
) -> None:
    """cerebri: deterministic, explained calendar planning over CPIR requests."""


def fail(error: CerebriError) -> typer.Exit:
    """Write ``error``'s one line on stderr (:func:`~cerebri.cli._io.error_line`); the
    ``typer.Exit`` with :data:`EXIT_INPUT` to raise."""
    sys.stderr.write(error_line(error))
    return typer.Exit(EXIT_INPUT)


def table_console() -> Console:
    """A console for tables that print text from inputs (calendar summaries, draft keys):
    Rich markup and emoji codes are *not* interpreted, so ``[/red]`` or ``[link=…]`` in
    a calendar or a draft prints as written, and control characters are stripped."""
    console = Console(highlight=False, markup=False, emoji=False)
    if console.is_terminal:
        return console
    return Console(highlight=False, markup=False, emoji=False, width=140)
