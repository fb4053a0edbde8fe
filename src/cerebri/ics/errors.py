"""The one error type of :mod:`cerebri.ics`: :class:`CalendarError`.

Every malformed calendar that cerebri refuses to read raises ``CalendarError`` with one of
these stable codes (the message is for people and may change):

``ics.syntax``
    The text is not iCalendar: a line that is not a content line, ``BEGIN``/``END`` that do
    not match, a file that ends inside a component (truncated), a property value that cannot
    be read, a ``VEVENT`` without ``DTSTART``.
``ics.invalid_rrule``
    An ``RRULE`` that cannot be evaluated (unknown ``FREQ``, ``COUNT``/``INTERVAL`` below 1,
    both ``COUNT`` and ``UNTIL``, a rule part the recurrence engine rejects).
``ics.unknown_timezone``
    A ``TZID`` that is neither an IANA name, nor a Windows zone name, nor defined by a
    readable ``VTIMEZONE`` in the same calendar.
``ics.invalid_range``
    An end before its start: ``DTEND`` before ``DTSTART``, a negative ``DURATION``, a
    period whose end precedes its start, or a time outside the supported range.
``ics.expansion_limit``
    Expanding recurrences would generate more instances in and near the query window than
    the counted limit (``max_occurrences``, ``--max-occurrences``) allows, or step over
    more than ``WALK_FACTOR`` times that many before the window
    (:mod:`cerebri.ics.budget`).

``uid`` names the component (its ``UID``, or the synthetic id used for a component without
one) and ``line`` the 1-based physical line in the source text, when known: calendars read
with :func:`cerebri.ics.parse_calendar` know their lines, calendars built in code do not.
"""

from __future__ import annotations

from typing import Final, Literal

from cerebri.errors import CerebriError

__all__ = ["CODES", "CalendarError", "CalendarErrorCode"]

CalendarErrorCode = Literal[
    "ics.syntax",
    "ics.invalid_rrule",
    "ics.unknown_timezone",
    "ics.invalid_range",
    "ics.expansion_limit",
]

CODES: Final[tuple[CalendarErrorCode, ...]] = (
    "ics.syntax",
    "ics.invalid_rrule",
    "ics.unknown_timezone",
    "ics.invalid_range",
    "ics.expansion_limit",
)


class CalendarError(CerebriError, ValueError):
    """A calendar that cannot be read or expanded safely.

    Attributes:
        code: one of :data:`CODES`.
        uid: the component's UID (or synthetic id) when the problem belongs to a component.
        line: 1-based line of the offending property or component in the source, if known.
        source: the name given to :func:`cerebri.ics.parse_calendar` (``"<memory>"`` by
            default), if known.
    """

    code = "ics.syntax"

    def __init__(
        self,
        code: CalendarErrorCode,
        message: str,
        *,
        uid: str | None = None,
        line: int | None = None,
        source: str | None = None,
    ) -> None:
        where = [part for part in (_where(source, line), _uid_text(uid)) if part]
        full = f"{message} ({', '.join(where)})" if where else message
        super().__init__(full, code=code)
        self.uid = uid
        self.line = line
        self.source = source


def _where(source: str | None, line: int | None) -> str:
    if source is None and line is None:
        return ""
    if line is None:
        return f"in {source}"
    return f"{source or '<calendar>'}:{line}"


def _uid_text(uid: str | None) -> str:
    return "" if uid is None else f"UID {uid!r}"
