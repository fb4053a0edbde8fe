"""Where a component came from: its line, its raw text, its UID.

:func:`cerebri.ics.parse_calendar` scans the text before handing it to ``icalendar`` and
attaches a small :class:`SourceInfo` record to every component it produces (and the source
name to the calendar). The record keeps what ``icalendar`` forgets:

* line numbers, so errors can point at the offending line;
* the raw text of every ``DURATION`` value: ``icalendar`` turns ``PT24H`` into ``P1D``
  (both become ``timedelta(days=1)``), but RFC 5545 section 3.3.6 makes the first an exact
  24 hours and the second a nominal day.

Components built in code carry no record; every accessor then answers ``None``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final

from icalendar import Component

__all__ = [
    "DEFAULT_SOURCE",
    "SourceInfo",
    "attach_info",
    "attach_source",
    "calendar_source",
    "component_line",
    "component_uid",
    "property_line",
    "raw_durations",
]

DEFAULT_SOURCE: Final = "<memory>"
_INFO: Final = "_cerebri_ics_info"
_SOURCE: Final = "_cerebri_ics_source"


@dataclass(frozen=True, slots=True)
class SourceInfo:
    """What the scanner saw of one component.

    Attributes:
        name: the component name, upper case (``VEVENT``).
        line: 1-based line of its ``BEGIN``.
        uid: the text of its ``UID`` property, if it has one.
        property_lines: the line of the first occurrence of each property name.
        durations: the raw values of its ``DURATION`` properties, in order.
    """

    name: str
    line: int
    uid: str | None = None
    property_lines: Mapping[str, int] = field(default_factory=dict)
    durations: tuple[str, ...] = ()


def attach_info(component: Component, info: SourceInfo) -> None:
    """Remember ``info`` on ``component`` (a plain attribute; copies do not keep it)."""
    setattr(component, _INFO, info)


def attach_source(calendar: Component, source: str) -> None:
    """Remember the source name of a parsed calendar."""
    setattr(calendar, _SOURCE, source)


def _info(component: Component) -> SourceInfo | None:
    info = getattr(component, _INFO, None)
    return info if isinstance(info, SourceInfo) else None


def calendar_source(calendar: Component) -> str:
    """The name given when the calendar was parsed, else ``"<memory>"``."""
    source = getattr(calendar, _SOURCE, None)
    return source if isinstance(source, str) else DEFAULT_SOURCE


def component_line(component: Component) -> int | None:
    """Line of the component's ``BEGIN``, if known."""
    info = _info(component)
    return None if info is None else info.line


def property_line(component: Component, name: str) -> int | None:
    """Line of the component's first ``name`` property, else of its ``BEGIN``, if known."""
    info = _info(component)
    if info is None:
        return None
    return info.property_lines.get(name.upper(), info.line)


def raw_durations(component: Component) -> tuple[str, ...] | None:
    """The raw ``DURATION`` texts of the component, or ``None`` when it was not scanned."""
    info = _info(component)
    return None if info is None else info.durations


def component_uid(component: Component) -> str:
    """The component's ``UID`` text, or ``nouid-<hash>`` when it has none.

    RFC 5545 requires a UID on every ``VEVENT``, ``VFREEBUSY`` and ``VAVAILABILITY``; some
    producers omit it. The stand-in is the first 16 hex digits of the SHA-256 of the
    component's serialised text, so it does not depend on the component's place in the file
    and identical copies share it.
    """
    uid = component.get("UID")
    if uid is not None and not isinstance(uid, list):
        text = str(uid)
        if text:
            return text
    try:
        body = component.to_ical()
    except Exception:  # a broken value that cannot be written back; fall back to the name
        body = component.name.encode("utf-8") if component.name else b""
    return "nouid-" + hashlib.sha256(body).hexdigest()[:16]
