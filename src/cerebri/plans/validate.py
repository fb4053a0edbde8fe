"""Validation of a plan draft against the rules of plans.md section 3.

:func:`validate_draft` never raises for a broken rule: it returns a
:class:`~cerebri.plans.DraftReport` listing every problem, each a
:class:`~cerebri.plans.DraftProblem` ``(code, step, path, message)`` where ``step`` is the
step's key (``None`` for plan-level problems) and ``path`` an RFC 6901 JSON pointer into the
draft's wire form. ``<s>`` below is a step's path ``/steps/<i>``; ``<c>`` is a *capability
use*: the step itself (``<s>``, for a step naming a ``capability``), a check
(``<s>/verify/check``, ``<s>/monitor/check``, ``<s>/precondition/check``) or a grant request
(``<s>/request``).

Rules and codes, in report order:

==================================== ======================== =====================================
code                                 path                     broken rule
==================================== ======================== =====================================
``draft.duplicate_key``              ``<s>/key``              key used by an earlier step
                                                              (reported on the later step)
``draft.unknown_dependency``         ``<s>/depends_on/<j>``   ``depends_on`` names no step
``draft.self_dependency``            ``<s>/depends_on/<j>``   a step depends on itself
``draft.cycle``                      ``<s>/depends_on``       a dependency cycle: one problem
                                                              per strongly connected component,
                                                              naming one cycle ``a -> b -> a``
                                                              (``a`` depends on ``b``) from its
                                                              smallest key, the ``step``; the
                                                              path is the first step with it
``draft.unknown_kind``               ``<s>/kind``             ``kind`` not in ``StepKind``
``draft.spec_mismatch``              ``<s>/<member>``         an ``expectation`` on a step that is
                                                              not a ``capability`` step, a
                                                              ``precondition`` on a ``verify``,
                                                              ``wait`` or ``internal`` step; a
                                                              ``capability``
                                                              step lacks
                                                              ``capability`` or has a kind
                                                              spec; another kind lacks its spec
                                                              (``request`` for
                                                              ``request_capability``) or has
                                                              another spec, ``capability``,
                                                              ``target`` or ``params``; one
                                                              problem per member
``draft.unknown_internal_action``    ``<s>/internal/action``  not in ``InternalAction``
``draft.unknown_capability``         ``<c>/capability``       no such registered capability
``draft.capability_locked``          ``<c>/capability``       the capability is locked
``draft.params_invalid``             ``<c>/params<ptr>``      a JSON Schema violation of
                                                              ``params`` (absent: ``{}``); one
                                                              per violation; not for requests
``draft.target_mismatch``            ``<c>/target``           rule ``none``: a target is given;
                                                              ``param``: no target, or not
                                                              ``params[target_param]``; not for
                                                              requests
``draft.grant_risk_understated``     ``<s>/request/risk``     a grant request states a risk below
                                                              the capability's declared risk
``draft.grant_too_long``             ``<s>/request/``         a grant longer than
                                     ``duration_seconds``     :data:`MAX_GRANT_SECONDS`
``draft.grant_unscoped``             ``<s>/request/``         a grant of a capability that is
                                     ``target_pattern``       not read-only for every target
                                                              (a ``*`` in the pattern)
``draft.check_not_read_only``        ``<c>/capability``       a check's capability is not
                                                              read-only
``draft.check_prompts``              ``<c>/capability``,      a check's capability requires
                                     ``<s>/require_approval`` approval, or a ``verify`` or
                                                              ``monitor`` step has
                                                              ``require_approval: true``
``draft.verify_target_missing``      ``<s>/verify/of``        ``verify.of`` names no step
``draft.verify_without_expectation`` ``<s>/verify/of``        that step has no expectation
``draft.verify_not_dependency``      ``<s>/verify/of``        it is not among the verify step's
                                                              dependencies (direct or through
                                                              other steps)
``draft.verify_target_differs``      ``<s>/verify/check/``    the check observes another target
                                     ``target``               than the step it verifies acts on
``draft.invalid_attempts``           ``<s>/max_attempts``     ``max_attempts`` < 1 or above
                                                              :data:`MAX_STEP_ATTEMPTS`
``draft.retry_not_idempotent``       ``<s>/max_attempts``     ``max_attempts`` > 1 on a step whose
                                                              capability is not idempotent (a
                                                              repeat could act twice)
``draft.negative_budget``            ``/budget/<field>``      a budget field < 0; one per field
``draft.negative_estimate``          ``/estimate/<field>``    an estimate field < 0
``draft.budget_below_estimate``      ``/budget/<field>``      a limit below the draft's own
                                                              estimate; invocations never
                                                              below one per capability step,
                                                              precondition, verify and monitor.
                                                              0 means unlimited, except for
                                                              invocations: there the default 20
``draft.empty``                      ``/steps``               the draft has no steps
==================================== ======================== =====================================

**Order.** Problems are sorted by (step position, rule order above, path, message); problems
of no step (the last two rules) come after every step's. A ``draft.cycle`` problem takes the
position of its ``step``. The order depends only on the draft, so a report is deterministic.

**Scope of each rule.** Spec members present are checked whatever the kind: every check
found (``verify.check``, ``monitor.check``, ``precondition.check``), ``request.capability``
and ``internal.action``; a step's own ``capability`` (with its ``target`` and ``params``) is
checked whenever it is set. A capability that is unknown is not checked further; a locked one
is (it stays declared). ``draft.spec_mismatch`` is not reported for an unknown kind, and the
``verify.of`` rules stop at the first that fails.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Final

from cerebri._guard import arguments
from cerebri.plans.capabilities import Capability, CapabilityRegistry
from cerebri.plans.draft import DEFAULT_MAX_INVOCATIONS, Check, PlanDraft, StepSpec
from cerebri.plans.graph import GRAPH_RULES, Finding, finding_order, graph_findings
from cerebri.plans.parse import pointer
from cerebri.plans.report import DraftProblem, DraftReport, draft_argument_error
from cerebri.plans.vocabulary import InternalAction, Risk, StepKind, TargetRule

__all__ = ["MAX_GRANT_SECONDS", "MAX_STEP_ATTEMPTS", "RULES", "validate_draft"]

MAX_GRANT_SECONDS: Final = 86_400
"""Longest temporary grant a ``request_capability`` step may ask for, in seconds (ours)."""

MAX_STEP_ATTEMPTS: Final = 100
"""The most invocations one step may make, retries included (ours)."""

_ESTIMATED: Final = {
    # budget field -> estimate field it bounds
    "max_capability_invocations": "capability_invocations",
    "max_wall_seconds": "wall_seconds",
    "max_money": "money",
    "max_human_approvals": "human_approvals",
}

RULES: Final = (
    *GRAPH_RULES,
    "draft.unknown_kind",
    "draft.spec_mismatch",
    "draft.unknown_internal_action",
    "draft.unknown_capability",
    "draft.capability_locked",
    "draft.params_invalid",
    "draft.target_mismatch",
    "draft.grant_risk_understated",
    "draft.grant_too_long",
    "draft.grant_unscoped",
    "draft.check_not_read_only",
    "draft.check_prompts",
    "draft.verify_target_missing",
    "draft.verify_without_expectation",
    "draft.verify_not_dependency",
    "draft.verify_target_differs",
    "draft.invalid_attempts",
    "draft.retry_not_idempotent",
    "draft.negative_budget",
    "draft.negative_estimate",
    "draft.budget_below_estimate",
    "draft.empty",
)
"""Every problem code, in report order (the module's table)."""

_SPECS: Final = ("request", "verify", "wait", "monitor", "internal")
_SPEC_OF_KIND: Final = {
    StepKind.REQUEST_CAPABILITY: "request",
    StepKind.VERIFY: "verify",
    StepKind.WAIT: "wait",
    StepKind.MONITOR: "monitor",
    StepKind.INTERNAL: "internal",
}
_CAPABILITY_MEMBERS: Final = ("capability", "target", "params")
_PRECONDITIONED: Final = frozenset(
    {StepKind.CAPABILITY, StepKind.REQUEST_CAPABILITY, StepKind.MONITOR}
)
_RISK_RANK: Final = {Risk.LOW: 0, Risk.MEDIUM: 1, Risk.HIGH: 2}
_KINDS: Final = frozenset(k.value for k in StepKind)
_ACTIONS: Final = frozenset(a.value for a in InternalAction)


@dataclass(frozen=True, slots=True)
class _Use:
    """A capability named by a step: ``role`` is ``step``, ``check`` or ``request``; ``base``
    the path of the object holding ``capability`` (and ``target``/``params``)."""

    role: str
    base: tuple[str | int, ...]
    name: str
    target: str | None
    params: Mapping[str, Any] | None


class _Step:
    """Collects the problems of one step at draft position ``position``."""

    def __init__(self, position: int, step: StepSpec) -> None:
        self.position = position
        self.step = step
        self.found: list[Finding] = []

    def add(self, code: str, where: tuple[str | int, ...], message: str) -> None:
        path = pointer(("steps", self.position, *where))
        self.found.append((self.position, DraftProblem(code, self.step.key, path, message)))


def _check_kind(at: _Step) -> None:
    step = at.step
    if step.kind not in _KINDS:
        at.add("draft.unknown_kind", ("kind",), f"unknown step kind {step.kind!r}")
        return
    kind = StepKind(step.kind)
    if kind is StepKind.CAPABILITY:
        if step.capability is None:
            at.add("draft.spec_mismatch", ("capability",), "a capability step names no capability")
        stray = [m for m in _SPECS if getattr(step, m) is not None]
    else:
        wanted = _SPEC_OF_KIND[kind]
        if getattr(step, wanted) is None:
            at.add("draft.spec_mismatch", (wanted,), f"a {kind.value} step needs {wanted!r}")
        members = (*_CAPABILITY_MEMBERS, *_SPECS)
        stray = [m for m in members if m != wanted and getattr(step, m) is not None]
    if kind is not StepKind.CAPABILITY and step.expectation is not None:
        stray.append("expectation")
    if kind not in _PRECONDITIONED and step.precondition is not None:
        stray.append("precondition")
    for member in stray:
        message = f"a {kind.value} step may not have {member!r}"
        at.add("draft.spec_mismatch", (member,), message)


def _check_action(at: _Step) -> None:
    internal = at.step.internal
    if internal is not None and internal.action not in _ACTIONS:
        message = f"unknown internal action {internal.action!r}"
        at.add("draft.unknown_internal_action", ("internal", "action"), message)


def _check_use(base: tuple[str | int, ...], check: Check) -> _Use:
    return _Use("check", base, check.capability, check.target, check.params)


def _uses(step: StepSpec) -> Iterator[_Use]:
    if step.capability is not None:
        yield _Use("step", (), step.capability, step.target, step.params)
    if step.precondition is not None:
        yield _check_use(("precondition", "check"), step.precondition.check)
    if step.request is not None:
        yield _Use("request", ("request",), step.request.capability, None, None)
    if step.verify is not None:
        yield _check_use(("verify", "check"), step.verify.check)
    if step.monitor is not None:
        yield _check_use(("monitor", "check"), step.monitor.check)


def _check_target(at: _Step, use: _Use, capability: Capability) -> None:
    where = (*use.base, "target")
    rule = capability.target_rule
    if rule is TargetRule.NONE and use.target is not None:
        at.add("draft.target_mismatch", where, f"{use.name} takes no target")
    elif rule is TargetRule.PARAM:
        param = capability.target_param
        if use.target is None:
            at.add("draft.target_mismatch", where, f"{use.name} needs a target (params.{param})")
        elif (use.params or {}).get(str(param)) != use.target:
            message = f"target {use.target!r} differs from params.{param}"
            at.add("draft.target_mismatch", where, message)


def _check_as_check(at: _Step, use: _Use, capability: Capability) -> None:
    where = (*use.base, "capability")
    if not capability.read_only:
        at.add("draft.check_not_read_only", where, f"a check may not use {use.name}: not read-only")
    if capability.requires_approval:
        message = f"a check may not use {use.name}: it raises an approval prompt"
        at.add("draft.check_prompts", where, message)


def _check_capability(at: _Step, use: _Use, registry: CapabilityRegistry) -> None:
    where = (*use.base, "capability")
    capability = registry.get(use.name)
    if capability is None:
        at.add("draft.unknown_capability", where, f"no capability {use.name!r} is registered")
        return
    if registry.is_locked(use.name):
        at.add("draft.capability_locked", where, f"capability {use.name!r} is locked")
    if use.role == "request":
        _check_grant(at, capability)
        return
    for problem in registry.params_problems(use.name, use.params or {}):
        path = pointer(("steps", at.position, *use.base, "params")) + problem.path
        found = DraftProblem("draft.params_invalid", at.step.key, path, problem.message)
        at.found.append((at.position, found))
    _check_target(at, use, capability)
    if use.role == "check":
        _check_as_check(at, use, capability)


def _check_grant(at: _Step, capability: Capability) -> None:
    request = at.step.request
    if request is None:  # pragma: no cover - a request use comes from step.request
        return
    if _RISK_RANK[Risk(request.risk)] < _RISK_RANK[capability.risk]:
        message = f"risk {request.risk} is below {capability.name}'s declared {capability.risk}"
        at.add("draft.grant_risk_understated", ("request", "risk"), message)
    if request.duration_seconds > MAX_GRANT_SECONDS:
        message = f"a grant lasts at most {MAX_GRANT_SECONDS} s, not {request.duration_seconds}"
        at.add("draft.grant_too_long", ("request", "duration_seconds"), message)
    if not capability.read_only and "*" in request.target_pattern:
        message = (
            f"{capability.name} writes: name its targets instead of {request.target_pattern!r}"
        )
        at.add("draft.grant_unscoped", ("request", "target_pattern"), message)


def _check_prompting_step(at: _Step) -> None:
    if at.step.kind in (StepKind.VERIFY, StepKind.MONITOR) and at.step.require_approval:
        message = f"a {at.step.kind} step never raises an approval prompt"
        at.add("draft.check_prompts", ("require_approval",), message)


def _reaches(start: StepSpec, goal: str, first_by_key: Mapping[str, StepSpec]) -> bool:
    """Whether ``goal`` is among the (transitive) dependencies of ``start``."""
    seen: set[str] = set()
    stack = list(start.depends_on)
    while stack:
        key = stack.pop()
        if key == goal:
            return True
        if key in seen or key not in first_by_key:
            continue
        seen.add(key)
        stack.extend(first_by_key[key].depends_on)
    return False


def _check_verify(at: _Step, first_by_key: Mapping[str, StepSpec]) -> None:
    verify = at.step.verify
    if verify is None:
        return
    where = ("verify", "of")
    target = first_by_key.get(verify.of)
    if target is None:
        at.add("draft.verify_target_missing", where, f"verify.of names no step: {verify.of!r}")
    elif target.expectation is None:
        message = f"step {verify.of!r} has no expectation to verify"
        at.add("draft.verify_without_expectation", where, message)
    elif verify.of not in at.step.depends_on and not _reaches(at.step, verify.of, first_by_key):
        message = f"step {verify.of!r} is not among the dependencies of this step"
        at.add("draft.verify_not_dependency", where, message)
    elif (
        target.target is not None
        and verify.check.target is not None
        and verify.check.target != target.target
    ):
        message = (
            f"the check observes {verify.check.target!r}, but step {verify.of!r} acts on "
            f"{target.target!r}"
        )
        at.add("draft.verify_target_differs", ("verify", "check", "target"), message)


def _check_attempts(at: _Step, registry: CapabilityRegistry) -> None:
    attempts = at.step.max_attempts
    if not 1 <= attempts <= MAX_STEP_ATTEMPTS:
        message = f"max_attempts must be from 1 to {MAX_STEP_ATTEMPTS}, not {attempts}"
        at.add("draft.invalid_attempts", ("max_attempts",), message)
        return
    capability = registry.get(at.step.capability) if at.step.capability else None
    if attempts > 1 and capability is not None and not capability.idempotent:
        message = f"{capability.name} is not idempotent: a retry could act twice"
        at.add("draft.retry_not_idempotent", ("max_attempts",), message)


def _step_findings(
    position: int,
    step: StepSpec,
    first_by_key: Mapping[str, StepSpec],
    registry: CapabilityRegistry,
) -> list[Finding]:
    at = _Step(position, step)
    _check_kind(at)
    _check_action(at)
    for use in _uses(step):
        _check_capability(at, use, registry)
    _check_prompting_step(at)
    _check_verify(at, first_by_key)
    _check_attempts(at, registry)
    return at.found


def minimum_invocations(draft: PlanDraft) -> int:
    """Capability invocations the draft needs at least: one per capability step, precondition,
    verify and monitor (retries and polling only add to it)."""
    return sum(
        (s.capability is not None)
        + (s.precondition is not None)
        + (s.verify is not None)
        + (s.monitor is not None)
        for s in draft.steps
    )


def _budget_findings(draft: PlanDraft, end: int) -> Iterator[Finding]:
    budget, estimate = draft.budget.model_dump(), draft.estimate.model_dump()
    for name, value in estimate.items():
        if value < 0:
            message = f"estimate {name} may not be negative ({value})"
            path = pointer(("estimate", name))
            yield end, DraftProblem("draft.negative_estimate", None, path, message)
    estimate["capability_invocations"] = max(
        estimate["capability_invocations"], minimum_invocations(draft)
    )
    # zero means unlimited, except for invocations, where it means the default (section 1)
    budget["max_capability_invocations"] = (
        budget["max_capability_invocations"] or DEFAULT_MAX_INVOCATIONS
    )
    for name, estimated_name in _ESTIMATED.items():
        limit, estimated = budget[name], estimate[estimated_name]
        if limit > 0 and limit < estimated:
            message = f"budget {name} {limit} is below the estimate {estimated_name} {estimated}"
            path = pointer(("budget", name))
            yield end, DraftProblem("draft.budget_below_estimate", None, path, message)


def _plan_findings(draft: PlanDraft) -> Iterator[Finding]:
    end = len(draft.steps)
    for name, value in draft.budget.model_dump().items():
        if value < 0:
            message = f"budget {name} may not be negative ({value})"
            path = pointer(("budget", name))
            yield end, DraftProblem("draft.negative_budget", None, path, message)
    yield from _budget_findings(draft, end)
    if not draft.steps:
        yield end, DraftProblem("draft.empty", None, "/steps", "a plan needs at least one step")


@arguments(draft_argument_error, draft=PlanDraft, registry=CapabilityRegistry)
def validate_draft(draft: PlanDraft, registry: CapabilityRegistry) -> DraftReport:
    """Every broken rule of plans.md section 3 in ``draft``, checked against ``registry``.

    Returns a :class:`DraftReport` whose ``problems`` follow the order of the module table
    (by step position, then rule, then path; plan-level problems last) and whose ``ignored``
    is ``draft.ignored``. Never raises for a broken rule; :class:`DraftError`
    ``draft.invalid_argument`` when ``draft`` is not a :class:`PlanDraft` (read JSON with
    :func:`cerebri.plans.parse_draft` first) or ``registry`` not a CapabilityRegistry.
    """
    found = graph_findings(draft)
    first_by_key: dict[str, StepSpec] = {}
    for step in draft.steps:
        first_by_key.setdefault(step.key, step)
    for position, step in enumerate(draft.steps):
        found.extend(_step_findings(position, step, first_by_key, registry))
    found.extend(_plan_findings(draft))
    found.sort(key=finding_order(RULES))
    return DraftReport(tuple(problem for _, problem in found), draft.ignored)
