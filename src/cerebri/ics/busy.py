"""Busy time of calendars over a window: :func:`busy_periods` and :class:`BusyPeriod`.

What is busy:

* every instance of a ``VEVENT`` (recurrences expanded, see :mod:`cerebri.ics.expand`)
  overlapping the window, **except** instances with ``TRANSP:TRANSPARENT`` or
  ``STATUS:CANCELLED`` (judged per instance, so an override can cancel one instance or make
  it transparent) and every event of a calendar whose ``METHOD`` is ``CANCEL``;
* every ``FREEBUSY`` period of a ``VFREEBUSY`` whose ``FBTYPE`` is not ``FREE``
  (:mod:`cerebri.ics.freebusy`).

All-day events cover whole local days of the floating zone, ``DTEND`` exclusive (RFC 5545
section 3.6.1). Floating times are read in the floating zone (default ``"UTC"``);
``X-WR-TIMEZONE`` is ignored. Periods are reported whole (not cut at the window edges) when
they overlap the window; a zero-length period (a ``DATE-TIME`` event with neither ``DTEND``
nor ``DURATION``, RFC 5545 section 3.6.1) is reported when it lies inside the window.
``VTODO``, ``VJOURNAL`` and ``VAVAILABILITY`` never make busy time here.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import partial
from typing import Literal

from icalendar import Component

from cerebri.ics.errors import CalendarArgumentError, CalendarError, require
from cerebri.ics.expand import Budget, expand
from cerebri.ics.freebusy import freebusy_periods
from cerebri.ics.source import calendar_source
from cerebri.ics.times import check_supported_window
from cerebri.ics.validate import check_for_query
from cerebri.ics.warnings import add_warning
from cerebri.ics.zones import floating_tz
from cerebri.temporal.instant import Instant

__all__ = [
    "DEFAULT_MAX_OCCURRENCES",
    "BusyKind",
    "BusyPeriod",
    "busy_periods",
    "calendars_of",
    "check_query",
]

DEFAULT_MAX_OCCURRENCES = 100_000
"""Default counted limit on generated recurrence instances per query."""

BusyKind = Literal["event", "freebusy"]


@dataclass(frozen=True, slots=True)
class BusyPeriod:
    """One busy period ``[start, end)`` in UTC (``start <= end``).

    Attributes:
        start, end: the instants; ``end`` is exclusive.
        uid: the component's UID (``nouid-<hash>`` when it has none).
        recurrence_id: the original start of a recurrence instance (``YYYYMMDD`` or
            ``YYYYMMDDTHHMMSSZ``), ``None`` for a non-recurring event or a free/busy period.
        summary: the instance's ``SUMMARY``, if any.
        source: the name given to :func:`cerebri.ics.parse_calendar`.
        kind: ``"event"`` (a ``VEVENT`` instance) or ``"freebusy"`` (a ``FREEBUSY`` period).
        sequence: the defining component's ``SEQUENCE`` (0 when absent).
    """

    start: Instant
    end: Instant
    uid: str
    recurrence_id: str | None
    summary: str | None
    source: str
    kind: BusyKind
    sequence: int = 0

    def sort_key(self) -> tuple[int, int, str, str, str, str, str, int]:
        """``(start, end, uid, recurrence_id)``, then the remaining fields as tie-breakers."""
        return (
            self.start.ns,
            self.end.ns,
            self.uid,
            self.recurrence_id or "",
            self.kind,
            self.source,
            self.summary or "",
            self.sequence,
        )


def calendars_of(
    calendars: Iterable[Component] | Component, function: str = "busy_periods"
) -> tuple[Component, ...]:
    """One calendar or an iterable of them, as a tuple (``CalendarArgumentError``, a
    ``TypeError``, for anything else)."""
    if isinstance(calendars, Component):
        return (calendars,)
    expected = "an icalendar Component or an iterable of them"
    if not isinstance(calendars, Iterable) or isinstance(calendars, (str, bytes, dict)):
        raise CalendarArgumentError(function, "calendars", expected, calendars)
    found = tuple(calendars)
    for item in found:
        if not isinstance(item, Component):
            raise CalendarArgumentError(function, "calendars", expected, item)
    return found


def check_query(
    window_start: Instant, window_end: Instant, max_occurrences: int, function: str = "busy_periods"
) -> None:
    """``ValueError``/``CalendarArgumentError`` (a ``TypeError``) for a malformed query: a
    window that is empty, reversed or leaves years 1-9999 in UTC
    (:func:`cerebri.ics.times.check_supported_window`), or a negative limit. A limit that is
    not an ``int`` and a negative one are ``ics.invalid_argument`` too."""
    require(window_start, Instant, function, "window_start")
    require(window_end, Instant, function, "window_end")
    if not window_start < window_end:
        raise CalendarError(
            "ics.invalid_argument", "the window must satisfy window_start < window_end"
        )
    check_supported_window(window_start, window_end)
    if type(max_occurrences) is not int:
        raise CalendarArgumentError(function, "max_occurrences", "int", max_occurrences)
    if max_occurrences < 0:
        raise CalendarError("ics.invalid_argument", "max_occurrences must be a non-negative int")


def busy_periods(
    calendars: Iterable[Component] | Component,
    window_start: Instant,
    window_end: Instant,
    *,
    floating_zone: str = "UTC",
    max_occurrences: int = DEFAULT_MAX_OCCURRENCES,
) -> tuple[BusyPeriod, ...]:
    """The busy periods of ``calendars`` that overlap ``[window_start, window_end)``.

    Sorted by ``(start, end, uid, recurrence_id)`` (then kind, source, summary, sequence).
    The result does not depend on the order of components in a file. A calendar from
    :func:`~cerebri.ics.parse_calendar` is taken as unchanged since: its checks are not
    repeated, except those that depend on the floating zone, once per zone
    (:func:`cerebri.ics.validate.check_for_query`).

    ``max_occurrences`` counts generated recurrence instances in and near the window (see
    :mod:`cerebri.ics.budget`). Warnings about series (``ics.duplicate_uid``,
    ``ics.unmatched_exdate``, ``ics.unmatched_recurrence_id``; the same for every window)
    are attached to each calendar given (:func:`cerebri.ics.calendar_warnings`).

    Raises:
        CalendarError: a malformed component (codes in :mod:`cerebri.ics.errors`), or more
            than ``max_occurrences`` generated instances (``ics.expansion_limit``).
        ValueError: an empty or reversed window, one that leaves years 1-9999 in UTC, a
            negative limit, or a floating zone that is not an exact IANA name.
    """
    check_query(window_start, window_end, max_occurrences)
    require(floating_zone, str, "busy_periods", "floating_zone")
    floating = floating_tz(floating_zone)
    budget = Budget(max_occurrences)
    found: list[BusyPeriod] = []
    for calendar in calendars_of(calendars):
        source = calendar_source(calendar)
        check_for_query(calendar, floating_zone, floating)
        cancel_all = str(calendar.get("METHOD", "")).upper() == "CANCEL"
        for instance in expand(
            calendar,
            "VEVENT",
            window_start,
            window_end,
            floating=floating,
            budget=budget,
            source=source,
            cancel_all=cancel_all,
            warn=partial(add_warning, calendar),
        ):
            if instance.transparent or instance.cancelled:
                continue
            found.append(
                BusyPeriod(
                    instance.start,
                    instance.end,
                    instance.uid,
                    instance.recurrence_id,
                    instance.summary,
                    source,
                    "event",
                    instance.sequence,
                )
            )
        for period in freebusy_periods(
            calendar, window_start, window_end, floating=floating, budget=budget, source=source
        ):
            found.append(
                BusyPeriod(
                    period.start,
                    period.end,
                    period.uid,
                    None,
                    None,
                    source,
                    "freebusy",
                    period.sequence,
                )
            )
    return tuple(sorted(found, key=BusyPeriod.sort_key))
