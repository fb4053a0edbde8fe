"""The attempts repository: open attempts (``attempts``) and finished ones (``attempt_history``)
(decision 0043).

An attempt is one try at a step under one lease. A non-idempotent attempt is stored as an open
row once its invocation may begin (:func:`begin`), carries the outcome its invocation returned
(:func:`save_outcome`), and moves to history when it ends (:func:`close`). An idempotent
attempt is not stored while it runs; a takeover or a stopped plan rebuilds it from the step
row (:func:`unstored`). :func:`from_row` is the one place an :class:`Attempt` is built from an
``attempts`` row. Every function that takes a connection runs in the caller's transaction.
Instants are nanoseconds since the epoch.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Final

from sqlalchemy import Connection, Row, delete, insert, select, update

from cerebri._json import JSONValue
from cerebri.execution._rows import dumps, loads
from cerebri.execution.store.schema import attempt_history, attempts, steps
from cerebri.execution.store.vocabulary import AttemptOutcome
from cerebri.plans.vocabulary import StepStatus

__all__ = [
    "Attempt",
    "amend_history",
    "attempt_id",
    "begin",
    "close",
    "count_history",
    "discard",
    "finished_rows",
    "from_row",
    "holders",
    "lease_holder",
    "lease_token",
    "open_of_plan",
    "open_of_step",
    "open_rows",
    "save_outcome",
    "unstored",
]


@dataclass(frozen=True, slots=True)
class Attempt:
    """An open attempt row: ``invoked_at`` (ns) set when a non-idempotent invocation may have
    begun; ``outcome``/``result``/``error`` set when its result was saved."""

    id: str
    number: int
    lease_token: str
    worker_id: str | None
    idempotency_key: str
    started_at: int
    invoked_at: int | None
    outcome: str | None
    result: Any
    error: Any


_HOLDER: Final = "#"


def lease_token(worker_id: str, fresh_id: str) -> str:
    """``<worker id>#<fresh id>``: a lease token whose holder is known from the token alone."""
    return f"{worker_id}{_HOLDER}{fresh_id}"


def lease_holder(token: str | None) -> str | None:
    """The worker id a lease token was issued to (``<worker id>#<fresh id>``), or ``None``."""
    if not token or _HOLDER not in token:
        return None
    return token.rsplit(_HOLDER, 1)[0]


def attempt_id(step_id: str, number: int) -> str:
    """``<step id>:<number>``: an attempt's id, known without storing the attempt."""
    return f"{step_id}:{number}"


def from_row(row: Row[Any] | Any) -> Attempt:
    """The :class:`Attempt` of an ``attempts`` row (its JSON columns decoded)."""
    return Attempt(
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


def unstored(
    step_id: str, number: int, token: str | None, idempotency_key: str, started_at: int
) -> Attempt:
    """An attempt that was not stored while it ran (an idempotent step's), rebuilt from its
    step row: number ``number``, the lease ``token`` it ran under, begun at ``started_at``."""
    return Attempt(
        id=attempt_id(step_id, number),
        number=number,
        lease_token=token or "",
        worker_id=lease_holder(token),
        idempotency_key=idempotency_key,
        started_at=started_at,
        invoked_at=None,
        outcome=None,
        result=None,
        error=None,
    )


def open_of_step(connection: Connection, step_id: str) -> list[Attempt]:
    """The open attempts of a step, by number."""
    rows = connection.execute(
        select(attempts).where(attempts.c.step_id == step_id).order_by(attempts.c.number)
    ).all()
    return [from_row(row) for row in rows]


def open_of_plan(
    connection: Connection, plan_id: str, statuses: Iterable[StepStatus]
) -> list[tuple[str, Attempt]]:
    """``(step id, attempt)`` for each open attempt of the plan's steps in ``statuses``."""
    rows = connection.execute(
        select(attempts)
        .join(steps, steps.c.id == attempts.c.step_id)
        .where(steps.c.plan_id == plan_id, steps.c.status.in_([s.value for s in statuses]))
    ).all()
    return [(row.step_id, from_row(row)) for row in rows]


def finished_rows(connection: Connection, step_ids: Iterable[str]) -> list[Row[Any]]:
    """The ``attempt_history`` rows of ``step_ids``, by (step id, number)."""
    return list(
        connection.execute(
            select(attempt_history)
            .where(attempt_history.c.step_id.in_(list(step_ids)))
            .order_by(attempt_history.c.step_id, attempt_history.c.number)
        ).all()
    )


def open_rows(connection: Connection, step_ids: Iterable[str]) -> list[Row[Any]]:
    """The open ``attempts`` rows of ``step_ids``, by (step id, number)."""
    return list(
        connection.execute(
            select(attempts)
            .where(attempts.c.step_id.in_(list(step_ids)))
            .order_by(attempts.c.step_id, attempts.c.number)
        ).all()
    )


def holders(connection: Connection) -> list[Any]:
    """``step_id``, ``lease_token`` and ``worker_id`` of every open attempt (in no promised
    order): who ran each step under which lease."""
    return list(
        connection.execute(
            select(attempts.c.step_id, attempts.c.lease_token, attempts.c.worker_id)
        ).all()
    )


def _columns(attempt: Attempt, step_id: str) -> dict[str, Any]:
    """The columns an open row and a history row share."""
    return {
        "id": attempt.id,
        "step_id": step_id,
        "number": attempt.number,
        "lease_token": attempt.lease_token,
        "worker_id": attempt.worker_id,
        "idempotency_key": attempt.idempotency_key,
        "started_at": attempt.started_at,
    }


def begin(connection: Connection, attempt: Attempt, step_id: str, now: int) -> None:
    """Store ``attempt`` as an open row, its invocation possibly begun at ``now``."""
    connection.execute(insert(attempts).values(**_columns(attempt, step_id), invoked_at=now))


def _outcome_values(outcome: AttemptOutcome, result: JSONValue, error: JSONValue) -> dict[str, Any]:
    return {
        "outcome": outcome.value,
        "result": None if result is None else dumps(result),
        "error": None if error is None else dumps(error),
    }


def save_outcome(
    connection: Connection,
    attempt: Attempt,
    outcome: AttemptOutcome,
    result: JSONValue,
    error: JSONValue,
) -> bool:
    """Write what the invocation returned onto the attempt's open row, if it is still open
    under the attempt's lease token; whether it was."""
    saved = connection.execute(
        update(attempts)
        .where(attempts.c.id == attempt.id, attempts.c.lease_token == attempt.lease_token)
        .values(_outcome_values(outcome, result, error))
    )
    return saved.rowcount == 1


def amend_history(
    connection: Connection,
    attempt: Attempt,
    outcome: AttemptOutcome,
    result: JSONValue,
    error: JSONValue,
) -> None:
    """Write what the invocation returned onto the attempt's history row (it ended first)."""
    connection.execute(
        update(attempt_history)
        .where(attempt_history.c.id == attempt.id)
        .values(_outcome_values(outcome, result, error))
    )


def close(
    connection: Connection,
    attempt: Attempt,
    step_id: str,
    outcome: AttemptOutcome,
    now: int,
    *,
    result: JSONValue = None,
    error: JSONValue = None,
) -> None:
    """Write a finished attempt to ``attempt_history`` with its outcome, removing its open row
    when it had one."""
    connection.execute(delete(attempts).where(attempts.c.id == attempt.id))
    connection.execute(
        insert(attempt_history).values(
            **_columns(attempt, step_id),
            **_outcome_values(outcome, result, error),
            finished_at=now,
        )
    )


def discard(connection: Connection, attempt: Attempt, step_id: str) -> None:
    """Forget an attempt that did nothing of its own: a takeover that adopted the outcome a
    stopped worker saved (decision 0066). Its open row (if it had one) is removed, nothing
    goes to ``attempt_history``, and the step's ``attempts`` count gives its number back;
    the adopted attempt is the step's one attempt with that outcome."""
    connection.execute(delete(attempts).where(attempts.c.id == attempt.id))
    connection.execute(
        update(steps).where(steps.c.id == step_id).values(attempts=steps.c.attempts - 1)
    )


def count_history(connection: Connection, step_id: str, outcome: AttemptOutcome) -> int:
    """How many of the step's finished attempts ended with ``outcome``."""
    rows = connection.execute(
        select(attempt_history.c.id).where(
            attempt_history.c.step_id == step_id,
            attempt_history.c.outcome == outcome.value,
        )
    ).all()
    return len(rows)
