"""Preview: what the executor would decide for each step of a plan, without acting (plans.md 6).

:func:`preview_draft` previews a draft as if submitted now; :func:`preview_plan` a stored plan
in its current state. Neither invokes an adapter nor writes to the store (the stored plan is
read in one read-only pass), so the store stays byte-for-byte unchanged.

For each step, in draft order, the answer says ``allowed`` (it may act when its turn comes)
and ``why``, from the same rules the runner applies when the step is claimed: a closed plan,
an invalid draft, origin ``dream`` and a disabled sandbox never act; the capability must be
registered and not locked, and this worker's adapters must carry it out (when ``adapters`` is
given); effects that need approval wait for one (``needs_approval``); a capability that is
neither read-only nor allowed by default nor approved needs a grant; checks are read-only.
Preconditions and verifications are not evaluated: they observe the world when the step
runs. The plan's budget is compared with the draft's minimum number of invocations.
"""

from __future__ import annotations

from types import NoneType
from typing import Any

from cerebri._guard import arguments
from cerebri._json import JSONValue
from cerebri.execution._rows import loads
from cerebri.execution.adapters import Adapters
from cerebri.execution.claims import invocation_limit
from cerebri.execution.context import Executor
from cerebri.execution.errors import ExecutionError, execution_argument_error
from cerebri.execution.store import plans as plan_store
from cerebri.execution.store import sandboxes as sandbox_store
from cerebri.execution.store import steps as step_store
from cerebri.execution.submit import limits_of
from cerebri.plans import (
    TERMINAL_STEP_STATUSES,
    CapabilityRegistry,
    InternalAction,
    Origin,
    PlanDraft,
    PlanStatus,
    StepKind,
    StepSpec,
    StepStatus,
    builtin_registry,
    is_open,
    parse_draft,
    validate_draft,
)
from cerebri.plans.parse import DraftSource
from cerebri.plans.validate import minimum_invocations

__all__ = ["preview_draft", "preview_plan"]

_TERMINAL = frozenset(s.value for s in TERMINAL_STEP_STATUSES)


def _capability_decision(
    spec: StepSpec,
    registry: CapabilityRegistry,
    adapters: Adapters | None,
    plan_requires_approval: bool,
    gates: tuple[str, ...] = (),
) -> tuple[bool, str]:
    name = spec.capability or ""
    capability = registry.get(name)
    if capability is None:
        return False, f"capability.unknown: {name} is not registered"
    if registry.is_locked(name):
        return False, f"capability.locked: {name} is locked"
    if adapters is not None and adapters.get(name) is None:
        return False, f"no_adapter: this worker cannot carry out {name}"
    acts = not capability.read_only
    if gates and acts and not spec.require_approval:
        named = ", ".join(gates)
        return True, f"needs_approval: acts on the approval of {named}, given before it"
    if spec.require_approval or capability.requires_approval or (plan_requires_approval and acts):
        return True, f"needs_approval: {name} acts only after a person approves this step"
    if capability.read_only:
        return True, f"allowed: {name} only reads"
    if capability.allowed_by_default:
        return True, f"allowed: {name} is allowed by default"
    return False, f"capability.not_granted: {name} needs a grant from a request_capability step"


def _kind_decision(spec: StepSpec) -> str:
    if spec.verify is not None:
        v = spec.verify
        return (
            f"allowed: observes {v.check.capability} every {v.interval_seconds} s for up to "
            f"{v.within_seconds} s to confirm {v.of}"
        )
    if spec.wait is not None:
        return f"allowed: waits {spec.wait.seconds} s"
    if spec.monitor is not None:
        m = spec.monitor
        return (
            f"allowed: checks every {m.interval_seconds} s until it holds {m.stable_seconds} s, "
            f"at most {m.deadline_seconds} s"
        )
    if spec.internal is not None and spec.internal.action == InternalAction.AWAIT_APPROVAL:
        who = spec.approver or "an approver other than the requester"
        return f"needs_approval: asks {who}; the effects after it act on that approval"
    if spec.internal is not None:
        return f"allowed: internal {spec.internal.action}"
    if spec.request is not None:
        return f"needs_approval: asks for a grant of {spec.request.capability}"
    return "allowed"


def _decide(
    spec: StepSpec,
    *,
    registry: CapabilityRegistry,
    adapters: Adapters | None,
    refusal: str | None,
    plan_requires_approval: bool,
    sandbox_blocks: str | None,
    gates: tuple[str, ...] = (),
) -> dict[str, JSONValue]:
    acts = False
    if spec.kind == StepKind.CAPABILITY:
        declared = registry.get(spec.capability or "")
        acts = declared is not None and not declared.read_only
    if refusal is not None:
        allowed, why = False, refusal
    elif acts and sandbox_blocks is not None:
        allowed, why = False, sandbox_blocks
    elif spec.kind == StepKind.CAPABILITY:
        allowed, why = _capability_decision(spec, registry, adapters, plan_requires_approval, gates)
    else:
        allowed, why = True, _kind_decision(spec)
    notes: list[JSONValue] = []
    if spec.precondition is not None:
        skip = "already holds" if spec.precondition.satisfied_if_false else "does not hold"
        notes.append(f"skipped when its precondition {skip} (checked when it runs)")
    if spec.expectation is not None:
        notes.append(
            f"its expectation becomes a prediction due {spec.expectation.within_seconds} s "
            "after it completes"
        )
    return {
        "key": spec.key,
        "kind": spec.kind,
        "capability": spec.capability,
        "depends_on": list(spec.depends_on),
        "allowed": allowed,
        "why": why,
        "notes": notes,
    }


def _gates_before(draft: PlanDraft, spec: StepSpec) -> tuple[str, ...]:
    """The approval gates (``await_approval`` steps, decision 0076) ``spec`` depends on,
    directly or through other steps, in draft order."""
    needs = {s.key: s.depends_on for s in draft.steps}
    seen: set[str] = set()
    todo = list(spec.depends_on)
    while todo:
        key = todo.pop()
        if key not in seen:
            seen.add(key)
            todo.extend(needs.get(key, ()))
    return tuple(
        s.key
        for s in draft.steps
        if s.key in seen
        and s.internal is not None
        and s.internal.action == InternalAction.AWAIT_APPROVAL
    )


def _plan_refusal(origin: Origin, status: str) -> str | None:
    if status == PlanStatus.DRAFT.value:
        return "draft: the plan failed validation and never runs"
    if not is_open(PlanStatus(status)):
        return f"plan {status}: it no longer acts"
    if origin is Origin.DREAM:
        return "origin_dream: a dream plan never acts"
    return None


def _budget(draft: PlanDraft, used: int) -> dict[str, JSONValue]:
    limit = invocation_limit(limits_of(draft))
    needed = minimum_invocations(draft)
    return {
        "max_capability_invocations": limit,
        "used": used,
        "minimum_needed": needed,
        "enough": used + needed <= limit,
    }


@arguments(
    execution_argument_error,
    registry=(CapabilityRegistry, NoneType),
    adapters=(Adapters, NoneType),
    sandbox_enabled=(bool, NoneType),
)
def preview_draft(
    source: DraftSource | PlanDraft,
    *,
    registry: CapabilityRegistry | None = None,
    adapters: Adapters | None = None,
    sandbox_enabled: bool | None = None,
) -> dict[str, JSONValue]:
    """What the executor would decide for each step of ``source`` if it were submitted now,
    against ``registry`` (default: the built-in capabilities); no store is needed.

    ``sandbox_enabled``: ``False`` previews it in a disabled sandbox. Returns ``{"plan":
    {"status", "valid", "problems", "budget"}, "steps": [{"key", "kind", "capability",
    "depends_on", "allowed", "why", "notes"}]}``. Raises :class:`~cerebri.plans.DraftError`
    when ``source`` is not a draft at all. Reads nothing and writes nothing.
    """
    registry = registry or builtin_registry()
    draft = source if isinstance(source, PlanDraft) else parse_draft(source)
    report = validate_draft(draft, registry)
    status = PlanStatus.VALIDATED if report.valid else PlanStatus.DRAFT
    refusal = _plan_refusal(draft.origin, status.value)
    blocks = "sandbox_disabled: the sandbox is disabled" if sandbox_enabled is False else None
    decisions: list[JSONValue] = [
        _decide(
            spec,
            registry=registry,
            adapters=adapters,
            refusal=refusal,
            plan_requires_approval=draft.require_approval,
            sandbox_blocks=blocks,
            gates=_gates_before(draft, spec),
        )
        for spec in draft.steps
    ]
    wire = report.to_wire()
    return {
        "plan": {
            "status": status.value,
            "valid": report.valid,
            "problems": wire.get("problems", []),
            "budget": _budget(draft, 0),
        },
        "steps": decisions,
    }


@arguments(execution_argument_error, executor=Executor, plan_id=str, adapters=(Adapters, NoneType))
def preview_plan(
    executor: Executor, plan_id: str, *, adapters: Adapters | None = None
) -> dict[str, JSONValue]:
    """What the executor would decide for each step of stored plan ``plan_id`` now.

    Like :func:`preview_draft`, plus each step's current ``status``; a step already terminal
    is ``allowed: false`` with why ``done: <status>``, one waiting for approval says so.
    Raises :class:`ExecutionError` ``execution.not_found``. Only reads.
    """
    with executor.engine.connect() as connection:
        plan = plan_store.find(connection, plan_id)
        if plan is None:
            raise ExecutionError(f"no plan {plan_id!r}", code="execution.not_found")
        rows = step_store.of_plan(connection, plan_id)
        enabled = None
        if plan.sandbox is not None:
            enabled = sandbox_store.enabled(connection, plan.sandbox)
        connection.rollback()
    draft = PlanDraft.model_validate(loads(plan.draft))
    refusal = _plan_refusal(draft.origin, plan.status)
    blocks = f"sandbox_disabled: sandbox {plan.sandbox} is disabled" if enabled is False else None
    state: dict[str, Any] = {r.key: r for r in rows}
    decisions: list[JSONValue] = []
    for spec in draft.steps:
        decision = _decide(
            spec,
            registry=executor.registry,
            adapters=adapters,
            refusal=refusal,
            plan_requires_approval=draft.require_approval,
            sandbox_blocks=blocks,
            gates=_gates_before(draft, spec),
        )
        row = state.get(spec.key)
        if row is not None:
            decision["status"] = row.status
            if row.status in _TERMINAL:
                decision.update(allowed=False, why=f"done: {row.status}")
            elif row.status in (StepStatus.BLOCKED.value, StepStatus.AWAITING_APPROVAL.value):
                decision["why"] = f"{row.status}: {row.status_reason}"
        decisions.append(decision)
    return {
        "plan": {
            "id": plan.id,
            "status": plan.status,
            "status_reason": plan.status_reason,
            "valid": plan.status != PlanStatus.DRAFT.value,
            "problems": (loads(plan.validation) or {}).get("problems", []),
            "budget": _budget(draft, int(plan.invocations)),
        },
        "steps": decisions,
    }
