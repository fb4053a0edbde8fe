"""Shared test settings: where the public conformance data lives.

``CEREBRI_CONFORMANCE_DIR`` (default ``../shared/conformance`` next to the repository) points
at the shared, read-only conformance data; it must contain a ``cerebri/`` folder. Without it,
conformance tests report themselves as skipped with the reason; under CI (``CI`` set to
``true``, ``1`` or ``yes``) missing data stops the run at once with one clear message.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def conformance_dir() -> Path:
    """The configured conformance folder (may not exist)."""
    configured = os.environ.get("CEREBRI_CONFORMANCE_DIR")
    return Path(configured) if configured else REPO.parent / "shared" / "conformance"


def _missing_reason() -> str | None:
    folder = conformance_dir()
    if (folder / "cerebri").is_dir():
        return None
    return (
        f"conformance data not found: {folder / 'cerebri'} does not exist "
        "(set CEREBRI_CONFORMANCE_DIR to the folder that holds cerebri/ and ics/)"
    )


def _under_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in {"true", "1", "yes"}


def pytest_sessionstart(session: pytest.Session) -> None:
    reason = _missing_reason()
    if reason is not None and _under_ci():
        pytest.exit(f"CI run without conformance data: {reason}", returncode=3)


@pytest.fixture(scope="session")
def conformance() -> Path:
    """The conformance folder; the test is skipped (with the reason) when it is absent."""
    reason = _missing_reason()
    if reason is not None:
        pytest.skip(reason)
    return conformance_dir()
