"""Verify a signed envelope against a key registry, its artifact, a clock and a replay ledger.

**A verified envelope grants nothing.** It only says the bytes are a well-formed envelope v2,
signed by registered unrevoked keys, describing these artifact bytes, inside its validity
window, with an allowed executor mode, and not a replay. To act, an executor still needs an
approval of this exact envelope digest by a human other than the author (unexpired, not
withdrawn, consumed once), a capability grant for each effect, and the policy's allow decision
at execution time (proposals.md section 4). A ``principal_id`` inside a request is never
authentication.

Checks, in order (the first failure is raised as ``ProposalError``):

1. JSON and schema: ``proposal.canonical_json``, ``proposal.schema``;
2. signatures over ``PAE(PROPOSAL_PAYLOAD_TYPE, canonical envelope without signature)``:
   ``proposal.unknown_key``, ``proposal.key_inactive``, ``proposal.revoked_key``,
   ``proposal.signature`` (also when fewer than ``threshold`` distinct keys signed);
3. artifact: ``proposal.size_mismatch``, then ``proposal.digest_mismatch``;
4. time window, valid iff ``proposed-at <= clock_now < expires-at``:
   ``proposal.not_yet_valid``, ``proposal.expired``;
5. executor mode against :data:`~cerebri.proposals.envelope.ALLOWED_EXECUTOR_MODES`:
   ``proposal.executor_mode``;
6. replay by ``idempotency/key``: a key recorded with a different payload digest is
   ``proposal.replayed``; with the same digest the recorded result is returned unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from pydantic import ValidationError

from cerebri.proposals.digest import envelope_payload, load_json, sha256_digest
from cerebri.proposals.envelope import ALLOWED_EXECUTOR_MODES, Envelope
from cerebri.proposals.errors import ProposalError
from cerebri.proposals.signing import PROPOSAL_PAYLOAD_TYPE, KeyRegistry, count_valid_signers
from cerebri.temporal import Instant

__all__ = ["InMemoryReplayLedger", "ReplayLedger", "VerifiedEnvelope", "verify"]


@dataclass(frozen=True, slots=True)
class VerifiedEnvelope:
    """An envelope that passed :func:`verify`. Inert: it authorises no effect.

    ``payload_digest`` is the ``sha256:`` digest of the signed bytes (what an approval names);
    ``signers`` the keyids of the signatures in envelope order; ``verified_at`` the clock
    instant of the first successful verification.
    """

    envelope: Envelope
    payload_digest: str
    signers: tuple[str, ...]
    verified_at: Instant


class ReplayLedger(Protocol):
    """Where consumed idempotency keys are remembered (a durable one lives with the store)."""

    def recorded(self, idempotency_key: str) -> VerifiedEnvelope | None:
        """The result recorded under ``idempotency_key``, or ``None``."""
        ...

    def record(self, idempotency_key: str, result: VerifiedEnvelope) -> None:
        """Remember ``result`` under ``idempotency_key`` (first record wins)."""
        ...


class InMemoryReplayLedger:
    """A process-local :class:`ReplayLedger`; forgets everything when dropped."""

    def __init__(self) -> None:
        self._entries: dict[str, VerifiedEnvelope] = {}

    def recorded(self, idempotency_key: str) -> VerifiedEnvelope | None:
        """The result recorded under ``idempotency_key``, or ``None``."""
        return self._entries.get(idempotency_key)

    def record(self, idempotency_key: str, result: VerifiedEnvelope) -> None:
        """Remember ``result`` unless the key already has one."""
        self._entries.setdefault(idempotency_key, result)


def _parse(envelope_bytes: bytes) -> tuple[Envelope, bytes]:
    document = load_json(envelope_bytes)
    if not isinstance(document, dict):
        raise ProposalError("an envelope is a JSON object", code="proposal.schema", path="")
    try:
        envelope = Envelope.model_validate_json(envelope_bytes)
    except ValidationError as exc:
        first = exc.errors()[0]
        pointer = "".join(
            "/" + str(part).replace("~", "~0").replace("/", "~1") for part in first["loc"]
        )
        raise ProposalError(
            f"not an envelope v2: {first['msg']}", code="proposal.schema", path=pointer
        ) from exc
    return envelope, envelope_payload(document)


def verify(
    envelope_bytes: bytes,
    *,
    registry: KeyRegistry,
    clock_now: Instant,
    artifact_bytes: bytes,
    replay: ReplayLedger,
    threshold: int = 1,
) -> VerifiedEnvelope:
    """Run the checks listed in the module docstring; return the (inert) verified envelope.

    ``threshold`` is the number of distinct public keys that must have signed (at least 1).
    Nothing is recorded in ``replay`` unless every other check passed.
    """
    if threshold < 1:
        raise ValueError("threshold must be at least 1")
    envelope, payload = _parse(envelope_bytes)
    entries = envelope.signature.signatures
    signers = count_valid_signers(PROPOSAL_PAYLOAD_TYPE, payload, entries, registry, clock_now)
    if signers < threshold:
        raise ProposalError(
            f"{signers} distinct signing keys, {threshold} required", code="proposal.signature"
        )
    candidate = envelope.candidate
    if len(artifact_bytes) != candidate.artifact_size:
        raise ProposalError(
            f"artifact has {len(artifact_bytes)} bytes, envelope says {candidate.artifact_size}",
            code="proposal.size_mismatch",
            path="/candidate/artifact~1size",
        )
    if sha256_digest(artifact_bytes) != candidate.artifact_digest:
        raise ProposalError(
            "artifact digest differs from artifact/digest",
            code="proposal.digest_mismatch",
            path="/candidate/artifact~1digest",
        )
    if clock_now < envelope.proposed_at:
        raise ProposalError(
            f"valid from {envelope.proposed_at}", code="proposal.not_yet_valid", path="/proposed-at"
        )
    if envelope.expires_at <= clock_now:
        raise ProposalError(
            f"expired at {envelope.expires_at}", code="proposal.expired", path="/expires-at"
        )
    if envelope.executor.mode not in ALLOWED_EXECUTOR_MODES[candidate.artifact_type]:
        raise ProposalError(
            f"mode {envelope.executor.mode} not allowed for {candidate.artifact_type}",
            code="proposal.executor_mode",
            path="/executor/mode",
        )
    payload_digest = sha256_digest(payload)
    previous = replay.recorded(envelope.idempotency_key)
    if previous is not None:
        if previous.payload_digest != payload_digest:
            raise ProposalError(
                "idempotency/key already consumed by a different payload",
                code="proposal.replayed",
                path="/idempotency~1key",
            )
        return previous
    result = VerifiedEnvelope(
        envelope=envelope,
        payload_digest=payload_digest,
        signers=tuple(entry.keyid for entry in entries),
        verified_at=clock_now,
    )
    replay.record(envelope.idempotency_key, result)
    return result
