"""Slots of an artifact (``slot_starts``, ``check_slot_times``, ``propose(slot_starts=)``)
and the principal a registered key speaks for."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from cerebri.proposals import (
    KeyRegistry,
    ProposalError,
    Subject,
    SubjectKind,
    artifact_for,
    author_of,
    canonical_json,
    canonical_principal,
    check_slot_times,
    load_registry,
    new_key,
    parse_registry,
    parse_subject,
    propose,
    registry_to_wire,
    slot_starts,
)
from cerebri.temporal import Instant

T = Instant.parse
PROPOSED = T("2026-10-04T19:00:00Z")
EXPIRES = T("2026-10-05T19:00:00Z")


def _action_plan(*starts: str) -> bytes:
    actions = [
        {"id": f"a-{i}", "action": {"kind": "CREATE_EVENT", "range": {"start": s, "end": s}}}
        for i, s in enumerate(starts)
    ]
    return canonical_json({"plan_id": "p", "actions": actions})


def _graph(steps: list[dict[str, Any]]) -> bytes:
    return canonical_json({"objective": "o", "steps": steps})


def test_slot_starts_of_an_action_plan_and_a_plan_graph() -> None:
    assert slot_starts(_action_plan("2026-10-05T12:00:00Z", "2026-10-05T09:00:00+02:00")) == (
        T("2026-10-05T12:00:00Z"),
        T("2026-10-05T07:00:00Z"),
    )
    create = {"capability": "calendar.event.create", "params": {"start": "2026-10-06T08:00:00Z"}}
    move = {"capability": "calendar.event.move", "params": {"start": "2026-10-07T08:00:00Z"}}
    read = {"capability": "calendar.event.get", "params": {"start": "2026-10-01T08:00:00Z"}}
    graph = _graph([create, move, read, {"key": "r", "kind": "internal"}])
    assert slot_starts(graph) == (T("2026-10-06T08:00:00Z"), T("2026-10-07T08:00:00Z"))
    assert slot_starts(_graph([{"key": "r", "kind": "internal"}])) == ()


def test_a_slot_without_a_readable_start_is_a_schema_error() -> None:
    bad = _graph([{"key": "c", "capability": "calendar.event.create", "params": {"start": 5}}])
    with pytest.raises(ProposalError) as refused:
        slot_starts(bad)
    assert refused.value.code == "proposal.schema"


def test_check_slot_times_boundaries() -> None:
    slot = T("2026-10-05T12:00:00Z")
    check_slot_times([], proposed_at=PROPOSED, expires_at=EXPIRES)
    check_slot_times([slot], proposed_at=PROPOSED, expires_at=slot)  # valid until it starts
    for proposed in (slot, T("2026-10-05T12:00:01Z")):
        with pytest.raises(ProposalError) as started:
            check_slot_times([slot], proposed_at=proposed, expires_at=T("2026-10-06T00:00:00Z"))
        assert (started.value.code, started.value.path) == ("proposal.slot_started", "/proposed-at")
    with pytest.raises(ProposalError) as short:
        check_slot_times([slot], proposed_at=PROPOSED, expires_at=T("2026-10-05T11:59:59Z"))
    assert (short.value.code, short.value.path) == ("proposal.expires_before_slot", "/expires-at")
    assert (
        "--expires-in 17h or more (the slot starts 61200 s after" in short.value.message
    )  # 17 hours from proposed-at
    # the latest slot counts for the validity, the earliest for "already begun"
    later = T("2026-10-06T12:00:00Z")
    with pytest.raises(ProposalError) as second:
        check_slot_times([slot, later], proposed_at=PROPOSED, expires_at=EXPIRES)
    assert second.value.code == "proposal.expires_before_slot"
    with pytest.raises(ProposalError) as wrong:
        check_slot_times(["2026-10-05T12:00:00Z"], proposed_at=PROPOSED, expires_at=EXPIRES)  # type: ignore[list-item]
    assert wrong.value.code == "proposal.invalid_argument"


def _propose(**overrides: Any) -> bytes:
    key = Ed25519PrivateKey.generate()
    arguments: dict[str, Any] = {
        "author": parse_subject("principal:alice"),
        "author_node_id": "n",
        "query_id": "q",
        "room_id": "r",
        "turn_id": "t",
        "class_key": "Personal",
        "executor_mode": "plan-executor",
        "proposed_at": PROPOSED,
        "expires_at": EXPIRES,
        "idempotency_key": "k",
        "signing_keys": [(key, "alice")],
    }
    arguments.update(overrides)
    return propose(artifact_for(b"{}"), "cerebri.plan-graph.v1", **arguments)


def test_propose_checks_the_slots_it_is_given() -> None:
    assert _propose(slot_starts=[T("2026-10-05T12:00:00Z")])
    with pytest.raises(ProposalError) as started:
        _propose(slot_starts=[T("2026-10-04T18:00:00Z")])
    assert started.value.code == "proposal.slot_started"
    with pytest.raises(ProposalError) as short:
        _propose(slot_starts=(T("2026-10-06T12:00:00Z"),))
    assert short.value.code == "proposal.expires_before_slot"


def test_canonical_principal_and_author() -> None:
    code = "proposal.key_registry"
    assert canonical_principal(" Principal:Alice ", code=code) == "principal:alice"
    assert canonical_principal("agent:" + "x" * 128, code=code) == "agent:" + "x" * 128
    for bad in ("agent:" + "x" * 129, "alice", "service:x", "principal:a b", "principal:", 7):
        with pytest.raises(ProposalError) as refused:
            canonical_principal(bad, code=code)
        assert refused.value.code == code
    assert author_of("principal:alice") == Subject(kind=SubjectKind.PRINCIPAL, id="alice")
    assert author_of("agent:robot") == Subject(kind=SubjectKind.SERVICE, id="robot")
    with pytest.raises(ProposalError) as loud:
        author_of("principal:Alice")
    assert (loud.value.code, loud.value.path) == ("proposal.schema", "/author")


def _registry_file(**extra: Any) -> bytes:
    public = "3mivyVtpdnPVPi9Dau+BTnCRWj8BCsLRB1RYLpLe0OY="
    entry = {"keyid": "alice", "public_key": public, "valid_from": "2026-01-01T00:00:00Z"}
    return json.dumps({"version": 1, "keys": [{**entry, **extra}]}).encode()


def test_registry_principal_is_optional_validated_and_round_trips() -> None:
    assert parse_registry(_registry_file()).keys["alice"].principal is None  # old files load
    read = parse_registry(_registry_file(principal="principal:alice"))
    assert read.keys["alice"].principal == "principal:alice"
    assert registry_to_wire(read)["keys"][0]["principal"] == "principal:alice"
    assert "principal" not in registry_to_wire(parse_registry(_registry_file()))["keys"][0]
    for bad in ("Principal:alice", "alice", None, 3):
        with pytest.raises(ProposalError) as refused:
            parse_registry(_registry_file(principal=bad))
        assert refused.value.code == "proposal.key_registry"
        assert refused.value.path == "/keys/0/principal"


def test_add_canonicalises_and_rotation_keeps_the_holder() -> None:
    first = Ed25519PrivateKey.generate().public_key()
    second = Ed25519PrivateKey.generate().public_key()
    registry = KeyRegistry().add(
        "a", first, valid_from=T("2026-01-01T00:00:00Z"), principal="Agent:Robot"
    )
    assert registry.keys["a"].principal == "agent:robot"
    rotated = registry.rotate("a", "b", second, at=T("2026-02-01T00:00:00Z"))
    assert rotated.keys["b"].principal == "agent:robot"
    assert rotated.revoke("b", at=T("2026-03-01T00:00:00Z")).keys["b"].principal == "agent:robot"
    with pytest.raises(ProposalError) as refused:
        KeyRegistry().add("a", first, valid_from=T("2026-01-01T00:00:00Z"), principal="bob")
    assert refused.value.code == "proposal.key_registry"


def test_new_key_records_the_principal_and_refuses_a_bad_one(tmp_path: Path) -> None:
    at = T("2026-01-01T00:00:00Z")
    registry_path = tmp_path / "registry.json"
    key = new_key(
        "alice",
        private_key_path=tmp_path / "alice.pem",
        registry_path=registry_path,
        valid_from=at,
        principal="principal:alice",
    )
    assert key.principal == "principal:alice"
    assert load_registry(registry_path).keys["alice"].principal == "principal:alice"
    with pytest.raises(ProposalError) as refused:
        new_key(
            "bob",
            private_key_path=tmp_path / "bob.pem",
            registry_path=registry_path,
            valid_from=at,
            principal="principal:b o b",
        )
    assert refused.value.code == "proposal.key_registry"
    assert not (tmp_path / "bob.pem").exists()
    assert list(load_registry(registry_path).keys) == ["alice"]
