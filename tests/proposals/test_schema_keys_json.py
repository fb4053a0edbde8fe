from __future__ import annotations

import json
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from jsonschema import Draft202012Validator
from pydantic import ValidationError

from cerebri.proposals import (
    Envelope,
    KeyRegistry,
    ProposalError,
    canonical_json,
    envelope_json_schema,
    load_json,
    pae,
)
from cerebri.temporal import Instant
from tests.proposals.helpers import body

TASK = {"task/profile": "p", "local/binding": "b"}


def task_doc(**overrides: Any) -> dict[str, Any]:
    candidate = {**body()["candidate"], "artifact/type": "operator-task-experiment-candidate.v1"}
    sig = {"signatures": [{"keyid": "k1", "sig": "A" * 86 + "=="}]}
    return body(candidate=candidate, signature=sig, **overrides)


def model_ok(doc: dict[str, Any]) -> bool:
    try:
        Envelope.model_validate_json(json.dumps(doc))
    except ValidationError:
        return False
    return True


@pytest.mark.parametrize(
    ("doc", "ok"),
    [
        (task_doc(target=TASK, executor={"mode": "deterministic-host-compiler"}), True),
        (task_doc(executor={"mode": "deterministic-host-compiler"}), False),
        (task_doc(target=TASK, executor={"mode": "plan-executor"}), False),
    ],
)
def test_conditional_rule_model_and_schema_agree(doc: dict[str, Any], ok: bool) -> None:
    validator = Draft202012Validator(envelope_json_schema())
    assert validator.is_valid(doc) is ok
    assert model_ok(doc) is ok


def test_if_is_not_vacuous() -> None:
    schema = envelope_json_schema()
    condition = Draft202012Validator(schema["if"])
    assert not condition.is_valid({})
    assert not condition.is_valid({"candidate": {}})
    naive = {"properties": {"candidate": {"properties": {"artifact/type": {"const": "x"}}}}}
    assert Draft202012Validator(naive).is_valid({})  # the trap the spec warns about
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"


def test_key_rotation_and_revocation_timeline() -> None:
    old = Ed25519PrivateKey.from_private_bytes(bytes([1]) * 32).public_key()
    new = Ed25519PrivateKey.from_private_bytes(bytes([2]) * 32).public_key()
    t = [Instant.from_seconds(s) for s in (0, 100, 200, 300)]
    reg = KeyRegistry().add("old", old, valid_from=t[1])
    rotated = reg.rotate("old", "new", new, at=t[2]).revoke("new", at=t[3])
    with pytest.raises(ProposalError) as early:
        rotated.lookup("old", t[0])
    assert early.value.code == "proposal.key_inactive"
    assert rotated.lookup("old", Instant(t[2].ns - 1)).keyid == "old"
    with pytest.raises(ProposalError) as after:
        rotated.lookup("old", t[2])
    assert after.value.code == "proposal.key_inactive"
    assert rotated.lookup("new", t[2]).keyid == "new"
    with pytest.raises(ProposalError) as revoked:
        rotated.lookup("new", t[3])
    assert revoked.value.code == "proposal.revoked_key"
    assert reg.lookup("old", t[3]).keyid == "old"  # the registry is an immutable value


def test_pae_byte_format() -> None:
    assert pae("t/x", b"hello") == b"DSSEv1 3 t/x 5 hello"
    assert pae("", b"") == b"DSSEv1 0  0 "


@pytest.mark.parametrize(
    "text", [b"0.10000000000000000001", b"1e400", b"9007199254740992", b"NaN", b'{"a":1,"a":2}']
)
def test_load_json_rejects_what_jcs_cannot_represent(text: bytes) -> None:
    with pytest.raises(ProposalError) as caught:
        load_json(text)
    assert caught.value.code == "proposal.canonical_json"


def test_canonical_json() -> None:
    assert load_json(b"[0.1, 9007199254740991]") == [0.1, 2**53 - 1]
    assert canonical_json({"b": 1, "a": [1.0, "x"]}) == b'{"a":[1,"x"],"b":1}'
    for bad in (2**53, float("nan"), float("inf")):
        with pytest.raises(ProposalError) as caught:
            canonical_json(bad)
        assert caught.value.code == "proposal.canonical_json"


@pytest.mark.parametrize("value", [2.0**53, -(2.0**53), 1e20, [{"x": 9.5e15}]])
def test_integral_floats_beyond_2_53_are_refused_not_written(value: Any) -> None:
    with pytest.raises(ProposalError) as caught:
        canonical_json(value)
    assert caught.value.code == "proposal.canonical_json"


@pytest.mark.parametrize("value", [2.0**53 - 1, 1e21, 1.5e300, 0.5, -0.0])
def test_floats_that_read_back_keep_their_bytes(value: float) -> None:
    written = canonical_json([value])
    assert canonical_json(load_json(written)) == written
