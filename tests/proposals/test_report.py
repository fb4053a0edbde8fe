"""``check_envelope``: one verdict per check, shared with ``verify``; the file replay ledger."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from cerebri.proposals import (
    STILL_REQUIRED,
    CheckName,
    FileReplayLedger,
    InMemoryReplayLedger,
    ObjectStore,
    ProposalError,
    Verdict,
    VerificationReport,
    check_envelope,
    envelope_digest,
    verify,
)
from cerebri.temporal import Instant
from tests.proposals.helpers import ARTIFACT, EXPIRES, KEY, NOW, body, registry, signed

ORDER = ["schema", "signature", "artifact", "window", "executor_mode", "replay"]


def report(data: bytes, **kwargs: Any) -> VerificationReport:
    options: dict[str, Any] = {
        "registry": registry(),
        "clock_now": NOW,
        "artifact_bytes": ARTIFACT,
        "replay": InMemoryReplayLedger(),
    }
    options.update(kwargs)
    return check_envelope(data, **options)


def verdicts(result: VerificationReport) -> list[tuple[str, str, str | None]]:
    return [(c.name.value, c.verdict.value, c.code or c.reason) for c in result.checks]


def test_all_checks_pass_and_still_nothing_is_granted() -> None:
    result = report(signed(body()))
    assert [c.name for c in result.checks] == list(CheckName)
    assert [c.verdict for c in result.checks] == [Verdict.PASSED] * 6
    assert not result.failed
    assert result.payload_digest == envelope_digest(body())
    assert result.verified is not None
    assert result.verified.payload_digest == result.payload_digest
    assert result.still_required == STILL_REQUIRED
    assert len(STILL_REQUIRED) == 3
    assert "human other than the author" in STILL_REQUIRED[0]
    wire = result.to_wire()
    assert wire["still_required"] == list(STILL_REQUIRED)
    assert wire["checks"][0] == {"check": "schema", "verdict": "passed"}
    assert wire["failed"] is False


@pytest.mark.parametrize(
    ("failed", "code", "data", "kwargs"),
    [
        ("schema", "proposal.schema", b"[]", {}),
        ("schema", "proposal.canonical_json", b'{"a":1,"a":1}', {}),
        (
            "signature",
            "proposal.signature",
            signed(body(), [(Ed25519PrivateKey.from_private_bytes(bytes(32)), "k1")]),
            {},
        ),
        ("signature", "proposal.unknown_key", signed(body(), [(KEY, "k9")]), {}),
        (
            "signature",
            "proposal.revoked_key",
            signed(body()),
            {"registry": registry().revoke("k1", at=NOW)},
        ),
        ("artifact", "proposal.size_mismatch", signed(body()), {"artifact_bytes": b""}),
        (
            "artifact",
            "proposal.digest_mismatch",
            signed(body()),
            {"artifact_bytes": ARTIFACT.upper()},
        ),
        ("window", "proposal.expired", signed(body()), {"clock_now": Instant.parse(EXPIRES)}),
        (
            "window",
            "proposal.not_yet_valid",
            signed(body()),
            {"clock_now": Instant.parse("2025-03-01T08:00:00Z")},
        ),
        (
            "executor_mode",
            "proposal.executor_mode",
            signed(body(executor={"mode": "deterministic-host-compiler"})),
            {},
        ),
    ],
)
def test_each_failure_and_not_run_after_it(
    failed: str, code: str, data: bytes, kwargs: dict[str, Any]
) -> None:
    result = report(data, **kwargs)
    index = ORDER.index(failed)
    expected = [(n, "passed", None) for n in ORDER[:index]]
    expected.append((failed, "failed", code))
    reason = f"an earlier check failed ({failed})"
    expected += [(n, "not_run", reason) for n in ORDER[index + 1 :]]
    assert verdicts(result) == expected
    assert result.failed
    assert result.verified is None
    assert result.still_required == STILL_REQUIRED
    assert (result.payload_digest is None) is (failed == "schema")
    failure = result.check(failed)
    assert failure.message
    with pytest.raises(ProposalError) as caught:  # verify() raises the same first failure
        verify(
            data,
            registry=kwargs.get("registry", registry()),
            clock_now=kwargs.get("clock_now", NOW),
            artifact_bytes=kwargs.get("artifact_bytes", ARTIFACT),
            replay=InMemoryReplayLedger(),
        )
    assert (caught.value.code, caught.value.path) == (code, failure.path)


def test_replay_failure() -> None:
    ledger = InMemoryReplayLedger()
    assert not report(signed(body()), replay=ledger).failed
    result = report(signed(body(**{"room/id": "room-2"})), replay=ledger)
    assert verdicts(result)[-1] == ("replay", "failed", "proposal.replayed")
    assert result.check("replay").path == "/idempotency~1key"


def test_without_artifact_or_ledger_those_checks_do_not_run() -> None:
    ledger = InMemoryReplayLedger()
    result = report(signed(body()), artifact_bytes=None, replay=None)
    assert verdicts(result) == [
        ("schema", "passed", None),
        ("signature", "passed", None),
        ("artifact", "not_run", "no artifact given"),
        ("window", "passed", None),
        ("executor_mode", "passed", None),
        ("replay", "not_run", "no replay ledger given"),
    ]
    assert not result.failed
    assert result.verified is None
    assert result.to_wire()["checks"][2] == {
        "check": "artifact",
        "verdict": "not_run",
        "reason": "no artifact given",
    }
    partial = report(signed(body()), artifact_bytes=None, replay=ledger)
    assert verdicts(partial)[-1] == (
        "replay",
        "not_run",
        "not recorded: the artifact was not checked",
    )
    assert not partial.failed
    assert partial.verified is None
    assert ledger.recorded("idem-1") is None  # nothing recorded without a full verification


def test_artifact_from_the_store(tmp_path: Path) -> None:
    store = ObjectStore(tmp_path)
    result = report(signed(body()), artifact_bytes=None, store=store)
    assert verdicts(result)[2] == ("artifact", "failed", "proposal.artifact_missing")
    store.put(ARTIFACT)
    assert report(signed(body()), artifact_bytes=None, store=store).check("artifact").verdict == (
        Verdict.PASSED
    )
    store.path_for(body()["candidate"]["artifact/ref"]).write_bytes(ARTIFACT.upper())
    swapped = report(signed(body()), artifact_bytes=None, store=store)
    assert verdicts(swapped)[2] == ("artifact", "failed", "proposal.digest_mismatch")


def test_threshold_must_be_positive() -> None:
    with pytest.raises(ValueError, match="threshold"):
        report(signed(body()), threshold=0)
    assert report(signed(body()), threshold=2).check("signature").code == "proposal.signature"


def test_file_ledger_is_durable(tmp_path: Path) -> None:
    path = tmp_path / "ledger.json"
    first = report(signed(body()), replay=FileReplayLedger(path)).verified
    assert first is not None
    assert FileReplayLedger(path).keys() == ("idem-1",)
    later = Instant(NOW.ns + 10)
    again = report(signed(body()), replay=FileReplayLedger(path), clock_now=later).verified
    assert again == first
    assert again is not None
    assert again.verified_at == NOW
    refused = report(signed(body(**{"turn/id": "t2"})), replay=FileReplayLedger(path))
    assert refused.check("replay").code == "proposal.replayed"
    other = report(signed(body(**{"idempotency/key": "idem-2"})), replay=FileReplayLedger(path))
    assert not other.failed
    assert FileReplayLedger(path).keys() == ("idem-1", "idem-2")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ledger.json", "ledger.json.lock"]


def test_file_ledger_refuses_a_malformed_file(tmp_path: Path) -> None:
    path = tmp_path / "ledger.json"
    for content, pointer in [
        (b'{"version":2,"entries":{}}', "/version"),
        (b'{"version":1,"entries":{"k":{"payload_digest":"x"}}}', "/entries/k/payload_digest"),
        (b"{", ""),
    ]:
        path.write_bytes(content)
        with pytest.raises(ProposalError) as caught:
            FileReplayLedger(path).recorded("k")
        assert (caught.value.code, caught.value.path) == ("proposal.ledger", pointer)
    assert FileReplayLedger(tmp_path / "absent.json").recorded("k") is None


def test_the_same_envelope_again_says_it_was_already_recorded() -> None:
    ledger = InMemoryReplayLedger()
    data = signed(body())
    first = check_envelope(
        data, registry=registry(), clock_now=NOW, artifact_bytes=ARTIFACT, replay=ledger
    )
    later = Instant.parse("2025-03-01T13:00:00Z")
    again = check_envelope(
        data, registry=registry(), clock_now=later, artifact_bytes=ARTIFACT, replay=ledger
    )
    assert first.checks[-1].to_wire() == {"check": "replay", "verdict": "passed"}
    assert again.checks[-1].to_wire() == {
        "check": "replay",
        "verdict": "passed",
        "message": "already recorded at 2025-03-01T12:00:00Z: this is the same envelope "
        "again, not a second acceptance",
    }
    assert again.verified is not None and again.verified.verified_at == NOW
