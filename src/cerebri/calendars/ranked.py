"""find-slot's own ranking on top of the planner's: optional attendees, daily preferences.

The planner decides which starts are feasible (every required attendee free, working hours,
buffer). find-slot then orders those candidates by the total key (docs/decisions/0026)::

    (-number of optional attendees free, daily-preference distance (0 without one), start)

(the planner's own tie-breaks after cost, ``mutation_count`` and ``shifted_seconds``, are
the same for every candidate of one find-slot request, so ``start`` is what remains) and
leaves out the starts where fewer than ``min_attendance`` of all attendees are free.

CPIR 0.2 carries one preferred instant, so the request cannot hold this key. It carries the
start ranked first instead, as its ``ExplicitCurrentRequest`` preference: the request is
built once without a preference to learn the feasible starts, ranked, then rebuilt with that
start and planned again. ``cerebri plan`` of the emitted request therefore gives the same
candidates (same proposed plan ids) with the same first choice; find-slot's full order is
those candidates sorted by the key above, whose inputs each answer reports per slot
(:class:`~cerebri.calendars.SlotDetail`). Without a daily preference, optional attendees or
``min_attendance`` the request has no preference and is planned once.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from fractions import Fraction

from cerebri._json import JSONValue
from cerebri.calendars.answer import SlotDetail
from cerebri.calendars.attendance import BUSY, FREE, UNKNOWN, OptionalTime
from cerebri.calendars.query import SlotQuery
from cerebri.calendars.ranking import has_daily_preference, preference_distance
from cerebri.cpir import PlanningResult, RankedCandidate
from cerebri.planner import PlannerLimits, plan
from cerebri.planner.search import outcome_of
from cerebri.temporal import Instant

__all__ = ["RankedSlots", "plan_ranked"]

RankedSlots = tuple[
    dict[str, JSONValue], PlanningResult, tuple[SlotDetail, ...], tuple[SlotDetail, ...]
]
"""``(request, result, slots, below_min_attendance)``."""


def _detail(
    candidate: RankedCandidate, query: SlotQuery, optional: Sequence[OptionalTime]
) -> SlotDetail:
    placement = candidate.proposed.placements[0].range
    start, end = placement.start, placement.end
    said = [(o.name, o.status(start.ns, end.ns, query.buffer_seconds)) for o in optional]
    return SlotDetail(
        start=start,
        end=end,
        preference_distance_seconds=preference_distance(query, start),
        free=tuple(name for name, state in said if state == FREE),
        busy=tuple(name for name, state in said if state == BUSY),
        unknown=tuple(name for name, state in said if state == UNKNOWN),
    )


def _key(detail: SlotDetail) -> tuple[int, int, int]:
    return (-len(detail.free), detail.preference_distance_seconds or 0, detail.start.ns)


def _enough(detail: SlotDetail, query: SlotQuery, required: int, optional: int) -> bool:
    """Whether enough attendees are free: ``min_attendance`` compared exactly as the decimal
    it prints as (``0.8`` is 4/5, not the binary float just above it)."""
    if query.min_attendance is None or required + optional == 0:
        return True
    share = Fraction(repr(query.min_attendance))
    return Fraction(required + len(detail.free), required + optional) >= share


def _ranked(
    result: PlanningResult,
    query: SlotQuery,
    optional: Sequence[OptionalTime],
    required: int,
) -> tuple[PlanningResult, tuple[SlotDetail, ...], tuple[SlotDetail, ...]]:
    pairs = [(c, _detail(c, query, optional)) for c in result.candidates]
    kept = sorted(
        (p for p in pairs if _enough(p[1], query, required, len(optional))),
        key=lambda p: _key(p[1]),
    )
    dropped = tuple(d for _, d in pairs if not _enough(d, query, required, len(optional)))
    dropped = tuple(sorted(dropped, key=lambda d: d.start.ns))
    candidates = tuple(c for c, _ in kept)
    ranked = dataclasses.replace(result, candidates=candidates)
    if result.candidates and not candidates:  # every feasible start lacked attendance
        outcome, assessment = outcome_of(0, result.search_space.exhausted)
        ranked = dataclasses.replace(ranked, outcome=outcome, assessment=assessment)
    return ranked, tuple(d for _, d in kept), dropped


def plan_ranked(
    build: Callable[[Instant | None], dict[str, JSONValue]],
    query: SlotQuery,
    optional: Sequence[OptionalTime],
    required: int,
    limits: PlannerLimits,
) -> RankedSlots:
    """Build (``build(preferred_start)``), plan and rank as the module doc says.

    ``required`` is the number of required attendees (distinct calendar ids), ``optional`` the
    optional attendees' time (:func:`cerebri.calendars.attendance.read_optional`).
    """
    request = build(None)
    result = plan(request, limits=limits)
    ranks = bool(optional) or has_daily_preference(query) or query.min_attendance is not None
    if not ranks:
        slots = tuple(_detail(c, query, ()) for c in result.candidates)
        return request, result, slots, ()
    ordered, _, _ = _ranked(result, query, optional, required)
    if ordered.candidates:
        anchor = ordered.candidates[0].proposed.placements[0].range.start
        request = build(anchor)
        result = plan(request, limits=limits)
    final, slots, dropped = _ranked(result, query, optional, required)
    return request, final, slots, dropped
