"""One expanded instance of a recurring (or single) component: :class:`Instance`."""

from __future__ import annotations

from dataclasses import dataclass

from cerebri.temporal.instant import Instant

__all__ = ["Instance"]


@dataclass(frozen=True, slots=True)
class Instance:
    """One instance of a recurring (or single) component, in UTC.

    ``recurrence_id`` is ``None`` for a component that is not part of a recurrence set,
    else the original start: ``YYYYMMDD`` for dates, ``YYYYMMDDTHHMMSSZ`` otherwise.
    ``start <= end``; equal for a ``DATE-TIME`` event without ``DTEND`` or ``DURATION``.
    """

    start: Instant
    end: Instant
    uid: str
    recurrence_id: str | None
    summary: str | None
    sequence: int
    transparent: bool
    cancelled: bool
