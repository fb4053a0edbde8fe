"""Signed proposal envelopes (proposals.md): model, schema, digests, signing, verification.

::

    Envelope.model_validate_json(data)       envelope v2 (frozen, strict, wire aliases)
    envelope_json_schema() -> dict           JSON Schema draft 2020-12
    canonical_json(value) -> bytes           RFC 8785; load_json(bytes) parses strictly
    sha256_digest(bytes), envelope_digest(document)
    pae(type, body), sign(...), KeyRegistry  DSSE v1 PAE + Ed25519, rotation, revocation
    verify(envelope_bytes, *, registry, clock_now, artifact_bytes, replay) -> VerifiedEnvelope

A verified envelope grants nothing: execution still needs a human approval of its digest,
capability grants and the policy's decision. Errors are :class:`ProposalError` with
``proposal.*`` codes.
"""

from cerebri.proposals.digest import (
    canonical_json,
    envelope_digest,
    envelope_payload,
    load_json,
    sha256_digest,
)
from cerebri.proposals.envelope import (
    ALLOWED_EXECUTOR_MODES,
    ArtifactType,
    Candidate,
    Classification,
    Envelope,
    EnvelopeSignature,
    Executor,
    ExecutorMode,
    SignatureEntry,
    Subject,
    SubjectKind,
    Target,
)
from cerebri.proposals.errors import ProposalError
from cerebri.proposals.schema import envelope_json_schema
from cerebri.proposals.signing import (
    APPROVAL_PAYLOAD_TYPE,
    PROPOSAL_PAYLOAD_TYPE,
    KeyRegistry,
    RegisteredKey,
    count_valid_signers,
    pae,
    sign,
    verify_signature,
)
from cerebri.proposals.verify import (
    InMemoryReplayLedger,
    ReplayLedger,
    VerifiedEnvelope,
    verify,
)

__all__ = [
    "ALLOWED_EXECUTOR_MODES",
    "APPROVAL_PAYLOAD_TYPE",
    "PROPOSAL_PAYLOAD_TYPE",
    "ArtifactType",
    "Candidate",
    "Classification",
    "Envelope",
    "EnvelopeSignature",
    "Executor",
    "ExecutorMode",
    "InMemoryReplayLedger",
    "KeyRegistry",
    "ProposalError",
    "RegisteredKey",
    "ReplayLedger",
    "SignatureEntry",
    "Subject",
    "SubjectKind",
    "Target",
    "VerifiedEnvelope",
    "canonical_json",
    "count_valid_signers",
    "envelope_digest",
    "envelope_json_schema",
    "envelope_payload",
    "load_json",
    "pae",
    "sha256_digest",
    "sign",
    "verify",
    "verify_signature",
]
