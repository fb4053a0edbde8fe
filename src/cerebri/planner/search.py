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
NO_DISRUPTION = (0, 0)


_new_range = TimeRange.__new__
_set = object.__setattr__


def _time_range(start: Instant, end: Instant) -> TimeRange:
    """``TimeRange.model_construct(start=start, end=end)`` (equal, same fields set) at a
    third of its cost; ``start < end`` holds by construction in the search."""
    made = _new_range(TimeRange)
    _set(made, "__dict__", {"start": start, "end": end})
    _set(made, "__pydantic_fields_set__", {"start", "end"})
    _set(made, "__pydantic_extra__", None)
    _set(made, "__pydantic_private__", None)
    return made


_new_instant = Instant.__new__


def _instant(ns: int) -> Instant:
    """``Instant(ns)`` for a grid instant, in range by construction (no re-check)."""
    made = _new_instant(Instant)
    _set(made, "ns", ns)
    return made


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
    Returns candidates sorted by their ordering key; for a ``RESCHEDULE``, by disruption
    class and shift first (decision 0049).
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

    # (disruption class, shift) lead the key of a RESCHEDULE (decision 0049), else (0, 0).
    scored: list[tuple[tuple[int, int, int, int, int, int, str], RankedCandidate]] = []
    disrupt = ranker.ranks_disruption
    rejections: list[Rejection] = []
    score, plan_id = ranker.score, identity.plan_id
    start_ns = request.scope.time_range.start.ns
    # Positions start_ns + k * step for k < count fit the scope (and the instant range);
    # the budget may stop the walk earlier, leaving the grid unproven.
    last = min(scope_end, MAX_NS) - duration
    fitting = 0 if last < start_ns else (last - start_ns) // step + 1
    evaluated = min(fitting, budget)
    exhausted = fitting <= budget
    verdicts = checker.check_grid(target, start_ns, step, evaluated, duration)
    new_rejection, new_candidate = Rejection.__new__, RankedCandidate.__new__
    new_plan = ProposedPlan.__new__
    for s, reasons in zip(
        range(start_ns, start_ns + evaluated * step, step), verdicts, strict=True
    ):
        start = _instant(s)
        if reasons:
            rejection = new_rejection(Rejection)
            _set(rejection, "start", start)
            _set(rejection, "reasons", reasons)
            rejections.append(rejection)
            continue
        if disrupt:
            level, (cost, mutations, shift, explanation, features) = ranker.disruption(s)
            lead = (level, shift)
        else:
            cost, mutations, shift, explanation, features = score(s)
            lead = NO_DISRUPTION
        placement = Placement(target, _time_range(start, _instant(s + duration)))
        proposed = new_plan(ProposedPlan)
        _set(
            proposed,
            "__dict__",
            {"source_revision": revision, "placements": (placement,), "_digest": plan_id},
        )
        candidate = new_candidate(RankedCandidate)
        _set(
            candidate,
            "__dict__",
            {
                "proposed": proposed,
                "cost": cost,
                "mutation_count": mutations,
                "shifted_seconds": shift,
                "start": start,
                "object_id": target,
                "explanation": explanation,
                "ranking_features": features,
            },
        )
        scored.append(((*lead, cost, mutations, shift, s, target), candidate))
    scored.sort(key=lambda pair: pair[0])
    return SearchOutcome(tuple(c for _, c in scored), tuple(rejections), evaluated, exhausted)


def outcome_of(candidates: int, exhausted: bool) -> tuple[Outcome, Assessment]:
    """The outcome/assessment table of planner.md 8 for a search that ran."""
    if candidates:
        return Outcome.SOLUTION, (Assessment.PROVEN_OPTIMAL if exhausted else Assessment.BEST_FOUND)
    if exhausted:
        return Outcome.NO_SOLUTION, Assessment.COMPLETE
    return Outcome.NEEDS_RELAXATION, Assessment.BEST_FOUND
