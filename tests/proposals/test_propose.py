"""``propose``: envelopes are validated before signing; the conditional rule everywhere."""

from __future__ import annotations

import json
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from jsonschema import Draft202012Validator
from pydantic import ValidationError

from cerebri.proposals import (
    ArtifactType,
    Envelope,
    ExecutorMode,
    InMemoryReplayLedger,
    ProposalError,
    Target,
    artifact_for,
    canonical_json,
    envelope_digest,
    envelope_json_schema,
    load_json,
    parse_subject,
    propose,
    sha256_digest,
    verify,
)
from cerebri.temporal import Instant
from tests.proposals.helpers import ARTIFACT, KEY, NOW, body, registry, signed

PROPOSED = Instant.parse("2025-03-01T09:00:00Z")
EXPIRES = Instant.parse("2025-03-02T09:00:00Z")
TARGET = Target.model_validate_json(b'{"task/profile":"p","local/binding":"b"}')


def make(**overrides: Any) -> bytes:
    arguments: dict[str, Any] = {
        "author": parse_subject("principal:alice"),
        "author_node_id": "node-1",
        "query_id": "req-1",
        "room_id": "room-1",
        "turn_id": "turn-1",
        "class_key": "Personal",
        "executor_mode": ExecutorMode.PLAN_EXECUTOR,
        "proposed_at": PROPOSED,
        "expires_at": EXPIRES,
        "idempotency_key": "idem-1",
        "signing_keys": [(KEY, "k1")],
    }
    artifact_type = overrides.pop("artifact_type", ArtifactType.ACTION_PLAN)
    arguments.update(overrides)
    return propose(artifact_for(ARTIFACT), artifact_type, **arguments)


def schema_code(**overrides: Any) -> tuple[str, str | None]:
    with pytest.raises(ProposalError) as caught:
        make(**overrides)
    return caught.value.code, caught.value.path


def check(data: bytes) -> str:
    return verify(
        data,
        registry=registry(),
        clock_now=NOW,
        artifact_bytes=ARTIFACT,
        replay=InMemoryReplayLedger(),
    ).payload_digest


def test_propose_matches_the_hand_built_envelope() -> None:
    data = make(proposal_ref="prop-1")
    assert data == signed(body())
    assert data == canonical_json(load_json(data))
    assert check(data) == envelope_digest(body())


def test_default_proposal_ref_is_content_derived_and_deterministic() -> None:
    first, second = make(), make()
    assert first == second
    ref = load_json(first)["proposal/ref"]
    without = {k: v for k, v in body().items() if k != "proposal/ref"}
    assert ref == "proposal:" + sha256_digest(canonical_json(without))
    other = load_json(make(room_id="room-2"))["proposal/ref"]
    assert other != ref
    assert check(first).startswith("sha256:")


def test_several_signers() -> None:
    second = Ed25519PrivateKey.from_private_bytes(bytes([3]) * 32)
    data = make(signing_keys=[(KEY, "k1"), (second, "k2")])
    assert [e["keyid"] for e in load_json(data)["signature"]["signatures"]] == ["k1", "k2"]


@pytest.mark.parametrize(
    ("overrides", "path"),
    [
        ({"artifact_type": ArtifactType.TASK_EXPERIMENT}, ""),
        (
            {
                "artifact_type": ArtifactType.TASK_EXPERIMENT,
                "target": TARGET,
                "executor_mode": ExecutorMode.PLAN_EXECUTOR,
            },
            "",
        ),
        ({"expires_at": PROPOSED}, ""),
        ({"query_id": ""}, "/query~1id"),
        ({"class_key": "Secret"}, "/class~1key"),
        ({"executor_mode": "fastest"}, "/executor/mode"),
        ({"artifact_type": "unknown.v1"}, "/candidate/artifact~1type"),
        ({"signing_keys": []}, "/signature/signatures"),
        ({"signing_keys": [(KEY, "")]}, "/signature/signatures/0/keyid"),
    ],
)
def test_invalid_envelopes_are_never_signed(overrides: dict[str, Any], path: str) -> None:
    assert schema_code(**overrides) == ("proposal.schema", path)


def test_task_pack_with_target_and_compiler_mode_is_signed() -> None:
    data = make(
        artifact_type=ArtifactType.TASK_EXPERIMENT,
        target=TARGET,
        executor_mode=ExecutorMode.DETERMINISTIC_HOST_COMPILER,
    )
    assert load_json(data)["target"] == {"task/profile": "p", "local/binding": "b"}
    assert check(data).startswith("sha256:")


def test_parse_subject() -> None:
    assert parse_subject("service:planner").model_dump(mode="json") == {
        "kind": "service",
        "id": "planner",
    }
    for text in ("alice", "robot:x", "principal:"):
        with pytest.raises(ProposalError) as caught:
            parse_subject(text)
        assert (caught.value.code, caught.value.path) == ("proposal.schema", "/author")


# ----------------------------------------------------------------- the conditional rule

TASK = {"task/profile": "p", "local/binding": "b"}
COMPILER = {"mode": "deterministic-host-compiler"}
SIG = {"signatures": [{"keyid": "k1", "sig": "A" * 86 + "=="}]}


def task_doc(**overrides: Any) -> dict[str, Any]:
    candidate = {**body()["candidate"], "artifact/type": "operator-task-experiment-candidate.v1"}
    return body(candidate=candidate, signature=SIG, **overrides)


def without_type(**overrides: Any) -> dict[str, Any]:
    candidate = {k: v for k, v in body()["candidate"].items() if k != "artifact/type"}
    return body(candidate=candidate, signature=SIG, **overrides)


def model_accepts(document: dict[str, Any]) -> bool:
    try:
        Envelope.model_validate_json(json.dumps(document))
    except ValidationError:
        return False
    return True


@pytest.mark.parametrize(
    ("document", "accepted"),
    [
        (task_doc(target=TASK, executor=COMPILER), True),
        (task_doc(executor=COMPILER), False),
        (task_doc(target=TASK), False),
        (task_doc(target=TASK, executor={"mode": "manual"}), False),
        (task_doc(), False),
        (without_type(), False),
        (without_type(target=TASK, executor=COMPILER), False),
        (body(signature=SIG), True),
        (body(signature=SIG, target=TASK), True),
    ],
)
def test_conditional_rule_in_model_and_json_schema(
    document: dict[str, Any], accepted: bool
) -> None:
    assert Draft202012Validator(envelope_json_schema()).is_valid(document) is accepted
    assert model_accepts(document) is accepted


def test_signed_envelope_without_artifact_type_is_refused() -> None:
    for document in (without_type(), without_type(target=TASK, executor=COMPILER)):
        unsigned = {k: v for k, v in document.items() if k != "signature"}
        with pytest.raises(ProposalError) as caught:
            check(signed(unsigned))
        assert (caught.value.code, caught.value.path) == (
            "proposal.schema",
            "/candidate/artifact~1type",
        )
    Draft202012Validator.check_schema(envelope_json_schema())
