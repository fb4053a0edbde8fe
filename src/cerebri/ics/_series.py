"""All components of one UID as a series, and its instances.

:class:`_Series` finds the masters and the overrides of one UID, charges the instances a
query window needs to the query's :class:`~cerebri.ics.budget.Budget`, and builds each
:class:`~cerebri.ics.instance.Instance`. ``recurring-ical-events`` generates the start of
every instance of one master (``RRULE``, ``RDATE``, ``DTSTART``); this module then applies
what RFC 5545 says about the rest, matching by instant (:mod:`cerebri.ics._matching`):

* an ``EXDATE`` value removes the instance it names, and nothing when it names none;
* an override (``RECURRENCE-ID``) replaces the instance it names; one that names no
  instance stands as an instance of its own (RFC 5545 section 3.8.4.4 lets the override
  define it). Of several overrides of one instance the highest ``SEQUENCE`` wins (an
  update, silently); several with that same highest ``SEQUENCE`` are all kept as busy time
  and each after the first (canonical order) reported as ``ics.duplicate_uid``; identical
  copies (the same content lines) are one instance, not reported;
* a ``RANGE=THISANDFUTURE`` override also moves every later instance by its own shift
  (``DTSTART - RECURRENCE-ID``) and gives it its length and properties;
* ends are recomputed (:mod:`cerebri.ics._ends`); a moved instance's recurrence id is its
  original start.

Masters (components without ``RECURRENCE-ID``): of several with one UID, the highest
``SEQUENCE`` is the current version and lower ones are older versions it replaces
(RFC 5546 section 2.1.4); several with the same highest ``SEQUENCE`` (or none) are all
kept, each expanded with its own rules and ``EXDATE`` values, and reported
(``ics.duplicate_uid``), so that their time is never offered as free; identical instances
(identical copies of one component) are given once.

A ``DATE`` value in a ``DATE-TIME`` series (RFC 5545 sections 3.3.10, 3.8.4.4 and 3.8.5.2
require the type of ``DTSTART``) is read so that no busy time is lost, and reported as
``ics.lenient``: an ``UNTIL`` date as the end of that local day, an ``RDATE`` date as
that whole local day, a ``RECURRENCE-ID`` date as naming the instances of that local day.

Values that name no instance are reported (``ics.unmatched_exdate``,
``ics.unmatched_recurrence_id``) whatever the query window: each is looked up among the
instances around it, not among those of the window.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, date, datetime, timedelta, tzinfo
from typing import Any, Final

from icalendar import Calendar, Component
from icalendar.prop import vDuration, vRecur
from recurring_ical_events import (  # type: ignore[import-untyped]  # no type information
    CalendarQuery,
    EventAdapter,
)

from cerebri.ics._ends import _end_rule, _EndRule, _plus
from cerebri.ics._matching import Key, instance_keys, value_key
from cerebri.ics.budget import Budget
from cerebri.ics.errors import CalendarError
from cerebri.ics.instance import Instance
from cerebri.ics.rules import count_instances, is_empty_rule
from cerebri.ics.source import component_line, property_line
from cerebri.ics.times import Duration, add_duration, date_text, to_instant, utc_text
from cerebri.ics.validate import time_of
from cerebri.ics.warnings import CalendarWarning
from cerebri.ics.zones import property_values
from cerebri.temporal.instant import Instant

_NEAR: Final = timedelta(days=2)
"""Instances are looked up this far on both sides of an ``EXDATE`` or ``RECURRENCE-ID``."""

_FIRST: Final = datetime.min.replace(tzinfo=UTC)
_LAST: Final = datetime.max.replace(tzinfo=UTC)
_TICK: Final = timedelta(seconds=1)
_SLACK: Final = timedelta(days=1)

Warn = Callable[[CalendarWarning], None]


def _sequence(component: Component) -> int:
    value = component.get("SEQUENCE")
    try:
        return int(value) if value is not None else -1
    except (TypeError, ValueError):
        return -1


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


def _rule_values(component: Component) -> list[Any]:
    return [rule for rule in property_values(component, "RRULE") if not is_empty_rule(rule)]


def _leaves(component: Component, name: str) -> Iterator[Any]:
    for value in property_values(component, name):
        leaves = getattr(value, "dts", None)
        yield from (leaf.dt for leaf in (leaves if isinstance(leaves, list) else [value]))


def _rdate_leaves(component: Component) -> Iterator[Any]:
    return _leaves(component, "RDATE")


def _library_series(master: Component, adapter: object) -> Any:
    """The library's series of one master component (alone in a calendar)."""
    container = Calendar()
    container.add_component(master)
    (series,) = CalendarQuery(container, components=(adapter,)).series
    return series


def _own_length(component: Component, start: date, floating: tzinfo) -> timedelta:
    """The exact length of the instance at ``DTSTART``, by cerebri's end rule."""
    first = to_instant(start, floating)
    length = _end_rule(component, floating).end(start, first, floating) - first
    return timedelta(microseconds=max(length, 0) // 1000)


def _without_exdates(master: Component, start: date, *, zero_length: bool = False) -> Component:
    """A shallow copy of ``master`` without ``EXDATE`` (cerebri applies those itself), a
    ``DATE`` ``UNTIL`` of a ``DATE-TIME`` series read as the end of that day
    (:func:`_until_end_of_day`); with ``zero_length``, with ``DURATION:PT0S`` for its
    ``DTEND`` or ``DURATION`` (the library then gives starts only)."""
    clone = type(master)()
    if zero_length:
        clone["DURATION"] = vDuration(timedelta(0))
    for name, value in master.items():
        if name.upper() == "EXDATE":
            continue
        if zero_length and name.upper() in ("DTEND", "DURATION"):
            continue
        kept = value
        if name.upper() == "RRULE" and isinstance(start, datetime):
            rules = value if isinstance(value, list) else [value]
            fixed = [_until_end_of_day(rule, start) for rule in rules]
            kept = fixed if isinstance(value, list) else fixed[0]
        clone[name] = kept
    return clone


def _date_until(rule: object, start: date) -> date | None:
    """The ``UNTIL`` of ``rule`` when it is a ``DATE`` on a ``DATE-TIME`` series."""
    if not isinstance(start, datetime) or not isinstance(rule, vRecur):
        return None
    until = rule.get("UNTIL")
    value = until[0] if isinstance(until, list) and until else until
    return value if isinstance(value, date) and not isinstance(value, datetime) else None


def _until_end_of_day(rule: object, start: datetime) -> object:
    """``rule`` with a ``DATE`` ``UNTIL`` replaced by the last second of that local day
    in the zone of ``start`` (UTC for a zoned start, floating for a floating one).

    RFC 5545 section 3.3.10 requires ``UNTIL`` to have the value type of ``DTSTART``; the
    recurrence engine reads a date as midnight UTC and so drops that day's instance.
    Reading it as the whole day keeps every instance the date may mean (busy time is
    never offered as free); :meth:`_Series.report` says so (``ics.lenient``).
    """
    day = _date_until(rule, start)
    if day is None:
        return rule
    assert isinstance(rule, vRecur)
    last = datetime(day.year, day.month, day.day, 23, 59, 59, tzinfo=start.tzinfo)
    fixed = vRecur(dict(rule))
    fixed["UNTIL"] = [last if start.tzinfo is None else last.astimezone(UTC)]
    return fixed


def _utc(instant: Instant, delta: timedelta) -> datetime:
    """``instant + delta`` as an aware UTC datetime, clamped to ``datetime``'s range."""
    moment = instant.to_datetime()
    if moment is None:
        return _FIRST if instant.ns < 0 else _LAST
    return _shifted(moment, delta)


class _TooManyStepsError(Exception):
    """A walk took more steps than allowed."""


class _Master:
    """One master component: its start, its ``EXDATE`` keys and its library series."""

    def __init__(self, component: Component, adapter: object, floating: tzinfo) -> None:
        self.component = component
        self.start = time_of(component, "DTSTART")
        self.exdates: dict[Key, date] = {}
        for value in _leaves(component, "EXDATE"):
            if isinstance(value, date):
                self.exdates.setdefault(value_key(value, self.start, floating), value)
        self.length = _length(component)
        self.direct = False
        try:
            self.library = _library_series(_without_exdates(component, self.start), adapter)
        except OverflowError:
            # The library computes the end with ``datetime``, which holds no end after year
            # 9999: it gets the component without its end, cerebri computes the ends.
            copy = _without_exdates(component, self.start, zero_length=True)
            self.library = _library_series(copy, adapter)
            self.direct = True
            self.length = _own_length(component, self.start, floating)

    def starts(self, low: datetime, high: datetime) -> Iterator[date]:
        """The starts of the instances whose library reading overlaps ``[low, high]``.

        The library's query reaches back by the master's length from ``low`` and computes
        each instance's end with ``datetime``, which overflows within that length of the
        first instant of year 1 or the last of year 9999. There the starts come from the
        rules directly (from the start of year 1, to the end of year 9999, in the zone of
        ``DTSTART``); cerebri computes their ends as instants
        (:mod:`cerebri.ics._ends`), so these instances are read like any other.
        """
        floor = _shifted(_FIRST, self.length + _TICK)
        ceiling = _shifted(_LAST, -(self.length + _TICK))
        seen: set[date] = set()
        if self.direct:  # the library cannot compute this master's ends at all
            reach = _shifted(low, -self.length)
            yield from self._direct(self._edge(_FIRST) if reach <= _FIRST else reach, high, seen)
            return
        if low < floor:
            yield from self._direct(self._edge(_FIRST), min(floor, high), seen)
            low = floor
        if high > ceiling:
            yield from self._direct(max(low, ceiling), self._edge(_LAST), seen)
            high = ceiling
        if low > high:
            return
        for occurrence in self.library.between(low, high):
            if occurrence.start not in seen:
                yield occurrence.start

    def _edge(self, moment: datetime) -> datetime:
        """The first or last ``datetime`` (``moment``) as a wall time in the zone of
        ``DTSTART`` (naive for a floating or all-day series), so the rules compare it on
        their own clock."""
        if isinstance(self.start, datetime) and self.start.tzinfo is not None:
            return moment.replace(tzinfo=self.start.tzinfo)
        return moment.replace(tzinfo=None)

    def _direct(self, low: datetime, high: datetime, seen: set[date]) -> Iterator[date]:
        """The rule, ``RDATE`` and ``DTSTART`` starts in ``[low, high]`` not in ``seen``
        (then added to it), in the value type of ``DTSTART``."""
        recurrence = self.library.recurrence
        for start in recurrence.rrule_between(low, high):
            value = recurrence.convert_to_original_type(start)
            if value not in seen:
                seen.add(value)
                yield value

    def walkable(self, high: datetime, steps: int) -> bool:
        """Whether the rules generate at most ``steps`` instances up to ``high`` (counted
        with :func:`cerebri.ics.rules.count_instances`, which stops early)."""
        taken = 0

        def step() -> None:
            nonlocal taken
            taken += 1
            if taken > steps:
                raise _TooManyStepsError

        try:
            for rule in _rule_values(self.component):
                count_instances(rule, self.start, _FIRST, high, spend=step, walk=step)
        except _TooManyStepsError:
            return False
        return True

    def raw_keys(self, low: datetime, high: datetime, floating: tzinfo) -> set[Key]:
        """The keys of every instance start the rules generate in ``[low, high]``."""
        found: set[Key] = set()
        for start in self.library.rrule_between(low, high):
            value = (
                start.date()
                if isinstance(start, datetime) and not isinstance(self.start, datetime)
                else start
            )
            found.update(instance_keys(value, to_instant(value, floating)))
        return found


def _override_key(component: Component, first: date | None, floating: tzinfo) -> Key:
    """The instance key of an override's ``RECURRENCE-ID`` (read like the series' start
    ``first`` when there is a master)."""
    rid = time_of(component, "RECURRENCE-ID")
    return value_key(rid, rid if first is None else first, floating)


def _winning_overrides(
    components: list[Component], first: date | None, floating: tzinfo
) -> dict[Key, Component]:
    """Per instance key, the override with the highest ``SEQUENCE`` (the first of equals)."""
    overrides: dict[Key, Component] = {}
    for component in components:
        if "RECURRENCE-ID" not in component:
            continue
        key = _override_key(component, first, floating)
        known = overrides.get(key)
        if known is None or _sequence(component) > _sequence(known):
            overrides[key] = component
    return overrides


def _repeated_overrides(
    components: list[Component],
    overrides: dict[Key, Component],
    first: date | None,
    floating: tzinfo,
) -> list[tuple[Key, Component]]:
    """The overrides other than the winner with the winner's ``SEQUENCE`` and a different
    text, one per distinct text."""
    repeated: list[tuple[Key, Component]] = []
    for component in components:
        if "RECURRENCE-ID" not in component:
            continue
        key = _override_key(component, first, floating)
        winner = overrides[key]
        if (
            component is not winner
            and _sequence(component) == _sequence(winner)
            and not _same_text(component, winner)
            and not any(_same_text(component, kept) for _, kept in repeated)
        ):
            repeated.append((key, component))
    return repeated


class _Series:
    """All components of one UID, and how to turn them into instances."""

    def __init__(
        self,
        uid: str,
        components: list[Component],
        floating: tzinfo,
        cancel_all: bool,
        adapter: object = "VEVENT",
    ) -> None:
        self.uid = uid
        self.components = components
        self.floating = floating
        self.cancel_all = cancel_all
        all_masters = [c for c in components if "RECURRENCE-ID" not in c]
        top = max((_sequence(c) for c in all_masters), default=-1)
        self.masters = [_Master(c, adapter, floating) for c in all_masters if _sequence(c) == top]
        self.master: Component | None = self.masters[0].component if self.masters else None
        first = None if self.master is None else self.masters[0].start
        self.overrides: dict[Key, Component] = _winning_overrides(components, first, floating)
        # Repeated overrides of one instance with the winner's SEQUENCE, kept as busy time
        # too (the policy of repeated masters); identical copies are not kept.
        self.repeated = _repeated_overrides(components, self.overrides, first, floating)
        self.future: list[tuple[int, Component]] = sorted(
            (
                (self._instant(time_of(component, "RECURRENCE-ID")).ns, component)
                for component in self.overrides.values()
                if _is_this_and_future(component)
            ),
            key=lambda pair: pair[0],
        )
        self.recurring = bool(self.overrides) or any(
            bool(_rule_values(m.component)) or "RDATE" in m.component for m in self.masters
        )
        self.periods: dict[int, tuple[date, object]] = {}
        self.day_rdates: set[int] = set()  # DATE RDATE values of DATE-TIME series: whole days
        self._end_rules: dict[int, _EndRule] = {}  # per id(component)
        self._sequences: dict[int, int] = {}
        self._dates_only: bool | None = None
        for master in self.masters:
            self._add_rdates(master)

    def _add_rdates(self, master: _Master) -> None:
        """Record the ``RDATE`` periods of ``master`` and, for a DATE-TIME series, its DATE
        values (whole days)."""
        for leaf in _rdate_leaves(master.component):
            if isinstance(leaf, tuple):
                self.periods[to_instant(leaf[0], self.floating).ns] = (leaf[0], leaf[1])
            elif _is_day_on_times(leaf, master.start):
                self.day_rdates.add(_midnight(leaf, master.start, self.floating).ns)

    @property
    def line(self) -> int | None:
        first = self.master if self.master is not None else self.components[0]
        return component_line(first)

    def _instant(self, value: date) -> Instant:
        """``value`` as an instant; floating values in the zone of the series' start."""
        if (
            isinstance(value, datetime)
            and value.tzinfo is None
            and self.masters
            and isinstance(self.masters[0].start, datetime)
            and self.masters[0].start.tzinfo is not None
        ):
            value = value.replace(tzinfo=self.masters[0].start.tzinfo)
        return to_instant(value, self.floating)

    # -- checks independent of the query window -------------------------------------------

    def report(self, warn: Warn, source: str, steps: int) -> None:
        """Report repeated masters and values that name no instance (see the module doc).

        Finding the instances around the values may step over at most ``steps`` rule
        instances per master; a series that needs more is not checked (nothing reported).
        """
        for master in self.masters[1:]:
            warn(
                CalendarWarning(
                    "ics.duplicate_uid",
                    "another component has this UID and the same SEQUENCE without "
                    "RECURRENCE-ID; both are kept as busy time",
                    uid=self.uid,
                    line=component_line(master.component),
                    source=source,
                )
            )
        for _, override in self.repeated:
            rid = time_of(override, "RECURRENCE-ID")
            warn(
                CalendarWarning(
                    "ics.duplicate_uid",
                    f"another override has this UID, RECURRENCE-ID {_shown(rid)} and the "
                    "same SEQUENCE; both are kept as busy time",
                    uid=self.uid,
                    line=component_line(override),
                    source=source,
                )
            )
        if self.masters:
            self._report_value_types(warn, source)
        if not self.masters:
            return  # overrides without their series (a single-instance invitation)
        named = [(k, v, "EXDATE", m.component) for m in self.masters for k, v in m.exdates.items()]
        named += [
            (k, time_of(o, "RECURRENCE-ID"), "RECURRENCE-ID", o) for k, o in self.overrides.items()
        ]
        if not named:
            return
        instants = [self._instant(value) for _, value, _, _ in named]
        low, high = _utc(min(instants), -_NEAR), _utc(max(instants), _NEAR)
        known: set[Key] = set()
        for master in self.masters:
            if not master.walkable(high, steps):
                return
            known |= master.raw_keys(low, high, self.floating)
        for key, value, name, component in named:
            if key in known:
                continue
            exdate = name == "EXDATE"
            warn(
                CalendarWarning(
                    "ics.unmatched_exdate" if exdate else "ics.unmatched_recurrence_id",
                    f"{name} {_shown(value)} names no instance of the series; "
                    + (
                        "it removes nothing"
                        if exdate
                        else "the override stands as busy time of its own"
                    ),
                    uid=self.uid,
                    line=property_line(component, name),
                    source=source,
                )
            )

    def _report_value_types(self, warn: Warn, source: str) -> None:
        """``ics.lenient`` for each ``DATE`` given to a ``DATE-TIME`` series (RFC 5545
        sections 3.3.10, 3.8.4.4, 3.8.5.2 require the value type of ``DTSTART``), saying how
        it was read."""

        def lenient(component: Component, name: str, message: str) -> None:
            warn(
                CalendarWarning(
                    "ics.lenient",
                    message,
                    uid=self.uid,
                    line=property_line(component, name),
                    source=source,
                )
            )

        for master in self.masters:
            for rule in _rule_values(master.component):
                until = _date_until(rule, master.start)
                if until is not None:
                    lenient(
                        master.component,
                        "RRULE",
                        f"UNTIL {_shown(until)} is a DATE but DTSTART a DATE-TIME; it was "
                        "read as the end of that local day (its instances are kept)",
                    )
            for leaf in _rdate_leaves(master.component):
                if _is_day_on_times(leaf, master.start):
                    lenient(
                        master.component,
                        "RDATE",
                        f"RDATE {_shown(leaf)} is a DATE but DTSTART a DATE-TIME; the whole "
                        "local day was read as busy",
                    )
        first = self.masters[0].start
        for override in [*self.overrides.values(), *(c for _, c in self.repeated)]:
            rid = time_of(override, "RECURRENCE-ID")
            if _is_day_on_times(rid, first):
                lenient(
                    override,
                    "RECURRENCE-ID",
                    f"RECURRENCE-ID {_shown(rid)} is a DATE but DTSTART a DATE-TIME; it was "
                    "read as naming the instances of that local day",
                )

    # -- the counted limit ----------------------------------------------------------------

    def charge(self, low: datetime, high: datetime, budget: Budget, source: str) -> int:
        """Charge the instances of a recurring series the window ``[low, high]`` needs;
        return the count.

        Rule instances count when they start from one span (the master's length plus the
        moves of ``THISANDFUTURE`` overrides, plus a day of slack) before ``low`` up to
        ``high``; rule instances before that are only walked over, within
        :meth:`Budget.walk`. A ``DTSTART``, ``RDATE`` value or override counts one when it
        starts within the same reach of the window. A series that does not recur (no
        ``RRULE``, ``RDATE`` or override) costs nothing: it generates no instance.
        """
        if not self.recurring:
            return 0
        before = budget.used

        def spend() -> None:
            budget.spend(uid=self.uid, line=self.line, source=source)

        for override in [*self.overrides.values(), *(c for _, c in self.repeated)]:
            if self._near(time_of(override, "DTSTART"), _ns(_length(override)), 0, low, high):
                spend()
        back, ahead = self._reach()
        for master in self.masters:
            length = master.length
            reach = _ns(back + length)
            if self._near(master.start, reach, _ns(ahead), low, high):
                spend()
            for leaf in _rdate_leaves(master.component):
                start, longest = leaf, reach
                if isinstance(leaf, tuple):
                    start, longest = leaf[0], max(reach, self._period_ns(leaf))
                if self._near(start, longest, _ns(ahead), low, high):
                    spend()
            line = property_line(master.component, "RRULE")

            def spend_rule(line: int | None = line) -> None:
                budget.spend(uid=self.uid, line=line, source=source)

            def walk(line: int | None = line) -> None:
                budget.walk(uid=self.uid, line=line, source=source)

            for rule in _rule_values(master.component):
                count_instances(
                    rule,
                    master.start,
                    _shifted(low, -(back + length)),
                    _shifted(high, ahead),
                    spend=spend_rule,
                    walk=walk,
                )
        return budget.used - before

    def _near(self, value: date, back: int, ahead: int, low: datetime, high: datetime) -> bool:
        """Whether ``value`` (a start) lies from ``back`` nanoseconds and a day before
        ``low`` to ``ahead`` nanoseconds and a day after ``high`` (a value the zone rules
        cannot place counts as near)."""
        try:
            start = self._instant(value).ns
        except (OverflowError, ValueError):
            return True
        slack = _ns(_SLACK)
        first = Instant.from_datetime(low).ns - back - slack
        return first <= start <= Instant.from_datetime(high).ns + ahead + slack

    def _period_ns(self, period: tuple[date, object]) -> int:
        """The length of an ``RDATE`` ``PERIOD`` value in nanoseconds (0 when unreadable)."""
        start, end = period
        try:
            if isinstance(end, timedelta):
                return max(_ns(end), 0)
            if isinstance(end, date):
                return max(self._instant(end) - self._instant(start), 0)
        except (OverflowError, ValueError):
            pass
        return 0

    def near_window(self, instance: Instance, low: int, high: int) -> bool:
        """Whether ``instance`` of a recurring series overlaps ``[low, high]`` (UTC
        nanoseconds, a day of slack each side), so that it is counted; instances of a
        series that does not recur are never counted."""
        slack = _ns(_SLACK)
        return (
            self.recurring and instance.start.ns <= high + slack and instance.end.ns >= low - slack
        )

    def _reach(self) -> tuple[timedelta, timedelta]:
        """How much earlier and later than the window original starts of instances moved
        by ``THISANDFUTURE`` overrides may lie (RFC 5545 section 3.8.4.4)."""
        back = ahead = timedelta(0)
        for _, override in self.future:
            earlier, later = EventAdapter(override).extend_query_span_by
            back, ahead = max(back, earlier), max(ahead, later)
        return back, ahead

    # -- instances ------------------------------------------------------------------------

    def instances(self, low: datetime, high: datetime) -> Iterator[Instance]:
        """Every instance whose reading may overlap ``[low, high]`` (callers cut them to
        the exact window), overrides included."""
        back, ahead = self._reach()
        made: set[Instance] | None = set() if len(self.masters) > 1 else None
        for master in self.masters:
            named = bool(master.exdates) or bool(self.overrides)
            for start in master.starts(_shifted(low, -back), _shifted(high, ahead)):
                instant = to_instant(start, self.floating)
                if named and any(
                    key in master.exdates or key in self.overrides
                    for key in instance_keys(start, instant)
                ):
                    continue
                instance = self._regular(master.component, start, instant)
                if made is not None:
                    if instance in made:
                        continue  # an identical copy of the component: the same busy time
                    made.add(instance)
                yield instance
        excluded = {key for master in self.masters for key in master.exdates}
        for key, override in [*self.overrides.items(), *self.repeated]:
            if key in excluded:
                continue  # RFC 5545 3.8.5.1: EXDATE removes the instance, overridden or not
            yield self._make(
                time_of(override, "DTSTART"),
                override,
                time_of(override, "RECURRENCE-ID"),
                is_override=True,
            )

    def _regular(self, master: Component, start: date, instant: Instant) -> Instance:
        """The instance of ``master`` originally at ``start``, moved and reshaped by the
        last ``THISANDFUTURE`` override before it, if any."""
        if self.future:
            governing = None
            for rid, override in self.future:
                if rid < instant.ns:
                    governing = override
            if governing is not None:
                moved_to, moved_from = _comparable(
                    time_of(governing, "DTSTART"), time_of(governing, "RECURRENCE-ID")
                )
                shift = moved_to - moved_from
                if isinstance(start, datetime):
                    moved: date = start + shift
                else:
                    moved = start + timedelta(days=shift.days)
                return self._make(moved, governing, start, is_override=False)
        return self._make(start, master, start, is_override=False, start_instant=instant)

    def _make(
        self,
        start_value: date,
        source: Component,
        original: date,
        *,
        is_override: bool,
        start_instant: Instant | None = None,
    ) -> Instance:
        """The instance starting at ``start_value`` (at ``start_instant`` when known)
        defined by ``source`` (its end rule, ``SUMMARY``, ``TRANSP``, ``STATUS``),
        originally at ``original``."""
        start = start_instant or to_instant(start_value, self.floating)
        original_instant = start if original is start_value else to_instant(original, self.floating)
        end = self._end(source, start_value, start, None if is_override else original_instant)
        recurrence_id: str | None = None
        if self.recurring:
            recurrence_id = self._recurrence_text(original, original_instant)
        summary = source.get("SUMMARY")
        return Instance(
            start=start,
            end=end,
            uid=self.uid,
            recurrence_id=recurrence_id,
            summary=None if summary is None else str(summary),
            sequence=self._sequence_of(source),
            transparent=str(source.get("TRANSP", "OPAQUE")).upper() == "TRANSPARENT",
            cancelled=self.cancel_all or str(source.get("STATUS", "")).upper() == "CANCELLED",
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
                self._dates_only = not isinstance(self.masters[0].start, datetime)
            dates_only = self._dates_only
        if dates_only:
            return date_text(original.date() if isinstance(original, datetime) else original)
        return utc_text(original_instant)

    def _end(
        self, source: Component, start_value: date, start: Instant, original: Instant | None
    ) -> Instant:
        """The corrected end of one instance (RFC 5545 sections 3.3.6, 3.6.1, 3.8.5.3)."""
        if original is not None and original.ns in self.day_rdates:
            day = start_value.date() if isinstance(start_value, datetime) else start_value
            next_day = _midnight(day + timedelta(days=1), start_value, self.floating)
            regular = self._regular_end(source, start_value, start)
            return next_day if regular < next_day else regular
        if original is not None and original.ns in self.periods:
            period_start, period_end = self.periods[original.ns]
            if isinstance(period_end, timedelta):
                return add_duration(start_value, Duration.from_timedelta(period_end), self.floating)
            assert isinstance(period_end, date)
            exact = to_instant(period_end, self.floating) - to_instant(period_start, self.floating)
            return _plus(start, exact)
        return self._regular_end(source, start_value, start)

    def _regular_end(self, source: Component, start_value: date, start: Instant) -> Instant:
        """The end ``source``'s own rule gives an instance starting at ``start_value``."""
        rule = self._end_rules.get(id(source))
        if rule is None:
            rule = self._end_rules[id(source)] = _end_rule(source, self.floating)
        return rule.end(start_value, start, self.floating)


def _is_day_on_times(value: object, series_start: date) -> bool:
    """Whether ``value`` is a ``DATE`` given to a ``DATE-TIME`` series."""
    return (
        isinstance(value, date)
        and not isinstance(value, datetime)
        and isinstance(series_start, datetime)
    )


def _midnight(day: date, series_start: date, floating: tzinfo) -> Instant:
    """The start of ``day`` in the zone of ``series_start`` (the floating zone for a
    floating or all-day start), as the recurrence engine places a ``DATE`` value."""
    zone = series_start.tzinfo if isinstance(series_start, datetime) else None
    return to_instant(datetime(day.year, day.month, day.day, tzinfo=zone), floating)


def _same_text(first: Component, second: Component) -> bool:
    """Whether two components are identical copies (the same content lines)."""
    try:
        return bool(first.to_ical() == second.to_ical())
    except Exception:  # a value icalendar cannot write back: treat them as different
        return False


def _ns(delta: timedelta) -> int:
    """``delta`` in nanoseconds."""
    return (delta.days * 86_400 + delta.seconds) * 1_000_000_000 + delta.microseconds * 1_000


def _shown(value: date) -> str:
    return value.isoformat()


def _length(component: Component) -> timedelta:
    """The library's reading of the component's length (never negative)."""
    try:
        length = EventAdapter(component).duration
    except Exception:  # a reading the library cannot make; validation refused worse ones
        return timedelta(0)
    return length if isinstance(length, timedelta) and length > timedelta(0) else timedelta(0)


def _shifted(moment: datetime, delta: timedelta) -> datetime:
    try:
        return moment + delta
    except OverflowError:
        return _FIRST if delta < timedelta(0) else _LAST


__all__ = ["CalendarError", "_Series", "_rdate_leaves", "_sequence"]
