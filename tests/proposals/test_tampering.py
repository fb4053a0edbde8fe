"""The tampering matrix: every field of a signed envelope changed, one at a time.

Decision (as in docs/decisions/0011): the signature covers the RFC 8785 bytes of the envelope's
JSON *value* without ``signature``; the verifier re-derives those bytes. So a change of any
field value is refused, while re-serialising the same value (other key order, spacing,
escapes) still verifies: it is the same envelope. Duplicate members are refused outright.

Which check refuses which change: the signature check refuses every schema-valid change
(``proposal.signature``, or the key lookup codes for ``keyid``). Changes that break the
envelope v2 shape are refused earlier by the schema check (``proposal.schema``):
``schema/v``, ``human-in-loop/required``, a window whose ``expires-at`` is no longer after
``proposed-at``, a task-pack type without the matching executor mode, a malformed ``sig``,
any removed required member and any added unknown member.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from cerebri.proposals import (
    PROPOSAL_PAYLOAD_TYPE,
    InMemoryReplayLedger,
    KeyRegistry,
    ObjectStore,
    ProposalError,
    SignatureEntry,
    check_envelope,
    envelope_digest,
    envelope_payload,
    load_json,
    sha256_digest,
    verify,
    verify_signature,
)
from cerebri.temporal import Instant
from tests.proposals.helpers import ARTIFACT, EXPIRES, KEY, NOW, PROPOSED, body, registry, signed

OTHER_KEY = Ed25519PrivateKey.from_private_bytes(bytes([5]) * 32)
TARGET = {"task/profile": "profile-1", "local/binding": "binding-1"}
BASE = body(target=TARGET)
OTHER_DIGEST = sha256_digest(b"other")
SIG: tuple[str | int, ...] = ("signature", "signatures", 0)

Path_ = tuple[str | int, ...]
MATRIX: list[tuple[Path_, Any, str]] = [
    (("schema/v",), 3, "proposal.schema"),
    (("proposal/ref",), "prop-2", "proposal.signature"),
    (("query/id",), "req-2", "proposal.signature"),
    (("room/id",), "room-2", "proposal.signature"),
    (("turn/id",), "turn-2", "proposal.signature"),
    (("author", "kind"), "service", "proposal.signature"),
    (("author", "id"), "mallory", "proposal.signature"),
    (("author/node-id",), "node-2", "proposal.signature"),
    (("executor", "mode"), "manual", "proposal.signature"),
    (("executor", "mode"), "deterministic-host-compiler", "proposal.signature"),
    (("candidate", "artifact/type"), "cerebri.plan-graph.v1", "proposal.signature"),
    (("candidate", "artifact/type"), "operator-task-experiment-candidate.v1", "proposal.schema"),
    (("candidate", "artifact/ref"), "cas:" + OTHER_DIGEST, "proposal.signature"),
    (("candidate", "artifact/digest"), OTHER_DIGEST, "proposal.signature"),
    (("candidate", "artifact/size"), len(ARTIFACT) + 1, "proposal.signature"),
    (("target", "task/profile"), "profile-2", "proposal.signature"),
    (("target", "local/binding"), "binding-2", "proposal.signature"),
    (("class/key",), "Public", "proposal.signature"),
    (("human-in-loop/required",), False, "proposal.schema"),
    (("proposed-at",), "2025-02-28T09:00:00Z", "proposal.signature"),
    (("proposed-at",), EXPIRES, "proposal.schema"),
    (("expires-at",), "2025-03-09T09:00:00Z", "proposal.signature"),
    (("expires-at",), PROPOSED, "proposal.schema"),
    (("idempotency/key",), "idem-2", "proposal.signature"),
    ((*SIG, "keyid"), "k2", "proposal.signature"),
    ((*SIG, "keyid"), "k9", "proposal.unknown_key"),
    ((*SIG, "sig"), "A" * 86 + "==", "proposal.signature"),
    ((*SIG, "sig"), "AAAA", "proposal.schema"),
]


def test_signature_padding_bits_are_not_a_second_spelling() -> None:
    document = signed_base()
    sig = document["signature"]["signatures"][0]["sig"]
    assert sig[85] in "AQgw"
    sibling = sig[:85] + chr(ord(sig[85]) + 1) + "=="  # same 64 bytes, padding bits set
    set_at(document, (*SIG, "sig"), sibling)
    assert run(json.dumps(document).encode()) == "proposal.schema"
    entry = SignatureEntry.model_construct(keyid="k1", sig=sibling)
    payload = envelope_payload(document)
    assert not verify_signature(PROPOSAL_PAYLOAD_TYPE, payload, entry, KEY.public_key())


def tamper_registry() -> KeyRegistry:
    return registry().add("k2", OTHER_KEY.public_key(), valid_from=Instant.parse(PROPOSED))


def run(data: bytes, *, artifact: bytes = ARTIFACT, now: Instant = NOW, **kwargs: Any) -> str:
    options: dict[str, Any] = {"registry": tamper_registry()}
    options.update(kwargs)
    try:
        verify(
            data,
            clock_now=now,
            artifact_bytes=artifact,
            replay=InMemoryReplayLedger(),
            **options,
        )
    except ProposalError as exc:
        return exc.code
    return "verified"


def leaf_paths(value: Any, prefix: Path_ = ()) -> Iterator[Path_]:
    if isinstance(value, dict):
        for key, item in value.items():
            yield from leaf_paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from leaf_paths(item, (*prefix, index))
    else:
        yield prefix


def set_at(document: dict[str, Any], path: Path_, value: Any) -> None:
    node: Any = document
    for part in path[:-1]:
        node = node[part]
    node[path[-1]] = value


def signed_base() -> dict[str, Any]:
    document: dict[str, Any] = load_json(signed(BASE))
    return document


def test_untouched_envelope_verifies() -> None:
    assert run(signed(BASE)) == "verified"


def test_matrix_covers_every_field() -> None:
    assert set(leaf_paths(signed_base())) == {path for path, _, _ in MATRIX}
    assert len(list(leaf_paths(signed_base()))) == 22


@pytest.mark.parametrize(("path", "value", "code"), MATRIX)
def test_each_changed_field_is_refused(path: Path_, value: Any, code: str) -> None:
    document = signed_base()
    set_at(document, path, value)
    assert run(json.dumps(document).encode()) == code


@pytest.mark.parametrize("name", sorted(BASE))
def test_each_removed_member_is_refused(name: str) -> None:
    document = signed_base()
    del document[name]
    expected = "proposal.signature" if name == "target" else "proposal.schema"
    assert run(json.dumps(document).encode()) == expected


def test_removed_signature_and_added_member_are_refused() -> None:
    document = signed_base()
    del document["signature"]
    assert run(json.dumps(document).encode()) == "proposal.schema"
    assert run(json.dumps({**signed_base(), "note": "hi"}).encode()) == "proposal.schema"
    nested = signed_base()
    nested["candidate"]["note"] = "hi"
    assert run(json.dumps(nested).encode()) == "proposal.schema"


def test_reserialised_payload_still_verifies() -> None:
    original = signed(body(**{"room/id": "räum"}))
    document = load_json(original)
    variants = [
        json.dumps(dict(reversed(list(document.items()))), indent=2).encode(),
        json.dumps(document, ensure_ascii=True, separators=(" , ", " : ")).encode(),
        b"\n  " + original + b"\n",
    ]
    assert json.dumps(document, ensure_ascii=True).count("\\u00e4") == 1
    for data in variants:
        assert data != original
        result = verify(
            data,
            registry=registry(),
            clock_now=NOW,
            artifact_bytes=ARTIFACT,
            replay=InMemoryReplayLedger(),
        )
        assert result.payload_digest == envelope_digest(body(**{"room/id": "räum"}))


def test_duplicate_members_are_refused() -> None:
    data = signed(BASE)
    top = data.replace(b'"room/id":"room-1"', b'"room/id":"room-1","room/id":"room-1"')
    nested = data.replace(b'"kind":"principal"', b'"kind":"principal","kind":"principal"')
    assert top != data
    assert nested != data
    assert run(top) == "proposal.canonical_json"
    assert run(nested) == "proposal.canonical_json"


def test_signature_of_another_envelope_is_refused() -> None:
    mine = signed_base()
    theirs = load_json(signed(body(target=TARGET, **{"turn/id": "turn-9"})))
    mine["signature"] = theirs["signature"]
    assert run(json.dumps(mine).encode()) == "proposal.signature"
    assert run(signed(body(target=TARGET, **{"turn/id": "turn-9"}))) == "verified"


def test_key_and_window_refusals() -> None:
    data = signed(BASE)
    revoked = tamper_registry().revoke("k1", at=Instant.parse(PROPOSED))
    assert run(data, registry=revoked) == "proposal.revoked_key"
    assert run(data, now=Instant.parse(EXPIRES)) == "proposal.expired"
    assert run(data, now=Instant(Instant.parse(PROPOSED).ns - 1)) == "proposal.not_yet_valid"
    assert run(signed(BASE, [(OTHER_KEY, "k2")])) == "verified"


def test_swapped_artifact_with_the_same_ref_is_refused(tmp_path: Path) -> None:
    data = signed(BASE)
    same_size = ARTIFACT.replace(b"move", b"drop")
    assert len(same_size) == len(ARTIFACT)
    assert run(data, artifact=same_size) == "proposal.digest_mismatch"
    store = ObjectStore(tmp_path)
    stored = store.put(ARTIFACT)
    assert stored.ref == BASE["candidate"]["artifact/ref"]
    store.path_for(stored.ref).write_bytes(same_size)
    report = check_envelope(data, registry=registry(), clock_now=NOW, store=store)
    assert report.check("artifact").code == "proposal.digest_mismatch"


def test_ref_must_name_the_digest() -> None:
    candidate = {**BASE["candidate"], "artifact/ref": "cas:" + OTHER_DIGEST}
    assert run(signed(body(candidate=candidate))) == "proposal.digest_mismatch"
    legacy = {**BASE["candidate"], "artifact/ref": "cas://" + BASE["candidate"]["artifact/digest"]}
    assert run(signed(body(candidate=legacy))) == "proposal.bad_ref"
    sha512 = {**BASE["candidate"], "artifact/ref": "cas:sha512:" + "ab" * 64}
    assert run(signed(body(candidate=sha512))) == "proposal.unknown_algorithm"


def test_tampered_copy_leaves_the_base_untouched() -> None:
    document = signed_base()
    copied = copy.deepcopy(document)
    set_at(copied, ("candidate", "artifact/size"), 0)
    assert document["candidate"]["artifact/size"] == len(ARTIFACT)
