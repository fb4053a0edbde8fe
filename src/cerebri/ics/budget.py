"""The counted limit of one query: :class:`Budget`.

Before a series is expanded, every instance its rules generate from the
series start up to the end of the (padded) query window is charged to a :class:`Budget`,
plus one per ``DTSTART``, ``RDATE`` value and override. When the total passes the limit,
``CalendarError`` ``ics.expansion_limit`` names the UID being counted. Series are counted in
UID order, so the named UID does not depend on the file's order either.
(The counting itself is :meth:`cerebri.ics._series._Series.charge`; the UID order is
:func:`cerebri.ics.expand.expand`.)
"""

from __future__ import annotations

from cerebri.ics.errors import CalendarError

__all__ = ["Budget"]


class Budget:
    """A counted limit shared by one query (``busy_periods`` or ``working_periods``)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.used = 0

    def spend(self, *, uid: str, line: int | None, source: str) -> None:
        """Charge one instance; raise ``ics.expansion_limit`` once the limit is passed."""
        self.used += 1
        if self.used > self.limit:
            raise CalendarError(
                "ics.expansion_limit",
                f"the calendar yields more than {self.limit} event instances up to the end of "
                "the window (single events count one each, recurrences from their first "
                "instance); raise max_occurrences or split the calendar",
                uid=uid,
                line=line,
                source=source,
            )
