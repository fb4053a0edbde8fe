"""Grid search over the single target's start times (planner.md sections 5 and 8).

Work is bounded by ``budget.max_candidates`` evaluated grid positions, never by time.
"""

from __future__ import annotations

from cerebri.cpir import (
    Assessment,
    Outcome,
    Placement,
    PlanningRequest,
    ProposedPlan,
    RankedCandidate,
    Rejection,
    TimeRange,
)
from cerebri.planner.checks import BusyOccurrence, PlacementChecker
from cerebri.planner.identity import PlanIdentity
from cerebri.planner.rank import Ranker
from cerebri.temporal import Instant

__all__ = ["SearchOutcome", "grid_search", "outcome_of"]

NS = 1_000_000_000
MAX_NS = Instant.MAX.ns


class SearchOutcome:
    """Candidates (ranked), rejections (in evaluation order) and the search counters."""

    __slots__ = ("candidates", "evaluated", "exhausted", "rejections")

    def __init__(
        self,
        candidates: tuple[RankedCandidate, ...],
        rejections: tuple[Rejection, ...],
        evaluated: int,
        exhausted: bool,
    ) -> None:
        self.candidates = candidates
        self.rejections = rejections
        self.evaluated = evaluated
        self.exhausted = exhausted


def grid_search(
    request: PlanningRequest,
    duration_seconds: int,
    duration_uncertain: bool,
    occurrences: tuple[BusyOccurrence, ...] = (),
    horizon: tuple[int, int] | None = None,
) -> SearchOutcome:
    """Evaluate ``start, start + g, …`` while the placement ends inside the scope.

    The fit test (end past the scope end, or past the largest instant) runs before the
    budget test, so a budget equal to the grid size still proves the grid exhausted.
    Returns candidates sorted by their ordering key.
    """
    target = request.target_ids[0]
    checker = PlacementChecker(request, duration_seconds, (target,), occurrences, horizon)
    ranker = Ranker(request, duration_uncertain)
    identity = PlanIdentity(request)
    revision = request.context.revision
    scope_end = request.scope.time_range.end.ns
    duration = duration_seconds * NS
    step = request.granularity * NS
    budget = request.budget.max_candidates

    scored: list[tuple[tuple[int, int, int, int, str], RankedCandidate]] = []
    rejections: list[Rejection] = []
    evaluated = 0
    exhausted = False
    s = request.scope.time_range.start.ns
    while True:
        e = s + duration
        if e > MAX_NS or e > scope_end:
            exhausted = True
            break
        if evaluated >= budget:
            break
        evaluated += 1
        reasons = checker.check({target: (s, e)})
        start = Instant(s)
        if reasons:
            rejections.append(Rejection(start, reasons))
        else:
            score = ranker.score(s)
            placement = Placement(target, TimeRange.model_construct(start=start, end=Instant(e)))
            candidate = RankedCandidate(
                proposed=ProposedPlan(revision, (placement,), identity.plan_id),
                cost=score.cost,
                mutation_count=score.mutation_count,
                shifted_seconds=score.shift,
                start=start,
                object_id=target,
                explanation=score.explanation,
                ranking_features=score.features,
            )
            key = (score.cost, score.mutation_count, score.shift, s, target)
            scored.append((key, candidate))
        s += step
        if s > MAX_NS:
            exhausted = True
            break
    scored.sort(key=lambda pair: pair[0])
    return SearchOutcome(tuple(c for _, c in scored), tuple(rejections), evaluated, exhausted)


def outcome_of(candidates: int, exhausted: bool) -> tuple[Outcome, Assessment]:
    """The outcome/assessment table of planner.md 8 for a search that ran."""
    if candidates:
        return Outcome.SOLUTION, (Assessment.PROVEN_OPTIMAL if exhausted else Assessment.BEST_FOUND)
    if exhausted:
        return Outcome.NO_SOLUTION, Assessment.COMPLETE
    return Outcome.NEEDS_RELAXATION, Assessment.BEST_FOUND
