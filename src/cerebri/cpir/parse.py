"""Reading CPIR documents: strict JSON, then strict models (cpir-0.2.md section 1).

The JSON layer rejects what Python's ``json`` would otherwise let through: duplicate keys,
``NaN``/``Infinity`` and nesting deeper than :data:`MAX_NESTING`. The model layer rejects
unknown keys, missing required keys, wrong enum spellings and out-of-range values. Every
failure is a :class:`~cerebri.errors.ParseError` with a stable code and a JSON pointer.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Mapping
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError
from pydantic_core import PydanticSerializationError, to_json

from cerebri._collector import collector_paused
from cerebri._nesting import expanded_size, plain_tree_size, too_deep_at
from cerebri.cpir._bounded import bounded_validator
from cerebri.cpir._failfast import MISSING, checker
from cerebri.cpir._unknown import blank_unknown_members
from cerebri.cpir.request import PlanningRequest
from cerebri.errors import InputTooLargeError, ParseError

__all__ = [
    "FAIL_FAST_VALUES",
    "MAX_DECODED_VALUES",
    "MAX_NESTING",
    "check_depth",
    "load_json",
    "parse_model",
    "parse_request",
]

MAX_NESTING = 128
"""Deepest allowed nesting of arrays and objects; the outermost object is level 1."""

MAX_DECODED_VALUES = 16 * 1024 * 1024
"""Most JSON values (objects, arrays and scalars, counted as JSON text would write them) a
decoded Python document may hold; beyond is ``input.too_large``. It stops values that share
sub-values from expanding to astronomical text (``[x, x]`` nested 60 levels deep)."""

FAIL_FAST_VALUES = 2**14
"""Documents of more JSON values than this are validated by the bounded copy of the model
(:mod:`cerebri.cpir._bounded`, decision 0031), which stops each array at its first wrong
item and a left-out member at once, so pydantic never lists one error per item or copies
the document into ``missing`` errors (decision 0017). Only when it refuses the document is
the fail-fast shadow (:mod:`cerebri.cpir._failfast`) asked for the error, then the model.
Smaller documents go to the model directly."""

M = TypeVar("M", bound=BaseModel)

_CODE_BY_PYDANTIC_TYPE = {
    "extra_forbidden": "cpir.unknown_field",
    "missing": "cpir.missing_field",
    "union_tag_not_found": "cpir.missing_field",
    "enum": "cpir.invalid_enum",
    "literal_error": "cpir.invalid_enum",
    "union_tag_invalid": "cpir.invalid_enum",
}


class _DuplicateKeyError(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) == len(pairs):
        return result
    seen: set[str] = set()
    for key, _ in pairs:  # name the first key met twice
        if key in seen:
            raise _DuplicateKeyError(key)
        seen.add(key)
    raise AssertionError("unreachable: a shorter dict has a repeated key")  # pragma: no cover


def _no_constants(name: str) -> Any:
    raise ParseError(
        f"non-standard JSON number {name} is not allowed", code="json.non_finite_number"
    )


def _finite_float(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise ParseError(
            f"number {text} is out of the range of a double", code="json.non_finite_number"
        )
    return value


MAX_INTEGER_DIGITS = 64
"""Longest integer literal accepted; no CPIR number needs more than 20 digits."""


def _bounded_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INTEGER_DIGITS:
        raise ParseError(
            f"integer literal longer than {MAX_INTEGER_DIGITS} digits",
            code="json.number_out_of_range",
        )
    return int(text)


def _pointer(parts: list[str | int]) -> str:
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


def _check_text(text: str, path: Callable[[], list[str | int]]) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise ParseError(
            "string contains a lone UTF-16 surrogate escape",
            code="json.syntax",
            path=_pointer(path()),
        ) from None


def _too_many_values() -> InputTooLargeError:
    return InputTooLargeError(
        f"the document holds more than {MAX_DECODED_VALUES} JSON values; "
        "split it or leave out what the request does not need"
    )


def _items(node: dict[str, Any] | list[Any]) -> Iterator[tuple[str | int, Any]]:
    return iter(node.items()) if isinstance(node, dict) else enumerate(node)


def _check_structure(document: Any) -> int:
    """Nesting depth, the number of values and well-formed Unicode in every key and string.

    One depth-first walk with a stack of iterators, one per open container, and the keys
    leading to the current value: memory grows with the depth (at most
    :data:`MAX_NESTING`), not with the number of values, and a JSON pointer is only built
    for an error. Returns the number of values.
    """
    keys: list[str | int] = []
    if isinstance(document, str):
        _check_text(document, keys.copy)
    if not isinstance(document, dict | list):
        return 1
    frames = [_items(document)]
    count = 1
    while frames:
        step = next(frames[-1], None)
        if step is None:
            frames.pop()
            if keys:
                keys.pop()
            continue
        key, child = step
        count += 1
        if count > MAX_DECODED_VALUES:
            raise _too_many_values()
        if isinstance(key, str):
            keys.append(key)
            _check_text(key, keys.copy)
            keys.pop()
        if isinstance(child, str):
            keys.append(key)
            _check_text(child, keys.copy)
            keys.pop()
        elif isinstance(child, dict | list):
            keys.append(key)
            if len(frames) >= MAX_NESTING:
                raise ParseError(
                    f"nesting deeper than {MAX_NESTING} levels",
                    code="json.too_deep",
                    path=_pointer(keys),
                )
            frames.append(_items(child))
    return count


def check_depth(value: object) -> None:
    """Refuse a decoded Python value nested deeper than :data:`MAX_NESTING` levels of
    mappings, lists and tuples, or containing itself, or holding more than
    :data:`MAX_DECODED_VALUES` values once written out (iteratively, never recursing).

    Raises:
        ParseError: ``json.too_deep`` with the pointer of the first container too deep.
        InputTooLargeError: ``input.too_large`` beyond :data:`MAX_DECODED_VALUES`.
    """
    _checked_size(value)


def _checked_size(value: object) -> int:
    """:func:`check_depth`, returning the number of values ``value`` holds once written."""
    where = too_deep_at(value, MAX_NESTING)
    if where is not None:
        raise ParseError(
            f"nesting deeper than {MAX_NESTING} levels", code="json.too_deep", path=where
        )
    size = expanded_size(value, MAX_DECODED_VALUES)
    if size > MAX_DECODED_VALUES:
        raise InputTooLargeError(
            f"the document holds more than {MAX_DECODED_VALUES} JSON values once written out"
        )
    return size


class _Counter:
    """``json.loads`` hooks that also count the objects and numbers decoded, refusing the
    document as soon as they exceed :data:`MAX_DECODED_VALUES` (before the rest is built).
    Arrays, strings and literals have no hook; :func:`_check_structure` counts every value.
    """

    __slots__ = ("count",)

    def __init__(self) -> None:
        self.count = 0

    def _tick(self) -> None:
        self.count += 1
        if self.count > MAX_DECODED_VALUES:
            raise _too_many_values()

    def pairs(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        self._tick()
        return _no_duplicates(pairs)

    def integer(self, text: str) -> int:
        self._tick()
        return _bounded_int(text)

    def real(self, text: str) -> float:
        self._tick()
        return _finite_float(text)


def _decode(text: str | bytes) -> Any:
    """Strict ``json.loads`` (see :func:`load_json`) without the structure walk."""
    if not isinstance(text, str | bytes):
        raise ParseError(
            f"JSON text is str or bytes, not {type(text).__name__}", code="json.syntax"
        )
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ParseError(f"input is not UTF-8: {exc.reason}", code="json.syntax") from None
    counter = _Counter()
    try:
        return json.loads(
            text,
            parse_int=counter.integer,
            object_pairs_hook=counter.pairs,
            parse_constant=_no_constants,
            parse_float=counter.real,
        )
    except _DuplicateKeyError as exc:
        raise ParseError(f"duplicate key {exc.key!r}", code="json.duplicate_key") from None
    except RecursionError:
        raise ParseError(
            f"nesting deeper than {MAX_NESTING} levels", code="json.too_deep"
        ) from None
    except json.JSONDecodeError as exc:
        raise ParseError(_syntax_message(text, exc), code="json.syntax") from None


def load_json(text: str | bytes) -> Any:
    """Parse strict JSON text into Python values.

    Bytes must be UTF-8 without a byte order mark (cpir-0.2.md 1.1). Memory stays
    proportional to the text: values are counted while they are decoded, and the check of
    depth and strings keeps one frame per open container, not one per value.

    Raises:
        ParseError: ``json.syntax`` (malformed, not UTF-8, a byte order mark, a lone
            surrogate, ``text`` neither ``str`` nor ``bytes``), ``json.duplicate_key``,
            ``json.non_finite_number`` (``NaN``, ``Infinity``, ``-Infinity``, a double
            overflow such as ``1e400``),
            ``json.number_out_of_range`` (an integer of more than 64 digits),
            ``json.too_deep`` (more than :data:`MAX_NESTING` levels).
        InputTooLargeError: ``input.too_large`` for more than :data:`MAX_DECODED_VALUES`
            values (objects, arrays and scalars), refused as soon as they are counted.
    """
    return _load_counted(text)[0]


def _load_counted(text: str | bytes) -> tuple[Any, int]:
    """:func:`load_json` and the number of values the document holds."""
    document = _decode(text)
    # An object of plain values is bounded by the level-by-level count (in C); it cannot
    # hold a lone surrogate unless the text has one, raw or as an escape. Anything else
    # takes the structure walk, which names what is wrong.
    count = plain_tree_size(document, MAX_NESTING, MAX_DECODED_VALUES)
    if count is None or _may_hold_surrogates(text):
        return document, _check_structure(document)
    return document, count


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_SURROGATE_ESCAPE_BYTES = re.compile(rb"\\u[dD][89a-fA-F]")


def _may_hold_surrogates(text: str | bytes) -> bool:
    """False when decoding ``text`` cannot have produced a lone surrogate: UTF-8 bytes or a
    ``str`` that encodes as UTF-8, without a ``\\uD800``-``\\uDFFF`` escape (a pair of them,
    which decodes to one character, also answers True: the walk then looks)."""
    if isinstance(text, bytes):
        return _SURROGATE_ESCAPE_BYTES.search(text) is not None
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return _SURROGATE_ESCAPE.search(text) is not None


def _syntax_message(text: str, exc: json.JSONDecodeError) -> str:
    stripped = text.lstrip()
    if not stripped:
        return "input is empty; a CPIR request is a JSON object"
    if text.startswith("\ufeff"):
        return "input starts with a byte order mark; save the file as UTF-8 without BOM"
    if exc.pos == len(text) - len(stripped) and stripped[0] not in "{[":
        return (
            f"input is not JSON (it starts with {stripped[:20]!r}); pass the request's text, "
            "not a file name"
        )
    return f"{exc.msg} (line {exc.lineno}, column {exc.colno})"


def _locate(document: Any, loc: tuple[str | int, ...]) -> list[str | int]:
    # pydantic's location also names union tags (e.g. "EVENT", "RESOLVED"); keep only the
    # steps that exist in the document, so the pointer addresses the input itself.
    parts: list[str | int] = []
    node: Any = document
    for step in loc:
        if isinstance(node, dict) and isinstance(step, str) and step in node:
            node = node[step]
            parts.append(step)
        elif isinstance(node, list) and isinstance(step, int) and 0 <= step < len(node):
            node = node[step]
            parts.append(step)
        elif isinstance(node, dict) and isinstance(step, str) and not _is_tag(step):
            parts.append(step)  # a missing or unknown key: the pointer names it
            node = None
    return parts


def _is_tag(step: str) -> bool:
    # Union tags are the wire's tag values (CREATE_EVENT, RESOLVED, Existing, ...) or
    # pydantic's generic model names (Known[int]); field names are lower_snake_case.
    return not step.islower() or "[" in step


def _describe(error: Any, document: Any) -> tuple[str, str, str]:
    code = _CODE_BY_PYDANTIC_TYPE.get(error["type"], "cpir.invalid_value")
    path = _pointer(_locate(document, tuple(error["loc"])))
    message = str(error["msg"]).removeprefix("Value error, ")  # pydantic's validator prefix
    if error["type"] == "extra_forbidden":
        message = "unknown field"
    elif error["type"] == "missing":
        message = "required field is missing"
    return code, path, message


def _translate(exc: ValidationError, document: Any) -> ParseError:
    # An unknown key is usually the typo behind a "missing" one, so it is reported first;
    # the message also names up to three further problems with their paths.
    errors = sorted(exc.errors(include_url=False), key=lambda e: e["type"] != "extra_forbidden")
    for error in errors:
        if error.get("input") is MISSING:  # the fail-fast shadow's stand-in for a member
            error["type"] = "missing"
    code, path, message = _describe(errors[0], document)
    others = [_describe(e, document) for e in errors[1:]]
    if others:
        listed = "; ".join(f"{m} at {p or '/'}" for _, p, m in others[:3])
        more = f" and {len(others) - 3} more" if len(others) > 3 else ""
        message = f"{message} (also: {listed}{more})"
    return ParseError(message, code=code, path=path)


def _dumped(source: Mapping[str, Any]) -> str:
    """``source`` as compact JSON text; its JSON errors as :class:`ParseError`."""
    try:
        return json.dumps(source, allow_nan=False, ensure_ascii=False)
    except ValueError as exc:
        if "integer" in str(exc):
            raise ParseError(
                "integer too large to convert", code="json.number_out_of_range"
            ) from None
        raise ParseError("non-finite number in input", code="json.non_finite_number") from None
    except TypeError as exc:
        raise ParseError(f"not JSON data: {exc}", code="json.syntax") from None


def _plain_json(source: Mapping[str, Any]) -> bytes | None:
    """A plain tree (see :func:`~cerebri._nesting.plain_tree_size`) as UTF-8 JSON text,
    written by pydantic-core (about three times faster than ``json.dumps``), or ``None``
    when that text would not be valid strict JSON: a lone surrogate (which pydantic-core
    refuses to write) or a non-finite number (written as ``NaN``/``Infinity``; any such
    spelling in the text, even inside a string, answers ``None``). The caller then takes
    the ``json.dumps`` path, which reports them.

    Both writers give the same JSON value: dict order kept, strings escaped as JSON
    requires, floats in a shortest spelling that reads back as the same double.
    """
    try:
        data = to_json(source, inf_nan_mode="constants")
    except PydanticSerializationError:
        return None
    if b"NaN" in data or b"Infinity" in data:
        return None
    return data


def parse_model(model: type[M], source: str | bytes | Mapping[str, Any]) -> M:
    """Parse ``source`` (JSON text, UTF-8 bytes, or already-decoded JSON values) as ``model``.

    Decoded values are checked first, without recursion (:func:`check_depth`): more than
    :data:`MAX_NESTING` levels of dicts, lists and tuples (or a value that contains itself)
    is ``json.too_deep``, exactly as for the same document as text; more than
    :data:`MAX_DECODED_VALUES` values is ``InputTooLargeError`` (``input.too_large``).

    Raises:
        ParseError: see :func:`load_json`; ``json.not_object`` when the document is not a
            JSON object; ``cpir.unknown_field``, ``cpir.missing_field``,
            ``cpir.invalid_enum``, ``cpir.invalid_value`` from the model, with ``path``
            pointing at the offending input.
    """
    with collector_paused():  # the parse makes no reference cycles (decision 0031)
        return _parse_model(model, source)


def _parse_model(model: type[M], source: str | bytes | Mapping[str, Any]) -> M:
    if isinstance(source, str | bytes):
        # Text is walked even when it is not an object: nesting and lone surrogates are
        # syntax-level (HTTP 400, api.md 4), as in the reference decoder.
        document, count = _load_counted(source)
        return _validated(model, document, source, count)
    if not isinstance(source, Mapping):
        raise ParseError(
            f"a CPIR document is a JSON object, not {type(source).__name__}",
            code="json.not_object",
            path="",
        )
    plain = plain_tree_size(source, MAX_NESTING, MAX_DECODED_VALUES)
    count = _checked_size(source) if plain is None else plain
    if plain is not None:
        # A plain tree (str keys, short integers): no key can collide once written, so the
        # text says exactly what ``source`` holds and is not decoded again. It is validated
        # as it is; only a document the validators refuse takes the path below, where a
        # decoded copy has its unknown members blanked before the error is reported (the
        # caller's ``source`` is never changed).
        data = _plain_json(source)
        if data is not None:
            try:
                return _run_validators(model, data, count)
            except ValidationError:
                pass  # the bounded validator, if any, refused it already: not asked again
    text = _dumped(source)
    # Depth and size are known from the walk above; what the text can still hide is a
    # duplicate key (``{1: …, "1": …}``), a too long integer (both refused by the decoder)
    # or a lone surrogate, which only the walk below can locate.
    document = _decode(text)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        _check_structure(document)
    return _validated(model, document, text, count, bounded=False)


def _bounded_parse(model: type[M], text: str | bytes) -> M | None:
    """``text`` as ``model`` by the bounded validator (:mod:`cerebri.cpir._bounded`), or
    ``None`` when there is none or it refuses the document (errors are then reported by the
    shadow and the model, never by it)."""
    validator = bounded_validator(model)
    if validator is None:
        return None
    try:
        parsed = validator.validate_json(text)
    except Exception:  # any refusal (Absent too): the shadow and the model report it
        return None
    return parsed if type(parsed) is model else None


def _run_validators(model: type[M], text: str | bytes, count: int, *, bounded: bool = True) -> M:
    """For documents of more than :data:`FAIL_FAST_VALUES` values: the bounded validator
    (when ``bounded``), and only if it refuses the document the fail-fast shadow; then the
    model. Raises the shadow's or the model's :class:`ValidationError`."""
    if count <= FAIL_FAST_VALUES:
        return model.model_validate_json(text)
    parsed = _bounded_parse(model, text) if bounded else None
    if parsed is not None:
        return parsed
    shadow = checker(model)
    if shadow is not None:
        shadow.validate_json(text)
    return model.model_validate_json(text)


def _validated(
    model: type[M], document: Any, text: str | bytes, count: int, *, bounded: bool = True
) -> M:
    """``document`` (decoded from ``text``, a copy this parse may change) as ``model``;
    ``bounded`` as for :func:`_run_validators`."""
    if not isinstance(document, dict):
        raise ParseError("a CPIR document is a JSON object", code="json.not_object", path="")
    # Unknown members are blanked before any validator reads the text, also for a valid
    # document: pydantic-core turns the whole text into its own tree first, and a large
    # unknown member would double the peak memory of a refused document (decision 0031).
    if blank_unknown_members(model, document):
        text = json.dumps(document, ensure_ascii=False)
    # Otherwise ``text`` says exactly what ``document`` holds: same members and values,
    # duplicates, non-finite numbers and lone surrogates already refused.
    try:
        return _run_validators(model, text, count, bounded=bounded)
    except ValidationError as exc:
        raise _translate(exc, document) from None


def parse_request(source: str | bytes | Mapping[str, Any] | PlanningRequest) -> PlanningRequest:
    """Parse a CPIR 0.1/0.2 planning request.

    Accepts JSON text, UTF-8 bytes, a mapping of JSON values, or an existing
    :class:`PlanningRequest` (returned unchanged). Unsupported schema versions and
    operations parse; they become validation issues, not errors (cpir-0.2.md 4, 5).

    Raises:
        ParseError: the input is not a well-formed CPIR request (see :func:`parse_model`).
    """
    if isinstance(source, PlanningRequest):
        return source
    return parse_model(PlanningRequest, source)
