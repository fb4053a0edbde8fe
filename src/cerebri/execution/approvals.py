"""Approvals as durable rows: ``open → approved | rejected | expired | withdrawn`` (plans.md 6).

* :func:`open_request` (inside a worker's transaction) asks for an approval, or for a
  temporary grant of a ``request_capability`` step: an ``approvals`` row, an
  ``approval_expiry`` timer and a subordinate intention whose parent is the waiting step.
  The step waits as ``awaiting_approval``/``awaiting_grant``; no worker holds it.
* :func:`decide` approves or rejects an open request by a conditional update. The principal
  that submitted the plan may not decide on it (``approval.self_approval``); a request past
  ``expires_at`` is expired then and there and never approved (``approval.expired``, fails
  closed). Approval readies the step; rejection fails it, which replans the plan.
* :func:`withdraw`: the requester takes its own open request back; the plan is abandoned.
* :func:`expire_due`: the sweep of due timers, approval expiry and wall deadlines (run by
  every worker).
* :func:`consume`: a step's use of its approval, once (``consumed_at``), checked when it acts.

Who may approve with what proof (registered principals, signed decisions, four-eyes with the
proposal's author) is decision 0023's: :mod:`cerebri.execution.decisions`.
"""

from __future__ import annotations

from types import NoneType
from typing import Any

from cerebri._guard import arguments
from cerebri._json import JSONValue
from cerebri.execution._rows import dumps, loads
from cerebri.execution.claims import Claim
from cerebri.execution.context import NS, Executor
from cerebri.execution.decisions import check_signed_decision
from cerebri.execution.errors import ApprovalError, ExecutionError, execution_argument_error
from cerebri.execution.principals import is_agent, principal_id
from cerebri.execution.progress import complete_plan, stop_plan
from cerebri.execution.registry import governed
from cerebri.execution.store import approvals as approval_store
from cerebri.execution.store import intentions as intention_store
from cerebri.execution.store import plans as plan_store
from cerebri.execution.store import steps as step_store
from cerebri.execution.store import timers as timer_store
from cerebri.execution.store.connection import Connection
from cerebri.execution.store.vocabulary import ApprovalStatus, IntentionStatus, TimerKind
from cerebri.execution.views import ApprovalView, instant_text
from cerebri.plans import PlanStatus, StepStatus
from cerebri.proposals import canonical_json, sha256_digest

__all__ = [
    "ApprovalView",
    "consume",
    "decide",
    "expire_due",
    "list_approvals",
    "open_request",
    "withdraw",
]


def open_request(
    connection: Connection,
    executor: Executor,
    held: Claim,
    request: dict[str, JSONValue],
) -> tuple[str, str]:
    """Insert an open request for the held step, its expiry timer and its subordinate
    intention; returns ``(approval id, intention id)``. The caller parks the step."""
    now = executor.now_ns()
    approval_id = executor.ids.new_id()
    intention_id = executor.ids.new_id()
    expires = now + executor.approval_ttl_seconds * NS
    plan = plan_store.provenance(connection, held.plan_id)
    if plan.envelope_expires_at is not None:  # never outlive the proposal it approves
        expires = min(expires, plan.envelope_expires_at)
    subject: dict[str, JSONValue] = {
        "approval/id": approval_id,
        "plan/id": held.plan_id,
        "plan/revision": plan.revision,
        "step/id": held.step_id,
        "step/key": held.key,
        "request": request,
        "envelope/digest": plan.envelope_digest,
    }
    approval_store.insert_open(
        connection,
        id=approval_id,
        plan_id=held.plan_id,
        step_id=held.step_id,
        requester=held.plan["requester"] or "principal:local",
        request=dumps(request),
        created_at=now,
        expires_at=expires,
        subject_digest=sha256_digest(canonical_json(subject)),
        author=plan.author,
    )
    timer_store.add(
        connection,
        executor.ids.new_id(),
        TimerKind.APPROVAL_EXPIRY,
        approval_id,
        due_at=expires,
        now=now,
    )
    intention_store.insert_open(
        connection,
        id=intention_id,
        parent_step_id=held.step_id,
        goal=dumps({"approval": approval_id, "step": held.step_id}),
        created_at=now,
        updated_at=now,
    )
    plan_store.count_approval_request(connection, held.plan_id, now)
    return approval_id, intention_id


def _load(connection: Connection, approval_id: str) -> Any:
    row = approval_store.get(connection, approval_id)
    if row is None:
        raise ExecutionError(f"no approval {approval_id!r}", code="execution.not_found")
    return row


def _close_intention(
    connection: Connection, step_id: str | None, status: IntentionStatus, now: int
) -> None:
    if step_id is None:
        return
    intention_store.close_of_steps(connection, [step_id], status, now)


def _fail_waiting_step(
    connection: Connection,
    executor: Executor,
    row: Any,
    reason: str,
    *,
    replan: bool,
    plan_status: PlanStatus = PlanStatus.FAILED,
) -> None:
    """The step waiting on ``row`` fails (``replan``: the plan replans) or is cancelled."""
    now = executor.now_ns()
    status = StepStatus.FAILED if replan else StepStatus.CANCELLED
    if step_store.end_waiting(connection, row.step_id, status, reason, now):
        plan_store.count_down(connection, row.plan_id, 1)
        stop_plan(connection, executor, row.plan_id, plan_status, reason, replan=replan)


def _expire(connection: Connection, executor: Executor, row: Any) -> bool:
    """Expire ``row`` if it is open and due; whether it did."""
    now = executor.now_ns()
    if row.status != ApprovalStatus.OPEN.value or row.expires_at > now:
        return False
    if not approval_store.settle(
        connection, row.id, ApprovalStatus.EXPIRED, now, status_reason="expired"
    ):
        return False
    _close_intention(connection, row.step_id, IntentionStatus.ABANDONED, now)
    _fail_waiting_step(connection, executor, row, f"approval {row.id} expired", replan=True)
    return True


@arguments(
    execution_argument_error,
    executor=Executor,
    approval_id=str,
    approve=bool,
    by=str,
    reason=(str, NoneType),
    keyid=(str, NoneType),
    signature=(str, NoneType),
)
def decide(
    executor: Executor,
    approval_id: str,
    *,
    approve: bool,
    by: str,
    reason: str | None = None,
    keyid: str | None = None,
    signature: str | None = None,
) -> dict[str, JSONValue]:
    """Approve (``approve=True``) or reject an open request as principal ``by``.

    In a governed store (decision 0023) ``keyid`` and ``signature`` are required: ``by``'s
    registered Ed25519 signature (standard base64) of
    :func:`~cerebri.execution.decisions.decision_payload`; the store keeps both and the
    worker checks them again before it acts. Neither the requester nor the author of the
    proposal the plan came from may decide (four-eyes).

    Returns the approval's wire form after the decision. Raises :class:`ApprovalError`
    ``approval.not_open``, ``approval.replayed`` (this signed decision was applied before),
    ``approval.expired`` (the request is marked expired, in its own committed transaction),
    ``approval.not_governed`` (a signature given to a store without principals),
    ``approval.self_approval``, ``approval.agent_cannot_approve``, ``approval.not_approver``
    (the request names its one approver, e.g. a calendar's owner, and ``by`` is someone
    else; decision 0076), and the signature codes of
    :func:`~cerebri.execution.decisions.check_signed_decision`; :class:`ExecutionError`
    ``execution.not_found``, ``execution.invalid_principal``.
    """
    by = principal_id(by)
    if is_agent(by):
        raise ApprovalError(
            f"{by} is an agent: an agent may propose and watch, never approve or reject",
            code="approval.agent_cannot_approve",
        )
    with executor.transaction() as connection:
        row = _load(connection, approval_id)
        if _expire(connection, executor, row):
            expired = True
        else:
            expired = False
            if row.status != ApprovalStatus.OPEN.value:
                if signature is not None and signature == row.signature:
                    raise ApprovalError(
                        f"this signed decision was applied to approval {approval_id} before",
                        code="approval.replayed",
                    )
                raise ApprovalError(
                    f"approval {approval_id} is {row.status}, not open", code="approval.not_open"
                )
            _named_approver_only(row, by)
            if by in (row.requester, row.author):
                role = "asked for this approval" if by == row.requester else "authored the proposal"
                raise ApprovalError(
                    f"{by} {role} and may not decide on it (four-eyes)",
                    code="approval.self_approval",
                )
            now = executor.now_ns()
            signed = governed(connection)
            if not signed and (keyid is not None or signature is not None):
                raise ApprovalError(
                    "this store has no registered principals, so no key can be checked: "
                    "register them first (cerebri principals add / key) or decide unsigned",
                    code="approval.not_governed",
                )
            if signed:
                check_signed_decision(
                    connection,
                    row,
                    decision="approve" if approve else "reject",
                    by=by,
                    keyid=keyid,
                    signature=signature,
                    now=now,
                )
            status = ApprovalStatus.APPROVED if approve else ApprovalStatus.REJECTED
            done = approval_store.settle(
                connection,
                row.id,
                status,
                now,
                decided_by=by,
                status_reason=reason,
                keyid=keyid if signed else None,
                signature=signature if signed else None,
            )
            if not done:  # a withdrawal, decision or expiry committed first: it won
                raise ApprovalError(
                    f"approval {approval_id} was withdrawn, decided or expired first; it is "
                    "no longer open",
                    code="approval.not_open",
                )
            _close_intention(connection, row.step_id, IntentionStatus.FULFILLED, now)
            if approve:
                step_store.ready_waiting(connection, row.step_id, f"approved by {by}", now)
                plan_store.set_status(
                    connection,
                    row.plan_id,
                    PlanStatus.EXECUTING,
                    now,
                    leaving=[PlanStatus.AWAITING_APPROVAL],
                )
            else:
                why = f"approval {row.id} rejected by {by}" + (f": {reason}" if reason else "")
                _fail_waiting_step(connection, executor, row, why, replan=True)
    if expired:
        raise ApprovalError(
            f"approval {approval_id} expired before it was decided", code="approval.expired"
        )
    return _view(executor, approval_id)


def _named_approver_only(row: Any, by: str) -> None:
    """Refuse ``by`` when the request names its one approver (a calendar's owner, decision
    0076) and ``by`` is someone else: :class:`ApprovalError` ``approval.not_approver``."""
    approver = (loads(row.request) or {}).get("approver")
    if approver is not None and by != approver:
        raise ApprovalError(
            f"only {approver} may decide approval {row.id} (the owner of the calendar it "
            f"changes, decision 0076), not {by}",
            code="approval.not_approver",
        )


@arguments(execution_argument_error, executor=Executor, approval_id=str, by=str)
def withdraw(executor: Executor, approval_id: str, *, by: str) -> dict[str, JSONValue]:
    """The requester ``by`` withdraws its own open request; the waiting step is cancelled
    and its plan abandoned (no replanning: the requester no longer wants it).

    Raises :class:`ApprovalError` ``approval.not_requester``, ``approval.not_open``;
    :class:`ExecutionError` ``execution.not_found``.
    """
    by = principal_id(by)
    with executor.transaction() as connection:
        row = _load(connection, approval_id)
        if by != row.requester:
            raise ApprovalError(
                f"only {row.requester} may withdraw this request", code="approval.not_requester"
            )
        if row.status != ApprovalStatus.OPEN.value:
            raise ApprovalError(f"approval {approval_id} is {row.status}, not open")
        now = executor.now_ns()
        done = approval_store.settle(
            connection, row.id, ApprovalStatus.WITHDRAWN, now, status_reason=f"withdrawn by {by}"
        )
        if not done:  # a decision (or expiry) committed first: it won
            raise ApprovalError(
                f"approval {approval_id} was decided or expired first; it is no longer open",
                code="approval.not_open",
            )
        _close_intention(connection, row.step_id, IntentionStatus.ABANDONED, now)
        _fail_waiting_step(
            connection,
            executor,
            row,
            f"approval {row.id} withdrawn by {by}",
            replan=False,
            plan_status=PlanStatus.ABANDONED,
        )
    return _view(executor, approval_id)


def _settle_finished_plans(connection: Connection, executor: Executor) -> int:
    """Complete open plans whose steps have all ended (``open_steps = 0``). On PostgreSQL a
    done step's outcome and its plan's completion are two transactions
    (:func:`~cerebri.execution.progress.finish_in_one_statement`); a worker that stops
    between them leaves such a plan, and this sweep is its owner."""
    plan_ids = plan_store.finished_open(connection, 100)
    for plan_id in plan_ids:
        complete_plan(connection, executor, plan_id, executor.now_ns())
    return len(plan_ids)


@arguments(execution_argument_error, executor=Executor, limit=int)
def expire_due(executor: Executor, limit: int = 100) -> int:
    """Fire due timers, at most ``limit``, oldest first: an ``approval_expiry`` expires its
    open request and fails the waiting step (the plan replans); a ``wall_deadline`` stops its
    plan, if still open, with ``budget.wall_seconds`` (no replanning). Also completes open
    plans whose steps have all ended (see :func:`_settle_finished_plans`). Returns how many
    timers fired and plans were settled; a timer fires once (a conditional update on
    ``fired_at``)."""
    now = executor.now_ns()
    fired = 0
    with executor.transaction() as connection:
        for timer in timer_store.due(connection, now, limit):
            if not timer_store.fire(connection, timer.id, now):
                continue
            fired += 1
            if timer.kind == TimerKind.APPROVAL_EXPIRY.value:
                _expire(connection, executor, _load(connection, timer.ref))
            elif timer.kind == TimerKind.WALL_DEADLINE.value:
                reason = (
                    f"budget.wall_seconds: the plan's wall time ran out at "
                    f"{instant_text(timer.due_at)}"
                )
                stop_plan(connection, executor, timer.ref, PlanStatus.FAILED, reason, replan=False)
        fired += _settle_finished_plans(connection, executor)
    return fired


def consume(connection: Connection, executor: Executor, held: Claim) -> str | None:
    """Use the held step's approval: ``None`` when it may act, else why not. An approval is
    consumed once (``consumed_at``) and only by the step it was asked for."""
    if held.approval_id is None:
        return "no approval"
    row = approval_store.get(connection, held.approval_id)
    if row is None or row.step_id != held.step_id:
        return "the approval is not for this step"
    if row.status != ApprovalStatus.APPROVED.value:
        return f"the approval is {row.status}"
    approver = (loads(row.request) or {}).get("approver")
    if approver is not None and row.decided_by != approver:
        return f"the approval was decided by {row.decided_by}, not by {approver}"
    approval_store.consume(connection, row.id, executor.now_ns())
    return None


def _view(executor: Executor, approval_id: str) -> dict[str, JSONValue]:
    with executor.engine.connect() as connection:
        row = _load(connection, approval_id)
    return ApprovalView(dict(row._mapping)).to_wire()


@arguments(execution_argument_error, executor=Executor, status=(str, NoneType))
def list_approvals(
    executor: Executor, *, status: str | None = "open"
) -> list[dict[str, JSONValue]]:
    """Approvals ordered by (created_at, id); only those in ``status`` unless it is ``None``."""
    with executor.engine.connect() as connection:
        rows = approval_store.listed(connection, status)
    return [ApprovalView(dict(r._mapping)).to_wire() for r in rows]
