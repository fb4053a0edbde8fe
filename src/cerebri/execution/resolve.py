"""An operator settles a step that needs verification (plans.md section 6, crash rules).

A non-idempotent step whose worker stopped after the invocation may have begun, or whose
invocation ended in a retryable error that may have acted (not ``before_effect``, decision
0040), is ``blocked`` with a ``status_reason`` starting
``needs_verification`` and is never repeated on its own. A person looks at the world and
tells :func:`resolve_step` what happened:

* it happened: the step is ``completed`` with result ``{"resolved_by", "happened": true}``
  and the plan moves on (dependants readied, the plan may complete);
* it did not: the step runs again in a new attempt group (``attempt_group`` + 1, so a new
  idempotency key ``<plan>:<revision>:<key>:<group>``), ``ready`` and due now.
"""

from __future__ import annotations

from cerebri._guard import arguments
from cerebri._json import JSONValue
from cerebri.execution.context import Executor
from cerebri.execution.errors import ExecutionError, execution_argument_error
from cerebri.execution.principals import principal_id
from cerebri.execution.progress import complete_unleased
from cerebri.execution.store import plans as plan_store
from cerebri.execution.store import steps as step_store
from cerebri.execution.store.connection import Connection
from cerebri.execution.views import show_plan
from cerebri.plans import PlanStatus, StepStatus

__all__ = ["NEEDS_VERIFICATION", "resolve_step"]

NEEDS_VERIFICATION = "needs_verification"
"""The prefix of the ``status_reason`` of a step an operator must resolve."""


def _unblock_plan(connection: Connection, plan_id: str, now: int) -> None:
    """A ``blocked`` plan with no blocked step left is ``executing`` again."""
    if step_store.count_blocked(connection, plan_id):
        return
    plan_store.set_status(
        connection,
        plan_id,
        PlanStatus.EXECUTING,
        now,
        leaving=[PlanStatus.BLOCKED],
        status_reason=None,
    )


@arguments(execution_argument_error, executor=Executor, step_id=str, happened=bool, by=str)
def resolve_step(
    executor: Executor, step_id: str, *, happened: bool, by: str
) -> dict[str, JSONValue]:
    """Settle the ``blocked`` step ``step_id`` (reason ``needs_verification``) as principal
    ``by``: ``happened`` completes it, otherwise it runs again in a new attempt group.
    Returns the step's wire form from :func:`~cerebri.execution.views.show_plan` afterwards.

    Raises :class:`ExecutionError` ``execution.not_found`` for an unknown step,
    ``execution.invalid_state`` for a step in any other state or blocked for another reason,
    ``execution.invalid_principal`` for a ``by`` that is not a principal.
    """
    by = principal_id(by)
    now = executor.now_ns()
    with executor.transaction() as connection:
        row = step_store.get(connection, step_id)
        if row is None:
            raise ExecutionError(f"no step {step_id!r}", code="execution.not_found")
        if row.status != StepStatus.BLOCKED.value or not (row.status_reason or "").startswith(
            NEEDS_VERIFICATION
        ):
            raise ExecutionError(
                f"step {step_id} is {row.status} ({row.status_reason or 'no reason'}): only a "
                f"blocked step that {NEEDS_VERIFICATION} can be resolved",
                code="execution.invalid_state",
            )
        if happened:
            moved = complete_unleased(
                connection,
                executor,
                step_id,
                from_status=StepStatus.BLOCKED,
                result={"resolved_by": by, "happened": True},
                reason=f"resolved by {by}: it happened",
            )
        else:
            group = int(row.attempt_group) + 1
            moved = step_store.run_again(
                connection,
                step_id,
                group,
                f"resolved by {by}: it did not happen; runs again as attempt group {group}",
                now,
            )
        if not moved:
            raise ExecutionError(
                f"step {step_id} changed meanwhile", code="execution.invalid_state"
            )
        _unblock_plan(connection, row.plan_id, now)
    shown = show_plan(executor, row.plan_id)["steps"]
    assert isinstance(shown, list)
    step: dict[str, JSONValue] = next(
        s for s in shown if isinstance(s, dict) and s["id"] == step_id
    )
    return step
