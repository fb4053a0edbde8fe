"""Blank the values of unknown members before pydantic reads a document (decision 0017).

pydantic copies the input of every error into Python objects: an ``extra_forbidden`` error
copies the unknown member's value, and each ``missing`` error copies the whole object it
sits in. A 4 MiB request made of one unknown member ``{"a": [{}, {}, ...]}`` and no known
ones thus costs sixteen copies of the document: about 600 times its size in memory. The
value of a member that no field of the model names is never validated (``extra="forbid"``
refuses the key whatever its value), so :func:`blank_unknown_members` replaces it with
``None`` first: pydantic reports the same errors at the same locations, and copies
nothing large.

The walk follows the document only where the model that reads it is certain: a model
field, ``X | None``, ``tuple[X, ...]``/``list[X]``, and tagged unions whose tag member
picks one model. It leaves alone models that do not forbid extra keys, that read their
raw input (``mode="before"``/``"wrap"`` model validators) or whose field names are not
plain; where unsure it blanks less, never more.
"""

from __future__ import annotations

from collections.abc import Iterator
from enum import Enum
from functools import cache
from itertools import repeat
from types import NoneType, UnionType
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel
from pydantic.fields import FieldInfo

__all__ = ["blank_unknown_members"]


def _plain(annotation: Any) -> tuple[Any, str | None]:
    """The annotation without ``Annotated`` wrappers, and the union tag they name."""
    tag: str | None = None
    while get_origin(annotation) is Annotated:
        annotation, *extras = get_args(annotation)
        for extra in extras:
            if isinstance(extra, FieldInfo) and isinstance(extra.discriminator, str):
                tag = extra.discriminator
    return annotation, tag


def _tag_values(model: type[BaseModel], tag: str) -> frozenset[object]:
    field = model.model_fields.get(tag)
    if field is None:
        return frozenset()
    annotation, _ = _plain(field.annotation)
    if get_origin(annotation) is not Literal:
        return frozenset()
    return frozenset(v.value if isinstance(v, Enum) else v for v in get_args(annotation))


_OPAQUE = ("opaque", None)


@cache
def _reader(annotation: Any, tag: str | None) -> tuple[str, Any]:
    """How a value of this annotation is read: ``("model", cls)``, ``("items", inner)``,
    ``("tagged", (tag, {tag value: cls}))`` or ``("opaque", None)``."""
    annotation, inner_tag = _plain(annotation)
    origin = get_origin(annotation)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return ("model", annotation)
    if origin in (tuple, list):
        return _sequence_reader(origin, get_args(annotation))
    if origin in (Union, UnionType):
        return _union_reader(get_args(annotation), inner_tag or tag)
    return _OPAQUE


def _sequence_reader(origin: Any, args: tuple[Any, ...]) -> tuple[str, Any]:
    """``list[X]`` and ``tuple[X, ...]`` read their items as ``X``; a fixed-length tuple and
    a bare ``list``/``tuple`` are opaque."""
    if origin is tuple and not (len(args) == 2 and args[1] is Ellipsis):
        return _OPAQUE
    return ("items", args[0]) if args else _OPAQUE


def _union_reader(args: tuple[Any, ...], tag: str | None) -> tuple[str, Any]:
    """A union of models (``None`` allowed): the one model, or the models picked by the
    value of ``tag`` when every tag value names one model; anything else is opaque."""
    members = [a for a in args if a is not NoneType]
    models = [m for m in (_plain(a)[0] for a in members) if isinstance(m, type)]
    if len(members) != len(models) or not all(issubclass(m, BaseModel) for m in models):
        return _OPAQUE
    if len(models) == 1:
        return ("model", models[0])
    if tag is None:
        return _OPAQUE  # a smart union tries every member: blank nothing
    by_value: dict[object, type[BaseModel]] = {}
    for model in models:
        for value in _tag_values(model, tag):
            if value in by_value:
                return _OPAQUE
            by_value[value] = model
    return ("tagged", (tag, by_value))


@cache
def _fields(model: type[BaseModel]) -> dict[str, tuple[Any, str | None]] | None:
    """Member name -> (annotation, union tag) of a model whose unknown members may be
    blanked, or ``None`` when its input must reach pydantic untouched."""
    if model.model_config.get("extra") != "forbid":
        return None
    decorators = model.__pydantic_decorators__
    if any(d.info.mode in ("before", "wrap") for d in decorators.model_validators.values()):
        return None
    fields: dict[str, tuple[Any, str | None]] = {}
    for name, field in model.model_fields.items():
        if field.validation_alias is not None and not isinstance(field.validation_alias, str):
            return None
        tag = field.discriminator if isinstance(field.discriminator, str) else None
        for key in {name, field.alias, field.validation_alias}:
            if isinstance(key, str):
                fields[key] = (field.annotation, tag)
    return fields


@cache
def _readers(model: type[BaseModel]) -> tuple[frozenset[str], tuple[tuple[str, Any], ...]] | None:
    """The member names :func:`_fields` lists, and ``(name, reader)`` for each member whose
    value the walk must enter (not ``"opaque"``), resolved once: the walk then hashes no
    annotation and looks only at the members that can hold more models."""
    fields = _fields(model)
    if fields is None:
        return None
    deep: list[tuple[str, Any]] = []
    for key, known in fields.items():
        try:
            reader = _reader(*known)
        except TypeError:  # an annotation that cannot be a cache key
            continue
        if reader[0] != "opaque":
            deep.append((key, reader))
    return frozenset(fields), tuple(deep)


def blank_unknown_members(model: type[BaseModel], document: dict[str, Any]) -> bool:
    """Set to ``None``, in place, the value of every member of ``document`` (and of the
    objects nested in it that ``model`` certainly reads with a model) that the reading
    model does not name. Iterative, linear in the members it visits; its memory grows
    with the depth of the document (one iterator per open array or object), not with the
    length of its arrays. Returns True when it found (and blanked) such a member.
    """
    blanked = False
    items: dict[int, tuple[str, Any]] = {}  # id of a list's item annotation -> its reader
    frames: list[Iterator[tuple[tuple[str, Any], Any]]] = [iter([(("model", model), document)])]
    while frames:
        step = next(frames[-1], None)
        if step is None:
            frames.pop()
            continue
        (kind, detail), value = step
        if kind == "items" and isinstance(value, list):
            reader = items.get(id(detail))
            if reader is None:
                reader = items[id(detail)] = _item_reader(detail)
            if reader[0] != "opaque":
                frames.append(zip(repeat(reader), value))
            continue
        if kind == "tagged" and isinstance(value, dict):
            # The tag picks the model; it reads the same object, so no frame is needed.
            kind, detail = "model", _tagged_model(detail, value)
        if kind == "model" and isinstance(value, dict):
            known = None if detail is None else _readers(detail)
            if known is None:
                continue
            names, deep = known
            if not names.issuperset(value):
                blanked = _blank_unknown(value, names) or blanked
            children = [(reader, value[key]) for key, reader in deep if key in value]
            if children:
                frames.append(iter(children))
    return blanked


def _item_reader(annotation: Any) -> tuple[str, Any]:
    """:func:`_reader` of a list's item annotation; opaque when it cannot be a cache key."""
    try:
        return _reader(annotation, None)
    except TypeError:
        return _OPAQUE


def _tagged_model(
    detail: tuple[str, dict[object, type[BaseModel]]], value: dict[str, Any]
) -> type[BaseModel] | None:
    """The model the tag member of ``value`` picks, ``None`` when it picks none."""
    tag, by_value = detail
    chosen = value.get(tag)
    return by_value.get(chosen) if isinstance(chosen, str) else None


def _blank_unknown(value: dict[str, Any], names: frozenset[str]) -> bool:
    """Set to ``None`` every member of ``value`` not in ``names`` (the model refuses such a
    key whatever its value); True when there was one."""
    blanked = False
    for key in value:
        if key not in names:
            value[key] = None
            blanked = True
    return blanked
