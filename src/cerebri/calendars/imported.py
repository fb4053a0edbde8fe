"""Calendars imported once and planned over many times: :class:`ImportedCalendars`.

:func:`cerebri.calendars.find_slot` expands every calendar's recurrences for each question.
Expansion costs far more than planning (a one-year calendar of 5 000 events: about 0.27 s to
expand, about 10 ms to plan one week; see ``bench/calendar_scaling.py``), so an application
that asks several questions over the same calendars keeps them here::

    imported = ImportedCalendars(named_calendars, floating_zone="Europe/Berlin")
    imported.expand(year_start, year_end)            # optional: one expansion up front
    request, result = imported.find_slot(query)      # reuses it: no expansion
    request, result = imported.find_slot(other_week) # still none

Every answer is the one :func:`~cerebri.calendars.find_slot` gives for the same calendars,
query and floating zone, byte for byte (request and result).
"""

from __future__ import annotations

import json
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass

from icalendar import Component

from cerebri._guard import arguments
from cerebri._json import JSONValue
from cerebri.calendars.answer import SlotAnswer, answer_for, rests_on_incomplete
from cerebri.calendars.arguments import invalid_argument, named_calendar_items, optional_items
from cerebri.calendars.attendance import read_optional
from cerebri.calendars.attendee_hours import attendee_zones
from cerebri.calendars.availability import unavailable_ranges
from cerebri.calendars.coverage import unobserved_ranges
from cerebri.calendars.objects import context_objects
from cerebri.calendars.planning import FIND_SLOT_LIMITS
from cerebri.calendars.query import (
    INTEGRATION_ID,
    NewEvent,
    SlotQuery,
    build_request,
    event_objects,
    expansion_window,
)
from cerebri.calendars.ranked import plan_ranked
from cerebri.ics import (
    DEFAULT_MAX_OCCURRENCES,
    BusyPeriod,
    CalendarWarning,
    busy_periods,
    warnings_of,
)
from cerebri.ics.expand import overlaps
from cerebri.planner import PlannerLimits, collector_paused
from cerebri.temporal import Instant, Interval, merge
from cerebri.temporal.zones import check_zone_name

__all__ = ["ImportedCalendars", "NamedBusy"]

NamedBusy = tuple[tuple[str, tuple[BusyPeriod, ...]], ...]
"""Busy periods per calendar id, in the order the calendars were given."""


@dataclass(frozen=True, slots=True)
class _Expansion:
    """Busy periods of every calendar over ``window``, read with ``floating_zone``."""

    window: Interval
    floating_zone: str
    busy: tuple[tuple[BusyPeriod, ...], ...]  # per calendar, in busy_periods order
    starts: tuple[tuple[int, ...], ...]  # per calendar: the start of each period, ns
    longest: tuple[int, ...]  # per calendar: the longest period, ns (0 when none)
    unobserved: tuple[Interval, ...]
    unavailable: tuple[Interval, ...]  # VAVAILABILITY exclusions over the window


def _within(
    periods: tuple[BusyPeriod, ...],
    starts: tuple[int, ...],
    longest: int,
    start: Instant,
    end: Instant,
) -> tuple[BusyPeriod, ...]:
    """The periods ``busy_periods`` reports for ``[start, end)``, from a wider expansion.

    ``periods`` is sorted by start, so only those starting in ``[start - longest, end)`` can
    overlap; the exact test is the one :mod:`cerebri.ics` applies.
    """
    low = bisect_left(starts, start.ns - longest)
    high = bisect_left(starts, end.ns)
    return tuple(p for p in periods[low:high] if overlaps(p.start, p.end, start, end))


class ImportedCalendars:
    """Named parsed calendars whose expansions are cached between questions.

    ``calendars`` pairs a calendar id (1-128 of ``[A-Za-z0-9._-]``) with a parsed calendar
    (:func:`cerebri.ics.parse_calendar`); ``floating_zone`` reads floating times, ``None``
    meaning each query's own zone, as :func:`~cerebri.calendars.find_slot` does.
    ``max_occurrences`` bounds each calendar's expansion of one window (the
    :func:`~cerebri.ics.busy_periods` default, which ``find_slot`` uses, by default).

    **What is cached.**

    * *Expansions*: for each expanded ``(floating zone, window)``, every calendar's busy
      periods overlapping the window (immutable tuples of frozen
      :class:`~cerebri.ics.BusyPeriod`), their start instants for bisection, and the
      window's unobserved ranges (time a free/busy-only calendar does not describe).
    * *Request pieces*: the CPIR JSON text of every busy period already written into a
      request, per ``(calendar id, query zone, period)``.

    **When it is reused.** A question whose window lies inside an expanded window for the
    same floating zone takes that expansion's periods overlapping its window (a bisection
    and a filter) and clips the unobserved ranges; nothing is expanded. Otherwise exactly
    the question's window is expanded, as ``find_slot`` would, and cached; cached windows
    it contains are dropped. Expanding a wide window up front with :meth:`expand` (say a
    year) makes every later question inside it cheap. Events shared by several questions
    reuse their request pieces. The calendars are treated as immutable: after changing a
    calendar object, call :meth:`clear` (or build a new instance).

    **Memory.** About 0.45 KB per cached busy period (the frozen period, its two instants,
    its start in the bisection index; UIDs and summaries are shared with the calendar) and
    about 0.6 KB per request piece. A one-year calendar of 5 000 events (9 300 busy
    periods) costs about 4 MB expanded, next to about 20 MB for the parsed calendar
    itself (``tracemalloc``). Nothing is evicted; :meth:`clear` empties both caches.

    Not thread-safe: share an instance between threads only under a lock.
    """

    def __init__(
        self,
        calendars: Sequence[tuple[str, Component]],
        *,
        floating_zone: str | None = None,
        max_occurrences: int = DEFAULT_MAX_OCCURRENCES,
    ) -> None:
        calendars = named_calendar_items(calendars, "ImportedCalendars() calendars")
        if floating_zone is not None and not isinstance(floating_zone, str):
            raise invalid_argument("ImportedCalendars() needs floating_zone as str or None")
        if type(max_occurrences) is not int:
            raise invalid_argument("ImportedCalendars() needs max_occurrences as int")
        self._names = tuple(name for name, _ in calendars)
        self._calendars = tuple(calendar for _, calendar in calendars)
        self._floating_zone = floating_zone
        self._max_occurrences = max_occurrences
        self._expanded: list[_Expansion] = []
        self._pieces: dict[tuple[str, str, BusyPeriod], str] = {}
        self._expansions = 0
        if floating_zone is not None:
            try:
                check_zone_name(floating_zone)
            except ValueError as exc:
                raise invalid_argument(str(exc)) from None

    @property
    def names(self) -> tuple[str, ...]:
        """The calendar ids, in the order given."""
        return self._names

    @property
    def floating_zone(self) -> str | None:
        """The zone floating times are read in (``None``: each query's zone)."""
        return self._floating_zone

    @property
    def warnings(self) -> tuple[CalendarWarning, ...]:
        """Every warning noticed while reading the calendars, sorted
        (:func:`cerebri.ics.warnings_of`)."""
        return warnings_of(self._calendars)

    @property
    def complete(self) -> bool:
        """``False`` when an event of some calendar was left out while reading it
        (``skip_invalid_events``); answers then claim no optimality (``BestFound``)."""
        return not rests_on_incomplete(self._calendars)

    @property
    def expansions(self) -> int:
        """How many windows have been expanded so far (each covers every calendar)."""
        return self._expansions

    @property
    def expanded_windows(self) -> tuple[tuple[str, Interval], ...]:
        """The cached ``(floating zone, window)`` pairs, oldest first."""
        return tuple((e.floating_zone, e.window) for e in self._expanded)

    def clear(self) -> None:
        """Forget every cached expansion and request piece."""
        self._expanded.clear()
        self._pieces.clear()

    @arguments(
        invalid_argument,
        window_start=Instant,
        window_end=Instant,
        floating_zone=(str, type(None)),
    )
    def expand(
        self, window_start: Instant, window_end: Instant, *, floating_zone: str | None = None
    ) -> None:
        """Expand every calendar over ``[window_start, window_end)`` now and cache it.

        ``floating_zone`` defaults to the instance's (``"UTC"`` when that is ``None`` too;
        pass the zone of the queries to come). Does nothing when an expanded window for
        that zone already contains this one.

        Raises:
            CalendarError: a malformed calendar, or more than ``max_occurrences``
                instances in one calendar.
            InvalidArgumentError: ``calendars.invalid_argument`` (also a ``ValueError``) for
                a wrong-typed argument or an empty window; ``temporal.invalid_argument`` for
                an unknown zone.
        """
        self._expansion(window_start, window_end, self._zone_for(floating_zone, "UTC"))

    @arguments(
        invalid_argument,
        window_start=Instant,
        window_end=Instant,
        floating_zone=(str, type(None)),
    )
    def busy(
        self, window_start: Instant, window_end: Instant, *, floating_zone: str | None = None
    ) -> NamedBusy:
        """Each calendar's busy periods overlapping ``[window_start, window_end)``: what
        :func:`~cerebri.ics.busy_periods` gives per calendar, from the cache when it can."""
        zone_name = self._zone_for(floating_zone, "UTC")
        expansion = self._expansion(window_start, window_end, zone_name)
        return tuple(
            (name, self._cut(expansion, index, window_start, window_end))
            for index, name in enumerate(self._names)
        )

    @arguments(
        invalid_argument,
        query=SlotQuery,
        limits=PlannerLimits,
        create=(NewEvent, type(None)),
        optional=Sequence,
    )
    def find_slot(
        self,
        query: SlotQuery,
        *,
        limits: PlannerLimits = FIND_SLOT_LIMITS,
        create: NewEvent | None = None,
        optional: Sequence[tuple[str, Component]] = (),
    ) -> SlotAnswer:
        """Plan ``query`` over the calendars; returns the CPIR request built and its result,
        identical to :func:`~cerebri.calendars.find_slot` with the same floating zone
        (a :class:`~cerebri.calendars.SlotAnswer`: also the warnings and completeness).
        ``create`` makes the request a ``CREATE`` of that :class:`NewEvent`
        (:func:`~cerebri.calendars.build_request`). ``optional`` names optional attendees'
        calendars as :func:`~cerebri.calendars.find_slot` does; they are expanded on every
        call (not cached) with this instance's ``max_occurrences``. ``query.attendee_hours``
        work as in :func:`~cerebri.calendars.find_slot` (docs/decisions/0053).

        The request is a new dictionary on every call (changing it changes no cache). The
        cyclic garbage collector is paused while the request is built and planned, as
        :func:`cerebri.plan` pauses it while planning: with a large parsed calendar alive, one
        full collection costs more than the whole plan.

        Raises:
            CalendarError: a malformed calendar.
            ValueError: an invalid calendar id or zone.
            InvalidArgumentError: ``calendars.invalid_argument``, ``query`` not a
                :class:`SlotQuery` or ``limits`` not :class:`~cerebri.planner.PlannerLimits`,
                or hours of a calendar id not given.
        """
        pairs = optional_items(self._names, optional, "find_slot() optional")
        named_all = [*zip(self._names, self._calendars, strict=True), *pairs]
        zones = attendee_zones(query.attendee_hours, named_all)
        required = frozenset(self._names)
        zone_name = self._zone_for(None, query.zone)
        start, end = expansion_window(query)  # the window widened by the buffer
        expansion = self._expansion(start, end, zone_name)
        named = [
            (name, self._cut(expansion, index, start, end))
            for index, name in enumerate(self._names)
        ]
        unknown = _clip(expansion.unobserved, Interval(query.window_start.ns, query.window_end.ns))
        closed = _clip(expansion.unavailable, Interval(start.ns, end.ns))
        attendees = read_optional(
            pairs, query, floating_zone=zone_name, max_occurrences=self._max_occurrences
        )
        with collector_paused():  # building the request creates no cycles either
            events = event_objects(named, query.zone, render=self._render)

            def build(preferred: Instant | None) -> dict[str, JSONValue]:
                return build_request(
                    events,
                    unknown,
                    query,
                    unavailable=closed,
                    create=create,
                    preferred_start=preferred,
                    required=required,
                )

            request, result, slots, dropped = plan_ranked(
                build, query, attendees, len(set(self._names)), limits
            )
            return answer_for(
                request,
                result,
                [*self._calendars, *(c for _, c in pairs)],
                slots=slots,
                below_min_attendance=dropped,
                zones=zones,
            )

    # --- internals -----------------------------------------------------------------------

    def _zone_for(self, floating_zone: str | None, fallback: str) -> str:
        return floating_zone or self._floating_zone or fallback

    def _expansion(self, window_start: Instant, window_end: Instant, zone_name: str) -> _Expansion:
        if not window_start < window_end:
            raise invalid_argument("the window must satisfy window_start < window_end")
        window = Interval(window_start.ns, window_end.ns)
        for cached in self._expanded:
            if cached.floating_zone == zone_name and cached.window.contains(window):
                return cached
        busy = tuple(
            busy_periods(
                calendar,
                window_start,
                window_end,
                floating_zone=zone_name,
                max_occurrences=self._max_occurrences,
            )
            for calendar in self._calendars
        )
        expansion = _Expansion(
            window=window,
            floating_zone=zone_name,
            busy=busy,
            starts=tuple(tuple(p.start.ns for p in periods) for periods in busy),
            longest=tuple(
                max((p.end.ns - p.start.ns for p in periods), default=0) for periods in busy
            ),
            unobserved=unobserved_ranges(self._calendars, window),
            unavailable=unavailable_ranges(
                self._calendars,
                window_start,
                window_end,
                floating_zone=zone_name,
                max_occurrences=self._max_occurrences,
            ),
        )
        self._expansions += 1
        self._expanded = [
            e
            for e in self._expanded
            if not (e.floating_zone == zone_name and window.contains(e.window))
        ]
        self._expanded.append(expansion)
        return expansion

    @staticmethod
    def _cut(
        expansion: _Expansion, index: int, window_start: Instant, window_end: Instant
    ) -> tuple[BusyPeriod, ...]:
        periods = expansion.busy[index]
        if expansion.window == Interval(window_start.ns, window_end.ns):
            return periods
        return _within(
            periods, expansion.starts[index], expansion.longest[index], window_start, window_end
        )

    def _render(self, calendar_id: str, period: BusyPeriod, zone_name: str) -> JSONValue:
        """The object :func:`~cerebri.calendars.query.event_objects` writes for a period,
        built once per ``(calendar id, zone, period)`` and kept as JSON text (so no request
        shares mutable values with the cache)."""
        key = (calendar_id, zone_name, period)
        text = self._pieces.get(key)
        if text is None:
            (obj,) = context_objects(
                (period,), calendar_id=calendar_id, integration_id=INTEGRATION_ID, zone=zone_name
            )
            text = obj.model_dump_json()
            self._pieces[key] = text
        value: JSONValue = json.loads(text)
        return value


def _clip(spans: tuple[Interval, ...], window: Interval) -> tuple[Interval, ...]:
    return merge(piece for span in spans if (piece := span.intersection(window)) is not None)
