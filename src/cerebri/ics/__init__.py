"""Read ``.ics`` calendars into busy time and working hours.

``icalendar`` parses, ``recurring-ical-events`` expands recurrences; this package adds what
a planner needs on top and corrects the libraries where they depart from RFC 5545 (see
:mod:`cerebri.ics.expand`, :mod:`cerebri.ics.zones` and :mod:`cerebri.ics.source`)::

    calendar = parse_calendar(text, source="work.ics")
    busy = busy_periods([calendar], start, end, floating_zone="Europe/Berlin")
    hours = working_periods([calendar], start, end, floating_zone="Europe/Berlin")
    ids = [object_id(period) for period in busy]

Busy periods become CPIR context objects one layer up, in
:func:`cerebri.calendars.context_objects`: this package never imports ``cpir``
(docs/architecture.md).

Malformed input raises :class:`CalendarError` (codes ``ics.syntax``, ``ics.invalid_rrule``,
``ics.unknown_timezone``, ``ics.invalid_range``, ``ics.expansion_limit``, and
``ics.unsupported`` for valid features cerebri does not implement) naming the UID and line
where known; an argument of the wrong type raises :class:`CalendarArgumentError`
(``ics.invalid_argument``, also a ``TypeError``). What was read leniently is listed by
:func:`calendar_warnings`; ``parse_calendar(..., skip_invalid_events=True)`` leaves out
unreadable events and marks the calendar incomplete (:func:`calendar_incomplete`).
Expansion is bounded by a count (``max_occurrences``), never by time.
"""

from cerebri.ics.availability import working_periods
from cerebri.ics.busy import DEFAULT_MAX_OCCURRENCES, BusyKind, BusyPeriod, busy_periods
from cerebri.ics.errors import (
    CODES,
    SKIP_HINT,
    CalendarArgumentError,
    CalendarError,
    CalendarErrorCode,
)
from cerebri.ics.ids import object_id
from cerebri.ics.load import parse_calendar
from cerebri.ics.warnings import (
    WARNING_CODES,
    CalendarWarning,
    CalendarWarningCode,
    calendar_incomplete,
    calendar_warnings,
    warnings_of,
)

__all__ = [
    "CODES",
    "DEFAULT_MAX_OCCURRENCES",
    "SKIP_HINT",
    "WARNING_CODES",
    "BusyKind",
    "BusyPeriod",
    "CalendarArgumentError",
    "CalendarError",
    "CalendarErrorCode",
    "CalendarWarning",
    "CalendarWarningCode",
    "busy_periods",
    "calendar_incomplete",
    "calendar_warnings",
    "object_id",
    "parse_calendar",
    "warnings_of",
    "working_periods",
]
