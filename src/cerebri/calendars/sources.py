"""Loading calendars named on the command line: .ics files and CalDAV collections.

This is the I/O edge of the calendar commands; everything after it is pure.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import Path

from icalendar import Calendar, Component

from cerebri._files import read_bounded
from cerebri.errors import CerebriError, InvalidArgumentError
from cerebri.ics import parse_calendar
from cerebri.temporal import Instant

__all__ = ["MAX_CALENDAR_BYTES", "calendar_id_for", "load_sources"]

MAX_CALENDAR_BYTES = 256 * 1024 * 1024
"""Largest .ics file read, in bytes (``input.too_large`` beyond)."""

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def calendar_id_for(name: str, taken: set[str]) -> str:
    """A CPIR calendar id (1-128 of ``[A-Za-z0-9._-]``) from a file or URL name, unique
    among ``taken`` (a ``-2``, ``-3`` … suffix is added), and added to ``taken``."""
    base = _UNSAFE.sub("-", name).strip("-")[:100] or "calendar"
    candidate, counter = base, 1
    while candidate in taken:
        counter += 1
        candidate = f"{base}-{counter}"
    taken.add(candidate)
    return candidate


def _read(path: Path) -> bytes:
    return read_bounded(path, limit=MAX_CALENDAR_BYTES, what="calendar")


def load_sources(
    ics_paths: Sequence[Path],
    caldav_urls: Sequence[str],
    window: tuple[Instant, Instant],
    *,
    caldav_username: str | None = None,
    caldav_password: str | None = None,
    step: Callable[[str], None] | None = None,
    skip_invalid_events: bool = False,
    caldav_cache: bool = True,
) -> list[tuple[str, Component]]:
    """Parsed calendars paired with unique calendar ids, in the order given.

    ``step`` is called with a label before each source is read (for a progress display).
    ``skip_invalid_events`` is passed to :func:`cerebri.ics.parse_calendar` for .ics files
    and to :func:`cerebri.integrations.fetch_calendars` for CalDAV objects.
    ``caldav_cache`` is handed to :func:`cerebri.integrations.fetch_calendars` as ``cache``:
    ``True`` keeps CalDAV collections in the user's cache (``$CEREBRI_CACHE_DIR``) and
    downloads only what changed, ``False`` (``--no-cache``) downloads everything and
    writes nothing.

    Raises:
        CalendarError: a malformed .ics file, or a CalDAV object that is not valid
            iCalendar (its own ``ics.*`` code; ``source`` is the object's URL).
        CalDAVError: a CalDAV server could not be read.
        CerebriError: ``input.unreadable`` / ``input.too_large`` for files;
            ``input.invalid_option`` for a malformed ``--caldav`` URL.
    """
    taken: set[str] = set()
    loaded: list[tuple[str, Component]] = []
    for path in ics_paths:
        if step is not None:
            step(str(path))
        calendar = parse_calendar(
            _read(path), source=str(path), skip_invalid_events=skip_invalid_events
        )
        loaded.append((calendar_id_for(path.stem, taken), calendar))
    if caldav_urls:
        from cerebri.integrations import fetch_calendars  # noqa: PLC0415 - optional network edge

        for url in caldav_urls:
            if step is not None:
                step(url)
            # Every resource fetched from one URL belongs to the same calendar id.
            name = calendar_id_for(url.rstrip("/").rsplit("/", 1)[-1] or "caldav", taken)
            try:
                fetched = fetch_calendars(
                    url,
                    window[0],
                    window[1],
                    username=caldav_username,
                    password=caldav_password,
                    cache=caldav_cache,
                    skip_invalid_events=skip_invalid_events,
                )
            except InvalidArgumentError as exc:  # caldav.invalid_argument: the option's value
                raise CerebriError(
                    f"--caldav {url!r}: {exc.message}", code="input.invalid_option"
                ) from None
            except CerebriError:
                raise  # CalendarError is a ValueError too, but keeps its own ics.* code
            except (ValueError, TypeError) as exc:  # a malformed URL or option, not I/O
                raise CerebriError(
                    f"--caldav {url!r}: {exc}", code="input.invalid_option"
                ) from None
            # an empty collection is still a calendar (free all window long) with its id
            loaded.extend((name, calendar) for calendar in fetched or (_empty_calendar(),))
    return loaded


def _empty_calendar() -> Calendar:
    """A ``VCALENDAR`` with no components: a CalDAV collection that holds no events."""
    calendar = Calendar()
    calendar.add("prodid", "-//cerebri//empty collection//EN")
    calendar.add("version", "2.0")
    return calendar
