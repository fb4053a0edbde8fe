"""Signed proposal envelopes (proposals.md): model, schema, digests, signing, store, keys,
verification.

::

    Envelope.model_validate_json(data)       envelope v2 (frozen, strict, wire aliases)
    envelope_json_schema() -> dict           JSON Schema draft 2020-12
    canonical_json(value) -> bytes           RFC 8785; load_json(bytes) parses strictly
                                             (at most MAX_JSON_DEPTH levels deep)
    INSTANT_PATTERN, is_rfc3339_utc(text)    RFC 3339 UTC, four-digit year (envelope, keys)
    sha256_digest(bytes), envelope_digest(document)
    pae(type, body), sign(...), KeyRegistry  DSSE v1 PAE + Ed25519, rotation, revocation
    KeyRegistry.lookup(keyid, signed_at=, now=)  validity window at signed_at (proposed-at),
                                             revocation at now (verification instant)
    ObjectStore(root).put/put_json/get       content-addressed files; refs cas:sha256:<hex>
    ref_for_digest, digest_of_ref, artifact_for(bytes) -> StoredArtifact(ref, digest, size)
    load_registry/save_registry/parse_registry, new_key/rotate_key/revoke_key,
    load_private_key/write_private_key       registry JSON file, PKCS#8 PEM private keys
    proposal_artifact(data, candidate, ...) -> ProposalArtifact   a CPIR request's candidate
                                             (action plan or plan graph) or a draft, as bytes
    registered_signer(key, keyid, ...), signing_author(author, registered, keyid)
                                             the signing key checked against its registry;
                                             the envelope author it signs as
    propose(artifact, type, ..., signing_keys) -> bytes   signed envelope (RFC 8785 bytes)
    unsigned_envelope(artifact, type, ...) -> dict        the same envelope, checked, unsigned
    load_signer(key, keyid, ...) -> Signer, make_proposal(made, signer=..., ...) -> Proposal
                                             the propose use-case of every shell: the key
                                             checked, the envelope signed, the artifact stored
    slot_starts(payload), check_slot_times(...)  calendar slots of an artifact: not begun at
                                             proposed-at, none after expires-at
    canonical_principal(text), author_of(principal)  the principal a registered key speaks
                                             for, as the envelope author; principal_of(author)
                                             the principal an envelope author stands for
    MAX_SIGNATURES                           16 signature entries at most, one per keyid
    MAX_VALIDITY_SECONDS                     one year: the longest expires-at - proposed-at,
                                             held by propose and verification alike
    verify(envelope_bytes, *, registry, clock_now, artifact_bytes, replay) -> VerifiedEnvelope
    check_envelope(envelope_bytes, *, registry, clock_now, ...) -> VerificationReport
    InMemoryReplayLedger(), FileReplayLedger(path)   ReplayLedger.claim(key, result) -> winner
                                             (check-and-set; the file ledger locks <path>.lock)

A verified envelope grants nothing: execution still needs :data:`STILL_REQUIRED` (a human
approval of its payload digest, capability grants and the policy's decision). Errors are
:class:`ProposalError` with ``proposal.*`` codes (listed in :mod:`cerebri.proposals.errors`).
Instants are UTC and always passed in; nothing here reads a clock.
"""

from cerebri.proposals.artifacts import (
    ArtifactChoice,
    ProposalArtifact,
    created_titles,
    proposal_artifact,
    target_zones,
)
from cerebri.proposals.authors import (
    PRINCIPAL_PATTERN,
    author_of,
    canonical_principal,
    principal_of,
)
from cerebri.proposals.digest import (
    MAX_JSON_DEPTH,
    canonical_json,
    envelope_digest,
    envelope_payload,
    load_json,
    sha256_digest,
)
from cerebri.proposals.envelope import (
    ALLOWED_EXECUTOR_MODES,
    INSTANT_PATTERN,
    MAX_SIGNATURES,
    MAX_VALIDITY_SECONDS,
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
    is_rfc3339_utc,
)
from cerebri.proposals.errors import ProposalError
from cerebri.proposals.keyfile import (
    KEYID_PATTERN,
    load_private_key,
    load_registry,
    new_key,
    parse_registry,
    public_key_text,
    registry_to_wire,
    revoke_key,
    rotate_key,
    save_registry,
    write_private_key,
)
from cerebri.proposals.ledger import (
    FileReplayLedger,
    InMemoryReplayLedger,
    ReplayLedger,
    VerifiedEnvelope,
)
from cerebri.proposals.propose import (
    PROPOSAL_REF_PREFIX,
    UNSIGNED_KEYID,
    parse_subject,
    propose,
    unsigned_envelope,
)
from cerebri.proposals.schema import envelope_json_schema
from cerebri.proposals.signer import (
    REGISTRY_FILE,
    author_subject,
    registered_signer,
    signing_author,
)
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
from cerebri.proposals.slots import SLOT_CAPABILITIES, check_slot_times, slot_starts
from cerebri.proposals.store import (
    REF_PREFIX,
    ObjectStore,
    StoredArtifact,
    artifact_for,
    digest_of_ref,
    ref_for_digest,
)
from cerebri.proposals.verify import (
    STILL_REQUIRED,
    CheckName,
    CheckResult,
    Verdict,
    VerificationReport,
    check_envelope,
    verify,
)
from cerebri.proposals.workflow import Origin, Proposal, Signer, load_signer, make_proposal

__all__ = [
    "ALLOWED_EXECUTOR_MODES",
    "APPROVAL_PAYLOAD_TYPE",
    "INSTANT_PATTERN",
    "KEYID_PATTERN",
    "MAX_JSON_DEPTH",
    "MAX_SIGNATURES",
    "MAX_VALIDITY_SECONDS",
    "PRINCIPAL_PATTERN",
    "PROPOSAL_PAYLOAD_TYPE",
    "PROPOSAL_REF_PREFIX",
    "REF_PREFIX",
    "REGISTRY_FILE",
    "SLOT_CAPABILITIES",
    "STILL_REQUIRED",
    "UNSIGNED_KEYID",
    "ArtifactChoice",
    "ArtifactType",
    "Candidate",
    "CheckName",
    "CheckResult",
    "Classification",
    "Envelope",
    "EnvelopeSignature",
    "Executor",
    "ExecutorMode",
    "FileReplayLedger",
    "InMemoryReplayLedger",
    "KeyRegistry",
    "ObjectStore",
    "Origin",
    "Proposal",
    "ProposalArtifact",
    "ProposalError",
    "RegisteredKey",
    "ReplayLedger",
    "SignatureEntry",
    "Signer",
    "StoredArtifact",
    "Subject",
    "SubjectKind",
    "Target",
    "Verdict",
    "VerificationReport",
    "VerifiedEnvelope",
    "artifact_for",
    "author_of",
    "author_subject",
    "canonical_json",
    "canonical_principal",
    "check_envelope",
    "check_slot_times",
    "count_valid_signers",
    "created_titles",
    "digest_of_ref",
    "envelope_digest",
    "envelope_json_schema",
    "envelope_payload",
    "is_rfc3339_utc",
    "load_json",
    "load_private_key",
    "load_registry",
    "load_signer",
    "make_proposal",
    "new_key",
    "pae",
    "parse_registry",
    "parse_subject",
    "principal_of",
    "proposal_artifact",
    "propose",
    "public_key_text",
    "ref_for_digest",
    "registered_signer",
    "registry_to_wire",
    "revoke_key",
    "rotate_key",
    "save_registry",
    "sha256_digest",
    "sign",
    "signing_author",
    "slot_starts",
    "target_zones",
    "unsigned_envelope",
    "verify",
    "verify_signature",
    "write_private_key",
]
