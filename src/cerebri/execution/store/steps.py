"""The steps repository: a step row's lease and counters, and the claim's statement group
(decision 0043; the claim protocol is :mod:`cerebri.execution.claims`', decision 0020).

Status changes are :mod:`.transitions`'; this module holds the rest of what is written to a
step row. :func:`take_due` is the claim's one dialect-specific statement group: on PostgreSQL
one statement in autocommit (data-modifying CTEs, the due row locked ``FOR UPDATE SKIP
LOCKED``), on SQLite the same choice and updates inside one ``BEGIN IMMEDIATE`` transaction.
:func:`finish_done` is PostgreSQL's one-statement finish of a done step. Every other function
runs in the caller's transaction; instants are nanoseconds.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from types import SimpleNamespace
from typing import Any, TypeVar

from sqlalchemy import (
    Connection,
    Engine,
    Row,
    bindparam,
    case,
    delete,
    func,
    insert,
    literal,
    select,
    update,
)

from cerebri.execution.store.attempts import Attempt
from cerebri.execution.store.dialect import is_postgresql, json_elements
from cerebri.execution.store.schema import attempt_history, attempts, plans, steps
from cerebri.execution.store.transitions import (
    OPEN_STEP_STATUSES,
    StepTransitionError,
    move,
    move_when,
)
from cerebri.execution.store.vocabulary import AttemptOutcome
from cerebri.plans.vocabulary import PlanStatus, StepKind, StepStatus

__all__ = [
    "PLAN_COLUMNS",
    "add_all",
    "cancel_open",
    "complete_unleased",
    "count_blocked",
    "count_by_status",
    "count_in",
    "end_waiting",
    "executing_of_plan",
    "finish_done",
    "get",
    "hold",
    "lease_token_of",
    "note_if_cancelled",
    "of_plan",
    "of_plans",
    "ready_dependants",
    "ready_waiting",
    "release",
    "run_again",
    "take_due",
]

_T = TypeVar("_T")
_DONE = (StepStatus.COMPLETED, StepStatus.SKIPPED)

_CLAIMABLE = (StepStatus.READY, StepStatus.WAITING, StepStatus.EXECUTING)
"""The statuses a claim takes a step from (``executing``: a lease that expired)."""
_LEASE_VALUES: dict[str, Any] = {
    "lease_token": bindparam("token"),
    "lease_until": bindparam("until"),
    "next_run_at": bindparam("until"),
    "updated_at": bindparam("now"),
    "attempts": steps.c.attempts + 1,
    "started_at": func.coalesce(steps.c.started_at, bindparam("now")),
}
_DUE = (
    select(
        steps.c.id,
        steps.c.status.label("previous_status"),
        steps.c.lease_token.label("previous_token"),
        steps.c.updated_at.label("previous_update"),
    )
    .where(steps.c.next_run_at <= bindparam("now"))  # set only while ready/waiting/executing
    .order_by(steps.c.next_run_at, steps.c.id)
    .limit(1)
)
_TAKE_BY_ID = move(
    _CLAIMABLE, StepStatus.EXECUTING, steps.c.id == bindparam("step"), **_LEASE_VALUES
).returning(*steps.c)


def _plan_values(kind: Any) -> dict[str, Any]:
    """The plan row's first-claim start and invocation count (``kind``: the step's kind)."""
    starting = plans.c.status.in_((PlanStatus.VALIDATED.value, PlanStatus.WAITING.value))
    return {
        "status": case((starting, PlanStatus.EXECUTING.value), else_=plans.c.status),
        "updated_at": case((starting, bindparam("now")), else_=plans.c.updated_at),
        "started_at": func.coalesce(plans.c.started_at, bindparam("now")),
        "invocations": plans.c.invocations + case((kind == StepKind.CAPABILITY.value, 1), else_=0),
    }


def _claim_statement_pg() -> Any:
    """PostgreSQL: the whole claim as one statement (three data-modifying CTEs), so a claim
    costs one round trip in autocommit: lock the due row (``SKIP LOCKED``), lease it, start
    the plan and count the invocation, and return the step, its previous values and the plan.
    """
    due = _DUE.with_for_update(skip_locked=True, of=steps).cte("due")
    taken = (
        move(_CLAIMABLE, StepStatus.EXECUTING, steps.c.id == due.c.id, **_LEASE_VALUES)
        .returning(*steps.c)
        .cte("taken")
    )
    plan = (
        update(plans)
        .where(plans.c.id == taken.c.plan_id)
        .values(_plan_values(taken.c.kind))
        .returning(*(c.label(f"plan_{c.name}") for c in PLAN_COLUMNS))
        .cte("plan")
    )
    return select(
        taken,
        due.c.previous_status,
        due.c.previous_token,
        due.c.previous_update,
        *(c for c in plan.c),
    ).select_from(
        taken.join(due, taken.c.id == due.c.id).join(plan, plan.c.plan_id == taken.c.plan_id)
    )


def _plan_part(row: Any) -> Any:
    """The ``plan_*`` columns of a PostgreSQL claim row, as a plan row."""
    return SimpleNamespace(**{c.name: getattr(row, f"plan_{c.name}") for c in PLAN_COLUMNS})


PLAN_COLUMNS = (
    plans.c.id,
    plans.c.status,
    plans.c.origin,
    plans.c.sandbox,
    plans.c.revision,
    plans.c.requester,
    plans.c.limits,
    plans.c.intention_id,
    plans.c.invocations,
    plans.c.approvals_requested,
    plans.c.money_spent,
    plans.c.started_at,
    plans.c.created_at,
)


_CLAIM_PG = _claim_statement_pg()


def _plan_for(connection: Connection, row: Any) -> Any:
    """SQLite: the plan row of a claimed step, marking the plan executing on its first claim
    and counting a capability step's invocation (one ``UPDATE … RETURNING``)."""
    return connection.execute(
        update(plans)
        .where(plans.c.id == row.plan_id)
        .values(_plan_values(literal(row.kind)))
        .returning(*PLAN_COLUMNS),
        {"now": row.updated_at},
    ).one()


def take_due(
    engine: Engine,
    *,
    now: int,
    token: str,
    until: int,
    then: Callable[[Connection, Any, Any, Any], _T],
) -> tuple[Any, Any, Any, _T] | None:
    """Lease the step due first (``next_run_at <= now``, then by id) to ``token`` until
    ``until``: ``status = executing``, ``attempts`` + 1; start its plan on its first claim and
    count a capability step's invocation. Then ``then(connection, step, before, plan)`` runs
    on the same connection (inside the same transaction on SQLite). Returns ``(step row,
    before, plan row, then's result)`` (``before``: ``previous_status``, ``previous_token``,
    ``previous_update``; the plan row has :data:`PLAN_COLUMNS`), or ``None`` when nothing is
    due."""
    parameters = {"now": now, "token": token, "until": until}
    if is_postgresql(engine):
        with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as auto:
            found: Any = auto.execute(_CLAIM_PG, parameters).first()
            if found is None:
                return None
            plan = _plan_part(found)
            return found, found, plan, then(auto, found, found, plan)
    with engine.begin() as connection:
        before = connection.execute(_DUE, parameters).first()
        if before is None:
            return None  # inside BEGIN IMMEDIATE: nobody else writes meanwhile
        row = connection.execute(_TAKE_BY_ID, {**parameters, "step": before.id}).one()
        plan = _plan_for(connection, row)
        return row, before, plan, then(connection, row, before, plan)


def hold(connection: Connection, step_id: str, token: str, now: int, **values: Any) -> bool:
    """Touch the ``executing`` step row only while ``token`` holds its lease (``updated_at``
    = ``now``, and ``values``); whether it did. Raises :class:`StepTransitionError` when
    ``values`` names ``status`` (a status change is a :func:`~.transitions.move`)."""
    if "status" in values:
        raise StepTransitionError("a lease holder changes the status by a move")
    result = connection.execute(
        update(steps)
        .where(
            steps.c.id == step_id,
            steps.c.lease_token == token,
            steps.c.status == StepStatus.EXECUTING.value,
        )
        .values(updated_at=now, **values)
    )
    return result.rowcount == 1


def lease_token_of(connection: Connection, step_id: str) -> str | None:
    """The step's current lease token (``None`` when no worker holds it)."""
    token = connection.execute(select(steps.c.lease_token).where(steps.c.id == step_id)).scalar()
    return None if token is None else str(token)


def note_if_cancelled(connection: Connection, step_id: str, note: str) -> None:
    """Append ``note`` to the step's reason if it is ``cancelled``."""
    connection.execute(
        update(steps)
        .where(steps.c.id == step_id, steps.c.status == StepStatus.CANCELLED.value)
        .values(status_reason=func.coalesce(steps.c.status_reason, "") + note)
    )


def ready_dependants(connection: Connection, dependants: Sequence[str], now: int) -> None:
    """One of their dependencies is done: count the ``pending`` dependants down, and make
    those with none left ``ready`` and due at ``now``."""
    if not dependants:
        return
    connection.execute(
        update(steps)
        .where(steps.c.id.in_(dependants), steps.c.status == StepStatus.PENDING.value)
        .values(remaining_deps=steps.c.remaining_deps - 1, updated_at=now)
    )
    connection.execute(
        move(
            StepStatus.PENDING,
            StepStatus.READY,
            steps.c.id.in_(dependants),
            steps.c.remaining_deps <= 0,
            next_run_at=now,
            updated_at=now,
        )
    )


_WAITING = (StepStatus.AWAITING_APPROVAL, StepStatus.AWAITING_GRANT)


def release(
    connection: Connection,
    step_id: str,
    token: str,
    target: StepStatus,
    now: int,
    **values: Any,
) -> Row[Any] | None:
    """Move the ``executing`` step held by ``token`` to ``target`` and release the lease
    (``lease_token``, ``lease_until`` cleared), with ``values``; its ``dependants`` (JSON
    text) when it moved, ``None`` when the lease is no longer ``token``'s. Raises
    :class:`StepTransitionError` for a ``target`` the table does not allow."""
    return connection.execute(
        move(
            StepStatus.EXECUTING,
            target,
            steps.c.id == step_id,
            steps.c.lease_token == token,
            lease_token=None,
            lease_until=None,
            updated_at=now,
            **values,
        ).returning(steps.c.dependants)
    ).first()


def complete_unleased(
    connection: Connection,
    step_id: str,
    from_status: StepStatus,
    *,
    reason: str,
    result: str,
    now: int,
) -> Row[Any] | None:
    """Complete the step no worker holds, if it is still in ``from_status``, with ``reason``
    and ``result`` (JSON text), finished at ``now``; its ``plan_id`` and ``dependants`` when
    it moved, else ``None``."""
    return connection.execute(
        move(
            from_status,
            StepStatus.COMPLETED,
            steps.c.id == step_id,
            steps.c.lease_token.is_(None),
            status_reason=reason,
            next_run_at=None,
            result=result,
            finished_at=now,
            updated_at=now,
        ).returning(steps.c.plan_id, steps.c.dependants)
    ).first()


def executing_of_plan(connection: Connection, plan_id: str) -> list[Row[Any]]:
    """The plan's ``executing`` step rows, each with its plan's ``revision``."""
    return list(
        connection.execute(
            select(steps, plans.c.revision)
            .join(plans, plans.c.id == steps.c.plan_id)
            .where(steps.c.plan_id == plan_id, steps.c.status == StepStatus.EXECUTING.value)
        ).all()
    )


def cancel_open(connection: Connection, plan_id: str, reason: str, now: int) -> int:
    """Cancel every step of the plan not yet terminal, with ``reason``, its lease released
    and nothing due; how many were cancelled."""
    result = connection.execute(
        move(
            OPEN_STEP_STATUSES,
            StepStatus.CANCELLED,
            steps.c.plan_id == plan_id,
            status_reason=reason,
            lease_token=None,
            lease_until=None,
            next_run_at=None,
            finished_at=now,
            updated_at=now,
        )
    )
    return int(result.rowcount)


def add_all(connection: Connection, rows: Sequence[dict[str, Any]]) -> None:
    """Insert a new plan revision's step rows (one executemany); ``rows`` is not empty."""
    connection.execute(insert(steps), list(rows))


def ready_waiting(connection: Connection, step_id: str, reason: str, now: int) -> None:
    """The approval or grant the step waited on was given: ``awaiting_approval`` or
    ``awaiting_grant`` → ``ready``, due at ``now``, with ``reason``."""
    connection.execute(
        move(
            _WAITING,
            StepStatus.READY,
            steps.c.id == step_id,
            next_run_at=now,
            status_reason=reason,
            updated_at=now,
        )
    )


def end_waiting(
    connection: Connection, step_id: str, status: StepStatus, reason: str, now: int
) -> bool:
    """The approval or grant the step waited on was refused: ``awaiting_approval`` or
    ``awaiting_grant`` → ``status`` (``failed`` or ``cancelled``), finished at ``now``;
    whether it moved. Raises :class:`StepTransitionError` for another ``status``."""
    moved = connection.execute(
        move(
            _WAITING,
            status,
            steps.c.id == step_id,
            status_reason=reason,
            next_run_at=None,
            finished_at=now,
            updated_at=now,
        )
    )
    return moved.rowcount == 1


def run_again(connection: Connection, step_id: str, group: int, reason: str, now: int) -> bool:
    """An operator said the ``blocked`` step's effect did not happen: it is ``ready`` and due
    at ``now`` in attempt group ``group``, with ``reason``, if no worker holds it; whether it
    moved."""
    moved = connection.execute(
        move(
            StepStatus.BLOCKED,
            StepStatus.READY,
            steps.c.id == step_id,
            steps.c.lease_token.is_(None),
            status_reason=reason,
            attempt_group=group,
            next_run_at=now,
            updated_at=now,
        )
    )
    return moved.rowcount == 1


def count_blocked(connection: Connection, plan_id: str) -> int:
    """How many of the plan's steps are ``blocked``."""
    return int(
        connection.execute(
            select(func.count())
            .select_from(steps)
            .where(steps.c.plan_id == plan_id, steps.c.status == StepStatus.BLOCKED.value)
        ).scalar()
        or 0
    )


def _finish_statement_pg(status: StepStatus) -> Any:
    """PostgreSQL: a step's ``status`` (``completed``/``skipped``) as one statement
    (data-modifying CTEs): release the step on our token, move the attempt to history, count
    down the dependants and ready those at zero, count down the plan's open steps. Returns
    the plan's open steps left, or no row when the lease was lost (then nothing happened).
    Parameters are named ``p_*``: SQLAlchemy would add a parameter named like a column to the
    SET clause of every UPDATE in the statement."""
    released = (
        move(
            StepStatus.EXECUTING,
            status,
            steps.c.id == bindparam("p_step"),
            steps.c.lease_token == bindparam("p_token"),
            status_reason=bindparam("p_reason"),
            result=bindparam("p_result"),
            observation=bindparam("p_observation"),
            lease_token=None,
            lease_until=None,
            next_run_at=None,
            finished_at=bindparam("p_now"),
            updated_at=bindparam("p_now"),
        )
        .returning(steps.c.id, steps.c.plan_id, steps.c.dependants)
        .cte("released")
    )
    dropped = (
        delete(attempts)
        .where(attempts.c.id == bindparam("p_attempt"), attempts.c.step_id == released.c.id)
        .returning(attempts.c.id)
        .cte("dropped")
    )
    history = (
        insert(attempt_history)
        .from_select(
            [
                "id",
                "step_id",
                "number",
                "lease_token",
                "worker_id",
                "idempotency_key",
                "started_at",
                "finished_at",
                "outcome",
                "result",
            ],
            select(
                bindparam("p_attempt"),
                released.c.id,
                bindparam("p_number"),
                bindparam("p_token"),
                bindparam("p_worker"),
                bindparam("p_key"),
                bindparam("p_started"),
                bindparam("p_now"),
                literal(AttemptOutcome.COMPLETED.value),
                bindparam("p_result"),
            ),
        )
        .returning(attempt_history.c.id)
        .cte("history")
    )
    waiting = select(json_elements(released.c.dependants)).scalar_subquery()
    last = steps.c.remaining_deps <= 1
    readied = (
        move_when(
            StepStatus.PENDING,
            StepStatus.READY,
            last,
            steps.c.id.in_(waiting),
            remaining_deps=steps.c.remaining_deps - 1,
            next_run_at=case((last, bindparam("p_now")), else_=steps.c.next_run_at),
            updated_at=bindparam("p_now"),
        )
        .returning(steps.c.id)
        .cte("readied")
    )
    counted = (
        update(plans)
        .where(plans.c.id == released.c.plan_id)
        .values(open_steps=plans.c.open_steps - 1)
        .returning(plans.c.open_steps)
        .cte("counted")
    )
    return select(
        counted.c.open_steps,
        select(func.count()).select_from(dropped).scalar_subquery().label("dropped"),
        select(func.count()).select_from(history).scalar_subquery().label("history"),
        select(func.count()).select_from(readied).scalar_subquery().label("readied"),
    )


_FINISH_PG = {status: _finish_statement_pg(status) for status in _DONE}


def finish_done(
    engine: Engine,
    attempt: Attempt,
    status: StepStatus,
    now: int,
    *,
    step_id: str,
    token: str,
    reason: str | None,
    result: str | None,
    observation: str | None,
) -> int | None:
    """PostgreSQL only: end the ``executing`` step ``step_id`` held by ``token`` as ``status``
    (``completed``/``skipped``; ``result``/``observation`` as JSON text) in one statement in
    autocommit, with its attempt moved to history, its dependants counted down and readied,
    and its plan's ``open_steps`` counted down. Returns the plan's open steps left, or
    ``None`` when the lease was lost (then nothing was written). Raises ``KeyError`` for
    another status."""
    parameters = {
        "p_step": step_id,
        "p_token": token,
        "p_reason": reason,
        "p_result": result,
        "p_observation": observation,
        "p_now": now,
        "p_attempt": attempt.id,
        "p_number": attempt.number,
        "p_worker": attempt.worker_id,
        "p_key": attempt.idempotency_key,
        "p_started": attempt.started_at,
    }
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as auto:
        row = auto.execute(_FINISH_PG[status], parameters).first()
    return None if row is None else int(row.open_steps)


# -- reads -------------------------------------------------------------------------------------


def get(connection: Connection, step_id: str) -> Row[Any] | None:
    """The step row, or ``None`` when there is none."""
    return connection.execute(select(steps).where(steps.c.id == step_id)).first()


def of_plan(
    connection: Connection, plan_id: str, *, keys: Iterable[str] | None = None
) -> list[Row[Any]]:
    """The plan's step rows by position; only those whose ``key`` is in ``keys`` when given."""
    query = select(steps).where(steps.c.plan_id == plan_id)
    if keys is not None:
        query = query.where(steps.c.key.in_(list(keys)))
    return list(connection.execute(query.order_by(steps.c.position)).all())


def of_plans(connection: Connection, plan_ids: Iterable[str]) -> list[Row[Any]]:
    """The step rows of the plans ``plan_ids`` (in no promised order)."""
    return list(connection.execute(select(steps).where(steps.c.plan_id.in_(list(plan_ids)))).all())


def count_by_status(connection: Connection, plan_ids: Iterable[str]) -> list[tuple[str, str, int]]:
    """``(plan id, status, how many steps)`` for each status the plans' steps are in."""
    rows = connection.execute(
        select(steps.c.plan_id, steps.c.status, func.count())
        .where(steps.c.plan_id.in_(list(plan_ids)))
        .group_by(steps.c.plan_id, steps.c.status)
    ).all()
    return [(str(plan_id), str(status), int(number)) for plan_id, status, number in rows]


def count_in(connection: Connection, statuses: Iterable[str]) -> int:
    """How many steps, of any plan, are in one of ``statuses`` (wire values)."""
    number = connection.execute(
        select(func.count()).select_from(steps).where(steps.c.status.in_(tuple(statuses)))
    ).scalar()
    return int(number or 0)
