"""Key files: the public key registry as JSON, private keys as PKCS#8 PEM.

Registry file (UTF-8 JSON, written atomically, two-space indented, keys in registry order)::

    {"version": 1,
     "keys": [{"keyid": "alice-2026",
               "public_key": "<standard base64 of the 32 raw Ed25519 bytes, 44 chars>",
               "valid_from": "2026-01-01T00:00:00Z",
               "valid_until": "...Z",          optional, exclusive
               "revoked_at": "...Z",           optional
               "principal": "principal:alice"}]}   optional: who holds the key

Reading is strict: unknown or missing fields, instants not in RFC 3339 UTC form with a
four-digit year (:data:`~cerebri.proposals.envelope.INSTANT_PATTERN`), non-canonical
or bad base64, a key that is not 32 bytes, a duplicate keyid or ``valid_until`` not after
``valid_from`` are ``ProposalError`` ``proposal.key_registry`` with a JSON pointer ``path``.
A ``principal`` must be ``principal:<name>`` or ``agent:<name>`` in canonical form (lower
case, a name of 1 to 128 characters without spaces or colons; :mod:`cerebri.proposals.authors`);
``cerebri propose`` signs as it when no ``--author`` is given. Files without it still load.

Private keys are unencrypted PKCS#8 PEM files created with mode 0600 and never overwritten
(``proposal.private_key``). Only :func:`new_key` and :func:`rotate_key` generate keys
(``Ed25519PrivateKey.generate()``); every instant is passed in, in UTC.

File system failures are typed: ``proposal.key_registry`` for the registry file and the key
directory, ``proposal.private_key`` for PEM files. Both are read through
:func:`cerebri._files.read_bounded`: regular files only (a device, FIFO or directory is
refused by type before reading), at most :data:`MAX_REGISTRY_BYTES` /
:data:`MAX_PRIVATE_KEY_BYTES` (``input.too_large`` beyond). :func:`new_key` and :func:`rotate_key`
write the PEM first and the registry second; if the registry write fails the PEM is removed
again, so nothing is left half-done and a retry works. A registry that could not be read
back (an instant outside years 0000..9999) is never written.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from pathlib import Path
from types import MappingProxyType
from typing import Annotated, Any, Final, Literal

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import (
    Encoding,
    NoEncryption,
    PrivateFormat,
    PublicFormat,
    load_pem_private_key,
)
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError

from cerebri._files import read_bounded, write_atomic
from cerebri._guard import PATH, arguments
from cerebri.errors import UnreadableInputError
from cerebri.proposals.authors import canonical_principal
from cerebri.proposals.digest import load_json
from cerebri.proposals.envelope import is_rfc3339_utc
from cerebri.proposals.errors import ProposalError, json_pointer, proposal_argument_error
from cerebri.proposals.signing import KeyRegistry, RegisteredKey
from cerebri.temporal import Instant

__all__ = [
    "KEYID_PATTERN",
    "MAX_PRIVATE_KEY_BYTES",
    "MAX_REGISTRY_BYTES",
    "load_private_key",
    "load_registry",
    "new_key",
    "parse_registry",
    "public_key_text",
    "registry_to_wire",
    "revoke_key",
    "rotate_key",
    "save_registry",
    "write_private_key",
]

KEYID_PATTERN: Final = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$"
"""Keyids that are also safe file names (``<keyid>.pem``)."""

MAX_REGISTRY_BYTES: Final = 16 * 1024 * 1024
"""Largest key registry file read, in bytes (16 MiB, about 80 000 keys; ``input.too_large``)."""

MAX_PRIVATE_KEY_BYTES: Final = 64 * 1024
"""Largest private key PEM file read, in bytes (64 KiB; an Ed25519 PKCS#8 PEM is 119 bytes;
``input.too_large``)."""

_REGISTRY: Final = "proposal.key_registry"
_PRIVATE: Final = "proposal.private_key"


def _utc(value: Any) -> Any:
    if isinstance(value, str) and not is_rfc3339_utc(value):
        raise ValueError("must be an RFC 3339 UTC instant YYYY-MM-DDTHH:MM:SS[.fraction]Z")
    return value


def _present_utc(value: Any) -> Any:
    if value is None:
        raise ValueError("omit an absent instant, never null")
    return _utc(value)


def _present_text(value: Any) -> Any:
    if value is None:
        raise ValueError("omit an absent principal, never null")
    return value


_UtcInstant = Annotated[Instant, BeforeValidator(_utc)]
_OptionalUtcInstant = Annotated[Instant | None, BeforeValidator(_present_utc)]


class _KeyEntry(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    keyid: Annotated[str, Field(pattern=KEYID_PATTERN)]
    public_key: str
    valid_from: _UtcInstant
    valid_until: _OptionalUtcInstant = None
    revoked_at: _OptionalUtcInstant = None
    principal: Annotated[str | None, BeforeValidator(_present_text)] = None


class _RegistryFile(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    version: Literal[1]
    keys: tuple[_KeyEntry, ...]


@arguments(proposal_argument_error, public_key=Ed25519PublicKey)
def public_key_text(public_key: Ed25519PublicKey) -> str:
    """Standard base64 (with padding) of the 32 raw public key bytes."""
    return base64.b64encode(public_key.public_bytes(Encoding.Raw, PublicFormat.Raw)).decode("ascii")


def _public_key(text: str, path: str) -> Ed25519PublicKey:
    try:
        raw = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise ProposalError("public_key is not base64", code=_REGISTRY, path=path) from None
    if len(raw) != 32:
        raise ProposalError(
            f"an Ed25519 public key has 32 bytes, not {len(raw)}", code=_REGISTRY, path=path
        )
    if base64.b64encode(raw).decode("ascii") != text:
        raise ProposalError("public_key is not canonical base64", code=_REGISTRY, path=path)
    return Ed25519PublicKey.from_public_bytes(raw)


def _principal(text: str | None, path: str) -> str | None:
    """A registered principal, which must already be in canonical form."""
    if text is None:
        return None
    canonical = canonical_principal(text, code=_REGISTRY, path=path)
    if canonical != text:
        raise ProposalError(
            f"principal {text!r} is not in canonical form; write {canonical!r}",
            code=_REGISTRY,
            path=path,
        )
    return canonical


def parse_registry(data: bytes) -> KeyRegistry:
    """The :class:`KeyRegistry` described by registry file bytes (strict; see module doc)."""
    try:
        load_json(data)  # duplicate members, unrepresentable numbers
        document = _RegistryFile.model_validate_json(data)
    except ProposalError as exc:
        raise ProposalError(f"not a key registry: {exc.message}", code=_REGISTRY, path="") from None
    except ValidationError as exc:
        first = exc.errors()[0]
        raise ProposalError(
            f"not a key registry: {first['msg']}", code=_REGISTRY, path=json_pointer(first["loc"])
        ) from None
    keys: dict[str, RegisteredKey] = {}
    for index, entry in enumerate(document.keys):
        where = f"/keys/{index}"
        if entry.keyid in keys:
            raise ProposalError(
                f"duplicate keyid {entry.keyid!r}", code=_REGISTRY, path=where + "/keyid"
            )
        if entry.valid_until is not None and not entry.valid_from < entry.valid_until:
            raise ProposalError(
                "valid_until must be after valid_from", code=_REGISTRY, path=where + "/valid_until"
            )
        public = _public_key(entry.public_key, where + "/public_key")
        keys[entry.keyid] = RegisteredKey(
            entry.keyid,
            public,
            entry.valid_from,
            entry.valid_until,
            entry.revoked_at,
            principal=_principal(entry.principal, where + "/principal"),
        )
    return KeyRegistry(MappingProxyType(keys))  # add() cannot carry revoked_at


@arguments(proposal_argument_error, registry=KeyRegistry)
def registry_to_wire(registry: KeyRegistry) -> dict[str, Any]:
    """The registry file's JSON value (optional members left out when absent)."""
    keys: list[dict[str, str]] = []
    for key in registry.keys.values():
        entry = {
            "keyid": key.keyid,
            "public_key": public_key_text(key.public_key),
            "valid_from": key.valid_from.format(),
        }
        if key.valid_until is not None:
            entry["valid_until"] = key.valid_until.format()
        if key.revoked_at is not None:
            entry["revoked_at"] = key.revoked_at.format()
        if key.principal is not None:
            entry["principal"] = key.principal
        keys.append(entry)
    return {"version": 1, "keys": keys}


@arguments(proposal_argument_error, path=PATH)
def load_registry(path: Path) -> KeyRegistry:
    """Read and parse a registry file.

    Raises ``proposal.key_registry`` if it is unreadable, not a regular file (a device,
    FIFO or directory) or malformed, and ``InputTooLargeError`` (``input.too_large``)
    beyond :data:`MAX_REGISTRY_BYTES`.
    """
    try:
        data = read_bounded(path, limit=MAX_REGISTRY_BYTES, what="key registry")
    except UnreadableInputError as exc:
        raise ProposalError(exc.message, code=_REGISTRY) from None
    return parse_registry(data)


def _io_error(what: str, path: Path, exc: OSError, code: str) -> ProposalError:
    return ProposalError(f"cannot {what} {path}: {exc.strerror or exc}", code=code)


def _registry_bytes(registry: KeyRegistry) -> bytes:
    """The registry file's bytes, checked to read back (never write what cannot be read)."""
    data = (json.dumps(registry_to_wire(registry), indent=2) + "\n").encode("utf-8")
    parse_registry(data)
    return data


@arguments(proposal_argument_error, registry=KeyRegistry, path=PATH)
def save_registry(registry: KeyRegistry, path: Path) -> None:
    """Write ``registry`` to ``path`` atomically (mode 0644).

    ``proposal.key_registry`` if the result could not be read back (an instant outside
    years 0000..9999) or the file system refuses the write.
    """
    data = _registry_bytes(registry)
    try:
        write_atomic(Path(path), data)
    except OSError as exc:
        raise _io_error("write key registry", path, exc, _REGISTRY) from None


@arguments(proposal_argument_error, private_key=Ed25519PrivateKey, path=PATH)
def write_private_key(private_key: Ed25519PrivateKey, path: Path) -> None:
    """Write an unencrypted PKCS#8 PEM file with mode 0600; never replaces an existing file.

    ``proposal.private_key`` if the file exists or the file system refuses the write.
    """
    pem = private_key.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption())
    try:
        write_atomic(Path(path), pem, mode=0o600, exclusive=True)
    except FileExistsError:
        raise ProposalError(f"{path} already exists; not overwritten", code=_PRIVATE) from None
    except OSError as exc:
        raise _io_error("write private key", path, exc, _PRIVATE) from None


@arguments(proposal_argument_error, path=PATH)
def load_private_key(path: Path) -> Ed25519PrivateKey:
    """Read an unencrypted PKCS#8 PEM Ed25519 private key.

    Raises ``proposal.private_key`` (unreadable, not a regular file, not such a key) and
    ``InputTooLargeError`` (``input.too_large``) beyond :data:`MAX_PRIVATE_KEY_BYTES`.
    """
    try:
        data = read_bounded(path, limit=MAX_PRIVATE_KEY_BYTES, what="private key")
    except UnreadableInputError as exc:
        raise ProposalError(exc.message, code=_PRIVATE) from None
    try:
        key = load_pem_private_key(data, password=None)
    except (ValueError, TypeError) as exc:
        raise ProposalError(f"{path} is not an unencrypted PEM key: {exc}", code=_PRIVATE) from None
    if not isinstance(key, Ed25519PrivateKey):
        raise ProposalError(f"{path} is not an Ed25519 key", code=_PRIVATE)
    return key


def _registry_or_empty(path: Path) -> KeyRegistry:
    return load_registry(path) if Path(path).exists() else KeyRegistry()


def _check_keyid(keyid: str) -> None:
    if re.fullmatch(KEYID_PATTERN, keyid) is None:
        raise ProposalError(f"keyid {keyid!r} must match {KEYID_PATTERN}", code=_REGISTRY)


def _make_directories(*paths: Path) -> None:
    for directory in {Path(p).parent for p in paths}:
        try:
            directory.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise _io_error("create key directory", directory, exc, _REGISTRY) from None


def _write_key_then_registry(
    private_key: Ed25519PrivateKey, private_key_path: Path, registry: KeyRegistry, path: Path
) -> None:
    """PEM first, registry second; a failed registry write removes the new PEM again."""
    _registry_bytes(registry)  # refuse (proposal.key_registry) before any file is written
    write_private_key(private_key, private_key_path)
    try:
        save_registry(registry, path)
    except BaseException:
        Path(private_key_path).unlink(missing_ok=True)
        raise


@arguments(
    proposal_argument_error,
    keyid=str,
    private_key_path=PATH,
    registry_path=PATH,
    valid_from=Instant,
    principal=(str, type(None)),
)
def new_key(
    keyid: str,
    *,
    private_key_path: Path,
    registry_path: Path,
    valid_from: Instant,
    principal: str | None = None,
) -> RegisteredKey:
    """Generate a key, write its PEM file and add it to the registry file (created if absent,
    with its directory), held by ``principal`` when given (``principal:<name>`` or
    ``agent:<name>``, recorded in canonical form).

    Raises ``proposal.key_registry`` (keyid taken or malformed, principal malformed,
    registry malformed, directory or registry file unwritable), ``proposal.private_key``
    (the PEM file exists or cannot be written). On failure neither file is left changed.
    """
    _check_keyid(keyid)
    if principal is not None:
        canonical_principal(principal, code=_REGISTRY)  # refused before anything is read
    registry = _registry_or_empty(registry_path)
    if keyid in registry.keys:
        raise ProposalError(f"keyid {keyid!r} is already registered", code=_REGISTRY)
    private_key = Ed25519PrivateKey.generate()
    updated = registry.add(
        keyid, private_key.public_key(), valid_from=valid_from, principal=principal
    )
    _make_directories(private_key_path, registry_path)
    _write_key_then_registry(private_key, private_key_path, updated, registry_path)
    return updated.keys[keyid]


@arguments(
    proposal_argument_error,
    old_keyid=str,
    new_keyid=str,
    private_key_path=PATH,
    registry_path=PATH,
    at=Instant,
)
def rotate_key(
    old_keyid: str, new_keyid: str, *, private_key_path: Path, registry_path: Path, at: Instant
) -> RegisteredKey:
    """End ``old_keyid`` at ``at`` and register a new key from ``at``; returns the new key.

    ``proposal.key_registry`` if ``old_keyid`` is unknown, revoked or already ended at
    ``at``, ``new_keyid`` is taken, ``at`` is not after the old key's ``valid_from``, or the
    registry cannot be written (the new PEM file is then removed again).
    """
    _check_keyid(new_keyid)
    registry = load_registry(registry_path)
    if old_keyid not in registry.keys:
        raise ProposalError(f"unknown keyid {old_keyid!r}", code=_REGISTRY)
    if new_keyid in registry.keys:
        raise ProposalError(f"keyid {new_keyid!r} is already registered", code=_REGISTRY)
    private_key = Ed25519PrivateKey.generate()
    try:
        updated = registry.rotate(old_keyid, new_keyid, private_key.public_key(), at=at)
    except ValueError as exc:
        raise ProposalError(str(exc), code=_REGISTRY) from None
    _make_directories(private_key_path)
    _write_key_then_registry(private_key, private_key_path, updated, registry_path)
    return updated.keys[new_keyid]


@arguments(proposal_argument_error, keyid=str, registry_path=PATH, at=Instant)
def revoke_key(keyid: str, *, registry_path: Path, at: Instant) -> RegisteredKey:
    """Revoke ``keyid`` from ``at`` on in the registry file; an earlier revocation stays."""
    registry = load_registry(registry_path)
    if keyid not in registry.keys:
        raise ProposalError(f"unknown keyid {keyid!r}", code=_REGISTRY)
    updated = registry.revoke(keyid, at=at)
    save_registry(updated, registry_path)
    return updated.keys[keyid]
