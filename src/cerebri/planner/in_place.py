"""``CANCEL`` and ``UPDATE``: one position, the event's current start (decision 0049).

Neither searches. A cancel's only candidate is the event where it is now (what is removed);
an update's is the event at its current start with the request's duration, checked by every
hard rule of planner.md 6 (the event's own current range never blocks it). A position that
fails is a rejection and the answer is ``NoSolution``/``Complete``: the whole space (one
position) was evaluated.
"""

from __future__ import annotations

from cerebri.cpir import (
    Operation,
    Placement,
    PlanningRequest,
    ProposedPlan,
    RankedCandidate,
    RankingFeatures,
    Rejection,
    ScoreComponent,
    Tagged,
    TimeRange,
)
from cerebri.planner.checks import BusyOccurrence, PlacementChecker
from cerebri.planner.identity import PlanIdentity
from cerebri.planner.search import SearchOutcome
from cerebri.temporal import Instant

__all__ = ["evaluate_in_place"]

NS = 1_000_000_000

_REASON = {
    Operation.CANCEL: ScoreComponent(Tagged("Cancellation"), 0),
    Operation.UPDATE: ScoreComponent(Tagged("UpdateInPlace"), 0),
}
_FEASIBLE = ScoreComponent(Tagged("FeasibleWithinScope"), 0)


def evaluate_in_place(
    request: PlanningRequest,
    duration_seconds: int,
    duration_uncertain: bool,
    occurrences: tuple[BusyOccurrence, ...] = (),
    horizon: tuple[int, int] | None = None,
) -> SearchOutcome:
    """The one position of a validated ``CANCEL`` or ``UPDATE`` of an existing target with a
    known time: ``[current start, current end)`` for a cancel, ``[current start, current
    start + duration)`` for an update.

    A feasible position is one candidate with cost 0, shift 0, features without a
    preference (nothing is ranked, so preferences are not used) and the explanation
    ``FeasibleWithinScope``, ``Cancellation`` or ``UpdateInPlace``, then ``AnalysisOnly`` /
    ``DurationUncertain`` as for any candidate. Evaluated 1, exhausted.
    """
    target = request.target_ids[0]
    obj = request.object(target)
    current = None if obj is None else obj.known_time
    if current is None:  # pragma: no cover - validation requires an existing, known target
        return SearchOutcome((), (), 0, True)
    start_ns = current.start.ns
    if request.operation is Operation.CANCEL:
        end_ns = current.end.ns
    else:
        end_ns = start_ns + duration_seconds * NS
    checker = PlacementChecker(request, duration_seconds, (target,), occurrences, horizon)
    reasons = checker.check({target: (start_ns, end_ns)})
    if reasons:
        return SearchOutcome((), (Rejection(current.start, reasons),), 1, True)
    mutations = 0 if request.analysis_only else 1
    tail: list[ScoreComponent] = []
    if request.analysis_only:
        tail.append(ScoreComponent(Tagged("AnalysisOnly"), 0))
    if duration_uncertain:
        tail.append(ScoreComponent(Tagged("DurationUncertain"), 0))
    placement = Placement(target, TimeRange(start=current.start, end=Instant(end_ns)))
    identity = PlanIdentity(request)
    candidate = RankedCandidate(
        proposed=ProposedPlan(request.context.revision, (placement,), identity.plan_id),
        cost=0,
        mutation_count=mutations,
        shifted_seconds=0,
        start=current.start,
        object_id=target,
        explanation=(_FEASIBLE, _REASON[request.operation], *tail),
        ranking_features=RankingFeatures(None, None, mutations, 0),
    )
    return SearchOutcome((candidate,), (), 1, True)
