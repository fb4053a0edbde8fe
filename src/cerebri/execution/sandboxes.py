"""Named sandboxes: a plan submitted into one acts only while it is enabled (plans.md 6).

:func:`set_sandbox` creates or updates a sandbox. Disabling one stops every effect of its
plans at the next claim (the step is ``blocked`` with reason ``sandbox_disabled: ...``);
enabling it again makes those steps ``ready`` and due at once, and their plans ``executing``.
"""

from __future__ import annotations

from types import NoneType
from typing import Any

from cerebri._guard import arguments
from cerebri._json import JSONValue
from cerebri.execution.context import Executor
from cerebri.execution.errors import ExecutionError, execution_argument_error
from cerebri.execution.store import sandboxes as sandbox_store
from cerebri.execution.views import instant_text

__all__ = ["list_sandboxes", "set_sandbox"]

_DISABLED_PREFIX = "sandbox_disabled"


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
        sandbox_store.put(connection, name, bool(enabled), reason, now)
        if enabled:
            readied = sandbox_store.ready_blocked_steps(
                connection, name, _DISABLED_PREFIX, f"sandbox {name} enabled again", now
            )
            sandbox_store.resume_blocked_plans(connection, name, _DISABLED_PREFIX, now)
        row = sandbox_store.get(connection, name)
        assert row is not None  # written just above, in this transaction
    return {**_wire(row), "steps_readied": readied}


@arguments(execution_argument_error, executor=Executor)
def list_sandboxes(executor: Executor) -> list[dict[str, JSONValue]]:
    """Every sandbox by name: ``{"name", "enabled", "reason", "updated_at"}``."""
    with executor.engine.connect() as connection:
        rows = sandbox_store.listed(connection)
    return [_wire(r) for r in rows]
