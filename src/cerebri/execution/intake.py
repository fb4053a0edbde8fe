"""Taking in a signed envelope (proposals.md section 4, issue #13, decision 0023).

:func:`submit_envelope` verifies everything before anything is stored, then stores the plan
the artifact describes, in one transaction with its replay record:

1. the envelope (:func:`cerebri.proposals.verify`): schema, signatures by keys registered in
   the store (:func:`~cerebri.execution.registry.key_registry`), artifact digest and size,
   validity window at the executor's clock, executor mode allowed for the artifact type;
2. the author is the principal that owns a signing key (``proposal.author_mismatch``): an
   envelope cannot name someone else as its author, which would let its signer approve it;
   and the author is not disabled (``proposal.author_disabled``; a revoked signing key is
   already refused by verification as ``proposal.revoked_key``);
3. the executor mode is ``plan-executor`` (``intake.executor_mode``: a ``manual`` envelope
   is for a person, a ``deterministic-host-compiler`` one for another executor);
4. the artifact type selects how the plan is made: ``cerebri.plan-graph.v1`` is the draft
   itself, ``cerebri.action-plan.v1`` becomes the draft that carries it out
   (:func:`~cerebri.plans.draft_from_action_plan`); any other type is
   ``intake.unsupported_artifact``; a plan that changes (moves, cancels, updates) an
   event in a calendar the store records as owned by someone other than the requester and
   the author must ask that owner by name (``approval.not_owner``, decision 0082:
   :mod:`cerebri.execution.ownership`);
5. replay, by ``idempotency/key`` in the store's ``envelopes`` table: the same payload again
   returns the plan already stored (``replayed``), another payload under the same key is
   ``proposal.replayed``, unless the plan the key made (at its last revision) *failed*: then
   the new envelope is a re-proposal (decision 0066), taken in as a new intention, and the
   key's row moves to it (compare-and-set on the old digest). The key is the table's primary
   key, so two concurrent intakes of one key store one plan.

The stored plan records the envelope's author, payload digest and expiry; the envelope's
ledger row records who submitted it (``submitted_by``) and which of the author's keys signed
it (``keyids``), so that the act-time checks (decision 0034) can ask whether those keys still
hold. The envelope grants
nothing: its approval (by a human other than the author and the requester), the requester's
capability grants and the envelope's window are checked again when each step acts
(:mod:`cerebri.execution.decisions`).
"""

from __future__ import annotations

from types import NoneType
from typing import Any

from cerebri._guard import arguments
from cerebri._json import JSONValue
from cerebri.execution._rows import dumps, loads
from cerebri.execution.context import Executor
from cerebri.execution.errors import ApprovalError, ExecutionError, execution_argument_error
from cerebri.execution.ownership import owner_refusal
from cerebri.execution.principals import principal_id
from cerebri.execution.registry import governed, key_owner, registry_of, require_role
from cerebri.execution.store import plans as plan_store
from cerebri.execution.store import principals as principal_store
from cerebri.execution.store.connection import Connection, IntegrityError
from cerebri.execution.submit import Submitted, insert_new_intention
from cerebri.execution.views import instant_text
from cerebri.plans import DEFAULT_MAX_REPLANS, PlanDraft, PlanStatus, parse_draft
from cerebri.plans.action_plan_wire import parse_action_plan
from cerebri.plans.from_action_plan import draft_from_action_plan
from cerebri.proposals import (
    ArtifactType,
    ExecutorMode,
    InMemoryReplayLedger,
    ProposalError,
    VerifiedEnvelope,
    principal_of,
    verify,
)

__all__ = ["submit_envelope"]


def _draft(verified: VerifiedEnvelope, artifact: bytes) -> PlanDraft:
    kind = verified.envelope.candidate.artifact_type
    if kind is ArtifactType.PLAN_GRAPH:
        return parse_draft(artifact)
    if kind is ArtifactType.ACTION_PLAN:
        return draft_from_action_plan(parse_action_plan(artifact))
    raise ExecutionError(
        f"artifact type {kind.value} is not carried out by the plan executor",
        code="intake.unsupported_artifact",
    )


def _check_author(connection: Connection, verified: VerifiedEnvelope, author: str) -> list[str]:
    """The author's keys among the envelope's verified signers, sorted; refuses an envelope
    its named author did not sign (``proposal.author_mismatch``) or whose author is disabled
    (``proposal.author_disabled``: a disabled principal signs nothing new)."""
    owners = set()
    authored: list[str] = []
    for keyid in verified.signers:
        row = key_owner(connection, keyid)
        if row is not None:
            owners.add(row.principal_id)
            if row.principal_id == author:
                authored.append(keyid)
    if author not in owners:
        signed = ", ".join(sorted(owners)) or "nobody registered"
        raise ProposalError(
            f"the envelope names {author} as author but was signed by {signed}",
            code="proposal.author_mismatch",
            path="/author",
        )
    principal = principal_store.get(connection, author)
    disabled = None if principal is None else principal.disabled_at
    if disabled is not None:
        raise ProposalError(
            f"{author} is disabled since {instant_text(disabled)}: an envelope it signed is "
            "no longer taken in",
            code="proposal.author_disabled",
            path="/author",
        )
    return sorted(authored)


def _check_owners(executor: Executor, draft: PlanDraft, *, requester: str, author: str) -> None:
    """Refuse a plan that changes an event in a calendar the store records as another
    person's without asking that owner (decision 0082): :class:`ApprovalError`
    ``approval.not_owner``, nothing stored."""
    steps = [step.to_wire() for step in draft.steps]
    with executor.engine.connect() as connection:
        if not governed(connection):
            return
        refused = owner_refusal(connection, steps, requester=requester, author=author)
    if refused is not None:
        code, _, message = refused.partition(": ")
        raise ApprovalError(message, code=code)


def _failed_before(connection: Connection, key: str, digest: str) -> str | None:
    """The digest of the envelope recorded under ``key`` when a different envelope may be
    taken in under it as a re-proposal: the plan it made, followed to its last revision,
    ``failed`` (decision 0066). ``None`` when nothing is recorded under ``key`` or it is
    this very envelope; ``proposal.replayed`` when the earlier plan is open, completed or
    abandoned (exactly once: an envelope that may act, or did, is never taken in twice)."""
    row = plan_store.envelope(connection, key)
    if row is None or row.digest == digest:
        return None
    latest = plan_store.latest_revision(connection, row.plan_id)
    if latest.status == PlanStatus.FAILED.value:
        return str(row.digest)
    raise ProposalError(
        f"idempotency key {key!r} was already used by another envelope ({row.digest}), "
        f"whose plan {latest.id} is {latest.status}: only a failed plan may be proposed "
        "again",
        code="proposal.replayed",
        path="/idempotency~1key",
    )


def _replayed(connection: Connection, key: str, digest: str) -> Submitted | None:
    row = plan_store.envelope(connection, key)
    if row is None:
        return None
    if row.digest != digest:
        raise ProposalError(
            f"idempotency key {key!r} was already used by another envelope ({row.digest})",
            code="proposal.replayed",
            path="/idempotency~1key",
        )
    plan = plan_store.get(connection, row.plan_id)
    return Submitted(
        plan.id,
        plan.intention_id,
        plan.revision,
        PlanStatus(plan.status),
        loads(plan.validation) or {},
        author=row.author,
        envelope_digest=row.digest,
        replayed=True,
    )


@arguments(
    execution_argument_error,
    executor=Executor,
    envelope=bytes,
    artifact=bytes,
    submitted_by=(str, NoneType),
    max_replans=int,
)
def submit_envelope(
    executor: Executor,
    envelope: bytes,
    *,
    artifact: bytes,
    submitted_by: str | None = None,
    max_replans: int = DEFAULT_MAX_REPLANS,
) -> Submitted:
    """Verify a signed envelope and its artifact bytes and store the plan it proposes (see
    the module doc). ``submitted_by`` is the requester (default: the author); in a governed
    store it must hold the role ``requester``.

    Returns the :class:`~cerebri.execution.submit.Submitted` plan (``replayed`` when this
    envelope was taken in before). Raises, with nothing stored:
    :class:`~cerebri.proposals.ProposalError` (``proposal.*`` codes of verification,
    ``proposal.author_mismatch``, ``proposal.author_disabled``, ``proposal.replayed``);
    :class:`ApprovalError` ``approval.not_owner`` (a move, cancel or update in a calendar
    the store records as another person's whose owner the plan does not ask, decision
    0082);
    :class:`ExecutionError` ``intake.executor_mode``, ``intake.unsupported_artifact``,
    ``execution.invalid_principal``; :class:`~cerebri.plans.DraftError` (an artifact that is
    not a draft / action plan); :class:`~cerebri.execution.errors.AuthError`
    ``auth.forbidden``.
    """
    if isinstance(max_replans, bool) or max_replans < 0:
        raise ExecutionError(
            f"max_replans must be a whole number >= 0, not {max_replans!r}",
            code="execution.invalid_argument",
        )
    with executor.engine.connect() as connection:
        registry = registry_of(connection)
    verified = verify(
        envelope,
        registry=registry,
        clock_now=executor.clock.now(),
        artifact_bytes=artifact,
        replay=InMemoryReplayLedger(),
    )
    found = verified.envelope
    author = principal_of(found.author)
    with executor.engine.connect() as connection:
        keyids = _check_author(connection, verified, author)
    if found.executor.mode is not ExecutorMode.PLAN_EXECUTOR:
        raise ExecutionError(
            f"executor mode {found.executor.mode.value} is not the plan executor's "
            f"({ExecutorMode.PLAN_EXECUTOR.value})",
            code="intake.executor_mode",
        )
    draft = _draft(verified, artifact)
    requester = author if submitted_by is None else principal_id(submitted_by)
    require_role(executor, requester, "requester")
    _check_owners(executor, draft, requester=requester, author=author)
    provenance: dict[str, Any] = {
        "author": author,
        "envelope_digest": verified.payload_digest,
        "envelope_expires_at": found.expires_at.ns,
    }
    goal: dict[str, JSONValue] = {
        "objective": draft.objective,
        "goal_key": None,
        "envelope": {
            "digest": verified.payload_digest,
            "proposal_ref": found.proposal_ref,
            "query_id": found.query_id,
            "author": author,
        },
    }
    key = found.idempotency_key
    digest = verified.payload_digest
    try:
        with executor.transaction() as connection:
            failed = _failed_before(connection, key, verified.payload_digest)
            earlier = None if failed is not None else _replayed(connection, key, digest)
            if earlier is not None:
                return earlier
            submitted = insert_new_intention(
                connection,
                executor,
                draft,
                goal,
                requester=requester,
                sandbox=None,
                max_replans=max_replans,
                provenance=provenance,
            )
            record = {
                "digest": digest,
                "plan_id": submitted.plan_id,
                "author": author,
                "expires_at": found.expires_at.ns,
                "created_at": executor.now_ns(),
                "submitted_by": requester,
                "keyids": dumps(list(keyids)),
            }
            if failed is None:
                plan_store.add_envelope(connection, idempotency_key=key, **record)
            elif not plan_store.repoint_envelope(connection, key, failed, **record):
                raise IntegrityError("re-proposal", None, ValueError(key))
            return submitted
    except IntegrityError:
        # another intake of the same key committed first: answer as for a replay
        with executor.engine.connect() as connection:
            earlier = _replayed(connection, key, verified.payload_digest)
        if earlier is None:  # pragma: no cover - the key's row exists after the conflict
            raise
        return earlier
