"""Temporal scalars and the half-open interval algebra.

``Instant`` (UTC, nanoseconds), ``LocalDate``/``LocalTime`` (calendar fields), IANA zone
helpers and :class:`Interval` over integer nanoseconds. See cpir-0.2.md section 1.6 and
temporal.md sections 1 and 3.5-3.6.
"""

from cerebri.temporal.calendar import LocalDate, LocalTime
from cerebri.temporal.instant import Instant
from cerebri.temporal.interval import Interval, complement, merge
from cerebri.temporal.zones import TimeZoneId, known_zone_names, local_date_of, zone

__all__ = [
    "Instant",
    "Interval",
    "LocalDate",
    "LocalTime",
    "TimeZoneId",
    "complement",
    "known_zone_names",
    "local_date_of",
    "merge",
    "zone",
]
