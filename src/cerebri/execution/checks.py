"""Evaluate a :class:`~cerebri.plans.Check` against a capability's structured result
(plans.md section 2).

The ``path`` is a dot path: each segment names a member of an object; a segment of ASCII
digits only indexes an array (``busy.0.start``). A path that leads nowhere is *not found*:
every op then fails except ``exists``, which holds exactly when the path is found.

Ops compare the observed value with ``check.value``:

* ``eq``/``ne``: JSON equality (RFC 8259 values: ``1 == 1.0``, but ``true`` is not ``1``,
  objects compare member by member, arrays element by element);
* ``lt``/``lte``/``gt``/``gte``: a number with a number or a string with a string (code point
  order); any other pair does not hold, and ``detail`` says why;
* ``contains``: a string holds a substring, an array an element (JSON equality), an object
  a member name;
* ``exists``: the path is found (its value may be ``null``).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from cerebri._json import JSONValue
from cerebri.plans import Check, CheckOp

__all__ = ["CheckOutcome", "evaluate_check", "json_equal"]


@dataclass(frozen=True, slots=True)
class CheckOutcome:
    """What a check saw: whether it ``holds``, the ``observed`` value at its path (``None``
    when not found), whether the path was ``found``, and a one-line ``detail`` for people."""

    holds: bool
    observed: JSONValue | None
    found: bool
    detail: str


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def json_equal(left: object, right: object) -> bool:
    """JSON equality: numbers by value, booleans only with booleans, ``null`` only with
    ``null``, strings by code points, arrays element-wise, objects by member set."""
    if _is_number(left) and _is_number(right):
        return left == right
    if isinstance(left, bool) or isinstance(right, bool):
        return type(left) is type(right) and left == right
    if isinstance(left, str) and isinstance(right, str):
        return left == right
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(map(json_equal, left, right))
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(json_equal(left[k], right[k]) for k in left)
    return left is None and right is None


_MISSING: Final = object()


def _walk(result: Mapping[str, JSONValue], path: str) -> Any:
    here: Any = result
    for segment in path.split("."):
        if isinstance(here, Mapping):
            here = here.get(segment, _MISSING)
        elif isinstance(here, list) and segment.isascii() and segment.isdigit():
            index = int(segment)
            here = here[index] if index < len(here) else _MISSING
        else:
            return _MISSING
        if here is _MISSING:
            return _MISSING
    return here


_ORDER: Final[Mapping[CheckOp, Callable[[Any, Any], bool]]] = {
    CheckOp.LT: operator.lt,
    CheckOp.LTE: operator.le,
    CheckOp.GT: operator.gt,
    CheckOp.GTE: operator.ge,
}


def _kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if _is_number(value):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object" if isinstance(value, dict) else type(value).__name__


def _ordered(op: CheckOp, observed: object, expected: object) -> tuple[bool, str]:
    comparable = (_is_number(observed) and _is_number(expected)) or (
        isinstance(observed, str) and isinstance(expected, str)
    )
    if not comparable:
        return False, f"cannot order {_kind(observed)} against {_kind(expected)}"
    holds = _ORDER[op](observed, expected)
    return holds, f"{observed!r} {op.value} {expected!r} is {str(holds).lower()}"


def _contains(observed: object, expected: object) -> tuple[bool, str]:
    if isinstance(observed, str):
        if not isinstance(expected, str):
            return False, f"a string contains only strings, not a {_kind(expected)}"
        holds = expected in observed
    elif isinstance(observed, list):
        holds = any(json_equal(item, expected) for item in observed)
    elif isinstance(observed, dict):
        if not isinstance(expected, str):
            return False, f"an object's member names are strings, not a {_kind(expected)}"
        holds = expected in observed
    else:
        return False, f"a {_kind(observed)} contains nothing"
    verb = "contains" if holds else "does not contain"
    return holds, f"{_kind(observed)} {verb} {expected!r}"


def evaluate_check(check: Check, result: Mapping[str, JSONValue]) -> CheckOutcome:
    """Compare the value at ``check.path`` in ``result`` with ``check.value`` by
    ``check.op`` (rules in the module doc). Never raises for any JSON ``result``."""
    observed = _walk(result, check.path)
    if observed is _MISSING:
        # every op fails; for ``exists`` that is the answer itself (holds = found)
        return CheckOutcome(False, None, False, f"nothing at path {check.path!r}")
    if check.op is CheckOp.EXISTS:
        return CheckOutcome(True, observed, True, f"path {check.path!r} exists")
    expected = check.value
    if check.op in (CheckOp.EQ, CheckOp.NE):
        equal = json_equal(observed, expected)
        holds = equal if check.op is CheckOp.EQ else not equal
        relation = "equals" if equal else "differs from"
        return CheckOutcome(holds, observed, True, f"{observed!r} {relation} {expected!r}")
    if check.op is CheckOp.CONTAINS:
        holds, detail = _contains(observed, expected)
    else:
        holds, detail = _ordered(check.op, observed, expected)
    return CheckOutcome(holds, observed, True, detail)
