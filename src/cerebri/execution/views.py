"""Read-only views of the store for people and machines: plans, steps, what is stuck.

Instants are shown as RFC 3339 UTC text (nanoseconds kept when not whole seconds). Every list
is ordered totally: plans by (created_at, id), steps by position, attempts by number.
"""

from __future__ import annotations

from cerebri.temporal import Instant

__all__ = ["instant_text"]


def instant_text(ns: int | None) -> str | None:
    """``None`` or the RFC 3339 UTC text of an instant given in nanoseconds since the epoch."""
    return None if ns is None else Instant(ns).format()
