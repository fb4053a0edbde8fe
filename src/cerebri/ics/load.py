"""Read iCalendar text into an ``icalendar.Calendar``, or refuse it with a typed error.

:func:`parse_calendar` works in three steps:

1. **Scan** the text itself (unfold lines per RFC 5545 section 3.1, check that every line is
   a content line and that ``BEGIN``/``END`` nest properly). This catches truncated files and
   garbage with the line number and the UID of the open component, which ``icalendar``'s
   own message ("Found no components where exactly one is required") cannot give.
2. **Parse** with ``icalendar`` (in ``icalendar``'s tolerant mode; unreadable property
   values are judged in step 3).
3. **Bind and check**: attach line numbers and raw ``DURATION`` texts to the components
   (:mod:`cerebri.ics.source`), re-read every ``TZID`` value with this calendar's zones
   (:mod:`cerebri.ics.zones`), and check the components cerebri reads
   (:mod:`cerebri.ics.validate`).

Leniency (documented): a leap second (second 60) is read as second 59 and reported
(:mod:`cerebri.ics.leap`); a UTF-8 byte-order mark is dropped; bare top-level components
without a ``VCALENDAR`` around them (the RFC 7953 examples are written that way) are wrapped
in a new ``VCALENDAR``; blank lines are ignored. Several ``VCALENDAR`` objects in one text
are refused (``ics.syntax``): split the stream first.
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass, field
from typing import Final

from icalendar import Calendar, Component, GloballyUniqueTZIDGuessed

from cerebri.ics.errors import CalendarError
from cerebri.ics.leap import replace_leap_seconds, report_leap_seconds
from cerebri.ics.source import DEFAULT_SOURCE, SourceInfo, attach_info, attach_source
from cerebri.ics.validate import check_calendar, check_read_errors, mark_checked
from cerebri.ics.zones import bind_zones

__all__ = ["MAX_DEPTH", "parse_calendar"]

MAX_DEPTH: Final = 32
"""Deepest component nesting accepted (real calendars use at most 4 levels)."""

_NAME_RE: Final = re.compile(r"[A-Za-z0-9-]+")
_LINE_BREAK_RE: Final = re.compile(r"\r\n|\n|\r")


@dataclass
class _Open:
    name: str
    line: int
    uid: str | None = None
    property_lines: dict[str, int] = field(default_factory=dict)
    durations: list[str] = field(default_factory=list)


def _decode(data: str | bytes, source: str) -> str:
    if isinstance(data, str):
        return data.removeprefix("\ufeff")
    raw = data.removeprefix(b"\xef\xbb\xbf")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise CalendarError(
            "ics.syntax", "the text is not valid UTF-8", line=line, source=source
        ) from None


def _logical_lines(text: str) -> list[tuple[int, str]]:
    """Unfolded content lines with the physical line number where each starts."""
    lines: list[tuple[int, str]] = []
    for number, physical in enumerate(_LINE_BREAK_RE.split(text), start=1):
        if physical[:1] in (" ", "\t") and lines:
            start, content = lines[-1]
            lines[-1] = (start, content + physical[1:])
        else:
            lines.append((number, physical))
    return lines


def _value_of(content: str) -> str:
    """The value after the first ``:`` that is not inside a quoted parameter value."""
    if '"' not in content:
        index = content.find(":")
        return content[index + 1 :] if index >= 0 else ""
    quoted = False
    for index, char in enumerate(content):
        if char == '"':
            quoted = not quoted
        elif char == ":" and not quoted:
            return content[index + 1 :]
    return ""


class _Scanner:
    def __init__(self, source: str) -> None:
        self.source = source
        self.stack: list[_Open] = []
        self.seen: list[_Open] = []
        self.top_level: list[str] = []

    def error(self, message: str, line: int | None, uid: str | None = None) -> CalendarError:
        return CalendarError("ics.syntax", message, uid=uid, line=line, source=self.source)

    def innermost_uid(self) -> str | None:
        for entry in reversed(self.stack):
            if entry.uid is not None:
                return entry.uid
        return None

    def feed(self, number: int, content: str) -> None:
        match = _NAME_RE.match(content)
        if match is None or content[match.end() : match.end() + 1] not in (";", ":"):
            shown = content if len(content) <= 40 else content[:40] + "..."
            raise self.error(
                f"line is not an iCalendar content line: {shown!r}", number, self.innermost_uid()
            )
        name = match.group().upper()
        if name == "BEGIN":
            self.begin(_value_of(content).strip().upper(), number)
        elif name == "END":
            self.end(_value_of(content).strip().upper(), number)
        elif not self.stack:
            raise self.error(f"property {name} outside any component", number)
        else:
            current = self.stack[-1]
            current.property_lines.setdefault(name, number)
            if name == "UID" and current.uid is None:
                current.uid = _value_of(content)
            elif name == "DURATION":
                current.durations.append(_value_of(content))

    def begin(self, name: str, number: int) -> None:
        if not _NAME_RE.fullmatch(name):
            raise self.error("BEGIN without a component name", number, self.innermost_uid())
        if len(self.stack) >= MAX_DEPTH:
            raise self.error(f"components nest deeper than {MAX_DEPTH} levels", number)
        entry = _Open(name, number)
        if not self.stack:
            self.top_level.append(name)
        self.stack.append(entry)
        self.seen.append(entry)

    def end(self, name: str, number: int) -> None:
        if not self.stack:
            raise self.error(f"END:{name} without a matching BEGIN", number)
        current = self.stack[-1]
        if current.name != name:
            raise self.error(
                f"END:{name} closes BEGIN:{current.name} from line {current.line}",
                number,
                self.innermost_uid(),
            )
        self.stack.pop()

    def finish(self) -> None:
        if self.stack:
            open_entry = self.stack[-1]
            raise self.error(
                f"the text ends inside BEGIN:{open_entry.name} (line {open_entry.line}); "
                "the file looks truncated",
                open_entry.line,
                self.innermost_uid(),
            )
        if not self.top_level:
            raise self.error("no calendar data (no BEGIN line)", None)
        calendars = self.top_level.count("VCALENDAR")
        if calendars > 1:
            raise self.error(f"{calendars} VCALENDAR objects in one text; split them", None)
        if calendars == 1 and len(self.top_level) > 1:
            raise self.error("components outside the VCALENDAR", None)


def _scan(text: str, source: str) -> _Scanner:
    scanner = _Scanner(source)
    for number, content in _logical_lines(text):
        if content.strip():
            scanner.feed(number, content)
    scanner.finish()
    return scanner


def _attach_lines(calendar: Component, scanner: _Scanner, wrapped: bool) -> None:
    components = calendar.walk()
    if wrapped:
        components = components[1:]
    if len(components) != len(scanner.seen):
        return  # cannot happen for well-nested input; lines are then simply unknown
    for component, entry in zip(components, scanner.seen, strict=True):
        if (component.name or "").upper() != entry.name:
            return
    for component, entry in zip(components, scanner.seen, strict=True):
        attach_info(
            component,
            SourceInfo(
                name=entry.name,
                line=entry.line,
                uid=entry.uid,
                property_lines=dict(entry.property_lines),
                durations=tuple(entry.durations),
            ),
        )


def parse_calendar(data: str | bytes, *, source: str = DEFAULT_SOURCE) -> Calendar:
    """Parse one iCalendar object (RFC 5545) from text or UTF-8 bytes.

    ``source`` names the input in errors and in :class:`~cerebri.ics.BusyPeriod`.
    Returns an ``icalendar.Calendar`` whose zoned values use the zones resolved by
    :mod:`cerebri.ics.zones`. Raises :class:`~cerebri.ics.CalendarError` with code
    ``ics.syntax``, ``ics.invalid_rrule``, ``ics.unknown_timezone`` or
    ``ics.invalid_range`` (see the module doc of :mod:`cerebri.ics.errors`).
    """
    text, leaps = replace_leap_seconds(_decode(data, source))
    scanner = _scan(text, source)
    try:
        with warnings.catch_warnings():
            # icalendar guesses an IANA zone for vendor TZIDs such as "/mozilla.org/…" and
            # warns; cerebri resolves TZIDs itself (cerebri.ics.zones), so the guess is moot.
            warnings.simplefilter("ignore", GloballyUniqueTZIDGuessed)
            parsed = Calendar.from_ical(text, multiple=True)
    except Exception as exc:  # icalendar raises ValueError and friends; never leak them
        raise CalendarError(
            "ics.syntax", f"icalendar could not parse the text: {exc}", source=source
        ) from None
    components: list[Component] = list(parsed)
    if len(components) == 1 and isinstance(components[0], Calendar):
        calendar = components[0]
        wrapped = False
    else:
        calendar = Calendar()
        for component in components:
            calendar.add_component(component)
        wrapped = True
    attach_source(calendar, source)
    _attach_lines(calendar, scanner, wrapped)
    report_leap_seconds(calendar, leaps, {e.line: e.uid for e in scanner.seen}, source)
    check_read_errors(calendar)
    bind_zones(calendar)
    zone_dependent: list[Component] = []
    check_calendar(calendar, None, zone_dependent=zone_dependent)
    mark_checked(calendar, zone_dependent)
    return calendar
