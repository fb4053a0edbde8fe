"""The execution stage: a durable store, stateless workers, approvals, verification and
replanning (plans.md sections 5-6, issue #12).

::

    executor = Executor(open_engine(parse_store_url(url)), SystemClock(), UuidIds(),
                        adapters=default_adapters(clock))
    submitted = submit(executor, draft_json)         # validated; a bad draft stays a draft
    run_worker(executor, until_idle=True)            # claim, act, record; no state in memory
    decide(executor, approval_id, approve=True, by="principal:alice")   # ungoverned store
    add_principal(executor, "principal:bob", roles=["approver"])       # governed from now on
    register_key(executor, "principal:bob", keyid="bob", public_key=key.public_key())
    payload = decision_payload(executor, approval_id, decision="approve", by="principal:bob")
    decide(executor, approval_id, approve=True, by="principal:bob", keyid="bob",
           signature=sign(APPROVAL_PAYLOAD_TYPE, payload, key, "bob").sig)
    submit_envelope(executor, envelope_bytes, artifact=artifact_bytes)  # verified, then stored
    list_plans(executor); show_plan(executor, plan_id); stuck(executor)   # read-only views
    cancel_plan(executor, plan_id, by="principal:alice")
    set_sandbox(executor, "trial", enabled=True); recall(executor, goal_key)
    own_calendar(executor, "principal:bob", "bob-cal")   # bob approves others' moves there
    resolve_step(executor, step_id, happened=True, by="principal:alice")

Sub-packages: :mod:`cerebri.execution.store` (schema, migrations, URLs) and
:mod:`cerebri.execution.adapters` (how capabilities are carried out). Errors:
:class:`ExecutionError` (``execution.*``, ``intake.*``), :class:`ApprovalError` (``approval.*``),
:class:`AuthError` (``auth.*``), :class:`~cerebri.proposals.ProposalError` (``proposal.*``),
:class:`~cerebri.execution.store.StoreError` (``store.*``),
:class:`~cerebri.execution.adapters.AdapterError` (``adapter.*``, ``calendar.*``).
"""

from cerebri.execution.approval_detail import describe_approval
from cerebri.execution.approvals import decide, expire_due, list_approvals, withdraw
from cerebri.execution.cancel import cancel_plan
from cerebri.execution.claims import Claim, claim, heartbeat
from cerebri.execution.context import APPROVAL_TTL_SECONDS, Executor
from cerebri.execution.decisions import DECISIONS, decision_payload
from cerebri.execution.errors import ApprovalError, AuthError, ExecutionError
from cerebri.execution.intake import submit_envelope
from cerebri.execution.memories import recall
from cerebri.execution.outages import OutageEvent, OutageGuard
from cerebri.execution.owners import list_calendar_owners, own_calendar, revoke_calendar_owner
from cerebri.execution.preview import preview_draft, preview_plan
from cerebri.execution.registry import (
    ROLES,
    add_principal,
    authenticate,
    disable_principal,
    grant,
    issue_token,
    key_registry,
    list_principals,
    principal_info,
    register_key,
    require_role,
    revoke_grant,
    revoke_key,
    revoke_token,
)
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
    "DECISIONS",
    "DEFAULT_REQUESTER",
    "MAX_INTERRUPTIONS",
    "NEEDS_VERIFICATION",
    "ROLES",
    "STUCK_GRACE_SECONDS",
    "ApprovalError",
    "AuthError",
    "Claim",
    "ExecutionError",
    "Executor",
    "Hook",
    "OutageEvent",
    "OutageGuard",
    "Replanner",
    "Submitted",
    "WorkerReport",
    "add_principal",
    "alternatives_replanner",
    "authenticate",
    "cancel_plan",
    "claim",
    "decide",
    "decision_payload",
    "describe_approval",
    "disable_principal",
    "expire_due",
    "grant",
    "heartbeat",
    "issue_token",
    "key_registry",
    "list_approvals",
    "list_calendar_owners",
    "list_plans",
    "list_principals",
    "list_sandboxes",
    "own_calendar",
    "preview_draft",
    "preview_plan",
    "principal_info",
    "recall",
    "register_key",
    "require_role",
    "resolve_step",
    "revoke_calendar_owner",
    "revoke_grant",
    "revoke_key",
    "revoke_token",
    "run_claim",
    "run_worker",
    "scheduled_steps",
    "set_sandbox",
    "show_approval",
    "show_plan",
    "show_step",
    "stuck",
    "submit",
    "submit_envelope",
    "withdraw",
]
