"""Read calendar data from outside services into the forms :mod:`cerebri.ics` works with.

CalDAV (RFC 4791), through the ``caldav`` client library::

    calendars = fetch_calendars(url, start, end, username="alice", password=secret)
    busy = busy_periods(calendars, start, end)              # cerebri.ics
    freebusy = fetch_freebusy(calendar_url, start, end)     # the server's own VFREEBUSY

Every event object of a collection is read and expanded by cerebri, never by the server;
collections are kept in a local :class:`CalendarCache` (``$CEREBRI_CACHE_DIR``) refreshed
with WebDAV sync (RFC 6578) or ``ETag`` comparison. :func:`fetch_calendars_with_report`
also returns a :class:`CollectionFetch` per collection (what was downloaded, and how).

Failures raise :class:`CalDAVError` (codes ``caldav.unreachable``, ``caldav.unauthorized``,
``caldav.not_found``, ``caldav.protocol``, ``caldav.unsupported``); see
:mod:`cerebri.integrations.caldav_source`. Arguments of the wrong type or unusable value (a
URL that is not http(s), ``timeout_seconds=0``, a password that is not text) are refused
before any connection with :class:`~cerebri.errors.InvalidArgumentError`, code
``caldav.invalid_argument``.
"""

from cerebri.integrations.cache import CACHE_DIR_ENV, CacheState, CalendarCache
from cerebri.integrations.caldav_source import (
    CODES,
    CalDAVError,
    CalDAVErrorCode,
    fetch_calendars,
    fetch_calendars_with_report,
    fetch_freebusy,
)
from cerebri.integrations.report import CollectionFetch, FetchResult, SyncMethod

__all__ = [
    "CACHE_DIR_ENV",
    "CODES",
    "CacheState",
    "CalDAVError",
    "CalDAVErrorCode",
    "CalendarCache",
    "CollectionFetch",
    "FetchResult",
    "SyncMethod",
    "fetch_calendars",
    "fetch_calendars_with_report",
    "fetch_freebusy",
]
