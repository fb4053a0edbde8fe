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

from cerebri._json import JSONValue
from cerebri.execution._rows import dumps, loads
from cerebri.execution.claims import (
    Claim,
    LeaseLostError,
    close_attempt,
)
from cerebri.execution.context import Executor
from cerebri.execution.store import approvals as approval_store
from cerebri.execution.store import attempts as attempt_store
from cerebri.execution.store import intentions as intention_store
from cerebri.execution.store import knowledge
from cerebri.execution.store import plans as plan_store
from cerebri.execution.store import steps as step_store
from cerebri.execution.store.connection import Connection
from cerebri.execution.store.dialect import is_postgresql
from cerebri.execution.store.transitions import OPEN_STEP_STATUSES
from cerebri.execution.store.vocabulary import AttemptOutcome, IntentionStatus
from cerebri.execution.submit import insert_revision
from cerebri.plans import (
    OPEN_PLAN_STATUSES,
    PlanDraft,
    PlanStatus,
    StepStatus,
    Strategy,
    fulfils_intention,
)

__all__ = [
    "complete_plan",
    "complete_unleased",
    "finish",
    "finish_in_one_statement",
    "park",
    "stop_plan",
]

_OPEN = tuple(s.value for s in OPEN_PLAN_STATUSES)
_DUE: Final = frozenset({StepStatus.READY, StepStatus.WAITING})
_DONE: Final = frozenset({StepStatus.COMPLETED, StepStatus.SKIPPED})


def _released(
    held: Claim, connection: Connection, now: int, target: StepStatus, **values: Any
) -> Any:
    """Move our ``executing`` step to ``target`` and release the lease, or raise
    LeaseLostError. Returns the step's ``dependants`` (JSON text)."""
    row = step_store.release(connection, held.step_id, held.token, target, now, **values)
    if row is None:
        raise LeaseLostError(held.step_id)
    return row.dependants


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
    adopted: bool = False,
    **values: Any,
) -> None:
    """Release the lease leaving the step non-terminal: ``ready``/``waiting`` need
    ``next_run_at`` (ns); any other status has none. The attempt goes to history, unless
    ``adopted`` (a takeover that adopted a saved outcome: its own attempt is discarded,
    decision 0066)."""
    now = executor.now_ns()
    if (status in _DUE) != (next_run_at is not None):
        raise ValueError(f"{status} needs next_run_at exactly when it is ready or waiting")
    _released(
        held,
        connection,
        now,
        status,
        next_run_at=next_run_at,
        status_reason=reason,
        **values,
    )
    _end_attempt(connection, held, outcome, now, result=result, error=error, adopted=adopted)


def _end_attempt(
    connection: Connection,
    held: Claim,
    outcome: AttemptOutcome,
    now: int,
    *,
    result: JSONValue,
    error: JSONValue,
    adopted: bool,
) -> None:
    """Write the claim's attempt to history with ``outcome``; an adopting takeover's attempt
    did nothing of its own and is discarded instead (decision 0066): the adopted attempt,
    already closed with the saved outcome, is the step's one attempt with that outcome."""
    if adopted:
        attempt_store.discard(connection, held.attempt, held.step_id)
        return
    close_attempt(connection, held.attempt, held.step_id, outcome, now, result=result, error=error)


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
    adopted: bool = False,
    **values: Any,
) -> None:
    """End the step in ``status`` (terminal). ``failed`` stops the plan (:func:`stop_plan`,
    replanning allowed); ``completed``/``skipped`` ready its dependants and may complete
    the plan. ``adopted``: as for :func:`park`."""
    now = executor.now_ns()
    dependants = _released(
        held,
        connection,
        now,
        status,
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
    _end_attempt(connection, held, outcome, now, result=result, error=error, adopted=adopted)
    left = plan_store.count_down(connection, held.plan_id, 1)
    if status is StepStatus.FAILED:
        stop_plan(connection, executor, held.plan_id, PlanStatus.FAILED, reason or "step failed")
        return
    step_store.ready_dependants(connection, list(loads(dependants) or ()), now)
    if left == 0:
        complete_plan(connection, executor, held.plan_id, now)


def finish_in_one_statement(
    executor: Executor,
    held: Claim,
    status: StepStatus,
    *,
    reason: str | None = None,
    result: JSONValue = None,
    observation: JSONValue = None,
) -> bool:
    """PostgreSQL's fast path of :func:`finish` for ``completed``/``skipped`` with nothing
    else to write (no prediction, no money, no refund): one round trip in autocommit.
    Returns ``False`` when the store is not PostgreSQL (use :func:`finish`); raises
    :class:`LeaseLostError` when the lease was lost."""
    if not is_postgresql(executor.engine) or status not in _DONE:
        return False
    now = executor.now_ns()
    left = step_store.finish_done(
        executor.engine,
        held.attempt,
        status,
        now,
        step_id=held.step_id,
        token=held.token,
        reason=reason,
        result=None if result is None else dumps(result),
        observation=None if observation is None else dumps(observation),
    )
    if left is None:
        raise LeaseLostError(held.step_id)
    if left == 0:
        with executor.transaction() as connection:
            complete_plan(connection, executor, held.plan_id, now)
    return True


def complete_unleased(
    connection: Connection,
    executor: Executor,
    step_id: str,
    *,
    from_status: StepStatus,
    result: JSONValue,
    reason: str,
) -> bool:
    """Complete a step that no worker holds (an operator settled it), if it is still in
    ``from_status``: like :func:`finish` with ``completed``, its dependants are readied and
    the plan may complete. Returns whether the step moved. Runs in the caller's transaction."""
    now = executor.now_ns()
    row = step_store.complete_unleased(
        connection, step_id, from_status, reason=reason, result=dumps(result), now=now
    )
    if row is None:
        return False
    left = plan_store.count_down(connection, row.plan_id, 1)
    step_store.ready_dependants(connection, list(loads(row.dependants) or ()), now)
    if left == 0:
        complete_plan(connection, executor, row.plan_id, now)
    return True


def complete_plan(connection: Connection, executor: Executor, plan_id: str, now: int) -> None:
    """Complete an open plan whose steps all ended done (no-op when it is closed already):
    its intention is fulfilled and the plan remembered, unless it was an escalation."""
    plan = plan_store.get(connection, plan_id)
    if plan.status not in _OPEN:
        return
    draft = PlanDraft.model_validate(loads(plan.draft))
    try:
        fulfils = fulfils_intention(Strategy(draft.strategy))
    except ValueError:
        fulfils = True  # a strategy outside the deterministic three (a model's, an operator's)
    plan_store.set_status(
        connection,
        plan_id,
        PlanStatus.COMPLETED,
        now,
        leaving=OPEN_PLAN_STATUSES,
        status_reason=None
        if fulfils
        else "escalation completed: the intention is not fulfilled, the operator was informed",
        closed_at=now,
    )
    intention = intention_store.get(connection, plan.intention_id)
    if fulfils:
        intention_store.close(connection, intention.id, IntentionStatus.FULFILLED, now)
        goal = loads(intention.goal) or {}
        knowledge.remember(
            connection,
            id=executor.ids.new_id(),
            plan_id=plan_id,
            intention_id=intention.id,
            goal_key=goal.get("goal_key") or draft.objective,
            steps=dumps(draft.to_wire()),
            created_at=now,
        )
    else:
        intention_store.note(
            connection,
            intention.id,
            f"plan {plan_id} ({draft.strategy}) completed without fulfilling it",
            now,
        )


def _cancel_open_steps(connection: Connection, plan_id: str, now: int, reason: str) -> int:
    """Cancel the plan's steps not yet terminal; the open attempt of one that was executing
    goes to history (``interrupted``, or the outcome it saved), as no worker can record it."""
    running = attempt_store.open_of_plan(connection, plan_id, OPEN_STEP_STATUSES)
    for step_id, attempt in running:
        close_attempt(
            connection,
            attempt,
            step_id,
            AttemptOutcome(attempt.outcome) if attempt.outcome else AttemptOutcome.INTERRUPTED,
            now,
            result=attempt.result,
            error=attempt.error or {"code": "plan.stopped", "message": reason},
        )
    stored = {step_id for step_id, _ in running}
    for row in step_store.executing_of_plan(connection, plan_id):
        if row.id in stored:
            continue
        # an idempotent attempt is not stored while it runs: its history row is written here
        close_attempt(
            connection,
            attempt_store.unstored(
                row.id,
                row.attempts,
                row.lease_token,
                f"{plan_id}:{row.revision}:{row.key}:{row.attempt_group}",
                row.updated_at,
            ),
            row.id,
            AttemptOutcome.INTERRUPTED,
            now,
            error={"code": "plan.stopped", "message": reason},
        )
    return step_store.cancel_open(connection, plan_id, reason, now)


def _withdraw_open_approvals(connection: Connection, plan_id: str, now: int, reason: str) -> None:
    waiting = approval_store.withdraw_of_plan(connection, plan_id, reason, now)
    if waiting:
        intention_store.close_of_steps(
            connection, waiting, IntentionStatus.ABANDONED, now, status_reason=reason
        )


def _failed_strategies(connection: Connection, intention_id: str) -> frozenset[str]:
    limits = plan_store.limits_of_revisions(
        connection, intention_id, (PlanStatus.FAILED, PlanStatus.SUPERSEDED)
    )
    return frozenset(str((loads(text) or {}).get("strategy")) for text in limits)


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
    plan = plan_store.get(connection, plan_id)
    if plan.status not in _OPEN:
        return None
    intention = intention_store.get(connection, plan.intention_id)
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
                plan_store.set_status(connection, plan_id, PlanStatus.REPLANNING, now)
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
                    provenance={
                        "author": plan.author,
                        "envelope_digest": plan.envelope_digest,
                        "envelope_expires_at": plan.envelope_expires_at,
                    },
                )
    closing = PlanStatus.SUPERSEDED if successor else status
    why = f"{reason}; replanned as revision {plan.revision + 1}" if successor else final_reason
    closed = _cancel_open_steps(connection, plan_id, now, f"plan {closing.value}: {why}")
    _withdraw_open_approvals(connection, plan_id, now, f"plan {closing.value}: {why}")
    plan_store.close(
        connection, plan_id, closing, now, reason=why, superseded_by=successor, closed_steps=closed
    )
    if successor is None:
        intention_store.close(
            connection, intention.id, IntentionStatus.ABANDONED, now, status_reason=why
        )
    return successor
