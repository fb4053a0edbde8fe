from __future__ import annotations

from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import given
from hypothesis import strategies as st

from cerebri.proposals import (
    APPROVAL_PAYLOAD_TYPE,
    InMemoryReplayLedger,
    KeyRegistry,
    ProposalError,
    VerifiedEnvelope,
    envelope_digest,
    verify,
)
from cerebri.temporal import Instant
from tests.proposals.helpers import (
    ARTIFACT,
    EXPIRES,
    KEY,
    NOW,
    PROPOSED,
    T0,
    body,
    registry,
    signed,
)


def run(
    data: bytes,
    *,
    reg: KeyRegistry | None = None,
    now: Instant = NOW,
    artifact: bytes = ARTIFACT,
    ledger: InMemoryReplayLedger | None = None,
    threshold: int = 1,
) -> VerifiedEnvelope:
    return verify(
        data,
        registry=reg if reg is not None else registry(),
        clock_now=now,
        artifact_bytes=artifact,
        replay=ledger if ledger is not None else InMemoryReplayLedger(),
        threshold=threshold,
    )


def code_of(data: bytes, **kwargs: Any) -> str:
    with pytest.raises(ProposalError) as caught:
        run(data, **kwargs)
    return caught.value.code


def test_round_trip_sign_verify() -> None:
    doc = body()
    result = run(signed(doc))
    assert result.payload_digest == envelope_digest(doc)
    assert result.signers == ("k1",)
    assert result.envelope.idempotency_key == "idem-1"
    assert result.verified_at == NOW


def test_schema_errors() -> None:
    assert code_of(b"[]") == "proposal.schema"
    assert code_of(b"{") == "proposal.schema"
    assert code_of(signed(body(**{"human-in-loop/required": False}))) == "proposal.schema"
    assert code_of(signed(body(**{"expires-at": PROPOSED}))) == "proposal.schema"
    assert code_of(signed(body(**{"proposed-at": "2025-03-01T10:00:00+01:00"}))) == (
        "proposal.schema"
    )
    assert code_of(signed(body(**{"class/key": "Secret"}))) == "proposal.schema"
    assert code_of(signed(body(extra=1))) == "proposal.schema"
    candidate = {**body()["candidate"], "artifact/digest": "md5:abc"}
    assert code_of(signed(body(candidate=candidate))) == "proposal.schema"


def test_canonical_json_errors() -> None:
    data = signed(body())
    assert code_of(data.replace(b'"schema/v":2', b'"schema/v":2,"schema/v":2')) == (
        "proposal.canonical_json"
    )
    assert code_of(data.replace(b'"schema/v":2', b'"schema/v":9007199254740993')) == (
        "proposal.canonical_json"
    )


def test_signature_errors() -> None:
    other = Ed25519PrivateKey.from_private_bytes(bytes(32))
    assert code_of(signed(body(), [(other, "k1")])) == "proposal.signature"
    assert code_of(signed(body(), [(KEY, "nobody")])) == "proposal.unknown_key"
    revoked = registry().revoke("k1", at=NOW)
    assert code_of(signed(body()), reg=revoked) == "proposal.revoked_key"


def test_artifact_errors() -> None:
    assert code_of(signed(body()), artifact=ARTIFACT + b" ") == "proposal.size_mismatch"
    flipped = ARTIFACT.replace(b"standup", b"standuq")
    assert code_of(signed(body()), artifact=flipped) == "proposal.digest_mismatch"


def test_time_window_is_half_open() -> None:
    data = signed(body())
    proposed, expires = Instant.parse(PROPOSED), Instant.parse(EXPIRES)
    assert run(data, now=proposed).verified_at == proposed
    assert code_of(data, now=Instant(proposed.ns - 1)) == "proposal.not_yet_valid"
    assert run(data, now=Instant(expires.ns - 1)).verified_at.ns == expires.ns - 1
    assert code_of(data, now=expires) == "proposal.expired"


def test_executor_mode_must_fit_artifact_type() -> None:
    doc = body(executor={"mode": "deterministic-host-compiler"})
    assert code_of(signed(doc)) == "proposal.executor_mode"
    assert run(signed(body(executor={"mode": "manual"}))).envelope.executor.mode == "manual"


def test_replay() -> None:
    ledger = InMemoryReplayLedger()
    first = run(signed(body()), ledger=ledger)
    again = run(signed(body()), ledger=ledger, now=Instant(NOW.ns + 1))
    assert again is first
    changed = signed(body(**{"room/id": "room-2"}))
    assert code_of(changed, ledger=ledger) == "proposal.replayed"


def test_failed_verification_records_nothing() -> None:
    ledger = InMemoryReplayLedger()
    assert code_of(signed(body()), ledger=ledger, artifact=b"") == "proposal.size_mismatch"
    assert ledger.recorded("idem-1") is None


def test_approval_signature_is_not_a_proposal_signature() -> None:
    data = signed(body(), payload_type=APPROVAL_PAYLOAD_TYPE)
    assert code_of(data) == "proposal.signature"


def test_threshold_counts_distinct_keys() -> None:
    second = Ed25519PrivateKey.from_private_bytes(bytes([7]) * 32)
    reg = (
        registry()
        .add("k1-alias", KEY.public_key(), valid_from=T0)
        .add("k2", second.public_key(), valid_from=T0)
    )
    alias = signed(body(), [(KEY, "k1"), (KEY, "k1-alias")])  # one public key, two keyids
    assert code_of(alias, reg=reg, threshold=2) == "proposal.signature"
    twice = signed(body(), [(KEY, "k1"), (KEY, "k1")])  # one keyid twice: refused outright
    assert code_of(twice, reg=reg, threshold=1) == "proposal.duplicate_signature"
    distinct = signed(body(), [(KEY, "k1"), (second, "k2")])
    assert run(distinct, reg=reg, threshold=2).signers == ("k1", "k2")


@given(st.data())
def test_tampering_any_byte_is_refused(data: st.DataObject) -> None:
    envelope = signed(body())
    position = data.draw(st.integers(0, len(envelope) - 1))
    delta = data.draw(st.integers(1, 255))
    tampered = bytearray(envelope)
    tampered[position] = (tampered[position] + delta) % 256
    with pytest.raises(ProposalError):
        run(bytes(tampered))
