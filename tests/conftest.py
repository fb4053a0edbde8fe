"""Shared test settings: where the public conformance data lives.

``CEREBRI_CONFORMANCE_DIR`` (default ``../shared/conformance`` next to the repository)
points at the shared, read-only conformance data. Without it, conformance tests report
themselves as not run, with the reason; under CI (``CI=true``) missing data is a failure.
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


@pytest.fixture(scope="session")
def conformance() -> Path:
    """The conformance folder; skips (or, under CI, fails) when it is absent."""
    folder = conformance_dir()
    if not (folder / "cerebri").is_dir():
        reason = f"conformance data not found at {folder} (set CEREBRI_CONFORMANCE_DIR)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(reason)
        pytest.skip(reason)
    return folder
