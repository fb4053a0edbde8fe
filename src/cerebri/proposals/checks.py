"""The six verification checks, one function each (shared by ``verify`` and ``check_envelope``).

Each check either returns or raises ``ProposalError`` with the codes listed in
:mod:`cerebri.proposals.verify`. None of them reads a clock: the instant is passed in.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from pydantic import ValidationError

from cerebri.errors import InputTooLargeError
from cerebri.proposals.digest import envelope_payload, load_json, sha256_digest
from cerebri.proposals.envelope import (
    ALLOWED_EXECUTOR_MODES,
    MAX_VALIDITY_SECONDS,
    Candidate,
    Envelope,
)
from cerebri.proposals.errors import ProposalError, json_pointer
from cerebri.proposals.ledger import ReplayLedger, VerifiedEnvelope
from cerebri.proposals.signing import PROPOSAL_PAYLOAD_TYPE, KeyRegistry, count_valid_signers
from cerebri.proposals.store import ObjectStore, digest_of_ref
from cerebri.temporal import Instant

__all__ = [
    "ParsedEnvelope",
    "check_artifact",
    "check_executor_mode",
    "check_replay",
    "check_schema",
    "check_signature",
    "check_validity_span",
    "check_window",
]


@dataclass(frozen=True, slots=True)
class ParsedEnvelope:
    """A schema-valid envelope, its signed ``payload`` bytes and their ``payload_digest``."""

    envelope: Envelope
    payload: bytes
    payload_digest: str


_SIGNATURES_AT: Final = ("signature", "signatures")
_SIGNATURE_CODES: Final[dict[tuple[str, tuple[str | int, ...]], str]] = {
    ("too_long", _SIGNATURES_AT): "proposal.too_many_signatures",
    ("duplicate_signature", _SIGNATURES_AT): "proposal.duplicate_signature",
}
"""Shape errors of the signature list that have their own code (MAX_SIGNATURES, one keyid
once); every other shape error is ``proposal.schema``."""


def check_schema(envelope_bytes: bytes) -> ParsedEnvelope:
    """JSON (``proposal.canonical_json``) and envelope v2 shape (``proposal.schema``;
    ``proposal.too_many_signatures`` and ``proposal.duplicate_signature`` for the signature
    list)."""
    document = load_json(envelope_bytes)
    if not isinstance(document, dict):
        raise ProposalError("an envelope is a JSON object", code="proposal.schema", path="")
    try:
        envelope = Envelope.model_validate_json(envelope_bytes)
    except ValidationError as exc:
        first = exc.errors()[0]
        raise ProposalError(
            f"not an envelope v2: {first['msg']}",
            code=_SIGNATURE_CODES.get((first["type"], first["loc"]), "proposal.schema"),
            path=json_pointer(first["loc"]),
        ) from None
    payload = envelope_payload(document)
    return ParsedEnvelope(envelope, payload, sha256_digest(payload))


def check_signature(
    parsed: ParsedEnvelope, registry: KeyRegistry, now: Instant, threshold: int
) -> tuple[str, ...]:
    """Every signature verifies under a key valid at the envelope's ``proposed-at`` and not
    revoked at ``now``, and at least ``threshold`` distinct public keys signed; returns the
    keyids in envelope order."""
    envelope = parsed.envelope
    entries = envelope.signature.signatures
    signers = count_valid_signers(
        PROPOSAL_PAYLOAD_TYPE,
        parsed.payload,
        entries,
        registry,
        signed_at=envelope.proposed_at,
        now=now,
    )
    if signers < threshold:
        raise ProposalError(
            f"{signers} distinct signing keys, {threshold} required", code="proposal.signature"
        )
    return tuple(entry.keyid for entry in entries)


def check_artifact(
    candidate: Candidate, artifact_bytes: bytes | None, store: ObjectStore | None = None
) -> None:
    """``artifact/ref`` names ``artifact/digest``; the bytes (given, or fetched from ``store``
    by ref) have ``artifact/size`` and ``artifact/digest``. One of the two sources is needed."""
    try:
        named = digest_of_ref(candidate.artifact_ref)
    except ProposalError as exc:
        exc.path = "/candidate/artifact~1ref"
        raise
    if named != candidate.artifact_digest:
        raise ProposalError(
            "artifact/ref names a different digest than artifact/digest",
            code="proposal.digest_mismatch",
            path="/candidate/artifact~1ref",
        )
    if artifact_bytes is None:
        if store is None:
            raise ValueError("check_artifact needs artifact bytes or a store")
        try:
            artifact_bytes = store.get(candidate.artifact_ref, max_bytes=candidate.artifact_size)
        except InputTooLargeError:
            raise ProposalError(
                f"stored artifact has more than the {candidate.artifact_size} bytes the "
                "envelope says",
                code="proposal.size_mismatch",
                path="/candidate/artifact~1size",
            ) from None
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


def check_validity_span(proposed_at: Instant, expires_at: Instant) -> None:
    """The window ``[proposed-at, expires-at)`` spans at most :data:`MAX_VALIDITY_SECONDS`
    (``proposal.validity_too_long`` at ``/expires-at`` otherwise)."""
    latest = proposed_at.plus_seconds(MAX_VALIDITY_SECONDS)
    if latest is not None and latest < expires_at:
        raise ProposalError(
            f"valid from {proposed_at} to {expires_at}: longer than "
            f"{MAX_VALIDITY_SECONDS} s (one year)",
            code="proposal.validity_too_long",
            path="/expires-at",
        )


def check_window(envelope: Envelope, now: Instant) -> None:
    """The window spans at most one year (:func:`check_validity_span`, judged first: it
    does not depend on ``now``), and ``proposed-at <= now < expires-at`` (half-open)."""
    check_validity_span(envelope.proposed_at, envelope.expires_at)
    if now < envelope.proposed_at:
        raise ProposalError(
            f"valid from {envelope.proposed_at}", code="proposal.not_yet_valid", path="/proposed-at"
        )
    if envelope.expires_at <= now:
        raise ProposalError(
            f"expired at {envelope.expires_at}", code="proposal.expired", path="/expires-at"
        )


def check_executor_mode(envelope: Envelope) -> None:
    """The executor mode is allowed for the artifact type (``ALLOWED_EXECUTOR_MODES``)."""
    kind = envelope.candidate.artifact_type
    if envelope.executor.mode not in ALLOWED_EXECUTOR_MODES[kind]:
        raise ProposalError(
            f"mode {envelope.executor.mode} not allowed for {kind}",
            code="proposal.executor_mode",
            path="/executor/mode",
        )


def check_replay(ledger: ReplayLedger, result: VerifiedEnvelope) -> VerifiedEnvelope:
    """Claim ``result``'s idempotency key in ``ledger`` (check-and-set) and return the winner:
    ``result`` itself when the key was fresh, the recorded result when it was consumed by the
    same payload digest; ``proposal.replayed`` when it was consumed by a different payload."""
    winner = ledger.claim(result.envelope.idempotency_key, result)
    if winner.payload_digest != result.payload_digest:
        raise ProposalError(
            "idempotency/key already consumed by a different payload",
            code="proposal.replayed",
            path="/idempotency~1key",
        )
    return winner
