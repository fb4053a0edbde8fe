"""How a step's outcome moves its plan forward, inside the transaction that records it.

Every function here runs in the caller's transaction and changes a step only by a
conditional update on the caller's lease token (:class:`~cerebri.execution.claims.LeaseLostError`
otherwise, which rolls the whole transaction back). Terminal step statuses are final: no
statement here matches a row in ``completed``, ``skipped``, ``failed`` or ``cancelled``.

* :func:`finish` ends a step (``completed``/``skipped``/``failed``) and moves its attempt to
  history; a done step readies the dependants whose last dependency it was; the plan's
  ``open_steps`` counts down and at zero the plan completes (intention fulfilled unless the
  strategy was an escalation; a procedural memory is stored).
* :func:`park` releases the lease and leaves the step ``ready``/``waiting`` (due at
  ``next_run_at``) or ``awaiting_approval``/``awaiting_grant``/``blocked`` (not due).
* :func:`stop_plan` closes a plan: a failure replans when the replan limit and the strategies
  left allow (a new revision supersedes it, its open approvals are withdrawn, its steps
  cancelled); otherwise the plan is ``failed``/``abandoned`` and its intention abandoned.
"""

from __future__ import annotations

from typing import Any, Final

from sqlalchemy import Connection, and_, insert, select, update

from cerebri._json import JSONValue
from cerebri.execution._rows import dumps, loads
from cerebri.execution.claims import Attempt, Claim, LeaseLostError, close_attempt
from cerebri.execution.context import Executor
from cerebri.execution.store.schema import (
    approvals,
    attempts,
    intentions,
    plans,
    procedural_memories,
    steps,
)
from cerebri.execution.store.vocabulary import ApprovalStatus, AttemptOutcome, IntentionStatus
from cerebri.execution.submit import insert_revision
from cerebri.plans import (
    OPEN_PLAN_STATUSES,
    TERMINAL_STEP_STATUSES,
    PlanDraft,
    PlanStatus,
    StepStatus,
    Strategy,
    fulfils_intention,
)

__all__ = ["finish", "park", "stop_plan"]

_OPEN = tuple(s.value for s in OPEN_PLAN_STATUSES)
_TERMINAL = tuple(s.value for s in TERMINAL_STEP_STATUSES)
_DUE: Final = frozenset({StepStatus.READY, StepStatus.WAITING})


def _ours(held: Claim) -> Any:
    return and_(
        steps.c.id == held.step_id,
        steps.c.lease_token == held.token,
        steps.c.status == StepStatus.EXECUTING.value,
    )


def _released(held: Claim, connection: Connection, now: int, **values: Any) -> None:
    """Update our step row and release the lease, or raise LeaseLostError."""
    result = connection.execute(
        update(steps)
        .where(_ours(held))
        .values(lease_token=None, lease_until=None, updated_at=now, **values)
    )
    if result.rowcount != 1:
        raise LeaseLostError(held.step_id)


def park(
    connection: Connection,
    executor: Executor,
    held: Claim,
    status: StepStatus,
    *,
    next_run_at: int | None = None,
    reason: str | None = None,
    outcome: AttemptOutcome = AttemptOutcome.COMPLETED,
    result: JSONValue = None,
    error: JSONValue = None,
    **values: Any,
) -> None:
    """Release the lease leaving the step non-terminal: ``ready``/``waiting`` need
    ``next_run_at`` (ns); any other status has none. The attempt goes to history."""
    now = executor.now_ns()
    if (status in _DUE) != (next_run_at is not None):
        raise ValueError(f"{status} needs next_run_at exactly when it is ready or waiting")
    _released(
        held,
        connection,
        now,
        status=status.value,
        next_run_at=next_run_at,
        status_reason=reason,
        **values,
    )
    close_attempt(connection, held.attempt, held.step_id, outcome, now, result=result, error=error)


def _ready_dependants(connection: Connection, dependants: list[str], now: int) -> None:
    if not dependants:
        return
    connection.execute(
        update(steps)
        .where(steps.c.id.in_(dependants), steps.c.status == StepStatus.PENDING.value)
        .values(remaining_deps=steps.c.remaining_deps - 1, updated_at=now)
    )
    connection.execute(
        update(steps)
        .where(
            steps.c.id.in_(dependants),
            steps.c.status == StepStatus.PENDING.value,
            steps.c.remaining_deps <= 0,
        )
        .values(status=StepStatus.READY.value, next_run_at=now, updated_at=now)
    )


def _count_down(connection: Connection, plan_id: str, closed: int) -> int:
    """Subtract ``closed`` from the plan's open steps; the count left."""
    row = connection.execute(
        update(plans)
        .where(plans.c.id == plan_id)
        .values(open_steps=plans.c.open_steps - closed)
        .returning(plans.c.open_steps)
    ).one()
    return int(row.open_steps)


def finish(
    connection: Connection,
    executor: Executor,
    held: Claim,
    status: StepStatus,
    *,
    reason: str | None = None,
    result: JSONValue = None,
    observation: JSONValue = None,
    error: JSONValue = None,
    outcome: AttemptOutcome | None = None,
    **values: Any,
) -> None:
    """End the step in ``status`` (terminal). ``failed`` stops the plan (:func:`stop_plan`,
    replanning allowed); ``completed``/``skipped`` ready its dependants and may complete
    the plan."""
    now = executor.now_ns()
    _released(
        held,
        connection,
        now,
        status=status.value,
        next_run_at=None,
        status_reason=reason,
        result=None if result is None else dumps(result),
        observation=None if observation is None else dumps(observation),
        error=None if error is None else dumps(error),
        finished_at=now,
        **values,
    )
    if outcome is None:
        outcome = AttemptOutcome.FAILED if status is StepStatus.FAILED else AttemptOutcome.COMPLETED
    close_attempt(connection, held.attempt, held.step_id, outcome, now, result=result, error=error)
    left = _count_down(connection, held.plan_id, 1)
    if status is StepStatus.FAILED:
        stop_plan(connection, executor, held.plan_id, PlanStatus.FAILED, reason or "step failed")
        return
    dependants = loads(
        connection.execute(select(steps.c.dependants).where(steps.c.id == held.step_id)).scalar()
    )
    _ready_dependants(connection, list(dependants or ()), now)
    if left == 0:
        _complete_plan(connection, executor, held.plan_id, now)


def _complete_plan(connection: Connection, executor: Executor, plan_id: str, now: int) -> None:
    plan = connection.execute(select(plans).where(plans.c.id == plan_id)).one()
    if plan.status not in _OPEN:
        return
    draft = PlanDraft.model_validate(loads(plan.draft))
    try:
        fulfils = fulfils_intention(Strategy(draft.strategy))
    except ValueError:
        fulfils = True  # a strategy outside the deterministic three (a model's, an operator's)
    connection.execute(
        update(plans)
        .where(plans.c.id == plan_id, plans.c.status.in_(_OPEN))
        .values(
            status=PlanStatus.COMPLETED.value,
            status_reason=None
            if fulfils
            else "escalation completed: the intention is not fulfilled, the operator was informed",
            closed_at=now,
            updated_at=now,
        )
    )
    intention = connection.execute(
        select(intentions).where(intentions.c.id == plan.intention_id)
    ).one()
    if fulfils:
        connection.execute(
            update(intentions)
            .where(intentions.c.id == intention.id, intentions.c.status == "open")
            .values(status=IntentionStatus.FULFILLED.value, closed_at=now, updated_at=now)
        )
        goal = loads(intention.goal) or {}
        connection.execute(
            insert(procedural_memories).values(
                id=executor.ids.new_id(),
                plan_id=plan_id,
                intention_id=intention.id,
                goal_key=goal.get("goal_key") or draft.objective,
                steps=dumps(draft.to_wire()),
                created_at=now,
            )
        )
    else:
        connection.execute(
            update(intentions)
            .where(intentions.c.id == intention.id)
            .values(
                status_reason=f"plan {plan_id} ({draft.strategy}) completed without fulfilling it",
                updated_at=now,
            )
        )


def _cancel_open_steps(connection: Connection, plan_id: str, now: int, reason: str) -> int:
    """Cancel the plan's steps not yet terminal; the open attempt of one that was executing
    goes to history (``interrupted``, or the outcome it saved), as no worker can record it."""
    running = connection.execute(
        select(attempts)
        .join(steps, steps.c.id == attempts.c.step_id)
        .where(steps.c.plan_id == plan_id, steps.c.status.not_in(_TERMINAL))
    ).all()
    for row in running:
        attempt = Attempt(
            id=row.id,
            number=row.number,
            lease_token=row.lease_token,
            worker_id=row.worker_id,
            idempotency_key=row.idempotency_key,
            started_at=row.started_at,
            invoked_at=row.invoked_at,
            outcome=row.outcome,
            result=loads(row.result),
            error=loads(row.error),
        )
        close_attempt(
            connection,
            attempt,
            row.step_id,
            AttemptOutcome(row.outcome) if row.outcome else AttemptOutcome.INTERRUPTED,
            now,
            result=attempt.result,
            error=attempt.error or {"code": "plan.stopped", "message": reason},
        )
    result = connection.execute(
        update(steps)
        .where(steps.c.plan_id == plan_id, steps.c.status.not_in(_TERMINAL))
        .values(
            status=StepStatus.CANCELLED.value,
            status_reason=reason,
            lease_token=None,
            lease_until=None,
            next_run_at=None,
            finished_at=now,
            updated_at=now,
        )
    )
    return int(result.rowcount)


def _withdraw_open_approvals(connection: Connection, plan_id: str, now: int, reason: str) -> None:
    withdrawn = connection.execute(
        update(approvals)
        .where(approvals.c.plan_id == plan_id, approvals.c.status == ApprovalStatus.OPEN.value)
        .values(status=ApprovalStatus.WITHDRAWN.value, status_reason=reason, decided_at=now)
        .returning(approvals.c.step_id)
    ).all()
    waiting = [row.step_id for row in withdrawn if row.step_id is not None]
    if waiting:
        connection.execute(
            update(intentions)
            .where(intentions.c.parent_step_id.in_(waiting), intentions.c.status == "open")
            .values(
                status=IntentionStatus.ABANDONED.value,
                status_reason=reason,
                closed_at=now,
                updated_at=now,
            )
        )


def _failed_strategies(connection: Connection, intention_id: str) -> frozenset[str]:
    rows = connection.execute(
        select(plans.c.limits).where(
            plans.c.intention_id == intention_id,
            plans.c.status.in_((PlanStatus.FAILED.value, PlanStatus.SUPERSEDED.value)),
        )
    ).all()
    return frozenset(str((loads(r.limits) or {}).get("strategy")) for r in rows)


def stop_plan(
    connection: Connection,
    executor: Executor,
    plan_id: str,
    status: PlanStatus,
    reason: str,
    *,
    replan: bool = True,
) -> str | None:
    """Close an open plan as ``status`` (``failed`` or ``abandoned``) for ``reason``; with
    ``replan`` and a failure, write the next revision instead when one is allowed. Returns
    the new revision's plan id, or ``None``. A plan already closed is left alone."""
    now = executor.now_ns()
    plan = connection.execute(select(plans).where(plans.c.id == plan_id)).one()
    if plan.status not in _OPEN:
        return None
    intention = connection.execute(
        select(intentions).where(intentions.c.id == plan.intention_id)
    ).one()
    successor: str | None = None
    final_reason = reason
    if replan and status is PlanStatus.FAILED:
        draft = PlanDraft.model_validate(loads(plan.draft))
        failed = _failed_strategies(connection, intention.id) | {draft.strategy}
        if plan.revision - 1 >= plan.max_replans:
            final_reason = f"{reason}; max_replans ({plan.max_replans}) reached"
        else:
            following = executor.replanner(loads(intention.goal) or {}, draft, failed)
            if following is None:
                final_reason = f"{reason}; no strategy left that has not failed"
            else:
                # the superseded status must be written before the new revision is inserted
                connection.execute(
                    update(plans)
                    .where(plans.c.id == plan_id)
                    .values(status=PlanStatus.REPLANNING.value, updated_at=now)
                )
                successor, _, _ = insert_revision(
                    connection,
                    executor,
                    intention_id=intention.id,
                    draft=following,
                    revision=plan.revision + 1,
                    supersedes=plan_id,
                    requester=plan.requester,
                    sandbox=plan.sandbox,
                    max_replans=plan.max_replans,
                )
    closing = PlanStatus.SUPERSEDED if successor else status
    why = f"{reason}; replanned as revision {plan.revision + 1}" if successor else final_reason
    closed = _cancel_open_steps(connection, plan_id, now, f"plan {closing.value}: {why}")
    _withdraw_open_approvals(connection, plan_id, now, f"plan {closing.value}: {why}")
    connection.execute(
        update(plans)
        .where(plans.c.id == plan_id)
        .values(
            status=closing.value,
            status_reason=why,
            superseded_by=successor,
            open_steps=plans.c.open_steps - closed,
            closed_at=now,
            updated_at=now,
        )
    )
    if successor is None:
        connection.execute(
            update(intentions)
            .where(intentions.c.id == intention.id, intentions.c.status == "open")
            .values(
                status=IntentionStatus.ABANDONED.value,
                status_reason=why,
                closed_at=now,
                updated_at=now,
            )
        )
    return successor
