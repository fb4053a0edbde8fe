"""Cancelling a plan on an operator's word (plans.md section 6: a plan can be abandoned).

:func:`cancel_plan` closes an open plan as ``abandoned`` without replanning: its open steps
are cancelled (a worker holding one loses its lease and records nothing more), its open
approvals withdrawn, its intention abandoned (:func:`~cerebri.execution.progress.stop_plan`).
"""

from __future__ import annotations

from types import NoneType

from cerebri._guard import arguments
from cerebri._json import JSONValue
from cerebri.execution.context import Executor
from cerebri.execution.errors import ExecutionError, execution_argument_error
from cerebri.execution.principals import principal_id
from cerebri.execution.progress import stop_plan
from cerebri.execution.store import plans as plan_store
from cerebri.execution.views import list_plans
from cerebri.plans import OPEN_PLAN_STATUSES, PlanStatus

__all__ = ["cancel_plan"]

_OPEN = frozenset(s.value for s in OPEN_PLAN_STATUSES)


@arguments(execution_argument_error, executor=Executor, plan_id=str, by=str, reason=(str, NoneType))
def cancel_plan(
    executor: Executor, plan_id: str, *, by: str, reason: str | None = None
) -> dict[str, JSONValue]:
    """Abandon the open plan ``plan_id`` as principal ``by`` (``reason`` is kept in its
    ``status_reason``: ``cancelled by <by>[: <reason>]``). Returns the plan's
    :func:`~cerebri.execution.views.list_plans` summary afterwards.

    Raises :class:`ExecutionError` ``execution.not_found`` for an unknown plan,
    ``execution.invalid_state`` for a plan already closed (or a draft, which never runs),
    ``execution.invalid_principal`` for a ``by`` that is not a principal.
    """
    by = principal_id(by)
    why = f"cancelled by {by}" + (f": {reason}" if reason else "")
    with executor.transaction() as connection:
        status = plan_store.status_of(connection, plan_id)
        if status is None:
            raise ExecutionError(f"no plan {plan_id!r}", code="execution.not_found")
        if status not in _OPEN:
            raise ExecutionError(
                f"plan {plan_id} is {status}: only an open plan can be cancelled",
                code="execution.invalid_state",
            )
        stop_plan(connection, executor, plan_id, PlanStatus.ABANDONED, why, replan=False)
    return next(p for p in list_plans(executor) if p["id"] == plan_id)
