"""From a CPIR ``OPTIMIZE`` request to a :class:`~cerebri.optimize.model.BatchProblem`
(issue #24, decision 0070).

:func:`map_request` validates the request as the planner does (planner.md 2.3 with
``OPTIMIZE`` supported, :func:`cerebri.planner.validate_request` ``batch=True``), adds the
``batch`` member's own rules, and builds the solver's discrete model. The work is split:
:mod:`._map_grid` (grains on local clocks, open hours), :mod:`._map_checks` (the batch member
indexed and checked: the issues below), :mod:`._map_model` (the model). The rules:

* **Grains**: ``scope.time_range.start + k * granularity`` for every ``k`` whose grain ends
  inside the horizon (half-open, UTC). Each grain's *day* is its start's local date in the
  **day zone**: the ``timezone`` of the target object with the smallest id (a meeting never
  runs over that zone's midnight; ``not_same_day_as`` compares these dates).
* **Open grains** of a person with ``hours``: a grain is open when its local start and its
  local end (in the person's own zone, exact UTC arithmetic, so a DST day simply has one
  hour more or less of grains) both fall inside one entry of the hours of the start's local
  date: ``start <= local start < end`` and ``start < local end <= end``. The local end is
  the wall-clock time of the grain's last second plus one second (a grain ending at
  midnight ends at ``24:00``; one ending at a fall-back instant ends on the offset it ran
  in). ``hours`` null: every grain is open. Rooms are always open.
* **Busy grains** of a person: every grain overlapping an ``EVENT``/``TASK`` object with a
  ``KNOWN`` time that is not a batch meeting, when ``object.calendar_id`` is the person's
  ``calendar_id`` or the person's id is in ``object.resource_ids``; of a room likewise with
  the room's ``calendar_id`` and id. Compiled series occurrences (``context.temporal``) are
  busy for every person and room (they name no calendar: conservative).
* **Meetings**: each ``batch.meetings`` entry; ``allowed_starts`` is the intersection of its
  ``window`` and its hard constraints (``EARLIEST_START``, ``LATEST_END``, ``DEADLINE``,
  ``AVAILABILITY_WINDOW``, ``EXPLICIT_TIME``, ``EXPLICIT_DATE`` in the object's zone,
  ``EXTERNAL_LOCK`` on an existing event = its current start, ``DEPENDENCY_ORDER`` on a
  fixed object = after its end); ``DEPENDENCY_ORDER`` on another meeting is an ``after``.

Limits of its own (:data:`OPTIMIZE_LIMITS`, :data:`MAX_MEETINGS`, :data:`MAX_GRAINS`); a
breach is the bare issue ``"InputLimit"`` alone, as for cpir-0.2.md 12's admission rows.

Issues (sorted with the planner's, de-duplicated by their JSON text):

* ``{"BatchRequired": "OPTIMIZE"}``: no ``batch`` member;
* ``{"InvalidBatch": {"id": id, "field": f}}``: ``f`` is ``meeting`` (an entry that is
  neither a target nor an existing ``EVENT`` object; or listed twice), ``target`` (a target
  without an entry), ``person`` / ``room`` (an id listed twice; or named by a meeting but
  absent), ``duration`` (not a whole number of grains), ``window`` (not on the grid or not
  inside the horizon; id ``scope.time_range`` when the horizon holds no whole grain),
  ``attendees`` (a person listed twice in one meeting, as required or optional),
  ``after`` (names no meeting or the meeting itself, or a gap that is not whole grains),
  ``not_same_day_as`` (names no meeting or the meeting itself), ``travel`` (not whole
  grains; a location no meeting has is allowed and unused: a travel table may be shared
  by many batches), ``time`` (an
  existing meeting whose current range is off the grid, outside the horizon, or not its
  duration long), ``movable`` (an existing meeting ``scope.movable_object_ids`` does not
  list), ``preferred_start`` (outside the horizon), ``dependency`` (a ``DEPENDENCY_ORDER``
  on an object that has no time);
* ``{"UnsupportedBatchConstraint": {"object_id": id, "kind": K}}``: a hard constraint the
  optimiser does not map (any kind on an object that is not a meeting, and ``NO_OVERLAP``,
  ``MIN_DURATION``, ``FIXED_DURATION``, ``REQUIRED_BUFFER``, ``RECURRENCE_RULE``,
  ``TIMEZONE_INTEGRITY`` on a meeting; ``EXTERNAL_LOCK`` on a new meeting);
* ``{"BatchLimit": "max_mutations"}``: a mutating request whose targets alone exceed
  ``scope.max_mutations`` or ``policy.snapshot.mutation.max_mutations``;
* for each existing meeting of a mutating request: ``ScopeViolation``,
  ``MissingPlanningCapability``, ``PolicyDenied`` (``MOVE_EVENT``), as for a ``MOVE`` target.
"""

from __future__ import annotations

from dataclasses import dataclass

from cerebri.cpir import Operation, PlanningRequest, Tagged, ValidationReport, ValidationState
from cerebri.optimize._map_checks import BatchInputs
from cerebri.optimize._map_grid import NS
from cerebri.optimize._map_model import build_problem
from cerebri.optimize.model import BatchProblem
from cerebri.planner import PlannerLimits
from cerebri.planner.validate import Validation, validate_request

__all__ = [
    "MAX_GRAINS",
    "MAX_MEETINGS",
    "OPTIMIZE_LIMITS",
    "BatchMapping",
    "map_request",
]

MAX_MEETINGS = 1024
"""At most this many ``batch.meetings`` (new and movable together) and ``target_ids``."""

MAX_GRAINS = 20_000
"""At most this many grains in the horizon (``time_range`` length / ``granularity``)."""

OPTIMIZE_LIMITS = PlannerLimits(
    max_request_bytes=4 * 1024 * 1024,
    max_request_work_bytes=None,
    max_objects=4096,
    max_facts=4096,
    max_constraints=4096,
    max_candidates=4096,
    max_work_units=1 << 62,
)
"""Admission limits of an ``OPTIMIZE`` request (decision 0070): compact re-serialised size
<= 4 MiB, <= 4096 objects, facts and constraints; ``budget.max_candidates`` (unused by the
optimiser) <= 4096; the single-target work estimate does not apply. Every other operation
keeps cpir-0.2.md 12's limits (256 KiB, 256 objects, ...)."""

_INPUT_LIMIT = Tagged("InputLimit")


@dataclass(frozen=True, slots=True)
class BatchMapping:
    """The outcome of :func:`map_request`.

    ``report``: the validation report (planner issues and batch issues, sorted).
    ``validation``: the planner's :class:`~cerebri.planner.validate.Validation` (graph,
    compiled snapshot). ``problem``: the model, or None when the report blocks planning.
    ``origin_ns``/``grain_ns``: grain ``i`` starts at ``origin_ns + i * grain_ns`` (UTC ns).
    ``targets``: the new meetings' ids (sorted); ``existing``: the movable meetings' ids.
    """

    report: ValidationReport
    validation: Validation
    problem: BatchProblem | None
    origin_ns: int
    grain_ns: int
    targets: tuple[str, ...]
    existing: tuple[str, ...]

    def grain_start_ns(self, index: int) -> int:
        """UTC start of grain ``index`` in nanoseconds."""
        return self.origin_ns + index * self.grain_ns


def _blocked(
    report: ValidationReport, validation: Validation, request: PlanningRequest
) -> BatchMapping:
    return BatchMapping(
        report,
        validation,
        None,
        request.scope.time_range.start.ns,
        request.granularity * NS,
        tuple(sorted(set(request.target_ids))),
        (),
    )


def _merge(issues: list[Tagged], state_if_clean: ValidationState) -> ValidationReport:
    unique = {issue.sort_text: issue for issue in issues}
    ordered = tuple(unique[text] for text in sorted(unique))
    state = ValidationState.INSUFFICIENT_INFORMATION if ordered else state_if_clean
    return ValidationReport(state, ordered)


def map_request(request: PlanningRequest) -> BatchMapping:
    """Validate an ``OPTIMIZE`` request and build its :class:`BatchProblem` (decision 0070).

    Returns a :class:`BatchMapping` whose ``problem`` is None when the report's state is
    ``InsufficientInformation`` (the issues say why; see the module docstring). Pure and
    deterministic: the problem's meetings, people and rooms are in sorted id order, grains
    in time order. Never raises for a well-typed request.
    """
    validation = validate_request(request, OPTIMIZE_LIMITS, batch=True)
    base = validation.report
    if base.issues == (_INPUT_LIMIT,):
        return _blocked(base, validation, request)
    horizon = request.scope.time_range
    grain_ns = request.granularity * NS
    count = (horizon.end.ns - horizon.start.ns) // grain_ns
    batch = request.batch
    too_many = (
        count > MAX_GRAINS
        or len(request.target_ids) > MAX_MEETINGS
        or (batch is not None and len(batch.meetings) > MAX_MEETINGS)
    )
    if too_many:
        report = ValidationReport(ValidationState.INSUFFICIENT_INFORMATION, (_INPUT_LIMIT,))
        return _blocked(report, validation, request)
    issues = list(base.issues)
    if batch is None:
        issues.append(Tagged("BatchRequired", Operation.OPTIMIZE.value))
        return _blocked(_merge(issues, base.state), validation, request)
    inputs = BatchInputs(request, validation, count)
    issues.extend(inputs.issues)
    if count == 0:
        issues.append(Tagged("InvalidBatch", {"id": "scope.time_range", "field": "window"}))
    report = _merge(issues, base.state)
    blocked = report.state is ValidationState.INSUFFICIENT_INFORMATION
    if blocked or validation.duration_seconds is None:
        return _blocked(report, validation, request)
    return BatchMapping(
        report,
        validation,
        build_problem(inputs),
        horizon.start.ns,
        grain_ns,
        inputs.targets,
        inputs.existing,
    )
