"""Values that bend RFC 5545 but whose meaning is clear: read them, and say so.

Run by :func:`cerebri.ics.parse_calendar` after zones are bound and before the components
are checked (:mod:`cerebri.ics.validate`). Each reading rewrites the component in place and
leaves an ``ics.lenient`` warning with the UID and line (docs/decisions/0014):

* ``DTSTART`` a ``DATE`` and ``DTEND`` a ``DATE-TIME`` at midnight (00:00:00, floating,
  UTC or zoned): the producer wrote the end day of an all-day event with a time of day it
  did not mean; ``DTEND`` is read as that ``DATE`` (exclusive end day, RFC 5545 section
  3.6.1). A ``DTEND`` at any other time of day stays refused (``ics.syntax``): whether the
  event is all-day or timed is then unclear.
* Both ``DTEND`` and ``DURATION`` (RFC 5545 section 3.6.1 allows one): ``DTEND`` is read
  and ``DURATION`` ignored, as ``recurring-ical-events`` does. ``DTEND`` is the explicit end;
  the producers seen writing both (Thunderbird writes ``DURATION:PT0S`` beside the
  ``DTEND`` of an all-day override, conformance file
  ``recurring_events_changed_duration.ics``) mean ``DTEND``. The warning says whether the
  two agree (compared on the wall clock for floating and date values).

Line-level leniencies (a line without ``:``, an ``X-`` property after ``END:VCALENDAR``,
spaces in an ``RRULE`` value) are handled while scanning the text (:mod:`cerebri.ics.load`).
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time
from typing import Any

from icalendar import Component

from cerebri.ics.source import calendar_source, component_uid, property_line
from cerebri.ics.times import add_duration, to_instant
from cerebri.ics.validate import component_duration
from cerebri.ics.warnings import CalendarWarning
from cerebri.ics.zones import property_values

__all__ = ["relax_calendar"]

_TIMED = frozenset({"VEVENT", "AVAILABLE"})


def _one_time(component: Component, name: str) -> date | None:
    values = property_values(component, name)
    if len(values) != 1:
        return None
    value = getattr(values[0], "dt", None)
    return value if isinstance(value, date) else None


def relax_calendar(
    calendar: Component, into: list[tuple[Component | None, CalendarWarning]]
) -> None:
    """Apply the readings of the module doc to every ``VEVENT`` and ``AVAILABLE``.

    Appends ``(component, warning)`` to ``into`` for each reading, as it is made.

    Raises nothing of its own; what it cannot read is left to :mod:`cerebri.ics.validate`.
    """
    source = calendar_source(calendar)
    for component in calendar.walk():
        if (component.name or "").upper() not in _TIMED:
            continue
        warning = _date_end(component, source)
        if warning is not None:
            into.append((component, warning))
        warning = _end_and_duration(component, source)
        if warning is not None:
            into.append((component, warning))


def _warning(component: Component, name: str, source: str, message: str) -> CalendarWarning:
    return CalendarWarning(
        "ics.lenient",
        message,
        uid=component_uid(component),
        line=property_line(component, name),
        source=source,
    )


def _date_end(component: Component, source: str) -> CalendarWarning | None:
    start = _one_time(component, "DTSTART")
    end = _one_time(component, "DTEND")
    if isinstance(start, datetime) or not isinstance(start, date):
        return None
    if not isinstance(end, datetime) or end.time() != time(0):
        return None
    day = end.date()
    params: Any = dict(getattr(component["DTEND"], "params", {}) or {})
    params.pop("TZID", None)
    params["VALUE"] = "DATE"
    del component["DTEND"]
    component.add("DTEND", day, parameters=params)
    return _warning(
        component,
        "DTEND",
        source,
        f"DTEND {end.isoformat()} is a DATE-TIME at midnight while DTSTART is a DATE; "
        f"read as the DATE {day.isoformat()} (an all-day event)",
    )


def _end_and_duration(component: Component, source: str) -> CalendarWarning | None:
    if "DTEND" not in component or "DURATION" not in component:
        return None
    start = _one_time(component, "DTSTART")
    end = _one_time(component, "DTEND")
    duration = component_duration(component)
    if start is None or end is None or duration is None or duration.negative:
        return None  # the checks refuse what is missing or broken
    if isinstance(start, datetime) != isinstance(end, datetime):
        return None  # refused by the checks (differing value types)
    try:
        agree = add_duration(start, duration, UTC) == to_instant(end, UTC)
    except (OverflowError, ValueError):
        return None  # out of range: the checks and the expansion report it
    how = "they agree" if agree else "they disagree"
    return _warning(
        component,
        "DURATION",
        source,
        f"DTEND and DURATION both occur (RFC 5545 section 3.6.1 allows one); {how}; "
        "DTEND is read, DURATION ignored",
    )
