"""Ranking of feasible starts: cost, ordering key, explanation (planner.md section 7).

The order is total: ``(preference distance, mutation count, shift, start, object id)``
ascending. Distances and shifts are whole seconds, truncated toward zero.

A ``RESCHEDULE`` (decision 0049) ranks by least disruption first: the class of the start
(:func:`disruption_class`), then the shift from the current start, then the order above.
"""

from __future__ import annotations

from datetime import timedelta
from zoneinfo import ZoneInfo

from cerebri.cpir import (
    Operation,
    PlanningRequest,
    PreferenceSource,
    RankingFeatures,
    ScoreComponent,
    Tagged,
)
from cerebri.temporal import Instant
from cerebri.temporal.zones import zone

__all__ = ["Ranker", "disruption_class", "whole_seconds"]

NS = 1_000_000_000
NS_PER_DAY = 86_400 * NS
_ONE_MICROSECOND = timedelta(microseconds=1)

SAME_DATE = 0
"""Disruption class of a start on the same local date as the current start."""
SAME_TIME_OF_DAY = 1
"""Disruption class of a start on another date at the same local time of day."""
OTHER = 2
"""Disruption class of any other start."""


def _local_ns(start_ns: int, tz: ZoneInfo) -> int | None:
    """Nanoseconds since 1970-01-01T00:00 on the wall clock of ``tz`` at the UTC instant
    ``start_ns`` (the zone's offset in force then), or None outside ``datetime``'s years."""
    moment = Instant(start_ns).to_datetime()
    if moment is None:
        return None
    try:
        offset = moment.astimezone(tz).utcoffset()
    except OverflowError:
        return None
    if offset is None:  # pragma: no cover - ZoneInfo always reports an offset
        return None
    return start_ns + offset // _ONE_MICROSECOND * 1_000


def disruption_class(current_ns: int, start_ns: int, tz: ZoneInfo) -> int:
    """How much moving a start from ``current_ns`` to ``start_ns`` (UTC ns) disturbs the
    people who know it, on the wall clock of ``tz`` (the target's zone): 0 on the same
    local date, 1 on another date at the same local time of day, 2 otherwise (also when a
    local time cannot be computed). Decision 0049."""
    current, moved = _local_ns(current_ns, tz), _local_ns(start_ns, tz)
    if current is None or moved is None:
        return OTHER
    if current // NS_PER_DAY == moved // NS_PER_DAY:
        return SAME_DATE
    if current % NS_PER_DAY == moved % NS_PER_DAY:
        return SAME_TIME_OF_DAY
    return OTHER


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
        self._zone: ZoneInfo | None = None
        if request.operation is Operation.RESCHEDULE and target is not None:
            self._zone = zone(target.timezone)

    @property
    def ranks_disruption(self) -> bool:
        """True for a ``RESCHEDULE`` of a target with a known current start."""
        return self._zone is not None and self._original_ns is not None

    def disruption(self, start_ns: int) -> tuple[int, Scored]:
        """The disruption class of a start and its :meth:`score`, whose explanation has
        ``{"Disruption": {"class": c, "shift_seconds": s}}`` (cost ``s``) after
        ``FeasibleWithinScope``. Only for a request where :attr:`ranks_disruption` holds."""
        original, tz = self._original_ns, self._zone
        assert original is not None and tz is not None
        scored = self.score(start_ns)
        shift = scored[2]
        level = disruption_class(original, start_ns, tz)
        reason = ScoreComponent(
            Tagged("Disruption", {"class": level, "shift_seconds": shift}), shift
        )
        first, *rest = scored[3]
        return level, (scored[0], scored[1], shift, (first, reason, *rest), scored[4])

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
