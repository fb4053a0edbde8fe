"""Ranking of feasible starts: cost, ordering key, explanation (planner.md section 7).

The order is total: ``(preference distance, mutation count, shift, start, object id)``
ascending. Distances and shifts are whole seconds, truncated toward zero.
"""

from __future__ import annotations

from cerebri.cpir import (
    PlanningRequest,
    PreferenceSource,
    RankingFeatures,
    ScoreComponent,
    Tagged,
)

__all__ = ["Ranker", "whole_seconds"]

NS = 1_000_000_000


def whole_seconds(delta_ns: int) -> int:
    """``|delta|`` in whole seconds, truncated toward zero (±0.8 s → 0, −12.345 s → 12)."""
    return abs(delta_ns) // NS


Scored = tuple[int, int, int, tuple[ScoreComponent, ...], RankingFeatures]
"""The ranking values of one feasible start: ``(cost, mutation_count, shift, explanation,
features)`` (a plain tuple: a search scores every feasible position)."""


class Ranker:
    """Scores starts of the single target of ``request``.

    Args:
        request: a validated request with exactly one target.
        duration_uncertain: whether an uncertain duration was accepted.
    """

    def __init__(self, request: PlanningRequest, duration_uncertain: bool) -> None:
        preference = request.preferences.effective()
        self._preferred_ns = None if preference is None else preference.preferred_start.ns
        self._source: PreferenceSource | None = None if preference is None else preference.source
        self._mutations = 0 if request.analysis_only else 1
        target = request.object(request.target_ids[0])
        original = None if target is None else target.known_time
        self._original_ns = None if original is None else original.start.ns
        tail: list[ScoreComponent] = []
        if request.analysis_only:
            tail.append(ScoreComponent(Tagged("AnalysisOnly"), 0))
        if duration_uncertain:
            tail.append(ScoreComponent(Tagged("DurationUncertain"), 0))
        self._tail = tuple(tail)
        self._feasible = ScoreComponent(Tagged("FeasibleWithinScope"), 0)
        self._tie_break = ScoreComponent(Tagged("EarliestTieBreak"), 0)
        self._preferred = (
            None if self._source is None else Tagged("PreferredStart", self._source.value)
        )
        self._unpreferred = RankingFeatures(None, None, self._mutations, 0)
        self._unpreferred_explanation = (self._feasible, self._tie_break, *self._tail)

    def score(self, start_ns: int) -> Scored:
        """Cost, mutation count, shift, explanation and features of a start (UTC ns)."""
        original = self._original_ns
        shift = 0 if original is None else abs(original - start_ns) // NS
        preferred, tag = self._preferred_ns, self._preferred
        if preferred is None or tag is None:
            features = (
                self._unpreferred
                if shift == 0
                else RankingFeatures(None, None, self._mutations, shift)
            )
            return (0, self._mutations, shift, self._unpreferred_explanation, features)
        distance = abs(start_ns - preferred) // NS
        features = RankingFeatures(distance, self._source, self._mutations, shift)
        explanation = (self._feasible, ScoreComponent(tag, distance), *self._tail)
        return (distance, self._mutations, shift, explanation, features)
