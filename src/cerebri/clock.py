"""Injected time and ids: the only doors through which the wall clock and randomness enter.

* :class:`Clock` gives the current UTC :class:`~cerebri.temporal.Instant` (nanoseconds since
  1970-01-01T00:00:00Z). :class:`SystemClock` is the only code in ``src`` that reads the wall
  clock; :class:`FakeClock` is a test clock that moves only when told and never backwards.
* :class:`IdGenerator` gives fresh ids. :class:`UuidIds` (random UUID4, RFC 9562) is the only
  randomness in ``src``; :class:`SequentialIds` is deterministic (``prefix-000001``...).

Errors: :class:`ClockError` (also a ``ValueError``) with codes ``clock.backwards`` (a fake
clock asked to move to an earlier instant or by a negative amount) and
``clock.invalid_argument`` (a wrong-typed argument).
"""

from __future__ import annotations

import time
import uuid
from typing import Protocol, runtime_checkable

from cerebri.errors import CerebriError
from cerebri.temporal import Instant

__all__ = [
    "Clock",
    "ClockError",
    "FakeClock",
    "IdGenerator",
    "SequentialIds",
    "SystemClock",
    "UuidIds",
]

_NS_PER_SECOND = 1_000_000_000


class ClockError(CerebriError, ValueError):
    """A clock or id generator was misused; codes ``clock.backwards``,
    ``clock.invalid_argument``."""

    code = "clock.invalid_argument"


@runtime_checkable
class Clock(Protocol):
    """A source of the current instant."""

    def now(self) -> Instant:
        """The current instant, UTC, nanosecond resolution."""
        ...


@runtime_checkable
class IdGenerator(Protocol):
    """A source of fresh, never repeated ids (text)."""

    def new_id(self) -> str:
        """A new id, distinct from every id this generator returned before."""
        ...


class SystemClock:
    """The wall clock (``time.time_ns``): the only wall-clock reader in cerebri."""

    def now(self) -> Instant:
        """The current UTC instant as reported by the operating system."""
        return Instant(time.time_ns())


class FakeClock:
    """A clock for tests: starts at ``start`` and moves only by :meth:`advance`/:meth:`set`.

    It never goes backwards: a negative advance or an earlier instant raises
    :class:`ClockError` (``clock.backwards``) and leaves the clock unchanged.
    """

    def __init__(self, start: Instant) -> None:
        if not isinstance(start, Instant):
            raise ClockError(f"FakeClock needs an Instant, not {type(start).__name__}")
        self._now = start

    def now(self) -> Instant:
        """The instant the clock is at."""
        return self._now

    def advance(self, seconds: int | float) -> Instant:
        """Move forward by ``seconds`` (may be fractional; rounded to whole nanoseconds).

        Returns the new instant. Raises ``clock.backwards`` for a negative amount,
        ``clock.invalid_argument`` for a non-number or ``bool``, ``OverflowError`` past
        :attr:`Instant.MAX`.
        """
        if isinstance(seconds, bool) or not isinstance(seconds, int | float):
            raise ClockError(f"advance needs seconds as a number, not {type(seconds).__name__}")
        step = seconds * _NS_PER_SECOND if isinstance(seconds, int) else round(seconds * 1e9)
        if step < 0:
            raise ClockError(f"a clock cannot go backwards ({seconds} s)", code="clock.backwards")
        self._now = Instant(self._now.ns + int(step))
        return self._now

    def set(self, instant: Instant) -> None:
        """Jump to ``instant``; raises ``clock.backwards`` if it is before :meth:`now`."""
        if not isinstance(instant, Instant):
            raise ClockError(f"set needs an Instant, not {type(instant).__name__}")
        if instant < self._now:
            raise ClockError(
                f"a clock cannot go backwards (from {self._now} to {instant})",
                code="clock.backwards",
            )
        self._now = instant


class UuidIds:
    """Random RFC 9562 version 4 UUIDs in their 36-character text form."""

    def new_id(self) -> str:
        """A new random UUID4 text (``xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx``)."""
        return str(uuid.uuid4())


class SequentialIds:
    """Deterministic ids ``f"{prefix}-{n:06d}"`` for ``n = 1, 2, ...`` (tests, replays)."""

    def __init__(self, prefix: str = "id") -> None:
        if not isinstance(prefix, str) or not prefix:
            raise ClockError("SequentialIds needs a non-empty text prefix")
        self._prefix = prefix
        self._count = 0

    def new_id(self) -> str:
        """The next id of the sequence."""
        self._count += 1
        return f"{self._prefix}-{self._count:06d}"
