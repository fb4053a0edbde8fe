"""The content-addressed object store (proposals.md section 2)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

import pytest

from cerebri.proposals import (
    ObjectStore,
    ProposalError,
    StoredArtifact,
    artifact_for,
    canonical_json,
    digest_of_ref,
    ref_for_digest,
)

DATA = b'{"plan":"move standup"}'
HEX = hashlib.sha256(DATA).hexdigest()


def code_of(call: Callable[..., object], *args: object) -> str:
    with pytest.raises(ProposalError) as caught:
        call(*args)
    return caught.value.code


def test_put_get_round_trip_and_layout(tmp_path: Path) -> None:
    store = ObjectStore(tmp_path)
    stored = store.put(DATA)
    assert stored == StoredArtifact(ref=f"cas:sha256:{HEX}", digest=f"sha256:{HEX}", size=23)
    path = tmp_path / "sha256" / HEX[:2] / HEX[2:]
    assert path.read_bytes() == DATA
    assert store.path_for(stored.ref) == path
    assert store.get(stored.ref) == DATA
    assert store.get(stored.digest) == DATA
    assert [p.name for p in path.parent.iterdir()] == [HEX[2:]]  # no temporary file left


def test_put_is_idempotent_and_deterministic(tmp_path: Path) -> None:
    first, second = ObjectStore(tmp_path / "a"), ObjectStore(tmp_path / "b")
    assert first.put(DATA) == first.put(DATA) == second.put(DATA) == artifact_for(DATA)
    assert sorted(p.name for p in (tmp_path / "a").rglob("*")) == sorted(
        ["sha256", HEX[:2], HEX[2:]]
    )


def test_put_json_stores_rfc8785_bytes(tmp_path: Path) -> None:
    store = ObjectStore(tmp_path)
    stored = store.put_json({"b": [1.0, "é"], "a": None})
    assert store.get(stored.ref) == b'{"a":null,"b":[1,"\xc3\xa9"]}'
    assert stored == store.put(canonical_json({"a": None, "b": [1, "é"]}))


def test_put_repairs_a_tampered_file(tmp_path: Path) -> None:
    store = ObjectStore(tmp_path)
    stored = store.put(DATA)
    store.path_for(stored.ref).write_bytes(b"evil")
    store.put(DATA)
    assert store.get(stored.ref) == DATA


def test_tamper_on_disk_is_refused(tmp_path: Path) -> None:
    store = ObjectStore(tmp_path)
    stored = store.put(DATA)
    store.path_for(stored.ref).write_bytes(DATA.replace(b"standup", b"standuq"))
    assert code_of(store.get, stored.ref) == "proposal.digest_mismatch"


def test_missing_artifact(tmp_path: Path) -> None:
    assert code_of(ObjectStore(tmp_path).get, f"cas:sha256:{HEX}") == "proposal.artifact_missing"


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("sha512:" + "ab" * 64, "proposal.unknown_algorithm"),
        ("cas:sha512:" + "ab" * 64, "proposal.unknown_algorithm"),
        ("cas:md5:" + "ab" * 16, "proposal.unknown_algorithm"),
        ("cas:sha256:" + HEX.upper(), "proposal.bad_ref"),
        ("cas:sha256:" + HEX[:-1], "proposal.bad_ref"),
        ("cas://sha256:" + HEX, "proposal.bad_ref"),
        ("sha256-" + HEX, "proposal.bad_ref"),
        ("", "proposal.bad_ref"),
    ],
)
def test_refs_are_strict(tmp_path: Path, text: str, code: str) -> None:
    assert code_of(digest_of_ref, text) == code
    assert code_of(ObjectStore(tmp_path).get, text) == code


def test_ref_helpers_agree() -> None:
    digest = f"sha256:{HEX}"
    assert ref_for_digest(digest) == f"cas:{digest}"
    assert digest_of_ref(ref_for_digest(digest)) == digest
    assert digest_of_ref(digest) == digest
    assert ref_for_digest(f"cas:{digest}") == f"cas:{digest}"
    assert code_of(ref_for_digest, "sha1:" + "a" * 40) == "proposal.unknown_algorithm"
