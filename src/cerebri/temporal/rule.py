"""A recurrence rule as the temporal core reads it (temporal.md section 3.1).

:class:`Recurrence` is a plain frozen value: the CPIR wire model
(``cerebri.cpir.RecurrenceDefinition``) maps itself onto it with ``to_recurrence()``, and
:func:`cerebri.temporal.expand` / :func:`~cerebri.temporal.sequence_of` accept either.
Validation (``until`` not before ``start_date``, no leap-second local time, a non-empty
weekday list without repeats) happens when the wire model is parsed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol, runtime_checkable

from cerebri.temporal.calendar import LocalDate, LocalTime
from cerebri.temporal.errors import invalid_argument
from cerebri.temporal.policies import FoldPolicy, GapPolicy

__all__ = ["Recurrence", "RecurrenceSource", "as_recurrence"]


@dataclass(frozen=True, slots=True)
class Recurrence:
    """Every ``every``-th day (``DAILY``) or the listed weekdays of every ``every``-th week
    (``WEEKLY``, weeks start on Monday) from ``start_date``, at ``local_time`` in the IANA
    zone ``timezone``, each occurrence lasting ``duration`` seconds.

    ``weekdays`` holds day numbers, 0 for Monday ... 6 for Sunday, ascending (empty for
    ``DAILY``); ``until`` is an inclusive local date; ``count`` counts nominal dates,
    including skipped DST-gap dates.
    """

    start_date: LocalDate
    local_time: LocalTime
    timezone: str
    duration: int
    frequency: Literal["DAILY", "WEEKLY"]
    every: int
    weekdays: tuple[int, ...]
    until: LocalDate | None
    count: int | None
    gap_policy: GapPolicy
    fold_policy: FoldPolicy


@runtime_checkable
class RecurrenceSource(Protocol):
    """Anything that maps itself onto a :class:`Recurrence` (the CPIR wire model does)."""

    def to_recurrence(self) -> Recurrence:
        """This rule as the temporal core reads it."""
        ...


def as_recurrence(rule: object, function: str) -> Recurrence:
    """``rule`` as a :class:`Recurrence`.

    Raises :class:`~cerebri.errors.InvalidArgumentError` (``temporal.invalid_argument``)
    naming ``function`` when ``rule`` is neither a ``Recurrence`` nor a
    :class:`RecurrenceSource` that yields one."""
    if isinstance(rule, Recurrence):
        return rule
    if isinstance(rule, RecurrenceSource):
        mapped = rule.to_recurrence()
        if isinstance(mapped, Recurrence):
            return mapped
    raise invalid_argument(
        f"{function}() needs rule as RecurrenceDefinition, got {type(rule).__name__}"
    )
