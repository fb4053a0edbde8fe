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
    t = [Instant.from_seconds(s) for s in (0, 100, 200, 300, 400)]
    reg = KeyRegistry().add("old", old, valid_from=t[1])
    rotated = reg.rotate("old", "new", new, at=t[2]).revoke("new", at=t[3])

    def code(keyid: str, signed_at: Instant, now: Instant) -> str:
        with pytest.raises(ProposalError) as caught:
            rotated.lookup(keyid, signed_at=signed_at, now=now)
        return caught.value.code

    assert code("old", t[0], t[1]) == "proposal.key_inactive"  # signed before valid_from
    just_before = Instant(t[2].ns - 1)
    assert rotated.lookup("old", signed_at=just_before, now=just_before).keyid == "old"
    # signed before the rotation, verified long after it: still valid
    assert rotated.lookup("old", signed_at=just_before, now=t[4]).keyid == "old"
    assert code("old", t[2], t[2]) == "proposal.key_inactive"  # signed at/after valid_until
    assert rotated.lookup("new", signed_at=t[2], now=Instant(t[3].ns - 1)).keyid == "new"
    # revoked at t3: refused from t3 on, even for what it signed before the revocation
    assert code("new", t[2], t[3]) == "proposal.revoked_key"
    assert code("new", t[2], t[4]) == "proposal.revoked_key"
    assert reg.lookup("old", signed_at=t[3], now=t[3]).keyid == "old"  # an immutable value


def test_rotation_refuses_revoked_or_ended_keys() -> None:
    first, second, third = (
        Ed25519PrivateKey.from_private_bytes(bytes([n]) * 32).public_key() for n in (1, 2, 3)
    )
    t = [Instant.from_seconds(s) for s in (0, 100, 200, 300)]
    reg = KeyRegistry().add("a", first, valid_from=t[0])
    with pytest.raises(ValueError, match="revoked"):
        reg.revoke("a", at=t[3]).rotate("a", "b", second, at=t[1])
    ended = reg.rotate("a", "b", second, at=t[1])
    with pytest.raises(ValueError, match="already ended"):
        ended.rotate("a", "c", third, at=t[2])
    with pytest.raises(ValueError, match="already ended"):
        ended.rotate("a", "c", third, at=t[1])
    bounded = KeyRegistry().add("a", first, valid_from=t[0], valid_until=t[3])
    assert bounded.rotate("a", "b", second, at=t[2]).keys["a"].valid_until == t[2]


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
