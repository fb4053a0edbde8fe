"""The ``/v1/temporal`` diagnostics: expansions plus free/busy (temporal.md section 2.3).

:func:`report` runs them on temporal values and always yields a :class:`TemporalResult`:
either ``Complete`` with the availability report and one expansion report per rule, or
``Rejected`` with a single :class:`~cerebri.temporal.errors.TemporalError` and nothing partial.
Parsing a ``TemporalRequest`` belongs above this layer: :func:`cerebri.temporal_report`
(:mod:`cerebri.cpir.temporal_report`) parses and maps the request, then calls :func:`report`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal

from cerebri._json import JSONValue
from cerebri.temporal.errors import TemporalError, TemporalRejected
from cerebri.temporal.freebusy import MAX_BUSY_INPUTS, BusyInput, FreeBusyReport, free_busy
from cerebri.temporal.instant import Instant
from cerebri.temporal.policies import Coverage
from cerebri.temporal.recurrence import MAX_DATES, MAX_OCCURRENCES, Expansion, expand
from cerebri.temporal.rule import Recurrence

__all__ = ["MAX_RECURRENCES", "TemporalResult", "report"]

MAX_RECURRENCES: Final = 32
"""Most recurrence rules one ``/v1/temporal`` request may carry."""


@dataclass(frozen=True, slots=True)
class TemporalResult:
    """Outcome of :func:`temporal_report`.

    ``Complete``: ``availability`` is set, ``expansions`` has one report per rule (input
    order) and ``error`` is None. ``Rejected``: only ``error`` is set. Any other combination
    raises ``ValueError`` on construction.
    """

    status: Literal["Complete", "Rejected"]
    availability: FreeBusyReport | None
    expansions: tuple[Expansion, ...]
    error: TemporalError | None

    def __post_init__(self) -> None:
        complete = self.availability is not None and self.error is None
        rejected = self.availability is None and self.error is not None and not self.expansions
        if not (complete if self.status == "Complete" else rejected):
            raise ValueError(f"inconsistent {self.status} TemporalResult")

    @classmethod
    def rejected(cls, error: TemporalError) -> TemporalResult:
        """A ``Rejected`` result carrying ``error`` and no partial data."""
        return cls(status="Rejected", availability=None, expansions=(), error=error)

    def to_wire(self) -> dict[str, JSONValue]:
        """``{"status": "Complete", "data": {...}}`` or ``{"status": "Rejected", "data": e}``."""
        if self.error is not None or self.availability is None:
            return {"status": "Rejected", "data": str(self.error)}
        return {
            "status": "Complete",
            "data": {
                "availability": self.availability.to_wire(),
                "expansions": [item.to_wire() for item in self.expansions],
            },
        }


def _check_limits(
    busy: Sequence[BusyInput],
    recurrences: Sequence[Recurrence],
    *,
    max_occurrences: int,
    max_dates: int,
) -> None:
    """``InputLimit`` when a budget is above its cap or there are too many inputs."""
    if max_occurrences > MAX_OCCURRENCES or max_dates > MAX_DATES:
        raise TemporalRejected(TemporalError.INPUT_LIMIT)
    if len(recurrences) > MAX_RECURRENCES or len(busy) > MAX_BUSY_INPUTS:
        raise TemporalRejected(TemporalError.INPUT_LIMIT)


def _expand_all(
    recurrences: Sequence[Recurrence],
    horizon_start: Instant,
    horizon_end: Instant,
    *,
    max_occurrences: int,
    max_dates: int,
) -> tuple[list[Expansion], list[BusyInput]]:
    """Each rule's expansion, in order, sharing the budgets; and the visible range of every
    occurrence as a busy input with zero buffers."""
    occurrences_left, dates_left = max_occurrences, max_dates
    expansions: list[Expansion] = []
    inputs: list[BusyInput] = []
    for rule in recurrences:
        expansion = expand(
            rule,
            horizon_start,
            horizon_end,
            max_occurrences=occurrences_left,
            max_dates=dates_left,
        )
        occurrences_left -= len(expansion.occurrences)
        dates_left -= expansion.examined_dates
        inputs.extend(
            BusyInput(item.visible_start, item.visible_end) for item in expansion.occurrences
        )
        expansions.append(expansion)
    return expansions, inputs


def report(
    horizon_start: Instant,
    horizon_end: Instant,
    busy: Sequence[BusyInput],
    recurrences: Sequence[Recurrence],
    coverage: Coverage,
    *,
    max_occurrences: int,
    max_dates: int,
) -> TemporalResult:
    """The ``/v1/temporal`` diagnostics over ``[horizon_start, horizon_end)`` (UTC instants,
    temporal.md 2.3).

    Budgets (``max_occurrences``, ``max_dates``) are shared by ``recurrences`` in order;
    each occurrence's visible range becomes an extra busy input with zero buffers, after
    ``busy``. Temporal failures (``InputLimit``: more than :data:`MAX_RECURRENCES` rules,
    10 000 busy inputs or a budget above the caps; ``Overflow``, DST ``Reject`` policies,
    exhausted budgets) give a ``Rejected`` result, never an exception.
    """
    try:  # steps 1-4 of temporal.md 2.3
        _check_limits(busy, recurrences, max_occurrences=max_occurrences, max_dates=max_dates)
        expansions, occurrences = _expand_all(
            recurrences,
            horizon_start,
            horizon_end,
            max_occurrences=max_occurrences,
            max_dates=max_dates,
        )
        availability = free_busy(
            horizon_start,
            horizon_end,
            [*busy, *occurrences],
            coverage,
            max_inputs=MAX_BUSY_INPUTS,
        )
    except TemporalRejected as exc:
        return TemporalResult.rejected(exc.error)
    return TemporalResult(
        status="Complete", availability=availability, expansions=tuple(expansions), error=None
    )
