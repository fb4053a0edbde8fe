"""The claim protocol: leases on step rows, taken and kept by conditional updates (plans.md 6).

Every step row that a worker should look at has ``next_run_at`` set: the instant a ``ready``
or ``waiting`` step is due, or, while a step is ``executing``, its ``lease_until``. Every
other status has ``next_run_at`` NULL. So one query serves both the claim of due work and
the sweep of expired leases (docs/decisions/0020):

* :func:`claim` takes the row due first (``next_run_at <= now``, then by id) and sets a fresh
  ``lease_token`` (``<worker id>#<fresh id>``: the holder is known from the row alone),
  ``status = executing`` and ``lease_until = next_run_at = now + lease``.
  PostgreSQL: one ``UPDATE … FROM (SELECT … FOR UPDATE SKIP LOCKED LIMIT 1) RETURNING``, so
  concurrent workers never wait for each other's candidate. SQLite: the same choice and update
  inside one ``BEGIN IMMEDIATE`` transaction (SQLite has one writer at a time).
  The same statement group reads the plan (marking it executing on its first claim and
  counting a capability step's invocation against its budget). The attempt is numbered by the
  step's ``attempts`` counter (id ``<step id>:<number>``) and carries the idempotency key
  ``<plan id>:<revision>:<step key>:<attempt group>``; it is stored as an open row only once a
  non-idempotent invocation may begin, and in ``attempt_history`` when it ends. When the row
  was ``executing`` (a lease that expired), the claim is a *takeover* and carries the
  interrupted attempt (the stored row, or one rebuilt from the step row).
* :func:`heartbeat` extends the lease only while the token still matches.
* :func:`mark_invoking` and :func:`save_outcome` write the two durable marks of a
  non-idempotent invocation, each conditional on the token: "the invocation may have begun"
  and "this is what it returned". A takeover reads them to decide (crash rules, decision 0020).

No advisory locks and no table of live workers: a worker is its id and its tokens. The SQL is
the store's (decision 0043): the statement group in :mod:`cerebri.execution.store.steps`, the
attempts in :mod:`cerebri.execution.store.attempts`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from cerebri._guard import arguments
from cerebri._json import JSONValue
from cerebri.execution._rows import loads
from cerebri.execution.context import NS, Executor
from cerebri.execution.errors import ExecutionError, execution_argument_error
from cerebri.execution.store import attempts
from cerebri.execution.store import plans as plan_store
from cerebri.execution.store import steps as step_store
from cerebri.execution.store.attempts import (
    Attempt,
    attempt_id,
    lease_holder,
)
from cerebri.execution.store.attempts import close as close_attempt
from cerebri.execution.store.connection import Connection
from cerebri.execution.store.vocabulary import AttemptOutcome
from cerebri.plans import DEFAULT_MAX_INVOCATIONS, StepKind, StepStatus

__all__ = [
    "Attempt",
    "Claim",
    "LeaseLostError",
    "attempt_id",
    "claim",
    "close_attempt",
    "heartbeat",
    "holds_lease",
    "invocation_limit",
    "lease_holder",
    "mark_invoking",
    "record_late_outcome",
    "refund",
    "save_outcome",
    "taken_over",
]


class LeaseLostError(Exception):
    """The step's lease token is no longer ours: another worker took it over, or the plan was
    cancelled. Nothing of the transaction that found it out is kept."""


@dataclass(frozen=True, slots=True)
class Claim:
    """A step this worker holds a lease on, with what it needs to act.

    ``previous_status`` is the status before the claim (``ready``/``waiting``, or
    ``executing`` for a takeover, whose open attempt is ``interrupted``). Instants are ns.
    ``plan`` holds the plan row's ``status``, ``origin``, ``sandbox``, ``revision``,
    ``requester``, ``limits`` and counters as read in the claim transaction. ``reserved``:
    a capability step's invocation was counted against the plan's budget by the claim (the
    runner gives it back when the step does not invoke); ``False`` when the budget is spent.
    """

    step_id: str
    plan_id: str
    key: str
    kind: str
    token: str
    worker_id: str
    attempt: Attempt
    previous_status: StepStatus
    idempotent: bool
    attempts: int
    max_attempts: int
    attempt_group: int
    spec: dict[str, Any]
    approval_id: str | None
    prediction_id: str | None
    intention_id: str | None
    observation: Any
    started_at: int
    lease_until: int
    plan: dict[str, Any]
    interrupted: tuple[Attempt, ...] = field(default=())
    reserved: bool = False

    @property
    def takeover(self) -> bool:
        """Whether this claim took over an expired lease."""
        return self.previous_status is StepStatus.EXECUTING

    @property
    def origin(self) -> str:
        """``plan_step:<step id>``: recorded with every invocation this step makes."""
        return f"plan_step:{self.step_id}"

    @property
    def idempotency_key(self) -> str:
        """``<plan id>:<revision>:<step key>:<attempt group>``, the same for every retry."""
        return self.attempt.idempotency_key


def _lease_ns(lease_seconds: float) -> int:
    if isinstance(lease_seconds, bool) or not isinstance(lease_seconds, int | float):
        raise ExecutionError(
            f"a lease is a number of seconds, not {lease_seconds!r}",
            code="execution.invalid_argument",
        )
    if not 1 <= lease_seconds <= 86_400:
        raise ExecutionError(
            f"a lease lasts 1 to 86400 seconds, not {lease_seconds}",
            code="execution.invalid_argument",
        )
    return int(lease_seconds * NS)


def invocation_limit(limits: dict[str, Any]) -> int:
    """The plan's ``budget.max_capability_invocations`` (0 or absent: the default 20)."""
    budget = limits.get("budget") or {}
    return int(budget.get("max_capability_invocations") or 0) or DEFAULT_MAX_INVOCATIONS


def _over_budget(connection: Connection, row: Any, plan: Any) -> bool:
    """Take back a count past the limit; whether the claim is over the budget."""
    if row.kind != StepKind.CAPABILITY.value:
        return False
    if plan.invocations <= invocation_limit(loads(plan.limits) or {}):
        return False
    plan_store.give_back_invocation(connection, row.plan_id)
    return True


def _stored_attempts(connection: Connection, row: Any, before: Any) -> list[Attempt]:
    """The open attempts of a step being taken over (none for a fresh claim)."""
    if before.previous_status != StepStatus.EXECUTING.value:
        return []
    return attempts.open_of_step(connection, row.id)


def _after_take(
    connection: Connection, row: Any, before: Any, plan: Any
) -> tuple[bool, list[Attempt]]:
    """In the claim's connection: whether it is over the invocation budget (the count taken
    back), and the open attempts of a takeover."""
    return _over_budget(connection, row, plan), _stored_attempts(connection, row, before)


def refund(connection: Connection, held: Claim) -> None:
    """Give back the invocation the claim counted, for a step that did not invoke."""
    if held.reserved:
        plan_store.give_back_invocation(connection, held.plan_id)


@arguments(execution_argument_error, executor=Executor, worker_id=str, lease_seconds=(int, float))
def claim(executor: Executor, worker_id: str, lease_seconds: float = 30) -> Claim | None:
    """Take a lease on the step due first, or return ``None`` when nothing is due now.

    One transaction: the conditional update of the step row, the plan row (read, started,
    invocation counted), and for a takeover the interrupted attempt read.
    Raises :class:`ExecutionError` ``execution.invalid_argument`` for a lease outside 1 to
    86 400 seconds.
    """
    lease_ns = _lease_ns(lease_seconds)
    now = executor.now_ns()
    token = attempts.lease_token(worker_id, executor.ids.new_id())
    taken = step_store.take_due(
        executor.engine, now=now, token=token, until=now + lease_ns, then=_after_take
    )
    if taken is None:
        return None
    row, before, plan, (over, stored) = taken
    key = f"{row.plan_id}:{plan.revision}:{row.key}:{row.attempt_group}"
    interrupted: tuple[Attempt, ...] = ()
    if before.previous_status == StepStatus.EXECUTING.value:
        interrupted = tuple(stored) or (
            # an idempotent step's attempt is not stored while it runs
            attempts.unstored(
                row.id, row.attempts - 1, before.previous_token, key, before.previous_update
            ),
        )
    attempt = Attempt(
        id=attempt_id(row.id, row.attempts),
        number=row.attempts,
        lease_token=token,
        worker_id=worker_id,
        idempotency_key=key,
        started_at=now,
        invoked_at=None,
        outcome=None,
        result=None,
        error=None,
    )
    reserved = row.kind == StepKind.CAPABILITY.value and not over
    limits = loads(plan.limits) or {}
    return Claim(
        step_id=row.id,
        plan_id=row.plan_id,
        key=row.key,
        kind=row.kind,
        token=token,
        worker_id=worker_id,
        attempt=attempt,
        previous_status=StepStatus(before.previous_status),
        idempotent=bool(row.idempotent),
        attempts=row.attempts,
        max_attempts=row.max_attempts,
        attempt_group=row.attempt_group,
        spec=loads(row.spec) or {},
        approval_id=row.approval_id,
        prediction_id=row.prediction_id,
        intention_id=row.intention_id,
        observation=loads(row.observation),
        started_at=row.started_at,
        lease_until=now + lease_ns,
        plan={**{c.name: getattr(plan, c.name) for c in step_store.PLAN_COLUMNS}, "limits": limits},
        interrupted=interrupted,
        reserved=reserved,
    )


def holds_lease(connection: Connection, held: Claim, now: int, **values: Any) -> bool:
    """Touch the step row only while our token holds; ``values`` are extra columns to set."""
    return step_store.hold(connection, held.step_id, held.token, now, **values)


@arguments(execution_argument_error, executor=Executor, held=Claim, lease_seconds=(int, float))
def heartbeat(executor: Executor, held: Claim, lease_seconds: float = 30) -> bool:
    """Extend the lease to now + ``lease_seconds`` while the token still matches; ``False``
    when the lease was lost (then the worker must stop acting on the step)."""
    lease_ns = _lease_ns(lease_seconds)
    now = executor.now_ns()
    with executor.transaction() as connection:
        return holds_lease(
            connection, held, now, lease_until=now + lease_ns, next_run_at=now + lease_ns
        )


def taken_over(executor: Executor, held: Claim) -> bool:
    """Whether another worker now holds the step's lease (not merely: the step ended, or its
    plan was cancelled, since the heartbeat that failed)."""
    with executor.engine.connect() as connection:
        token = step_store.lease_token_of(connection, held.step_id)
        connection.rollback()
    return token is not None and token != held.token


def mark_invoking(executor: Executor, held: Claim) -> bool:
    """Record durably that a non-idempotent invocation may begin now (``invoked_at``).
    ``False`` (and nothing written) when the lease was lost: the worker must not invoke."""
    now = executor.now_ns()
    with executor.durable_transaction() as connection:
        if not holds_lease(connection, held, now):
            return False
        attempts.begin(connection, held.attempt, held.step_id, now)
        return True


def save_outcome(
    executor: Executor,
    held: Claim,
    outcome: AttemptOutcome,
    result: JSONValue,
    error: JSONValue,
) -> bool:
    """Save what an invocation returned on the open attempt, before the step moves on; a
    takeover that finds it adopts it. ``False`` when the lease was lost."""
    now = executor.now_ns()
    with executor.durable_transaction() as connection:
        if not holds_lease(connection, held, now):
            return False
        attempts.save_outcome(connection, held.attempt, outcome, result, error)
        return True


def record_late_outcome(
    executor: Executor,
    held: Claim,
    outcome: AttemptOutcome,
    result: JSONValue,
    error: JSONValue,
) -> None:
    """What an invocation did, written after its worker lost the lease (the plan was cancelled,
    or a takeover happened while the adapter ran): onto the attempt's open row when it is still
    there (a takeover then adopts it), else onto its history row; a step that was cancelled
    meanwhile says in its reason that its invocation went through. Nothing else changes."""
    with executor.durable_transaction() as connection:
        if attempts.save_outcome(connection, held.attempt, outcome, result, error):
            return
        attempts.amend_history(connection, held.attempt, outcome, result, error)
        note = (
            f"; attempt {held.attempt.number} of a worker that had begun before the "
            f"cancellation ended {outcome.value}: check its result"
        )
        step_store.note_if_cancelled(connection, held.step_id, note)
