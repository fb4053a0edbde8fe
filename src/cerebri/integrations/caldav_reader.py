"""The CalDAV reader the shells hand to :func:`cerebri.calendars.sources.load_sources`.

:func:`caldav_reader` reads one URL with :func:`~cerebri.integrations.fetch_calendars`, with
the login :class:`~cerebri.integrations.credentials.CalDAVLogins` picks for it (a
credentials file, the URL's own login, netrc, the default login; docs/decisions/0037) or
else one given login, and the local cache unless told not to. :func:`load_sources` is
:func:`cerebri.calendars.sources.load_sources` with that reader, for .ics files and CalDAV
URLs together.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from icalendar import Component

from cerebri.calendars.sources import CalDAVReader
from cerebri.calendars.sources import load_sources as load_calendar_sources
from cerebri.errors import CerebriError, InvalidArgumentError
from cerebri.integrations.caldav_source import CalDAVError, fetch_calendars
from cerebri.integrations.credentials import CalDAVLogins, Login
from cerebri.temporal import Instant

__all__ = ["caldav_reader", "load_sources"]


def caldav_reader(
    *,
    logins: CalDAVLogins | None = None,
    username: str | None = None,
    password: str | None = None,
    cache: bool = True,
) -> CalDAVReader:
    """A :class:`~cerebri.calendars.sources.CalDAVReader`: each URL read with the login
    ``logins`` picks for it, or without ``logins`` with ``username``/``password``.
    ``cache`` is :func:`~cerebri.integrations.fetch_calendars`' ``cache``: ``True`` keeps
    collections in the user's cache (``$CEREBRI_CACHE_DIR``) and downloads only what
    changed, ``False`` (``--no-cache``) downloads everything and writes nothing.

    The reader raises :class:`CalDAVError` (``caldav.unauthorized`` names the URL and where
    its login came from, never the password), ``credentials.*``, the ``ics.*`` code of an
    object that is not valid iCalendar, and ``input.invalid_option`` for a malformed URL.
    """

    def read(
        url: str, window: tuple[Instant, Instant], *, skip_invalid_events: bool
    ) -> tuple[Component, ...]:
        login = (
            logins.login_for(url)
            if logins is not None
            else Login(username, password, "the login given")
        )
        return _fetch(url, window, login, skip_invalid_events=skip_invalid_events, cache=cache)

    return read


def _fetch(
    url: str,
    window: tuple[Instant, Instant],
    login: Login,
    *,
    skip_invalid_events: bool,
    cache: bool,
) -> tuple[Component, ...]:
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
    """:func:`cerebri.calendars.sources.load_sources` with CalDAV URLs read by
    :func:`caldav_reader` (``caldav_logins``, else ``caldav_username``/``caldav_password``;
    ``caldav_cache``). Errors: those of both."""
    reader = caldav_reader(
        logins=caldav_logins, username=caldav_username, password=caldav_password, cache=caldav_cache
    )
    return load_calendar_sources(
        ics_paths,
        caldav_urls,
        window,
        read_caldav=reader,
        ids=ids,
        step=step,
        skip_invalid_events=skip_invalid_events,
    )
