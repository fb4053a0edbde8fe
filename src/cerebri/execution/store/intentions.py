"""The intentions repository: ``open → fulfilled | abandoned`` (decision 0043).

An intention is what a plan's revisions are for (its ``goal``, JSON text), or, with a
``parent_step_id``, what a step waiting on an approval is for. It is inserted ``open``
(:func:`insert_open`) and closed once, by conditional updates that match it only while it is
still open (:func:`close`, :func:`close_of_steps`); :func:`note` keeps a reason on it whatever
its status. Every function runs in the caller's transaction; instants are nanoseconds since
the epoch.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sqlalchemy import Connection, Row, insert, select, update

from cerebri.execution.store.errors import StoreError
from cerebri.execution.store.schema import intentions
from cerebri.execution.store.vocabulary import IntentionStatus

__all__ = ["close", "close_of_steps", "get", "insert_open", "note"]

_OPEN = IntentionStatus.OPEN.value


def _closing(status: IntentionStatus) -> str:
    if status is IntentionStatus.OPEN:
        raise StoreError("an intention is never reopened", code="store.illegal_transition")
    return status.value


def insert_open(connection: Connection, **values: Any) -> None:
    """Insert an ``open`` intention with ``values`` (``id``, ``goal`` as JSON text,
    ``created_at``, ``updated_at``; ``parent_step_id`` for a subordinate one)."""
    connection.execute(insert(intentions).values(status=_OPEN, **values))


def get(connection: Connection, intention_id: str) -> Row[Any]:
    """The intention row; ``sqlalchemy.exc.NoResultFound`` when there is none."""
    return connection.execute(select(intentions).where(intentions.c.id == intention_id)).one()


def close(
    connection: Connection, intention_id: str, status: IntentionStatus, now: int, **values: Any
) -> None:
    """Close the intention as ``status`` at ``now`` (``closed_at``) with ``values``
    (``status_reason``), only while it is open. Raises :class:`StoreError`
    ``store.illegal_transition`` for ``status`` ``open``."""
    connection.execute(
        update(intentions)
        .where(intentions.c.id == intention_id, intentions.c.status == _OPEN)
        .values(status=_closing(status), closed_at=now, updated_at=now, **values)
    )


def close_of_steps(
    connection: Connection,
    step_ids: Iterable[str],
    status: IntentionStatus,
    now: int,
    **values: Any,
) -> None:
    """Close, as ``status``, the open intentions whose parent is one of ``step_ids`` (the
    approvals those steps waited on were settled), with ``values`` (``status_reason``).
    Raises :class:`StoreError` ``store.illegal_transition`` for ``status`` ``open``."""
    connection.execute(
        update(intentions)
        .where(intentions.c.parent_step_id.in_(list(step_ids)), intentions.c.status == _OPEN)
        .values(status=_closing(status), closed_at=now, updated_at=now, **values)
    )


def note(connection: Connection, intention_id: str, reason: str, now: int) -> None:
    """Keep ``reason`` as the intention's ``status_reason``, whatever its status."""
    connection.execute(
        update(intentions)
        .where(intentions.c.id == intention_id)
        .values(status_reason=reason, updated_at=now)
    )
