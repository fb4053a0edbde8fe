"""The answer to a CPIR ``OPTIMIZE``: a :class:`~cerebri.cpir.PlanningResult` with a
``batch`` member, and its action plan (issue #24, decision 0070).

:func:`plan_batch` validates and maps the request (:func:`~cerebri.optimize.mapping.map_request`),
runs the solver and writes the usual result:

* ``outcome``/``assessment``: ``OPTIMAL`` -> ``Solution``/``ProvenOptimal``; ``FEASIBLE``
  -> ``Solution``/``BestFound``; ``INFEASIBLE`` -> ``NoSolution``/``Complete`` (proven);
  ``UNKNOWN`` (the work limit ran out before any placement) -> ``NeedsRelaxation``/
  ``BestFound``; a request that does not validate -> ``InsufficientInformation``.
* one candidate whose placements are every target and every moved meeting, sorted by
  object id; ``cost`` = the soft score, ``mutation_count`` = placements (0 for an
  analysis-only request), ``shifted_seconds`` = the moved meetings' total shift,
  ``start``/``object_id`` = the first placement's; explanation ``FeasibleWithinScope``
  (0), ``AnalysisOnly`` (0, analysis-only requests), ``{"BatchScore": {"hard", "medium",
  "soft"}}`` (cost = soft), then one ``{"BatchTerm": {"name", "meeting_id", "other",
  "person", "amount"}}`` per named cost (cost = its weighted cost), in the solver's order.
* ``search_space``: the horizon and granularity; ``evaluated`` = the number of grains,
  ``exhausted`` = the solver proved its answer (OPTIMAL or INFEASIBLE); objective
  :data:`BATCH_OBJECTIVE`.
* ``batch``: ``{"status", "score", "bound", "assignments": [{"object_id", "range",
  "room_id", "moved", "new"}], "terms": [...], "conflict": [{"kind", "ids"}], "stats":
  {"deterministic_time", "branches", "conflicts"}}``; assignments sorted by object id
  (every meeting, moved or not), terms as the solver sorts them.

Deterministic: the same request gives the same bytes (the solver counts work, never time).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import replace

from cerebri._json import JSONValue
from cerebri.cpir import (
    Assessment,
    Outcome,
    Placement,
    PlanningRequest,
    PlanningResult,
    ProposedPlan,
    RankedCandidate,
    RankingFeatures,
    ScoreComponent,
    SearchSpace,
    Tagged,
    TimeRange,
    ValidationState,
)
from cerebri.errors import CerebriError
from cerebri.optimize.mapping import BatchMapping, map_request
from cerebri.optimize.model import BatchProblem
from cerebri.optimize.solution import BatchSolution, SolveStatus
from cerebri.planner import ActionPlan, PlanError, ValidatedPlan, to_action_plan
from cerebri.planner.identity import PlanIdentity
from cerebri.temporal import Instant

__all__ = [
    "BATCH_OBJECTIVE",
    "Solver",
    "batch_action_plan",
    "default_solver",
    "plan_batch",
]

Solver = Callable[[BatchProblem], BatchSolution]
"""A batch solver: :func:`cerebri.optimize.solve` (CP-SAT) or a stand-in with its contract."""

BATCH_OBJECTIVE = "batch: hard; medium (optional attendance lost); soft (weighted terms)"
"""The ``search_space.objective`` of an ``OPTIMIZE``: the lexicographic score of decision 0069."""

NS = 1_000_000_000

_OUTCOMES = {
    SolveStatus.OPTIMAL: (Outcome.SOLUTION, Assessment.PROVEN_OPTIMAL),
    SolveStatus.FEASIBLE: (Outcome.SOLUTION, Assessment.BEST_FOUND),
    SolveStatus.INFEASIBLE: (Outcome.NO_SOLUTION, Assessment.COMPLETE),
    SolveStatus.UNKNOWN: (Outcome.NEEDS_RELAXATION, Assessment.BEST_FOUND),
}


def default_solver() -> Solver:
    """The CP-SAT solver, :func:`cerebri.optimize.solve` (decision 0069).

    Raises:
        CerebriError: ``optimize.unavailable`` when this build has no solver module.
    """
    try:
        module = importlib.import_module("cerebri.optimize._entry")
    except ModuleNotFoundError:
        raise CerebriError(
            "this build of cerebri has no batch solver", code="optimize.unavailable"
        ) from None
    solve: Solver = module.solve
    return solve


def plan_batch(request: PlanningRequest, *, solver: Solver | None = None) -> PlanningResult:
    """Answer an ``OPTIMIZE`` request (decision 0070; see the module docstring for the shape).

    ``solver`` defaults to :func:`default_solver`. Never raises for a well-typed request
    except for the solver's own errors (``optimize.*``).
    """
    mapping = map_request(request)
    return _answer(request, mapping, solver)[0]


def _answer(
    request: PlanningRequest, mapping: BatchMapping, solver: Solver | None
) -> tuple[PlanningResult, BatchSolution | None]:
    validation = mapping.validation
    compiled = validation.compiled
    compilation = None if compiled is None else compiled.to_wire()
    graph = validation.graph.to_wire()
    horizon = request.scope.time_range
    problem = mapping.problem
    if problem is None or mapping.report.state is ValidationState.INSUFFICIENT_INFORMATION:
        blocked = PlanningResult(
            outcome=Outcome.INSUFFICIENT_INFORMATION,
            assessment=Assessment.BEST_FOUND,
            validation=mapping.report,
            candidates=(),
            rejections=(),
            search_space=SearchSpace(horizon, request.granularity, 0, False, BATCH_OBJECTIVE),
            compilation=compilation,
            dependency_graph=graph,
        )
        return blocked, None
    solution = (solver or default_solver())(problem)
    outcome, assessment = _OUTCOMES[solution.status]
    proven = solution.status in (SolveStatus.OPTIMAL, SolveStatus.INFEASIBLE)
    candidates: tuple[RankedCandidate, ...] = ()
    if solution.status in (SolveStatus.OPTIMAL, SolveStatus.FEASIBLE):
        candidates = (_candidate(request, mapping, solution),)
    space = SearchSpace(horizon, request.granularity, len(problem.grains), proven, BATCH_OBJECTIVE)
    result = PlanningResult(
        outcome=outcome,
        assessment=assessment,
        validation=mapping.report,
        candidates=candidates,
        rejections=(),
        search_space=space,
        compilation=compilation,
        dependency_graph=graph,
        batch=_batch_wire(mapping, solution),
    )
    return result, solution


def _range(mapping: BatchMapping, start: int, duration: int) -> TimeRange:
    low = mapping.grain_start_ns(start)
    return TimeRange.model_construct(
        start=Instant(low), end=Instant(low + duration * mapping.grain_ns)
    )


def _durations(mapping: BatchMapping) -> dict[str, int]:
    assert mapping.problem is not None
    return {m.id: m.duration for m in mapping.problem.meetings}


def _placements(mapping: BatchMapping, solution: BatchSolution) -> tuple[Placement, ...]:
    """Every target and every moved meeting, sorted by object id."""
    durations = _durations(mapping)
    targets = set(mapping.targets)
    chosen = [a for a in solution.assignments if a.meeting_id in targets or a.moved]
    return tuple(
        Placement(a.meeting_id, _range(mapping, a.start, durations[a.meeting_id]))
        for a in sorted(chosen, key=lambda a: a.meeting_id)
    )


def _candidate(
    request: PlanningRequest, mapping: BatchMapping, solution: BatchSolution
) -> RankedCandidate:
    assert mapping.problem is not None and solution.score is not None
    placements = _placements(mapping, solution)
    current = {m.id: m.current_start for m in mapping.problem.meetings}
    shift = sum(
        abs(a.start - start) * (mapping.grain_ns // NS)
        for a in solution.assignments
        if a.moved and (start := current.get(a.meeting_id)) is not None
    )
    analysis = request.analysis_only
    mutations = 0 if analysis else len(placements)
    score = solution.score
    explanation = [ScoreComponent(Tagged("FeasibleWithinScope"), 0)]
    if analysis:
        explanation.append(ScoreComponent(Tagged("AnalysisOnly"), 0))
    explanation.append(
        ScoreComponent(
            Tagged("BatchScore", {"hard": score.hard, "medium": score.medium, "soft": score.soft}),
            score.soft,
        )
    )
    explanation.extend(
        ScoreComponent(
            Tagged(
                "BatchTerm",
                {
                    "name": term.name,
                    "meeting_id": term.meeting_id,
                    "other": term.other,
                    "person": getattr(term, "person", None),
                    "amount": term.amount,
                },
            ),
            term.cost,
        )
        for term in solution.terms
    )
    first = placements[0]
    proposed = ProposedPlan(request.context.revision, placements, PlanIdentity(request).plan_id)
    return RankedCandidate(
        proposed=proposed,
        cost=score.soft,
        mutation_count=mutations,
        shifted_seconds=shift,
        start=first.range.start,
        object_id=first.object_id,
        explanation=tuple(explanation),
        ranking_features=RankingFeatures(None, None, mutations, shift),
    )


def _batch_wire(mapping: BatchMapping, solution: BatchSolution) -> JSONValue:
    durations = _durations(mapping)
    targets = set(mapping.targets)
    score = solution.score
    assignments: list[JSONValue] = []
    for a in sorted(solution.assignments, key=lambda a: a.meeting_id):
        span = _range(mapping, a.start, durations[a.meeting_id])
        assignments.append(
            {
                "object_id": a.meeting_id,
                "range": {"start": span.start.format(), "end": span.end.format()},
                "room_id": a.room_id,
                "moved": a.moved,
                "new": a.meeting_id in targets,
            }
        )
    terms: list[JSONValue] = [
        {
            "name": t.name,
            "meeting_id": t.meeting_id,
            "other": t.other,
            "person": getattr(t, "person", None),
            "amount": t.amount,
            "cost": t.cost,
        }
        for t in solution.terms
    ]
    conflict: list[JSONValue] = [
        {"kind": rule.kind, "ids": list(rule.ids)} for rule in solution.conflict
    ]
    stats = solution.stats
    return {
        "status": solution.status.value,
        "score": None
        if score is None
        else {"hard": score.hard, "medium": score.medium, "soft": score.soft},
        "bound": solution.bound,
        "assignments": assignments,
        "terms": terms,
        "conflict": conflict,
        "stats": {
            "deterministic_time": stats.deterministic_time,
            "branches": stats.branches,
            "conflicts": stats.conflicts,
        },
    }


def batch_action_plan(request: PlanningRequest, *, solver: Solver | None = None) -> ActionPlan:
    """Plan an ``OPTIMIZE`` and turn its candidate into actions: ``CREATE_EVENT`` per new
    meeting, ``MOVE_EVENT`` per moved meeting (in placement order, ids ``<plan id>-<i>``),
    each with its range and, when it has one, ``room_id``.

    Raises:
        PlanError: ``plan.analysis_only`` (checked before planning), ``plan.invalid_request``
            (the request does not validate), ``plan.no_candidate`` (no placement: infeasible
            or the work limit ran out).
    """
    if request.analysis_only:
        raise PlanError(
            "analysis-only requests never yield actions",
            code="plan.analysis_only",
            wire="AnalysisOnly",
        )
    mapping = map_request(request)
    if mapping.problem is None:
        raise PlanError(
            "the request does not validate",
            code="plan.invalid_request",
            wire={"InvalidRequest": mapping.report.to_wire()},
        )
    result, solution = _answer(request, mapping, solver)
    if not result.candidates or solution is None:
        raise PlanError("no candidate to act on", code="plan.no_candidate", wire="NoCandidate")
    candidate = result.candidates[0]
    placements = candidate.proposed.placements
    plan = to_action_plan(ValidatedPlan(candidate.proposed.id, request, placements))
    rooms = {a.meeting_id: a.room_id for a in solution.assignments}
    return ActionPlan(
        plan.plan_id,
        tuple(replace(action, room_id=rooms.get(action.target)) for action in plan.actions),
    )
