"""Loading calendars named on the command line: .ics files and CalDAV collections.

This is the I/O edge of the calendar commands; everything after it is pure. .ics files are
read here; a CalDAV collection is read by the :class:`CalDAVReader` the caller passes in
(the shells pass :func:`cerebri.integrations.caldav_reader.caldav_reader`, which picks each
URL's login and keeps the local cache): this package never imports the network stack.

Calendar ids (:func:`source_ids`, docs/decisions/0037): each source's id is the shortest
suffix of its path that no other source given together shares, its segments joined with
``.``. A file's path is its absolute path (the stem, then its folders); a URL's is its path
segments, then its host (with the port). One source, or sources whose last segments differ,
keep the plain last segment (``alice.ics`` is ``alice``, ``https://dav/alice/work/`` is
``work``); ``https://dav/alice/work/`` and ``https://dav/bob/work/`` together are
``alice.work`` and ``bob.work``, and ``a/work.ics`` with ``b/work.ics`` are ``a.work`` and
``b.work``. Characters outside ``[A-Za-z0-9._-]`` become ``-``; an id that still collides
(the same source twice) gets a ``-2``, ``-3`` … suffix in the order given.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Protocol
from urllib.parse import unquote, urlsplit

from icalendar import Calendar, Component

from cerebri._files import read_bounded
from cerebri.errors import InvalidArgumentError
from cerebri.ics import parse_calendar
from cerebri.temporal import Instant

__all__ = [
    "MAX_CALENDAR_BYTES",
    "MAX_WRITABLE_ICS_BYTES",
    "CalDAVReader",
    "calendar_id_for",
    "load_sources",
    "source_ids",
]


class CalDAVReader(Protocol):
    """Reads one CalDAV URL's calendar objects over ``window`` (UTC instants, start and end).

    Returns the parsed objects (an empty sequence for an empty collection). Raises the
    reader's typed errors (``caldav.*``, ``credentials.*``, ``ics.*`` for an object that is
    not valid iCalendar, ``input.invalid_option`` for a malformed URL); ``skip_invalid_events``
    leaves out unreadable events instead (:func:`cerebri.ics.parse_calendar`).
    """

    def __call__(
        self, url: str, window: tuple[Instant, Instant], *, skip_invalid_events: bool
    ) -> Sequence[Component]: ...


MAX_CALENDAR_BYTES = 256 * 1024 * 1024
"""Largest .ics file read, in bytes (``input.too_large`` beyond)."""

MAX_WRITABLE_ICS_BYTES = 16 * 1024 * 1024
"""Largest .ics file the execution adapter changes, in bytes (``IcsFileCalendar`` refuses a
larger one with ``calendar.unreadable`` before writing: each write parses and rewrites the
whole file). Planning a change in a larger file warns ``ics.too_large_to_write``
(decision 0066)."""

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def calendar_id_for(name: str, taken: set[str]) -> str:
    """A CPIR calendar id (1-128 of ``[A-Za-z0-9._-]``) from a file or URL name, unique
    among ``taken`` (a ``-2``, ``-3`` … suffix is added), and added to ``taken``."""
    base = _UNSAFE.sub("-", name).strip("-")[:_MAX_BASE] or "calendar"
    candidate, counter = base, 1
    while candidate in taken:
        counter += 1
        candidate = f"{base}-{counter}"
    taken.add(candidate)
    return candidate


_MAX_BASE = 100
"""Characters of an id before a ``-N`` suffix (CPIR ids hold at most 128)."""


def _segment(text: str) -> str:
    return _UNSAFE.sub("-", text).strip("-")


def _chain(source: Path | str) -> list[str]:
    """The id segments of a source, most specific first (module doc); empty ones left out."""
    if isinstance(source, Path):
        absolute = Path(os.path.abspath(source))
        names = [absolute.stem, *(folder.name for folder in absolute.parents)]
    else:
        try:
            parts = urlsplit(source.strip())
            host = parts.netloc.rpartition("@")[2].lower()
        except ValueError:  # a malformed URL: its text, the fetch reports the problem
            return [segment for segment in (_segment(source),) if segment]
        segments = [unquote(part) for part in parts.path.split("/") if part]
        names = [*reversed(segments), host]
    return [segment for segment in map(_segment, names) if segment]


def _joined(chain: Sequence[str], count: int) -> str:
    return ".".join(reversed(chain[:count]))[-_MAX_BASE:].strip(".-")


def source_ids(sources: Sequence[Path | str]) -> list[str]:
    """One calendar id per source, in the order given: a :class:`~pathlib.Path` is an .ics
    file, a ``str`` a CalDAV URL. Each id is the shortest path suffix no other source shares
    (module doc; docs/decisions/0037), 1-128 characters of ``[A-Za-z0-9._-]``, and all are
    distinct. Pure apart from reading the working folder for relative paths."""
    chains = [_chain(source) for source in sources]
    taken: set[str] = set()
    ids: list[str] = []
    for index, chain in enumerate(chains):
        others = [other for at, other in enumerate(chains) if at != index]
        chosen = _joined(chain, len(chain))
        for count in range(1, len(chain) + 1):
            candidate = _joined(chain, count)
            if all(_joined(other, count) != candidate for other in others):
                chosen = candidate
                break
        ids.append(calendar_id_for(chosen, taken))
    return ids


def _read(path: Path) -> bytes:
    return read_bounded(path, limit=MAX_CALENDAR_BYTES, what="calendar")


def load_sources(
    ics_paths: Sequence[Path],
    caldav_urls: Sequence[str],
    window: tuple[Instant, Instant],
    *,
    read_caldav: CalDAVReader | None = None,
    ids: Sequence[str] | None = None,
    step: Callable[[str], None] | None = None,
    skip_invalid_events: bool = False,
) -> list[tuple[str, Component]]:
    """Parsed calendars paired with their calendar ids, in the order given (files first).

    ``ids`` gives one id per file, then per URL (default: :func:`source_ids` of these
    sources alone; a caller reading more sources together passes the ids of all of them).
    Every object of one CalDAV URL, read with ``read_caldav`` (required when there are
    URLs), is paired with that URL's id: one id, one attendee; an empty collection is one
    empty calendar (free all window long).
    ``step`` is called with a label before each source is read (for a progress display).
    ``skip_invalid_events`` is passed to :func:`cerebri.ics.parse_calendar` for .ics files
    and to ``read_caldav`` for CalDAV objects.

    Raises:
        CalendarError: a malformed .ics file.
        CerebriError: ``input.unreadable`` / ``input.too_large`` for files; whatever
            ``read_caldav`` raises for a URL.
        InvalidArgumentError: ``calendars.invalid_argument`` for CalDAV URLs without a
            ``read_caldav``.
    """
    names = list(ids) if ids is not None else source_ids([*ics_paths, *caldav_urls])
    if len(names) != len(ics_paths) + len(caldav_urls):
        raise ValueError("load_sources(): ids must give one id per file and URL")
    if caldav_urls and read_caldav is None:
        raise InvalidArgumentError(
            "load_sources(): CalDAV URLs need a read_caldav reader",
            code="calendars.invalid_argument",
        )
    loaded: list[tuple[str, Component]] = []
    for path, name in zip(ics_paths, names, strict=False):
        if step is not None:
            step(str(path))
        calendar = parse_calendar(
            _read(path), source=str(path), skip_invalid_events=skip_invalid_events
        )
        loaded.append((name, calendar))
    for url, name in zip(caldav_urls, names[len(ics_paths) :], strict=True):
        if step is not None:
            step(url)
        assert read_caldav is not None
        fetched = read_caldav(url, window, skip_invalid_events=skip_invalid_events)
        # an empty collection is still a calendar (free all window long) with its id
        loaded.extend((name, calendar) for calendar in fetched or (_empty_calendar(),))
    return loaded


def _empty_calendar() -> Calendar:
    """A ``VCALENDAR`` with no components: a CalDAV collection that holds no events."""
    calendar = Calendar()
    calendar.add("prodid", "-//cerebri//empty collection//EN")
    calendar.add("version", "2.0")
    return calendar
