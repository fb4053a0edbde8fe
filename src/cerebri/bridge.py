"""The process bridge behind ``cerebri bridge``: framed requests in, compact JSON answers out.

A host program in another language (the Node package in ``bindings/node/``) starts
``cerebri bridge`` once and sends it requests over standard input; each answer is written to
standard output before the next request is read (docs/decisions/0032-node-bridge.md).

Framing (every header is one line of compact JSON, UTF-8, ended by ``\\n``)::

    request   {"id":<int|str>,"op":<one of OPERATIONS>,"length":N}\\n
              then exactly N bytes: the request's JSON text, as the CLI would read it
    answer    {"id":…,"ok":true,"length":M}\\n  then M bytes of compact JSON, then \\n
    refusal   {"id":…,"ok":false,"error":{"code":…,"message":…,"path":…}}\\n

The M bytes are exactly the body of the matching HTTP route (``POST /v1/plan``,
``/v1/validate``, ``/v1/temporal``, ``/v1/find-slot``; ``reschedule_event``, ``cancel_event``
and ``update_event`` answer ``POST /v1/events/reschedule``, ``/cancel`` and ``/update``,
docs/decisions/0058; ``optimize`` answers ``POST /v1/optimize``, the PlanningResult
``cerebri optimize --json`` prints, docs/decisions/0080): :func:`cerebri._json.compact` of
the answer's ``to_wire()``. Compact JSON holds no raw newline, so an answer is two NDJSON lines.
A refusal carries the stable ``code`` and JSON ``path`` the CLI and HTTP layers report for
the same input (``json.*``, ``cpir.*``, ``input.too_large``, ``input.invalid_option``,
``ics.*``), or a ``bridge.*`` code:

* ``bridge.output_too_large``: the answer is longer than ``max_output_bytes``;
* ``bridge.unknown_operation``: ``op`` is not one of :data:`OPERATIONS`;
* ``bridge.internal_error``: an unexpected exception (a bug), reported, not fatal.

A header that is not a JSON object with an ``id``, ``op`` and non-negative integer ``length``
is ``bridge.invalid_request`` and ends the session (exit status 2): the framing is lost.
End of input ends the session with status 0. Nothing else is ever written to stdout.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import BinaryIO, Final

from cerebri._json import JSONValue, compact
from cerebri.cpir import Operation, parse_request
from cerebri.cpir.temporal_report import temporal_report
from cerebri.errors import CerebriError, InputTooLargeError, InvalidArgumentError
from cerebri.optimize import OPTIMIZE_LIMITS, plan, plan_batch, validate

__all__ = [
    "CALENDAR_OPERATIONS",
    "DEFAULT_MAX_FIND_SLOT_BYTES",
    "DEFAULT_MAX_INPUT_BYTES",
    "DEFAULT_MAX_OUTPUT_BYTES",
    "MAX_HEADER_BYTES",
    "OPERATIONS",
    "OPTIMIZE_BYTES",
    "BridgeError",
    "answer",
    "serve",
]

DEFAULT_MAX_INPUT_BYTES: Final = 256 * 1024
"""Largest request body, in bytes (the HTTP service's ``max_request_bytes``)."""
DEFAULT_MAX_FIND_SLOT_BYTES: Final = 4 * 1024 * 1024
"""Largest ``find_slot`` body, in bytes: 4 MiB, as ``POST /v1/find-slot`` (it carries calendars)."""
DEFAULT_MAX_OUTPUT_BYTES: Final = 16 * 1024 * 1024
"""Largest answer body, in bytes; longer answers are refused (``bridge.output_too_large``)."""
MAX_HEADER_BYTES: Final = 4096
"""Longest request header line, in bytes, newline included."""
OPERATIONS: Final = (
    "plan",
    "validate",
    "temporal",
    "find_slot",
    "reschedule_event",
    "cancel_event",
    "update_event",
    "optimize",
)
"""The operations a request may name, each the body of one HTTP route."""
OPTIMIZE_BYTES: Final = OPTIMIZE_LIMITS.max_request_bytes
"""Largest ``optimize`` body, in bytes: the optimiser's own admission limit (4 MiB), as
``POST /v1/optimize`` (decision 0077); not a setting."""
CALENDAR_OPERATIONS: Final = frozenset(
    {"find_slot", "reschedule_event", "cancel_event", "update_event"}
)
"""The operations whose bodies carry calendars: limited to ``max_find_slot_bytes``."""


class BridgeError(CerebriError):
    """A refused request: ``code`` (``bridge.*`` or the core's own code), ``message`` and
    ``path`` (JSON pointer or ``None``)."""

    code = "bridge.error"

    def __init__(self, code: str, message: str, path: str | None = None) -> None:
        super().__init__(message, code=code, path=path)


def _plan(body: bytes) -> JSONValue:
    # the router of decision 0070, as POST /v1/plan: OPTIMIZE to the batch optimiser
    return plan(body).to_wire()


def _optimize(body: bytes) -> JSONValue:
    request = parse_request(body)
    if request.operation is not Operation.OPTIMIZE:
        raise InvalidArgumentError(
            f"optimize answers OPTIMIZE requests only, not {request.operation.value}; use plan",
            path="/operation",
        )
    return plan_batch(request).to_wire()


def _validate(body: bytes) -> JSONValue:
    return validate(body).to_wire()


def _temporal(body: bytes) -> JSONValue:
    return temporal_report(body).to_wire()


def _find_slot(body: bytes) -> JSONValue:
    # the HTTP route's own reader and answer: the same checks, codes and bytes (loaded at
    # the first find_slot: the other operations start without the calendar stack)
    from cerebri.calendars.find_slot_body import read_find_slot_body  # noqa: PLC0415
    from cerebri.calendars.wire import answer_wire, plan_slots  # noqa: PLC0415

    ask = read_find_slot_body(body)
    found, busy = plan_slots(ask)
    return answer_wire(ask, found, busy)


def _change(operation: str) -> Callable[[bytes], JSONValue]:
    """The event change route's reader and answer (:mod:`cerebri.calendars.change_body`),
    loaded at the first change request."""

    def run(body: bytes) -> JSONValue:
        from cerebri.calendars.change_body import answer_change, read_change_body  # noqa: PLC0415
        from cerebri.calendars.change_request import ChangeOperation  # noqa: PLC0415

        return answer_change(read_change_body(ChangeOperation(operation), body))

    return run


_RUN: Final[dict[str, Callable[[bytes], JSONValue]]] = {
    "plan": _plan,
    "validate": _validate,
    "temporal": _temporal,
    "find_slot": _find_slot,
    "reschedule_event": _change("RESCHEDULE"),
    "cancel_event": _change("CANCEL"),
    "update_event": _change("UPDATE"),
    "optimize": _optimize,
}


def answer(op: str, body: bytes, *, max_output_bytes: int = DEFAULT_MAX_OUTPUT_BYTES) -> bytes:
    """The compact UTF-8 JSON answer of operation ``op`` on request ``body``.

    Returns the bytes the HTTP route answers for the same body (no trailing newline).

    Raises:
        BridgeError: ``bridge.unknown_operation``, ``bridge.output_too_large``, or the
            stable code of the core's :class:`~cerebri.errors.CerebriError` (and path).
    """
    run = _RUN.get(op)
    if run is None:
        raise BridgeError("bridge.unknown_operation", f"unknown operation {op!r}")
    try:
        data = compact(run(body)).encode("utf-8")
    except BridgeError:
        raise
    except CerebriError as error:
        raise BridgeError(error.code, error.message, error.path) from None
    if len(data) > max_output_bytes:
        raise BridgeError(
            "bridge.output_too_large",
            f"the answer is {len(data)} bytes, more than the limit of {max_output_bytes}",
        )
    return data


def _header(line: bytes) -> tuple[JSONValue, str, int]:
    """``(id, op, length)`` of a request header; :class:`BridgeError` when malformed."""
    try:
        header = json.loads(line)
    except ValueError:
        header = None
    if (
        not isinstance(header, dict)
        or not isinstance(header.get("id"), int | str)
        or isinstance(header.get("id"), bool)
        or not isinstance(header.get("op"), str)
        or not isinstance(header.get("length"), int)
        or isinstance(header.get("length"), bool)
        or header["length"] < 0
    ):
        raise BridgeError(
            "bridge.invalid_request",
            'a request header must be {"id": int|str, "op": str, "length": int >= 0}',
        )
    return header["id"], header["op"], header["length"]


def _write(stdout: BinaryIO, head: dict[str, JSONValue], body: bytes | None = None) -> None:
    stdout.write(compact(head).encode("utf-8") + b"\n")
    if body is not None:
        stdout.write(body + b"\n")
    stdout.flush()


def _refusal(ident: JSONValue, refusal: BridgeError) -> dict[str, JSONValue]:
    error: dict[str, JSONValue] = {
        "code": refusal.code,
        "message": refusal.message,
        "path": refusal.path,
    }
    return {"id": ident, "ok": False, "error": error}


def _skip(stdin: BinaryIO, count: int) -> int:
    """Read and drop ``count`` bytes; how many arrived before end of input."""
    dropped = 0
    while dropped < count:
        chunk = stdin.read(min(65536, count - dropped))
        if not chunk:
            break
        dropped += len(chunk)
    return dropped


def serve(
    stdin: BinaryIO,
    stdout: BinaryIO,
    *,
    max_input_bytes: int = DEFAULT_MAX_INPUT_BYTES,
    max_output_bytes: int = DEFAULT_MAX_OUTPUT_BYTES,
    max_find_slot_bytes: int = DEFAULT_MAX_FIND_SLOT_BYTES,
) -> int:
    """Answer framed requests from ``stdin`` on ``stdout`` until end of input.

    A body over ``max_input_bytes`` (``max_find_slot_bytes`` for the
    :data:`CALENDAR_OPERATIONS`, :data:`OPTIMIZE_BYTES` for ``optimize``, as the HTTP
    routes) is read past and refused with ``input.too_large`` without being parsed.
    Returns the exit status: 0 at end of input, 2 after a malformed header or a body cut
    short by end of input (the ``bridge.invalid_request`` refusal is written first).
    """
    while True:
        line = stdin.readline(MAX_HEADER_BYTES)
        if not line:
            return 0
        try:
            if not line.endswith(b"\n"):
                raise BridgeError(
                    "bridge.invalid_request",
                    f"a request header must be one line of at most {MAX_HEADER_BYTES} bytes",
                )
            ident, op, length = _header(line)
        except BridgeError as refusal:
            _write(stdout, _refusal(None, refusal))
            return 2
        limit = max_input_bytes
        if op in CALENDAR_OPERATIONS:
            limit = max_find_slot_bytes
        elif op == "optimize" and OPTIMIZE_BYTES is not None:
            limit = OPTIMIZE_BYTES
        if length > limit:
            complete = _skip(stdin, length) == length
            too_large = InputTooLargeError(f"input is larger than {limit} bytes")
            _write(stdout, _refusal(ident, BridgeError(too_large.code, too_large.message)))
            if not complete:
                return 2
            continue
        body = stdin.read(length)
        if len(body) < length:
            cut = BridgeError(
                "bridge.invalid_request", f"input ended after {len(body)} of {length} bytes"
            )
            _write(stdout, _refusal(ident, cut))
            return 2
        try:
            data = answer(op, body, max_output_bytes=max_output_bytes)
        except BridgeError as refusal:
            _write(stdout, _refusal(ident, refusal))
            continue
        except Exception as exc:  # a bug: report it, keep serving
            bug = BridgeError("bridge.internal_error", f"{type(exc).__name__}: {exc}")
            _write(stdout, _refusal(ident, bug))
            continue
        _write(stdout, {"id": ident, "ok": True, "length": len(data)}, data)
