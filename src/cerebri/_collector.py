"""Pause Python's cyclic garbage collector while a request is parsed or planned.

A parsed request of 100 000 objects holds about two million container objects. Every full
cyclic collection walks all of them, and the result objects a large search allocates trigger
several such collections: measured at n = g = 100 000 they took about two thirds of the run.
The planner creates no reference cycles, so reference counting alone frees everything it
allocates; pausing the cyclic collector loses nothing. See docs/decisions/0007-gc-pause.md.
Parsing pauses it too (decision 0031): pydantic builds about twenty container objects per
context object, and the collections they trigger took three quarters of a 20 000-object parse.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["collector_paused"]

PROMOTE_AFTER = 2**16
"""Objects allocated inside the block beyond which they are moved to the oldest generation
on exit instead of being walked by a young collection (see :func:`collector_paused`)."""


@contextmanager
def collector_paused(*, promote_after: int = PROMOTE_AFTER) -> Iterator[None]:
    """Disable the cyclic collector inside the block and restore its previous state after,
    also when the block raises. Nested use is safe: only the outermost block re-enables.

    When the block allocated more than ``promote_after`` tracked objects (a parsed request,
    a large result; the package's own import passes 0) and nothing is frozen, they are
    moved to the oldest generation in constant time (``gc.freeze()`` then
    ``gc.unfreeze()``) before the collector resumes: otherwise the first allocation after
    the block walks all of them in a young collection (0.2 s for a 100 000-object plan).
    They are long-lived, and the next full collection examines them, as it would have
    anyway (decisions 0031 and 0045).
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            if gc.get_count()[0] > promote_after and gc.get_freeze_count() == 0:
                gc.freeze()
                gc.unfreeze()
            gc.enable()
