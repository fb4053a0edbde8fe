"""The outbox folder of :mod:`cerebri.execution.adapters.itip_delivery`: per message a
``.ics``, an ``.eml`` and a ``.json`` record, written atomically, read bounded, hashed with
SHA-256, and a lock file per message (decision 0052).

Errors (:class:`~cerebri.execution.adapters.base.AdapterError`, all ``before_effect``):
``itip.outbox_unreadable`` (a record that cannot be read or is not a JSON object) and
``itip.outbox_unwritable`` (the folder or a file cannot be written; retryable).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Final

import filelock

from cerebri._files import read_bounded, write_atomic
from cerebri._json import JSONValue
from cerebri.errors import CerebriError
from cerebri.execution.adapters.base import AdapterError

__all__ = ["LOCK_TIMEOUT_SECONDS", "MAX_RECORD_BYTES", "Outbox", "sha256"]

LOCK_TIMEOUT_SECONDS: Final = 10.0
"""Longest wait for another invocation's lock on the same message, in seconds."""
MAX_RECORD_BYTES: Final = 1024 * 1024
"""Largest outbox record read back, in bytes (1 MiB); a message or e-mail file is read up to
16 times that."""


def sha256(data: bytes) -> str:
    """``"sha256:<hex>"`` of ``data``: the digests an outbox record holds."""
    return f"sha256:{hashlib.sha256(data).hexdigest()}"


class Outbox:
    """The files of the messages in ``folder`` (created ``0700`` on the first write; files
    ``0600``), each named ``<name><suffix>``."""

    __slots__ = ("folder",)

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def path(self, name: str, suffix: str) -> Path:
        """The file ``<name><suffix>`` of the outbox."""
        return self.folder / f"{name}{suffix}"

    def load(self, name: str) -> dict[str, JSONValue] | None:
        """The record of ``name`` (``None``: no record); ``itip.outbox_unreadable``."""
        path = self.path(name, ".json")
        if not path.exists():
            return None
        try:
            record = json.loads(read_bounded(path, limit=MAX_RECORD_BYTES, what="outbox record"))
        except (CerebriError, ValueError) as error:
            raise AdapterError(
                f"the outbox record {path} cannot be read: {error}",
                code="itip.outbox_unreadable",
                before_effect=True,
            ) from None
        if not isinstance(record, dict):
            raise AdapterError(
                f"the outbox record {path} is not a JSON object",
                code="itip.outbox_unreadable",
                before_effect=True,
            )
        return record

    def file_digest(self, name: str, suffix: str) -> str | None:
        """``sha256:<hex>`` of the file, ``None`` when it cannot be read."""
        try:
            return sha256(read_bounded(self.path(name, suffix), limit=16 * MAX_RECORD_BYTES))
        except CerebriError:
            return None

    def intact(self, name: str, record: Mapping[str, JSONValue]) -> bool:
        """Whether the ``.ics`` (and ``.eml`` when recorded) hash to the record's digests."""
        if self.file_digest(name, ".ics") != record.get("digest"):
            return False
        eml = record.get("eml_digest")
        return eml is None or self.file_digest(name, ".eml") == eml

    def write(self, path: Path, data: bytes) -> None:
        """Replace ``path`` with ``data`` atomically (folder fsynced); errors are
        ``itip.outbox_unwritable``."""
        try:
            self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            write_atomic(path, data, mode=0o600, sync_folder=True)
        except OSError as error:
            raise AdapterError(
                f"cannot write {path} in the outbox: {error.strerror or error}",
                code="itip.outbox_unwritable",
                retryable=True,
                before_effect=True,
            ) from None

    def save(self, name: str, record: Mapping[str, JSONValue]) -> None:
        """Write the record of ``name`` (sorted, indented JSON)."""
        text = json.dumps(record, sort_keys=True, indent=2, ensure_ascii=False) + "\n"
        self.write(self.path(name, ".json"), text.encode())

    def lock(self, name: str) -> filelock.BaseFileLock:
        """The lock of ``name`` (``.<name>.lock``, not yet taken); creates the folder."""
        try:
            self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        except OSError as error:
            raise AdapterError(
                f"cannot create the outbox folder {self.folder}: {error.strerror or error}",
                code="itip.outbox_unwritable",
                retryable=True,
                before_effect=True,
            ) from None
        return filelock.FileLock(str(self.path(f".{name}", ".lock")), timeout=LOCK_TIMEOUT_SECONDS)

    def read_email(self, name: str) -> bytes:
        """The ``.eml`` of ``name`` (``itip.outbox_unreadable`` when it cannot be read)."""
        try:
            return read_bounded(self.path(name, ".eml"), limit=16 * MAX_RECORD_BYTES)
        except CerebriError as error:
            raise AdapterError(
                f"the outbox e-mail of {name} cannot be read: {error.message}",
                code="itip.outbox_unreadable",
                before_effect=True,
            ) from None
