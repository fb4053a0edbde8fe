"""Half-open interval algebra over integer nanoseconds (temporal.md section 1).

Every bound is an ``int`` count of nanoseconds since 1970-01-01T00:00:00Z (``Instant.ns``),
so the planner's hot path never builds objects per comparison. An interval ``[start, end)``
contains ``start`` and not ``end``, and is never empty. Two intervals that only touch
(``a.end == b.start``) do not overlap, but :func:`merge` joins them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from cerebri._guard import arguments, items_of
from cerebri.temporal.errors import invalid_argument

__all__ = ["Interval", "complement", "merge"]


@dataclass(frozen=True, slots=True, order=True)
class Interval:
    """The half-open range ``[start, end)`` in nanoseconds since the epoch.

    Raises ``ValueError`` unless ``start < end`` (empty and reversed ranges do not exist) and
    :class:`~cerebri.errors.InvalidArgumentError` (``temporal.invalid_argument``) when the two
    cannot be compared (``Interval(None, 1)``). An internal-speed type: the fields are typed
    ``int`` for mypy and not ``isinstance``-checked (the planner builds millions).
    Ordering (``order=True``) compares ``(start, end)`` lexicographically.
    """

    start: int
    end: int

    def __post_init__(self) -> None:
        try:
            ordered = self.start < self.end
        except TypeError:  # costs nothing on the hot path: zero-cost try in Python 3.11
            raise invalid_argument(
                f"Interval needs int nanoseconds, got {type(self.start).__name__} and "
                f"{type(self.end).__name__}"
            ) from None
        if not ordered:
            raise invalid_argument(
                f"interval needs start < end (nanoseconds), got [{self.start}, {self.end})"
            )

    @property
    def length(self) -> int:
        """Length ``end - start`` in nanoseconds; always positive."""
        return self.end - self.start

    def overlaps(self, other: Interval) -> bool:
        """True when the two ranges share at least one nanosecond; touching is not overlap."""
        return self.start < other.end and other.start < self.end

    def contains(self, other: Interval) -> bool:
        """True when ``other`` lies entirely inside this range (equal ranges contain each other)."""
        return self.start <= other.start and other.end <= self.end

    def contains_instant(self, ns: int) -> bool:
        """True when ``start <= ns < end``; the ``end`` nanosecond itself is excluded."""
        return self.start <= ns < self.end

    def intersection(self, other: Interval) -> Interval | None:
        """The common part ``[max(starts), min(ends))``, or ``None`` when there is none.

        Touching ranges have no common part and give ``None``.
        """
        start = max(self.start, other.start)
        end = min(self.end, other.end)
        return Interval(start, end) if start < end else None

    def subtract(self, other: Interval) -> tuple[Interval, ...]:
        """The parts of this range not covered by ``other``, in time order.

        Zero pieces when ``other`` contains this range, one when it clips an end or does not
        overlap at all (then the result is ``(self,)``), two when it sits strictly inside.
        """
        if not self.overlaps(other):
            return (self,)
        pieces: list[Interval] = []
        if self.start < other.start:
            pieces.append(Interval(self.start, other.start))
        if other.end < self.end:
            pieces.append(Interval(other.end, self.end))
        return tuple(pieces)


@arguments(invalid_argument, intervals=Iterable)
def merge(intervals: Iterable[Interval]) -> tuple[Interval, ...]:
    """Union of ``intervals`` as sorted, pairwise disjoint, non-touching ranges.

    Overlapping and touching inputs are joined; an empty input gives ``()``. The result covers
    exactly the nanoseconds covered by the input. Runs in O(n log n). Raises
    :class:`~cerebri.errors.InvalidArgumentError` (``temporal.invalid_argument``) unless
    ``intervals`` is an iterable of :class:`Interval`.
    """
    return _merge(items_of(intervals, Interval, invalid_argument, "merge() intervals"))


@arguments(invalid_argument, window=Interval, intervals=Iterable)
def complement(window: Interval, intervals: Iterable[Interval]) -> tuple[Interval, ...]:
    """The gaps of ``window`` that no interval in ``intervals`` covers, sorted.

    Parts of ``intervals`` outside ``window`` are ignored. Gives ``(window,)`` when nothing
    overlaps it and ``()`` when it is fully covered. Gaps are maximal, so consecutive gaps
    never touch. Raises :class:`~cerebri.errors.InvalidArgumentError`
    (``temporal.invalid_argument``) unless ``window`` is an :class:`Interval` and
    ``intervals`` an iterable of them.
    """
    where = "complement() intervals"
    return _complement(window, items_of(intervals, Interval, invalid_argument, where))


def _merge(intervals: Iterable[Interval]) -> tuple[Interval, ...]:
    """Unchecked :func:`merge` (internal callers pass typed values).

    Overlapping and touching inputs are joined; an empty input gives ``()``. The result covers
    exactly the nanoseconds covered by the input. Runs in O(n log n).
    """
    ordered = sorted(intervals, key=lambda item: item.start)
    if not ordered:
        return ()
    merged: list[Interval] = []
    start, end = ordered[0].start, ordered[0].end
    for item in ordered[1:]:
        if item.start <= end:
            end = max(end, item.end)
        else:
            merged.append(Interval(start, end))
            start, end = item.start, item.end
    merged.append(Interval(start, end))
    return tuple(merged)


def _complement(window: Interval, intervals: Iterable[Interval]) -> tuple[Interval, ...]:
    """Unchecked :func:`complement` (internal callers pass typed values).

    Parts of ``intervals`` outside ``window`` are ignored. Gives ``(window,)`` when nothing
    overlaps it and ``()`` when it is fully covered. Gaps are maximal, so consecutive gaps
    never touch.
    """
    gaps: list[Interval] = []
    cursor = window.start
    for busy in _merge(intervals):
        if busy.end <= cursor:
            continue
        if busy.start >= window.end:
            break
        if cursor < busy.start:
            gaps.append(Interval(cursor, busy.start))
        cursor = busy.end
        if cursor >= window.end:
            return tuple(gaps)
    if cursor < window.end:
        gaps.append(Interval(cursor, window.end))
    return tuple(gaps)
