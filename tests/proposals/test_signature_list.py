"""The signature list is bounded: at most MAX_SIGNATURES entries, each keyid once.

proposals.md section 3 counts distinct public keys and never duplicate entries; an envelope
with its one entry copied 400 000 times used to pass verification (decision 0017).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from typer.testing import CliRunner

from cerebri.cli import app
from cerebri.proposals import (
    MAX_SIGNATURES,
    InMemoryReplayLedger,
    KeyRegistry,
    ProposalError,
    artifact_for,
    canonical_json,
    check_envelope,
    envelope_json_schema,
    parse_subject,
    propose,
    registry_to_wire,
    verify,
)
from tests.proposals.helpers import ARTIFACT, KEY, NOW, T0, body, registry, signed


def _with_entries(entries: list[dict[str, Any]]) -> bytes:
    return canonical_json({**body(), "signature": {"signatures": entries}})


def _one_entry() -> dict[str, Any]:
    entry: dict[str, Any] = json.loads(signed(body()))["signature"]["signatures"][0]
    return entry


def _verify(envelope: bytes, keys: KeyRegistry | None = None) -> None:
    verify(
        envelope,
        registry=keys or registry(),
        clock_now=NOW,
        artifact_bytes=ARTIFACT,
        replay=InMemoryReplayLedger(),
    )


def test_max_signatures_is_sixteen() -> None:
    assert MAX_SIGNATURES == 16


def test_a_copied_entry_is_refused() -> None:
    entry = _one_entry()
    _verify(_with_entries([entry]))  # the single entry verifies
    with pytest.raises(ProposalError) as twice:
        _verify(_with_entries([entry, entry]))
    assert (twice.value.code, twice.value.path) == (
        "proposal.duplicate_signature",
        "/signature/signatures",
    )


def test_many_copies_are_refused_by_count() -> None:
    entry = _one_entry()
    for count in (17, 400_000):
        with pytest.raises(ProposalError) as many:
            _verify(_with_entries([entry] * count))
        assert many.value.code == "proposal.too_many_signatures", count


def test_sixteen_distinct_signers_verify_and_seventeen_do_not() -> None:
    keys = [Ed25519PrivateKey.from_private_bytes(bytes([n]) * 32) for n in range(1, 18)]
    wide = KeyRegistry()
    for n, key in enumerate(keys):
        wide = wide.add(f"s{n}", key.public_key(), valid_from=T0)
    pairs = [(key, f"s{n}") for n, key in enumerate(keys)]
    done = verify(
        signed(body(), pairs[:16]),
        registry=wide,
        clock_now=NOW,
        artifact_bytes=ARTIFACT,
        replay=InMemoryReplayLedger(),
        threshold=16,
    )
    assert len(done.signers) == 16
    report = check_envelope(signed(body(), pairs), registry=wide, clock_now=NOW)
    assert report.checks[0].code == "proposal.too_many_signatures"


def test_propose_refuses_a_keyid_twice() -> None:
    with pytest.raises(ProposalError) as caught:
        propose(
            artifact_for(ARTIFACT),
            "cerebri.action-plan.v1",
            author=parse_subject("principal:alice"),
            author_node_id="n",
            query_id="q",
            room_id="r",
            turn_id="t",
            class_key="Personal",
            executor_mode="plan-executor",
            proposed_at=NOW,
            expires_at=NOW.plus_seconds(60) or NOW,
            idempotency_key="i",
            signing_keys=[(KEY, "k1"), (KEY, "k1")],
        )
    assert caught.value.code == "proposal.duplicate_signature"


def test_json_schema_caps_the_list() -> None:
    schema = envelope_json_schema()
    listed = schema["$defs"]["EnvelopeSignature"]["properties"]["signatures"]
    assert (listed["minItems"], listed["maxItems"]) == (1, 16)


def test_cli_verify_refuses_duplicates(tmp_path: Path) -> None:
    envelope = tmp_path / "env.json"
    envelope.write_bytes(_with_entries([_one_entry()] * 2))
    keys = tmp_path / "registry.json"
    keys.write_bytes(canonical_json(registry_to_wire(registry())))
    result = CliRunner().invoke(
        app, ["verify", str(envelope), "--registry", str(keys), "--at", "2025-03-01T12:00:00Z"]
    )
    assert result.exit_code == 1, result.output
    assert "proposal.duplicate_signature at /signature/signatures" in result.stdout
