"""``ProposalError``: why an envelope was refused (proposals.md sections 2 to 4).

Codes (stable; callers switch on them)::

    proposal.canonical_json   input JSON cannot be represented exactly in RFC 8785 form
                              (duplicate key, float that does not round-trip, integer
                              beyond +/-(2^53 - 1), NaN/Infinity)
    proposal.schema           not an envelope v2 (fields, shapes, conditional rule)
    proposal.signature        a signature does not verify, or the threshold is not met
    proposal.unknown_key      a signature names a keyid the registry does not hold
    proposal.key_inactive     the key exists but is outside its validity window (rotated)
    proposal.revoked_key      the key was revoked at or before the checking instant
    proposal.size_mismatch    fetched artifact length differs from ``artifact/size``
    proposal.digest_mismatch  fetched artifact digest differs from ``artifact/digest``
    proposal.not_yet_valid    ``now < proposed-at``
    proposal.expired          ``now >= expires-at``
    proposal.executor_mode    executor mode not allowed for the artifact type
    proposal.replayed         idempotency key already consumed by a different payload
"""

from __future__ import annotations

from cerebri.errors import CerebriError

__all__ = ["ProposalError"]


class ProposalError(CerebriError, ValueError):
    """An envelope, its signature or its artifact was refused; ``code`` says why."""

    code = "proposal.error"
