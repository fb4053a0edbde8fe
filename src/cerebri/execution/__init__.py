"""The execution stage: a durable store, stateless workers, approvals, verification and
replanning (plans.md sections 5-6, issue #12).

::

    executor = Executor(open_engine(parse_store_url(url)), SystemClock(), UuidIds(),
                        adapters=default_adapters(clock))
    submitted = submit(executor, draft_json)         # validated; a bad draft stays a draft
    run_worker(executor, until_idle=True)            # claim, act, record; no state in memory
    decide(executor, approval_id, approve=True, by="principal:alice")
    list_plans(executor); show_plan(executor, plan_id); stuck(executor)   # read-only views
    cancel_plan(executor, plan_id, by="principal:alice")
    set_sandbox(executor, "trial", enabled=True); recall(executor, goal_key)
    resolve_step(executor, step_id, happened=True, by="principal:alice")

Sub-packages: :mod:`cerebri.execution.store` (schema, migrations, URLs) and
:mod:`cerebri.execution.adapters` (how capabilities are carried out). Errors:
:class:`ExecutionError` (``execution.*``), :class:`ApprovalError` (``approval.*``),
:class:`~cerebri.execution.store.StoreError` (``store.*``),
:class:`~cerebri.execution.adapters.AdapterError` (``adapter.*``, ``calendar.*``).
"""

from cerebri.execution.approvals import decide, expire_due, list_approvals, withdraw
from cerebri.execution.cancel import cancel_plan
from cerebri.execution.claims import Claim, claim, heartbeat
from cerebri.execution.context import APPROVAL_TTL_SECONDS, Executor
from cerebri.execution.errors import ApprovalError, ExecutionError
from cerebri.execution.memories import recall
from cerebri.execution.preview import preview_draft, preview_plan
from cerebri.execution.replan import Replanner, alternatives_replanner
from cerebri.execution.resolve import NEEDS_VERIFICATION, resolve_step
from cerebri.execution.runner import MAX_INTERRUPTIONS, Hook, run_claim
from cerebri.execution.sandboxes import list_sandboxes, set_sandbox
from cerebri.execution.submit import DEFAULT_REQUESTER, Submitted, submit
from cerebri.execution.views import (
    STUCK_GRACE_SECONDS,
    list_plans,
    scheduled_steps,
    show_approval,
    show_plan,
    show_step,
    stuck,
)
from cerebri.execution.worker import WorkerReport, run_worker

__all__ = [
    "APPROVAL_TTL_SECONDS",
    "DEFAULT_REQUESTER",
    "MAX_INTERRUPTIONS",
    "NEEDS_VERIFICATION",
    "STUCK_GRACE_SECONDS",
    "ApprovalError",
    "Claim",
    "ExecutionError",
    "Executor",
    "Hook",
    "Replanner",
    "Submitted",
    "WorkerReport",
    "alternatives_replanner",
    "cancel_plan",
    "claim",
    "decide",
    "expire_due",
    "heartbeat",
    "list_approvals",
    "list_plans",
    "list_sandboxes",
    "preview_draft",
    "preview_plan",
    "recall",
    "resolve_step",
    "run_claim",
    "run_worker",
    "scheduled_steps",
    "set_sandbox",
    "show_approval",
    "show_plan",
    "show_step",
    "stuck",
    "submit",
    "withdraw",
]
