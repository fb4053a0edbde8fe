"""``cerebri bridge``: answer framed requests on stdin/stdout for a host program (the Node
package in ``bindings/node/``; protocol: :mod:`cerebri.bridge`, decision 0032)."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from cerebri.bridge import (
    DEFAULT_MAX_FIND_SLOT_BYTES,
    DEFAULT_MAX_INPUT_BYTES,
    DEFAULT_MAX_OUTPUT_BYTES,
    serve,
)
from cerebri.cli._app import app

__all__ = ["bridge"]


@app.command(short_help="Answer requests framed on stdin/stdout (the Node bridge).")
def bridge(
    max_input_bytes: Annotated[
        int,
        typer.Option("--max-input-bytes", min=0, help="Largest request body, in bytes."),
    ] = DEFAULT_MAX_INPUT_BYTES,
    max_output_bytes: Annotated[
        int,
        typer.Option("--max-output-bytes", min=0, help="Largest answer body, in bytes."),
    ] = DEFAULT_MAX_OUTPUT_BYTES,
    max_find_slot_bytes: Annotated[
        int,
        typer.Option(
            "--max-find-slot-bytes", min=0, help="Largest find_slot request body, in bytes."
        ),
    ] = DEFAULT_MAX_FIND_SLOT_BYTES,
) -> None:
    """Answer framed requests from stdin until it ends: a JSON header line
    {"id", "op", "length"} then LENGTH bytes of request JSON; each answer is a header line
    then the compact JSON the HTTP route answers (protocol: cerebri.bridge). Host programs
    start it once and pay Python's start-up a single time. Exit status 0 at end of input,
    2 when the framing is broken."""
    status = serve(
        sys.stdin.buffer,
        sys.stdout.buffer,
        max_input_bytes=max_input_bytes,
        max_output_bytes=max_output_bytes,
        max_find_slot_bytes=max_find_slot_bytes,
    )
    if status:
        raise typer.Exit(status)
