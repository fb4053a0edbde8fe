"""The counted limit of one query: :class:`Budget`.

The unit is a recurrence instance near the window: every instance a rule generates from
a little before the (padded) window up to its end, plus one per ``DTSTART``, ``RDATE``
value and override of a recurring series that starts that near
(:meth:`cerebri.ics._series._Series.charge`). A plain, non-recurring event is not generated
and never counts (its cost is bounded by the file; one far from the window is skipped
without being computed), nor does an explicit value far from the window. So
``max_occurrences=0`` accepts any calendar whose series have no instance near the window,
and plain events are always read. (``FREEBUSY`` periods are charged one each by
:mod:`cerebri.ics.freebusy`.) When the total passes the limit,
``CalendarError`` ``ics.expansion_limit`` names the UID being counted. Series are counted
in UID order (:func:`cerebri.ics.expand.expand`), so the named UID does not depend on the
file's order either.

Rule instances before the window are not charged, but the recurrence engine still steps
over them one by one (``dateutil`` has no exact jump for every rule, and a ``COUNT`` counts
from ``DTSTART``), so that walk is bounded too: :data:`WALK_FACTOR` times the limit.
"""

from __future__ import annotations

from typing import Final

from cerebri.ics.errors import CalendarError

__all__ = ["WALK_FACTOR", "Budget"]

WALK_FACTOR: Final = 20
"""Rule instances stepped over before a window, per unit of the limit (a limit of 100 000
lets a query step over two million: an hourly series running for 228 years)."""

OPTION_HINT: Final = (
    "raise max_occurrences (--max-occurrences N on the command line) or split the calendar"
)


class Budget:
    """A counted limit shared by one query (``busy_periods`` or ``working_periods``).

    ``limit`` is a number of generated instances (the unit of ``max_occurrences``).
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.used = 0
        self.walked = 0

    def spend(self, *, uid: str, line: int | None, source: str) -> None:
        """Charge one instance; raise ``ics.expansion_limit`` once the limit is passed."""
        self.used += 1
        if self.used > self.limit:
            raise CalendarError(
                "ics.expansion_limit",
                f"the recurring events generate more than {self.limit} recurrence instances "
                f"in and near the query window (max_occurrences); {OPTION_HINT}",
                uid=uid,
                line=line,
                source=source,
            )

    def walk(self, *, uid: str, line: int | None, source: str) -> None:
        """Count one rule instance stepped over before the window; raise
        ``ics.expansion_limit`` past ``WALK_FACTOR * limit`` of them."""
        self.walked += 1
        if self.walked > WALK_FACTOR * self.limit:
            raise CalendarError(
                "ics.expansion_limit",
                f"the recurrence rules step over more than {WALK_FACTOR * self.limit} "
                f"instances before the query window ({WALK_FACTOR} per allowed instance); "
                f"{OPTION_HINT}",
                uid=uid,
                line=line,
                source=source,
            )
