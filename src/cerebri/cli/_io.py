"""Input, errors and terminal-safe text of the command line, without typer or rich.

The parts of :mod:`cerebri.cli._app` that the light ``cerebri plan FILE`` path
(:mod:`cerebri.cli._light`, decision 0045) shares with the typer commands; ``_app``
re-exports them.
"""

from __future__ import annotations

import json
import sys
import unicodedata
from pathlib import Path

from cerebri._files import DEFAULT_MAX_BYTES, read_bounded
from cerebri.cpir import PlanningRequest, parse_request
from cerebri.errors import CerebriError, InputTooLargeError, ParseError, UnreadableInputError

__all__ = [
    "EXIT_INPUT",
    "MAX_INPUT_BYTES",
    "error_line",
    "load_request",
    "printable",
    "read_input",
]

MAX_INPUT_BYTES = DEFAULT_MAX_BYTES
"""Largest input the CLI reads, in bytes; larger files fail with ``input.too_large``."""

EXIT_INPUT = 2
"""Exit status when the input cannot be read or parsed (one ``error <code> …`` line on
stderr). Every answer exits 0; ``find-slot --emit-request`` over incomplete calendars exits 3
(:data:`cerebri.cli._calendars.EXIT_INCOMPLETE`)."""


def error_line(error: CerebriError) -> str:
    """The one stderr line of a refused input: ``error CODE[ at PATH]: MESSAGE`` and a
    newline, path and message made :func:`printable` (the message on one line)."""
    where = "" if error.path is None else " at " + (printable(error.path) or "(document root)")
    message = printable(error.message.replace("\n", " "))
    return f"error {error.code}{where}: {message}\n"


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


ANSWER_HINT = "hint: this looks like an answer; use --emit-request to save the request"
"""Added to ``cpir.unknown_field`` when the input is a cerebri answer (a PlanningResult,
e.g. ``reschedule --json``) rather than the request it answers."""

_ANSWER_FIELDS = frozenset({"outcome", "candidates"})
"""Top-level fields every PlanningResult has and no CPIR request has."""


def _is_answer(data: bytes) -> bool:
    """Whether ``data`` is a JSON object with a PlanningResult's fields (:data:`_ANSWER_FIELDS`)."""
    try:
        document = json.loads(data)
    except (ValueError, RecursionError):
        return False
    return isinstance(document, dict) and document.keys() >= _ANSWER_FIELDS


def load_request(source: str) -> PlanningRequest:
    """The CPIR request in FILE (or stdin for ``-``): :func:`read_input` then
    :func:`cerebri.cpir.parse_request` (``ParseError`` and the input errors as they raise).
    An answer given in place of a request keeps its ``cpir.unknown_field`` code and gains
    :data:`ANSWER_HINT` in its message."""
    data = read_input(source)
    try:
        return parse_request(data)
    except ParseError as error:
        if error.code != "cpir.unknown_field" or not _is_answer(data):
            raise
        raise ParseError(
            f"{error.message}; {ANSWER_HINT}", code=error.code, path=error.path
        ) from None


def printable(text: str) -> str:
    """``text`` with control and format characters (ESC, NUL, bidi overrides...) written as
    ``\\xNN``/``\\uNNNN`` escapes, so input text cannot drive the terminal."""
    return "".join(
        ch if unicodedata.category(ch) not in _UNPRINTABLE else ch.encode("unicode_escape").decode()
        for ch in text
    )


_UNPRINTABLE = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
