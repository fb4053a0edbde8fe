"""Read a plan draft proposed by a language model (plans.md section 3, "Model proposals").

A model's answer is untrusted text. It is parsed into the same :class:`PlanDraft` as any
other draft and validated like one, but first every member that could carry authority or
claim progress is *dropped* and listed, as a JSON pointer (RFC 6901), in ``ignored``:

* every member that is not in the draft schema, at any level of the schema's own objects
  (plan, step, spec, check, expectation, budget, ...): ``status``, ``result``, ``attempts``,
  ``approval_id``, ``grant``/``grants``, ``execution_id``, ``completed_at``, an unknown key
  inside a check. The allowed names are read from the pydantic models' ``model_fields``;
* the fields a *stored* plan or step adds (plans.md section 5: ``id``, ``status``,
  ``revision``, ``validation``, ``intention_id``, ``created_at``, ...): they are not in the
  draft schema, so they are dropped and listed like any other unknown member. A model cannot
  name, number or advance a stored plan;
* ``ignored`` itself when the model sent one (only the parser fills it);
* ``require_approval: false`` at plan or step level: a model may ask for approval, never
  waive it (``true`` is kept; a non-boolean is left for the schema to refuse);
* ``origin`` when it is anything but ``"model"``: the origin is forced to ``model``.

Members of free-form JSON objects (``params``, a check's ``params`` and ``value``, a request's
``param_constraints``) are *not* walked: they belong to the capability's JSON Schema, which
:func:`~cerebri.plans.validate_draft` checks. Likewise an unregistered capability, a cycle,
params that break the schema or a check through a writing capability are not stripped: they
are reported by validation and the draft never runs.

``ignored`` is ordered by location: member names alphabetically, array indices numerically
(``/steps/2/...`` before ``/steps/10/...``).
"""

from __future__ import annotations

import dataclasses
import functools
import types
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, Union, get_args, get_origin

from pydantic import BaseModel

from cerebri.plans.capabilities import CapabilityRegistry
from cerebri.plans.draft import PlanDraft
from cerebri.plans.parse import DraftSource, decode, parse_draft, pointer
from cerebri.plans.report import DraftError, DraftReport
from cerebri.plans.validate import validate_draft
from cerebri.plans.vocabulary import Origin

__all__ = ["ModelDraft", "parse_model_draft"]

_Location = tuple[int | str, ...]
_Nested = tuple[type[BaseModel], bool]
"""A member holding a schema object: its model, and whether it is a list of them."""

_APPROVAL: Final = "require_approval"
_IGNORED: Final = "ignored"
_ORIGIN: Final = "origin"


@dataclass(frozen=True, slots=True)
class ModelDraft:
    """A model's proposal after parsing.

    ``draft`` is ``None`` when the cleaned document is not a draft at all (its shape errors,
    reported as ``draft.schema`` problems); ``report`` holds the problems and ``ignored``
    (equal to ``draft.ignored`` when there is a draft); ``runnable`` is True only when the
    report is valid. An invalid model draft is kept with its report and never runs.
    """

    draft: PlanDraft | None
    report: DraftReport
    runnable: bool


def parse_model_draft(source: DraftSource, registry: CapabilityRegistry) -> ModelDraft:
    """Parse, clean and validate a draft proposed by a language model.

    Drops and lists in ``ignored`` what the module docstring describes, forces ``origin`` to
    ``model``, parses the rest with :class:`PlanDraft` and runs
    :func:`~cerebri.plans.validate_draft` against ``registry``. A JSON object of the wrong
    shape is not raised: it yields ``ModelDraft(None, DraftReport(problems, ignored),
    runnable=False)`` where ``problems`` are *every* ``draft.schema`` problem of the cleaned
    document (:attr:`DraftError.problems`: step key or ``None``, pointer, message), so that a
    model asked to repair its draft sees them all at once. ``ignored`` is set on the parsed
    draft after :func:`~cerebri.plans.parse_draft` (which refuses it from anyone else).

    Raises:
        ParseError: ``json.*`` codes for text that is not strict JSON.
        DraftError: ``draft.schema`` when the document is not a JSON object.
    """
    cleaned, ignored = _clean(decode(source))
    try:
        parsed = parse_draft(cleaned)
    except DraftError as exc:
        return ModelDraft(None, DraftReport(exc.problems, ignored), runnable=False)
    draft = parsed.model_copy(update={_IGNORED: ignored})
    report = dataclasses.replace(validate_draft(draft, registry), ignored=ignored)
    return ModelDraft(draft, report, runnable=report.valid)


def _clean(document: dict[str, Any]) -> tuple[dict[str, Any], tuple[str, ...]]:
    """The document without the dropped members, with ``origin`` forced, and the sorted
    pointers of what was dropped or replaced."""
    dropped: list[_Location] = []
    cleaned = _clean_object(document, PlanDraft, (), dropped)
    if _ORIGIN in document and document[_ORIGIN] != Origin.MODEL.value:
        dropped.append((_ORIGIN,))
    cleaned[_ORIGIN] = Origin.MODEL.value
    return cleaned, tuple(pointer(at) for at in sorted(dropped, key=_order))


def _clean_object(
    value: Mapping[Any, Any], model: type[BaseModel], at: _Location, dropped: list[_Location]
) -> dict[str, Any]:
    """A copy of the schema object ``value`` (of ``model``) without the dropped members."""
    schema = _schema(model)
    kept: dict[str, Any] = {}
    for name, member in value.items():
        where = (*at, str(name))
        if name not in schema or _dropped(model, name, member):
            dropped.append(where)
            continue
        nested = schema[name]
        kept[name] = member if nested is None else _clean_member(member, nested, where, dropped)
    return kept


def _dropped(model: type[BaseModel], name: str, member: object) -> bool:
    """Whether a member the schema knows is still refused from a model."""
    if model is PlanDraft and name == _IGNORED:
        return True
    return name == _APPROVAL and member is False


def _clean_member(member: object, nested: _Nested, at: _Location, dropped: list[_Location]) -> Any:
    """Walk a member that holds a schema object (or a list of them); any other shape is left
    as it is for the schema to refuse."""
    model, many = nested
    if many and isinstance(member, list):
        return [_clean_item(item, model, (*at, i), dropped) for i, item in enumerate(member)]
    if not many and isinstance(member, Mapping):
        return _clean_object(member, model, at, dropped)
    return member


def _clean_item(
    item: object, model: type[BaseModel], at: _Location, dropped: list[_Location]
) -> Any:
    return _clean_object(item, model, at, dropped) if isinstance(item, Mapping) else item


@functools.cache
def _schema(model: type[BaseModel]) -> Mapping[str, _Nested | None]:
    """The member names of ``model`` (from ``model_fields``), each with the schema object it
    holds, or ``None`` for a plain or free-form value that is not walked."""
    return types.MappingProxyType(
        {name: _nested(field.annotation) for name, field in model.model_fields.items()}
    )


def _nested(annotation: Any) -> _Nested | None:
    """The model an annotation holds (``Check``, ``Check | None``, ``tuple[StepSpec, ...]``),
    or ``None`` (``str``, ``JSONObject``, ``Any``...)."""
    origin = get_origin(annotation)
    args = get_args(annotation)
    if origin in (Union, types.UnionType):
        present = [a for a in args if a is not type(None)]
        return _nested(present[0]) if len(present) == 1 else None
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        inner = _nested(args[0])
        return (inner[0], True) if inner is not None and not inner[1] else None
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return (annotation, False)
    return None


def _order(at: _Location) -> tuple[tuple[int, int, str], ...]:
    """Sort key of a location: array indices numerically, member names alphabetically."""
    return tuple((0, p, "") if isinstance(p, int) else (1, 0, p) for p in at)
