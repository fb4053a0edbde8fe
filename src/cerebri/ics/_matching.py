"""Matching ``EXDATE`` and ``RECURRENCE-ID`` values to the instances of a series.

RFC 5545 sections 3.8.4.4 and 3.8.5.1 name an instance by its original start. A
``DATE-TIME`` with ``TZID`` or in UTC is an absolute instant; it names the instance that
starts at that instant, whatever zone either is written in. A floating ``DATE-TIME`` and a
``DATE`` name an instance by its local date and time (its local date) in the zone of the
series' ``DTSTART``. ``recurring-ical-events`` instead compares local wall times across
zones (``EXDATE;TZID=America/New_York:…T110000`` removes the 11:00 Europe/Berlin
instance) and mixes UTC and local keys in one set (an override of the 09:00 Berlin instance
also swallows the 11:00 one, which is 09:00 UTC), so cerebri matches these values itself.

A :data:`Key` is ``("t", ns)`` for an instant (nanoseconds since the epoch, UTC) or
``("d", ordinal)`` for a local date (:meth:`datetime.date.toordinal`). A value has one key;
an instance of a ``DATE-TIME`` series has two (its instant and its local date), so that a
``DATE`` ``EXDATE`` removes the instances of that day (the library's leniency, kept).
"""

from __future__ import annotations

from datetime import date, datetime, tzinfo

from cerebri.ics.times import to_instant
from cerebri.temporal.instant import Instant

__all__ = ["Key", "instance_keys", "value_key"]

Key = tuple[str, int]


def _local_zone(series_start: date, floating: tzinfo) -> tzinfo:
    """The zone in which floating values of the series are read: the ``DTSTART`` zone,
    else the caller's floating zone."""
    if isinstance(series_start, datetime) and series_start.tzinfo is not None:
        return series_start.tzinfo
    return floating


def value_key(value: date, series_start: date, floating: tzinfo) -> Key:
    """The key of one ``EXDATE`` or ``RECURRENCE-ID`` value of the series that starts at
    ``series_start`` (its ``DTSTART`` value).

    For an all-day series every value names a local date (``RECURRENCE-ID:20200921T000000Z``
    names 2020-09-21, as real exports write it). Otherwise a zoned or UTC value is its
    instant, a floating value is its wall time in the series' zone, a ``DATE`` is a date.
    Raises ``OverflowError``/``ValueError`` for a time the zone rules cannot place.
    """
    if not isinstance(series_start, datetime):
        day = value.date() if isinstance(value, datetime) else value
        return ("d", day.toordinal())
    if not isinstance(value, datetime):
        return ("d", value.toordinal())
    if value.tzinfo is None:
        value = value.replace(tzinfo=_local_zone(series_start, floating))
    return ("t", to_instant(value, floating).ns)


def instance_keys(start: date, instant: Instant) -> tuple[Key, ...]:
    """The keys an instance starting at ``start`` (as the series generates it: a date,
    or a date-time in the ``DTSTART`` zone or floating) at ``instant`` is named by."""
    if not isinstance(start, datetime):
        return (("d", start.toordinal()),)
    return (("t", instant.ns), ("d", start.date().toordinal()))
