"""Refuse malformed components before anything is expanded.

Checked for ``VEVENT``, ``AVAILABLE``, ``VAVAILABILITY`` and ``VFREEBUSY`` (the components
cerebri reads); other components (``VTODO``, ``VJOURNAL``, ``VALARM``, unknown ``X-``
components) are not read and not checked:

* a property value ``icalendar`` could not read, when the property matters for time
  (``DTSTART``, ``DTEND``, ``DURATION``, ``RRULE``, ``RDATE``, ``EXDATE``,
  ``RECURRENCE-ID``, ``FREEBUSY``, ``SEQUENCE``, ``PRIORITY``) -> ``ics.syntax``
  (``ics.invalid_rrule`` for ``RRULE``);
  unreadable values of other properties (``DESCRIPTION``, ``GEO``, ``X-...``) are skipped;
* a missing, repeated or non-date ``DTSTART`` (required in ``VEVENT`` and ``AVAILABLE``),
  ``DTSTART``/``DTEND`` of different value types -> ``ics.syntax``;
* ``DTEND`` before ``DTSTART``, a negative ``DURATION``, a period ending before it starts
  -> ``ics.invalid_range`` (``recurring-ical-events`` silently swaps such ends);
* an ``RRULE`` that cannot be evaluated -> ``ics.invalid_rrule``.

* ``RSCALE`` other than ``GREGORIAN``, or ``SKIP`` other than ``OMIT``, in an ``RRULE``
  (RFC 7529) and a ``CALSCALE`` other than ``GREGORIAN`` -> ``ics.unsupported`` (valid,
  but not implemented).

Tolerated on purpose (documented skips): ``RRULE:`` with an empty value is no rule; when
both ``DTEND`` and ``DURATION`` are present ``DTEND`` is read here (a parsed calendar has
already kept only the one giving the later end, with an ``ics.lenient`` warning,
:mod:`cerebri.ics.lenient`); an all-day ``DTEND``
equal to its ``DTSTART`` is read as one day (RFC 5545 section 3.6.1's default for all-day
events).

Checked once: :func:`cerebri.ics.parse_calendar` runs every check that does not depend on
the floating zone and marks the calendar (:func:`mark_checked`); the queries then only
re-check, once per floating zone, the components whose checks compare a floating time or
a date (:func:`check_for_query`). Calendars built in code are checked in full on every
query.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta, tzinfo
from typing import Any, Final

from icalendar import Component

from cerebri.ics.errors import CalendarError, CalendarErrorCode
from cerebri.ics.rules import check_rule, is_empty_rule, unsupported_part
from cerebri.ics.source import calendar_source, component_uid, property_line, raw_durations
from cerebri.ics.times import Duration, parse_duration, to_instant
from cerebri.ics.zones import check_zones, property_values

__all__ = [
    "TIME_PROPERTIES",
    "check_calendar",
    "check_for_query",
    "check_read_errors",
    "component_duration",
    "mark_checked",
    "single",
    "time_of",
]

TIME_PROPERTIES: Final = frozenset(
    {
        "DTSTART",
        "DTEND",
        "DURATION",
        "RRULE",
        "RDATE",
        "EXDATE",
        "RECURRENCE-ID",
        "FREEBUSY",
        "SEQUENCE",
        "PRIORITY",
    }
)
"""Properties whose unreadable values are refused: they decide when, whether or which."""
_TIMED: Final = frozenset({"VEVENT", "AVAILABLE"})
_READ: Final = frozenset({*_TIMED, "VAVAILABILITY", "VFREEBUSY"})
_CHECKED: Final = "_cerebri_ics_checked"


class _Checker:
    def __init__(self, component: Component, source: str) -> None:
        self.component = component
        self.source = source
        self.zone_dependent = False  # a check compared a floating time or a date

    def fail(self, code: CalendarErrorCode, prop: str | None, message: str) -> CalendarError:
        line = property_line(self.component, prop or "BEGIN")
        uid = component_uid(self.component)
        return CalendarError(code, message, uid=uid, line=line, source=self.source)


def single(component: Component, name: str) -> Any:
    """The one value of property ``name``, ``None`` if absent (repeats are refused earlier)."""
    values = property_values(component, name)
    return values[0] if values else None


def time_of(component: Component, name: str) -> date:
    """The date or date-time value of property ``name`` (checked to exist by validation)."""
    value = getattr(single(component, name), "dt", None)
    if not isinstance(value, date):
        raise CalendarError(
            "ics.syntax",
            f"{name} is missing or not a date or date-time",
            uid=component_uid(component),
            line=property_line(component, name),
        )
    return value


def component_duration(component: Component) -> Duration | None:
    """The component's ``DURATION`` as nominal days plus exact seconds, if it has one.

    Read from the raw text when the scanner kept it (``PT24H`` stays 24 exact hours),
    else from ``icalendar``'s ``timedelta``.
    """
    raws = raw_durations(component)
    if raws:
        return parse_duration(raws[0])
    value = single(component, "DURATION")
    if value is None:
        return None
    delta = getattr(value, "dt", None)
    return Duration.from_timedelta(delta) if isinstance(delta, timedelta) else None


def _is_time(value: object) -> bool:
    return isinstance(value, date)


def _check_read_errors(check: _Checker) -> None:
    for prop, message in getattr(check.component, "errors", []) or []:
        name = str(prop).upper() if prop is not None else None
        if name is not None and name not in TIME_PROPERTIES:
            continue  # documented skip: an unreadable DESCRIPTION does not change time
        code: CalendarErrorCode = "ics.invalid_rrule" if name == "RRULE" else "ics.syntax"
        raise check.fail(code, name, f"{name or 'a line'} could not be read: {message}")


def _one(check: _Checker, name: str, *, required: bool) -> Any:
    values = property_values(check.component, name)
    if len(values) > 1:
        raise check.fail("ics.syntax", name, f"{name} occurs {len(values)} times")
    if not values:
        if required:
            raise check.fail("ics.syntax", None, f"{check.component.name} without {name}")
        return None
    value = values[0]
    if not _is_time(getattr(value, "dt", None)):
        raise check.fail("ics.syntax", name, f"{name} is not a date or date-time")
    return value.dt


def _kind(value: date) -> str:
    if not isinstance(value, datetime):
        return "date"
    return "floating" if value.tzinfo is None else "zoned"


def _check_span(check: _Checker, floating: tzinfo | None, *, required_start: bool) -> None:
    start = _one(check, "DTSTART", required=required_start)
    end = _one(check, "DTEND", required=False)
    if start is not None and end is not None:
        if (_kind(start) == "date") != (_kind(end) == "date"):
            raise check.fail("ics.syntax", "DTEND", "DTSTART and DTEND differ in value type")
        if _kind(start) != "zoned" or _kind(end) != "zoned":
            check.zone_dependent = True
        comparable = floating is not None or _kind(start) == _kind(end)
        zone = floating if floating is not None else UTC
        if comparable and to_instant(end, zone) < to_instant(start, zone):
            raise check.fail("ics.invalid_range", "DTEND", "DTEND is before DTSTART")
    durations = property_values(check.component, "DURATION")
    if len(durations) > 1:
        raise check.fail("ics.syntax", "DURATION", f"DURATION occurs {len(durations)} times")
    if durations:
        duration = component_duration(check.component)
        if duration is None:
            raise check.fail("ics.syntax", "DURATION", "DURATION is not a duration value")
        if duration.negative and not duration.is_zero:
            raise check.fail("ics.invalid_range", "DURATION", "DURATION is negative")


def _check_rules(check: _Checker) -> None:
    rules = property_values(check.component, "RRULE")
    if not rules:
        return
    start = _one(check, "DTSTART", required=True)
    for rule in rules:
        if is_empty_rule(rule):
            continue
        extension = unsupported_part(rule)
        if extension is not None:
            raise check.fail(
                "ics.unsupported", "RRULE", f"RRULE uses {extension}, which cerebri does not read"
            )
        problem = check_rule(rule, start)
        if problem is not None:
            raise check.fail("ics.invalid_rrule", "RRULE", f"RRULE cannot be used: {problem}")


def _check_dates(check: _Checker, name: str, floating: tzinfo | None) -> None:
    for value in property_values(check.component, name):
        leaves = getattr(value, "dts", None)
        for leaf in leaves if isinstance(leaves, list) else [value]:
            _check_period_or_time(check, name, getattr(leaf, "dt", None), floating)


def _check_period_or_time(
    check: _Checker, name: str, value: object, floating: tzinfo | None
) -> None:
    if _is_time(value):
        return
    if not isinstance(value, tuple) or len(value) != 2 or not _is_time(value[0]):
        raise check.fail("ics.syntax", name, f"{name} holds a value that is not a time")
    first, second = value
    if isinstance(second, timedelta):
        if second < timedelta(0):
            raise check.fail("ics.invalid_range", name, f"{name} period has a negative length")
        return
    if not _is_time(second):
        raise check.fail("ics.syntax", name, f"{name} period end is not a time")
    if _kind(first) != "zoned" or _kind(second) != "zoned":
        check.zone_dependent = True
    zone = floating if floating is not None else UTC
    if to_instant(second, zone) < to_instant(first, zone):
        raise check.fail("ics.invalid_range", name, f"{name} period ends before it starts")


def _check_recurrence_id(check: _Checker) -> None:
    _one(check, "RECURRENCE-ID", required=False)


def check_component(
    component: Component,
    source: str,
    floating: tzinfo | None,
    zone_dependent: list[Component] | None = None,
) -> None:
    """Raise ``CalendarError`` when a component cerebri reads is malformed (module doc).

    ``floating`` is the zone for floating times; ``None`` (while parsing, before the caller
    chose one) skips comparisons between floating and zoned values. A component that passes
    and whose result could differ with another ``floating`` is appended to
    ``zone_dependent``, when given.
    """
    name = (component.name or "").upper()
    if name not in _READ:
        return
    check = _Checker(component, source)
    _check_all(check, name, floating)
    if zone_dependent is not None and check.zone_dependent:
        zone_dependent.append(component)


def _check_all(check: _Checker, name: str, floating: tzinfo | None) -> None:
    _check_read_errors(check)  # again, for components checked on their own
    if name == "VFREEBUSY":
        _check_dates(check, "FREEBUSY", floating)
        return
    _check_span(check, floating, required_start=name in _TIMED)
    if name in _TIMED:
        _check_recurrence_id(check)
        _check_rules(check)
        _check_dates(check, "RDATE", floating)
        _check_dates(check, "EXDATE", floating)


def check_read_errors(calendar: Component) -> None:
    """Refuse values ``icalendar`` could not read in properties that matter (module doc).

    Runs before anything else reads values (zone binding included).
    """
    source = calendar_source(calendar)
    for component in calendar.walk():
        if (component.name or "").upper() in _READ:
            _check_read_errors(_Checker(component, source))


def check_calendar(
    calendar: Component,
    floating: tzinfo | None,
    *,
    zone_dependent: list[Component] | None = None,
) -> None:
    """Check every component of ``calendar`` that cerebri reads (see the module doc).

    ``zone_dependent`` collects the components whose checks depend on ``floating``.
    """
    source = calendar_source(calendar)
    scale = calendar.get("CALSCALE")
    if scale is not None and str(scale).upper() != "GREGORIAN":
        raise CalendarError(
            "ics.unsupported",
            f"CALSCALE {scale} is valid but not supported (only GREGORIAN)",
            line=property_line(calendar, "CALSCALE"),
            source=source,
        )
    for component in calendar.walk():
        check_component(component, source, floating, zone_dependent)


@dataclass(slots=True)
class _Checked:
    """What :func:`cerebri.ics.parse_calendar` checked of one calendar."""

    members: tuple[Component, ...]  # the calendar's subcomponents then
    zone_dependent: tuple[Component, ...]  # to re-check for each floating zone
    zones: set[str] = field(default_factory=set)  # floating zones already re-checked


def mark_checked(calendar: Component, zone_dependent: Sequence[Component]) -> None:
    """Remember on ``calendar`` that :func:`check_read_errors`, zone binding and
    :func:`check_calendar` with ``floating=None`` passed (a plain attribute, like the
    source records of :mod:`cerebri.ics.source`)."""
    setattr(calendar, _CHECKED, _Checked(tuple(calendar.subcomponents), tuple(zone_dependent)))


def _same_members(kept: tuple[Component, ...], now: list[Component]) -> bool:
    return len(kept) == len(now) and all(a is b for a, b in zip(kept, now, strict=True))


def check_for_query(calendar: Component, floating_zone: str, floating: tzinfo) -> None:
    """The checks a query runs before reading ``calendar`` with floating zone ``floating``.

    In full (:func:`check_read_errors`, :func:`cerebri.ics.zones.check_zones`,
    :func:`check_calendar`) for a calendar built in code. For one marked by
    :func:`mark_checked` only the components whose checks depend on the floating zone, and
    only the first time for each ``floating_zone`` name: the same first error as the full
    checks, since every other check passed while parsing. A marked calendar whose list of
    components changed since is checked in full again; change components in place and the
    marks no longer hold (parse the text again).
    """
    state = getattr(calendar, _CHECKED, None)
    if not isinstance(state, _Checked) or not _same_members(state.members, calendar.subcomponents):
        check_read_errors(calendar)
        check_zones(calendar)
        check_calendar(calendar, floating)
        return
    if floating_zone in state.zones:
        return
    source = calendar_source(calendar)
    for component in state.zone_dependent:
        check_component(component, source, floating)
    state.zones.add(floating_zone)
