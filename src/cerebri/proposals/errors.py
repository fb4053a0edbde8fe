"""``ProposalError``: why an envelope, a key file, a store read or a ledger was refused.

Codes (stable; callers switch on them)::

    proposal.canonical_json   input JSON cannot be represented exactly in RFC 8785 form
                              (duplicate key, float that does not round-trip, integer
                              beyond +/-(2^53 - 1), NaN/Infinity)
    proposal.schema           not an envelope v2 (fields, shapes, conditional rule); also
                              raised by ``propose`` before anything is signed
    proposal.signature        a signature does not verify, or the threshold is not met
    proposal.unknown_key      a signature names a keyid the registry does not hold
    proposal.key_inactive     the key exists but the envelope's proposed-at is outside its
                              validity window (signed before it started or after rotation)
    proposal.revoked_key      the key was revoked at or before the verification instant
                              (whenever the envelope was signed); also, as a reason, when a
                              step is about to act and the key that signed its plan's
                              envelope is revoked (decision 0034)
    proposal.bad_ref          ``artifact/ref`` or a digest is not ``[cas:]sha256:<64 hex>``
    proposal.unknown_algorithm  a content address names an algorithm other than sha256
    proposal.artifact_missing the object store holds no bytes under that digest
    proposal.size_mismatch    fetched artifact length differs from ``artifact/size``
    proposal.digest_mismatch  fetched artifact digest differs from ``artifact/digest``, a
                              stored file was altered, or ``artifact/ref`` names another digest
    proposal.not_yet_valid    ``now < proposed-at``
    proposal.expired          ``now >= expires-at``
    proposal.validity_too_long  ``expires-at`` is more than one year (MAX_VALIDITY_SECONDS)
                              after ``proposed-at``: refused by ``propose`` and verification
    proposal.slot_started     ``propose``: a calendar slot of the artifact starts at or
                              before ``proposed-at`` (it has already begun)
    proposal.expires_before_slot  ``propose``: ``expires-at`` is before the latest slot
                              start (the envelope must stay valid until then)
    proposal.author_required  ``propose`` on the command line: no ``--author`` and no
                              principal registered for the signing key
    proposal.executor_mode    executor mode not allowed for the artifact type
    proposal.replayed         idempotency key already consumed by a different payload
    proposal.author_mismatch  intake: the named author owns none of the signing keys
    proposal.author_disabled  intake, and as a reason at act time: the author is disabled
    proposal.requester_disabled  a reason at act time: the plan's requester is disabled
    proposal.unsigned         a reason at act time: a governed store acts only on plans
                              that came from a signed envelope
    proposal.key_registry     a key registry file is malformed (unknown field, bad base64,
                              wrong key length, duplicate keyid...) or a key operation on it
                              is impossible (unknown keyid, keyid taken, bad instant order,
                              rotating a revoked or ended key), or the registry file or key
                              directory cannot be read or written
    proposal.private_key      a private key file is unreadable, unwritable, not PKCS#8 PEM
                              Ed25519, or would overwrite an existing file
    proposal.ledger           a replay ledger file (or its ``.lock``) is unreadable,
                              malformed or unwritable
    proposal.invalid_argument a public function got a wrong-typed Python argument (``None``
                              for a KeyRegistry, a str for an Instant, a path with a NUL
                              character...); raised before anything is read or written
    proposal.duplicate_signature  two signature entries name the same keyid
    proposal.too_many_signatures  more signature entries than MAX_SIGNATURES (16)
    proposal.store            the object store's file system refused a read or write (a
                              regular file where a directory belongs, a directory where an
                              object belongs, read-only file system, disk full...)
"""

from __future__ import annotations

from collections.abc import Iterable

from cerebri.errors import CerebriError

__all__ = ["ProposalError", "json_pointer", "proposal_argument_error"]


class ProposalError(CerebriError, ValueError):
    """An envelope, its signature or its artifact was refused; ``code`` says why."""

    code = "proposal.error"


def proposal_argument_error(message: str) -> ProposalError:
    """The argument guard's error for :mod:`cerebri.proposals` (``proposal.invalid_argument``;
    see :mod:`cerebri._guard`)."""
    return ProposalError(message, code="proposal.invalid_argument")


def json_pointer(location: Iterable[str | int]) -> str:
    """RFC 6901 pointer of a pydantic error location (``("a/b", 0)`` -> ``/a~1b/0``)."""
    return "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in location)
