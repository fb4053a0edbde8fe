"""The ``/v1/temporal`` diagnostics: expansions plus free/busy (temporal.md section 2.3).

A request that parses always yields a :class:`TemporalResult`: either ``Complete`` with the
availability report and one expansion report per rule, or ``Rejected`` with a single
:class:`~cerebri.temporal.errors.TemporalError` and nothing partial.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, Literal

from cerebri._json import JSONValue
from cerebri.temporal.errors import TemporalError, TemporalRejected
from cerebri.temporal.freebusy import MAX_BUSY_INPUTS, BusyInput, FreeBusyReport, free_busy
from cerebri.temporal.recurrence import MAX_DATES, MAX_OCCURRENCES, Expansion, expand

if TYPE_CHECKING:
    from cerebri.cpir.temporal_request import TemporalRequest

__all__ = ["MAX_RECURRENCES", "TemporalResult", "temporal_report"]

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


def _load(request: TemporalRequest | str | bytes | Mapping[str, Any]) -> TemporalRequest:
    # Imported here: cerebri.cpir imports cerebri.temporal while it initialises.
    from cerebri.cpir.parse import parse_model  # noqa: PLC0415
    from cerebri.cpir.temporal_request import TemporalRequest  # noqa: PLC0415

    if isinstance(request, TemporalRequest):
        return request
    return parse_model(TemporalRequest, request)


def _run(request: TemporalRequest) -> TemporalResult:
    """Steps 1-4 of temporal.md 2.3; raises ``TemporalRejected``."""
    limits = request.limits
    if limits.max_occurrences > MAX_OCCURRENCES or limits.max_dates > MAX_DATES:
        raise TemporalRejected(TemporalError.INPUT_LIMIT)
    if len(request.recurrences) > MAX_RECURRENCES or len(request.busy) > MAX_BUSY_INPUTS:
        raise TemporalRejected(TemporalError.INPUT_LIMIT)
    start, end = request.horizon.start, request.horizon.end
    inputs = [
        BusyInput(
            entry.range.start,
            entry.range.end,
            before_seconds=entry.buffers.before_seconds,
            after_seconds=entry.buffers.after_seconds,
            travel_seconds=entry.buffers.travel_seconds,
        )
        for entry in request.busy
    ]
    occurrences_left, dates_left = limits.max_occurrences, limits.max_dates
    expansions: list[Expansion] = []
    for rule in request.recurrences:
        expansion = expand(rule, start, end, max_occurrences=occurrences_left, max_dates=dates_left)
        occurrences_left -= len(expansion.occurrences)
        dates_left -= expansion.examined_dates
        inputs.extend(
            BusyInput(item.visible_start, item.visible_end) for item in expansion.occurrences
        )
        expansions.append(expansion)
    availability = free_busy(start, end, inputs, request.coverage, max_inputs=MAX_BUSY_INPUTS)
    return TemporalResult(
        status="Complete", availability=availability, expansions=tuple(expansions), error=None
    )


def temporal_report(
    request: TemporalRequest | str | bytes | Mapping[str, Any],
) -> TemporalResult:
    """Run the ``/v1/temporal`` diagnostics on ``request`` (temporal.md 2.3).

    ``request`` is a parsed :class:`~cerebri.cpir.temporal_request.TemporalRequest`, JSON
    text, UTF-8 bytes or decoded JSON values. Budgets (occurrences, dates) are shared by the
    rules in input order; each occurrence's visible range becomes an extra busy input with
    zero buffers, after the request's own ``busy`` entries. Temporal failures
    (``InputLimit``, ``Overflow``, DST ``Reject`` policies, exhausted budgets) give a
    ``Rejected`` result, never an exception.

    Raises:
        ParseError: the input is not a well-formed ``TemporalRequest`` (including every
            invalid recurrence definition).
    """
    parsed = _load(request)
    try:
        return _run(parsed)
    except TemporalRejected as exc:
        return TemporalResult.rejected(exc.error)
