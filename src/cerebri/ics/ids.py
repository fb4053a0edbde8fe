"""Deterministic CPIR ids of busy periods: :func:`object_id`.

Ids are ``ics-`` plus the first 32 hex digits of SHA-256 over
``uid NUL recurrence_id NUL start`` (start in RFC 3339 UTC), so the same instance gets the
same id in every run and on every machine. :func:`cerebri.calendars.context_objects` gives
these ids to the CPIR ``EVENT`` objects it makes of busy periods; this module knows only the
id, not the CPIR model (``ics`` never imports ``cpir``, docs/architecture.md).
"""

from __future__ import annotations

import hashlib
from typing import Final

from cerebri.ics.busy import BusyPeriod
from cerebri.ics.errors import require

__all__ = ["ID_PREFIX", "object_id"]

ID_PREFIX: Final = "ics-"
_HEX_DIGITS: Final = 32


def object_id(period: BusyPeriod) -> str:
    """The deterministic CPIR id of a busy period (see the module doc).

    Raises ``CalendarArgumentError`` (a ``TypeError``) when ``period`` is no ``BusyPeriod``.
    """
    require(period, BusyPeriod, "object_id", "period")
    key = "\x00".join((period.uid, period.recurrence_id or "", period.start.format()))
    return ID_PREFIX + hashlib.sha256(key.encode("utf-8")).hexdigest()[:_HEX_DIGITS]
