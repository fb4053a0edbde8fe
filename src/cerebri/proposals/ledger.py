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
itself.

Recording is a check-and-set: :meth:`ReplayLedger.claim` returns the result already recorded
under the key if there is one, else records the given result and returns it, in one step.
The verifier compares the winner's payload digest with its own, so of two concurrent
verifications of different payloads under one key exactly one wins. :class:`FileReplayLedger`
does read-check-write while holding an exclusive lock on the sibling file ``<ledger>.lock``
(``filelock``), so separate processes sharing one ledger file are serialised too.

A malformed, unreadable or unwritable file (or lock file) is ``ProposalError``
``proposal.ledger``.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Final, Literal, Protocol, runtime_checkable

from filelock import FileLock, Timeout
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from cerebri._files import DEFAULT_MAX_BYTES, read_bounded, write_atomic
from cerebri._guard import PATH, arguments
from cerebri.errors import UnreadableInputError
from cerebri.proposals.digest import DIGEST_PATTERN, canonical_json, load_json
from cerebri.proposals.envelope import Envelope
from cerebri.proposals.errors import ProposalError, json_pointer, proposal_argument_error
from cerebri.temporal import Instant

__all__ = [
    "MAX_LEDGER_BYTES",
    "FileReplayLedger",
    "InMemoryReplayLedger",
    "ReplayLedger",
    "VerifiedEnvelope",
]


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


@runtime_checkable
class ReplayLedger(Protocol):
    """Where consumed idempotency keys are remembered."""

    def recorded(self, idempotency_key: str) -> VerifiedEnvelope | None:
        """The result recorded under ``idempotency_key``, or ``None``."""
        ...

    def claim(self, idempotency_key: str, result: VerifiedEnvelope) -> VerifiedEnvelope:
        """Atomically: the result already recorded under ``idempotency_key`` if any, else
        record ``result`` and return it. The first claim wins; the caller compares the
        winner's ``payload_digest`` with its own."""
        ...


class InMemoryReplayLedger:
    """A process-local :class:`ReplayLedger`; forgets everything when dropped. Thread-safe."""

    def __init__(self) -> None:
        self._entries: dict[str, VerifiedEnvelope] = {}
        self._lock = threading.Lock()

    @arguments(proposal_argument_error, idempotency_key=str)
    def recorded(self, idempotency_key: str) -> VerifiedEnvelope | None:
        """The result recorded under ``idempotency_key``, or ``None``."""
        return self._entries.get(idempotency_key)

    @arguments(proposal_argument_error, idempotency_key=str, result=VerifiedEnvelope)
    def claim(self, idempotency_key: str, result: VerifiedEnvelope) -> VerifiedEnvelope:
        """The recorded result, or ``result`` after recording it (one step, under a lock)."""
        with self._lock:
            return self._entries.setdefault(idempotency_key, result)


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


MAX_LEDGER_BYTES: Final = DEFAULT_MAX_BYTES
"""Largest ledger file read, in bytes (64 MiB, some 20 000 entries of a few KiB each; the
file is rewritten whole on every claim, so it is meant for small deployments).
``input.too_large`` beyond."""

LOCK_TIMEOUT_SECONDS: Final = 60.0
"""How long :meth:`FileReplayLedger.claim` waits for the ledger lock (``proposal.ledger``)."""


def _verified(entry: _Entry) -> VerifiedEnvelope:
    return VerifiedEnvelope(
        envelope=entry.envelope,
        payload_digest=entry.payload_digest,
        signers=entry.signers,
        verified_at=entry.verified_at,
    )


class FileReplayLedger:
    """A durable :class:`ReplayLedger` in the JSON file ``path`` (created on first claim),
    locked through ``<path>.lock`` while claiming."""

    @arguments(proposal_argument_error, path=PATH)
    def __init__(self, path: Path) -> None:
        self.path = Path(path)

    @property
    def lock_path(self) -> Path:
        """The sibling lock file, ``<ledger file name>.lock``."""
        return self.path.with_name(self.path.name + ".lock")

    def _load(self) -> dict[str, _Entry]:
        try:
            data = read_bounded(self.path, limit=MAX_LEDGER_BYTES, what="ledger")
        except UnreadableInputError as exc:
            if exc.missing:
                return {}
            raise ProposalError(exc.message, code="proposal.ledger") from None
        try:
            load_json(data)  # depth, duplicate members: never hand hostile nesting to pydantic
            return dict(_LedgerFile.model_validate_json(data).entries)
        except ProposalError as exc:
            raise ProposalError(
                f"malformed ledger file: {exc.message}", code="proposal.ledger", path=""
            ) from None
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

    @arguments(proposal_argument_error, idempotency_key=str)
    def recorded(self, idempotency_key: str) -> VerifiedEnvelope | None:
        """The result recorded under ``idempotency_key``, or ``None``."""
        entry = self._load().get(idempotency_key)
        return None if entry is None else _verified(entry)

    @arguments(proposal_argument_error, idempotency_key=str, result=VerifiedEnvelope)
    def claim(self, idempotency_key: str, result: VerifiedEnvelope) -> VerifiedEnvelope:
        """The recorded result, or ``result`` after recording it: read, check and atomic
        rewrite under an exclusive lock on :attr:`lock_path`. ``proposal.ledger`` if the
        file or lock cannot be read, written or acquired (within ``LOCK_TIMEOUT_SECONDS``)."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with FileLock(self.lock_path, timeout=LOCK_TIMEOUT_SECONDS):
                return self._claim_locked(idempotency_key, result)
        except Timeout:
            raise ProposalError(
                f"ledger {self.path} stayed locked for {LOCK_TIMEOUT_SECONDS:g} s",
                code="proposal.ledger",
            ) from None
        except OSError as exc:
            raise ProposalError(
                f"cannot write ledger {self.path}: {exc.strerror or exc}", code="proposal.ledger"
            ) from None

    def _claim_locked(self, idempotency_key: str, result: VerifiedEnvelope) -> VerifiedEnvelope:
        entries = self._load()
        previous = entries.get(idempotency_key)
        if previous is not None:
            return _verified(previous)
        entries[idempotency_key] = _Entry(
            payload_digest=result.payload_digest,
            verified_at=result.verified_at,
            signers=result.signers,
            envelope=result.envelope,
        )
        document = _LedgerFile(version=1, entries=entries)
        write_atomic(self.path, canonical_json(document.model_dump(mode="json", exclude_none=True)))
        return result
