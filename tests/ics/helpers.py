"""Small builders for the ``cerebri.ics`` tests: inline calendars and UTC instants."""

from __future__ import annotations

from cerebri.ics import BusyPeriod
from cerebri.temporal.instant import Instant

CRLF = "\r\n"


def utc(text: str) -> Instant:
    """``"2024-01-05 10:00"`` or ``"2024-01-05T10:00:00Z"`` as an Instant (always UTC)."""
    text = text.strip().replace(" ", "T")
    if not text.endswith("Z"):
        text += ":00Z" if text.count(":") == 1 else "Z"
    return Instant.parse(text)


def span(start: str, end: str) -> tuple[Instant, Instant]:
    return utc(start), utc(end)


def spans(periods: tuple[BusyPeriod, ...]) -> list[tuple[Instant, Instant]]:
    return [(period.start, period.end) for period in periods]


def calendar(*components: str, header: str = "") -> str:
    """A VCALENDAR around ``components`` (each a block of lines separated by newlines)."""
    lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//cerebri//tests//EN"]
    lines += [line for line in header.splitlines() if line.strip()]
    for component in components:
        lines += [line for line in component.splitlines() if line.strip()]
    lines.append("END:VCALENDAR")
    return CRLF.join(lines) + CRLF


def vevent(*properties: str, uid: str = "event-1") -> str:
    """A VEVENT with ``UID``, a fixed ``DTSTAMP`` and the given property lines."""
    return "\n".join(
        ["BEGIN:VEVENT", f"UID:{uid}", "DTSTAMP:20240101T000000Z", *properties, "END:VEVENT"]
    )
