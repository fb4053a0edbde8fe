"""Free/busy (temporal.md 2.3 step 4 and the goldens of section 5), plus properties.

Instants are built from small integer seconds since the epoch: ``s(7)`` is
1970-01-01T00:00:07Z. Expected ranges are written by hand as ``(start, end)`` seconds.
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cerebri.cpir.enums import Coverage
from cerebri.cpir.temporal_context import RecurrenceDefinition
from cerebri.temporal import (
    BusyInput,
    FreeBusyReport,
    Instant,
    TemporalError,
    TemporalRejected,
    expand,
    free_busy,
)
from tests.strategies import busy_inputs, recurrence_rules

SECOND = 10**9


def s(seconds: int) -> Instant:
    return Instant.from_seconds(seconds)


def busy(start: int, end: int, before: int = 0, after: int = 0, travel: int = 0) -> BusyInput:
    return BusyInput(s(start), s(end), before, after, travel)


def secs(spans: tuple[tuple[Instant, Instant], ...]) -> list[tuple[int, int]]:
    return [(a.ns // SECOND, b.ns // SECOND) for a, b in spans]


def report(
    start: int, end: int, inputs: list[BusyInput], coverage: Coverage = Coverage.COMPLETE
) -> FreeBusyReport:
    return free_busy(s(start), s(end), inputs, coverage)


# ----------------------------------------------------------------------------- goldens


def test_clip_sort_deduplicate_and_merge_touching() -> None:
    inputs = [busy(7, 12), busy(2, 4), busy(-2, 0), busy(4, 8), busy(2, 4)]
    result = report(0, 10, inputs)
    assert secs(result.busy) == [(2, 10)]
    assert secs(result.free) == [(0, 2)]
    assert result.unknown == ()
    assert [entry.input_index for entry in result.trace] == [0, 1, 2, 3, 4]
    assert result.trace[2].clipped is None  # [-2, 0) only touches the horizon
    assert result.trace[0].clipped == (s(7), s(10))
    wire: Any = result.to_wire()
    assert wire["busy"] == [{"start": "1970-01-01T00:00:02Z", "end": "1970-01-01T00:00:10Z"}]
    assert wire["trace"][2] == {
        "input_index": 2,
        "original": {"start": "1969-12-31T23:59:58Z", "end": "1970-01-01T00:00:00Z"},
        "buffered": {"start": "1969-12-31T23:59:58Z", "end": "1970-01-01T00:00:00Z"},
        "clipped": None,
    }


def test_empty_collections() -> None:
    complete = report(0, 10, [])
    assert (complete.busy, secs(complete.free), complete.unknown) == ((), [(0, 10)], ())
    incomplete = report(0, 10, [], Coverage.INCOMPLETE)
    assert (incomplete.busy, incomplete.free, secs(incomplete.unknown)) == ((), (), [(0, 10)])
    assert incomplete.to_wire()["coverage"] == "Incomplete"


def test_covering_interval_leaves_nothing() -> None:
    for coverage in Coverage:
        result = report(0, 10, [busy(-5, 15)], coverage)
        assert secs(result.busy) == [(0, 10)]
        assert result.free == () and result.unknown == ()


def test_buffers_apply_before_clipping() -> None:
    result = report(5, 30, [busy(10, 20, before=2, after=3, travel=4)])
    assert result.trace[0].buffered == (s(4), s(23))
    assert result.trace[0].clipped == (s(5), s(23))
    assert secs(result.busy) == [(5, 23)]
    assert secs(result.free) == [(23, 30)]


def test_buffer_overflow_at_the_instant_limits() -> None:
    tail = Instant.MAX.plus_seconds(-10)
    head = Instant.MIN.plus_seconds(10)
    assert tail is not None and head is not None
    for item in [
        BusyInput(head, s(0), before_seconds=6, travel_seconds=6),
        BusyInput(s(0), tail, after_seconds=11),
    ]:
        with pytest.raises(TemporalRejected) as caught:
            free_busy(Instant.MIN, Instant.MAX, [item], Coverage.COMPLETE)
        assert caught.value.error is TemporalError.OVERFLOW
    # Exactly reaching the limits is fine.
    exact = BusyInput(head, tail, before_seconds=5, after_seconds=10, travel_seconds=5)
    result = free_busy(Instant.MIN, Instant.MAX, [exact], Coverage.COMPLETE)
    assert result.busy == ((Instant.MIN, Instant.MAX),)


def test_input_limit_and_invalid_ranges() -> None:
    with pytest.raises(TemporalRejected) as caught:
        free_busy(s(0), s(10), [busy(1, 2)] * 3, Coverage.COMPLETE, max_inputs=2)
    assert caught.value.error is TemporalError.INPUT_LIMIT
    assert len(free_busy(s(0), s(10), [busy(1, 2)] * 2, Coverage.COMPLETE, max_inputs=2).trace)
    for horizon, item in [((5, 5), busy(1, 2)), ((0, 10), busy(3, 3))]:
        with pytest.raises(TemporalRejected) as caught:
            report(*horizon, [item])
        assert caught.value.error is TemporalError.INVALID_RANGE


# ----------------------------------------------------------------------------- properties

HORIZON = (0, 60)


def seconds_of(spans: tuple[tuple[Instant, Instant], ...]) -> set[int]:
    covered: set[int] = set()
    for start, end in secs(spans):
        covered |= set(range(start, end))
    return covered


@given(st.lists(busy_inputs(), max_size=12), st.sampled_from(list(Coverage)))
def test_parts_partition_the_horizon(inputs: list[BusyInput], coverage: Coverage) -> None:
    result = report(*HORIZON, inputs, coverage)
    parts = [result.busy, result.free, result.unknown]
    for spans in parts:
        pairs = secs(spans)
        assert pairs == sorted(pairs)
        assert all(a < b for a, b in pairs)
        assert all(prev[1] < nxt[0] for prev, nxt in itertools.pairwise(pairs))
    sets = [seconds_of(spans) for spans in parts]
    assert sets[0] | sets[1] | sets[2] == set(range(*HORIZON))
    assert not (sets[0] & sets[1] or sets[0] & sets[2] or sets[1] & sets[2])
    expected_busy: set[int] = set()
    for item in inputs:
        low = item.start.ns // SECOND - item.before_seconds - item.travel_seconds
        expected_busy |= set(range(low, item.end.ns // SECOND + item.after_seconds))
    assert sets[0] == expected_busy & set(range(*HORIZON))
    assert (result.unknown if coverage is Coverage.COMPLETE else result.free) == ()


@given(st.lists(busy_inputs(), max_size=12), st.randoms(use_true_random=False))
def test_result_ignores_input_order(inputs: list[BusyInput], rng: Any) -> None:
    shuffled = list(inputs)
    rng.shuffle(shuffled)
    first = report(*HORIZON, inputs)
    second = report(*HORIZON, shuffled)
    assert (first.busy, first.free, first.unknown) == (second.busy, second.free, second.unknown)
    assert sorted(e.buffered for e in first.trace) == sorted(e.buffered for e in second.trace)


@settings(max_examples=150)
@given(
    recurrence_rules(),
    st.integers(0, 30),
    st.integers(1, 20),
    st.integers(0, 6),
    st.integers(0, 40),
)
def test_expansion_respects_budgets(
    rule: RecurrenceDefinition, offset_days: int, length_days: int, occurrences: int, dates: int
) -> None:
    start = Instant.parse("2026-03-20T00:00:00Z").plus_seconds(offset_days * 86_400)
    assert start is not None
    end = start.plus_seconds(length_days * 86_400)
    assert end is not None
    try:
        result = expand(rule, start, end, max_occurrences=occurrences, max_dates=dates)
    except TemporalRejected as exc:
        assert exc.error in {
            TemporalError.OCCURRENCE_LIMIT_EXCEEDED,
            TemporalError.DATE_LIMIT_EXCEEDED,
        }
        generous = expand(rule, start, end, max_occurrences=10_000, max_dates=36_600)
        if exc.error is TemporalError.DATE_LIMIT_EXCEEDED:
            assert generous.examined_dates > dates
        else:
            assert len(generous.occurrences) > occurrences
        return
    assert len(result.occurrences) <= occurrences
    assert result.examined_dates <= dates
