"""The one-year validity limit holds at signing and at verification (decision 0017)."""

from __future__ import annotations

import pytest

from cerebri.proposals import (
    MAX_VALIDITY_SECONDS,
    InMemoryReplayLedger,
    ProposalError,
    Verdict,
    check_envelope,
    verify,
)
from cerebri.temporal import Instant
from tests.proposals.helpers import ARTIFACT, NOW, PROPOSED, body, registry, signed
from tests.proposals.test_propose import make

# 2025-03-01T09:00:00Z + 365 days = 2026-03-01T09:00:00Z (2025 is not a leap year).
ONE_YEAR_LATER = "2026-03-01T09:00:00Z"
ONE_YEAR_AND_A_SECOND = "2026-03-01T09:00:01Z"


def test_the_limit_is_365_days() -> None:
    assert MAX_VALIDITY_SECONDS == 365 * 24 * 3600


def _verify(expires: str) -> str | None:
    data = signed(body(**{"expires-at": expires}))
    try:
        verify(
            data,
            registry=registry(),
            clock_now=NOW,
            artifact_bytes=ARTIFACT,
            replay=InMemoryReplayLedger(),
        )
    except ProposalError as exc:
        assert exc.path == "/expires-at"
        return exc.code
    return None


def test_verify_refuses_a_window_longer_than_a_year() -> None:
    assert _verify("9999-12-31T23:59:59Z") == "proposal.validity_too_long"
    assert _verify(ONE_YEAR_AND_A_SECOND) == "proposal.validity_too_long"
    assert _verify("2026-03-01T09:00:00.000000001Z") == "proposal.validity_too_long"
    assert _verify(ONE_YEAR_LATER) is None  # exactly one year is allowed


def test_report_names_the_window_check() -> None:
    data = signed(body(**{"expires-at": "9999-12-31T23:59:59Z"}))
    report = check_envelope(data, registry=registry(), clock_now=NOW, artifact_bytes=ARTIFACT)
    window = report.check("window")
    assert (window.verdict, window.code, window.path) == (
        Verdict.FAILED,
        "proposal.validity_too_long",
        "/expires-at",
    )
    assert report.check("signature").verdict is Verdict.PASSED
    assert report.failed


def test_propose_refuses_to_sign_a_window_longer_than_a_year() -> None:
    with pytest.raises(ProposalError) as caught:
        make(expires_at=Instant.parse(ONE_YEAR_AND_A_SECOND))
    assert (caught.value.code, caught.value.path) == ("proposal.validity_too_long", "/expires-at")
    assert make(expires_at=Instant.parse(ONE_YEAR_LATER))  # exactly one year signs
    assert Instant.parse(ONE_YEAR_LATER) - Instant.parse(PROPOSED) == (MAX_VALIDITY_SECONDS * 10**9)
