"""Recurring components as instances: ``recurring-ical-events`` plus RFC 5545 corrections.

``recurring-ical-events`` generates the starts of each master's instances: ``RRULE``,
``RDATE`` (also with ``PERIOD`` values), ``DTSTART``. cerebri applies the rest itself
(:mod:`cerebri.ics._series`) and corrects the library where it departs from RFC 5545:

* **``EXDATE`` and ``RECURRENCE-ID``** name an instance by its original start, compared
  as instants (zoned and UTC values) or local times (floating and ``DATE`` values); the
  library compares local wall times across zones (:mod:`cerebri.ics._matching`). Values
  that name no instance are reported as warnings, never silently applied elsewhere.
* **Repeated masters** (one UID, no ``RECURRENCE-ID``, equal ``SEQUENCE``) are all kept
  as busy time and reported (``ics.duplicate_uid``); the library keeps the first.
* **Instance ends** are recomputed here. The library adds ``DTEND - DTSTART`` (or the
  ``DURATION``) on the wall clock, so ``DURATION:PT1H`` starting 02:30 CEST on the night
  clocks go back ends 03:30 CET, two elapsed hours. RFC 5545 section 3.3.6 makes hours,
  minutes and seconds exact and only days and weeks nominal, and section 3.8.5.3 gives every
  instance of a ``DTEND``-defined event "the same exact duration". See
  :mod:`cerebri.ics.times`.
* **``DTEND`` before ``DTSTART``** is refused (:mod:`cerebri.ics.validate`); the library
  swaps the two.
* **Recurrence ids** of instances moved by a ``RANGE=THISANDFUTURE`` override are their
  original start.
* **Order**: components are grouped by UID and put in a canonical order (UID, recurrence
  id, ``SEQUENCE``, ``DTSTAMP``, text), so "first of equal ``SEQUENCE`` wins" between
  overrides does not depend on the order of the file.
* **Extreme years**: windows must lie within years 1-9999 in UTC
  (:func:`cerebri.ics.times.check_supported_window`); the padded window is clamped to
  ``datetime``'s range. Near either end the library's query (which reaches back by the
  event's length and computes ends with ``datetime``) is replaced by the rules' starts,
  and a master whose end ``datetime`` cannot hold (after year 9999) has its ends computed
  by cerebri only (:meth:`cerebri.ics._series._Master.starts`), so such events are busy
  rather than dropped or refused.

Counted limit (:mod:`cerebri.ics.budget`): the recurrence instances a window needs are
charged to a :class:`Budget` (rule instances from shortly before the padded window to its
end, plus one per ``DTSTART``, ``RDATE`` value and override of a recurring series near the
window; plain events never count); rule instances before the window are only
stepped over, within a bound of their own. When either passes its limit,
``CalendarError`` ``ics.expansion_limit`` names the UID being counted. Series are counted in
UID order, so the named UID does not depend on the file's order either.

Shortcuts, each giving exactly the instances and errors of the library path (compared in
``tests/ics/test_ics_fast_paths.py``):

* a UID with one plain, non-recurring component (no ``RRULE``, ``RDATE``, ``EXDATE`` or
  ``RECURRENCE-ID``) becomes its one instance without the library, and is skipped at once
  when the library would not yield it for the padded window
  (:func:`cerebri.ics._shortcuts._lone_instance`); anything unusual about it (mixed value
  kinds, ``pytz``, a failure) takes the library path;
* end rules, sequences and the series' value type are read once per component;
* the text tie-breaker of the canonical order is written only for components whose other
  key fields tie (:func:`_canonical_order`).

This module groups the components by UID, orders each group canonically and expands
them; the rest lives behind it: :mod:`cerebri.ics.budget` (the counted limit),
:mod:`cerebri.ics.instance` (:class:`Instance`), :mod:`cerebri.ics._series` (one UID's
series and its instances), :mod:`cerebri.ics._matching` (which instance a value names),
:mod:`cerebri.ics._ends` (corrected ends) and :mod:`cerebri.ics._shortcuts` (the path
past the library).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, tzinfo
from typing import Final

from icalendar import Component
from recurring_ical_events import (  # type: ignore[import-untyped]  # no type information
    BadRuleStringFormat,
    EventAdapter,
    PeriodEndBeforeStart,
)

from cerebri.ics._series import Warn, _sequence, _Series
from cerebri.ics._shortcuts import _Lone, _lone_instance
from cerebri.ics.budget import WALK_FACTOR, Budget
from cerebri.ics.errors import CalendarError, CalendarErrorCode
from cerebri.ics.instance import Instance
from cerebri.ics.source import component_line, component_uid
from cerebri.temporal.instant import Instant

__all__ = ["QUERY_PADDING", "Budget", "Instance", "expand", "overlaps"]

QUERY_PADDING: Final = timedelta(days=2)
"""The library is asked for a window this much wider on both sides; instances are then cut
to the exact window by instant. Covers floating-zone offsets, all-day days and the
difference between the library's ends and the corrected ones."""

_EARLIEST: Final = datetime.min.replace(tzinfo=UTC)
_LATEST: Final = datetime.max.replace(tzinfo=UTC)
"""Padded query windows are clamped to ``datetime``'s range (years 1 to 9999); each
series then keeps the library's own widening inside it (:mod:`cerebri.ics._series`)."""


class _AvailableAdapter(EventAdapter):  # type: ignore[misc]  # the base class is untyped
    """``AVAILABLE`` (RFC 7953) has the ``DTSTART``/``DTEND``/``DURATION`` of a ``VEVENT``."""

    @staticmethod
    def component_name() -> str:
        return "AVAILABLE"


_ADAPTERS: Final[dict[str, object]] = {"VEVENT": "VEVENT", "AVAILABLE": _AvailableAdapter}


def overlaps(start: Instant, end: Instant, window_start: Instant, window_end: Instant) -> bool:
    """Half-open overlap; a zero-length instance counts when it lies inside the window."""
    if start == end:
        return window_start <= start < window_end
    return start < window_end and end > window_start


def _clamped(instant: Instant, delta: timedelta) -> datetime:
    moment = instant.to_datetime()
    if moment is None:
        return _EARLIEST if instant.ns < 0 else _LATEST
    try:
        moved = moment + delta
    except OverflowError:
        return _EARLIEST if delta < timedelta(0) else _LATEST
    return min(max(moved, _EARLIEST), _LATEST)


def _text(value: object) -> str:
    to_ical = getattr(value, "to_ical", None)
    if to_ical is None:
        return "" if value is None else str(value)
    try:
        raw = to_ical()
    except Exception:  # a value icalendar cannot write back; its repr still orders it
        return repr(value)
    return raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)


def _canonical(component: Component) -> tuple[int, str, int, str]:
    """The canonical sort key without its last field, the component's whole text."""
    return (
        1 if "RECURRENCE-ID" in component else 0,
        _text(component.get("RECURRENCE-ID")),
        _sequence(component),
        _text(component.get("DTSTAMP")),
    )


def _canonical_order(components: list[Component]) -> list[Component]:
    """``components`` sorted by (:func:`_canonical`, text), the text written only for ties.

    Equal to one stable sort on the full key: the first sort keeps the file order within
    each run of equal short keys, the second orders such a run by text, stably.
    """
    if len(components) < 2:
        return list(components)
    keyed = sorted(((_canonical(c), c) for c in components), key=lambda pair: pair[0])
    ordered: list[Component] = []
    index = 0
    while index < len(keyed):
        stop = index + 1
        while stop < len(keyed) and keyed[stop][0] == keyed[index][0]:
            stop += 1
        run = [component for _, component in keyed[index:stop]]
        ordered.extend(run if len(run) == 1 else sorted(run, key=_text))
        index = stop
    return ordered


def _library_error(exc: Exception) -> tuple[CalendarErrorCode, str]:
    if isinstance(exc, BadRuleStringFormat):
        return "ics.invalid_rrule", f"the recurrence rule could not be used: {exc}"
    if isinstance(exc, PeriodEndBeforeStart):
        return "ics.invalid_range", f"an instance ends before it starts: {exc}"
    if isinstance(exc, OverflowError):
        return "ics.invalid_range", f"a time is outside the supported range: {exc}"
    return "ics.syntax", f"the component could not be expanded: {exc}"


def expand(
    container: Component,
    name: str,
    window_start: Instant,
    window_end: Instant,
    *,
    floating: tzinfo,
    budget: Budget,
    source: str,
    cancel_all: bool = False,
    warn: Warn | None = None,
) -> list[Instance]:
    """Every instance of the ``name`` components (``VEVENT`` or ``AVAILABLE``) of
    ``container`` that overlaps ``[window_start, window_end)``.

    ``cancel_all`` marks every instance cancelled (a calendar with ``METHOD:CANCEL``).
    ``warn`` receives the warnings about a series (``ics.duplicate_uid``,
    ``ics.unmatched_exdate``, ``ics.unmatched_recurrence_id``); they do not depend on the
    window. Components must have passed :func:`cerebri.ics.validate.check_component`.
    Raises :class:`CalendarError` (``ics.expansion_limit`` past the budget).
    """
    groups: dict[str, list[Component]] = {}
    for component in container.walk(name):
        groups.setdefault(component_uid(component), []).append(component)
    low = _clamped(window_start, -QUERY_PADDING)
    high = _clamped(window_end, QUERY_PADDING)
    # Lone events may skip the library only when the padding is whole (see _lone_instance).
    direct = low > _EARLIEST and high < _LATEST
    low_ns, high_ns = Instant.from_datetime(low).ns, Instant.from_datetime(high).ns
    found: list[Instance] = []
    for uid in sorted(groups):
        group = groups[uid]
        if direct and len(group) == 1:
            lone = _lone_instance(
                group[0], uid, floating=floating, cancel_all=cancel_all, low=low, high=high
            )
            if lone is not _Lone.LIBRARY:  # a plain event: no recurrence, nothing charged
                if isinstance(lone, Instance) and overlaps(
                    lone.start, lone.end, window_start, window_end
                ):
                    found.append(lone)
                continue
        components = _canonical_order(group)
        line = component_line(components[0])
        try:
            series = _Series(uid, components, floating, cancel_all, _ADAPTERS[name])
            line = series.line
            if warn is not None:
                series.report(warn, source, WALK_FACTOR * budget.limit)
            charged = series.charge(low, high, budget, source)
            produced = 0
            for instance in series.instances(low, high):
                if series.near_window(instance, low_ns, high_ns):
                    produced += 1
                    if produced > charged:  # the count bounds the work; charge any excess
                        budget.spend(uid=uid, line=line, source=source)
                if overlaps(instance.start, instance.end, window_start, window_end):
                    found.append(instance)
        except CalendarError:
            raise
        except Exception as exc:  # the library and the zone rules raise many types
            code, message = _library_error(exc)
            raise CalendarError(code, message, uid=uid, line=line, source=source) from None
    return found
