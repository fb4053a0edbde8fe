"""Recurring components as instances: ``recurring-ical-events`` plus RFC 5545 corrections.

``recurring-ical-events`` decides *which* instances exist: ``RRULE``, ``RDATE`` (also with
``PERIOD`` values), ``EXDATE``, ``RECURRENCE-ID`` overrides matched in any value form, the
``SEQUENCE`` order between duplicates, ``RANGE=THISANDFUTURE`` shifts. This module keeps
that and corrects the library where it departs from RFC 5545:

* **Instance ends** are recomputed here. The library adds ``DTEND - DTSTART`` (or the
  ``DURATION``) on the wall clock, so ``DURATION:PT1H`` starting 02:30 CEST on the night
  clocks go back ends 03:30 CET, two elapsed hours. RFC 5545 section 3.3.6 makes hours,
  minutes and seconds exact and only days and weeks nominal, and section 3.8.5.3 gives every
  instance of a ``DTEND``-defined event "the same exact duration". See
  :mod:`cerebri.ics.times`.
* **``DTEND`` before ``DTSTART``** is refused (:mod:`cerebri.ics.validate`); the library
  swaps the two.
* **Recurrence ids** of instances moved by a ``RANGE=THISANDFUTURE`` override are their
  original start; the library reports the override's own ``RECURRENCE-ID`` for all of them.
* **Order**: components are handed to the library grouped by UID and in a canonical order
  (UID, recurrence id, ``SEQUENCE``, ``DTSTAMP``, text), so the library's "first of equal
  ``SEQUENCE`` wins" rule no longer depends on the order of the file.

Counted limit: before a series is expanded, every instance its rules generate from the
series start up to the end of the (padded) query window is charged to a :class:`Budget`,
plus one per ``DTSTART``, ``RDATE`` value and override. When the total passes the limit,
``CalendarError`` ``ics.expansion_limit`` names the UID being counted. Series are counted in
UID order, so the named UID does not depend on the file's order either.

Shortcuts, each giving exactly the instances and errors of the library path (compared in
``tests/ics/test_ics_fast_paths.py``):

* a UID with one plain, non-recurring component (no ``RRULE``, ``RDATE``, ``EXDATE`` or
  ``RECURRENCE-ID``) becomes its one instance without the library, and is skipped at once
  when the library would not yield it for the padded window (:func:`_lone_instance`);
  anything unusual about it (mixed value kinds, ``pytz``, a failure) takes the library path;
* the library's occurrences are read without the shallow copy it makes of each
  (:func:`_copied_from`);
* end rules, sequences and the series' value type are read once per component;
* the text tie-breaker of the canonical order is written only for components whose other
  key fields tie (:func:`_canonical_order`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta, timezone, tzinfo
from enum import Enum
from typing import Any, Final, cast
from zoneinfo import ZoneInfo

from icalendar import Calendar, Component
from recurring_ical_events import (  # type: ignore[import-untyped]  # no type information
    BadRuleStringFormat,
    CalendarQuery,
    EventAdapter,
    PeriodEndBeforeStart,
)

from cerebri.ics.errors import CalendarError, CalendarErrorCode
from cerebri.ics.rules import count_instances, is_empty_rule
from cerebri.ics.source import component_line, component_uid, property_line
from cerebri.ics.times import Duration, add_duration, date_text, to_instant, utc_text
from cerebri.ics.validate import component_duration, time_of
from cerebri.ics.zones import property_values
from cerebri.temporal.instant import Instant

__all__ = ["QUERY_PADDING", "Budget", "Instance", "expand", "overlaps"]

QUERY_PADDING: Final = timedelta(days=2)
"""The library is asked for a window this much wider on both sides; instances are then cut
to the exact window by instant. Covers floating-zone offsets, all-day days and the
difference between the library's ends and the corrected ones."""

_EARLIEST: Final = datetime(100, 1, 1, tzinfo=UTC)
_LATEST: Final = datetime(9900, 1, 1, tzinfo=UTC)


@dataclass(frozen=True, slots=True)
class Instance:
    """One instance of a recurring (or single) component, in UTC.

    ``recurrence_id`` is ``None`` for a component that is not part of a recurrence set,
    else the original start: ``YYYYMMDD`` for dates, ``YYYYMMDDTHHMMSSZ`` otherwise.
    ``start <= end``; equal for a ``DATE-TIME`` event without ``DTEND`` or ``DURATION``.
    """

    start: Instant
    end: Instant
    uid: str
    recurrence_id: str | None
    summary: str | None
    sequence: int
    transparent: bool
    cancelled: bool


class Budget:
    """A counted limit shared by one query (``busy_periods`` or ``working_periods``)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.used = 0

    def spend(self, *, uid: str, line: int | None, source: str) -> None:
        """Charge one instance; raise ``ics.expansion_limit`` once the limit is passed."""
        self.used += 1
        if self.used > self.limit:
            raise CalendarError(
                "ics.expansion_limit",
                f"the calendar yields more than {self.limit} event instances up to the end of "
                "the window (single events count one each, recurrences from their first "
                "instance); raise max_occurrences or split the calendar",
                uid=uid,
                line=line,
                source=source,
            )


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


def _sequence(component: Component) -> int:
    value = component.get("SEQUENCE")
    try:
        return int(value) if value is not None else -1
    except (TypeError, ValueError):
        return -1


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


def _is_this_and_future(component: Component) -> bool:
    rid = component.get("RECURRENCE-ID")
    params = getattr(rid, "params", None)
    return params is not None and str(params.get("RANGE", "")).upper() == "THISANDFUTURE"


def _comparable(value: date, other: date) -> tuple[datetime, datetime]:
    """The library's ``make_comparable`` for two values (dates become naive midnights)."""
    first, second = (
        item if isinstance(item, datetime) else datetime(item.year, item.month, item.day)  # noqa: DTZ001
        for item in (value, other)
    )
    zone = first.tzinfo or second.tzinfo
    if zone is not None:
        first = first if first.tzinfo is not None else first.replace(tzinfo=zone)
        second = second if second.tzinfo is not None else second.replace(tzinfo=zone)
    return first, second


def _same_time(first: date, second: date) -> bool:
    if isinstance(first, datetime) != isinstance(second, datetime):
        return False
    if (
        isinstance(first, datetime)
        and isinstance(second, datetime)
        and (first.tzinfo is None) != (second.tzinfo is None)
    ):
        return False
    return first == second


def _rule_values(component: Component) -> list[Any]:
    return [rule for rule in property_values(component, "RRULE") if not is_empty_rule(rule)]


def _rdate_leaves(component: Component) -> Iterator[Any]:
    for value in property_values(component, "RDATE"):
        leaves = getattr(value, "dts", None)
        yield from (leaf.dt for leaf in (leaves if isinstance(leaves, list) else [value]))


class _Series:
    """All components of one UID, and how to turn the library's copies into instances."""

    def __init__(
        self, uid: str, components: list[Component], floating: tzinfo, cancel_all: bool
    ) -> None:
        self.uid = uid
        self.components = components
        self.floating = floating
        self.cancel_all = cancel_all
        self.master: Component | None = None
        for component in components:
            if "RECURRENCE-ID" in component:
                continue
            if self.master is None or _sequence(component) > _sequence(self.master):
                self.master = component
        self.overrides = [c for c in components if "RECURRENCE-ID" in c]
        self.owner_of_rid = {id(c.get("RECURRENCE-ID")): c for c in self.overrides}
        self.recurring = bool(self.overrides) or (
            self.master is not None and (bool(_rule_values(self.master)) or "RDATE" in self.master)
        )
        self.periods: dict[int, tuple[date, object]] = {}
        self._end_rules: dict[int, _EndRule] = {}  # per id(component)
        self._sequences: dict[int, int] = {}
        self._dates_only: bool | None = None
        if self.master is not None:
            for leaf in _rdate_leaves(self.master):
                if isinstance(leaf, tuple):
                    self.periods[to_instant(leaf[0], floating).ns] = (leaf[0], leaf[1])

    @property
    def line(self) -> int | None:
        first = self.master if self.master is not None else self.components[0]
        return component_line(first)

    def charge(self, stop: datetime, budget: Budget, source: str) -> int:
        """Charge every instance the series can generate up to ``stop``; return the count."""
        before = budget.used

        def spend() -> None:
            budget.spend(uid=self.uid, line=self.line, source=source)

        def spend_rule() -> None:
            line = None if self.master is None else property_line(self.master, "RRULE")
            budget.spend(uid=self.uid, line=line, source=source)

        for _ in self.overrides:
            spend()
        if self.master is not None:
            spend()
            for _ in _rdate_leaves(self.master):
                spend()
            start = time_of(self.master, "DTSTART")
            for rule in _rule_values(self.master):
                count_instances(rule, start, stop + self._later_shift(), spend_rule)
        return budget.used - before

    def _later_shift(self) -> timedelta:
        """How far a ``THISANDFUTURE`` override pulls instances earlier (the library queries
        that much later)."""
        shift = timedelta(0)
        for override in self.overrides:
            if _is_this_and_future(override):
                rid = to_instant(time_of(override, "RECURRENCE-ID"), self.floating)
                start = to_instant(time_of(override, "DTSTART"), self.floating)
                shift = max(shift, timedelta(microseconds=(rid - start) // 1000))
        return shift

    def instance(self, copy: Component) -> Instance:
        """Turn one occurrence copy made by the library into an :class:`Instance`."""
        return self._instance(time_of(copy, "DTSTART"), copy)

    def instance_of(self, occurrence: Any) -> Instance:
        """:meth:`instance` of ``occurrence.as_component(False)``, without making the copy
        when :func:`_copied_from` finds the component it would copy."""
        component = _copied_from(occurrence)
        if component is None:
            return self.instance(occurrence.as_component(False))
        return self._instance(occurrence.start, component)

    def _instance(self, start_value: date, copy: Component) -> Instance:
        """The instance starting at ``start_value`` whose ``RECURRENCE-ID`` object,
        ``SUMMARY``, ``TRANSP`` and ``STATUS`` are those of ``copy``."""
        owner = self.owner_of_rid.get(id(copy.get("RECURRENCE-ID")))
        is_override = False
        if owner is None:
            source = self.master
            original = start_value
        elif _is_this_and_future(owner) and not _same_time(start_value, time_of(owner, "DTSTART")):
            source = owner  # an instance moved along by a THISANDFUTURE override
            moved_to, moved_from = _comparable(
                time_of(owner, "DTSTART"), time_of(owner, "RECURRENCE-ID")
            )
            original = start_value - (moved_to - moved_from)
        else:
            source = owner
            original = time_of(owner, "RECURRENCE-ID")
            is_override = True
        if source is None:  # pragma: no cover - the library only yields known components
            raise CalendarError("ics.syntax", "occurrence without a defining component")
        start = to_instant(start_value, self.floating)
        original_instant = start if original is start_value else to_instant(original, self.floating)
        end = self._end(source, start_value, start, None if is_override else original_instant)
        recurrence_id: str | None = None
        if self.recurring:
            recurrence_id = self._recurrence_text(original, original_instant)
        summary = copy.get("SUMMARY")
        return Instance(
            start=start,
            end=end,
            uid=self.uid,
            recurrence_id=recurrence_id,
            summary=None if summary is None else str(summary),
            sequence=self._sequence_of(source),
            transparent=str(copy.get("TRANSP", "OPAQUE")).upper() == "TRANSPARENT",
            cancelled=self.cancel_all or str(copy.get("STATUS", "")).upper() == "CANCELLED",
        )

    def _sequence_of(self, source: Component) -> int:
        key = id(source)
        if key not in self._sequences:
            self._sequences[key] = max(_sequence(source), 0)
        return self._sequences[key]

    def _recurrence_text(self, original: date, original_instant: Instant) -> str:
        """The original start as text, in the value type of the series' ``DTSTART``.

        An override of an all-day series may name its instance with a date-time
        (``issue_36``: ``RECURRENCE-ID:20200921T000000Z``); it is reported as the date.
        """
        if self.master is None:
            dates_only = not isinstance(original, datetime)
        else:
            if self._dates_only is None:
                self._dates_only = not isinstance(time_of(self.master, "DTSTART"), datetime)
            dates_only = self._dates_only
        if dates_only:
            return date_text(original.date() if isinstance(original, datetime) else original)
        return utc_text(original_instant)

    def _end(
        self, source: Component, start_value: date, start: Instant, original: Instant | None
    ) -> Instant:
        """The corrected end of one instance (RFC 5545 sections 3.3.6, 3.6.1, 3.8.5.3)."""
        if original is not None and original.ns in self.periods:
            period_start, period_end = self.periods[original.ns]
            if isinstance(period_end, timedelta):
                return add_duration(start_value, Duration.from_timedelta(period_end), self.floating)
            assert isinstance(period_end, date)
            exact = to_instant(period_end, self.floating) - to_instant(period_start, self.floating)
            return _plus(start, exact)
        rule = self._end_rules.get(id(source))
        if rule is None:
            rule = self._end_rules[id(source)] = _end_rule(source, self.floating)
        return rule.end(start_value, start, self.floating)


@dataclass(frozen=True, slots=True)
class _EndRule:
    """How one component ends its instances (RFC 5545 sections 3.3.6, 3.6.1, 3.8.5.3).

    Read once per component and applied to each of its instances: ``days`` nominal days
    for an all-day component (from ``DTEND``, else ``duration``, else one day); for a
    date-time component ``exact`` nanoseconds (``DTEND``: the same exact duration for every
    instance), else ``duration`` (nominal days, exact time), else a point in time.
    """

    all_day: bool
    days: int | None = None
    exact: int | None = None
    duration: Duration | None = None

    def end(self, start_value: date, start: Instant, floating: tzinfo) -> Instant:
        if self.all_day:  # nominal days
            day = start_value.date() if isinstance(start_value, datetime) else start_value
            if self.days is not None:
                return to_instant(day + timedelta(days=self.days), floating)
            if self.duration is not None:
                return add_duration(day, self.duration, floating)
            return to_instant(day + timedelta(days=1), floating)
        if self.exact is not None:
            return _plus(start, self.exact)
        if self.duration is not None:
            return add_duration(start_value, self.duration, floating)
        return start  # DATE-TIME without DTEND or DURATION: a point in time


def _end_rule(source: Component, floating: tzinfo) -> _EndRule:
    defined_start = time_of(source, "DTSTART")
    defined_end = time_of(source, "DTEND") if "DTEND" in source else None
    return _end_rule_of(defined_start, defined_end, component_duration(source), floating)


def _end_rule_of(
    defined_start: date, defined_end: date | None, duration: Duration | None, floating: tzinfo
) -> _EndRule:
    """The end rule of a component's ``DTSTART``, ``DTEND`` and ``DURATION`` values
    (``duration`` is not read when there is a ``DTEND``)."""
    if not isinstance(defined_start, datetime):
        if defined_end is not None:
            return _EndRule(True, days=max((defined_end - defined_start).days, 1))
        return _EndRule(True, duration=duration)
    if defined_end is not None:
        exact = to_instant(defined_end, floating) - to_instant(defined_start, floating)
        return _EndRule(False, exact=exact)
    return _EndRule(False, duration=duration)


_PLAIN_ZONES: Final = (ZoneInfo, timezone)
"""Zones whose names ``icalendar`` reads without calling into other code (zones built from
a ``VTIMEZONE`` are ``dateutil`` objects; their occurrences are copied, as before)."""


def _copied_from(occurrence: Any) -> Component | None:
    """The component ``occurrence.as_component(False)`` would copy, when the copy could
    neither fail nor differ in what :meth:`_Series._instance` reads; else ``None``.

    The copy (``recurring_ical_events`` ``ComponentAdapter.as_component``) is a shallow
    copy of the adapter's component: the same ``RECURRENCE-ID`` object when it has one (a
    new one otherwise, which names no override), the same ``SUMMARY``, ``TRANSP`` and
    ``STATUS``, ``DTSTART`` set to ``occurrence.start``. Making it builds two property values
    (``icalendar`` looks up zone names for their ``TZID``) and compares the occurrence's
    ``SEQUENCE`` with 0; for dates, floating date-times and date-times in ``zoneinfo`` or
    fixed-offset zones, and an integer sequence, none of that can raise. The library's
    private attributes are read defensively: without them every occurrence is copied.
    """
    adapter = getattr(occurrence, "_adapter", None)
    component = getattr(adapter, "_component", None)
    if not isinstance(component, Component):
        return None
    if not isinstance(getattr(occurrence, "sequence", None), int):
        return None
    for value in (getattr(occurrence, "start", None), getattr(occurrence, "end", None)):
        if not isinstance(value, date):
            return None
        zone = value.tzinfo if isinstance(value, datetime) else None
        if zone is not None and not isinstance(zone, _PLAIN_ZONES):
            return None
    return component


def _plus(start: Instant, nanoseconds: int) -> Instant:
    moved = start.plus_ns(nanoseconds)
    if moved is None:
        raise OverflowError("instance end is outside the supported range")
    return moved


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
) -> list[Instance]:
    """Every instance of the ``name`` components (``VEVENT`` or ``AVAILABLE``) of
    ``container`` that overlaps ``[window_start, window_end)``.

    ``cancel_all`` marks every instance cancelled (a calendar with ``METHOD:CANCEL``).
    Components must have passed :func:`cerebri.ics.validate.check_component`.
    """
    groups: dict[str, list[Component]] = {}
    for component in container.walk(name):
        groups.setdefault(component_uid(component), []).append(component)
    low = _clamped(window_start, -QUERY_PADDING)
    high = _clamped(window_end, QUERY_PADDING)
    # Lone events may skip the library only when the padding is whole (see _lone_instance).
    direct = low > _EARLIEST and high < _LATEST
    found: list[Instance] = []
    for uid in sorted(groups):
        group = groups[uid]
        if direct and len(group) == 1:
            lone = _lone_instance(
                group[0], uid, floating=floating, cancel_all=cancel_all, low=low, high=high
            )
            if lone is not _Lone.LIBRARY:
                budget.spend(uid=uid, line=component_line(group[0]), source=source)
                if isinstance(lone, Instance) and overlaps(
                    lone.start, lone.end, window_start, window_end
                ):
                    found.append(lone)
                continue
        components = _canonical_order(group)
        line = component_line(components[0])
        try:
            series = _Series(uid, components, floating, cancel_all)
            line = series.line
            charged = series.charge(high, budget, source)
            found.extend(
                _run(
                    series,
                    name,
                    low=low,
                    high=high,
                    charged=charged,
                    window=(window_start, window_end),
                    source=source,
                )
            )
        except CalendarError:
            raise
        except Exception as exc:  # the library and the zone rules raise many types
            code, message = _library_error(exc)
            raise CalendarError(code, message, uid=uid, line=line, source=source) from None
    return found


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

    Otherwise this is the instance :meth:`_Series.instance` makes of the library's
    occurrence: the library's start is ``DTSTART + timedelta(0)`` (``fold`` cleared), its
    copy keeps ``SUMMARY``, ``TRANSP`` and ``STATUS``. Whether it is reported only depends
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
    for name in _SERIES_PROPERTIES:
        if name in keys:
            return _Lone.LIBRARY
    if "UID" in keys and isinstance(component["UID"], list):
        return _Lone.LIBRARY  # the library groups by the UID value; a list fails there
    sequence = component["SEQUENCE"] if "SEQUENCE" in keys else None
    if sequence is not None and not isinstance(sequence, int):
        return _Lone.LIBRARY
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
        # the rest is _Series.instance of the library's occurrence (start + timedelta(0))
        start_value = raw_start + timedelta(0) if isinstance(raw_start, datetime) else raw_start
        start = to_instant(start_value, floating)
        defined_end = None if dtend is None else time_of(component, "DTEND")
        rule = _end_rule_of(
            time_of(component, "DTSTART"),
            defined_end,
            None if defined_end is not None else component_duration(component),
            floating,
        )
        end = rule.end(start_value, start, floating)
    except Exception:  # the library path reports it, or not, as before
        return _Lone.LIBRARY
    summary = component["SUMMARY"] if "SUMMARY" in keys else None
    transparent = "TRANSP" in keys and str(component["TRANSP"]).upper() == "TRANSPARENT"
    cancelled = "STATUS" in keys and str(component["STATUS"]).upper() == "CANCELLED"
    return Instance(
        start=start,
        end=end,
        uid=uid,
        recurrence_id=None,
        summary=None if summary is None else str(summary),
        sequence=0 if sequence is None else max(int(sequence), 0),
        transparent=transparent,
        cancelled=cancel_all or cancelled,
    )


def _run(
    series: _Series,
    name: str,
    *,
    low: datetime,
    high: datetime,
    charged: int,
    window: tuple[Instant, Instant],
    source: str,
) -> Iterator[Instance]:
    container = Calendar()
    for component in series.components:
        container.add_component(component)
    query = CalendarQuery(container, components=(_ADAPTERS[name],))
    produced = 0
    for library_series in query.series:
        for occurrence in library_series.between(low, high):
            produced += 1
            if produced > charged:  # defensive: the count above must bound the library
                raise CalendarError(
                    "ics.expansion_limit",
                    "the recurrence engine generated more instances than were counted",
                    uid=series.uid,
                    line=series.line,
                    source=source,
                )
            instance = series.instance_of(occurrence)
            if overlaps(instance.start, instance.end, *window):
                yield instance
