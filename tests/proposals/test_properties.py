"""Property tests: canonical bytes, sign-then-verify, single-byte changes of the payload."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cerebri.proposals import (
    PROPOSAL_PAYLOAD_TYPE,
    InMemoryReplayLedger,
    KeyRegistry,
    ProposalError,
    SignatureEntry,
    Subject,
    artifact_for,
    canonical_json,
    envelope_payload,
    load_json,
    propose,
    verify,
    verify_signature,
)
from cerebri.proposals.digest import MAX_SAFE_INTEGER
from cerebri.temporal import Instant
from tests.proposals.helpers import ARTIFACT, KEY, NOW, body, registry, signed
from tests.strategies import canonical_json_values, envelope_inputs

JSON = canonical_json_values()


def shuffled(value: Any, rng: random.Random) -> Any:
    if isinstance(value, dict):
        items = list(value.items())
        rng.shuffle(items)
        return {key: shuffled(item, rng) for key, item in items}
    if isinstance(value, list):
        return [shuffled(item, rng) for item in value]
    return value


@given(JSON, st.randoms(use_true_random=False))
def test_canonical_bytes_do_not_depend_on_key_order(value: Any, rng: random.Random) -> None:
    reordered = shuffled(value, rng)
    assert canonical_json(reordered) == canonical_json(value)


ENVELOPE_INPUTS = envelope_inputs()


@given(ENVELOPE_INPUTS)
def test_sign_then_verify_always_succeeds(inputs: dict[str, Any]) -> None:
    author, node, query, room, turn, idempotency = inputs["ids"]
    proposed = Instant.from_seconds(inputs["proposed"])
    expires = Instant.from_seconds(inputs["proposed"] + inputs["duration"])
    now = Instant.from_seconds(inputs["proposed"] + inputs["offset"] % inputs["duration"])
    envelope = propose(
        artifact_for(inputs["artifact"]),
        inputs["artifact_type"],
        author=Subject.model_validate_json(json.dumps({"kind": inputs["kind"], "id": author})),
        author_node_id=node,
        query_id=query,
        room_id=room,
        turn_id=turn,
        class_key=inputs["class_key"],
        executor_mode=inputs["mode"],
        proposed_at=proposed,
        expires_at=expires,
        idempotency_key=idempotency,
        signing_keys=[(KEY, "k1")],
    )
    result = verify(
        envelope,
        registry=KeyRegistry().add("k1", KEY.public_key(), valid_from=Instant(0)),
        clock_now=now,
        artifact_bytes=inputs["artifact"],
        replay=InMemoryReplayLedger(),
    )
    assert result.envelope.query_id == query
    assert result.envelope.author.id == author
    assert result.signers == ("k1",)


def _payload_and_entry() -> tuple[dict[str, Any], bytes, SignatureEntry]:
    document = load_json(signed(body()))
    entry = SignatureEntry.model_validate(document["signature"]["signatures"][0])
    return document, envelope_payload(document), entry


@given(st.data())
def test_any_single_byte_change_of_the_payload_fails(data: st.DataObject) -> None:
    document, payload, entry = _payload_and_entry()
    position = data.draw(st.integers(0, len(payload) - 1))
    delta = data.draw(st.integers(1, 255))
    changed = bytearray(payload)
    changed[position] = (changed[position] + delta) % 256
    changed_payload = bytes(changed)
    assert not verify_signature(PROPOSAL_PAYLOAD_TYPE, changed_payload, entry, KEY.public_key())
    # the same change inside a whole envelope (signature spliced in after the opening brace)
    signature = canonical_json({"signature": document["signature"]})[1:-1]
    envelope = changed_payload[:1] + signature + b"," + changed_payload[1:]
    with pytest.raises(ProposalError):
        verify(
            envelope,
            registry=registry(),
            clock_now=NOW,
            artifact_bytes=ARTIFACT,
            replay=InMemoryReplayLedger(),
        )


@given(
    st.recursive(
        st.floats(allow_nan=False, allow_infinity=False)
        | st.integers(-MAX_SAFE_INTEGER, MAX_SAFE_INTEGER),
        lambda inner: st.lists(inner, max_size=4),
        max_leaves=10,
    )
)
def test_what_canonical_json_writes_reads_back_to_the_same_bytes(value: Any) -> None:
    try:
        written = canonical_json(value)
    except ProposalError as error:
        assert error.code == "proposal.canonical_json"
        return
    assert canonical_json(load_json(written)) == written
