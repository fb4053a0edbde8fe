"""End to end: a planned request becomes a plan graph in a signed envelope that verifies and
still grants nothing (issue #5, "What it must show")."""

from __future__ import annotations

from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

import cerebri
from cerebri.planner import action_plan_for
from cerebri.plans import builtin_registry, draft_from_action_plan, parse_draft, validate_draft
from cerebri.proposals import (
    STILL_REQUIRED,
    ArtifactType,
    Classification,
    ExecutorMode,
    InMemoryReplayLedger,
    KeyRegistry,
    ObjectStore,
    Subject,
    SubjectKind,
    Verdict,
    check_envelope,
    load_json,
    propose,
    sha256_digest,
    verify,
)
from cerebri.temporal import Instant
from tests.planner.helpers import EXAMPLE

KEY = Ed25519PrivateKey.from_private_bytes(bytes(range(100, 132)))
KEYS_FROM = Instant.parse("2026-01-01T00:00:00Z")
PROPOSED = Instant.parse("2026-10-04T19:00:00Z")
EXPIRES = Instant.parse("2026-10-05T07:00:00Z")
NOW = Instant.parse("2026-10-04T20:00:00Z")


def _propose_and_verify(source: bytes, store_root: Path) -> None:
    request = cerebri.parse_request(source)
    actions = action_plan_for(request)
    draft = draft_from_action_plan(actions)
    assert validate_draft(draft, builtin_registry()).valid

    store = ObjectStore(store_root)
    artifact = store.put_json(draft.to_wire())
    envelope = propose(
        artifact,
        ArtifactType.PLAN_GRAPH,
        author=Subject(kind=SubjectKind.SERVICE, id="cerebri-planner"),
        author_node_id="node-a",
        query_id=request.request_id,
        room_id="room-1",
        turn_id="turn-1",
        class_key=Classification.PERSONAL,
        executor_mode=ExecutorMode.PLAN_EXECUTOR,
        proposed_at=PROPOSED,
        expires_at=EXPIRES,
        idempotency_key=actions.plan_id,
        signing_keys=[(KEY, "planner-1")],
    )
    registry = KeyRegistry().add("planner-1", KEY.public_key(), valid_from=KEYS_FROM)

    # the artifact in the envelope is the plan graph, byte for byte, and reads back equal
    document = load_json(envelope)
    stored = store.get(document["candidate"]["artifact/ref"])
    assert sha256_digest(stored) == document["candidate"]["artifact/digest"]
    assert parse_draft(stored) == draft

    report = check_envelope(
        envelope, registry=registry, clock_now=NOW, store=store, replay=InMemoryReplayLedger()
    )
    assert [(c.name.value, c.verdict) for c in report.checks] == [
        ("schema", Verdict.PASSED),
        ("signature", Verdict.PASSED),
        ("artifact", Verdict.PASSED),
        ("window", Verdict.PASSED),
        ("executor_mode", Verdict.PASSED),
        ("replay", Verdict.PASSED),
    ]
    # verification grants nothing: approval, grant and policy are still required
    assert report.still_required == STILL_REQUIRED
    wire = report.to_wire()
    required = " ".join(wire["still_required"])  # type: ignore[arg-type]
    for needed in ("approval", "human other than the author", "capability grant", "policy"):
        assert needed in required

    verified = verify(
        envelope,
        registry=registry,
        clock_now=NOW,
        artifact_bytes=stored,
        replay=InMemoryReplayLedger(),
    )
    assert verified.envelope.idempotency_key == actions.plan_id
    assert verified.envelope.human_in_loop_required is True
    # the verified value carries no approval, grant or decision of any kind
    assert {f for f in type(verified).__dataclass_fields__} == {
        "envelope",
        "payload_digest",
        "signers",
        "verified_at",
    }


def test_shipped_example_end_to_end(tmp_path: Path) -> None:
    _propose_and_verify(EXAMPLE.read_bytes(), tmp_path)


@pytest.mark.parametrize("name", ["request.json", "01-basic-feasible.json"])
def test_conformance_request_end_to_end(conformance: Path, tmp_path: Path, name: str) -> None:
    _propose_and_verify((conformance / "cerebri" / name).read_bytes(), tmp_path)
