"""Canonical JSON (RFC 8785, JCS) and ``sha256:`` content digests (proposals.md section 2).

Reading is strict: :func:`load_json` refuses duplicate object keys, numbers that a float64
cannot hold exactly as written (``0.10000000000000000001``, ``1e400``), and integers beyond
``+/-(2^53 - 1)``, each with ``ProposalError`` code ``proposal.canonical_json``, and
documents nested deeper than :data:`MAX_JSON_DEPTH` arrays/objects (``proposal.schema``, so
no parser, pydantic included, ever recurses on hostile nesting). Whatever it returns,
:func:`canonical_json` can write, and the bytes depend only on the JSON value.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from typing import Any, Final

import rfc8785

from cerebri._nesting import expanded_size, too_deep_at
from cerebri.proposals.errors import ProposalError

__all__ = [
    "DIGEST_PATTERN",
    "MAX_JSON_DEPTH",
    "canonical_json",
    "envelope_digest",
    "envelope_payload",
    "load_json",
    "sha256_digest",
]

DIGEST_PATTERN: Final = r"^sha256:[0-9a-f]{64}$"
MAX_SAFE_INTEGER: Final = 2**53 - 1
_CODE: Final = "proposal.canonical_json"
MAX_JSON_DEPTH: Final = 128
"""Deepest nesting of arrays/objects :func:`load_json` accepts (envelopes need 4)."""


_MAX_VALUES: Final = 16 * 1024 * 1024
_JCS_EXPONENT_FROM: Final = 1e21  # RFC 8785 / ECMAScript write integral floats below this
# without exponent, i.e. as integer text


def _unreadable_float(value: Any) -> float | None:
    """The first float JCS would write as integer text beyond 2^53 - 1 (not readable back)."""
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            stack.extend(node.values())
        elif isinstance(node, list | tuple):
            stack.extend(node)
        elif (
            isinstance(node, float)
            and math.isfinite(node)
            and node.is_integer()
            and MAX_SAFE_INTEGER < abs(node) < _JCS_EXPONENT_FROM
        ):
            return node
    return None


def canonical_json(value: Any) -> bytes:
    """RFC 8785 bytes of a JSON value (dict/list/str/int/float/bool/None).

    Raises ``ProposalError`` (``proposal.canonical_json``) for what JCS cannot represent:
    NaN/Infinity, integers with ``abs(n) > 2^53 - 1``, integral floats that JCS would write
    as such integers (``9007199254740992.0``: :func:`load_json` could not read them back),
    non-string keys, other types, and values nested deeper than :data:`MAX_JSON_DEPTH`
    levels, containing themselves or holding more than 16 Mi values once written out
    (shared sub-values counted at every place; all checked first, without recursion).
    """
    where = too_deep_at(value, MAX_JSON_DEPTH)
    if where is not None:
        raise ProposalError(
            f"value nested deeper than {MAX_JSON_DEPTH} levels", code=_CODE, path=where
        )
    if expanded_size(value, _MAX_VALUES) > _MAX_VALUES:
        raise ProposalError(f"value holds more than {_MAX_VALUES} JSON values", code=_CODE)
    unreadable = _unreadable_float(value)
    if unreadable is not None:
        raise ProposalError(
            f"{unreadable!r} would be written as an integer beyond 2^53 - 1", code=_CODE
        )
    try:
        return rfc8785.dumps(value)
    except RecursionError:
        raise ProposalError("value nested too deeply for RFC 8785", code=_CODE) from None
    except (rfc8785.CanonicalizationError, TypeError, ValueError) as exc:
        raise ProposalError(f"not representable in RFC 8785: {exc}", code=_CODE) from exc


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise ProposalError(f"duplicate object key {key!r}", code=_CODE)
        result[key] = value
    return result


def _float(text: str) -> float:
    value = float(text)
    try:
        exact = math.isfinite(value) and Decimal(text) == Decimal(repr(value))
    except InvalidOperation:  # pragma: no cover - json only hands us valid number text
        exact = False
    if not exact:
        raise ProposalError(f"number {text} does not round-trip through float64", code=_CODE)
    return value


def _int(text: str) -> int:
    value = int(text)
    if abs(value) > MAX_SAFE_INTEGER:
        raise ProposalError(f"integer {text} is beyond 2^53 - 1", code=_CODE)
    return value


def _constant(text: str) -> float:
    raise ProposalError(f"{text} is not JSON", code=_CODE)


def _depth(value: Any) -> int:
    """Nesting depth of arrays/objects in a decoded JSON value (a scalar is 0), iteratively."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        node, level = stack.pop()
        if isinstance(node, dict | list):
            level += 1
            deepest = max(deepest, level)
            children = node.values() if isinstance(node, dict) else node
            stack.extend((child, level) for child in children)
    return deepest


def _too_deep() -> ProposalError:
    return ProposalError(f"JSON nested deeper than {MAX_JSON_DEPTH} levels", code="proposal.schema")


def load_json(data: bytes) -> Any:
    """Parse UTF-8 JSON bytes strictly (see the module docstring).

    Malformed JSON, invalid UTF-8, ``data`` that is not ``bytes`` or nesting deeper than
    :data:`MAX_JSON_DEPTH` is ``proposal.schema``; representability problems are
    ``proposal.canonical_json``.
    """
    _require_bytes(data, "JSON text")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ProposalError("envelope is not UTF-8", code="proposal.schema") from exc
    try:
        value = json.loads(
            text,
            object_pairs_hook=_pairs,
            parse_float=_float,
            parse_int=_int,
            parse_constant=_constant,
        )
    except json.JSONDecodeError as exc:
        raise ProposalError(f"malformed JSON: {exc}", code="proposal.schema") from exc
    except RecursionError:
        raise _too_deep() from None
    if _depth(value) > MAX_JSON_DEPTH:
        raise _too_deep()
    return value


def _require_bytes(data: object, what: str) -> None:
    if not isinstance(data, bytes | bytearray):
        raise ProposalError(
            f"{what} must be bytes, not {type(data).__name__}", code="proposal.schema"
        )


def _require_object(document: object) -> None:
    if not isinstance(document, Mapping):
        raise ProposalError(
            f"an envelope is a JSON object, not {type(document).__name__}",
            code="proposal.schema",
            path="",
        )


def sha256_digest(data: bytes) -> str:
    """``"sha256:"`` plus the 64 lowercase hex digits of SHA-256 over ``data``
    (``proposal.schema`` if ``data`` is not bytes)."""
    _require_bytes(data, "digested data")
    return "sha256:" + hashlib.sha256(data).hexdigest()


def envelope_payload(document: Mapping[str, Any]) -> bytes:
    """The signed bytes of an envelope: RFC 8785 form of every field except ``signature``.

    ``proposal.schema`` when ``document`` is not a mapping; :func:`canonical_json` codes.
    """
    _require_object(document)
    return canonical_json({k: v for k, v in document.items() if k != "signature"})


def envelope_digest(document: Mapping[str, Any]) -> str:
    """``sha256:`` digest of :func:`envelope_payload` (what an approval refers to)."""
    return sha256_digest(envelope_payload(document))
