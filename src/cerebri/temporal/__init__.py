"""Temporal scalars, the half-open interval algebra and the temporal core.

``Instant`` (UTC, nanoseconds), ``LocalDate``/``LocalTime`` (calendar fields), IANA zone
helpers and :class:`Interval` over integer nanoseconds (cpir-0.2.md section 1.6,
temporal.md sections 1 and 3.5-3.6); recurrence expansion with DST policies and budgets
(:func:`expand`, temporal.md 3), free/busy (:func:`free_busy`, 2.3 step 4) and the
``/v1/temporal`` result (:class:`TemporalResult`, 2.3; :func:`cerebri.temporal_report` parses
a request and computes it). This is the lowest layer: it defines its own policies
(:mod:`cerebri.temporal.policies`) and rule values (:mod:`cerebri.temporal.rule`) and never
imports :mod:`cerebri.cpir`, which maps its wire models onto them. Failures are
:class:`TemporalRejected` carrying a :class:`TemporalError`; a Python argument of the wrong
type or an unusable value (``Interval(None, 1)``, an unknown zone name) is an
:class:`~cerebri.errors.InvalidArgumentError` with code ``temporal.invalid_argument``.
"""

from cerebri.temporal.calendar import LocalDate, LocalTime
from cerebri.temporal.errors import TemporalError, TemporalRejected
from cerebri.temporal.freebusy import BusyInput, FreeBusyReport, TraceEntry, free_busy
from cerebri.temporal.instant import Instant
from cerebri.temporal.interval import Interval, complement, merge
from cerebri.temporal.recurrence import (
    Expansion,
    Occurrence,
    Resolution,
    SkippedDate,
    expand,
    resolve_local,
    sequence_of,
)
from cerebri.temporal.report import TemporalResult
from cerebri.temporal.zones import TimeZoneId, known_zone_names, local_date_of, zone

__all__ = [
    "BusyInput",
    "Expansion",
    "FreeBusyReport",
    "Instant",
    "Interval",
    "LocalDate",
    "LocalTime",
    "Occurrence",
    "Resolution",
    "SkippedDate",
    "TemporalError",
    "TemporalRejected",
    "TemporalResult",
    "TimeZoneId",
    "TraceEntry",
    "complement",
    "expand",
    "free_busy",
    "known_zone_names",
    "local_date_of",
    "merge",
    "resolve_local",
    "sequence_of",
    "zone",
]
