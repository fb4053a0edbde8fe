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
are refused (``ics.syntax``): split the stream first. Lines that bend RFC 5545 in a way whose
meaning is clear are read with an ``ics.lenient`` warning (docs/decisions/0014):

* a line without ``:`` and without white space inside a component
  (``X-APPLE-RADIUS=49.9``, a lone ``X``, ``SUMMARY=testevent``) is ignored, unless it
  starts with the name of a property that decides time (:data:`MEANINGFUL`), which is
  refused; a line of words without ``:`` (prose, a lost continuation) is refused too;
* an ``X-`` property outside every component (after ``END:VCALENDAR``) is ignored;
* white space inside an ``RRULE`` value (``BYDAY=MO, TU``) is removed.

An ``RRULE`` value is also read in upper case, without a warning (not a leniency: rule part
names and their enumerated values are case-insensitive, RFC 5545 section 2, while
``icalendar`` refuses ``SKIP=omit``).

With ``skip_invalid_events=True`` a ``VEVENT`` that cannot be read is left out, listed as an
``ics.skipped_event`` warning and the calendar marked incomplete
(:func:`cerebri.ics.calendar_incomplete`); without it the error ends with
:data:`~cerebri.ics.errors.SKIP_HINT`.
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass, field
from typing import Final

from icalendar import Calendar, Component, GloballyUniqueTZIDGuessed

from cerebri.ics.errors import SKIP_HINT, CalendarError, require
from cerebri.ics.leap import replace_leap_seconds, report_leap_seconds
from cerebri.ics.lenient import relax_calendar
from cerebri.ics.source import (
    DEFAULT_SOURCE,
    SourceInfo,
    attach_info,
    attach_source,
    component_line,
    component_uid,
)
from cerebri.ics.validate import TIME_PROPERTIES, check_calendar, check_read_errors, mark_checked
from cerebri.ics.warnings import CalendarWarning, CalendarWarningCode, add_warning
from cerebri.ics.zones import bind_zones

__all__ = ["MAX_DEPTH", "MEANINGFUL", "parse_calendar"]

MAX_DEPTH: Final = 32
"""Deepest component nesting accepted (real calendars use at most 4 levels)."""

MEANINGFUL: Final = frozenset(
    {*TIME_PROPERTIES, "BEGIN", "END", "UID", "TRANSP", "STATUS", "EXRULE", "DUE", "TZID"}
    | {"TZOFFSETFROM", "TZOFFSETTO", "BUSYTYPE", "CALSCALE", "METHOD"}
)
"""Names a line without ``:`` may not start with: such a line is refused, not ignored, since
the producer said something about time that cannot be read."""

_NAME_RE: Final = re.compile(r"[A-Za-z0-9-]+")
_LINE_BREAK_RE: Final = re.compile(r"\r\n|\n|\r")
_SPACE_RE: Final = re.compile(r"\s+")


@dataclass
class _Open:
    name: str
    line: int
    uid: str | None = None
    property_lines: dict[str, int] = field(default_factory=dict)
    durations: list[str] = field(default_factory=list)
    doomed: tuple[str, int] | None = None  # (message, line) of what makes it unreadable


@dataclass(frozen=True)
class _Note:
    """A leniency or a skipped event seen by the scanner, before components exist."""

    code: CalendarWarningCode  # "ics.lenient" or "ics.skipped_event"
    message: str
    line: int
    entry: _Open | None  # the component it belongs to, if any


def _decode(data: str | bytes, source: str) -> str:
    if isinstance(data, str):
        return data.removeprefix("\ufeff")
    raw = data.removeprefix(b"\xef\xbb\xbf")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise CalendarError(
            "ics.syntax",
            f"the text is not valid UTF-8 (byte 0x{raw[exc.start]:02X}); iCalendar text is "
            "UTF-8 (RFC 5545 section 3.1.4): convert the file first, e.g. from Latin-1 with "
            "`iconv -f latin1 -t utf-8 FILE > FILE.utf8.ics`",
            line=line,
            source=source,
        ) from None


def _logical_lines(text: str) -> list[tuple[int, int, str]]:
    """Unfolded content lines with the physical lines where each starts and ends.

    A physical line starting with a space or tab continues the previous one, without that
    first character (RFC 5545 section 3.1). The pieces of a logical line are collected and
    joined once, so unfolding takes time linear in the text however many lines one
    property is folded over.
    """
    lines: list[tuple[int, int, str]] = []
    pieces: list[str] = []
    start = end = 0
    for number, physical in enumerate(_LINE_BREAK_RE.split(text), start=1):
        if physical[:1] in (" ", "\t") and pieces:
            pieces.append(physical[1:])
            end = number
            continue
        if pieces:
            lines.append((start, end, "".join(pieces)))
        pieces = [physical]
        start = end = number
    if pieces:
        lines.append((start, end, "".join(pieces)))
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
    def __init__(self, source: str, *, skip: bool = False) -> None:
        self.source = source
        self.skip = skip
        self.stack: list[_Open] = []
        self.seen: list[_Open] = []
        self.top_level: list[str] = []
        self.edits: dict[int, tuple[int, str]] = {}  # first line -> (last line, new text)
        self.notes: list[_Note] = []

    def error(self, message: str, line: int | None, uid: str | None = None) -> CalendarError:
        return CalendarError("ics.syntax", message, uid=uid, line=line, source=self.source)

    def innermost_uid(self) -> str | None:
        for entry in reversed(self.stack):
            if entry.uid is not None:
                return entry.uid
        return None

    def feed(self, number: int, last: int, content: str) -> None:
        match = _NAME_RE.match(content)
        if match is None or content[match.end() : match.end() + 1] not in (";", ":"):
            self.odd_line(number, last, content, match)
            return
        name = match.group().upper()
        if name == "BEGIN":
            self.begin(_value_of(content).strip().upper(), number)
        elif name == "END":
            self.end(_value_of(content).strip().upper(), number, last)
        elif not self.stack:
            if not name.startswith("X-"):
                raise self.error(f"property {name} outside any component", number)
            self.drop(number, last, f"{name} outside every component ignored", None)
        else:
            current = self.stack[-1]
            current.property_lines.setdefault(name, number)
            if name == "UID" and current.uid is None:
                current.uid = _value_of(content)
            elif name == "DURATION":
                current.durations.append(_value_of(content))
            elif name == "RRULE":
                self.rrule(number, last, content, current)

    def drop(self, number: int, last: int, message: str, entry: _Open | None) -> None:
        """Ignore logical line ``number..last`` (blanked before icalendar reads the text)."""
        self.edits[number] = (last, "")
        self.notes.append(_Note("ics.lenient", message, number, entry))

    def rrule(self, number: int, last: int, content: str, entry: _Open) -> None:
        value = _value_of(content)
        head = content[: len(content) - len(value)]
        spaced = _SPACE_RE.search(value) is not None
        if not spaced:
            if value != value.upper():  # case-insensitive (RFC 5545 section 2)
                self.edits[number] = (last, head + value.upper())
            return
        self.edits[number] = (last, head + _SPACE_RE.sub("", value).upper())
        self.notes.append(
            _Note(
                "ics.lenient",
                f"white space inside the RRULE value {value.strip()!r} removed "
                "(no RRULE part holds spaces)",
                number,
                entry,
            )
        )

    def odd_line(self, number: int, last: int, content: str, match: re.Match[str] | None) -> None:
        shown = content if len(content) <= 40 else content[:40] + "..."
        name = match.group().upper() if match is not None else ""
        bare = ":" not in content and not _SPACE_RE.search(content.strip())
        if self.stack and bare and name not in MEANINGFUL:
            self.drop(
                number,
                last,
                f"line {shown!r} has no ':' and so no value; ignored",
                self.stack[-1],
            )
            return
        message = f"line is not an iCalendar content line: {shown!r}"
        event = next((entry for entry in self.stack if entry.name == "VEVENT"), None)
        if event is None:
            raise self.error(message, number, self.innermost_uid())
        if not self.skip:
            raise self.error(message, number, self.innermost_uid()).with_hint(SKIP_HINT)
        if event.doomed is None:
            event.doomed = (message, number)

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

    def end(self, name: str, number: int, last: int) -> None:
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
        if current.doomed is not None:
            self.leave_out(current, last)

    def leave_out(self, entry: _Open, last: int) -> None:
        """Blank the lines of an unreadable event and forget it and its subcomponents."""
        message, line = entry.doomed or ("", entry.line)
        for number in range(entry.line, last + 1):
            self.edits[number] = (number, "")
        index = next(i for i, seen in enumerate(self.seen) if seen is entry)
        del self.seen[index:]
        if not self.stack:
            self.top_level.pop()
        self.notes = [note for note in self.notes if note.entry is None or note.line < entry.line]
        self.notes.append(_Note("ics.skipped_event", f"ics.syntax: {message}", line, entry))

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


def _scan(text: str, source: str, *, skip: bool = False) -> _Scanner:
    scanner = _Scanner(source, skip=skip)
    for number, last, content in _logical_lines(text):
        if content.strip():
            scanner.feed(number, last, content)
    scanner.finish()
    return scanner


def _edited(text: str, edits: dict[int, tuple[int, str]]) -> str:
    """``text`` with each edited logical line replaced (its continuation lines blanked);
    line numbers stay those of the original text."""
    if not edits:
        return text
    physical = _LINE_BREAK_RE.split(text)
    for first, (last, replacement) in edits.items():
        physical[first - 1] = replacement
        for number in range(first + 1, last + 1):
            physical[number - 1] = ""
    return "\r\n".join(physical)


def _attach_lines(calendar: Component, scanner: _Scanner, wrapped: bool) -> dict[int, Component]:
    """Attach source records; returns the component of each scanner entry, by ``id``."""
    components = calendar.walk()
    if wrapped:
        components = components[1:]
    if len(components) != len(scanner.seen):
        return {}  # cannot happen for well-nested input; lines are then simply unknown
    for component, entry in zip(components, scanner.seen, strict=True):
        if (component.name or "").upper() != entry.name:
            return {}
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
    return {id(entry): component for component, entry in zip(components, scanner.seen, strict=True)}


def parse_calendar(
    data: str | bytes, *, source: str = DEFAULT_SOURCE, skip_invalid_events: bool = False
) -> Calendar:
    """Parse one iCalendar object (RFC 5545) from text or UTF-8 bytes.

    ``source`` names the input in errors, warnings and :class:`~cerebri.ics.BusyPeriod`.
    Returns an ``icalendar.Calendar`` whose zoned values use the zones resolved by
    :mod:`cerebri.ics.zones`, with the warnings of what was read leniently attached
    (:func:`cerebri.ics.calendar_warnings`, code ``ics.lenient``).

    ``skip_invalid_events=True`` leaves out each ``VEVENT`` that cannot be read (a warning
    ``ics.skipped_event`` names its UID, line, error code and message, and
    :func:`cerebri.ics.calendar_incomplete` becomes true); errors that belong to no single
    event still refuse the whole text.

    Raises:
        CalendarError: code ``ics.syntax``, ``ics.invalid_rrule``, ``ics.unknown_timezone``,
            ``ics.invalid_range`` or ``ics.unsupported`` (see :mod:`cerebri.ics.errors`);
            an error inside one ``VEVENT`` ends with :data:`~cerebri.ics.errors.SKIP_HINT`.
        CalendarArgumentError: ``data`` is not ``str``/``bytes``, ``source`` not ``str`` or
            ``skip_invalid_events`` not ``bool`` (code ``ics.invalid_argument``).
    """
    require(data, (str, bytes), "parse_calendar", "data")
    require(source, str, "parse_calendar", "source")
    require(skip_invalid_events, bool, "parse_calendar", "skip_invalid_events")
    text, leaps = replace_leap_seconds(_decode(data, source))
    scanner = _scan(text, source, skip=skip_invalid_events)
    text = _edited(text, scanner.edits)
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
    found = _attach_lines(calendar, scanner, wrapped)
    report_leap_seconds(calendar, leaps, {e.line: e.uid for e in scanner.seen}, source)
    noticed = [_warning(note, found, source) for note in scanner.notes]
    noticed.extend(_check(calendar, source, skip=skip_invalid_events))
    kept = {id(component) for component in calendar.walk()}
    for owner, warning in noticed:
        if owner is None or id(owner) in kept:
            add_warning(calendar, warning, incomplete=warning.code == "ics.skipped_event")
    return calendar


_Owned = tuple[Component | None, CalendarWarning]


def _warning(note: _Note, found: dict[int, Component], source: str) -> _Owned:
    component = None if note.entry is None else found.get(id(note.entry))
    uid = note.entry.uid if note.entry is not None else None
    if component is not None and (component.name or "").upper() != "VCALENDAR":
        uid = component_uid(component)
    owner = None if note.code == "ics.skipped_event" else component
    return owner, CalendarWarning(note.code, note.message, uid=uid, line=note.line, source=source)


def _check(calendar: Calendar, source: str, *, skip: bool) -> list[_Owned]:
    """Check, bind zones and relax leniencies; leave out unreadable events when ``skip``.

    Each failed pass removes one ``VEVENT`` (or raises), so the loop ends.
    """
    noticed: list[_Owned] = []
    while True:
        relaxed: list[_Owned] = []
        try:
            check_read_errors(calendar)
            bind_zones(calendar)
            relax_calendar(calendar, relaxed)
            zone_dependent: list[Component] = []
            check_calendar(calendar, None, zone_dependent=zone_dependent)
        except CalendarError as error:
            noticed.extend(relaxed)
            noticed.append(_skip(calendar, error, source, skip=skip))
            continue
        noticed.extend(relaxed)
        mark_checked(calendar, zone_dependent)
        return noticed


def _event_of(calendar: Calendar, error: CalendarError) -> Component | None:
    """The ``VEVENT`` child of ``calendar`` that ``error`` (by UID and line) belongs to."""
    if error.uid is None:
        return None
    best: tuple[int, Component] | None = None
    for child in calendar.subcomponents:
        if (child.name or "").upper() != "VEVENT":
            continue
        for component in child.walk():
            line = component_line(component) or 0
            if error.line is not None and line > error.line:
                continue
            if component_uid(component) == error.uid and (best is None or line >= best[0]):
                best = (line, child)
    return None if best is None else best[1]


def _skip(calendar: Calendar, error: CalendarError, source: str, *, skip: bool) -> _Owned:
    """Leave out the event ``error`` belongs to, or raise (with the hint when it could be)."""
    event = _event_of(calendar, error)
    if event is None:
        raise error
    if not skip:
        raise error.with_hint(SKIP_HINT) from None
    index = next(i for i, child in enumerate(calendar.subcomponents) if child is event)
    del calendar.subcomponents[index]  # by identity: equal copies of the event stay
    warning = CalendarWarning(
        "ics.skipped_event",
        f"{error.code}: {error.detail}",
        uid=error.uid,
        line=error.line,
        source=source,
    )
    return None, warning
