"""Replay ledgers: where consumed ``idempotency/key`` values are remembered.

:class:`InMemoryReplayLedger` lives in one process. :class:`FileReplayLedger` keeps one JSON
file (RFC 8785 form, rewritten atomically on every record)::

    {"version": 1,
     "entries": {"<idempotency key>": {"payload_digest": "sha256:<hex>",
                                       "verified_at": "<RFC 3339 UTC>",
                                       "signers": ["<keyid>", ...],
                                       "envelope": {<the verified envelope v2>}}}}

Beyond the payload digest and ``verified_at`` that the replay decision needs, an entry keeps
the signers and the envelope, so a repeat returns the recorded :class:`VerifiedEnvelope`
itself. The file ledger assumes one writer at a time (read, add, atomic replace); concurrent
writers may lose an entry but never corrupt the file. A malformed file is
``ProposalError`` ``proposal.ledger``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Final, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from cerebri.proposals._atomic import write_atomic
from cerebri.proposals.digest import DIGEST_PATTERN, canonical_json
from cerebri.proposals.envelope import Envelope
from cerebri.proposals.errors import ProposalError, json_pointer
from cerebri.temporal import Instant

__all__ = ["FileReplayLedger", "InMemoryReplayLedger", "ReplayLedger", "VerifiedEnvelope"]


@dataclass(frozen=True, slots=True)
class VerifiedEnvelope:
    """An envelope that passed every check. Inert: it authorises no effect.

    ``payload_digest`` is the ``sha256:`` digest of the signed bytes (what an approval names);
    ``signers`` the keyids of the signatures in envelope order; ``verified_at`` the clock
    instant of the first successful verification.
    """

    envelope: Envelope
    payload_digest: str
    signers: tuple[str, ...]
    verified_at: Instant


class ReplayLedger(Protocol):
    """Where consumed idempotency keys are remembered."""

    def recorded(self, idempotency_key: str) -> VerifiedEnvelope | None:
        """The result recorded under ``idempotency_key``, or ``None``."""
        ...

    def record(self, idempotency_key: str, result: VerifiedEnvelope) -> None:
        """Remember ``result`` under ``idempotency_key`` (first record wins)."""
        ...


class InMemoryReplayLedger:
    """A process-local :class:`ReplayLedger`; forgets everything when dropped."""

    def __init__(self) -> None:
        self._entries: dict[str, VerifiedEnvelope] = {}

    def recorded(self, idempotency_key: str) -> VerifiedEnvelope | None:
        """The result recorded under ``idempotency_key``, or ``None``."""
        return self._entries.get(idempotency_key)

    def record(self, idempotency_key: str, result: VerifiedEnvelope) -> None:
        """Remember ``result`` unless the key already has one."""
        self._entries.setdefault(idempotency_key, result)


_CONFIG: Final = ConfigDict(frozen=True, extra="forbid", strict=True)


class _Entry(BaseModel):
    model_config = _CONFIG

    payload_digest: Annotated[str, Field(pattern=DIGEST_PATTERN)]
    verified_at: Instant
    signers: tuple[str, ...]
    envelope: Envelope


class _LedgerFile(BaseModel):
    model_config = _CONFIG

    version: Literal[1]
    entries: dict[str, _Entry]


class FileReplayLedger:
    """A durable :class:`ReplayLedger` in the JSON file ``path`` (created on first record)."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)

    def _load(self) -> dict[str, _Entry]:
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return {}
        except OSError as exc:
            raise ProposalError(f"cannot read ledger: {exc}", code="proposal.ledger") from None
        try:
            return dict(_LedgerFile.model_validate_json(data).entries)
        except ValidationError as exc:
            first = exc.errors()[0]
            raise ProposalError(
                f"malformed ledger file: {first['msg']}",
                code="proposal.ledger",
                path=json_pointer(first["loc"]),
            ) from None

    def keys(self) -> tuple[str, ...]:
        """The consumed idempotency keys (reads the file: ``proposal.ledger`` if malformed)."""
        return tuple(self._load())

    def recorded(self, idempotency_key: str) -> VerifiedEnvelope | None:
        """The result recorded under ``idempotency_key``, or ``None``."""
        entry = self._load().get(idempotency_key)
        if entry is None:
            return None
        return VerifiedEnvelope(
            envelope=entry.envelope,
            payload_digest=entry.payload_digest,
            signers=entry.signers,
            verified_at=entry.verified_at,
        )

    def record(self, idempotency_key: str, result: VerifiedEnvelope) -> None:
        """Remember ``result`` unless the key already has one; rewrites the file atomically."""
        entries = self._load()
        if idempotency_key in entries:
            return
        entries[idempotency_key] = _Entry(
            payload_digest=result.payload_digest,
            verified_at=result.verified_at,
            signers=result.signers,
            envelope=result.envelope,
        )
        document = _LedgerFile(version=1, entries=entries)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(self.path, canonical_json(document.model_dump(mode="json", exclude_none=True)))
