"""Request validation: what is known, missing or uncertain (planner.md section 2).

The checks run in the reference's order; the issues are then sorted by their compact JSON
text and de-duplicated, so the report does not depend on input order.
"""

from __future__ import annotations

from dataclasses import dataclass

from cerebri.cpir import (
    CHANGE_OPERATIONS,
    FACT_SOURCES,
    SUPPORTED_OPERATIONS,
    AvailabilityKind,
    Change,
    ChangeScope,
    Coverage,
    DependencyOrder,
    EventKind,
    FactAvailability,
    FactScheduledTime,
    Known,
    Operation,
    PlanningObject,
    PlanningRequest,
    RequiredFieldError,
    Resolved,
    Tagged,
    TaskKind,
    ValidationReport,
    ValidationState,
    require,
)
from cerebri.planner._objects import first_by_id
from cerebri.planner.capability import target_permissions
from cerebri.planner.compile import CompilationError, CompiledSnapshot, compile_snapshot
from cerebri.planner.graph import DependencyGraph, Edge, build_dependency_graph
from cerebri.planner.limits import DEFAULT_LIMITS, PlannerLimits

__all__ = [
    "Validation",
    "dependency_graph_of",
    "limit_breaches",
    "request_size_bytes",
    "validate_request",
]

SUPPORTED_SCHEMAS = frozenset({(0, 1), (0, 2)})
INPUT_LIMIT = Tagged("InputLimit")


@dataclass(frozen=True, slots=True)
class Validation:
    """Validation output used by the search.

    Attributes:
        report: the wire ``ValidationReport``.
        duration_seconds: the required duration, or None when it could not be required.
        duration_uncertain: True when an ``UNCERTAIN`` duration was accepted.
        graph: the dependency graph (always built, even when validation failed early, so the
            result can report it).
        compiled: the compiled CPIR 0.2 snapshot, or None (no temporal input, a compilation
            error, or an early admission failure).
    """

    report: ValidationReport
    duration_seconds: int | None
    duration_uncertain: bool
    graph: DependencyGraph
    compiled: CompiledSnapshot | None = None


def dependency_graph_of(request: PlanningRequest, limits: PlannerLimits) -> DependencyGraph:
    """The graph over all objects and ``DEPENDENCY_ORDER`` constraints (planner.md 4)."""
    edges = [
        Edge(predecessor=c.rule.value, dependent=c.object_id)
        for c in request.constraints
        if isinstance(c.rule, DependencyOrder)
    ]
    return build_dependency_graph(
        [o.id for o in request.context.objects],
        edges,
        constraint_count=len(request.constraints),
        max_objects=limits.max_objects,
        max_constraints=limits.max_constraints,
    )


def request_size_bytes(request: PlanningRequest) -> int:
    """Bytes of the compact canonical re-serialisation (cpir-0.2.md 12)."""
    return request.canonical_size


def limit_breaches(request: PlanningRequest, limits: PlannerLimits = DEFAULT_LIMITS) -> list[str]:
    """Human-readable descriptions of every admission limit the request exceeds.

    The wire issue is a bare ``InputLimit`` (as in the reference); this says which limit,
    with the measured value and the cap, e.g.
    ``"budget.max_candidates is 5000, more than max_candidates 4096"``.
    """
    objects = len(request.context.objects)
    facts = len(request.context.facts)
    constraints = len(request.constraints)
    candidates = request.budget.max_candidates
    work = candidates * (objects + 1) * (constraints + facts + objects + 1)
    checks: list[tuple[str, int, str, int | None]] = []
    if limits.max_request_bytes is not None or limits.max_request_work_bytes is not None:
        size = request_size_bytes(request)
        checks += [
            (
                "request size (bytes, compact JSON)",
                size,
                "max_request_bytes",
                limits.max_request_bytes,
            ),
            (
                "request size × budget.max_candidates",
                size * candidates,
                "max_request_work_bytes",
                limits.max_request_work_bytes,
            ),
        ]
    checks += [
        ("context.objects", objects, "max_objects", limits.max_objects),
        ("context.facts", facts, "max_facts", limits.max_facts),
        ("constraints", constraints, "max_constraints", limits.max_constraints),
        ("budget.max_candidates", candidates, "max_candidates", limits.max_candidates),
        (
            "work units max_candidates × (objects + 1) × (constraints + facts + objects + 1)",
            work,
            "max_work_units",
            limits.max_work_units,
        ),
    ]
    return [
        f"{what} is {value}, more than {name} {cap}"
        for what, value, name, cap in checks
        if cap is not None and value > cap
    ]


def _input_limit_only(graph: DependencyGraph) -> Validation:
    report = ValidationReport(ValidationState.INSUFFICIENT_INFORMATION, (INPUT_LIMIT,))
    return Validation(report, None, False, graph)


def _breaks_size_limits(request: PlanningRequest, limits: PlannerLimits) -> bool:
    if limits.max_request_bytes is None and limits.max_request_work_bytes is None:
        return False
    size = request_size_bytes(request)
    too_big = limits.max_request_bytes is not None and size > limits.max_request_bytes
    work = limits.max_request_work_bytes
    return too_big or (work is not None and size * request.budget.max_candidates > work)


def _admits_work(request: PlanningRequest, limits: PlannerLimits) -> bool:
    objects = len(request.context.objects)
    facts = len(request.context.facts)
    constraints = len(request.constraints)
    candidates = request.budget.max_candidates
    work = candidates * (objects + 1) * (constraints + facts + objects + 1)
    return (
        objects <= limits.max_objects
        and facts <= limits.max_facts
        and constraints <= limits.max_constraints
        and candidates <= limits.max_candidates
        and work <= limits.max_work_units
    )


def validate_request(
    request: PlanningRequest, limits: PlannerLimits = DEFAULT_LIMITS, *, batch: bool = False
) -> Validation:
    """Validate a parsed request (planner.md 2.3, without the plan-only target count rule).

    ``batch=True`` is the batch optimiser's view (decision 0070, :mod:`cerebri.optimize`):
    ``OPTIMIZE`` is then a supported operation whose targets must be prospective, and its
    ``budget.max_repairs``/``max_depth`` may be non-zero; the ``batch`` member's own rules
    are checked by the optimiser. Without it (the reference planner) ``OPTIMIZE`` stays
    ``{"UnsupportedOperation": "OPTIMIZE"}``. Either way a ``batch`` member with another
    operation is ``{"BatchNotAllowed": "<OPERATION>"}``.

    Never raises for well-typed input: every problem is an issue in the report.
    """
    graph = dependency_graph_of(request, limits)
    if _breaks_size_limits(request, limits):
        return _input_limit_only(graph)

    issues: list[Tagged] = []
    version = (request.schema_version.major, request.schema_version.minor)
    if version not in SUPPORTED_SCHEMAS or (
        version == (0, 1) and request.context.temporal is not None
    ):
        issues.append(Tagged("UnsupportedSchema"))
    optimize = batch and request.operation is Operation.OPTIMIZE
    if request.operation not in SUPPORTED_OPERATIONS and not optimize:
        issues.append(Tagged("UnsupportedOperation", request.operation.value))
    capability = request.planning_capability
    if not (capability.read and capability.plan):
        issues.append(Tagged("PlanningPermissionDenied"))
    if not _admits_work(request, limits):
        return _input_limit_only(graph)
    budget = request.budget
    if (budget.max_depth != 0 or budget.max_repairs != 0) and not optimize:
        issues.append(Tagged("UnsupportedSearchBudget"))

    analysis_only = request.analysis_only
    allow_uncertain = analysis_only and request.policy.snapshot.allow_uncertain_duration
    required = require(request.duration, allow_uncertain=allow_uncertain)
    duration: int | None = None
    uncertain = False
    if isinstance(required, RequiredFieldError):
        issues.append(Tagged("RequiredDuration", required.value))
    else:
        duration, uncertain = required

    objects = first_by_id(request.context.objects)
    issues.extend(_object_issues(request))
    issues.extend(_target_issues(request, objects, optimize=optimize))
    issues.extend(_member_issues(request, objects))
    issues.extend(_fact_issues(request, objects))
    issues.extend(
        Tagged("UnknownObject", c.object_id)
        for c in request.constraints
        if c.object_id not in objects
    )
    compiled = _compile(request, limits, issues)
    issues.extend(Tagged("Dependency", issue.to_wire()) for issue in graph.issues)

    unique = {issue.sort_text: issue for issue in issues}
    ordered = tuple(unique[text] for text in sorted(unique))
    if ordered:
        state = ValidationState.INSUFFICIENT_INFORMATION
    elif uncertain:
        state = ValidationState.VALID_WITH_UNCERTAINTY
    else:
        state = ValidationState.VALID
    return Validation(ValidationReport(state, ordered), duration, uncertain, graph, compiled)


def _compile(
    request: PlanningRequest, limits: PlannerLimits, issues: list[Tagged]
) -> CompiledSnapshot | None:
    """Step 13: compile the temporal input; failures and coverage become issues."""
    try:
        compiled = compile_snapshot(request.context, request.scope.time_range)
    except CompilationError as failed:
        issues.append(Tagged("Compilation", failed.variant.to_wire()))
        return None
    if compiled is None:
        return None
    if compiled.availability.coverage is Coverage.INCOMPLETE:
        issues.append(Tagged("IncompleteCoverage"))
    n = len(request.context.objects) + len(compiled.occurrences) + 1
    checks = len(request.constraints) + len(request.context.facts) + n
    if request.budget.max_candidates * n * checks > limits.max_work_units:
        issues.append(INPUT_LIMIT)
    return compiled


def _object_issues(request: PlanningRequest) -> list[Tagged]:
    issues: list[Tagged] = []
    seen: set[str] = set()
    targets = set(request.target_ids)
    for obj in request.context.objects:
        oid = obj.id
        if oid in seen:
            issues.append(Tagged("DuplicateObject", oid))
        seen.add(oid)
        existing = obj.revision is not None  # obj.is_existing
        time = obj.time
        if existing and time.provenance not in FACT_SOURCES:
            issues.append(Tagged("InvalidTargetState", oid))
        kind = obj.kind
        needs_time = isinstance(kind, EventKind | TaskKind | AvailabilityKind)
        if needs_time and (existing or oid not in targets):
            state = time.value
            if isinstance(state, Resolved) and isinstance(state.knowledge, Known):
                continue  # what require() accepts without a question
            required = require(time, allow_uncertain=False)
            if isinstance(required, RequiredFieldError):
                issues.append(Tagged("RequiredTime", {"object_id": oid, "reason": required.value}))
    return issues


def _target_issues(
    request: PlanningRequest, objects: dict[str, PlanningObject], *, optimize: bool = False
) -> list[Tagged]:
    issues: list[Tagged] = []
    if not request.target_ids:
        issues.append(Tagged("NoTargets"))
    seen: set[str] = set()
    mutating = not request.analysis_only
    for target_id in request.target_ids:
        if target_id in seen:
            issues.append(Tagged("DuplicateTarget", target_id))
            continue
        seen.add(target_id)
        found = objects.get(target_id)
        if found is None:
            issues.append(Tagged("UnknownObject", target_id))
            continue
        obj = found
        if not isinstance(obj.kind, EventKind):
            issues.append(Tagged("UnsupportedObject", target_id))
        if not request.scope.selects(obj):
            issues.append(Tagged("ScopeViolation", target_id))
        op = request.operation
        if ((op is Operation.CREATE or optimize) and obj.is_existing) or (
            (op is Operation.MOVE or op in CHANGE_OPERATIONS) and not obj.is_existing
        ):
            issues.append(Tagged("InvalidTargetState", target_id))
        if not obj.is_existing and not obj.time_missing:
            issues.append(Tagged("InvalidTargetState", target_id))
        if mutating:
            capability, policy = target_permissions(request, obj)
            if not capability:
                issues.append(Tagged("MissingPlanningCapability", target_id))
            if not policy:
                issues.append(Tagged("PolicyDenied", target_id))
    return issues


_CHANGE_ALLOWED = frozenset({Operation.CREATE, *CHANGE_OPERATIONS})


def _member_issues(request: PlanningRequest, objects: dict[str, PlanningObject]) -> list[Tagged]:
    """Issues of the extension members: ``change`` (decision 0049) and ``batch`` (decision
    0070: ``{"BatchNotAllowed": op}`` with an operation other than OPTIMIZE)."""
    issues: list[Tagged] = []
    if request.batch is not None and request.operation is not Operation.OPTIMIZE:
        issues.append(Tagged("BatchNotAllowed", request.operation.value))
    if request.change is not None:
        issues.extend(_change_issues(request, request.change, objects))
    return issues


def _change_issues(
    request: PlanningRequest, change: Change, objects: dict[str, PlanningObject]
) -> list[Tagged]:
    """Issues of the ``change`` member (decision 0049): ``{"ChangeNotAllowed": op}`` with an
    operation other than CREATE/RESCHEDULE/CANCEL/UPDATE; ``{"RequiredRecurrenceId": scope}``
    for INSTANCE/THIS_AND_FUTURE without ``recurrence_id`` (RFC 5545 3.8.4.4);
    ``{"InvalidChange": field}`` for a field that contradicts the operation or the target
    (CREATE: scope SERIES, no recurrence_id, no etag, sequence 0; a change of an existing
    target: ``sequence`` equal to its ``revision``; attendees and previous attendees: one
    entry per address; previous attendees only with UPDATE, decision 0061)."""
    issues: list[Tagged] = []
    op = request.operation
    if op not in _CHANGE_ALLOWED:
        issues.append(Tagged("ChangeNotAllowed", op.value))
    if change.scope.needs_recurrence_id and change.recurrence_id is None:
        issues.append(Tagged("RequiredRecurrenceId", change.scope.value))
    if op is Operation.CREATE:
        wrong = {
            "scope": change.scope is not ChangeScope.SERIES,
            "recurrence_id": change.recurrence_id is not None,
            "etag": change.etag is not None,
            "sequence": change.sequence != 0,
        }
        issues.extend(Tagged("InvalidChange", name) for name, bad in wrong.items() if bad)
    elif op in CHANGE_OPERATIONS:
        for target_id in request.target_ids:
            obj = objects.get(target_id)
            if obj is not None and obj.is_existing and obj.revision != change.sequence:
                issues.append(Tagged("InvalidChange", "sequence"))
    for name, people in (
        ("attendees", change.attendees),
        ("previous_attendees", change.previous_attendees),
    ):
        addresses = [a.address.lower() for a in people or ()]
        if len(set(addresses)) != len(addresses):
            issues.append(Tagged("InvalidChange", name))
    if change.previous_attendees is not None and op is not Operation.UPDATE:
        issues.append(Tagged("InvalidChange", "previous_attendees"))
    return issues


def _fact_issues(request: PlanningRequest, objects: dict[str, PlanningObject]) -> list[Tagged]:
    issues: list[Tagged] = []
    seen: set[str] = set()
    for fact in request.context.facts:
        if fact.id in seen:
            issues.append(Tagged("DuplicateFact", fact.id))
        seen.add(fact.id)
        if fact.provenance not in FACT_SOURCES:
            issues.append(Tagged("InvalidFactSource", fact.id))
        subject = objects.get(fact.object_id)
        if subject is None:
            issues.append(Tagged("UnknownObject", fact.object_id))
        elif isinstance(fact.value, FactScheduledTime | FactAvailability) and (
            subject.known_time != fact.value.value
        ):
            issues.append(Tagged("ContradictoryFact", fact.id))
    return issues
