"""The planner's name for :func:`cerebri._collector.collector_paused` (kept for imports)."""

from __future__ import annotations

from cerebri._collector import collector_paused

__all__ = ["collector_paused"]
