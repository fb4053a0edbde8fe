"""What the benchmarks print about where they ran: checkout revision and load average."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

__all__ = ["load_average", "source_revision"]


def source_revision() -> str:
    """``git describe --always --dirty`` of the checkout, or "unknown"."""
    try:
        done = subprocess.run(
            ["git", "-C", str(ROOT), "describe", "--always", "--dirty"],
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        )
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return done.stdout.strip() or "unknown"


def load_average() -> str:
    """The 1/5/15-minute load averages, or "unknown" where the platform has none."""
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:  # pragma: no cover - not available
        return "unknown"
