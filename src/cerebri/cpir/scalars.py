"""Scalar wire types of CPIR (cpir-0.2.md section 1.6).

Integers are validated from JSON in strict mode: ``1.0``, ``"1"`` and ``true`` are not
integers. Durations are whole seconds.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, StringConstraints, model_validator
from typing_extensions import TypeAliasType

from cerebri.cpir._base import WireModel
from cerebri.temporal.instant import Instant

__all__ = [
    "MAX_DURATION_SECONDS",
    "U16",
    "U32",
    "Confidence",
    "DurationSeconds",
    "Identifier",
    "Revision",
    "SchemaVersion",
    "TimeRange",
]

Identifier = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9._-]{1,128}$")]
"""An id: 1 to 128 ASCII letters, digits, ``.``, ``_`` or ``-``; compared as byte strings."""

U16 = Annotated[int, Field(ge=0, le=0xFFFF)]
U32 = Annotated[int, Field(ge=0, le=0xFFFF_FFFF)]

Revision = Annotated[int, Field(ge=0, le=0xFFFF_FFFF_FFFF_FFFF)]
"""An unsigned 64-bit revision number, written as a bare JSON integer."""

MAX_DURATION_SECONDS = 9_223_372_036_854_775
"""Largest duration whose milliseconds still fit a signed 64-bit integer (the reference's)."""

DurationSeconds = TypeAliasType(
    "DurationSeconds", Annotated[int, Field(gt=0, le=MAX_DURATION_SECONDS)]
)
"""A positive whole number of seconds, at most ``MAX_DURATION_SECONDS``."""

Confidence = Annotated[float, Field(ge=0.0, le=1.0, allow_inf_nan=False)]
"""A finite number in ``[0, 1]``."""


class SchemaVersion(WireModel):
    """``{"major": u16, "minor": u16}``; any pair parses, only 0.1 and 0.2 validate."""

    major: U16
    minor: U16


class TimeRange(WireModel):
    """A half-open UTC range ``[start, end)``; ``start < end`` is enforced when parsing.

    Raises (as a parse error): ``start >= end``.
    """

    start: Instant
    end: Instant

    @model_validator(mode="after")
    def _ordered(self) -> TimeRange:
        if not self.start < self.end:
            raise ValueError("start must be strictly before end (half-open range)")
        return self

    def overlaps(self, other: TimeRange) -> bool:
        """True iff the ranges share an instant; touching ranges do not overlap."""
        return self.start < other.end and other.start < self.end

    def contains(self, inner: TimeRange) -> bool:
        """True iff ``inner`` lies within this range (bounds may coincide)."""
        return self.start <= inner.start and inner.end <= self.end

    @property
    def length_ns(self) -> int:
        """Length in nanoseconds."""
        return self.end.ns - self.start.ns
