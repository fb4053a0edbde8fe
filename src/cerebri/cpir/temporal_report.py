"""``temporal_report``: parse a ``TemporalRequest`` and run the ``/v1/temporal`` diagnostics.

The request is a CPIR wire model; this module maps it onto the temporal layer's values
(busy inputs, :class:`~cerebri.temporal.rule.Recurrence` rules, the coverage policy) and
calls :func:`cerebri.temporal.report.report` (temporal.md section 2.3).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from cerebri.cpir.parse import parse_model
from cerebri.cpir.temporal_request import TemporalRequest
from cerebri.temporal.freebusy import BusyInput
from cerebri.temporal.report import TemporalResult, report

__all__ = ["temporal_report"]


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
    parsed = (
        request if isinstance(request, TemporalRequest) else parse_model(TemporalRequest, request)
    )
    busy = [
        BusyInput(
            entry.range.start,
            entry.range.end,
            before_seconds=entry.buffers.before_seconds,
            after_seconds=entry.buffers.after_seconds,
            travel_seconds=entry.buffers.travel_seconds,
        )
        for entry in parsed.busy
    ]
    return report(
        parsed.horizon.start,
        parsed.horizon.end,
        busy,
        [rule.to_recurrence() for rule in parsed.recurrences],
        parsed.coverage,
        max_occurrences=parsed.limits.max_occurrences,
        max_dates=parsed.limits.max_dates,
    )
