"""The shared parts of the ``cerebri`` command line: the typer app, input reading, errors.

Exit codes: 0 for any answer (a refusal is an answer), 2 for input that cannot be read or
parsed (a one-line typed error on stderr: ``error <code> at <path>: <message>``).
"""

from __future__ import annotations

import sys
import unicodedata
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from cerebri import __version__
from cerebri._files import DEFAULT_MAX_BYTES, read_bounded
from cerebri.cli._help import HelpGroup
from cerebri.cpir import PlanningRequest, parse_request
from cerebri.errors import CerebriError, InputTooLargeError, UnreadableInputError
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

MAX_INPUT_BYTES = DEFAULT_MAX_BYTES
"""Largest input the CLI reads, in bytes; larger files fail with ``input.too_large``."""

EXIT_INPUT = 2
"""Exit status when the input cannot be read or parsed (one ``error <code> …`` line on
stderr). Every answer exits 0; ``find-slot --emit-request`` over incomplete calendars exits 3
(:data:`cerebri.cli._calendars.EXIT_INCOMPLETE`)."""

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
    where = "" if error.path is None else " at " + (printable(error.path) or "(document root)")
    message = printable(error.message.replace("\n", " "))
    sys.stderr.write(f"error {error.code}{where}: {message}\n")
    return typer.Exit(EXIT_INPUT)


def _read_stdin(count: int) -> bytes:
    """At most ``count`` bytes of standard input; ``input.unreadable`` when it is closed or
    the read fails."""
    stream = sys.stdin
    if stream is None:
        raise UnreadableInputError("cannot read standard input: it is closed")
    try:
        return stream.buffer.read(count)
    except (OSError, ValueError, AttributeError) as exc:
        raise UnreadableInputError(f"cannot read standard input: {exc}") from None


def read_input(source: str) -> bytes:
    """The bytes of FILE (at most :data:`MAX_INPUT_BYTES`, through
    :func:`cerebri._files.read_bounded`: regular files only) or of stdin for ``-``.

    Raises ``input.too_large`` / ``input.unreadable`` (also for a closed standard input:
    ``cerebri plan - <&-`` leaves ``sys.stdin`` as ``None``)."""
    if source == "-":
        data = _read_stdin(MAX_INPUT_BYTES + 1)
        if len(data) > MAX_INPUT_BYTES:
            raise InputTooLargeError(f"input is larger than {MAX_INPUT_BYTES} bytes")
        return data
    return read_bounded(Path(source), limit=MAX_INPUT_BYTES, what="input")


def load_request(source: str) -> PlanningRequest:
    return parse_request(read_input(source))


def printable(text: str) -> str:
    """``text`` with control and format characters (ESC, NUL, bidi overrides...) written as
    ``\\xNN``/``\\uNNNN`` escapes, so input text cannot drive the terminal."""
    return "".join(
        ch if unicodedata.category(ch) not in _UNPRINTABLE else ch.encode("unicode_escape").decode()
        for ch in text
    )


_UNPRINTABLE = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


def table_console() -> Console:
    """A console for tables that print text from inputs (calendar summaries, draft keys):
    Rich markup and emoji codes are *not* interpreted, so ``[/red]`` or ``[link=…]`` in
    a calendar or a draft prints as written, and control characters are stripped."""
    console = Console(highlight=False, markup=False, emoji=False)
    if console.is_terminal:
        return console
    return Console(highlight=False, markup=False, emoji=False, width=140)
