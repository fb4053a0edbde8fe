"""The approvals repository: ``open → approved | rejected | expired | withdrawn`` (decision 0043).

An approval row is inserted open (:func:`insert_open`) and settled once, by a conditional
update that matches it only while it is still open (:func:`settle`, :func:`withdraw_of_plan`):
of two settlements racing, exactly one writes. :func:`consume` marks the one use of an
approved request. Every function runs in the caller's transaction; instants are nanoseconds
since the epoch.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sqlalchemy import Connection, Row, insert, select, update

from cerebri.execution.store.errors import StoreError
from cerebri.execution.store.schema import approvals
from cerebri.execution.store.vocabulary import ApprovalStatus

__all__ = [
    "approved_of_plan",
    "consume",
    "expiries_of_plans",
    "get",
    "insert_open",
    "listed",
    "of_plan",
    "settle",
    "withdraw_of_plan",
]

_OPEN = ApprovalStatus.OPEN.value


def get(connection: Connection, approval_id: str) -> Row[Any] | None:
    """The approval row, or ``None``."""
    return connection.execute(select(approvals).where(approvals.c.id == approval_id)).first()


def listed(connection: Connection, status: str | None) -> list[Row[Any]]:
    """Approval rows by (``created_at``, ``id``); only those in ``status`` unless ``None``."""
    query = select(approvals).order_by(approvals.c.created_at, approvals.c.id)
    if status is not None:
        query = query.where(approvals.c.status == status)
    return list(connection.execute(query).all())


def approved_of_plan(connection: Connection, plan_id: str) -> list[Row[Any]]:
    """The plan's ``approved`` approval rows (in no promised order)."""
    return list(
        connection.execute(
            select(approvals).where(
                approvals.c.plan_id == plan_id,
                approvals.c.status == ApprovalStatus.APPROVED.value,
            )
        ).all()
    )


def of_plan(connection: Connection, plan_id: str) -> list[Row[Any]]:
    """The plan's approval rows by (``created_at``, ``id``)."""
    return list(
        connection.execute(
            select(approvals)
            .where(approvals.c.plan_id == plan_id)
            .order_by(approvals.c.created_at, approvals.c.id)
        ).all()
    )


def expiries_of_plans(connection: Connection, plan_ids: Iterable[str]) -> dict[str, int]:
    """``{approval id: expires_at}`` of every approval of the plans ``plan_ids``."""
    rows = connection.execute(
        select(approvals.c.id, approvals.c.expires_at).where(
            approvals.c.plan_id.in_(list(plan_ids))
        )
    ).all()
    return {row.id: int(row.expires_at) for row in rows}


def insert_open(connection: Connection, **values: Any) -> None:
    """Insert an ``open`` approval row with ``values`` (``id``, ``plan_id``, ``step_id``,
    ``requester``, ``request`` as JSON text, ``created_at``, ``expires_at``,
    ``subject_digest``, ``author``)."""
    connection.execute(insert(approvals).values(status=_OPEN, **values))


def settle(
    connection: Connection, approval_id: str, status: ApprovalStatus, now: int, **values: Any
) -> bool:
    """Settle the approval as ``status`` at ``now`` (``decided_at``) with ``values``, only if
    it is still open; whether it was. Raises :class:`StoreError` ``store.illegal_transition``
    for ``status`` ``open`` (an approval is never reopened)."""
    if status is ApprovalStatus.OPEN:
        raise StoreError("an approval is never reopened", code="store.illegal_transition")
    done = connection.execute(
        update(approvals)
        .where(approvals.c.id == approval_id, approvals.c.status == _OPEN)
        .values(status=status.value, decided_at=now, **values)
    )
    return done.rowcount == 1


def withdraw_of_plan(connection: Connection, plan_id: str, reason: str, now: int) -> list[str]:
    """Withdraw every open approval of the plan for ``reason``; the ids of the steps that
    waited on them."""
    withdrawn = connection.execute(
        update(approvals)
        .where(approvals.c.plan_id == plan_id, approvals.c.status == _OPEN)
        .values(status=ApprovalStatus.WITHDRAWN.value, status_reason=reason, decided_at=now)
        .returning(approvals.c.step_id)
    ).all()
    return [row.step_id for row in withdrawn if row.step_id is not None]


def consume(connection: Connection, approval_id: str, now: int) -> None:
    """Mark the approval used (``consumed_at`` = ``now``), unless it was already."""
    connection.execute(
        update(approvals)
        .where(approvals.c.id == approval_id, approvals.c.consumed_at.is_(None))
        .values(consumed_at=now)
    )
