"""Read events and free/busy from a CalDAV server (RFC 4791) with the ``caldav`` library.

:func:`fetch_calendars` asks the server for the calendar objects with a ``VEVENT`` that
touches a window and returns them as they are stored: each object (one ``UID``: a series
master with its ``RRULE``/``EXDATE``, its ``RECURRENCE-ID`` overrides and the ``VTIMEZONE``
definitions they need) becomes one :class:`icalendar.Calendar`, read with
:func:`cerebri.ics.parse_calendar`. Nothing is expanded by the server or by the ``caldav``
library, so :func:`cerebri.ics.busy_periods` expands the result exactly as it expands an
``.ics`` file::

    calendars = fetch_calendars("https://dav.example.com/alice/work/", start, end,
                                username="alice", password=secret)
    busy = busy_periods(calendars, start, end, floating_zone="Europe/Berlin")

How the window is asked for:

* The server selects objects with a ``CALDAV:time-range`` filter on ``VEVENT``. RFC 4791
  section 9.9 makes that filter match a recurring component when *any* of its instances
  overlaps the range, so a series whose master starts long before the window is returned
  (the master is what carries the rule); the tests check this against Radicale.
* The range sent is the window widened by two days on each side. RFC 4791 section 9.9 lets
  the server read all-day dates and floating times in a zone of its choosing (usually UTC),
  while ``busy_periods`` reads them in its ``floating_zone``; UTC offsets span -12:00 to
  +14:00, so the two readings differ by at most 26 hours. Objects found only thanks to the
  margin are cut away by ``busy_periods``, which reports what overlaps the real window.
* The ``caldav`` library's own client-side filtering and expansion are switched off
  (``expand=False``, ``post_filter=False``): they would judge the range a second time on
  the client and rebuild each object's list of components from that judgement. Every
  object reaches ``busy_periods`` as the server stored it.

Results are in a fixed order: by calendar URL, then by object URL. Each calendar's source
name (:class:`cerebri.ics.BusyPeriod` ``source``) is the object's URL without credentials.

:func:`fetch_freebusy` sends a ``free-busy-query`` REPORT (RFC 4791 section 7.10) to one
calendar collection and returns the server's ``VFREEBUSY`` calendar; ``busy_periods`` reads
its ``FREEBUSY`` periods. There the *server* expands recurrences and applies ``TRANSP`` and
``STATUS``, with its own reading of floating times.

Failures raise :class:`CalDAVError` with one of :data:`CODES`; the message names the URL
(never the password). A calendar object the server returns that is not valid iCalendar
raises :class:`cerebri.ics.CalendarError` naming the object's URL. Malformed arguments (an
empty window, a URL that is not ``http``/``https``, a timeout that is not positive) raise
``ValueError``/``TypeError``.

``timeout_seconds`` is handed to the HTTP client as its network timeout (connect and each
read). It is the only wall-clock value here, used at the I/O edge alone. Nothing is retried
(the library's rate-limit sleeping is switched off; its authentication handshake, a second
request after a ``401`` challenge, is the only repeated request).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Final, Literal, NoReturn
from urllib.parse import unquote, urlsplit

from caldav.collection import Calendar as DAVCalendar
from caldav.collection import CalendarSet, Principal
from caldav.davclient import DAVClient
from caldav.lib import error as dav_error
from caldav.lib.http_sync import requests as http
from icalendar import Calendar

from cerebri.errors import CerebriError
from cerebri.ics.busy import check_query
from cerebri.ics.load import parse_calendar
from cerebri.temporal.calendar import NS_PER_DAY, NS_PER_SECOND
from cerebri.temporal.instant import Instant

__all__ = [
    "CODES",
    "QUERY_MARGIN_NS",
    "CalDAVError",
    "CalDAVErrorCode",
    "fetch_calendars",
    "fetch_freebusy",
]

CalDAVErrorCode = Literal[
    "caldav.unreachable",
    "caldav.unauthorized",
    "caldav.not_found",
    "caldav.protocol",
    "caldav.unsupported",
]

CODES: Final[tuple[CalDAVErrorCode, ...]] = (
    "caldav.unreachable",
    "caldav.unauthorized",
    "caldav.not_found",
    "caldav.protocol",
    "caldav.unsupported",
)

QUERY_MARGIN_NS: Final = 2 * NS_PER_DAY
"""How far :func:`fetch_calendars` widens the window on each side in its server query."""

_CALENDAR_TYPE: Final = "{urn:ietf:params:xml:ns:caldav}calendar"
_RESOURCE_TYPE: Final = "{DAV:}resourcetype"
_DISPLAY_NAME: Final = "{DAV:}displayname"
_SUPPORTED_REPORT: Final = "{DAV:}supported-report"
_UNSUPPORTED_STATUSES: Final = frozenset({405, 415, 501})
_ERRNO_RE: Final = re.compile(r"\[Errno -?\d+\][^'\"()\]]*")
_EPOCH: Final = datetime(1970, 1, 1, tzinfo=UTC)
_QUERY_FLOOR: Final = datetime(1, 1, 1, tzinfo=UTC)
_QUERY_CEILING: Final = datetime(9999, 12, 31, 23, 59, 59, tzinfo=UTC)


class CalDAVError(CerebriError):
    """Reading from a CalDAV server failed.

    Codes:

    ``caldav.unreachable``
        No answer: connection refused, a name that does not resolve, or the network
        timeout passed.
    ``caldav.unauthorized``
        The server refused the credentials or the access (HTTP 401 or 403).
    ``caldav.not_found``
        The URL does not exist (HTTP 404/410), is not a calendar where one is needed, or no
        calendar matches the ``calendar`` filter.
    ``caldav.protocol``
        Anything else the server or the ``caldav`` library reported: another HTTP error, a
        reply that is not WebDAV, a TLS failure, a malformed response.
    ``caldav.unsupported``
        The server does not offer the free-busy query (RFC 4791 section 7.10).

    Attributes:
        url: the URL concerned, without credentials.
    """

    code = "caldav.protocol"

    def __init__(self, code: CalDAVErrorCode, message: str, *, url: str) -> None:
        super().__init__(message, code=code)
        self.url = url


@dataclass(frozen=True, slots=True)
class _Target:
    """The URL as given (it may carry credentials), its shown form and what to redact."""

    url: str
    shown: str
    secrets: tuple[str, ...]

    def fail(self, code: CalDAVErrorCode, message: str) -> NoReturn:
        # Short secrets are not searched for: replacing every "x" in a message garbles it
        # and tells a reader which letters the password holds. Messages never quote the
        # password themselves; this only guards library text that echoes a URL.
        for secret in self.secrets:
            if len(secret) >= 6:
                message = message.replace(secret, "***")
        raise CalDAVError(code, message, url=self.shown)


def _target(url: str, password: str | None, timeout_seconds: float) -> _Target:
    if not isinstance(url, str):
        raise TypeError(f"url must be a str, not {type(url).__name__}")
    if isinstance(timeout_seconds, bool) or not isinstance(timeout_seconds, int | float):
        raise TypeError("timeout_seconds must be a number")
    if not (math.isfinite(timeout_seconds) and timeout_seconds > 0):
        raise ValueError("timeout_seconds must be a finite number above 0")
    parts = urlsplit(url)
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise ValueError("url must be an absolute http:// or https:// URL")
    secrets = [secret for secret in (password, parts.password) if secret]
    secrets += [unquote(secret) for secret in secrets]
    longest_first = sorted(set(secrets), key=lambda secret: (-len(secret), secret))
    return _Target(url, _shown(url), tuple(longest_first))


def _shown(url: object) -> str:
    """A URL from the library as text, without credentials."""
    parts = urlsplit(str(url))
    return parts._replace(netloc=parts.netloc.rpartition("@")[2]).geturl()


def _query_datetime(ns: int, *, ceiling: bool) -> datetime:
    """``ns`` as a whole-second UTC ``datetime``: floored, or raised to the next second.

    CalDAV time ranges carry whole seconds. Beyond what ``datetime`` holds the value is
    clamped to years 1 and 9999, which only makes the query ask for more.
    """
    seconds = -(-ns // NS_PER_SECOND) if ceiling else ns // NS_PER_SECOND
    try:
        value = _EPOCH + timedelta(seconds=seconds)
    except OverflowError:
        return _QUERY_CEILING if seconds > 0 else _QUERY_FLOOR
    return min(max(value, _QUERY_FLOOR), _QUERY_CEILING)


def _cause(exc: BaseException) -> str:
    """The operating system's reason inside an HTTP client error, e.g. ``[Errno 111] ...``.

    The client's own text names internal objects by memory address; this keeps the
    message the same from run to run.
    """
    text = str(exc)
    if "NameResolutionError" in text or "Failed to resolve" in text:
        return "the host name does not resolve"
    found = _ERRNO_RE.search(text)
    return found.group().strip() if found else type(exc).__name__


@contextmanager
def _translated(target: _Target, *, freebusy: bool = False) -> Iterator[None]:
    """Turn what the ``caldav`` library and its HTTP client raise into :class:`CalDAVError`."""
    try:
        yield
    except CerebriError:
        raise
    except dav_error.DAVError as exc:
        status = exc.status
        reason = f"HTTP {status}" if status is not None else " ".join(str(exc.reason).split())
        if freebusy and (_SUPPORTED_REPORT in exc.preconditions or status in _UNSUPPORTED_STATUSES):
            target.fail(
                "caldav.unsupported",
                f"{target.shown} does not support the CalDAV free-busy query ({reason})",
            )
        if isinstance(exc, dav_error.AuthorizationError) or status in (401, 403):
            target.fail("caldav.unauthorized", f"{target.shown} refused access ({reason})")
        if isinstance(exc, dav_error.NotFoundError) or status in (404, 410):
            target.fail("caldav.not_found", f"{target.shown} was not found ({reason})")
        target.fail(
            "caldav.protocol",
            f"{target.shown}: the CalDAV request failed ({type(exc).__name__}: {reason})",
        )
    except http.exceptions.SSLError as exc:
        target.fail("caldav.protocol", f"{target.shown}: TLS failed ({exc})")
    except http.exceptions.Timeout:
        target.fail("caldav.unreachable", f"{target.shown} did not answer within the timeout")
    except http.exceptions.ConnectionError as exc:
        target.fail("caldav.unreachable", f"{target.shown} could not be reached ({_cause(exc)})")
    except Exception as exc:  # the library's parsers raise many types; never leak them
        target.fail(
            "caldav.protocol", f"{target.shown}: unexpected reply ({type(exc).__name__}: {exc})"
        )


def _connect(
    target: _Target, username: str | None, password: str | None, timeout_seconds: float
) -> DAVClient:
    return DAVClient(
        url=target.url,
        username=username,
        password=password,
        # caldav annotates ``int``; the value goes to niquests, which takes float seconds.
        timeout=timeout_seconds,  # type: ignore[arg-type]
        enable_rfc6764=False,  # the URL is used as given: no DNS service discovery
        rate_limit_handle=False,  # HTTP 429/503 is reported, never slept on and retried
    )


@dataclass(frozen=True, slots=True)
class _Probe:
    """What a depth-0 ``PROPFIND`` said about the URL."""

    is_calendar: bool
    display_name: str | None


def _probe(client: DAVClient, target: _Target) -> _Probe:
    response = client.propfind(str(client.url), props=[_RESOURCE_TYPE, _DISPLAY_NAME], depth=0)
    if response.status in (404, 410):
        target.fail("caldav.not_found", f"{target.shown} was not found (HTTP {response.status})")
    if response.status >= 400:
        target.fail(
            "caldav.protocol", f"{target.shown} answered PROPFIND with HTTP {response.status}"
        )
    for result in response.results or ():
        properties = getattr(result, "properties", None)
        if isinstance(properties, dict):
            types = properties.get(_RESOURCE_TYPE) or []
            name = properties.get(_DISPLAY_NAME)
            return _Probe(
                _CALENDAR_TYPE in types if isinstance(types, list) else False,
                name if isinstance(name, str) else None,
            )
    target.fail("caldav.protocol", f"{target.shown} did not answer PROPFIND as a WebDAV server")


def _display_name(collection: DAVCalendar) -> str | None:
    name = collection.props.get(_DISPLAY_NAME)
    return name if isinstance(name, str) else None


def _last_segment(url: str) -> str:
    return unquote(urlsplit(url).path.rstrip("/").rpartition("/")[2])


def _matches(collection: DAVCalendar, wanted: str) -> bool:
    return wanted in (_display_name(collection), _last_segment(str(collection.url)))


def _collections(client: DAVClient, target: _Target, wanted: str | None) -> list[DAVCalendar]:
    """The calendars to read: the URL itself if it is a calendar; else the calendars of the
    principal or calendar home *at that URL* (never silently the logged-in user's own, which
    a shared server would return for someone else's principal URL); the server root means
    the logged-in user's calendars."""
    probe = _probe(client, target)
    if probe.is_calendar:
        props = {} if probe.display_name is None else {_DISPLAY_NAME: probe.display_name}
        found = [DAVCalendar(client=client, url=client.url, props=props)]
    elif urlsplit(str(client.url)).path.strip("/") == "":
        found = list(client.get_calendars())
    else:
        found = _calendars_at(client, target)
    if wanted is not None:
        found = [collection for collection in found if _matches(collection, wanted)]
        if not found:
            target.fail(
                "caldav.not_found",
                f"no calendar named {wanted!r} (display name or URL segment) at {target.shown}",
            )
    return sorted(found, key=lambda collection: _shown(collection.url))


def _calendars_at(client: DAVClient, target: _Target) -> list[DAVCalendar]:
    """Calendars of the principal at the URL (its calendar-home-set, RFC 4791 6.2.1), or,
    when the URL is no principal, the calendar collections directly below it."""
    listed: object
    try:
        listed = Principal(client=client, url=client.url).get_calendars()
    except dav_error.DAVError:
        listed = CalendarSet(client=client, url=client.url).calendars()
    # The synchronous client returns lists; the async variant shares these signatures.
    found = [c for c in listed if isinstance(c, DAVCalendar)] if isinstance(listed, list) else []
    if not found:
        target.fail("caldav.not_found", f"no calendar at or below {target.shown}")
    return found


def _objects(
    collection: DAVCalendar, target: _Target, start: datetime, end: datetime
) -> list[tuple[str, str, str]]:
    """``(calendar URL, object URL, iCalendar text)`` of the events that touch the range."""
    found: object = collection.search(
        event=True, start=start, end=end, expand=False, post_filter=False, split_expanded=False
    )
    if not isinstance(found, list):
        target.fail("caldav.protocol", "the caldav client answered asynchronously")
    calendar_url = _shown(collection.url)
    rows: list[tuple[str, str, str]] = []
    for item in found:
        text = item.data
        if not isinstance(text, str):
            target.fail("caldav.protocol", f"{_shown(item.url)}: the server sent no calendar data")
        rows.append((calendar_url, _shown(item.url), text))
    return rows


def fetch_calendars(
    url: str,
    window_start: Instant,
    window_end: Instant,
    *,
    username: str | None = None,
    password: str | None = None,
    calendar: str | None = None,
    timeout_seconds: float = 30.0,
) -> tuple[Calendar, ...]:
    """The stored calendar objects with a ``VEVENT`` touching ``[window_start, window_end)``.

    Args:
        url: a calendar collection URL (that calendar is read), or any other URL of the
            server, e.g. its root or a principal (the principal's calendars are read). It
            may carry ``user:password@``; explicit ``username``/``password`` win.
        window_start, window_end: the window (``window_start < window_end``).
        username, password: HTTP credentials (the library negotiates Basic or Digest).
        calendar: keep only calendars whose display name or last URL path segment equals
            this text; none matching is ``caldav.not_found``.
        timeout_seconds: the network timeout handed to the HTTP client.

    Returns:
        One :class:`icalendar.Calendar` per calendar object, read with
        :func:`cerebri.ics.parse_calendar` (source: the object's URL), sorted by calendar
        URL and then object URL. Objects touching only the two-day query margin are
        included; :func:`cerebri.ics.busy_periods` keeps what overlaps the window.

    Raises:
        CalDAVError: see :data:`CODES`.
        CalendarError: an object the server returned is not valid iCalendar.
        ValueError, TypeError: malformed arguments.
    """
    check_query(window_start, window_end, 0)
    target = _target(url, password, timeout_seconds)
    start = _query_datetime(window_start.ns - QUERY_MARGIN_NS, ceiling=False)
    end = _query_datetime(window_end.ns + QUERY_MARGIN_NS, ceiling=True)
    rows: list[tuple[str, str, str]] = []
    with _translated(target), _connect(target, username, password, timeout_seconds) as client:
        for collection in _collections(client, target, calendar):
            rows.extend(_objects(collection, target, start, end))
    rows.sort()
    return tuple(parse_calendar(text, source=source) for _, source, text in rows)


def fetch_freebusy(
    url: str,
    window_start: Instant,
    window_end: Instant,
    *,
    username: str | None = None,
    password: str | None = None,
    timeout_seconds: float = 30.0,
) -> Calendar:
    """The server's free/busy for ``[window_start, window_end)`` of one calendar collection.

    Sends the ``free-busy-query`` REPORT (RFC 4791 section 7.10) for the window (widened to
    whole seconds) and returns the reply, a ``VCALENDAR`` with one ``VFREEBUSY``, read with
    :func:`cerebri.ics.parse_calendar` (source: the calendar URL). The server decides what
    is busy: it expands recurrences, skips transparent events and may report cancelled ones
    as ``FBTYPE=FREE`` (which :func:`cerebri.ics.busy_periods` does not count as busy).

    Raises:
        CalDAVError: ``caldav.not_found`` when ``url`` is not a calendar collection;
            ``caldav.unsupported`` when the server does not offer the query; the other
            codes as for :func:`fetch_calendars`.
        CalendarError: the reply is not valid iCalendar.
        ValueError, TypeError: malformed arguments.
    """
    check_query(window_start, window_end, 0)
    target = _target(url, password, timeout_seconds)
    start = _query_datetime(window_start.ns, ceiling=False)
    end = _query_datetime(window_end.ns, ceiling=True)
    with _translated(target), _connect(target, username, password, timeout_seconds) as client:
        if not _probe(client, target).is_calendar:
            target.fail(
                "caldav.not_found",
                f"{target.shown} is not a calendar collection; "
                "free-busy queries are made on a calendar",
            )
        with _translated(target, freebusy=True):
            reply = DAVCalendar(client=client, url=client.url).freebusy_request(start, end)
            text = getattr(reply, "data", None)
    if not isinstance(text, str):
        target.fail("caldav.unsupported", f"{target.shown} sent no free/busy data")
    freebusy = parse_calendar(text, source=target.shown)
    if not freebusy.walk("VFREEBUSY"):
        target.fail("caldav.unsupported", f"{target.shown} sent no VFREEBUSY component")
    return freebusy
