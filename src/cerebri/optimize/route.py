"""One entry point for every CPIR operation: ``OPTIMIZE`` goes to the batch optimiser, every
other operation to the reference planner, unchanged (decision 0070).

The top facade (:func:`cerebri.plan`, :func:`cerebri.validate`) and ``cerebri plan FILE``
call these.
"""

from __future__ import annotations

from cerebri._collector import collector_paused
from cerebri._guard import arguments, invalid_argument
from cerebri.cpir import Operation, PlanningResult, ValidationReport, parse_request
from cerebri.optimize.answer import Solver, plan_batch
from cerebri.optimize.mapping import map_request
from cerebri.planner import DEFAULT_LIMITS, PlannerLimits
from cerebri.planner import plan as plan_single
from cerebri.planner import validate as validate_single
from cerebri.planner.plan import RequestInput

__all__ = ["plan", "validate"]


@arguments(invalid_argument, limits=PlannerLimits)
def plan(
    request: RequestInput,
    *,
    limits: PlannerLimits = DEFAULT_LIMITS,
    solver: Solver | None = None,
) -> PlanningResult:
    """Plan a CPIR request: ``OPTIMIZE`` with the batch optimiser
    (:func:`cerebri.optimize.plan_batch`, its own admission limits
    :data:`~cerebri.optimize.OPTIMIZE_LIMITS`; ``limits`` does not apply), anything else with
    :func:`cerebri.planner.plan` under ``limits``. ``solver``: the batch solver (default
    :func:`~cerebri.optimize.default_solver`).

    Raises:
        ParseError: the input is not a well-formed CPIR request.
        InvalidArgumentError: ``input.invalid_argument``, ``limits`` is not a PlannerLimits.
    """
    with collector_paused():
        parsed = parse_request(request)
        if parsed.operation is Operation.OPTIMIZE:
            return plan_batch(parsed, solver=solver)
        return plan_single(parsed, limits=limits)


@arguments(invalid_argument, limits=PlannerLimits)
def validate(request: RequestInput, *, limits: PlannerLimits = DEFAULT_LIMITS) -> ValidationReport:
    """Validate a CPIR request: ``OPTIMIZE`` as the batch optimiser does (decision 0070),
    anything else as :func:`cerebri.planner.validate`.

    Raises:
        ParseError: the input is not a well-formed CPIR request.
        InvalidArgumentError: ``input.invalid_argument``, ``limits`` is not a PlannerLimits.
    """
    parsed = parse_request(request)
    if parsed.operation is Operation.OPTIMIZE:
        return map_request(parsed).report
    return validate_single(parsed, limits=limits)
