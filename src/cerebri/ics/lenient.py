"""Values that bend RFC 5545 but whose meaning is clear: read them, and say so.

Run by :func:`cerebri.ics.parse_calendar` after zones are bound and before the components
are checked (:mod:`cerebri.ics.validate`). Each reading rewrites the component in place and
leaves an ``ics.lenient`` warning with the UID and line (docs/decisions/0014):

* ``DTSTART`` a ``DATE`` and ``DTEND`` a ``DATE-TIME`` at midnight (00:00:00, floating,
  UTC or zoned): the producer wrote the end day of an all-day event with a time of day it
  did not mean; ``DTEND`` is read as that ``DATE`` (exclusive end day, RFC 5545 section
  3.6.1). A ``DTEND`` at any other time of day stays refused (``ics.syntax``): whether the
  event is all-day or timed is then unclear.
* Both ``DTEND`` and ``DURATION`` (RFC 5545 section 3.6.1 allows one). When they agree,
  ``DTEND`` is read and ``DURATION`` ignored. When they disagree, the event is busy from
  ``DTSTART`` to the *later* of the two ends, since unknown time is never offered as free:
  the property giving the earlier end is removed from the component, so every instance of a
  recurring master ends the same way (the two ends are compared at the component's own
  ``DTSTART``, floating and date values on the wall clock). Thunderbird writes
  ``DURATION:PT0S`` beside the ``DTEND`` of an all-day override (conformance file
  ``recurring_events_changed_duration.ics``): ``DTEND`` is later and is read. The warning
  gives both values and which one is read.

Not a leniency but an exact reading, made here too since the recurrence engine cannot read
it: an ``RRULE`` with ``RSCALE=GREGORIAN`` (and no ``SKIP`` or ``SKIP=OMIT``) is plain
RFC 5545 (RFC 7529 section 3.1); those parts are removed, without a warning
(:func:`cerebri.ics.rules.plain_gregorian`).

Line-level leniencies (a line without ``:``, an ``X-`` property after ``END:VCALENDAR``,
spaces in an ``RRULE`` value) are handled while scanning the text (:mod:`cerebri.ics.load`).
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from icalendar import Component

from cerebri.ics.rules import plain_gregorian
from cerebri.ics.source import calendar_source, component_uid, property_line, raw_durations
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
        _plain_rules(component)
        warning = _date_end(component, source)
        if warning is not None:
            into.append((component, warning))
        warning = _end_and_duration(component, source)
        if warning is not None:
            into.append((component, warning))


def _plain_rules(component: Component) -> None:
    rules = component.get("RRULE")
    if rules is None:
        return
    if isinstance(rules, list):
        component["RRULE"] = [plain_gregorian(rule) for rule in rules]
    else:
        component["RRULE"] = plain_gregorian(rules)


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
        by_end = to_instant(end, UTC)
        if not isinstance(start, datetime):  # an all-day event lasts at least one day
            by_end = max(by_end, to_instant(start + timedelta(days=1), UTC))
        by_duration = add_duration(start, duration, UTC)
    except (OverflowError, ValueError):
        return None  # out of range: the checks and the expansion report it
    raws = raw_durations(component)
    shown = raws[0] if raws else f"of {duration.days} day(s) and {duration.seconds} s"
    values = f"DTEND {end.isoformat()} and DURATION {shown}"
    if by_end == by_duration:
        how = "they agree; DTEND is read"
    elif by_end > by_duration:
        how = "they disagree; busy until the later end: DTEND is read, DURATION ignored"
    else:
        how = "they disagree; busy until the later end: DURATION is read, DTEND ignored"
    warning = _warning(
        component,
        "DURATION",
        source,
        f"{values} both occur (RFC 5545 section 3.6.1 allows one); {how}",
    )
    if by_duration > by_end:
        del component["DTEND"]
    return warning
