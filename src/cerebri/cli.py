"""The ``cerebri`` command line. Every command has a Python API twin.

Exit codes: 0 for any planning answer (a refusal is an answer), 2 for input that cannot be
read or parsed (a one-line typed error on stderr: ``error <code> at <path>: <message>``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from cerebri import __version__
from cerebri._json import pretty
from cerebri.cpir import PlanningRequest, parse_request
from cerebri.cpir.schema import request_json_schema
from cerebri.errors import CerebriError, InputTooLargeError
from cerebri.planner import plan as plan_request
from cerebri.planner import validate as validate_request
from cerebri.render import render_result
from cerebri.temporal import temporal_report

__all__ = ["MAX_INPUT_BYTES", "app", "main"]

MAX_INPUT_BYTES = 64 * 1024 * 1024
"""Largest input the CLI reads, in bytes; larger files fail with ``input.too_large``."""

EXIT_INPUT = 2

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="cerebri: deterministic, explained calendar planning over CPIR requests.",
)

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


def _fail(error: CerebriError) -> typer.Exit:
    where = "" if error.path is None else " at " + (error.path or "(document root)")
    message = error.message.replace("\n", " ")
    sys.stderr.write(f"error {error.code}{where}: {message}\n")
    return typer.Exit(EXIT_INPUT)


def _read(source: str) -> bytes:
    if source == "-":
        data = sys.stdin.buffer.read(MAX_INPUT_BYTES + 1)
    else:
        path = Path(source)
        try:
            with path.open("rb") as handle:
                data = handle.read(MAX_INPUT_BYTES + 1)
        except OSError as exc:
            raise CerebriError(
                f"cannot read {source}: {exc.strerror or exc}", code="input.unreadable", path=None
            ) from None
    if len(data) > MAX_INPUT_BYTES:
        raise InputTooLargeError(f"input is larger than {MAX_INPUT_BYTES} bytes")
    return data


def _load(source: str) -> PlanningRequest:
    return parse_request(_read(source))


@app.command()
def plan(
    file: FileArg,
    table: Annotated[
        bool, typer.Option("--table", help="Print a readable ranked table instead of JSON.")
    ] = False,
    top: Annotated[
        int, typer.Option("--top", min=0, help="With --table: show at most N candidates (0 = all).")
    ] = 20,
) -> None:
    """Plan a CPIR request and print the PlanningResult JSON (stable, byte-identical)."""
    try:
        request = _load(file)
        result = plan_request(request)
    except CerebriError as error:
        raise _fail(error) from None
    if table:
        console = Console(highlight=False)
        if not console.is_terminal:
            console = Console(highlight=False, width=140)
        render_result(result, request, console, top=top or None)
    else:
        sys.stdout.write(pretty(result.to_wire()))


@app.command()
def validate(file: FileArg) -> None:
    """Validate a CPIR request and print the ValidationReport JSON."""
    try:
        report = validate_request(_load(file))
    except CerebriError as error:
        raise _fail(error) from None
    sys.stdout.write(pretty(report.to_wire()))


@app.command()
def temporal(file: FileArg) -> None:
    """Expand recurrences and compute free/busy for a /v1/temporal request (TemporalResult JSON).

    A rejected expansion (limits, DST policy, overflow) is an answer: exit 0 with status
    Rejected.
    """
    try:
        result = temporal_report(_read(file))
    except CerebriError as error:
        raise _fail(error) from None
    sys.stdout.write(pretty(result.to_wire()))


@app.command()
def schema() -> None:
    """Print the JSON Schema of a CPIR planning request."""
    document = request_json_schema()
    sys.stdout.write(json.dumps(document, indent=2, ensure_ascii=False) + "\n")


def main() -> None:
    """Entry point of the ``cerebri`` console script."""
    app()
