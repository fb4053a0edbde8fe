"""Free/busy over a horizon from buffered busy ranges (temporal.md 2.3 step 4).

All instants are UTC (:class:`~cerebri.temporal.instant.Instant`, nanoseconds); buffers are
whole seconds. Ranges are half-open ``[start, end)``. Busy ranges that overlap *or touch* are
merged; what the busy ranges leave of the horizon is ``free`` when the caller asserts
``Complete`` coverage and ``unknown`` otherwise (an empty busy list is no evidence of free
time by itself).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, TypeAlias

from cerebri._guard import arguments, items_of
from cerebri._json import JSONValue
from cerebri.temporal.errors import TemporalError, TemporalRejected, invalid_argument
from cerebri.temporal.instant import Instant
from cerebri.temporal.interval import Interval, _complement, _merge
from cerebri.temporal.policies import Coverage

__all__ = ["MAX_BUSY_INPUTS", "BusyInput", "FreeBusyReport", "Span", "TraceEntry", "free_busy"]

MAX_BUSY_INPUTS: Final = 10_000
"""Default cap on busy inputs (request entries plus occurrences) for ``/v1/temporal``."""

Span: TypeAlias = tuple[Instant, Instant]
"""A half-open UTC range ``(start, end)`` with ``start < end``."""


def _span_wire(span: Span) -> dict[str, JSONValue]:
    return {"start": span[0].format(), "end": span[1].format()}


@dataclass(frozen=True, slots=True)
class BusyInput:
    """A busy UTC range ``[start, end)`` plus buffers in whole seconds.

    The blocked range is ``[start - before - travel, end + after)``: travel time lies before
    the event.
    """

    start: Instant
    end: Instant
    before_seconds: int = 0
    after_seconds: int = 0
    travel_seconds: int = 0


@dataclass(frozen=True, slots=True)
class TraceEntry:
    """How input ``input_index`` became busy time: original, buffered, clipped (or None)."""

    input_index: int
    original: Span
    buffered: Span
    clipped: Span | None

    def to_wire(self) -> dict[str, JSONValue]:
        """``{"input_index", "original", "buffered", "clipped"}``; ``clipped`` may be null."""
        return {
            "input_index": self.input_index,
            "original": _span_wire(self.original),
            "buffered": _span_wire(self.buffered),
            "clipped": None if self.clipped is None else _span_wire(self.clipped),
        }


@dataclass(frozen=True, slots=True)
class FreeBusyReport:
    """Busy, free and unknown parts of ``[horizon_start, horizon_end)`` (UTC instants).

    ``busy``, ``free`` and ``unknown`` are sorted, pairwise disjoint, never touching, and
    together cover the horizon exactly; one of ``free``/``unknown`` is always empty.
    """

    horizon_start: Instant
    horizon_end: Instant
    coverage: Coverage
    busy: tuple[Span, ...]
    free: tuple[Span, ...]
    unknown: tuple[Span, ...]
    trace: tuple[TraceEntry, ...]

    def to_wire(self) -> dict[str, JSONValue]:
        """The FreeBusyReport of temporal.md 2.2."""
        return {
            "horizon": _span_wire((self.horizon_start, self.horizon_end)),
            "coverage": self.coverage.value,
            "busy": [_span_wire(span) for span in self.busy],
            "free": [_span_wire(span) for span in self.free],
            "unknown": [_span_wire(span) for span in self.unknown],
            "trace": [entry.to_wire() for entry in self.trace],
        }


def _buffered(item: BusyInput) -> Span:
    """``[start - before - travel, end + after)``; raises ``Overflow`` out of range."""
    if min(item.before_seconds, item.after_seconds, item.travel_seconds) < 0:
        raise ValueError("buffers are non-negative whole seconds")
    start = item.start.plus_seconds(-(item.before_seconds + item.travel_seconds))
    end = item.end.plus_seconds(item.after_seconds)
    if start is None or end is None:
        raise TemporalRejected(TemporalError.OVERFLOW)
    return start, end


def _spans(intervals: Sequence[Interval]) -> tuple[Span, ...]:
    return tuple((Instant(item.start), Instant(item.end)) for item in intervals)


@arguments(
    invalid_argument,
    horizon_start=Instant,
    horizon_end=Instant,
    inputs=Sequence,
    coverage=Coverage,
    max_inputs=int,
)
def free_busy(
    horizon_start: Instant,
    horizon_end: Instant,
    inputs: Sequence[BusyInput],
    coverage: Coverage,
    *,
    max_inputs: int = MAX_BUSY_INPUTS,
) -> FreeBusyReport:
    """Free/busy report of ``inputs`` over ``[horizon_start, horizon_end)`` (UTC instants).

    Each input is buffered, then clipped to the horizon (empty intersections are dropped);
    the clipped ranges are sorted and merged when overlapping or touching. ``trace`` keeps
    one entry per input, in input order.

    Raises:
        TemporalRejected: ``InputLimit`` (more than ``max_inputs`` inputs), ``InvalidRange``
            (an empty or reversed horizon or input), ``Overflow`` (a buffered bound outside
            the instant range).
        ValueError: a negative buffer.
        InvalidArgumentError: ``temporal.invalid_argument``, a wrong-typed argument or an
            input that is not a :class:`BusyInput`.
    """
    if len(inputs) > max_inputs:
        raise TemporalRejected(TemporalError.INPUT_LIMIT)
    inputs = items_of(inputs, BusyInput, invalid_argument, "free_busy() inputs")
    if not horizon_start < horizon_end:
        raise TemporalRejected(TemporalError.INVALID_RANGE)
    horizon = Interval(horizon_start.ns, horizon_end.ns)
    trace: list[TraceEntry] = []
    clipped: list[Interval] = []
    for index, item in enumerate(inputs):
        if not item.start < item.end:
            raise TemporalRejected(TemporalError.INVALID_RANGE)
        buffered = _buffered(item)
        part = Interval(buffered[0].ns, buffered[1].ns).intersection(horizon)
        if part is not None:
            clipped.append(part)
        trace.append(
            TraceEntry(
                input_index=index,
                original=(item.start, item.end),
                buffered=buffered,
                clipped=None if part is None else _spans([part])[0],
            )
        )
    busy = _merge(clipped)
    gaps = _spans(_complement(horizon, busy))
    coverage = Coverage(coverage)
    complete = coverage is Coverage.COMPLETE
    return FreeBusyReport(
        horizon_start=horizon_start,
        horizon_end=horizon_end,
        coverage=coverage,
        busy=_spans(busy),
        free=gaps if complete else (),
        unknown=() if complete else gaps,
        trace=tuple(trace),
    )
