"""Loading calendars named on the command line: .ics files and CalDAV collections.

This is the I/O edge of the calendar commands; everything after it is pure.

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
from typing import TYPE_CHECKING
from urllib.parse import unquote, urlsplit

from icalendar import Calendar, Component

from cerebri._files import read_bounded
from cerebri.errors import CerebriError, InvalidArgumentError
from cerebri.ics import parse_calendar
from cerebri.temporal import Instant

if TYPE_CHECKING:
    from cerebri.integrations.credentials import CalDAVLogins, Login

__all__ = ["MAX_CALENDAR_BYTES", "calendar_id_for", "load_sources", "source_ids"]

MAX_CALENDAR_BYTES = 256 * 1024 * 1024
"""Largest .ics file read, in bytes (``input.too_large`` beyond)."""

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
    caldav_username: str | None = None,
    caldav_password: str | None = None,
    caldav_logins: CalDAVLogins | None = None,
    ids: Sequence[str] | None = None,
    step: Callable[[str], None] | None = None,
    skip_invalid_events: bool = False,
    caldav_cache: bool = True,
) -> list[tuple[str, Component]]:
    """Parsed calendars paired with their calendar ids, in the order given (files first).

    ``ids`` gives one id per file, then per URL (default: :func:`source_ids` of these
    sources alone; a caller reading more sources together passes the ids of all of them).
    Every object of one CalDAV URL is paired with that URL's id: one id, one attendee.
    ``caldav_logins`` picks each URL's login (a credentials file, netrc, a default:
    :class:`~cerebri.integrations.credentials.CalDAVLogins`); without it every URL is read
    with ``caldav_username``/``caldav_password``.
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
        CalDAVError: a CalDAV server could not be read; ``caldav.unauthorized`` names the
            URL and where its login came from (never the password).
        CredentialsError: ``credentials.*``, a netrc file that cannot be used.
        CerebriError: ``input.unreadable`` / ``input.too_large`` for files;
            ``input.invalid_option`` for a malformed ``--caldav`` URL.
    """
    names = list(ids) if ids is not None else source_ids([*ics_paths, *caldav_urls])
    if len(names) != len(ics_paths) + len(caldav_urls):
        raise ValueError("load_sources(): ids must give one id per file and URL")
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
        fetched = _fetch(
            url,
            window,
            _login(url, caldav_logins, caldav_username, caldav_password),
            skip_invalid_events=skip_invalid_events,
            cache=caldav_cache,
        )
        # an empty collection is still a calendar (free all window long) with its id
        loaded.extend((name, calendar) for calendar in fetched or (_empty_calendar(),))
    return loaded


def _login(
    url: str, logins: CalDAVLogins | None, username: str | None, password: str | None
) -> Login:
    from cerebri.integrations.credentials import Login  # noqa: PLC0415 - network edge

    if logins is not None:
        return logins.login_for(url)
    return Login(username, password, "the login given")


def _fetch(
    url: str,
    window: tuple[Instant, Instant],
    login: Login,
    *,
    skip_invalid_events: bool,
    cache: bool,
) -> tuple[Component, ...]:
    from cerebri.integrations import CalDAVError, fetch_calendars  # noqa: PLC0415 - network edge

    try:
        return fetch_calendars(
            url,
            window[0],
            window[1],
            username=login.username,
            password=login.password,
            cache=cache,
            skip_invalid_events=skip_invalid_events,
        )
    except InvalidArgumentError as exc:  # caldav.invalid_argument: the option's value
        raise CerebriError(
            f"--caldav {url!r}: {exc.message}", code="input.invalid_option"
        ) from None
    except CalDAVError as exc:
        if exc.code != "caldav.unauthorized":
            raise
        raise CalDAVError(
            "caldav.unauthorized", f"{exc.message}; login: {login.shown()}", url=exc.url
        ) from None
    except CerebriError:
        raise  # CalendarError is a ValueError too, but keeps its own ics.* code
    except (ValueError, TypeError) as exc:  # a malformed URL or option, not I/O
        raise CerebriError(f"--caldav {url!r}: {exc}", code="input.invalid_option") from None


def _empty_calendar() -> Calendar:
    """A ``VCALENDAR`` with no components: a CalDAV collection that holds no events."""
    calendar = Calendar()
    calendar.add("prodid", "-//cerebri//empty collection//EN")
    calendar.add("version", "2.0")
    return calendar
