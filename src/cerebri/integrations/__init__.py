"""Read calendar data from outside services into the forms :mod:`cerebri.ics` works with.

CalDAV (RFC 4791), through the ``caldav`` client library::

    calendars = fetch_calendars(url, start, end, username="alice", password=secret)
    busy = busy_periods(calendars, start, end)              # cerebri.ics
    freebusy = fetch_freebusy(calendar_url, start, end)     # the server's own VFREEBUSY

Failures raise :class:`CalDAVError` (codes ``caldav.unreachable``, ``caldav.unauthorized``,
``caldav.not_found``, ``caldav.protocol``, ``caldav.unsupported``); see
:mod:`cerebri.integrations.caldav_source`.
"""

from cerebri.integrations.caldav_source import (
    CODES,
    QUERY_MARGIN_NS,
    CalDAVError,
    CalDAVErrorCode,
    fetch_calendars,
    fetch_freebusy,
)

__all__ = [
    "CODES",
    "QUERY_MARGIN_NS",
    "CalDAVError",
    "CalDAVErrorCode",
    "fetch_calendars",
    "fetch_freebusy",
]
