"""DSSE pre-authentication encoding, Ed25519 signatures, key registry, thresholds.

Pre-authentication encoding (DSSE v1, https://github.com/secure-systems-lab/dsse/blob/master/
protocol.md)::

    PAE(type, body) = b"DSSEv1" SP LEN(type) SP type SP LEN(body) SP body

``SP`` is one ASCII space (0x20), ``LEN`` the byte length as ASCII decimal without leading
zeros, ``type`` the payload type in UTF-8 and ``body`` the exact payload bytes. Ed25519 signs
``PAE(type, body)``. Proposals and approvals use different payload types
(:data:`PROPOSAL_PAYLOAD_TYPE`, :data:`APPROVAL_PAYLOAD_TYPE`), so a signature made over one
never verifies as the other, even over identical bytes.

:class:`KeyRegistry` is an immutable value: ``add``, ``rotate`` and ``revoke`` return a new
registry. Rotation and revocation are judged at different instants (decision 0012):

* the validity window ``valid_from <= signed_at < valid_until`` (no ``valid_until`` means
  open-ended; rotation sets it) at ``signed_at``, the instant the envelope says it was
  signed (its ``proposed-at``): an envelope signed before a rotation still verifies after it;
* revocation at ``now``, the verification instant: ``revoked_at <= now`` refuses the key
  whenever it signed, because a revoked key is presumed compromised (and a compromised key
  can write any ``proposed-at``).
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Final

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from cerebri._guard import arguments, items_of
from cerebri.proposals.authors import canonical_principal
from cerebri.proposals.envelope import SignatureEntry
from cerebri.proposals.errors import ProposalError, proposal_argument_error
from cerebri.temporal import Instant

_REGISTRY: Final = "proposal.key_registry"

__all__ = [
    "APPROVAL_PAYLOAD_TYPE",
    "PROPOSAL_PAYLOAD_TYPE",
    "KeyRegistry",
    "RegisteredKey",
    "count_valid_signers",
    "pae",
    "sign",
    "verify_signature",
]

PROPOSAL_PAYLOAD_TYPE: Final = "application/vnd.cerebri.proposal.v2+json"
APPROVAL_PAYLOAD_TYPE: Final = "application/vnd.cerebri.approval.v1+json"


def pae(payload_type: str, payload: bytes) -> bytes:
    """DSSE v1 pre-authentication encoding of ``payload_type`` and ``payload`` (see above).

    ``proposal.schema`` unless ``payload_type`` is a ``str`` and ``payload`` bytes.
    """
    if not isinstance(payload_type, str) or not isinstance(payload, bytes | bytearray):
        raise ProposalError(
            "PAE takes a str payload type and bytes payload, not "
            f"{type(payload_type).__name__} and {type(payload).__name__}",
            code="proposal.schema",
        )
    kind = payload_type.encode("utf-8")
    return b"DSSEv1 %d %b %d %b" % (len(kind), kind, len(payload), payload)


@arguments(
    proposal_argument_error,
    payload_type=str,
    payload=bytes,
    private_key=Ed25519PrivateKey,
    keyid=str,
)
def sign(
    payload_type: str, payload: bytes, private_key: Ed25519PrivateKey, keyid: str
) -> SignatureEntry:
    """Sign ``PAE(payload_type, payload)``; ``sig`` is standard base64 with padding."""
    raw = private_key.sign(pae(payload_type, payload))
    return SignatureEntry(keyid=keyid, sig=base64.b64encode(raw).decode("ascii"))


@arguments(
    proposal_argument_error,
    payload_type=str,
    payload=bytes,
    entry=SignatureEntry,
    public_key=Ed25519PublicKey,
)
def verify_signature(
    payload_type: str, payload: bytes, entry: SignatureEntry, public_key: Ed25519PublicKey
) -> bool:
    """Whether ``entry.sig`` is a valid Ed25519 signature of ``PAE(payload_type, payload)``.

    Only the canonical base64 spelling counts (non-zero padding bits are refused).
    """
    try:
        raw = base64.b64decode(entry.sig, validate=True)
        if base64.b64encode(raw).decode("ascii") != entry.sig:
            return False
        public_key.verify(raw, pae(payload_type, payload))
    except (InvalidSignature, binascii.Error, ValueError):
        return False
    return True


def _raw(public_key: Ed25519PublicKey) -> bytes:
    return public_key.public_bytes(Encoding.Raw, PublicFormat.Raw)


@dataclass(frozen=True, slots=True)
class RegisteredKey:
    """A public key under ``keyid``, usable on ``[valid_from, valid_until)`` until revoked.

    ``principal`` is who holds the key (``principal:<name>`` or ``agent:<name>``, canonical
    form; :mod:`cerebri.proposals.authors`), or None when the registry does not say.
    """

    keyid: str
    public_key: Ed25519PublicKey
    valid_from: Instant
    valid_until: Instant | None = None
    revoked_at: Instant | None = None
    principal: str | None = None

    @property
    def raw(self) -> bytes:
        """The 32 raw public key bytes: the identity a threshold counts."""
        return _raw(self.public_key)


@dataclass(frozen=True, slots=True)
class KeyRegistry:
    """Immutable map from ``keyid`` to :class:`RegisteredKey`."""

    keys: Mapping[str, RegisteredKey] = field(default_factory=lambda: MappingProxyType({}))

    def _with(self, key: RegisteredKey) -> KeyRegistry:
        return KeyRegistry(MappingProxyType({**self.keys, key.keyid: key}))

    @arguments(
        proposal_argument_error,
        keyid=str,
        public_key=Ed25519PublicKey,
        valid_from=Instant,
        valid_until=(Instant, type(None)),
        principal=(str, type(None)),
    )
    def add(
        self,
        keyid: str,
        public_key: Ed25519PublicKey,
        *,
        valid_from: Instant,
        valid_until: Instant | None = None,
        principal: str | None = None,
    ) -> KeyRegistry:
        """A registry that also holds ``keyid``, held by ``principal`` when given
        (``principal:<name>`` or ``agent:<name>``, stored in canonical form);
        :class:`ProposalError` ``proposal.key_registry`` (a ``ValueError``) if the keyid is
        taken, ``valid_until`` is not after ``valid_from`` or ``principal`` is malformed."""
        if keyid in self.keys:
            raise ProposalError(f"keyid {keyid!r} is already registered", code=_REGISTRY)
        if valid_until is not None and not valid_from < valid_until:
            raise ProposalError("valid_until must be after valid_from", code=_REGISTRY)
        holder = None if principal is None else canonical_principal(principal, code=_REGISTRY)
        return self._with(
            RegisteredKey(keyid, public_key, valid_from, valid_until, principal=holder)
        )

    @arguments(
        proposal_argument_error,
        old_keyid=str,
        new_keyid=str,
        new_public_key=Ed25519PublicKey,
        at=Instant,
    )
    def rotate(
        self, old_keyid: str, new_keyid: str, new_public_key: Ed25519PublicKey, *, at: Instant
    ) -> KeyRegistry:
        """End ``old_keyid`` at ``at`` (exclusive) and start ``new_keyid`` at ``at``; the new
        key is held by the old key's principal (a rotation changes the key, not its holder).

        :class:`ProposalError` ``proposal.key_registry`` (a ``ValueError``) if ``old_keyid``
        is unknown, ``at`` is not after the old key's ``valid_from``, the old key is revoked,
        or it has already ended (``valid_until <= at``).
        """
        old = self._registered(old_keyid)
        if old.revoked_at is not None:
            raise ProposalError(
                f"key {old_keyid!r} is revoked; register a new key instead", code=_REGISTRY
            )
        if old.valid_until is not None and old.valid_until <= at:
            raise ProposalError(
                f"key {old_keyid!r} already ended at {old.valid_until}", code=_REGISTRY
            )
        if not old.valid_from < at:
            raise ProposalError(
                "rotation instant must be after the old key's valid_from", code=_REGISTRY
            )
        ended = replace(old, valid_until=at)
        return self._with(ended).add(
            new_keyid, new_public_key, valid_from=at, principal=old.principal
        )

    def _registered(self, keyid: str) -> RegisteredKey:
        if keyid not in self.keys:
            raise ProposalError(f"unknown keyid {keyid!r}", code=_REGISTRY)
        return self.keys[keyid]

    @arguments(proposal_argument_error, keyid=str, at=Instant)
    def revoke(self, keyid: str, *, at: Instant) -> KeyRegistry:
        """Refuse ``keyid`` from ``at`` on (an earlier revocation stays in force);
        ``proposal.key_registry`` for an unknown keyid."""
        old = self._registered(keyid)
        when = at if old.revoked_at is None else min(at, old.revoked_at)
        return self._with(replace(old, revoked_at=when))

    @arguments(proposal_argument_error, keyid=str, signed_at=Instant, now=Instant)
    def lookup(self, keyid: str, *, signed_at: Instant, now: Instant) -> RegisteredKey:
        """The key registered under ``keyid`` if it may have signed at ``signed_at`` and is
        not revoked at ``now`` (see the module docstring).

        Raises ``ProposalError``: ``proposal.unknown_key`` (never registered),
        ``proposal.revoked_key`` (``revoked_at <= now``, whenever it signed),
        ``proposal.key_inactive`` (``signed_at`` outside ``[valid_from, valid_until)``).
        """
        key = self.keys.get(keyid)
        if key is None:
            raise ProposalError(f"unknown keyid {keyid!r}", code="proposal.unknown_key")
        if key.revoked_at is not None and key.revoked_at <= now:
            raise ProposalError(
                f"key {keyid!r} revoked at {key.revoked_at}", code="proposal.revoked_key"
            )
        if signed_at < key.valid_from or (
            key.valid_until is not None and key.valid_until <= signed_at
        ):
            raise ProposalError(
                f"key {keyid!r} was not valid at {signed_at}", code="proposal.key_inactive"
            )
        return key


@arguments(
    proposal_argument_error,
    payload_type=str,
    payload=bytes,
    entries=Iterable,
    registry=KeyRegistry,
    signed_at=Instant,
    now=Instant,
)
def count_valid_signers(
    payload_type: str,
    payload: bytes,
    entries: Iterable[SignatureEntry],
    registry: KeyRegistry,
    *,
    signed_at: Instant,
    now: Instant,
) -> int:
    """How many *distinct public keys* validly signed ``payload``.

    Every entry must name a key that :meth:`KeyRegistry.lookup` accepts for ``signed_at``
    (the envelope's ``proposed-at``) and ``now`` (the verification instant), else that
    error, and must verify (else ``proposal.signature``). Two entries by the same key, or by
    two keyids registered with the same public key, count once.
    """
    signers: set[bytes] = set()
    checked = items_of(
        entries, SignatureEntry, proposal_argument_error, "count_valid_signers entries"
    )
    for entry in checked:
        key = registry.lookup(entry.keyid, signed_at=signed_at, now=now)
        if not verify_signature(payload_type, payload, entry, key.public_key):
            raise ProposalError(
                f"signature by {entry.keyid!r} does not verify", code="proposal.signature"
            )
        signers.add(key.raw)
    return len(signers)
