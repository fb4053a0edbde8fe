"""Make a signed envelope v2 for a stored artifact (the signing half of proposals.md).

:func:`propose` assembles the envelope, validates it through the :class:`Envelope` model
*before* signing (an invalid envelope is never signed: ``proposal.schema``), signs
``PAE(PROPOSAL_PAYLOAD_TYPE, RFC 8785 payload)`` with every given key and returns the
envelope's RFC 8785 bytes. The result depends only on the arguments (Ed25519 signatures are
deterministic): no clock, no randomness.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from pydantic import ValidationError

from cerebri._guard import Kind, arguments
from cerebri.proposals.checks import check_schema, check_validity_span
from cerebri.proposals.digest import canonical_json, envelope_payload, sha256_digest
from cerebri.proposals.envelope import (
    ArtifactType,
    Classification,
    ExecutorMode,
    Subject,
    Target,
)
from cerebri.proposals.errors import ProposalError, proposal_argument_error
from cerebri.proposals.signing import PROPOSAL_PAYLOAD_TYPE, sign
from cerebri.proposals.slots import check_slot_times
from cerebri.proposals.store import StoredArtifact
from cerebri.temporal import Instant

__all__ = ["PROPOSAL_REF_PREFIX", "UNSIGNED_KEYID", "parse_subject", "propose", "unsigned_envelope"]

PROPOSAL_REF_PREFIX: Final = "proposal:"
"""A default ``proposal/ref`` is ``proposal:sha256:<hex>`` over the RFC 8785 bytes of the
envelope without ``proposal/ref`` and ``signature``."""

_PLACEHOLDER_SIG: Final = "A" * 86 + "=="


def parse_subject(text: str) -> Subject:
    """``"principal:alice"`` or ``"service:planner"`` as a :class:`Subject`.

    Raises ``ProposalError`` ``proposal.schema`` (path ``/author``) for any other form.
    """
    if not isinstance(text, str):
        raise ProposalError(
            f"author is text, not {type(text).__name__}", code="proposal.schema", path="/author"
        )
    kind, _, ident = text.partition(":")
    try:
        return Subject.model_validate_json(canonical_json({"kind": kind, "id": ident}))
    except ValidationError:
        raise ProposalError(
            f"author must be principal:<id> or service:<id>, not {text!r}",
            code="proposal.schema",
            path="/author",
        ) from None


def _document(
    artifact: StoredArtifact,
    artifact_type: ArtifactType | str,
    *,
    author: Subject,
    author_node_id: str,
    query_id: str,
    room_id: str,
    turn_id: str,
    class_key: Classification | str,
    executor_mode: ExecutorMode | str,
    proposed_at: Instant,
    expires_at: Instant,
    idempotency_key: str,
    proposal_ref: str | None,
    target: Target | None,
) -> dict[str, Any]:
    """The envelope without ``signature`` (``proposal/ref`` defaulted), not yet checked."""
    document: dict[str, Any] = {
        "schema/v": 2,
        "query/id": query_id,
        "room/id": room_id,
        "turn/id": turn_id,
        "author": author.model_dump(mode="json"),
        "author/node-id": author_node_id,
        "executor": {"mode": str(executor_mode)},
        "candidate": {
            "artifact/type": str(artifact_type),
            "artifact/ref": artifact.ref,
            "artifact/digest": artifact.digest,
            "artifact/size": artifact.size,
        },
        "class/key": str(class_key),
        "human-in-loop/required": True,
        "proposed-at": proposed_at.format(),
        "expires-at": expires_at.format(),
        "idempotency/key": idempotency_key,
    }
    if target is not None:
        document["target"] = target.model_dump(mode="json")
    if proposal_ref is None:
        proposal_ref = PROPOSAL_REF_PREFIX + sha256_digest(canonical_json(document))
    document["proposal/ref"] = proposal_ref
    return document


_ENVELOPE_FIELDS: Final[dict[str, Kind]] = {
    "artifact": StoredArtifact,
    "artifact_type": str,
    "author": Subject,
    "author_node_id": str,
    "query_id": str,
    "room_id": str,
    "turn_id": str,
    "class_key": str,
    "executor_mode": str,
    "proposed_at": Instant,
    "expires_at": Instant,
    "idempotency_key": str,
}
_ENVELOPE_OPTIONS: Final[dict[str, Kind]] = {
    "proposal_ref": (str, type(None)),
    "target": (Target, type(None)),
    "slot_starts": (list, tuple),
}
"""The argument guard of :func:`propose` and :func:`unsigned_envelope`: their common
required parameters, then their common optional ones (checked in that order)."""


def _check(
    document: dict[str, Any],
    keyids: Sequence[str],
    proposed_at: Instant,
    expires_at: Instant,
    slot_starts: Sequence[Instant],
) -> None:
    """Refuse what the signed envelope would fail (schema with placeholder signatures under
    ``keyids``, validity span, slot times) before anything is signed."""
    placeholder = [{"keyid": keyid, "sig": _PLACEHOLDER_SIG} for keyid in keyids]
    check_schema(canonical_json({**document, "signature": {"signatures": placeholder}}))
    check_validity_span(proposed_at, expires_at)
    check_slot_times(slot_starts, proposed_at=proposed_at, expires_at=expires_at)


@arguments(
    proposal_argument_error,
    **_ENVELOPE_FIELDS,
    signing_keys=(list, tuple),
    **_ENVELOPE_OPTIONS,
)
def propose(
    artifact: StoredArtifact,
    artifact_type: ArtifactType | str,
    *,
    author: Subject,
    author_node_id: str,
    query_id: str,
    room_id: str,
    turn_id: str,
    class_key: Classification | str,
    executor_mode: ExecutorMode | str,
    proposed_at: Instant,
    expires_at: Instant,
    idempotency_key: str,
    signing_keys: Sequence[tuple[Ed25519PrivateKey, str]],
    proposal_ref: str | None = None,
    target: Target | None = None,
    slot_starts: Sequence[Instant] = (),
) -> bytes:
    """The signed envelope's RFC 8785 bytes; ``signing_keys`` are ``(private key, keyid)``.

    The envelope is checked with placeholder signatures under the real keyids first, so
    nothing is signed unless the signed envelope will pass the schema check.

    Raises ``ProposalError`` ``proposal.schema`` (with a JSON pointer) when the envelope
    would be invalid, including no signing key, a task-pack type without ``target`` or with
    another executor mode, and ``expires_at <= proposed_at``; ``proposal.validity_too_long``
    (``/expires-at``) when ``expires_at`` is more than
    :data:`~cerebri.proposals.envelope.MAX_VALIDITY_SECONDS` (one year) after ``proposed_at``.

    ``slot_starts`` are the starts of the calendar slots the artifact would fill
    (:func:`~cerebri.proposals.slot_starts` reads them from its bytes); they are refused,
    before anything is signed, with ``proposal.slot_started`` (a slot starts at or before
    ``proposed_at``) or ``proposal.expires_before_slot`` (``expires_at`` before the latest
    slot start; :func:`~cerebri.proposals.check_slot_times`,
    docs/decisions/0025-proposing-calendar-slots.md).
    """
    document = _document(
        artifact,
        artifact_type,
        author=author,
        author_node_id=author_node_id,
        query_id=query_id,
        room_id=room_id,
        turn_id=turn_id,
        class_key=class_key,
        executor_mode=executor_mode,
        proposed_at=proposed_at,
        expires_at=expires_at,
        idempotency_key=idempotency_key,
        proposal_ref=proposal_ref,
        target=target,
    )
    for pair in signing_keys:
        if not (
            isinstance(pair, tuple)
            and len(pair) == 2
            and isinstance(pair[0], Ed25519PrivateKey)
            and isinstance(pair[1], str)
        ):
            raise proposal_argument_error(
                "propose() needs signing_keys as (Ed25519PrivateKey, str) pairs, got "
                f"{type(pair).__name__}"
            )
    _check(document, [keyid for _, keyid in signing_keys], proposed_at, expires_at, slot_starts)
    payload = envelope_payload(document)
    entries = [sign(PROPOSAL_PAYLOAD_TYPE, payload, key, keyid) for key, keyid in signing_keys]
    signature = {"signatures": [entry.model_dump(mode="json") for entry in entries]}
    return canonical_json({**document, "signature": signature})


UNSIGNED_KEYID: Final = "unsigned"
"""The keyid of the placeholder signature an unsigned envelope is checked with."""


@arguments(proposal_argument_error, **_ENVELOPE_FIELDS, **_ENVELOPE_OPTIONS)
def unsigned_envelope(
    artifact: StoredArtifact,
    artifact_type: ArtifactType | str,
    *,
    author: Subject,
    author_node_id: str,
    query_id: str,
    room_id: str,
    turn_id: str,
    class_key: Classification | str,
    executor_mode: ExecutorMode | str,
    proposed_at: Instant,
    expires_at: Instant,
    idempotency_key: str,
    proposal_ref: str | None = None,
    target: Target | None = None,
    slot_starts: Sequence[Instant] = (),
) -> dict[str, Any]:
    """The envelope :func:`propose` would sign, without its ``signature`` member: what a
    holder of a key signs later (its :func:`~cerebri.proposals.envelope_digest` is the
    payload digest the signatures cover). Checked exactly as :func:`propose` checks (schema
    with one placeholder signature, validity span, slot times), with the same errors; it
    grants nothing and no verifier accepts it until signed.
    """
    document = _document(
        artifact,
        artifact_type,
        author=author,
        author_node_id=author_node_id,
        query_id=query_id,
        room_id=room_id,
        turn_id=turn_id,
        class_key=class_key,
        executor_mode=executor_mode,
        proposed_at=proposed_at,
        expires_at=expires_at,
        idempotency_key=idempotency_key,
        proposal_ref=proposal_ref,
        target=target,
    )
    _check(document, [UNSIGNED_KEYID], proposed_at, expires_at, slot_starts)
    return document
