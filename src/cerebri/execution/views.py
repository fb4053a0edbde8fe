"""Read-only views of the store for people and machines: plans, steps, what is stuck.

Instants are shown as RFC 3339 UTC text (nanoseconds kept when not whole seconds). Every list
is ordered totally: plans by (created_at, id), steps by position, attempts by number.

* :func:`list_plans`: one summary per plan revision;
* :func:`show_plan`: one plan with its revision chain, steps, attempts, predictions and
  approvals;
* :func:`show_step`: one step with its attempts (an *execution*, as the HTTP API names it);
* :func:`show_approval`: one approval;
* :func:`stuck`: every thing that is not finished (open plans, non-terminal steps, open
  predictions), who is expected to move it (its *owner*), its timeout, and whether it is
  stuck now and why;
* :func:`scheduled_steps`: how many steps a worker will still act on without anyone's
  decision (``ready``, ``waiting`` or ``executing``).
"""

from __future__ import annotations

from dataclasses import dataclass
from types import NoneType
from typing import Any, Final

from cerebri._guard import arguments
from cerebri._json import JSONValue
from cerebri.execution._rows import loads
from cerebri.execution.context import NS, Executor
from cerebri.execution.errors import ExecutionError, execution_argument_error
from cerebri.execution.store import approvals as approval_store
from cerebri.execution.store import attempts as attempt_store
from cerebri.execution.store import knowledge
from cerebri.execution.store import plans as plan_store
from cerebri.execution.store import steps as step_store
from cerebri.execution.store.attempts import lease_holder
from cerebri.execution.store.connection import Connection
from cerebri.execution.store.vocabulary import PASSED_ON
from cerebri.plans import (
    DONE_STEP_STATUSES,
    OPEN_PLAN_STATUSES,
    TERMINAL_STEP_STATUSES,
    PlanStatus,
    StepKind,
    StepStatus,
)
from cerebri.temporal import Instant

__all__ = [
    "STUCK_GRACE_SECONDS",
    "ApprovalView",
    "instant_text",
    "list_plans",
    "scheduled_steps",
    "show_approval",
    "show_plan",
    "show_step",
    "stuck",
]

STUCK_GRACE_SECONDS: Final = 60
"""How long past due (seconds) a ``ready``/``waiting`` step, or an expired lease, may go
unclaimed before :func:`stuck` says no worker is running."""

_OPEN_PLANS = tuple(sorted(s.value for s in OPEN_PLAN_STATUSES))
_PLAN_STATUSES = tuple(s.value for s in PlanStatus)
_TERMINAL = frozenset(s.value for s in TERMINAL_STEP_STATUSES)
_DONE = frozenset(s.value for s in DONE_STEP_STATUSES)
_ENDED_UNDONE = frozenset(
    s.value for s in (PlanStatus.FAILED, PlanStatus.ABANDONED, PlanStatus.SUPERSEDED)
)
"""Plan statuses of a plan that ended without completing: its open predictions are closed
with it in :func:`stuck` (never stuck, owner ``nobody``)."""
_SCHEDULED = (StepStatus.READY.value, StepStatus.WAITING.value, StepStatus.EXECUTING.value)


def instant_text(ns: int | None) -> str | None:
    """``None`` or the RFC 3339 UTC text of an instant given in nanoseconds since the epoch."""
    return None if ns is None else Instant(ns).format()


@dataclass(frozen=True, slots=True)
class ApprovalView:
    """An approval row as listed: instants as RFC 3339 UTC text in :meth:`to_wire`."""

    row: dict[str, Any]

    def to_wire(self) -> dict[str, JSONValue]:
        """``{"id", "plan_id", "step_id", "requester", "author", "status", "status_reason",
        "decided_by", "request", "subject_digest", "keyid", "signed", "created_at",
        "expires_at", "decided_at", "consumed_at"}`` (``author``: of the proposal the plan
        came from, or ``null``)."""
        r = self.row
        return {
            "id": r["id"],
            "plan_id": r["plan_id"],
            "step_id": r["step_id"],
            "requester": r["requester"],
            "author": r.get("author"),
            "status": r["status"],
            "status_reason": r["status_reason"],
            "decided_by": r["decided_by"],
            "request": loads(r["request"]),
            "subject_digest": r.get("subject_digest"),
            "keyid": r.get("keyid"),
            "signed": r.get("signature") is not None,
            "created_at": instant_text(r["created_at"]),
            "expires_at": instant_text(r["expires_at"]),
            "decided_at": instant_text(r["decided_at"]),
            "consumed_at": instant_text(r["consumed_at"]),
        }


def _strategy(limits: str | None) -> JSONValue:
    value: JSONValue = (loads(limits) or {}).get("strategy")
    return value


def _summary(row: Any, done: int, total: int) -> dict[str, JSONValue]:
    return {
        "id": row.id,
        "intention_id": row.intention_id,
        "revision": row.revision,
        "status": row.status,
        "status_reason": row.status_reason,
        "origin": row.origin,
        "strategy": _strategy(row.limits),
        "steps_done": done,
        "steps_total": total,
        "created_at": instant_text(row.created_at),
        "updated_at": instant_text(row.updated_at),
    }


def _step_counts(connection: Connection, plan_ids: list[str]) -> dict[str, tuple[int, int]]:
    """``{plan id: (done steps, all steps)}``."""
    counts: dict[str, list[int]] = {pid: [0, 0] for pid in plan_ids}
    if not plan_ids:
        return {}
    for plan_id, status, number in step_store.count_by_status(connection, plan_ids):
        counts[plan_id][1] += number
        if status in _DONE:
            counts[plan_id][0] += number
    return {pid: (c[0], c[1]) for pid, c in counts.items()}


@arguments(execution_argument_error, executor=Executor, status=(str, NoneType), open_only=bool)
def list_plans(
    executor: Executor, *, status: str | None = None, open_only: bool = False
) -> list[dict[str, JSONValue]]:
    """One summary per plan revision, ordered by (created_at, id): ``{"id", "intention_id",
    "revision", "status", "status_reason", "origin", "strategy", "steps_done", "steps_total",
    "created_at", "updated_at"}`` (``steps_done`` counts ``completed`` and ``skipped`` steps).

    ``status`` keeps only plans in that status; ``open_only`` only plans that may still make
    progress (:data:`~cerebri.plans.OPEN_PLAN_STATUSES`). Raises :class:`ExecutionError`
    ``execution.invalid_argument`` when ``status`` is not a plan status
    (:class:`~cerebri.plans.PlanStatus`, plans.md section 5)."""
    if status is not None and status not in _PLAN_STATUSES:
        raise ExecutionError(
            f"{status!r} is not a plan status; use one of {', '.join(_PLAN_STATUSES)}",
            code="execution.invalid_argument",
        )
    with executor.engine.connect() as connection:
        rows = plan_store.listed(
            connection, status=status, among=_OPEN_PLANS if open_only else None
        )
        counts = _step_counts(connection, [r.id for r in rows])
    return [_summary(r, *counts.get(r.id, (0, 0))) for r in rows]


def _attempt_wire(row: Any, *, open_attempt: bool) -> dict[str, JSONValue]:
    return {
        "number": row.number,
        "worker_id": row.worker_id,
        "origin": f"plan_step:{row.step_id}",
        "idempotency_key": row.idempotency_key,
        "started_at": instant_text(row.started_at),
        "finished_at": None if open_attempt else instant_text(row.finished_at),
        "outcome": row.outcome,
        "result": loads(row.result),
        "error": loads(row.error),
        "open": open_attempt,
        "passed_on": _passed_on(row),
    }


def _passed_on(row: Any) -> bool:
    """Whether an attempt passed its step on to another worker (decision 0075)."""
    error = loads(row.error)
    return isinstance(error, dict) and error.get(PASSED_ON) is True


def _step_wire(row: Any, history: list[dict[str, JSONValue]]) -> dict[str, JSONValue]:
    return {
        "id": row.id,
        "key": row.key,
        "position": row.position,
        "kind": row.kind,
        "status": row.status,
        "status_reason": row.status_reason,
        "attempts": row.attempts,
        "pass_ons": sum(1 for a in history if a["passed_on"] is True),
        "max_attempts": row.max_attempts,
        "attempt_group": row.attempt_group,
        "lease_until": instant_text(row.lease_until),
        "next_run_at": instant_text(row.next_run_at),
        "result": loads(row.result),
        "observation": loads(row.observation),
        "error": loads(row.error),
        "approval_id": row.approval_id,
        "prediction_id": row.prediction_id,
        "spec": loads(row.spec),
        "attempt_history": history,
    }


def _prediction_wire(row: Any) -> dict[str, JSONValue]:
    return {
        "id": row.id,
        "step_id": row.step_id,
        "status": row.status,
        "expectation": loads(row.expectation),
        "observation": loads(row.observation),
        "due_at": instant_text(row.due_at),
        "created_at": instant_text(row.created_at),
        "resolved_at": instant_text(row.resolved_at),
    }


def _proposal(connection: Connection, plan: Any) -> dict[str, JSONValue] | None:
    """The envelope ``plan`` came from, as :func:`show_plan` reports it; ``submitted_by``
    and ``keyids`` are ``None`` for envelopes taken in before store revision 0004."""
    if plan.author is None:
        return None
    ledger = plan_store.ledger_of(connection, plan.envelope_digest)
    keyids = None if ledger is None else loads(ledger.keyids)
    return {
        "author": plan.author,
        "envelope_digest": plan.envelope_digest,
        "expires_at": instant_text(plan.envelope_expires_at),
        "submitted_by": None if ledger is None else ledger.submitted_by,
        "keyids": keyids,
    }


@arguments(execution_argument_error, executor=Executor, plan_id=str)
def show_plan(executor: Executor, plan_id: str) -> dict[str, JSONValue]:
    """One plan in full: the :func:`list_plans` fields plus ``objective``, ``requester``,
    ``proposal`` (``None`` for a bare draft, else the envelope it came from: ``author``,
    ``envelope_digest``, ``expires_at``, ``submitted_by``, ``keyids``: who signed and who
    submitted what, decision 0034), ``sandbox``, ``max_replans``, ``supersedes``,
    ``superseded_by``, ``started_at``, ``closed_at``, ``validation``; ``revisions``: every
    revision of its intention ordered by revision (``{"id", "revision", "status",
    "supersedes", "superseded_by"}``); ``steps`` in position order, each with its ``spec``
    (the draft's step: ``kind``, ``depends_on``, ``capability``, ``params``, ...) and its
    ``attempt_history`` (finished attempts by number, then the open ones, ``"open": true``;
    each with ``passed_on``: whether that attempt left the step for another worker, decision
    0075) and ``pass_ons`` (how many of its attempts did: ``attempts`` counts them too);
    ``predictions`` and ``approvals`` by (created_at, id).

    Raises :class:`ExecutionError` ``execution.not_found`` for an unknown plan id."""

    with executor.engine.connect() as connection:
        row = plan_store.find(connection, plan_id)
        if row is None:
            raise ExecutionError(f"no plan {plan_id!r}", code="execution.not_found")
        chain = plan_store.revisions_of(connection, row.intention_id)
        step_rows = step_store.of_plan(connection, plan_id)
        ids = [s.id for s in step_rows]
        history = _history(connection, ids)
        prediction_rows = knowledge.predictions_of_plan(connection, plan_id)
        approval_rows = approval_store.of_plan(connection, plan_id)
        proposal = _proposal(connection, row)
    done = sum(1 for s in step_rows if s.status in _DONE)
    wire = _summary(row, done, len(step_rows))
    draft = loads(row.draft) or {}
    wire.update(
        {
            "objective": draft.get("objective"),
            "requester": row.requester,
            "proposal": proposal,
            "sandbox": row.sandbox,
            "max_replans": row.max_replans,
            "supersedes": row.supersedes,
            "superseded_by": row.superseded_by,
            "started_at": instant_text(row.started_at),
            "closed_at": instant_text(row.closed_at),
            "validation": loads(row.validation),
            "revisions": [
                {
                    "id": c.id,
                    "revision": c.revision,
                    "status": c.status,
                    "supersedes": c.supersedes,
                    "superseded_by": c.superseded_by,
                }
                for c in chain
            ],
            "steps": [_step_wire(s, history[s.id]) for s in step_rows],
            "predictions": [_prediction_wire(p) for p in prediction_rows],
            "approvals": [ApprovalView(dict(a._mapping)).to_wire() for a in approval_rows],
        }
    )
    return wire


def _history(connection: Connection, ids: list[str]) -> dict[str, list[dict[str, JSONValue]]]:
    """``{step id: attempt history}``: finished attempts by number, then the open ones."""
    finished = attempt_store.finished_rows(connection, ids)
    running = attempt_store.open_rows(connection, ids)
    history: dict[str, list[dict[str, JSONValue]]] = {i: [] for i in ids}
    for a in finished:
        history[a.step_id].append(_attempt_wire(a, open_attempt=False))
    for a in running:
        history[a.step_id].append(_attempt_wire(a, open_attempt=True))
    return history


@arguments(execution_argument_error, executor=Executor, step_id=str)
def show_step(executor: Executor, step_id: str) -> dict[str, JSONValue]:
    """One step as :func:`show_plan` lists it (``spec`` and ``attempt_history`` included),
    plus ``plan_id``, ``plan_status`` and ``plan_revision`` of the plan revision it belongs
    to. Raises :class:`ExecutionError` ``execution.not_found`` for an unknown step id."""
    with executor.engine.connect() as connection:
        row = step_store.get(connection, step_id)
        if row is None:
            raise ExecutionError(f"no step {step_id!r}", code="execution.not_found")
        plan = plan_store.get(connection, row.plan_id)
        history = _history(connection, [step_id])
    wire: dict[str, JSONValue] = {
        "plan_id": row.plan_id,
        "plan_status": plan.status,
        "plan_revision": plan.revision,
    }
    wire.update(_step_wire(row, history[step_id]))
    return wire


@arguments(execution_argument_error, executor=Executor, approval_id=str)
def show_approval(executor: Executor, approval_id: str) -> dict[str, JSONValue]:
    """One approval in the wire form of :func:`~cerebri.execution.approvals.list_approvals`.
    Raises :class:`ExecutionError` ``execution.not_found`` for an unknown approval id."""

    with executor.engine.connect() as connection:
        row = approval_store.get(connection, approval_id)
    if row is None:
        raise ExecutionError(f"no approval {approval_id!r}", code="execution.not_found")
    return ApprovalView(dict(row._mapping)).to_wire()


@arguments(execution_argument_error, executor=Executor)
def scheduled_steps(executor: Executor) -> int:
    """How many steps are ``ready``, ``waiting`` or ``executing``: work a worker will do (now
    or when due) without anyone's decision. ``cerebri worker --until-idle`` runs until 0."""
    with executor.engine.connect() as connection:
        return step_store.count_in(connection, _SCHEDULED)


# -- stuck -----------------------------------------------------------------------------------

_KIND_RANK: Final = {"plan": 0, "step": 1, "prediction": 2}


def _entry(
    kind: str,
    ident: str,
    plan: Any,
    *,
    status: str,
    owner: str,
    timeout: int | None,
    is_stuck: bool,
    reason: str | None,
    step_key: str | None = None,
    position: int = -1,
) -> tuple[tuple[Any, ...], dict[str, JSONValue]]:
    order = (plan.created_at, plan.id, _KIND_RANK[kind], position, ident)
    return order, {
        "kind": kind,
        "id": ident,
        "plan_id": plan.id,
        "step_key": step_key,
        "status": status,
        "owner": owner,
        "timeout": instant_text(timeout),
        "stuck": is_stuck,
        "reason": reason,
    }


_Verdict = tuple[str, int | None, bool, str | None]
"""A step's ``(owner, timeout, stuck, reason)`` in :func:`stuck`."""


def _due_verdict(step: Any, now: int, grace_ns: int) -> _Verdict:
    """A ``ready``/``waiting`` step."""
    if (step.status_reason or "").startswith("no_adapter"):
        # passed on by a worker that cannot carry it out: someone must start one that can
        return "operator", step.next_run_at, True, step.status_reason
    if step.next_run_at is not None and step.next_run_at < now - grace_ns:
        reason = (
            f"overdue since {instant_text(step.next_run_at)}: no worker is running "
            "(start `cerebri worker`)"
        )
        return "workers", step.next_run_at, True, reason
    return "workers", step.next_run_at, False, step.status_reason


def _executing_verdict(
    step: Any, now: int, grace_ns: int, workers: dict[str, str | None]
) -> _Verdict:
    owner = workers.get(step.id) or lease_holder(step.lease_token) or "workers"
    if step.lease_until is not None and step.lease_until < now - grace_ns:
        reason = (
            f"lease expired at {instant_text(step.lease_until)} and nobody took it over: "
            "no worker is running"
        )
        return owner, step.lease_until, True, reason
    return owner, step.lease_until, False, step.status_reason


def _approval_verdict(
    step: Any, now: int, grace_ns: int, approval_expiry: dict[str, int]
) -> _Verdict:
    """An ``awaiting_approval``/``awaiting_grant`` step."""
    timeout = approval_expiry.get(step.approval_id or "")
    if timeout is not None and timeout < now - grace_ns:
        reason = (
            f"approval {step.approval_id} expired at {instant_text(timeout)} and no "
            "worker has swept it"
        )
        return "approver", timeout, True, reason
    reason = f"waiting for approval {step.approval_id} (`cerebri approvals list`)"
    return "approver", timeout, False, reason


def _pending_verdict(step: Any, statuses: dict[str, str]) -> _Verdict:
    spec = loads(step.spec) or {}
    ended = [
        f"{key} is {statuses[key]}"
        for key in spec.get("depends_on", ())
        if statuses.get(key) in _TERMINAL and statuses.get(key) not in _DONE
    ]
    if ended:
        return (
            "dependencies",
            None,
            True,
            "a dependency ended without being done: " + ", ".join(ended),
        )
    return "dependencies", None, False, f"waiting for {step.remaining_deps} dependencies"


def _step_entry(
    step: Any,
    plan: Any,
    *,
    now: int,
    grace_ns: int,
    workers: dict[str, str | None],
    approval_expiry: dict[str, int],
    statuses: dict[str, str],
) -> tuple[tuple[Any, ...], dict[str, JSONValue]]:
    status = step.status
    verdict: _Verdict
    if status in (StepStatus.READY.value, StepStatus.WAITING.value):
        verdict = _due_verdict(step, now, grace_ns)
    elif status == StepStatus.EXECUTING.value:
        verdict = _executing_verdict(step, now, grace_ns, workers)
    elif status in (StepStatus.AWAITING_APPROVAL.value, StepStatus.AWAITING_GRANT.value):
        verdict = _approval_verdict(step, now, grace_ns, approval_expiry)
    elif status == StepStatus.BLOCKED.value:
        verdict = "operator", None, True, step.status_reason
    else:  # pending
        verdict = _pending_verdict(step, statuses)
    owner, timeout, is_stuck, reason = verdict
    return _entry(
        "step",
        step.id,
        plan,
        status=status,
        owner=owner,
        timeout=timeout,
        is_stuck=is_stuck,
        reason=reason,
        step_key=step.key,
        position=step.position,
    )


@dataclass(frozen=True)
class _Unfinished:
    """What :func:`stuck` reads, in one connection: open predictions, the plans they or the
    open plans belong to (``by_id``), the open plans, their steps, and the open attempts'
    workers and approvals' expiries."""

    predictions: list[Any]
    by_id: dict[str, Any]
    plans: list[Any]
    steps: list[Any]
    workers: dict[str, str | None]
    expiry: dict[str, int]


def _unfinished(connection: Connection) -> _Unfinished:
    prediction_rows = knowledge.open_predictions(connection)
    with_predictions = {r.plan_id for r in prediction_rows}
    plan_rows = plan_store.open_or_among(connection, _OPEN_PLANS, sorted(with_predictions))
    by_id = {p.id: p for p in plan_rows}
    open_plans = [p for p in plan_rows if p.status in _OPEN_PLANS]
    ids = [p.id for p in open_plans]
    step_rows = step_store.of_plans(connection, ids)
    open_attempts = attempt_store.holders(connection)
    tokens = {s.id: s.lease_token for s in step_rows}
    return _Unfinished(
        predictions=list(prediction_rows),
        by_id=by_id,
        plans=open_plans,
        steps=list(step_rows),
        workers={
            a.step_id: a.worker_id for a in open_attempts if tokens.get(a.step_id) == a.lease_token
        },
        expiry=approval_store.expiries_of_plans(connection, ids),
    )


_Entry = tuple[tuple[Any, ...], dict[str, JSONValue]]


def _step_entries(found: _Unfinished, now: int, grace_ns: int) -> list[_Entry]:
    statuses: dict[str, dict[str, str]] = {p.id: {} for p in found.plans}
    for s in found.steps:
        statuses[s.plan_id][s.key] = s.status
    return [
        _step_entry(
            s,
            found.by_id[s.plan_id],
            now=now,
            grace_ns=grace_ns,
            workers=found.workers,
            approval_expiry=found.expiry,
            statuses=statuses[s.plan_id],
        )
        for s in found.steps
        if s.status not in _TERMINAL
    ]


def _open_steps(found: _Unfinished) -> dict[str, int]:
    counts: dict[str, int] = {p.id: 0 for p in found.plans}
    for s in found.steps:
        if s.status not in _TERMINAL:
            counts[s.plan_id] += 1
    return counts


def _plan_entries(found: _Unfinished) -> list[_Entry]:
    open_steps = _open_steps(found)
    entries = []
    for p in found.plans:
        empty = open_steps[p.id] == 0
        entries.append(
            _entry(
                "plan",
                p.id,
                p,
                status=p.status,
                owner="operator" if empty else "workers",
                timeout=None,
                is_stuck=empty,
                reason="an open plan with no open step: nothing will move it"
                if empty
                else f"{open_steps[p.id]} open steps",
            )
        )
    return entries


def _prediction_reason(verifying: bool, late: bool, due_at: int | None) -> str:
    if verifying:
        return "a verify step will resolve it"
    if late:
        return f"past due at {instant_text(due_at)} and no verify step will resolve it"
    return "no verify step: an operator resolves it"


def _prediction_entries(found: _Unfinished, now: int) -> list[_Entry]:
    open_verify = {
        s.plan_id
        for s in found.steps
        if s.status not in _TERMINAL and s.kind == StepKind.VERIFY.value
    }
    entries = []
    for r in found.predictions:
        plan = found.by_id[r.plan_id]
        if plan.status in _ENDED_UNDONE:
            # nothing will verify it and nobody needs to: its plan ended (decision 0066)
            entries.append(
                _entry(
                    "prediction",
                    r.id,
                    plan,
                    status=r.status,
                    owner="nobody",
                    timeout=r.due_at,
                    is_stuck=False,
                    reason=f"closed with its plan ({plan.status}): never verified",
                )
            )
            continue
        verifying = r.plan_id in open_verify
        late = r.due_at is not None and r.due_at < now
        entries.append(
            _entry(
                "prediction",
                r.id,
                plan,
                status=r.status,
                owner="workers" if verifying else "operator",
                timeout=r.due_at,
                is_stuck=late and not verifying,
                reason=_prediction_reason(verifying, late, r.due_at),
            )
        )
    return entries


@arguments(execution_argument_error, executor=Executor, grace_seconds=int)
def stuck(
    executor: Executor, *, grace_seconds: int = STUCK_GRACE_SECONDS
) -> list[dict[str, JSONValue]]:
    """Every thing not finished, its owner and timeout, and whether it is stuck now and why.

    Each entry: ``{"kind": "plan"|"step"|"prediction", "id", "plan_id", "step_key", "status",
    "owner", "timeout" (RFC 3339 or null), "stuck" (bool), "reason"}``, ordered by the plan's
    (created_at, id), then plan before steps before predictions, then step position, then id.

    * a ``ready`` step passed on by a worker without the adapter (reason ``no_adapter``):
      owner ``operator``, stuck: start a worker that can carry it out (``--ics-calendar``);
    * ``ready``/``waiting`` step: owner ``workers``, timeout ``next_run_at``; stuck when more
      than ``grace_seconds`` overdue (no worker is running);
    * ``executing``: owner the worker id of its open attempt, timeout ``lease_until``; stuck
      when the lease expired more than ``grace_seconds`` ago and nobody took it over;
    * ``awaiting_approval``/``awaiting_grant``: owner ``approver``, timeout the approval's
      ``expires_at``; stuck when that passed and no worker expired it;
    * ``blocked``: owner ``operator``, always stuck, the reason is the step's
      ``status_reason`` (``needs_verification``, ``sandbox_disabled``, ...);
    * ``pending``: owner ``dependencies``; stuck when a dependency ended not done;
    * open prediction of an open or completed plan: owner ``workers`` while a verify step
      of its plan is open, else ``operator``, stuck once past ``due_at``;
    * open prediction of a plan that ended undone (``failed``, ``abandoned``,
      ``superseded``): owner ``nobody``, never stuck, reason ``closed with its plan
      (STATUS): never verified`` (decision 0066);
    * open plan: owner ``workers``; stuck when it has no open step.
    """
    now = executor.now_ns()
    with executor.engine.connect() as connection:
        found = _unfinished(connection)
    entries = _step_entries(found, now, grace_seconds * NS)
    entries += _plan_entries(found)
    entries += _prediction_entries(found, now)
    entries.sort(key=lambda pair: pair[0])
    return [wire for _, wire in entries]
