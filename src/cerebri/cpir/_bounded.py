"""The model's own validator, rebuilt so that a failure costs little memory (decision 0031,
round 3).

Large documents used to be validated twice: by the fail-fast shadow of
:mod:`cerebri.cpir._failfast` (so that a failing document never makes pydantic list one
error per item or copy the document into ``missing`` errors, decision 0017), then by the
model. :func:`bounded_validator` gives one validator that does both jobs for documents that
are valid, built from a copy of the model's core schema in which

* every sequence and mapping schema stops at its first error (``fail_fast``): a failing
  document yields at most one error per array or mapping on the path to each failure;
* every required model field gets a default *factory* that raises :class:`Absent`: a
  left-out member stops the validation at once with that exception, before pydantic could
  build a ``missing`` error (which copies the object around it).

Nothing else changes: the same model classes are built by the same validators, so a
document it accepts gives exactly what the model gives (``fail_fast`` only matters once an
error occurred, and the factories only run for a member the model would report missing).
It never accepts more than the model. It may refuse what the model accepts (a left-out
member inside one member of an untagged union stops it before the next member is tried);
the caller then runs the shadow and the model as before, so every error keeps its code,
path and message.

pydantic-core serves a nested model from that model's prebuilt validator, which would
ignore the copied schema; the copy is built with ``_use_prebuilt=False`` (the switch
pydantic itself passes to ``SchemaValidator``), once per model. A pydantic-core without it
refuses the keyword and the caller keeps the shadow and the model.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from pydantic import BaseModel
from pydantic_core import SchemaError, SchemaValidator

__all__ = ["Absent", "bounded_validator"]

_SEQUENCES = frozenset(
    {"list", "tuple", "set", "frozenset", "deque", "dict", "frozendict", "ordered_dict"}
)
_KEEP_AS_IS = frozenset({"serialization", "metadata", "cls", "ref", "function"})


class Absent(Exception):  # noqa: N818 - a signal, not an error shown to anyone
    """Raised from inside the bounded validator when a required member is left out."""


def _absent() -> Any:
    raise Absent


def _bounded(node: Any, configs: dict[type[Any], Any]) -> Any:
    """The fail-fast copy of one core-schema node (recursive: a schema is as deep as the
    model's declarations, never as deep as a document). Collects the core config of each
    model class."""
    if isinstance(node, list):
        return [_bounded(item, configs) for item in node]
    if not isinstance(node, dict):
        return node
    kind = node.get("type")
    if kind == "model" and isinstance(node.get("cls"), type):
        configs[node["cls"]] = node.get("config")
    out = {
        key: (value if key in _KEEP_AS_IS else _bounded(value, configs))
        for key, value in node.items()
    }
    if kind in _SEQUENCES:
        out["fail_fast"] = True
    elif kind == "model-field" and out["schema"].get("type") != "default":
        out["schema"] = {"type": "default", "default_factory": _absent, "schema": out["schema"]}
    return out


@cache
def bounded_validator(model: type[BaseModel]) -> SchemaValidator | None:
    """The bounded validator of ``model`` (cached per model), or ``None`` when pydantic-core
    refuses the copied schema (the caller then keeps the shadow and the model).

    Its ``validate_json(text)`` returns the ``model`` instance the model's own validator
    gives, or raises :class:`Absent` (a required member left out) or
    :class:`pydantic_core.ValidationError` with at most one error per array or mapping on
    the path to each failure.
    """
    schema = model.__pydantic_core_schema__
    configs: dict[type[Any], Any] = {}
    try:
        copied = _bounded(schema, configs)
        # pydantic builds the model's validator with the config its model schema carries
        return SchemaValidator(copied, configs.get(model), _use_prebuilt=False)
    except (SchemaError, KeyError, TypeError, AttributeError):
        return None
