"""Leap seconds in ``DATE-TIME`` values: read second 60 as second 59, and say so.

RFC 5545 section 3.3.12 allows ``60`` as the second of a time "to represent a positive
leap second", but Python's ``datetime`` (and so ``icalendar``) has no second 60 and
refuses the value. Before ``icalendar`` reads the text, :func:`replace_leap_seconds` turns
every ``HHMM60`` in the value of a date-time property (``DTSTART``, ``DTEND``, ``DUE``,
``RECURRENCE-ID``, ``EXDATE``, ``RDATE``, ``UNTIL`` inside ``RRULE``, ``DTSTAMP`` and the
other date-time properties) into ``HHMM59``: the instant one second before the leap
second ends, the closest time ``datetime`` can hold. Each replacement is reported by
:func:`report_leap_seconds` as an ``ics.leap_second`` warning with the line and the UID
of the component.

The replacement works on physical lines, so it keeps every line number; a date-time that
a line fold splits in two is left to ``icalendar`` (which refuses it, as before).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from icalendar import Component

from cerebri.ics.warnings import CalendarWarning, add_warning

__all__ = ["LeapSecond", "replace_leap_seconds", "report_leap_seconds"]

_PROPERTIES: Final = frozenset(
    {
        "ACKNOWLEDGED",
        "COMPLETED",
        "CREATED",
        "DTEND",
        "DTSTAMP",
        "DTSTART",
        "DUE",
        "EXDATE",
        "FREEBUSY",
        "LAST-MODIFIED",
        "RDATE",
        "RECURRENCE-ID",
        "RRULE",
        "TRIGGER",
    }
)
_NAME_RE: Final = re.compile(r"[A-Za-z0-9-]+")
_LEAP_RE: Final = re.compile(r"(?<![0-9])([0-9]{8}T[0-9]{4})60(?![0-9])")
_BREAK_RE: Final = re.compile(r"(\r\n|\n|\r)")


@dataclass(frozen=True, slots=True)
class LeapSecond:
    """One replaced leap second: its 1-based line, the property, and the lines where the
    enclosing components begin (innermost last)."""

    line: int
    name: str
    begins: tuple[int, ...]


def replace_leap_seconds(text: str) -> tuple[str, tuple[LeapSecond, ...]]:
    """``text`` with every ``HHMM60`` of a date-time property value made ``HHMM59``, and
    where that was done. Text without such a value comes back unchanged (the same object).
    """
    if "60" not in text:
        return text, ()
    pieces = _BREAK_RE.split(text)
    found: list[LeapSecond] = []
    begins: list[int] = []
    name = ""
    for index in range(0, len(pieces), 2):
        line = pieces[index]
        number = index // 2 + 1
        if line[:1] not in (" ", "\t"):
            match = _NAME_RE.match(line)
            name = match.group().upper() if match else ""
            if name in ("BEGIN", "END"):
                if name == "BEGIN":
                    begins.append(number)
                elif begins:
                    begins.pop()
                continue
        if name in _PROPERTIES and _LEAP_RE.search(line):
            pieces[index] = _LEAP_RE.sub(r"\g<1>59", line)
            found.append(LeapSecond(number, name, tuple(begins)))
    if not found:
        return text, ()
    return "".join(pieces), tuple(found)


def report_leap_seconds(
    calendar: Component,
    leaps: tuple[LeapSecond, ...],
    uids: Mapping[int, str | None],
    source: str,
) -> None:
    """Attach one ``ics.leap_second`` warning per replaced line to ``calendar``.

    ``uids`` maps the line of each component's ``BEGIN`` to its UID (``None`` without);
    the warning names the UID of the innermost enclosing component that has one.
    """
    for leap in leaps:
        uid = next((u for b in reversed(leap.begins) if (u := uids.get(b)) is not None), None)
        add_warning(
            calendar,
            CalendarWarning(
                "ics.leap_second",
                f"{leap.name} has a leap second (second 60, RFC 5545 section 3.3.12); "
                "it was read as second 59",
                uid=uid,
                line=leap.line,
                source=source,
            ),
        )
