"""The timers repository: durable wake-ups not carried by a step (decision 0043).

A timer (:class:`~cerebri.execution.store.vocabulary.TimerKind`) is inserted with the instant
it is due (:func:`add`) and fires once: :func:`fire` is a conditional update on ``fired_at``,
so of two sweeps that read the same due timer (:func:`due`) exactly one fires it. Every
function runs in the caller's transaction; instants are nanoseconds since the epoch.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, Row, insert, select, update

from cerebri.execution.store.schema import timers
from cerebri.execution.store.vocabulary import TimerKind

__all__ = ["add", "due", "fire"]


def add(
    connection: Connection,
    timer_id: str,
    kind: TimerKind,
    ref: str,
    *,
    due_at: int,
    now: int,
) -> None:
    """Insert a timer of ``kind`` for ``ref`` (an approval id, a plan id) due at ``due_at``."""
    connection.execute(
        insert(timers).values(id=timer_id, kind=kind.value, ref=ref, due_at=due_at, created_at=now)
    )


def due(connection: Connection, now: int, limit: int) -> list[Row[Any]]:
    """At most ``limit`` timers not yet fired and due at ``now``, by (``due_at``, ``id``)."""
    return list(
        connection.execute(
            select(timers)
            .where(timers.c.fired_at.is_(None), timers.c.due_at <= now)
            .order_by(timers.c.due_at, timers.c.id)
            .limit(limit)
        ).all()
    )


def fire(connection: Connection, timer_id: str, now: int) -> bool:
    """Mark the timer fired at ``now`` unless it was already; whether this call fired it."""
    claimed = connection.execute(
        update(timers)
        .where(timers.c.id == timer_id, timers.c.fired_at.is_(None))
        .values(fired_at=now)
    )
    return claimed.rowcount == 1
