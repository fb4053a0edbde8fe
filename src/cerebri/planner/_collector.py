"""Pause Python's cyclic garbage collector while a plan is computed.

A parsed request of 100 000 objects holds about two million container objects. Every full
cyclic collection walks all of them, and the result objects a large search allocates trigger
several such collections: measured at n = g = 100 000 they took about two thirds of the run.
The planner creates no reference cycles, so reference counting alone frees everything it
allocates; pausing the cyclic collector loses nothing. See docs/decisions/0007-gc-pause.md.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["collector_paused"]


@contextmanager
def collector_paused() -> Iterator[None]:
    """Disable the cyclic collector inside the block and restore its previous state after,
    also when the block raises. Nested use is safe: only the outermost block re-enables."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
