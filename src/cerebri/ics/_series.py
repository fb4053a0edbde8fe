"""All components of one UID as a series, and the library's occurrences as instances.

:class:`_Series` finds the master and the overrides of one UID, charges every instance
its rules can generate to the query's :class:`~cerebri.ics.budget.Budget`, and turns
each occurrence ``recurring-ical-events`` yields into an
:class:`~cerebri.ics.instance.Instance` with the corrections of
:mod:`cerebri.ics.expand`: recomputed ends (:mod:`cerebri.ics._ends`), the original start
as the recurrence id of instances moved by a ``RANGE=THISANDFUTURE`` override. End rules,
sequences and the series' value type are read once per component.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, datetime, timedelta, tzinfo
from typing import Any

from icalendar import Component

from cerebri.ics._ends import _end_rule, _EndRule, _plus
from cerebri.ics.budget import Budget
from cerebri.ics.errors import CalendarError
from cerebri.ics.instance import Instance
from cerebri.ics.rules import count_instances, is_empty_rule
from cerebri.ics.source import component_line, property_line
from cerebri.ics.times import Duration, add_duration, date_text, to_instant, utc_text
from cerebri.ics.validate import time_of
from cerebri.ics.zones import property_values
from cerebri.temporal.instant import Instant


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

    def instance_of(self, occurrence: Any, component: Component | None) -> Instance:
        """:meth:`instance` of ``occurrence.as_component(False)``, without making the copy
        when :func:`_copied_from` finds the component it would copy (``component``, its
        result for ``occurrence``, passed in by :func:`cerebri.ics.expand._run`)."""
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
