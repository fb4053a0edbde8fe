"""A lenient, fail-fast shadow of a model's validator for large documents (decision 0017).

pydantic reports every error of a document: a known array of 500 000 wrong items makes
500 000 errors, about 700 bytes of Python each once listed, and each ``missing`` error
copies the object around it; ``{"target_ids":[0,0,…]}`` cost about 600 times its text.
pydantic-core can stop a sequence at its first error (``fail_fast``), but a model's own
validator cannot be rebuilt with it: a nested model schema is always served by that
model's prebuilt validator. :func:`checker` therefore builds a separate validator from a
copy of the model's core schema in which

* every sequence and mapping schema stops at its first error (``fail_fast``);
* every model schema becomes the plain ``model-fields`` schema it wraps (input stays a
  dict, no prebuilt validator, no model class built) keeping ``extra="forbid"``;
* every function that reads the raw input (``before``, ``wrap``, ``plain``) accepts
  anything, and an ``after`` function is dropped in favour of the schema it follows.
* every required member defaults to :data:`MISSING`, validated in its place: a left-out
  member fails with that small marker as its input, not with pydantic's ``missing``
  error, which copies the whole object around it (the caller maps it back to
  ``cpir.missing_field``).

So the shadow never runs project code and accepts at least what the model accepts: any
error it finds is an error of the model too, at the same location (the codes the error
types map to are the same; the model's stricter checks may word the message otherwise).
It only decides *whether* a document fails and where first; a document it accepts is then
validated by the model itself, so valid documents give exactly the model's instance.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

from pydantic import BaseModel
from pydantic_core import SchemaError, SchemaValidator

__all__ = ["MISSING", "checker"]

_SEQUENCES = frozenset(
    {"list", "tuple", "set", "frozenset", "deque", "dict", "frozendict", "ordered_dict"}
)
_RAW_FUNCTIONS = frozenset({"function-before", "function-wrap", "function-plain"})
_ACCEPT_ANYTHING = _RAW_FUNCTIONS | {"dataclass"}
"""Node kinds the shadow replaces with ``any``: functions reading the raw input, dataclasses."""
_KEEP_AS_IS = frozenset({"serialization", "metadata", "cls", "ref", "function"})


class _Missing:
    """The value the shadow gives a required member the document leaves out."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<missing>"


MISSING = _Missing()
"""Stands for a left-out required member: the shadow validates it in the member's place,
so the error pydantic raises carries this small value as its input instead of a copy of
the whole object around it (a ``missing`` error would copy that object)."""


def _strict(schema: Any) -> bool:
    """True when every model in the schema is strict (the shadow is then strict too)."""
    found: list[bool] = []
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            stack.extend(node)
        elif isinstance(node, dict):
            if node.get("type") == "model":
                found.append(bool((node.get("config") or {}).get("strict")))
            stack.extend(v for k, v in node.items() if k not in _KEEP_AS_IS)
    return bool(found) and all(found)


def _anything(node: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "any"}
    if "ref" in node:
        out["ref"] = node["ref"]
    return out


def _shadow(node: Any) -> Any:
    """The lenient, fail-fast copy of one core-schema node (recursive: a schema is as deep
    as the model's declarations, never as deep as a document)."""
    if isinstance(node, list):
        return [_shadow(item) for item in node]
    if not isinstance(node, dict):
        return node
    kind = node.get("type")
    if (
        kind in _RAW_FUNCTIONS
        or kind == "dataclass"
        or (kind == "model" and node.get("root_model"))
    ):
        return _anything(node)
    special = _SPECIAL.get(kind)
    if special is not None:
        return special(node)
    out = {key: (value if key in _KEEP_AS_IS else _shadow(value)) for key, value in node.items()}
    if kind in _SEQUENCES:
        out["fail_fast"] = True
    return out


def _after_function(node: dict[str, Any]) -> dict[str, Any]:
    """A ``function-after`` node: the schema it follows, under the node's ``ref``."""
    inner = dict(_shadow(node["schema"]))
    if "ref" in node:
        inner["ref"] = node["ref"]
    return inner


def _model_field(node: dict[str, Any]) -> dict[str, Any]:
    """A ``model-field`` node whose schema defaults to :data:`MISSING` when it had no
    default (a left-out member is then validated as that marker)."""
    out = {key: value for key, value in node.items() if key != "schema"}
    inner = _shadow(node["schema"])
    if not (isinstance(inner, dict) and inner.get("type") == "default"):
        inner = {
            "type": "default",
            "default": MISSING,
            "validate_default": True,
            "schema": inner,
        }
    out["schema"] = inner
    return out


def _model(node: dict[str, Any]) -> dict[str, Any]:
    """A ``model`` node: the ``model-fields`` schema it wraps, keeping ``extra="forbid"``
    and the node's ``ref``."""
    fields = dict(_shadow(node["schema"]))
    config = node.get("config") or {}
    if config.get("extra_fields_behavior") == "forbid":
        fields["extra_behavior"] = "forbid"
    if "ref" in node:
        fields["ref"] = node["ref"]
    return fields


_SPECIAL: dict[Any, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "function-after": _after_function,
    "model-field": _model_field,
    "model": _model,
}
"""The node kinds :func:`_shadow` rewrites, each with its rewrite."""


@cache
def checker(model: type[BaseModel]) -> SchemaValidator | None:
    """The shadow validator of ``model`` (cached per model), or ``None`` when pydantic-core
    refuses the shadow schema (the caller then uses the model's validator alone).

    Its ``validate_json`` raises :class:`pydantic_core.ValidationError` with at most one
    error per array or mapping on the path to each failure, and returns plain dicts.
    """
    try:
        schema = model.__pydantic_core_schema__
        return SchemaValidator(_shadow(schema), {"strict": _strict(schema)})
    except (SchemaError, KeyError, TypeError):
        return None
