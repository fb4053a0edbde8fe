"""Signed approval decisions and the authority a step needs when it acts (issue #13,
docs/decisions/0023; proposals.md sections 3-4).

In a governed store (:func:`~cerebri.execution.registry.governed`) an approval decision is
signed by the approver's registered Ed25519 key over :func:`decision_payload`: the RFC 8785
canonical JSON ``{"approval/id", "decision", "principal", "subject/digest"}``, signed as
``PAE(APPROVAL_PAYLOAD_TYPE, payload)`` (DSSE v1; a proposal signature can never pass as a
decision, the payload types differ). ``subject/digest`` is fixed when the approval is asked
for: ``sha256:<hex>`` of the canonical JSON of the approval id, plan id and revision, step id
and key, the request (the step's spec) and the digest of the envelope the plan came from.

When the step acts (:func:`authority_refusal`), everything is checked again at that instant
(decision 0034): that the plan came from a signed envelope, the envelope's validity window,
its author (enabled, the signing key still active), its requester (enabled), the capability
grant of its author, the approval (the approver enabled and still ``approver``, the
signature, the approver's key not revoked since) and, for a move, cancel or update in a
calendar the store records as another person's, that owner's approval (decision 0082,
:mod:`cerebri.execution.ownership`). A refusal is a reason
text starting with its code (``grant.missing: ...``); the step does not act.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, Literal

from pydantic import ValidationError

from cerebri._guard import arguments
from cerebri.execution._rows import loads
from cerebri.execution.context import Executor
from cerebri.execution.errors import ApprovalError, ExecutionError, execution_argument_error
from cerebri.execution.ownership import CHANGE_CAPABILITIES, owner_refusal
from cerebri.execution.principals import principal_id
from cerebri.execution.registry import governed, has_grant, key_owner, public_key_of
from cerebri.execution.store import approvals as approval_store
from cerebri.execution.store import plans as plan_store
from cerebri.execution.store import principals as principal_store
from cerebri.execution.store import steps as step_store
from cerebri.execution.store.connection import Connection
from cerebri.execution.views import instant_text
from cerebri.plans.vocabulary import TERMINAL_STEP_STATUSES
from cerebri.proposals import (
    APPROVAL_PAYLOAD_TYPE,
    SignatureEntry,
    canonical_json,
    verify_signature,
)

__all__ = [
    "DECISIONS",
    "authority_refusal",
    "check_signed_decision",
    "decision_payload",
    "payload_for",
]

DECISIONS: Final = ("approve", "reject")
"""The two decisions; each is signed over its own payload."""

Decision = Literal["approve", "reject"]


def payload_for(row: Any, decision: str, by: str) -> bytes:
    """The canonical decision payload for an ``approvals`` row (see the module doc)."""
    return canonical_json(
        {
            "approval/id": row.id,
            "decision": decision,
            "principal": by,
            "subject/digest": row.subject_digest,
        }
    )


@arguments(execution_argument_error, executor=Executor, approval_id=str, decision=str, by=str)
def decision_payload(executor: Executor, approval_id: str, *, decision: str, by: str) -> bytes:
    """The bytes principal ``by`` signs to ``decision`` (``approve`` or ``reject``)
    approval ``approval_id``: RFC 8785 canonical JSON (see the module doc).

    Raises :class:`ExecutionError` ``execution.not_found``, ``execution.invalid_argument``
    (another decision), ``execution.invalid_principal``.
    """
    if decision not in DECISIONS:
        raise ExecutionError(
            f"a decision is approve or reject, not {decision!r}", code="execution.invalid_argument"
        )
    by = principal_id(by)
    with executor.engine.connect() as connection:
        row = approval_store.get(connection, approval_id)
    if row is None:
        raise ExecutionError(f"no approval {approval_id!r}", code="execution.not_found")
    return payload_for(row, decision, by)


def _approver_refusal(connection: Connection, by: str) -> str | None:
    row = principal_store.get(connection, by)
    if row is None:
        return f"{by} is not a registered principal"
    if row.disabled_at is not None:
        return f"{by} is disabled"
    if row.kind != "person" or "approver" not in loads(row.roles):
        return f"{by} does not hold the role approver"
    return None


def _signature_refusal(
    connection: Connection,
    row: Any,
    *,
    decision: str,
    by: str,
    keyid: str,
    signature: str,
    now: int,
) -> tuple[str, str] | None:
    """``(code, message)`` when the signature does not hold at ``now``, else ``None``."""
    key = key_owner(connection, keyid)
    if key is None:
        return "approval.unknown_key", f"no key {keyid!r} is registered"
    if key.principal_id != by:
        return "approval.wrong_key", f"key {keyid!r} belongs to {key.principal_id}, not {by}"
    if key.revoked_at is not None and key.revoked_at <= now:
        return (
            "approval.key_revoked",
            f"key {keyid!r} was revoked at {instant_text(key.revoked_at)}",
        )
    if key.valid_from > now:
        return (
            "approval.unknown_key",
            f"key {keyid!r} is valid only from {instant_text(key.valid_from)}",
        )
    try:
        entry = SignatureEntry(keyid=keyid, sig=signature)
    except (ValidationError, ValueError):
        return "approval.bad_signature", "the signature is not standard base64 Ed25519"
    payload = payload_for(row, decision, by)
    if not verify_signature(APPROVAL_PAYLOAD_TYPE, payload, entry, public_key_of(key)):
        return (
            "approval.bad_signature",
            f"the signature is not {keyid}'s signature of this {decision} decision",
        )
    return None


def check_signed_decision(
    connection: Connection,
    row: Any,
    *,
    decision: str,
    by: str,
    keyid: str | None,
    signature: str | None,
    now: int,
) -> None:
    """Raise :class:`ApprovalError` unless ``by`` may ``decision`` the approval ``row`` with
    this signature at ``now`` (a governed store; the caller checked that). Codes:
    ``approval.not_approver``, ``approval.signature_required``, ``approval.unknown_key``,
    ``approval.wrong_key``, ``approval.key_revoked``, ``approval.bad_signature``."""
    refused = _approver_refusal(connection, by)
    if refused is not None:
        raise ApprovalError(refused, code="approval.not_approver")
    if keyid is None or signature is None:
        raise ApprovalError(
            f"this store is governed: a decision is signed with {by}'s registered key "
            "(keyid and signature over the decision payload; on the command line, "
            "--key YOUR-KEY.pem)",
            code="approval.signature_required",
        )
    problem = _signature_refusal(
        connection, row, decision=decision, by=by, keyid=keyid, signature=signature, now=now
    )
    if problem is not None:
        raise ApprovalError(problem[1], code=problem[0])


def _disabled_at(connection: Connection, principal: str) -> int | None:
    """When ``principal`` was disabled (ns), or ``None``; an unknown principal counts as
    disabled since the beginning (``0``): it can hold no authority. A principal once disabled
    stays so (there is no enabling again), whatever the clocks say."""
    row = principal_store.get(connection, principal)
    if row is None:
        return 0
    return None if row.disabled_at is None else int(row.disabled_at)


def _signing_keys(connection: Connection, plan: Any) -> list[Any]:
    """The author's keys that signed the plan's envelope (the ledger's ``keyids``); for an
    envelope taken in before store revision 0004 (no ``keyids``), every key of the author."""
    ledger = plan_store.ledger_of(connection, plan.envelope_digest)
    keyids = None if ledger is None else ledger.keyids
    chosen = None if keyids is None else [str(k) for k in loads(keyids)]
    return principal_store.keys_of(connection, plan.author, chosen)


def _proposal_refusal(connection: Connection, plan: Any, now: int) -> str | None:
    """Steps 3-5 of :func:`authority_refusal`: the author enabled, one of the author's
    signing keys still active, the requester enabled."""
    disabled = _disabled_at(connection, plan.author)
    if disabled is not None:
        return (
            f"proposal.author_disabled: {plan.author}, who signed the envelope this plan came "
            f"from, is disabled since {instant_text(disabled)}"
        )
    keys = _signing_keys(connection, plan)
    # fail closed: a revocation counts from the moment it is recorded, whatever the clocks
    active = [k for k in keys if k.revoked_at is None and k.valid_from <= now]
    if not active:
        named = ", ".join(str(k.keyid) for k in keys) or "none registered"
        return (
            f"proposal.revoked_key: the key that signed the envelope this plan came from "
            f"({named}) is no longer active for {plan.author}"
        )
    if plan.requester is not None:
        disabled = _disabled_at(connection, plan.requester)
        if disabled is not None:
            return (
                f"proposal.requester_disabled: {plan.requester}, who submitted this plan, is "
                f"disabled since {instant_text(disabled)}"
            )
    return None


def authority_refusal(
    connection: Connection,
    executor: Executor,
    *,
    plan_id: str,
    capability: str,
    params: Mapping[str, Any],
    target: str | None,
    approval_id: str | None,
    step_key: str | None = None,
    asking: bool = False,
) -> str | None:
    """Why the step may not act now (a reason starting with its code), or ``None``.

    Ungoverned stores: always ``None``. Governed: every piece of authority behind the effect
    is checked at the executor's clock, in this order (decision 0034), and the first that
    fails is the answer:

    1. the plan came from a signed envelope (``proposal.unsigned``: a bare draft names its
       requester without proof, so it never acts there);
    2. the envelope is inside its validity window (``proposal.expired``);
    3. the envelope's author is enabled (``proposal.author_disabled``);
    4. the author's key that signed the envelope is still active: not revoked and already
       valid (``proposal.revoked_key``);
    5. the requester who submitted it is enabled (``proposal.requester_disabled``);
    6. the author holds a grant of ``capability`` on the step's calendar
       (``params.calendar_id``, else its target; ``grant.missing``);
    7. when ``approval_id`` is given, its signed decision still holds: the approver enabled
       and an ``approver``, the signature valid, the approver's key not revoked
       (``approval.*`` codes, as :func:`check_signed_decision`);
    8. every move, cancel and update of the plan still to act (``step_key`` among them)
       that changes an event in a calendar the store records as owned by someone other
       than the requester and the author is asked of that owner, and the owner's
       approvals hold; the step ``step_key`` acts on one (``approval.not_owner``, or the
       approval's own code; :mod:`cerebri.execution.ownership`, decision 0082). With
       ``asking`` (before the step's own approval is asked for) it need not have one yet.
    """
    if not governed(connection):
        return None
    now = executor.now_ns()
    plan = plan_store.get(connection, plan_id)
    if plan.author is None:
        return (
            "proposal.unsigned: in a governed store a plan acts only when it came from a "
            "signed envelope (cerebri propose, then submit the envelope); this one was "
            "submitted as a bare draft"
        )
    if plan.envelope_expires_at is not None and now >= plan.envelope_expires_at:
        return (
            "proposal.expired: the envelope this plan came from expired at "
            f"{instant_text(plan.envelope_expires_at)}"
        )
    refused = _proposal_refusal(connection, plan, now)
    if refused is not None:
        return refused
    calendar = params.get("calendar_id")
    where = str(calendar) if isinstance(calendar, str) else (target or "")
    if not has_grant(connection, plan.author, capability, where):
        return f"grant.missing: {plan.author} holds no grant of {capability} on {where}"
    if approval_id is not None:
        row = approval_store.get(connection, approval_id)
        if row is None or row.decided_by is None:
            return "approval.not_approver: the approval has no decision"
        refused = _decision_refusal(connection, row, now)
        if refused is not None:
            return refused
    return _owners_refusal(connection, plan, step_key=step_key, asking=asking, now=now)


def _decision_refusal(connection: Connection, row: Any, now: int) -> str | None:
    """Why the approval ``row`` (approved) no longer holds at ``now``: its decider an
    enabled approver, the decision signed, the key and signature valid (items 7-9)."""
    by = str(row.decided_by)
    refused = _approver_refusal(connection, by)
    if refused is not None:
        return f"approval.not_approver: {refused}"
    if row.keyid is None or row.signature is None:
        return "approval.signature_required: the approval was not signed"
    problem = _signature_refusal(
        connection,
        row,
        decision="approve",
        by=by,
        keyid=row.keyid,
        signature=row.signature,
        now=now,
    )
    return None if problem is None else f"{problem[0]}: {problem[1]}"


def _owners_refusal(
    connection: Connection, plan: Any, *, step_key: str | None, asking: bool, now: int
) -> str | None:
    """Item 8 of :func:`authority_refusal` over the plan's steps still to act."""
    rows = step_store.of_plan(connection, plan.id)
    still = {row.key for row in rows if row.status not in TERMINAL_STEP_STATUSES}
    specs = [loads(row.spec) or {} for row in rows]
    if not any(
        spec.get("capability") in CHANGE_CAPABILITIES and spec.get("key") in still for spec in specs
    ):
        return None  # no change left to act: no owner to ask
    keys = {row.id: row.key for row in rows}
    decided = {
        keys[row.step_id]: row
        for row in approval_store.approved_of_plan(connection, plan.id)
        if row.step_id in keys
    }
    return owner_refusal(
        connection,
        specs,
        still=still,
        requester=plan.requester,
        author=plan.author,
        acting=None if asking else step_key,
        decided=decided,
        verify=lambda row: _decision_refusal(connection, row, now),
    )
