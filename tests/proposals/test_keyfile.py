"""Key registry files and private key files (cerebri.proposals.keyfile)."""

from __future__ import annotations

import base64
import json
import stat
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ec import SECP256R1, generate_private_key
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import (
    BestAvailableEncryption,
    Encoding,
    NoEncryption,
    PrivateFormat,
)

from cerebri.proposals import (
    KeyRegistry,
    ProposalError,
    load_private_key,
    load_registry,
    new_key,
    parse_registry,
    public_key_text,
    registry_to_wire,
    revoke_key,
    rotate_key,
    save_registry,
    write_private_key,
)
from cerebri.temporal import Instant

T = [Instant.parse(f"2026-0{m}-01T00:00:00Z") for m in range(1, 6)]
PUBLIC = Ed25519PrivateKey.from_private_bytes(bytes(range(32))).public_key()
PUBLIC_TEXT = public_key_text(PUBLIC)


def entry(**overrides: Any) -> dict[str, Any]:
    return {"keyid": "k1", "public_key": PUBLIC_TEXT, "valid_from": "2026-01-01T00:00:00Z"} | (
        overrides
    )


def registry_bytes(*entries: dict[str, Any], **top: Any) -> bytes:
    return json.dumps({"version": 1, "keys": list(entries)} | top).encode()


def failure(data: bytes) -> tuple[str, str | None]:
    with pytest.raises(ProposalError) as caught:
        parse_registry(data)
    return caught.value.code, caught.value.path


def test_registry_file_round_trip(tmp_path: Path) -> None:
    other = Ed25519PrivateKey.from_private_bytes(bytes([9]) * 32).public_key()
    registry = (
        KeyRegistry()
        .add("k1", PUBLIC, valid_from=T[0])
        .rotate("k1", "k2", other, at=T[1])
        .revoke("k2", at=T[3])
    )
    path = tmp_path / "registry.json"
    save_registry(registry, path)
    assert json.loads(path.read_text()) == {
        "version": 1,
        "keys": [
            {
                "keyid": "k1",
                "public_key": PUBLIC_TEXT,
                "valid_from": "2026-01-01T00:00:00Z",
                "valid_until": "2026-02-01T00:00:00Z",
            },
            {
                "keyid": "k2",
                "public_key": public_key_text(other),
                "valid_from": "2026-02-01T00:00:00Z",
                "revoked_at": "2026-04-01T00:00:00Z",
            },
        ],
    }
    loaded = load_registry(path)
    assert dict(loaded.keys) == dict(registry.keys)
    assert registry_to_wire(loaded) == registry_to_wire(registry)
    assert loaded.lookup("k2", signed_at=T[2], now=T[2]).raw == other.public_bytes_raw()
    assert len(base64.b64decode(PUBLIC_TEXT)) == 32


@pytest.mark.parametrize(
    ("data", "path"),
    [
        (registry_bytes(entry(extra=1)), "/keys/0/extra"),
        (registry_bytes(entry(), extra=1), "/extra"),
        (registry_bytes(entry(), version=2), "/version"),
        (json.dumps({"keys": []}).encode(), "/version"),
        (
            registry_bytes({"keyid": "k1", "valid_from": "2026-01-01T00:00:00Z"}),
            "/keys/0/public_key",
        ),
        (registry_bytes(entry(public_key="not base64!")), "/keys/0/public_key"),
        (registry_bytes(entry(public_key=PUBLIC_TEXT.rstrip("="))), "/keys/0/public_key"),
        (
            registry_bytes(entry(public_key=base64.b64encode(bytes(31)).decode())),
            "/keys/0/public_key",
        ),
        (
            registry_bytes(entry(public_key=base64.b64encode(bytes(33)).decode())),
            "/keys/0/public_key",
        ),
        (registry_bytes(entry(), entry(valid_from="2026-02-01T00:00:00Z")), "/keys/1/keyid"),
        (registry_bytes(entry(valid_from="2026-01-01T01:00:00+01:00")), "/keys/0/valid_from"),
        (registry_bytes(entry(valid_from="yesterday")), "/keys/0/valid_from"),
        (registry_bytes(entry(valid_from=0)), "/keys/0/valid_from"),
        (registry_bytes(entry(valid_until="2026-01-01T00:00:00Z")), "/keys/0/valid_until"),
        (registry_bytes(entry(revoked_at=None)), "/keys/0/revoked_at"),
        (registry_bytes(entry(keyid="../escape")), "/keys/0/keyid"),
        (registry_bytes(entry(keyid="")), "/keys/0/keyid"),
        (b'{"version":1,"version":1,"keys":[]}', ""),
        (b"{", ""),
        (b"[]", ""),
    ],
)
def test_malformed_registry_files_are_refused(data: bytes, path: str) -> None:
    assert failure(data) == ("proposal.key_registry", path)


def test_unreadable_registry_file(tmp_path: Path) -> None:
    with pytest.raises(ProposalError) as caught:
        load_registry(tmp_path / "absent.json")
    assert (caught.value.code, caught.value.path) == ("proposal.key_registry", None)


def test_private_key_file_mode_and_round_trip(tmp_path: Path) -> None:
    key = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))
    path = tmp_path / "k1.pem"
    write_private_key(key, path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert path.read_bytes().startswith(b"-----BEGIN PRIVATE KEY-----\n")
    loaded = load_private_key(path)
    assert loaded.private_bytes_raw() == key.private_bytes_raw()
    with pytest.raises(ProposalError) as caught:
        write_private_key(Ed25519PrivateKey.from_private_bytes(bytes(32)), path)
    assert caught.value.code == "proposal.private_key"
    assert load_private_key(path).private_bytes_raw() == key.private_bytes_raw()


def test_bad_private_key_files(tmp_path: Path) -> None:
    ec = generate_private_key(SECP256R1()).private_bytes(
        Encoding.PEM, PrivateFormat.PKCS8, BestAvailableEncryption(b"pw")
    )
    ec_plain = generate_private_key(SECP256R1())
    cases = {
        "absent.pem": None,
        "garbage.pem": b"not a key",
        "encrypted.pem": ec,
        "ec.pem": ec_plain.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption()),
    }
    for name, content in cases.items():
        if content is not None:
            (tmp_path / name).write_bytes(content)
        with pytest.raises(ProposalError) as caught:
            load_private_key(tmp_path / name)
        assert caught.value.code == "proposal.private_key", name


def test_new_rotate_revoke_through_files(tmp_path: Path) -> None:
    registry_path = tmp_path / "registry.json"
    first = new_key(
        "alice-1",
        private_key_path=tmp_path / "a1.pem",
        registry_path=registry_path,
        valid_from=T[0],
    )
    signing = load_private_key(tmp_path / "a1.pem")
    assert public_key_text(signing.public_key()) == public_key_text(first.public_key)
    second = rotate_key(
        "alice-1",
        "alice-2",
        private_key_path=tmp_path / "a2.pem",
        registry_path=registry_path,
        at=T[2],
    )
    revoke_key("alice-2", registry_path=registry_path, at=T[4])
    registry = load_registry(registry_path)
    assert list(registry.keys) == ["alice-1", "alice-2"]
    assert registry.keys["alice-1"].valid_until == T[2]
    assert registry.lookup("alice-1", signed_at=T[1], now=T[1]).keyid == "alice-1"
    # signed before the rotation: still usable after it (rotation is judged at signing)
    assert registry.lookup("alice-1", signed_at=T[1], now=T[3]).keyid == "alice-1"
    assert registry.lookup("alice-2", signed_at=T[3], now=T[3]).raw == second.raw
    assert second.raw != first.raw
    for keyid, signed_at, now, code in [
        ("alice-1", T[2], T[2], "proposal.key_inactive"),
        ("alice-2", T[3], T[4], "proposal.revoked_key"),  # signed before the revocation
        ("alice-2", T[1], T[3], "proposal.key_inactive"),
    ]:
        with pytest.raises(ProposalError) as caught:
            registry.lookup(keyid, signed_at=signed_at, now=now)
        assert caught.value.code == code


def test_key_operations_refuse_impossible_changes(tmp_path: Path) -> None:
    registry_path = tmp_path / "registry.json"
    new_key(
        "k1", private_key_path=tmp_path / "k1.pem", registry_path=registry_path, valid_from=T[1]
    )
    before = registry_path.read_bytes()
    attempts = [
        lambda: new_key(
            "k1", private_key_path=tmp_path / "x.pem", registry_path=registry_path, valid_from=T[1]
        ),
        lambda: new_key(
            "bad/id",
            private_key_path=tmp_path / "y.pem",
            registry_path=registry_path,
            valid_from=T[1],
        ),
        lambda: rotate_key(
            "nobody",
            "k2",
            private_key_path=tmp_path / "k2.pem",
            registry_path=registry_path,
            at=T[2],
        ),
        lambda: rotate_key(
            "k1", "k1", private_key_path=tmp_path / "k2.pem", registry_path=registry_path, at=T[2]
        ),
        lambda: rotate_key(
            "k1", "k2", private_key_path=tmp_path / "k2.pem", registry_path=registry_path, at=T[0]
        ),
        lambda: revoke_key("nobody", registry_path=registry_path, at=T[2]),
    ]
    for attempt in attempts:
        with pytest.raises(ProposalError) as caught:
            attempt()
        assert caught.value.code == "proposal.key_registry"
    assert registry_path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["k1.pem", "registry.json"]
    with pytest.raises(ProposalError) as caught:
        new_key(
            "k9", private_key_path=tmp_path / "k1.pem", registry_path=registry_path, valid_from=T[1]
        )
    assert caught.value.code == "proposal.private_key"
    assert registry_path.read_bytes() == before


def test_revocation_keeps_the_earliest_instant(tmp_path: Path) -> None:
    registry_path = tmp_path / "registry.json"
    new_key(
        "k1", private_key_path=tmp_path / "k1.pem", registry_path=registry_path, valid_from=T[0]
    )
    revoke_key("k1", registry_path=registry_path, at=T[2])
    assert revoke_key("k1", registry_path=registry_path, at=T[3]).revoked_at == T[2]
    assert revoke_key("k1", registry_path=registry_path, at=T[1]).revoked_at == T[1]
