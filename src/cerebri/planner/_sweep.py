"""Output-sensitive "which intervals overlap this window" queries for a grid sweep."""

from __future__ import annotations

import heapq
from collections.abc import Sequence

__all__ = ["OverlapIndex"]


class OverlapIndex:
    """Intervals ``[start, end)`` in nanoseconds, queried by windows that move forward.

    A query for window ``[a, b)`` returns the positions of every interval with
    ``start < b`` and ``end > a``. Successive windows whose bounds never decrease are
    answered by one sweep in ``O(log n)`` amortised time plus the size of the answer; a
    window that moves backwards restarts the sweep (correct, just slower).
    """

    __slots__ = ("_ends", "_heap", "_last", "_next", "_order", "_starts")

    def __init__(self, intervals: Sequence[tuple[int, int]]) -> None:
        starts = [interval[0] for interval in intervals]
        order = sorted(range(len(starts)), key=starts.__getitem__)  # stable: ties keep input order
        self._order = order
        self._starts = [starts[i] for i in order]
        self._ends = [intervals[i][1] for i in order]
        self._heap: list[tuple[int, int]] = []
        self._next = 0
        self._last = (-(2**127), -(2**127))

    @property
    def starts(self) -> list[int]:
        """Interval starts in ascending order (ties in input order)."""
        return self._starts

    @property
    def ends(self) -> list[int]:
        """Interval ends, aligned with :attr:`starts`."""
        return self._ends

    @property
    def order(self) -> list[int]:
        """Input positions, aligned with :attr:`starts`."""
        return self._order

    def fork(self) -> OverlapIndex:
        """A fresh sweep over the same intervals, sharing the sorted arrays."""
        twin = OverlapIndex.__new__(OverlapIndex)
        twin._order, twin._starts, twin._ends = self._order, self._starts, self._ends
        twin._heap, twin._next, twin._last = [], 0, (-(2**127), -(2**127))
        return twin

    def overlapping(self, a: int, b: int) -> list[int]:
        """Positions (in the input sequence) of the intervals overlapping ``[a, b)``."""
        if a < self._last[0] or b < self._last[1]:
            self._heap = []
            self._next = 0
        self._last = (a, b)
        heap, starts, ends = self._heap, self._starts, self._ends
        i, n = self._next, len(starts)
        while i < n and starts[i] < b:
            heapq.heappush(heap, (ends[i], i))
            i += 1
        self._next = i
        while heap and heap[0][0] <= a:
            heapq.heappop(heap)
        order = self._order
        return [order[k] for _, k in heap]
