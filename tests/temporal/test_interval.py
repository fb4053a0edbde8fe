"""Half-open interval algebra, with an integer-set oracle over small ranges."""

from __future__ import annotations

import dataclasses
import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cerebri.temporal import Interval, complement, merge
from tests.strategies import interval_lists, intervals

LIMIT = 40  # property tests use bounds in 0..LIMIT so every point can be enumerated


def points(interval: Interval) -> set[int]:
    return set(range(interval.start, interval.end))


def covered(intervals: tuple[Interval, ...] | list[Interval]) -> set[int]:
    result: set[int] = set()
    for item in intervals:
        result |= points(item)
    return result


# ----------------------------------------------------------------------------- examples


def test_construction_rules() -> None:
    assert Interval(1, 2).length == 1
    with pytest.raises(ValueError, match="start < end"):
        Interval(5, 5)
    with pytest.raises(ValueError, match="start < end"):
        Interval(6, 5)
    with pytest.raises(dataclasses.FrozenInstanceError):
        Interval(1, 2).start = 0  # type: ignore[misc]
    assert not hasattr(Interval(1, 2), "__dict__")
    assert sorted([Interval(3, 4), Interval(1, 9), Interval(1, 2)]) == [
        Interval(1, 2),
        Interval(1, 9),
        Interval(3, 4),
    ]


def test_touching_is_not_overlap() -> None:
    a, b = Interval(0, 10), Interval(10, 20)
    assert not a.overlaps(b)
    assert a.intersection(b) is None
    assert a.subtract(b) == (a,)
    assert merge([b, a]) == (Interval(0, 20),)


def test_one_nanosecond_overlap() -> None:
    a, b = Interval(0, 10), Interval(9, 20)
    assert a.overlaps(b)
    assert a.intersection(b) == Interval(9, 10)


def test_contains() -> None:
    outer = Interval(10, 20)
    assert outer.contains(Interval(10, 20))
    assert outer.contains(Interval(12, 13))
    assert not outer.contains(Interval(9, 12))
    assert not outer.contains(Interval(15, 21))
    assert outer.contains_instant(10)
    assert outer.contains_instant(19)
    assert not outer.contains_instant(20)
    assert not outer.contains_instant(9)


def test_subtract_shapes() -> None:
    base = Interval(10, 20)
    assert base.subtract(Interval(0, 30)) == ()
    assert base.subtract(Interval(10, 20)) == ()
    assert base.subtract(Interval(12, 15)) == (Interval(10, 12), Interval(15, 20))
    assert base.subtract(Interval(5, 15)) == (Interval(15, 20),)
    assert base.subtract(Interval(15, 25)) == (Interval(10, 15),)
    assert base.subtract(Interval(10, 15)) == (Interval(15, 20),)
    assert base.subtract(Interval(30, 40)) == (base,)


def test_merge_and_complement_examples() -> None:
    assert merge([]) == ()
    busy = [Interval(30, 40), Interval(0, 5), Interval(5, 8), Interval(35, 50), Interval(12, 14)]
    assert merge(busy) == (Interval(0, 8), Interval(12, 14), Interval(30, 50))
    window = Interval(2, 45)
    assert complement(window, busy) == (Interval(8, 12), Interval(14, 30))
    assert complement(window, []) == (window,)
    assert complement(window, [Interval(0, 100)]) == ()
    assert complement(window, [Interval(45, 50), Interval(0, 2)]) == (window,)


def test_real_nanosecond_scale() -> None:
    hour = 3600 * 10**9
    day_start = 1_790_812_800 * 10**9  # 2026-10-01T00:00:00Z
    window = Interval(day_start + 9 * hour, day_start + 17 * hour)
    busy = [Interval(day_start + 10 * hour, day_start + 11 * hour)]
    assert complement(window, busy) == (
        Interval(day_start + 9 * hour, day_start + 10 * hour),
        Interval(day_start + 11 * hour, day_start + 17 * hour),
    )


# ----------------------------------------------------------------------------- properties


@given(intervals(LIMIT), intervals(LIMIT))
def test_overlap_is_symmetric_and_matches_points(a: Interval, b: Interval) -> None:
    assert a.overlaps(b) == b.overlaps(a)
    assert a.overlaps(b) == bool(points(a) & points(b))


@given(intervals(LIMIT), intervals(LIMIT))
def test_intersection(a: Interval, b: Interval) -> None:
    both = a.intersection(b)
    assert both == b.intersection(a)
    if both is None:
        assert not points(a) & points(b)
    else:
        assert a.contains(both)
        assert b.contains(both)
        assert points(both) == points(a) & points(b)


@given(intervals(LIMIT), intervals(LIMIT))
def test_contains_matches_points(a: Interval, b: Interval) -> None:
    assert a.contains(b) == (points(b) <= points(a))


@given(intervals(LIMIT), st.integers(-5, LIMIT + 5))
def test_contains_instant_matches_points(a: Interval, ns: int) -> None:
    assert a.contains_instant(ns) == (ns in points(a))


@given(intervals(LIMIT), intervals(LIMIT))
def test_subtract(a: Interval, b: Interval) -> None:
    pieces = a.subtract(b)
    assert len(pieces) <= 2
    assert covered(pieces) == points(a) - points(b)
    assert list(pieces) == sorted(pieces)
    if len(pieces) == 2:
        assert pieces[0].end < pieces[1].start


@given(interval_lists(LIMIT))
def test_merge(items: list[Interval]) -> None:
    merged = merge(items)
    assert merge(merged) == merged
    assert merge(reversed(items)) == merged
    assert covered(merged) == covered(items)
    for left, right in itertools.pairwise(merged):
        assert left.end < right.start  # sorted, disjoint and not touching


@given(intervals(LIMIT), interval_lists(LIMIT))
def test_complement(window: Interval, items: list[Interval]) -> None:
    gaps = complement(window, items)
    clipped = [part for item in items if (part := item.intersection(window)) is not None]
    assert covered(gaps) == points(window) - covered(items)
    assert not covered(gaps) & covered(clipped)
    assert covered(gaps) | covered(merge(clipped)) == points(window)
    for gap in gaps:
        assert window.contains(gap)
    for left, right in itertools.pairwise(gaps):
        assert left.end < right.start
