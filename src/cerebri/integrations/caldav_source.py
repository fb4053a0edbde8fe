"""Read events and free/busy from a CalDAV server (RFC 4791) with the ``caldav`` library.

:func:`fetch_calendars` returns every calendar object with a ``VEVENT`` in the calendar
collections at a URL, as the server stores them: each object (one ``UID``: a series master
with its ``RRULE``/``RDATE``/``EXDATE``, its ``RECURRENCE-ID`` overrides and the
``VTIMEZONE`` definitions they need) becomes one :class:`icalendar.Calendar`, read with
:func:`cerebri.ics.parse_calendar`. Nothing is expanded or filtered by the server or
rewritten by the ``caldav`` library (the ``calendar-data`` text is parsed as the server sent
it, never after the library's ``vcal.fix()``), so :func:`cerebri.ics.busy_periods` expands
the result exactly as it expands an ``.ics`` file and keeps what overlaps the window::

    calendars = fetch_calendars("https://dav.example.com/alice/work/", start, end,
                                username="alice", password=secret)
    busy = busy_periods(calendars, start, end, floating_zone="Europe/Berlin")

Why the whole collection and no ``CALDAV:time-range`` query: servers get recurrence wrong in
their time-range filtering (RFC 4791 section 9.9). Xandikos 0.4 and Radicale 3 miss
``RECURRENCE-ID;RANGE=THISANDFUTURE`` overrides that move later instances by days, Xandikos
misses ``RDATE``-only events and, once it switches to its index after a few queries, an
override moved into the window from a series that ended long ago. A range query cannot be
made safe by widening it, so none is sent (decision record 0015).

Reading a whole collection every time would be slow, so each collection is kept in a local
:class:`~cerebri.integrations.cache.CalendarCache` and refreshed with what changed: the WebDAV
``sync-collection`` REPORT (RFC 6578) with the stored sync token where the server offers it,
else a comparison of ``ETag`` values from a depth-1 ``PROPFIND``; only changed or new objects
are downloaded, with ``calendar-multiget`` (see :mod:`cerebri.integrations._sync`). The
first read downloads the calendar once. ``cache=False`` reads everything and writes nothing.
:func:`fetch_calendars_with_report` also says what was downloaded
(:class:`~cerebri.integrations.report.CollectionFetch`).

Results are in a fixed order: by calendar URL, then by object URL. Each calendar's source
name (:class:`cerebri.ics.BusyPeriod` ``source``) is the object's URL without credentials.

:func:`fetch_freebusy` sends a ``free-busy-query`` REPORT (RFC 4791 section 7.10) to one
calendar collection and returns the server's ``VFREEBUSY`` calendar; ``busy_periods`` reads
its ``FREEBUSY`` periods. There the *server* expands recurrences and applies ``TRANSP`` and
``STATUS``, with its own reading of floating times (and the server bugs above).

Failures raise :class:`CalDAVError` with one of :data:`CODES`; the message names the URL
(never the password). A calendar object that is not valid iCalendar raises
:class:`cerebri.ics.CalendarError` with its ``ics.*`` code, ``uid``, ``line`` and ``source``
(the object's URL without credentials); one the server sends without calendar data (a
0-byte resource) raises ``caldav.protocol`` naming the object's URL. With
``skip_invalid_events`` both are left out with an ``ics.skipped_event`` warning and the
answer is incomplete. Malformed arguments (a URL that is not ``http``/``https``, a timeout
that is not positive, a password that is not text, a wrong-typed ``cache``) raise
:class:`~cerebri.errors.InvalidArgumentError` with code ``caldav.invalid_argument`` (a
``TypeError`` and a ``ValueError``) before any connection; a wrong-typed or empty window is
``ics.invalid_argument`` (:class:`~cerebri.ics.CalendarError`).

``timeout_seconds`` (seconds) bounds each HTTP request as a whole: connecting, sending,
and receiving the reply to its last byte (with the authentication handshake) must finish
within it, else the read fails with ``caldav.unreachable`` "did not finish within ...".
It is also the HTTP client's connect and per-read timeout. A read makes a few requests (the
probe, discovery, the change listing, one ``calendar-multiget`` per 100 changed objects),
each with the full limit (:mod:`cerebri.integrations._deadline`). It is the only wall-clock
value here, used at the I/O edge alone. Nothing is retried (the library's rate-limit
sleeping is switched off; its authentication handshake, a second request after a ``401``
challenge, is the only repeated request).

The error type is in :mod:`cerebri.integrations.errors`; URL and credential handling in
:mod:`cerebri.integrations._target`; discovery in :mod:`cerebri.integrations._dav`.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Final
from urllib.parse import unquote, urlsplit

from caldav.collection import Calendar as DAVCalendar
from icalendar import Calendar

from cerebri._guard import Kind, arguments
from cerebri.ics.busy import check_query
from cerebri.ics.load import parse_calendar
from cerebri.ics.source import attach_source
from cerebri.ics.warnings import CalendarWarning, add_warning, calendar_incomplete
from cerebri.integrations._dav import _collections, _connect, _probe
from cerebri.integrations._sync import refresh
from cerebri.integrations._target import _shown, _Target, _target, _translated
from cerebri.integrations.arguments import invalid_argument
from cerebri.integrations.cache import CachedCalendar, CalendarCache
from cerebri.integrations.errors import CODES, CalDAVError, CalDAVErrorCode
from cerebri.integrations.report import CollectionFetch, FetchResult
from cerebri.temporal.calendar import NS_PER_SECOND
from cerebri.temporal.instant import Instant

__all__ = [
    "CODES",
    "CalDAVError",
    "CalDAVErrorCode",
    "fetch_calendars",
    "fetch_calendars_with_report",
    "fetch_freebusy",
]

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


def _user(url: str, username: str | None) -> str | None:
    """The user name the server sees: explicit, else the one in the URL."""
    if username is not None:
        return username
    found = urlsplit(url).username
    return unquote(found) if found else None


def _read_collection(
    collection: DAVCalendar,
    target: _Target,
    cache: CalendarCache | None,
    user: str | None,
    use_sync: bool,
) -> tuple[list[tuple[str, str]], CollectionFetch]:
    """``(object URL, iCalendar text)`` of every member, and what reading it did."""
    calendar_url = _shown(collection.url)
    base = CachedCalendar(state="off") if cache is None else cache.load(calendar_url, user)
    done = refresh(collection, target, base, use_sync=use_sync)
    stored = False
    if cache is not None and base.state != "unavailable":
        stored = cache.save(
            calendar_url,
            user,
            base,
            changed=done.changed,
            removed=done.removed,
            sync_token=done.sync_token,
        )
    report = CollectionFetch(
        calendar_url=calendar_url,
        method=done.method,
        full=done.full,
        fetched=tuple(done.fetched),
        removed=tuple(done.removed_urls),
        cache=base.state,
        stored=stored,
    )
    return [(item.url, item.data) for item in done.objects.values()], report


def _chosen_cache(cache: CalendarCache | bool) -> CalendarCache | None:
    if isinstance(cache, CalendarCache):
        return cache
    return CalendarCache.user() if cache else None


def _has_event(calendar: Calendar) -> bool:
    return bool(calendar.walk("VEVENT"))


def _parsed(source: str, text: str, skip_invalid_events: bool) -> Calendar:
    """One object's text read with :func:`cerebri.ics.parse_calendar`.

    An object the server sent without calendar data (empty text: a 0-byte resource, or a
    ``calendar-multiget`` answer with no ``calendar-data``) holds time nobody can read:
    with ``skip_invalid_events`` it becomes an empty calendar carrying an
    ``ics.skipped_event`` warning (UID unknown, ``source`` the object's URL) and marked
    incomplete; without, it raises ``caldav.protocol`` naming the object's URL.
    """
    if text.strip():
        return parse_calendar(text, source=source, skip_invalid_events=skip_invalid_events)
    if not skip_invalid_events:
        raise CalDAVError(
            "caldav.protocol",
            f"{source}: the server sent no calendar data for this object; "
            "--skip-invalid-events (skip_invalid_events=True) leaves it out",
            url=source,
        )
    empty = Calendar()
    attach_source(empty, source)
    add_warning(
        empty,
        CalendarWarning(
            "ics.skipped_event",
            "the server sent no calendar data for this object; it was left out",
            source=source,
        ),
        incomplete=True,
    )
    return empty


_FETCH_KINDS: Final[dict[str, Kind]] = {
    "username": (str, type(None)),
    "password": (str, type(None)),
    "calendar": (str, type(None)),
    "cache": (CalendarCache, bool),
    "sync_collection": bool,
    "skip_invalid_events": bool,
}
"""The argument types both fetch functions check (each names itself in its errors)."""


@arguments(invalid_argument, **_FETCH_KINDS)
def fetch_calendars_with_report(
    url: str,
    window_start: Instant,
    window_end: Instant,
    *,
    username: str | None = None,
    password: str | None = None,
    calendar: str | None = None,
    timeout_seconds: float = 30.0,
    cache: CalendarCache | bool = True,
    sync_collection: bool = True,
    skip_invalid_events: bool = False,
) -> FetchResult:
    """:func:`fetch_calendars`, with a :class:`~cerebri.integrations.report.CollectionFetch`
    per collection saying how it was read and which objects were downloaded.

    Takes the arguments of :func:`fetch_calendars`; raises what it raises.
    """
    check_query(window_start, window_end, 0)
    target = _target(url, password, timeout_seconds)
    store = _chosen_cache(cache)
    user = _user(url, username)
    rows: list[tuple[str, str]] = []
    reports: list[CollectionFetch] = []
    with _translated(target), _connect(target, username, password, timeout_seconds) as client:
        for collection in _collections(client, target, calendar):
            found, report = _read_collection(collection, target, store, user, sync_collection)
            rows.extend(found)
            reports.append(report)
    rows.sort()
    parsed = (_parsed(source, text, skip_invalid_events) for source, text in rows)
    # An object whose only event was skipped still carries its warning and incompleteness.
    calendars = tuple(item for item in parsed if _has_event(item) or calendar_incomplete(item))
    return FetchResult(calendars, tuple(reports))


@arguments(invalid_argument, **_FETCH_KINDS)
def fetch_calendars(
    url: str,
    window_start: Instant,
    window_end: Instant,
    *,
    username: str | None = None,
    password: str | None = None,
    calendar: str | None = None,
    timeout_seconds: float = 30.0,
    cache: CalendarCache | bool = True,
    sync_collection: bool = True,
    skip_invalid_events: bool = False,
) -> tuple[Calendar, ...]:
    """Every stored calendar object with a ``VEVENT`` in the calendars at ``url``.

    The window is not sent to the server (see the module documentation): every event
    object of each collection is returned, and :func:`cerebri.ics.busy_periods` expands
    them and keeps what overlaps ``[window_start, window_end)``.

    Args:
        url: a calendar collection URL (that calendar is read), or any other URL of the
            server, e.g. its root or a principal (the principal's calendars are read). It
            may carry ``user:password@``; explicit ``username``/``password`` win.
        window_start, window_end: the window (``window_start < window_end``), checked only.
        username, password: HTTP credentials (the library negotiates Basic or Digest).
        calendar: keep only calendars whose display name or last URL path segment equals
            this text; none matching is ``caldav.not_found``.
        timeout_seconds: the time limit, in seconds, of each HTTP request as a whole
            (connect to last byte of the reply); also the connect and per-read timeout.
        cache: ``True`` (default) keeps each collection in the user's cache
            (:meth:`CalendarCache.user`, ``$CEREBRI_CACHE_DIR``) and downloads only what
            changed; a :class:`~cerebri.integrations.cache.CalendarCache` uses that folder;
            ``False`` downloads everything and writes nothing.
        sync_collection: try the RFC 6578 ``sync-collection`` REPORT first (default);
            ``False`` always compares ``ETag`` values from a depth-1 ``PROPFIND``, for
            servers whose sync support is broken.
        skip_invalid_events: handed to :func:`cerebri.ics.parse_calendar` for every
            object: an unreadable ``VEVENT`` is left out with an ``ics.skipped_event``
            warning and its calendar is marked incomplete (docs/decisions/0014). An object
            without calendar data becomes an empty calendar with that warning (no UID,
            ``source`` the object's URL), marked incomplete.

    Returns:
        One :class:`icalendar.Calendar` per calendar object that holds a ``VEVENT`` (or
        that lost events to ``skip_invalid_events``), read with
        :func:`cerebri.ics.parse_calendar` (source: the object's URL without
        credentials), sorted by object URL (so by calendar URL first).

    Raises:
        CalDAVError: see :data:`CODES`; ``caldav.unreachable`` also when a request did not
            finish within ``timeout_seconds``; ``caldav.protocol`` with ``url`` the
            object's URL for an object sent without calendar data (unless skipped).
        CalendarError: an object is not valid iCalendar (its ``ics.*`` code, ``uid``,
            ``line``; ``source`` is the object's URL).
        InvalidArgumentError: ``caldav.invalid_argument``, malformed arguments (also a
            ``TypeError`` and a ``ValueError``); ``ics.invalid_argument`` for the window.
    """
    return fetch_calendars_with_report(
        url,
        window_start,
        window_end,
        username=username,
        password=password,
        calendar=calendar,
        timeout_seconds=timeout_seconds,
        cache=cache,
        sync_collection=sync_collection,
        skip_invalid_events=skip_invalid_events,
    ).calendars


@arguments(invalid_argument, username=(str, type(None)), password=(str, type(None)))
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
    The reply is taken from the library's ``FreeBusy`` object, whose text went through
    ``vcal.fix()``; that rewrites none of the ``FREEBUSY`` values read here.

    Raises:
        CalDAVError: ``caldav.not_found`` when ``url`` is not a calendar collection;
            ``caldav.unsupported`` when the server does not offer the query; the other
            codes as for :func:`fetch_calendars`.
        CalendarError: the reply is not valid iCalendar.
        InvalidArgumentError: ``caldav.invalid_argument``, malformed arguments (also a
            ``TypeError`` and a ``ValueError``); ``ics.invalid_argument`` for the window.
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
