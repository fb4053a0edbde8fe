"""The sandboxes repository: named switches a plan's effects depend on (decision 0043).

A sandbox row is written by one upsert (:func:`put`), so two operators enabling the same new
sandbox never collide. Enabling one again releases what disabling it stopped: the ``blocked``
steps of its plans whose reason starts with a prefix (:func:`ready_blocked_steps`, a
``blocked → ready`` move of :mod:`.transitions`) and its ``blocked`` plans
(:func:`resume_blocked_plans`). Every function runs in the caller's transaction; instants are
nanoseconds since the epoch.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, Row, select, update

from cerebri.execution.store.dialect import upsert
from cerebri.execution.store.schema import plans, sandboxes, steps
from cerebri.execution.store.transitions import move
from cerebri.plans.vocabulary import PlanStatus, StepStatus

__all__ = ["enabled", "get", "listed", "put", "ready_blocked_steps", "resume_blocked_plans"]


def put(connection: Connection, name: str, enabled: bool, reason: str | None, now: int) -> None:
    """Insert or update sandbox ``name`` in one statement (``ON CONFLICT (name) DO UPDATE``)."""
    connection.execute(
        upsert(
            connection,
            sandboxes,
            {"name": name, "enabled": enabled, "reason": reason, "updated_at": now},
            key=[sandboxes.c.name],
            refresh=("enabled", "reason", "updated_at"),
        )
    )


def get(connection: Connection, name: str) -> Row[Any] | None:
    """The sandbox row (``name``, ``enabled``, ``reason``, ``updated_at``), or ``None``."""
    return connection.execute(select(sandboxes).where(sandboxes.c.name == name)).first()


def listed(connection: Connection) -> list[Row[Any]]:
    """Every sandbox row, by name."""
    return list(connection.execute(select(sandboxes).order_by(sandboxes.c.name)).all())


def enabled(connection: Connection, name: str) -> bool | None:
    """Whether sandbox ``name`` is enabled; ``None`` when there is no such sandbox."""
    value = connection.execute(select(sandboxes.c.enabled).where(sandboxes.c.name == name)).scalar()
    return None if value is None else bool(value)


def ready_blocked_steps(
    connection: Connection, name: str, prefix: str, reason: str, now: int
) -> int:
    """Make every ``blocked`` step of a plan of sandbox ``name`` whose reason starts with
    ``prefix`` ``ready`` and due at ``now``, with ``reason``; how many moved."""
    of_sandbox = select(plans.c.id).where(plans.c.sandbox == name)
    done = connection.execute(
        move(
            StepStatus.BLOCKED,
            StepStatus.READY,
            steps.c.plan_id.in_(of_sandbox),
            steps.c.status_reason.startswith(prefix),
            next_run_at=now,
            status_reason=reason,
            updated_at=now,
        )
    )
    return int(done.rowcount)


def resume_blocked_plans(connection: Connection, name: str, prefix: str, now: int) -> None:
    """Every ``blocked`` plan of sandbox ``name`` whose reason starts with ``prefix`` is
    ``executing`` again, its reason cleared."""
    connection.execute(
        update(plans)
        .where(
            plans.c.sandbox == name,
            plans.c.status == PlanStatus.BLOCKED.value,
            plans.c.status_reason.startswith(prefix),
        )
        .values(status=PlanStatus.EXECUTING.value, status_reason=None, updated_at=now)
    )
