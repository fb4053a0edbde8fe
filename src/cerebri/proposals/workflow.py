"""The propose use-case, one function for every shell: ``cerebri propose`` and the MCP
``propose`` tool (docs/decisions/0042).

::

    signer = load_signer(key_path, keyid, now=now, registry=None, author=None)
    made = proposal_artifact(data, candidate, query_id, wrap, limits, title)
    done = make_proposal(made, signer=signer, origin=Origin("local", "local", "cli"),
                         proposed_at=now, expires_at=expires, objects=Path("objects"))
    done.envelope        # the signed envelope's RFC 8785 bytes (None when unsigned)

:func:`load_signer` reads the private key, checks it against the key registry at ``now``
(:func:`~cerebri.proposals.registered_signer`) and settles the author
(:func:`~cerebri.proposals.signing_author`). :func:`make_proposal` turns a
:class:`~cerebri.proposals.ProposalArtifact` into an envelope: signed with the signer's key
and the artifact then stored in the object store (content-addressed, at the envelope's
``artifact/ref``), or, without a signer, the same envelope unsigned and nothing stored.
Nothing here reads a clock: ``now`` and the validity window are passed in.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from types import NoneType
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from cerebri._guard import PATH, arguments
from cerebri.proposals.artifacts import ProposalArtifact
from cerebri.proposals.envelope import ArtifactType, Classification, ExecutorMode, Subject
from cerebri.proposals.errors import proposal_argument_error
from cerebri.proposals.keyfile import load_private_key
from cerebri.proposals.propose import propose, unsigned_envelope
from cerebri.proposals.signer import registered_signer, signing_author
from cerebri.proposals.slots import slot_starts
from cerebri.proposals.store import ObjectStore, StoredArtifact, artifact_for
from cerebri.temporal import Instant

__all__ = ["Origin", "Proposal", "Signer", "load_signer", "make_proposal"]


@dataclass(frozen=True, slots=True)
class Signer:
    """A private key checked against its registry, and the author it signs as.

    Attributes:
        key: the Ed25519 private key.
        keyid: its id in the key registry.
        author: the envelope author (``principal:``, ``service:`` or ``agent:``).
    """

    key: Ed25519PrivateKey
    keyid: str
    author: Subject


@dataclass(frozen=True, slots=True)
class Origin:
    """Where a proposal comes from: the envelope's ``author/node-id``, ``room/id`` and
    ``turn/id``, its ``class/key`` and its ``executor/mode``."""

    node_id: str
    room_id: str
    turn_id: str
    class_key: Classification = Classification.PERSONAL
    executor_mode: ExecutorMode = ExecutorMode.PLAN_EXECUTOR


@dataclass(frozen=True, slots=True)
class Proposal:
    """A made proposal.

    Attributes:
        artifact: the artifact's ref, digest and size (:func:`artifact_for` its payload).
        artifact_type: the artifact's type.
        envelope: the signed envelope's RFC 8785 bytes; ``None`` when unsigned.
        document: the envelope as JSON (with ``signature`` when signed).
    """

    artifact: StoredArtifact
    artifact_type: ArtifactType
    envelope: bytes | None
    document: dict[str, Any]


@arguments(
    proposal_argument_error,
    key_path=PATH,
    keyid=str,
    now=Instant,
    registry=(*PATH, NoneType),
    author=(str, NoneType),
)
def load_signer(
    key_path: Path, keyid: str, *, now: Instant, registry: Path | None, author: str | None
) -> Signer:
    """The private key at ``key_path`` as ``keyid``, checked against ``registry`` (or the
    ``registry.json`` beside the key, if any) at ``now``, signing as ``author`` or else as
    the principal the registry records for ``keyid``.

    Raises:
        ProposalError: ``proposal.private_key`` (unreadable, or not the key registered as
            ``keyid``), the registry's lookup codes (unknown, revoked, not valid at
            ``now``), ``proposal.key_registry``, ``proposal.author_required``,
            ``proposal.schema`` for an ``author`` of another form.
    """
    signing_key = load_private_key(key_path)
    registered = registered_signer(key_path, keyid, signing_key, now, registry)
    return Signer(signing_key, keyid, signing_author(author, registered, keyid))


@arguments(
    proposal_argument_error,
    made=ProposalArtifact,
    signer=(Signer, NoneType),
    origin=Origin,
    proposed_at=Instant,
    expires_at=Instant,
    author=(Subject, NoneType),
    objects=(*PATH, NoneType),
)
def make_proposal(
    made: ProposalArtifact,
    *,
    signer: Signer | None,
    origin: Origin,
    proposed_at: Instant,
    expires_at: Instant,
    author: Subject | None = None,
    objects: Path | None = None,
) -> Proposal:
    """The envelope for ``made``, valid from ``proposed_at`` until ``expires_at``, with its
    calendar slots (:func:`~cerebri.proposals.slot_starts`) checked against both.

    With a ``signer`` the envelope is signed (:func:`~cerebri.proposals.propose`) and then,
    when ``objects`` names an object store, the payload is stored there. Without one it is
    :func:`~cerebri.proposals.unsigned_envelope` authored by ``author`` (required then) and
    nothing is stored.

    Raises:
        ProposalError: ``proposal.schema``, ``proposal.validity_too_long``,
            ``proposal.slot_started``, ``proposal.expires_before_slot`` (nothing is signed
            or stored then); ``proposal.store`` when the payload cannot be stored;
            ``proposal.invalid_argument`` for an argument of the wrong type, or neither
            ``signer`` nor ``author``.
    """
    artifact = artifact_for(made.payload)
    common: dict[str, Any] = {
        "author_node_id": origin.node_id,
        "query_id": made.query_id,
        "room_id": origin.room_id,
        "turn_id": origin.turn_id,
        "class_key": origin.class_key,
        "executor_mode": origin.executor_mode,
        "proposed_at": proposed_at,
        "expires_at": expires_at,
        "idempotency_key": made.idempotency_key,
        "slot_starts": slot_starts(made.payload),
    }
    if signer is None:
        if author is None:
            raise proposal_argument_error("make_proposal(): an unsigned proposal needs an author")
        document = unsigned_envelope(artifact, made.artifact_type, author=author, **common)
        return Proposal(artifact, made.artifact_type, None, document)
    envelope = propose(
        artifact,
        made.artifact_type,
        author=signer.author,
        signing_keys=[(signer.key, signer.keyid)],
        **common,
    )
    if objects is not None:  # content-addressed: lands at the signed artifact/ref
        ObjectStore(objects).put(made.payload)
    return Proposal(artifact, made.artifact_type, envelope, json.loads(envelope))
