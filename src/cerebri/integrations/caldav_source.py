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

The error type is in :mod:`cerebri.integrations.errors`; URL and credential handling in
:mod:`cerebri.integrations._target`; the requests in :mod:`cerebri.integrations._dav`.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Final

from caldav.collection import Calendar as DAVCalendar
from icalendar import Calendar

from cerebri.ics.busy import check_query
from cerebri.ics.load import parse_calendar
from cerebri.integrations._dav import _collections, _connect, _objects, _probe
from cerebri.integrations._target import _target, _translated
from cerebri.integrations.errors import CODES, CalDAVError, CalDAVErrorCode
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

QUERY_MARGIN_NS: Final = 2 * NS_PER_DAY
"""How far :func:`fetch_calendars` widens the window on each side in its server query."""

_EPOCH: Final = datetime(1970, 1, 1, tzinfo=UTC)
_QUERY_FLOOR: Final = datetime(1, 1, 1, tzinfo=UTC)
_QUERY_CEILING: Final = datetime(9999, 12, 31, 23, 59, 59, tzinfo=UTC)


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
