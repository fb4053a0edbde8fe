"""The shortcut past ``recurring-ical-events``, giving exactly the instances and errors
of the library path (compared in ``tests/ics/test_ics_fast_paths.py``): a UID with one
plain, non-recurring component (no ``RRULE``, ``RDATE``, ``EXDATE`` or ``RECURRENCE-ID``)
becomes its one instance without the library, and is skipped at once when the library
would not yield it for the padded window (:func:`_lone_instance`); anything unusual about
it (mixed value kinds, ``pytz``, a failure) takes the library path.

It is looked up through :mod:`cerebri.ics.expand`, which calls it; the tests switch it off
there.
"""

from __future__ import annotations

from collections.abc import KeysView
from datetime import date, datetime, timedelta, tzinfo
from enum import Enum
from typing import Any, Final, cast

from icalendar import Component

from cerebri.ics._ends import _end_rule_of
from cerebri.ics.instance import Instance
from cerebri.ics.times import to_instant
from cerebri.ics.validate import component_duration, time_of
from cerebri.temporal.instant import Instant

_SERIES_PROPERTIES: Final = ("RECURRENCE-ID", "RRULE", "RDATE", "EXDATE")
_LONGEST_LONE: Final = timedelta(days=3650)
"""Longer lone events go through the library, which subtracts their length from the
query start (and may overflow doing so)."""


def _library_end(start: date, dtend: Any, duration: Any) -> date | None:
    """The end the library's ``EventAdapter`` gives an event with ``DTSTART`` ``start``
    and the ``DTEND`` (``dtend``) or ``DURATION`` (``duration``) property values present,
    when it would use that end and the start unchanged; ``None`` for the cases where it
    converts the start, swaps the two or reaches far back (the library path then decides).
    """
    end: Any
    if dtend is not None:
        end = dtend.dt
    elif duration is not None:
        delta = duration.dt
        if not isinstance(delta, timedelta):
            return None
        if delta.seconds != 0 and not isinstance(start, datetime):
            return None  # the library turns the date into a date-time
        end = start + delta
    elif isinstance(start, datetime):
        end = start
    else:
        end = start + timedelta(days=1)
    if isinstance(start, datetime):
        if not isinstance(end, datetime) or (start.tzinfo is None) != (end.tzinfo is None):
            return None  # make_comparable would change the start
        if hasattr(start.tzinfo, "localize") or hasattr(end.tzinfo, "localize"):
            return None  # pytz: the library normalises
    elif isinstance(end, datetime) or not isinstance(end, date):
        return None
    if start > end or end - start > _LONGEST_LONE:
        return None  # the library swaps the two, or reaches far back
    return cast(date, end)


class _Lone(Enum):
    LIBRARY = "the library path decides"
    OUTSIDE = "no instance near the window"


def _outside(start: date, end: date, low: datetime, high: datetime) -> bool:
    """Whether the library's reading of an event from ``start`` to ``end`` (``DTSTART`` and
    its end as :func:`_library_end` gives it) lies wholly before ``low`` or after
    ``high``, so that it yields no occurrence for the query ``[low, high]``.

    The library reads floating times and dates (as midnight) in the zone of the query
    bounds, UTC, and compares zoned times exactly.
    """
    if isinstance(start, datetime):
        if start.tzinfo is None:
            low, high = low.replace(tzinfo=None), high.replace(tzinfo=None)
        return bool(start > high or end < low)
    return start > high.date() or end < low.date()


def _lone_instance(
    component: Component,
    uid: str,
    *,
    floating: tzinfo,
    cancel_all: bool,
    low: datetime,
    high: datetime,
) -> Instance | _Lone:
    """The one instance of a lone, non-recurring component, computed without the library.

    ``_Lone.LIBRARY`` when the library could treat the component in any other way than as
    exactly one occurrence starting at its ``DTSTART`` (recurrence properties, a repeated
    ``UID`` or ``SEQUENCE``, start and end of mixed kinds or reversed, ``pytz`` zones, a
    very long event) or when computing the instance fails; the caller then takes the
    library path, which gives the result or the error of before. ``_Lone.OUTSIDE`` when
    the library would not yield it for the padded query ``[low, high]`` (:func:`_outside`):
    nothing is computed, and nothing is reported on either path.

    Otherwise this is the instance :meth:`_Series._make` makes of the library's
    occurrence: the library's start is ``DTSTART + timedelta(0)`` (``fold`` cleared);
    ``SUMMARY``, ``TRANSP`` and ``STATUS`` are the component's. Whether it is reported only depends
    on the window: with the whole :data:`QUERY_PADDING` on both sides (the caller checks
    that no clamping happened), the library's reading of the event (floating times and
    dates as UTC, wall-clock ends) differs from the corrected one by less than 24 hours at
    the start and 48 hours at the end (``tzinfo`` offsets are below 24 hours), so the
    library yields every instance that overlaps the window; the others are dropped by the
    window test on both paths. For the same reason an instance the library does not yield
    (``_Lone.OUTSIDE``) cannot overlap the window.
    """
    # Property names are stored upper case (icalendar's CaselessDict); looking them up in
    # the key view spares the failed look-ups of ``get`` for the many absent ones.
    keys = component.keys()
    sequence = component["SEQUENCE"] if "SEQUENCE" in keys else None
    if not isinstance(sequence, int | None) or _library_decides(component, keys):
        return _Lone.LIBRARY
    span = _lone_span(component, keys, floating=floating, low=low, high=high)
    if isinstance(span, _Lone):
        return span
    summary = component["SUMMARY"] if "SUMMARY" in keys else None
    transparent = "TRANSP" in keys and str(component["TRANSP"]).upper() == "TRANSPARENT"
    cancelled = "STATUS" in keys and str(component["STATUS"]).upper() == "CANCELLED"
    return Instance(
        start=span[0],
        end=span[1],
        uid=uid,
        recurrence_id=None,
        summary=None if summary is None else str(summary),
        sequence=0 if sequence is None else max(int(sequence), 0),
        transparent=transparent,
        cancelled=cancel_all or cancelled,
    )


def _library_decides(component: Component, keys: KeysView[str]) -> bool:
    """The component has a recurrence property or a repeated ``UID`` (the caller checks that
    ``SEQUENCE`` is one integer): only the library's path reads it as before."""
    for name in _SERIES_PROPERTIES:
        if name in keys:
            return True
    # the library groups by the UID value; a list fails there
    return "UID" in keys and isinstance(component["UID"], list)


def _lone_span(
    component: Component,
    keys: KeysView[str],
    *,
    floating: tzinfo,
    low: datetime,
    high: datetime,
) -> tuple[Instant, Instant] | _Lone:
    """Start and end of the lone instance as :meth:`_Series._make` computes them, or the
    :class:`_Lone` verdict (see :func:`_lone_instance`)."""
    try:
        raw_start: Any = component["DTSTART"].dt  # type: ignore[union-attr]  # as the library
        if not isinstance(raw_start, date):
            return _Lone.LIBRARY
        dtend = component["DTEND"] if "DTEND" in keys else None
        duration = component["DURATION"] if "DURATION" in keys and dtend is None else None
        raw_end = _library_end(raw_start, dtend, duration)
        if raw_end is None:
            return _Lone.LIBRARY
        if _outside(raw_start, raw_end, low, high):
            return _Lone.OUTSIDE
        # the rest is _Series._make of the library's occurrence (start + timedelta(0))
        start_value = raw_start + timedelta(0) if isinstance(raw_start, datetime) else raw_start
        start = to_instant(start_value, floating)
        defined_end = None if dtend is None else time_of(component, "DTEND")
        rule = _end_rule_of(
            time_of(component, "DTSTART"),
            defined_end,
            None if defined_end is not None else component_duration(component),
            floating,
        )
        return start, rule.end(start_value, start, floating)
    except Exception:  # the library path reports it, or not, as before
        return _Lone.LIBRARY
