"""Named sandboxes: a plan submitted into one acts only while it is enabled (plans.md 6).

:func:`set_sandbox` creates or updates a sandbox. Disabling one stops every effect of its
plans at the next claim (the step is ``blocked`` with reason ``sandbox_disabled: ...``);
enabling it again makes those steps ``ready`` and due at once, and their plans ``executing``.
"""

from __future__ import annotations

from types import NoneType
from typing import Any

from sqlalchemy import Connection, select, update

from cerebri._guard import arguments
from cerebri._json import JSONValue
from cerebri.execution.context import Executor
from cerebri.execution.errors import ExecutionError, execution_argument_error
from cerebri.execution.store.dialect import upsert
from cerebri.execution.store.schema import plans, sandboxes, steps
from cerebri.execution.store.transitions import move
from cerebri.execution.views import instant_text
from cerebri.plans import PlanStatus, StepStatus

__all__ = ["list_sandboxes", "set_sandbox"]

_DISABLED_PREFIX = "sandbox_disabled"


def _upsert(connection: Connection, values: dict[str, Any]) -> None:
    """Insert or update one sandbox row in one statement (``ON CONFLICT (name) DO UPDATE``),
    so two operators enabling the same new sandbox never collide."""
    connection.execute(
        upsert(
            connection,
            sandboxes,
            values,
            key=[sandboxes.c.name],
            refresh=("enabled", "reason", "updated_at"),
        )
    )


def _wire(row: Any) -> dict[str, JSONValue]:
    return {
        "name": row.name,
        "enabled": bool(row.enabled),
        "reason": row.reason,
        "updated_at": instant_text(row.updated_at),
    }


@arguments(
    execution_argument_error, executor=Executor, name=str, enabled=bool, reason=(str, NoneType)
)
def set_sandbox(
    executor: Executor, name: str, enabled: bool, reason: str | None = None
) -> dict[str, JSONValue]:
    """Create or update sandbox ``name``; returns ``{"name", "enabled", "reason",
    "updated_at", "steps_readied"}``. Enabling readies (``next_run_at`` = now) every step of
    an open plan of this sandbox that was ``blocked`` with a reason starting
    ``sandbox_disabled``; ``steps_readied`` counts them.

    Raises :class:`ExecutionError` ``execution.invalid_argument`` for an empty name."""
    if not isinstance(name, str) or not name.strip():
        raise ExecutionError("a sandbox has a name", code="execution.invalid_argument")
    now = executor.now_ns()
    readied = 0
    with executor.transaction() as connection:
        _upsert(
            connection,
            {"name": name, "enabled": bool(enabled), "reason": reason, "updated_at": now},
        )
        if enabled:
            of_sandbox = select(plans.c.id).where(plans.c.sandbox == name)
            done = connection.execute(
                move(
                    StepStatus.BLOCKED,
                    StepStatus.READY,
                    steps.c.plan_id.in_(of_sandbox),
                    steps.c.status_reason.startswith(_DISABLED_PREFIX),
                    next_run_at=now,
                    status_reason=f"sandbox {name} enabled again",
                    updated_at=now,
                )
            )
            readied = int(done.rowcount)
            connection.execute(
                update(plans)
                .where(
                    plans.c.sandbox == name,
                    plans.c.status == PlanStatus.BLOCKED.value,
                    plans.c.status_reason.startswith(_DISABLED_PREFIX),
                )
                .values(status=PlanStatus.EXECUTING.value, status_reason=None, updated_at=now)
            )
        row = connection.execute(select(sandboxes).where(sandboxes.c.name == name)).one()
    return {**_wire(row), "steps_readied": readied}


@arguments(execution_argument_error, executor=Executor)
def list_sandboxes(executor: Executor) -> list[dict[str, JSONValue]]:
    """Every sandbox by name: ``{"name", "enabled", "reason", "updated_at"}``."""
    with executor.engine.connect() as connection:
        rows = connection.execute(select(sandboxes).order_by(sandboxes.c.name)).all()
    return [_wire(r) for r in rows]
