"""Time zones of iCalendar values: ``TZID`` resolution and floating times.

``TZID`` resolution (RFC 5545 sections 3.2.19 and 3.6.5), first match wins:

1. an exact IANA name known to the ``tzdata`` package (``Europe/Berlin``), also with
   surrounding ``/`` or blanks removed;
2. a ``VTIMEZONE`` with exactly this ``TZID`` in the same calendar, read by ``icalendar``
   (custom zones such as ``MyTimezone``, and Windows names such as
   ``New Zealand Standard Time`` that the file defines itself: RFC 5545 section 3.6.5 makes
   the file's ``VTIMEZONE`` the definition of its ``TZID``);
3. a Windows zone name (``W. Europe Standard Time``) that the file does not define, through
   the CLDR ``windowsZones`` table that ``icalendar`` ships
   (``icalendar.timezone.windows_to_olson``), then tzdata; also after a
   ``tzone://Microsoft/`` prefix (Exchange and Outlook.com feeds);
4. for a "globally unique" ``TZID`` (starting with ``/``, e.g.
   ``/freeassociation.sourceforge.net/Europe/Berlin``) its longest IANA suffix.

Anything else is :class:`~cerebri.ics.errors.CalendarError` ``ics.unknown_timezone``. An
IANA name uses tzdata even when the file embeds a ``VTIMEZONE`` of the same name: files
usually carry a truncated copy (``issue_113`` defines ``America/Vancouver`` for 2022-2024
only), and tzdata is complete and maintained. A Windows name is no IANA name, so the
file's own definition wins over the table (docs/decisions/0037); a ``VTIMEZONE`` that
cannot be read falls back to the table.

Why our own resolution: ``icalendar`` silently reads a value with an unknown ``TZID`` as a
floating time, and caches custom ``VTIMEZONE`` definitions process-wide by name, so a second
calendar reusing a ``TZID`` with different rules gets the first calendar's zone, and a
``VTIMEZONE`` placed after the events that use it is not applied. :func:`bind_zones` re-reads
every zoned value of a freshly parsed calendar with the resolver of *that* calendar.

Local times that do not exist or occur twice follow RFC 5545 section 3.3.5 (the offset
before the gap; the first of two occurrences), which is what ``fold=0`` means for
``zoneinfo`` and for ``dateutil``'s ``VTIMEZONE`` zones.

Floating times (no ``TZID``, no ``Z``) and all-day dates are bound to the zone the caller
declares (``floating_zone``, default ``"UTC"``). ``X-WR-TIMEZONE`` is not consulted.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, datetime, tzinfo
from typing import Any, Final

from icalendar import Component
from icalendar.prop import vBroken
from icalendar.timezone import tzp
from icalendar.timezone.windows_to_olson import WINDOWS_TO_OLSON

from cerebri.ics.errors import CalendarError
from cerebri.ics.source import calendar_source, component_uid, property_line
from cerebri.temporal.zones import known_zone_names, zone

__all__ = [
    "ZONED_PROPERTIES",
    "ZoneResolver",
    "bind_zones",
    "check_zones",
    "floating_tz",
    "property_values",
]

ZONED_PROPERTIES: Final = ("DTSTART", "DTEND", "DUE", "RECURRENCE-ID", "RDATE", "EXDATE")
"""Properties whose values may carry a ``TZID`` parameter."""

_NO_TZID_COMPONENTS: Final = frozenset({"VTIMEZONE", "STANDARD", "DAYLIGHT"})


def floating_tz(name: str) -> tzinfo:
    """The zone for floating times: an exact IANA name; ``ValueError`` otherwise."""
    return zone(name)


def _iana(name: str) -> tzinfo | None:
    return zone(name) if name in known_zone_names() else None


class ZoneResolver:
    """Resolves the ``TZID`` values of one calendar (see the module doc for the order)."""

    def __init__(self, calendar: Component) -> None:
        self._embedded: dict[str, Component] = {}
        for component in calendar.walk("VTIMEZONE"):
            tzid = component.get("TZID")
            if tzid is not None and not isinstance(tzid, list):
                self._embedded.setdefault(str(tzid), component)
        self._cache: dict[str, tzinfo | None] = {}

    def resolve(self, tzid: str) -> tzinfo | None:
        """The zone named by ``tzid`` in this calendar, or ``None`` if nothing matches."""
        if tzid not in self._cache:
            self._cache[tzid] = self._lookup(tzid)
        return self._cache[tzid]

    def _lookup(self, tzid: str) -> tzinfo | None:
        cleaned = tzid.strip().strip("/").strip()
        found = _iana(tzid) or _iana(cleaned)
        if found is not None:
            return found
        # The file's own definition before any table of known names (RFC 5545 3.6.5).
        embedded = self._embedded.get(tzid) or self._embedded.get(cleaned)
        if embedded is not None and (found := _build(embedded)) is not None:
            return found
        windows = WINDOWS_TO_OLSON.get(cleaned)
        if windows is not None and (found := _iana(windows)) is not None:
            return found
        if tzid.startswith("tzone://Microsoft/"):  # Exchange/Outlook.com feeds
            name = tzid.removeprefix("tzone://Microsoft/")
            if (found := _iana("UTC" if name == "Utc" else name)) is not None:
                return found
            windows = WINDOWS_TO_OLSON.get(name)
            if windows is not None and (found := _iana(windows)) is not None:
                return found
        if tzid.startswith("/"):
            parts = cleaned.split("/")
            for first in range(1, len(parts)):
                if (found := _iana("/".join(parts[first:]))) is not None:
                    return found
        return None


def _build(component: Component) -> tzinfo | None:
    """A zone built from an embedded ``VTIMEZONE``, never taken from icalendar's cache."""
    try:
        to_tz = getattr(component, "to_tz", None)  # only icalendar's Timezone class has it
        built: object = None if to_tz is None else to_tz(tzp, lookup_tzid=False)
    except Exception:  # a VTIMEZONE that dateutil cannot read counts as unknown
        return None
    return built if isinstance(built, tzinfo) else None


def property_values(component: Component, name: str) -> list[Any]:
    """Each readable value object of property ``name`` (repeated properties give several).

    Values ``icalendar`` could not read (``vBroken``) are left out; they are reported by
    :func:`cerebri.ics.validate.check_read_errors` before anything reads values.
    """
    if name not in component:  # cheaper than a failed look-up
        return []
    value = component[name]
    if value is None:
        return []
    if isinstance(value, list):
        return [item for item in value if not isinstance(item, vBroken)]
    return [] if isinstance(value, vBroken) else [value]


def _leaves(value: Any) -> Iterator[Any]:
    """The objects that carry a ``.dt`` (a date list has one per listed date)."""
    dts = getattr(value, "dts", None)
    if isinstance(dts, list):
        yield from dts
    elif hasattr(value, "dt"):
        yield value


def _rezone(value: object, tz: tzinfo) -> object:
    """Same wall time, zone ``tz``; dates and durations unchanged; periods part-wise."""
    if isinstance(value, datetime):
        return value.replace(tzinfo=tz)
    if isinstance(value, tuple):
        return tuple(_rezone(part, tz) for part in value)
    return value


def _tzid_of(value: Any) -> str | None:
    params = getattr(value, "params", None)
    tzid = params.get("TZID") if params is not None else None
    return str(tzid) if tzid is not None else None


def _zoned_values(calendar: Component) -> Iterator[tuple[Component, str, Any, str]]:
    for component in calendar.walk():
        if component.name in _NO_TZID_COMPONENTS:
            continue
        for name in ZONED_PROPERTIES:
            for value in property_values(component, name):
                tzid = _tzid_of(value)
                # values icalendar could not read are left to the syntax check
                if tzid is not None and any(_is_time(leaf.dt) for leaf in _leaves(value)):
                    yield component, name, value, tzid


def _unknown(component: Component, name: str, tzid: str, source: str) -> CalendarError:
    return CalendarError(
        "ics.unknown_timezone",
        f"{name} uses TZID {tzid!r}, which is neither an IANA zone, a Windows zone name, "
        "nor defined by a readable VTIMEZONE in this calendar",
        uid=component_uid(component),
        line=property_line(component, name),
        source=source,
    )


def bind_zones(calendar: Component) -> None:
    """Re-read every ``TZID`` value of ``calendar`` in the zone this calendar defines.

    Mutates the value objects in place (meant for calendars just parsed by cerebri).
    Raises ``CalendarError`` ``ics.unknown_timezone`` for a ``TZID`` nothing resolves.
    """
    resolver = ZoneResolver(calendar)
    source = calendar_source(calendar)
    for component, name, value, tzid in _zoned_values(calendar):
        tz = resolver.resolve(tzid)
        if tz is None:
            raise _unknown(component, name, tzid, source)
        for leaf in _leaves(value):
            leaf.dt = _rezone(leaf.dt, tz)


def check_zones(calendar: Component) -> None:
    """Refuse values that carry a ``TZID`` but no zone (icalendar's silent fallback).

    For calendars built in code, which cerebri does not mutate.
    """
    source = calendar_source(calendar)
    for component, name, value, tzid in _zoned_values(calendar):
        for leaf in _leaves(value):
            if _is_naive(leaf.dt):
                raise _unknown(component, name, tzid, source)


def _is_time(value: object) -> bool:
    return isinstance(value, date) or (isinstance(value, tuple) and bool(value))


def _is_naive(value: object) -> bool:
    if isinstance(value, datetime):
        return value.tzinfo is None
    if isinstance(value, tuple):
        return any(_is_naive(part) for part in value)
    return False
