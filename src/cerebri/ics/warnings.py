"""What cerebri noticed while reading a calendar it still read: :class:`CalendarWarning`.

A calendar that bends RFC 5545 in a way whose meaning is clear is read, not refused; each
such reading leaves a warning with a stable code, the component's UID and the line, so a
person can see what was assumed. Warnings are attached to the parsed calendar (the object
:func:`cerebri.ics.parse_calendar` returns) and read back with :func:`calendar_warnings`::

    calendar = parse_calendar(text, source="work.ics")
    for warning in calendar_warnings(calendar):
        print(warning.code, warning.source, warning.line, warning.uid, warning.message)

Codes are listed in :data:`WARNING_CODES`; the message is for people and may change.
:func:`calendar_incomplete` says whether events were left out (``--skip-invalid-events``),
in which case no answer built on the calendar may claim to be complete or optimal.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final, Literal

from icalendar import Component

from cerebri.ics.errors import require

__all__ = [
    "WARNING_CODES",
    "CalendarWarning",
    "CalendarWarningCode",
    "add_warning",
    "calendar_incomplete",
    "calendar_warnings",
    "warnings_of",
]

CalendarWarningCode = Literal[
    "ics.lenient",
    "ics.skipped_event",
    "ics.unmatched_exdate",
    "ics.unmatched_recurrence_id",
    "ics.duplicate_uid",
    "ics.leap_second",
    "ics.too_large_to_write",
]

WARNING_CODES: Final[tuple[CalendarWarningCode, ...]] = (
    "ics.lenient",
    "ics.skipped_event",
    "ics.unmatched_exdate",
    "ics.unmatched_recurrence_id",
    "ics.duplicate_uid",
    "ics.leap_second",
    "ics.too_large_to_write",
)
"""Every warning code:

``ics.lenient``
    A value that breaks RFC 5545 was read as its producer clearly meant (the message says
    what was assumed; each leniency is listed in docs/decisions/0014).
``ics.skipped_event``
    A component that cannot be read at all was left out (only when the caller asked to skip
    invalid events); the calendar is then incomplete.
``ics.unmatched_exdate``
    An ``EXDATE`` value that is no instance of its series; it removes nothing.
``ics.unmatched_recurrence_id``
    An override whose ``RECURRENCE-ID`` is no instance of its series; it stands as busy time
    of its own.
``ics.duplicate_uid``
    Several components share a UID without ``RECURRENCE-ID`` and with the same (or no)
    ``SEQUENCE``; every one of them is kept as busy time (a higher ``SEQUENCE`` is an
    update and replaces the lower ones, RFC 5546; that is not reported).
``ics.leap_second``
    A time with second 60 (RFC 5545 section 3.3.12 allows it) was read as second 59.
``ics.too_large_to_write``
    A change is planned in an .ics file larger than the execution adapter writes
    (``cerebri.calendars.sources.MAX_WRITABLE_ICS_BYTES``, 16 MiB, below the 256 MiB a plan
    reads): a worker would refuse it (``calendar.unreadable``); decision 0066.
"""

_WARNINGS: Final = "_cerebri_ics_warnings"
_INCOMPLETE: Final = "_cerebri_ics_incomplete"


@dataclass(frozen=True, slots=True)
class CalendarWarning:
    """One thing noticed while reading a calendar.

    Attributes:
        code: one of :data:`WARNING_CODES`.
        message: what was noticed and what cerebri did about it.
        uid: the component's UID (or synthetic ``nouid-…`` id), if the warning concerns one.
        line: 1-based line in the source text, if known.
        source: the calendar's source name (file path or CalDAV object URL).
    """

    code: CalendarWarningCode
    message: str
    uid: str | None = None
    line: int | None = None
    source: str | None = None

    def sort_key(self) -> tuple[str, int, str, str, str]:
        """``(source, line, uid, code, message)``; unknown parts sort first."""
        return (self.source or "", self.line or 0, self.uid or "", self.code, self.message)

    def to_wire(self) -> dict[str, str | int | None]:
        """``{"code", "message", "uid", "line", "source"}`` (JSON-ready)."""
        return {
            "code": self.code,
            "message": self.message,
            "uid": self.uid,
            "line": self.line,
            "source": self.source,
        }


def add_warning(calendar: Component, warning: CalendarWarning, *, incomplete: bool = False) -> None:
    """Attach ``warning`` to ``calendar`` (a plain attribute; copies do not keep it).

    ``incomplete=True`` also marks the calendar as missing some of its events.
    Raises ``CalendarArgumentError`` (a ``TypeError``) for arguments of the wrong type.
    """
    require(calendar, Component, "add_warning", "calendar")
    require(warning, CalendarWarning, "add_warning", "warning")
    found: set[CalendarWarning] = getattr(calendar, _WARNINGS, None) or set()
    found.add(warning)
    setattr(calendar, _WARNINGS, found)
    if incomplete:
        setattr(calendar, _INCOMPLETE, True)


def calendar_warnings(calendar: Component) -> tuple[CalendarWarning, ...]:
    """The warnings attached to ``calendar``, sorted by :meth:`CalendarWarning.sort_key`.

    Raises ``CalendarArgumentError`` (a ``TypeError``) when ``calendar`` is no component.
    """
    require(calendar, Component, "calendar_warnings", "calendar")
    found: set[CalendarWarning] = getattr(calendar, _WARNINGS, None) or set()
    return tuple(sorted(found, key=CalendarWarning.sort_key))


def warnings_of(calendars: Iterable[Component]) -> tuple[CalendarWarning, ...]:
    """The warnings of several calendars, merged, without repeats, sorted.

    Raises ``CalendarArgumentError`` (a ``TypeError``) unless ``calendars`` is an iterable
    of components.
    """
    if not isinstance(calendars, Iterable) or isinstance(calendars, (str, bytes, dict)):
        require(calendars, Component, "warnings_of", "calendars")  # raises
    merged: set[CalendarWarning] = set()
    for calendar in calendars:
        require(calendar, Component, "warnings_of", "calendars")
        merged.update(calendar_warnings(calendar))
    return tuple(sorted(merged, key=CalendarWarning.sort_key))


def calendar_incomplete(calendar: Component) -> bool:
    """Whether events of ``calendar`` were left out while reading it.

    Raises ``CalendarArgumentError`` (a ``TypeError``) when ``calendar`` is no component.
    """
    require(calendar, Component, "calendar_incomplete", "calendar")
    return getattr(calendar, _INCOMPLETE, False) is True
