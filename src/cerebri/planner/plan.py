"""The planning pipeline: validate, build the graph, search, rank (planner.md section 1).

``CANCEL`` and ``UPDATE`` evaluate one position instead of searching, and ``RESCHEDULE``
ranks by least disruption first (:mod:`cerebri.planner.in_place`, decision 0049).

Pure and deterministic: no clock, no I/O, no randomness. The result depends on the
request's content only, never on the order of its lists.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from cerebri._guard import arguments, invalid_argument
from cerebri.cpir import (
    IN_PLACE_OBJECTIVE,
    OBJECTIVE,
    RESCHEDULE_OBJECTIVE,
    Assessment,
    Operation,
    Outcome,
    PlanningRequest,
    PlanningResult,
    SearchSpace,
    Tagged,
    ValidationReport,
    ValidationState,
    parse_request,
)
from cerebri.planner._collector import collector_paused
from cerebri.planner.in_place import evaluate_in_place
from cerebri.planner.limits import DEFAULT_LIMITS, PlannerLimits
from cerebri.planner.search import grid_search, outcome_of
from cerebri.planner.validate import validate_request

__all__ = ["plan", "validate"]

RequestInput = str | bytes | Mapping[str, Any] | PlanningRequest


@arguments(invalid_argument, limits=PlannerLimits)
def validate(request: RequestInput, *, limits: PlannerLimits = DEFAULT_LIMITS) -> ValidationReport:
    """Validate a CPIR request (the ``/v1/validate`` semantics, planner.md 2).

    Accepts JSON text, bytes, decoded JSON values or a :class:`PlanningRequest`.
    A two-target request is ``Valid`` here but not plannable (see :func:`plan`).

    Raises:
        ParseError: the input is not a well-formed CPIR request.
        InvalidArgumentError: ``input.invalid_argument``, ``limits`` is not a PlannerLimits.
    """
    parsed = parse_request(request)
    return validate_request(parsed, limits).report


@arguments(invalid_argument, limits=PlannerLimits)
def plan(request: RequestInput, *, limits: PlannerLimits = DEFAULT_LIMITS) -> PlanningResult:
    """Plan a CPIR request: ranked, explained candidates and an honest assessment.

    Returns a :class:`PlanningResult` for every parseable request; a request that cannot be
    planned yields outcome ``InsufficientInformation`` with the issues that block it.

    Raises:
        ParseError: the input is not a well-formed CPIR request.
        InvalidArgumentError: ``input.invalid_argument``, ``limits`` is not a PlannerLimits.
    """
    with collector_paused():
        return _plan(parse_request(request), limits)


def _plan(parsed: PlanningRequest, limits: PlannerLimits) -> PlanningResult:
    validation = validate_request(parsed, limits)
    report = validation.report
    if len(parsed.target_ids) != 1 and report.state is not ValidationState.INSUFFICIENT_INFORMATION:
        report = ValidationReport(
            ValidationState.INSUFFICIENT_INFORMATION,
            (*report.issues, Tagged("UnsupportedTargetCount")),
        )
    graph = validation.graph.to_wire()
    compiled = validation.compiled
    compilation = None if compiled is None else compiled.to_wire()
    horizon = parsed.scope.time_range
    if (
        report.state is ValidationState.INSUFFICIENT_INFORMATION
        or validation.duration_seconds is None
    ):
        return PlanningResult(
            outcome=Outcome.INSUFFICIENT_INFORMATION,
            assessment=Assessment.BEST_FOUND,
            validation=report,
            candidates=(),
            rejections=(),
            search_space=SearchSpace(horizon, parsed.granularity, 0, False),
            compilation=compilation,
            dependency_graph=graph,
        )
    occurrences = () if compiled is None else compiled.busy()
    window = None if compiled is None else (compiled.horizon.start.ns, compiled.horizon.end.ns)
    operation = parsed.operation
    search = grid_search
    objective = RESCHEDULE_OBJECTIVE if operation is Operation.RESCHEDULE else OBJECTIVE
    if operation is Operation.CANCEL or operation is Operation.UPDATE:
        search, objective = evaluate_in_place, IN_PLACE_OBJECTIVE
    found = search(
        parsed,
        validation.duration_seconds,
        validation.duration_uncertain,
        occurrences,
        window,
    )
    outcome, assessment = outcome_of(len(found.candidates), found.exhausted)
    space = SearchSpace(horizon, parsed.granularity, found.evaluated, found.exhausted, objective)
    return PlanningResult(
        outcome=outcome,
        assessment=assessment,
        validation=report,
        candidates=found.candidates,
        rejections=found.rejections,
        search_space=space,
        compilation=compilation,
        dependency_graph=graph,
    )
