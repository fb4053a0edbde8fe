"""Submitting a plan: validated first, stored as one revision with its steps (plans.md 3, 5).

:func:`submit` writes, in one transaction, an intention (unless an open one is named), the
plan revision and its steps. A draft that fails validation is stored with status ``draft``
and its report, has no steps and never runs. A valid draft is ``validated``: steps without
dependencies are ``ready`` and due at once, the others ``pending`` with the count of
dependencies still to finish. A plan of origin ``dream`` is stored ``validated`` with every
step ``pending`` and nothing due: it can be previewed but never acts.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import NoneType
from typing import Any

from cerebri._guard import arguments
from cerebri._json import JSONValue
from cerebri.execution._rows import dumps, loads
from cerebri.execution.context import NS, Executor
from cerebri.execution.errors import ExecutionError, execution_argument_error
from cerebri.execution.principals import principal_id
from cerebri.execution.store import intentions as intention_store
from cerebri.execution.store import plans as plan_store
from cerebri.execution.store import sandboxes as sandbox_store
from cerebri.execution.store import steps as step_store
from cerebri.execution.store import timers as timer_store
from cerebri.execution.store.connection import Connection
from cerebri.execution.store.vocabulary import TimerKind
from cerebri.plans import (
    DEFAULT_MAX_REPLANS,
    CapabilityRegistry,
    DraftReport,
    Origin,
    PlanDraft,
    PlanStatus,
    StepKind,
    StepStatus,
    parse_draft,
    validate_draft,
)
from cerebri.plans.parse import DraftSource

__all__ = [
    "DEFAULT_REQUESTER",
    "Submitted",
    "insert_new_intention",
    "insert_revision",
    "limits_of",
    "submit",
]

DEFAULT_REQUESTER = "principal:local"
"""The principal recorded as requester when none is named (the local operator)."""


@dataclass(frozen=True, slots=True)
class Submitted:
    """What :func:`submit` stored: ids, the plan's status (``validated`` or ``draft``) and
    the validation report's wire form."""

    plan_id: str
    intention_id: str
    revision: int
    status: PlanStatus
    validation: dict[str, JSONValue]
    author: str | None = None
    envelope_digest: str | None = None
    replayed: bool = False

    def to_wire(self) -> dict[str, JSONValue]:
        """``{"plan_id", "intention_id", "revision", "status", "validation"}``, and for a
        plan taken in from an envelope also ``"author"``, ``"envelope_digest"`` and
        ``"replayed"`` (``true``: the same envelope was taken in before and this is that
        plan; nothing new was stored)."""
        wire: dict[str, JSONValue] = {
            "plan_id": self.plan_id,
            "intention_id": self.intention_id,
            "revision": self.revision,
            "status": self.status.value,
            "validation": self.validation,
        }
        if self.envelope_digest is not None:
            wire.update(
                author=self.author, envelope_digest=self.envelope_digest, replayed=self.replayed
            )
        return wire


def limits_of(draft: PlanDraft) -> dict[str, JSONValue]:
    """What the executor reads of a draft on every claim, kept apart from the (possibly
    large) draft: its budget, ``require_approval`` and ``strategy``."""
    return {
        "budget": draft.budget.to_wire(),
        "require_approval": draft.require_approval,
        "strategy": draft.strategy,
    }


def _idempotent(kind: str, capability: str | None, registry: CapabilityRegistry) -> bool:
    """Capability steps are as idempotent as their capability; every other kind only reads
    or changes the store in one transaction, so repeating it is harmless."""
    if kind != StepKind.CAPABILITY or capability is None:
        return True
    declared = registry.get(capability)
    return declared is not None and declared.idempotent


def insert_revision(
    connection: Connection,
    executor: Executor,
    *,
    intention_id: str,
    draft: PlanDraft,
    revision: int,
    supersedes: str | None,
    requester: str,
    sandbox: str | None,
    max_replans: int,
    provenance: Mapping[str, Any] | None = None,
) -> tuple[str, PlanStatus, DraftReport]:
    """Insert one plan revision and, when its draft is valid, its steps. Returns the plan's
    id, status and validation report. Runs inside the caller's transaction. ``provenance``
    holds the ``author``, ``envelope_digest`` and ``envelope_expires_at`` (ns) of the
    envelope the plan came from (decision 0023), carried on to later revisions."""
    now = executor.now_ns()
    report = validate_draft(draft, executor.registry)
    plan_id = executor.ids.new_id()
    status = PlanStatus.VALIDATED if report.valid else PlanStatus.DRAFT
    dream = draft.origin is Origin.DREAM
    reason = None
    if not report.valid:
        reason = "validation failed: a draft never runs"
    elif dream:
        reason = "origin dream: it can be previewed, it never acts"
    step_ids = {step.key: executor.ids.new_id() for step in draft.steps} if report.valid else {}
    plan_store.add_revision(
        connection,
        id=plan_id,
        intention_id=intention_id,
        revision=revision,
        supersedes=supersedes,
        status=status.value,
        status_reason=reason,
        origin=draft.origin.value,
        max_replans=max_replans,
        draft=dumps(draft.to_wire()),
        validation=dumps(report.to_wire()),
        actual=None,
        created_at=now,
        updated_at=now,
        requester=requester,
        sandbox=sandbox,
        limits=dumps(limits_of(draft)),
        open_steps=len(step_ids),
        author=(provenance or {}).get("author"),
        envelope_digest=(provenance or {}).get("envelope_digest"),
        envelope_expires_at=(provenance or {}).get("envelope_expires_at"),
    )
    wall = draft.budget.max_wall_seconds
    if report.valid and not dream and wall > 0:
        timer_store.add(
            connection,
            executor.ids.new_id(),
            TimerKind.WALL_DEADLINE,
            plan_id,
            due_at=now + wall * NS,
            now=now,
        )
    if step_ids:
        dependants: dict[str, list[str]] = {key: [] for key in step_ids}
        for step in draft.steps:
            for key in step.depends_on:
                dependants[key].append(step_ids[step.key])
        rows = []
        for position, step in enumerate(draft.steps):
            ready = not step.depends_on and not dream
            rows.append(
                {
                    "id": step_ids[step.key],
                    "plan_id": plan_id,
                    "key": step.key,
                    "position": position,
                    "kind": step.kind,
                    "status": (StepStatus.READY if ready else StepStatus.PENDING).value,
                    "attempts": 0,
                    "max_attempts": step.max_attempts,
                    "idempotent": _idempotent(step.kind, step.capability, executor.registry),
                    "next_run_at": now if ready else None,
                    "updated_at": now,
                    "spec": dumps(step.to_wire()),
                    "remaining_deps": len(step.depends_on),
                    "dependants": dumps(list(dependants[step.key])),
                    "attempt_group": 1,
                }
            )
        step_store.add_all(connection, rows)
    return plan_id, status, report


def _check_sandbox(connection: Connection, sandbox: str | None) -> None:
    if sandbox is None:
        return
    if sandbox_store.get(connection, sandbox) is None:
        raise ExecutionError(
            f"no sandbox {sandbox!r}: create it with `cerebri sandbox enable {sandbox}`",
            code="execution.not_found",
        )


@arguments(
    execution_argument_error,
    executor=Executor,
    requester=str,
    goal_key=(str, NoneType),
    alternatives=Iterable,
    sandbox=(str, NoneType),
    max_replans=int,
)
def submit(
    executor: Executor,
    source: DraftSource | PlanDraft,
    *,
    requester: str = DEFAULT_REQUESTER,
    goal_key: str | None = None,
    alternatives: Iterable[DraftSource | PlanDraft] = (),
    sandbox: str | None = None,
    max_replans: int = DEFAULT_MAX_REPLANS,
) -> Submitted:
    """Validate a draft and store it as revision 1 of a new intention, in one transaction.

    ``source`` is a :class:`~cerebri.plans.PlanDraft` or its JSON (bytes, text or object,
    read strictly by :func:`~cerebri.plans.parse_draft`). ``alternatives`` are drafts of
    other strategies for the same intention, kept in its goal for replanning
    (:func:`~cerebri.execution.replan.alternatives_replanner`). ``goal_key`` names what the
    intention is for; a completed plan is remembered under it (procedural memory).
    ``sandbox`` must exist (``cerebri sandbox enable``).

    Raises :class:`~cerebri.plans.DraftError` (``draft.schema``, ``json.*``) when a source is
    not a draft at all, before anything is stored; :class:`ExecutionError`
    ``execution.not_found`` for an unknown sandbox, ``execution.invalid_argument`` for a
    negative ``max_replans``, ``execution.invalid_principal`` for a requester that is not
    ``principal:<name>``/``agent:<name>`` (stored in canonical form). A draft that breaks
    the rules of plans.md section 3 is not an error: it is stored with status ``draft`` and
    never runs.
    """
    if not isinstance(max_replans, int) or isinstance(max_replans, bool) or max_replans < 0:
        raise ExecutionError(
            f"max_replans must be a whole number >= 0, not {max_replans!r}",
            code="execution.invalid_argument",
        )
    requester = principal_id(requester)
    draft = source if isinstance(source, PlanDraft) else parse_draft(source)
    others = [a if isinstance(a, PlanDraft) else parse_draft(a) for a in alternatives]
    goal: dict[str, JSONValue] = {"objective": draft.objective, "goal_key": goal_key}
    if others:
        goal["alternatives"] = [a.to_wire() for a in others]
    with executor.transaction() as connection:
        return insert_new_intention(
            connection,
            executor,
            draft,
            goal,
            requester=requester,
            sandbox=sandbox,
            max_replans=max_replans,
        )


def insert_new_intention(
    connection: Connection,
    executor: Executor,
    draft: PlanDraft,
    goal: dict[str, JSONValue],
    *,
    requester: str,
    sandbox: str | None,
    max_replans: int,
    provenance: Mapping[str, Any] | None = None,
) -> Submitted:
    """Inside the caller's transaction: a new open intention with ``goal`` and ``draft`` as
    its revision 1 (see :func:`insert_revision`)."""
    _check_sandbox(connection, sandbox)
    now = executor.now_ns()
    intention_id = executor.ids.new_id()
    intention_store.insert_open(
        connection, id=intention_id, goal=dumps(goal), created_at=now, updated_at=now
    )
    plan_id, status, report = insert_revision(
        connection,
        executor,
        intention_id=intention_id,
        draft=draft,
        revision=1,
        supersedes=None,
        requester=requester,
        sandbox=sandbox,
        max_replans=max_replans,
        provenance=provenance,
    )
    provenance = provenance or {}
    return Submitted(
        plan_id,
        intention_id,
        1,
        status,
        _wire(report),
        author=provenance.get("author"),
        envelope_digest=provenance.get("envelope_digest"),
    )


def _wire(report: DraftReport) -> dict[str, JSONValue]:
    wire: Mapping[str, Any] = loads(dumps(report.to_wire()))
    return dict(wire)
