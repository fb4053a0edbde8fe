"""Builders for signed envelopes used by the proposal tests."""

from __future__ import annotations

from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from cerebri.proposals import (
    PROPOSAL_PAYLOAD_TYPE,
    KeyRegistry,
    canonical_json,
    envelope_payload,
    sha256_digest,
    sign,
)
from cerebri.temporal import Instant

ARTIFACT = b'{"plan":"move standup"}'
T0 = Instant.parse("2025-01-01T00:00:00Z")
PROPOSED = "2025-03-01T09:00:00Z"
EXPIRES = "2025-03-02T09:00:00Z"
NOW = Instant.parse("2025-03-01T12:00:00Z")
KEY = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))


def body(**overrides: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "schema/v": 2,
        "proposal/ref": "prop-1",
        "query/id": "req-1",
        "room/id": "room-1",
        "turn/id": "turn-1",
        "author": {"kind": "principal", "id": "alice"},
        "author/node-id": "node-1",
        "executor": {"mode": "plan-executor"},
        "candidate": {
            "artifact/type": "cerebri.action-plan.v1",
            "artifact/ref": "cas:" + sha256_digest(ARTIFACT),
            "artifact/digest": sha256_digest(ARTIFACT),
            "artifact/size": len(ARTIFACT),
        },
        "class/key": "Personal",
        "human-in-loop/required": True,
        "proposed-at": PROPOSED,
        "expires-at": EXPIRES,
        "idempotency/key": "idem-1",
    }
    doc.update(overrides)
    return doc


def signed(
    doc: dict[str, Any],
    keys: list[tuple[Ed25519PrivateKey, str]] | None = None,
    payload_type: str = PROPOSAL_PAYLOAD_TYPE,
) -> bytes:
    pairs = keys if keys is not None else [(KEY, "k1")]
    payload = envelope_payload(doc)
    entries = [sign(payload_type, payload, key, kid).model_dump() for key, kid in pairs]
    return canonical_json({**doc, "signature": {"signatures": entries}})


def registry() -> KeyRegistry:
    return KeyRegistry().add("k1", KEY.public_key(), valid_from=T0)
