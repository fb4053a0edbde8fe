"""What is known about a value, and where it came from (cpir-0.2.md section 2).

Wire shapes (adjacently tagged)::

    FieldState  {"processing": "UNRESOLVED"}
                {"processing": "RESOLVED", "knowledge": Knowledge}
    Knowledge   {"state": "KNOWN", "data": T}
                {"state": "MISSING"} | {"state": "UNKNOWN"}
                {"state": "UNCERTAIN", "data": {"value": T, "confidence": 0..1}}
                {"state": "AMBIGUOUS", "data": [T, ...]}
    EvidenceField {"value": FieldState, "provenance": Provenance,
                   "confidence": number or null, "evidence": [FactId]}

The reference ignores unknown keys inside the small tag wrappers; cerebri rejects them
(docs/decisions/0002-strict-wrappers.md).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Generic, Literal, TypeVar

from pydantic import Field

from cerebri.cpir._base import WireModel
from cerebri.cpir.arguments import invalid_argument
from cerebri.cpir.enums import Provenance
from cerebri.cpir.scalars import Confidence, Identifier

__all__ = [
    "Ambiguous",
    "EvidenceField",
    "Known",
    "Missing",
    "RequiredFieldError",
    "Resolved",
    "Uncertain",
    "Unknown",
    "Unresolved",
    "require",
]

T = TypeVar("T")


class Known(WireModel, Generic[T]):
    """An established value."""

    state: Literal["KNOWN"]
    data: T


class Missing(WireModel):
    """No value was supplied."""

    state: Literal["MISSING"]


class Unknown(WireModel):
    """The value cannot currently be determined."""

    state: Literal["UNKNOWN"]


class Estimate(WireModel, Generic[T]):
    """An estimated value with its confidence in ``[0, 1]``."""

    value: T
    confidence: Confidence


class Uncertain(WireModel, Generic[T]):
    """An estimate; ``data.confidence`` is required."""

    state: Literal["UNCERTAIN"]
    data: Estimate[T]


class Ambiguous(WireModel, Generic[T]):
    """Several candidate interpretations (the list may be empty)."""

    state: Literal["AMBIGUOUS"]
    data: tuple[T, ...]


class Resolved(WireModel, Generic[T]):
    """Processing finished; ``knowledge`` says what is known."""

    processing: Literal["RESOLVED"]
    knowledge: Annotated[
        Known[T] | Missing | Unknown | Uncertain[T] | Ambiguous[T],
        Field(discriminator="state"),
    ]


class Unresolved(WireModel):
    """Processing has not finished."""

    processing: Literal["UNRESOLVED"]


class EvidenceField(WireModel, Generic[T]):
    """A value with its state, provenance, informational confidence and evidence ids."""

    value: Annotated[Resolved[T] | Unresolved, Field(discriminator="processing")]
    provenance: Provenance
    confidence: Confidence | None = None
    evidence: tuple[Identifier, ...]


class RequiredFieldError(StrEnum):
    """Why a field could not be required; PascalCase on the wire."""

    MISSING = "Missing"
    UNKNOWN = "Unknown"
    UNCERTAIN = "Uncertain"
    AMBIGUOUS = "Ambiguous"
    UNRESOLVED = "Unresolved"


def require(
    field: EvidenceField[T], *, allow_uncertain: bool
) -> tuple[T, bool] | RequiredFieldError:
    """Require a value (cpir-0.2.md 2.2).

    Returns ``(value, uncertain)`` where ``uncertain`` is True only for an accepted
    ``UNCERTAIN`` estimate, or the ``RequiredFieldError`` that prevents requiring it.
    Raises :class:`~cerebri.errors.InvalidArgumentError` (``cpir.invalid_argument``) unless
    ``field`` is an :class:`EvidenceField` and ``allow_uncertain`` a ``bool``.
    """
    if not isinstance(field, EvidenceField) or not isinstance(allow_uncertain, bool):
        raise invalid_argument(
            f"require() needs an EvidenceField and a bool, got {type(field).__name__} and "
            f"{type(allow_uncertain).__name__}"
        )
    state = field.value
    if isinstance(state, Unresolved):
        return RequiredFieldError.UNRESOLVED
    knowledge = state.knowledge
    if isinstance(knowledge, Known):
        return knowledge.data, False
    if isinstance(knowledge, Uncertain):
        if allow_uncertain:
            return knowledge.data.value, True
        return RequiredFieldError.UNCERTAIN
    if isinstance(knowledge, Missing):
        return RequiredFieldError.MISSING
    if isinstance(knowledge, Unknown):
        return RequiredFieldError.UNKNOWN
    return RequiredFieldError.AMBIGUOUS
