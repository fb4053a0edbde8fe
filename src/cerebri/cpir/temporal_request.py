"""The ``/v1/temporal`` diagnostics request (temporal.md section 2.1).

Every key is required (buffers of zero must be written too), except a recurrence's
``until`` and ``count``, which may be omitted (same as ``null``). Unknown keys, an empty or
reversed range, a non-positive duration and every invalid recurrence definition are parse
failures (:class:`~cerebri.errors.ParseError` via :func:`~cerebri.cpir.parse.parse_model`).
Limits above the route's caps still parse; they are refused later as ``InputLimit``.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from cerebri.cpir._base import WireModel
from cerebri.cpir.enums import Coverage
from cerebri.cpir.scalars import U32, TimeRange
from cerebri.cpir.temporal_context import RecurrenceDefinition

__all__ = ["Buffers", "BusyEntry", "DiagnosticLimits", "TemporalRequest"]

U64 = Annotated[int, Field(ge=0, le=0xFFFF_FFFF_FFFF_FFFF)]


class Buffers(WireModel):
    """Whole seconds blocked around a busy range; travel time lies before the event."""

    before_seconds: U32
    after_seconds: U32
    travel_seconds: U32


class BusyEntry(WireModel):
    """A known busy UTC range and the buffers that extend it."""

    range: TimeRange
    buffers: Buffers


class DiagnosticLimits(WireModel):
    """Shared budgets for all rules: occurrences produced (u64) and dates examined (u32)."""

    max_occurrences: U64
    max_dates: U32


class TemporalRequest(WireModel):
    """A ``/v1/temporal`` request: busy ranges plus recurrences over a UTC horizon."""

    horizon: TimeRange
    busy: tuple[BusyEntry, ...]
    coverage: Coverage
    recurrences: tuple[RecurrenceDefinition, ...]
    limits: DiagnosticLimits
