"""Verify a signed envelope: :func:`verify` raises, :func:`check_envelope` reports.

**A verified envelope grants nothing.** It only says the bytes are a well-formed envelope v2,
signed by registered unrevoked keys, describing these artifact bytes, inside its validity
window, with an allowed executor mode, and not a replay. To act, an executor still needs
:data:`STILL_REQUIRED`: an approval of this exact payload digest by a human other than the
author (unexpired, not withdrawn, consumed once), a capability grant for each effect, and the
policy's allow decision at execution time (proposals.md section 4). A ``principal_id`` inside
a request is never authentication.

Checks, in order (:class:`CheckName`; one implementation each, in
:mod:`cerebri.proposals.checks`):

1. ``schema``: ``proposal.canonical_json``, ``proposal.schema``;
2. ``signature`` over ``PAE(PROPOSAL_PAYLOAD_TYPE, canonical envelope without signature)``:
   ``proposal.unknown_key``, ``proposal.key_inactive``, ``proposal.revoked_key``,
   ``proposal.signature`` (also when fewer than ``threshold`` distinct keys signed);
3. ``artifact``: ``proposal.bad_ref``/``proposal.unknown_algorithm`` (ref shape),
   ``proposal.digest_mismatch`` (ref names another digest), store reads
   (``proposal.artifact_missing``, ``proposal.digest_mismatch``), ``proposal.size_mismatch``,
   then ``proposal.digest_mismatch``;
4. ``window``: at most one year long (``proposal.validity_too_long``, whatever
   ``clock_now``), then valid iff ``proposed-at <= clock_now < expires-at``:
   ``proposal.not_yet_valid``, ``proposal.expired``;
5. ``executor_mode`` against :data:`~cerebri.proposals.envelope.ALLOWED_EXECUTOR_MODES`:
   ``proposal.executor_mode``;
6. ``replay`` by ``idempotency/key``, run only when the five checks before it all *ran and
   passed*: the result is claimed in the ledger (check-and-set,
   :meth:`~cerebri.proposals.ledger.ReplayLedger.claim`); a key recorded with a different
   payload digest is ``proposal.replayed``, with the same digest the recorded result is
   returned unchanged, a fresh key records this result.

After a failure the later checks are ``not_run``. Without an artifact the ``artifact`` check
is ``not_run`` and so is ``replay`` ("not recorded: the artifact was not checked"): a
``passed`` replay check always means the result is recorded.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Final, TypeVar

from cerebri._guard import arguments
from cerebri._json import JSONValue
from cerebri.proposals.checks import (
    check_artifact,
    check_executor_mode,
    check_replay,
    check_schema,
    check_signature,
    check_window,
)
from cerebri.proposals.errors import ProposalError, proposal_argument_error
from cerebri.proposals.ledger import ReplayLedger, VerifiedEnvelope
from cerebri.proposals.signing import KeyRegistry
from cerebri.proposals.store import ObjectStore
from cerebri.temporal import Instant

__all__ = [
    "STILL_REQUIRED",
    "CheckName",
    "CheckResult",
    "Verdict",
    "VerificationReport",
    "check_envelope",
    "verify",
]

T = TypeVar("T")

STILL_REQUIRED: Final[tuple[str, ...]] = (
    "an approval of this payload digest by a human other than the author, "
    "unexpired, not withdrawn and consumed once",
    "a capability grant for each effect",
    "the policy's allow decision at execution time",
)
"""What execution needs beyond a verified envelope; reported even when every check passed."""


class CheckName(StrEnum):
    """The checks, in the order they run."""

    SCHEMA = "schema"
    SIGNATURE = "signature"
    ARTIFACT = "artifact"
    WINDOW = "window"
    EXECUTOR_MODE = "executor_mode"
    REPLAY = "replay"


class Verdict(StrEnum):
    """``passed``, ``failed`` (with a code) or ``not_run`` (with a reason)."""

    PASSED = "passed"
    FAILED = "failed"
    NOT_RUN = "not_run"


@dataclass(frozen=True, slots=True)
class CheckResult:
    """One check's verdict. ``failed``: ``code``, ``message`` and ``path`` (JSON pointer or
    ``None``) of the ``ProposalError``. ``not_run``: ``reason``. ``passed`` may carry a
    ``message`` (a replay of an already recorded envelope says when it was recorded)."""

    name: CheckName
    verdict: Verdict
    code: str | None = None
    message: str | None = None
    path: str | None = None
    reason: str | None = None

    def to_wire(self) -> dict[str, JSONValue]:
        """``{"check", "verdict"}`` plus ``code``/``path``/``message`` or ``reason``."""
        wire: dict[str, JSONValue] = {"check": self.name.value, "verdict": self.verdict.value}
        if self.verdict is Verdict.FAILED:
            wire.update(code=self.code, path=self.path, message=self.message)
        elif self.verdict is Verdict.PASSED and self.message is not None:
            wire["message"] = self.message
        elif self.verdict is Verdict.NOT_RUN:
            wire["reason"] = self.reason
        return wire


@dataclass(frozen=True, slots=True)
class VerificationReport:
    """Every check's verdict, in :class:`CheckName` order.

    ``payload_digest`` (``sha256:`` of the signed bytes) is known once ``schema`` passed.
    ``verified`` is the inert result when all six checks ran and passed, else ``None``.
    ``still_required`` is always :data:`STILL_REQUIRED`: verification grants nothing.
    """

    checks: tuple[CheckResult, ...]
    payload_digest: str | None
    verified: VerifiedEnvelope | None = field(default=None, compare=False, repr=False)
    still_required: tuple[str, ...] = STILL_REQUIRED

    @property
    def failed(self) -> bool:
        """Whether any check failed (``not_run`` checks are not failures)."""
        return any(c.verdict is Verdict.FAILED for c in self.checks)

    def check(self, name: CheckName | str) -> CheckResult:
        """The result of check ``name``."""
        return next(c for c in self.checks if c.name == name)

    def to_wire(self) -> dict[str, JSONValue]:
        """``{"checks": [...], "payload_digest", "failed", "still_required": [...]}``."""
        return {
            "checks": [c.to_wire() for c in self.checks],
            "payload_digest": self.payload_digest,
            "failed": self.failed,
            "still_required": list(self.still_required),
        }


class _Runner:
    def __init__(self) -> None:
        self.results: list[CheckResult] = []
        self.error: ProposalError | None = None
        self.failed_check: CheckName | None = None

    def run(self, name: CheckName, check: Callable[[], T]) -> T | None:
        if self.error is not None:
            self.skip(name, "")
            return None
        try:
            value = check()
        except ProposalError as exc:
            self.error = exc
            self.failed_check = name
            self.results.append(CheckResult(name, Verdict.FAILED, exc.code, exc.message, exc.path))
            return None
        self.results.append(CheckResult(name, Verdict.PASSED))
        return value

    def skip(self, name: CheckName, reason: str) -> None:
        if self.failed_check is not None:
            reason = f"an earlier check failed ({self.failed_check.value})"
        self.results.append(CheckResult(name, Verdict.NOT_RUN, reason=reason))


def _run(
    envelope_bytes: bytes,
    *,
    registry: KeyRegistry,
    clock_now: Instant,
    artifact_bytes: bytes | None,
    store: ObjectStore | None,
    replay: ReplayLedger | None,
    threshold: int,
) -> tuple[VerificationReport, ProposalError | None]:
    if threshold < 1:
        raise proposal_argument_error("threshold must be at least 1")
    runner = _Runner()
    parsed = runner.run(CheckName.SCHEMA, lambda: check_schema(envelope_bytes))
    if parsed is None:
        for name in list(CheckName)[1:]:
            runner.skip(name, "")
        return VerificationReport(tuple(runner.results), None), runner.error
    envelope = parsed.envelope
    signers = runner.run(
        CheckName.SIGNATURE, lambda: check_signature(parsed, registry, clock_now, threshold)
    )
    if artifact_bytes is None and store is None:
        runner.skip(CheckName.ARTIFACT, "no artifact given")
    else:
        runner.run(
            CheckName.ARTIFACT, lambda: check_artifact(envelope.candidate, artifact_bytes, store)
        )
    runner.run(CheckName.WINDOW, lambda: check_window(envelope, clock_now))
    runner.run(CheckName.EXECUTOR_MODE, lambda: check_executor_mode(envelope))
    verified: VerifiedEnvelope | None = None
    if replay is None:
        runner.skip(CheckName.REPLAY, "no replay ledger given")
    elif signers is None or not all(r.verdict is Verdict.PASSED for r in runner.results):
        unchecked = [r.name.value for r in runner.results if r.verdict is Verdict.NOT_RUN]
        runner.skip(CheckName.REPLAY, f"not recorded: the {', '.join(unchecked)} was not checked")
    else:
        result = VerifiedEnvelope(envelope, parsed.payload_digest, signers, clock_now)
        verified = runner.run(CheckName.REPLAY, lambda: check_replay(replay, result))
        if verified is not None and verified is not result:
            note = (
                f"already recorded at {verified.verified_at.format()}: this is the same "
                "envelope again, not a second acceptance"
            )
            runner.results[-1] = CheckResult(CheckName.REPLAY, Verdict.PASSED, message=note)
    report = VerificationReport(tuple(runner.results), parsed.payload_digest, verified)
    return report, runner.error


@arguments(
    proposal_argument_error,
    registry=KeyRegistry,
    clock_now=Instant,
    artifact_bytes=(bytes, type(None)),
    store=(ObjectStore, type(None)),
    replay=(ReplayLedger, type(None)),
    threshold=int,
)
def check_envelope(
    envelope_bytes: bytes,
    *,
    registry: KeyRegistry,
    clock_now: Instant,
    artifact_bytes: bytes | None = None,
    store: ObjectStore | None = None,
    replay: ReplayLedger | None = None,
    threshold: int = 1,
) -> VerificationReport:
    """Run every check that can run and report each verdict; never raises ``ProposalError``.

    The artifact comes from ``artifact_bytes`` or, failing that, from ``store`` by
    ``artifact/ref`` (a store error fails the ``artifact`` check); with neither it is
    ``not_run``, as is ``replay`` without a ledger. ``threshold`` (at least 1, else
    ``ValueError``) counts distinct public keys. ``clock_now`` is a UTC instant.
    """
    report, _ = _run(
        envelope_bytes,
        registry=registry,
        clock_now=clock_now,
        artifact_bytes=artifact_bytes,
        store=store,
        replay=replay,
        threshold=threshold,
    )
    return report


@arguments(
    proposal_argument_error,
    registry=KeyRegistry,
    clock_now=Instant,
    artifact_bytes=bytes,
    replay=ReplayLedger,
    threshold=int,
)
def verify(
    envelope_bytes: bytes,
    *,
    registry: KeyRegistry,
    clock_now: Instant,
    artifact_bytes: bytes,
    replay: ReplayLedger,
    threshold: int = 1,
) -> VerifiedEnvelope:
    """Run all six checks; return the (inert) verified envelope or raise the first failure.

    ``threshold`` is the number of distinct public keys that must have signed (at least 1).
    Nothing is recorded in ``replay`` unless every other check passed.
    """
    report, error = _run(
        envelope_bytes,
        registry=registry,
        clock_now=clock_now,
        artifact_bytes=artifact_bytes,
        store=None,
        replay=replay,
        threshold=threshold,
    )
    if error is not None:
        raise error
    assert report.verified is not None  # all six ran: bytes and ledger were given
    return report.verified
