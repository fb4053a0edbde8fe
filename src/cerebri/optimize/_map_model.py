"""The solver's model built from a checked batch member (issue #24, decision 0070).

:func:`build_problem` turns :class:`~cerebri.optimize._map_checks.BatchInputs` without
issues into a :class:`~cerebri.optimize.model.BatchProblem`: the grains with their day in
the day zone, each person's open and busy grains, each room's busy grains, and each
meeting's ``allowed_starts`` (the intersection of its window, hard constraints and facts).
The rules are in :mod:`cerebri.optimize.mapping`'s docstring. Pure and deterministic:
meetings, people and rooms in sorted id order, grains in time order.
"""

from __future__ import annotations

from cerebri.cpir import (
    AvailabilityWindow,
    BatchMeeting,
    Deadline,
    DependencyOrder,
    EarliestStart,
    EventKind,
    ExplicitDate,
    ExplicitTime,
    ExternalLock,
    FactDeadline,
    FactExternalLock,
    LatestEnd,
    PlanningObject,
    TaskKind,
)
from cerebri.optimize._map_checks import BatchInputs
from cerebri.optimize._map_grid import NS
from cerebri.optimize.model import (
    After,
    BatchProblem,
    Grain,
    Meeting,
    Person,
    Room,
    SolverBudget,
    Travel,
    Weights,
)

_BLOCKING = (EventKind, TaskKind)


def build_problem(inputs: BatchInputs) -> BatchProblem:
    """The model of ``inputs``; call only when no issue blocks it (``inputs.issues`` empty
    and the request has a duration)."""
    return _ModelBuilder(inputs).problem()


class _ModelBuilder:
    """Builds the model pieces; caches allowed-start sets shared between meetings."""

    def __init__(self, inputs: BatchInputs) -> None:
        self.inputs = inputs
        self.origin = inputs.origin
        self.end = inputs.end
        self.grain = inputs.grain
        self.count = inputs.count
        self._fits_cache: dict[tuple[int, int, int], frozenset[int]] = {}

    def _busy(self, start_ns: int, end_ns: int) -> range:
        low = max(0, self.inputs.index_floor(start_ns))
        high = min(self.count, -((self.origin - end_ns) // self.grain))
        return range(low, max(low, high))

    def _day_zone(self) -> str:
        for target in self.inputs.targets:
            obj = self.inputs.objects.get(target)
            if obj is not None:
                return obj.timezone
        return "UTC"

    def problem(self) -> BatchProblem:
        """The model; call only when no issue blocks it."""
        inputs = self.inputs
        request = inputs.request
        batch = inputs.batch
        day_rows = inputs.grid.of(self._day_zone())
        grains = tuple(
            Grain(i, (self.origin + i * self.grain) // NS, day_rows[i][0])
            for i in range(self.count)
        )
        fixed = [
            obj
            for obj in request.context.objects
            if obj.id not in inputs.meetings
            and isinstance(obj.kind, _BLOCKING)
            and obj.known_time is not None
        ]
        everyone: set[int] = set()
        compiled = inputs.validation.compiled
        for occurrence in () if compiled is None else compiled.busy():
            everyone.update(self._busy(occurrence.start, occurrence.end))
        people = tuple(
            Person(
                p.id,
                inputs.grid.open_grains(p.timezone, p.hours),
                frozenset(self._busy_for(fixed, p.calendar_id, p.id) | everyone),
            )
            for p in sorted(batch.people, key=lambda p: p.id)
        )
        rooms = tuple(
            Room(
                r.id,
                r.capacity,
                None,
                frozenset(self._busy_for(fixed, r.calendar_id, r.id) | everyone),
            )
            for r in sorted(batch.rooms, key=lambda r: r.id)
        )
        meetings = tuple(self._meeting(inputs.meetings[mid]) for mid in sorted(inputs.meetings))
        step = self.grain // NS
        travel = tuple(Travel(t.a, t.b, t.seconds // step) for t in batch.travel)
        weights = batch.weights
        solver = batch.solver
        budget = request.budget
        repairs = min(budget.max_repairs, budget.max_moved_objects)
        if not request.analysis_only:
            repairs = min(repairs, min(inputs.mutation_caps()) - len(inputs.targets))
        return BatchProblem(
            grain_seconds=step,
            grains=grains,
            meetings=meetings,
            people=people,
            rooms=rooms,
            travel=travel,
            weights=Weights() if weights is None else Weights(**weights.model_dump()),
            budget=SolverBudget(
                deterministic_time=10.0 if solver is None else solver.deterministic_time,
                workers=1 if solver is None else solver.workers,
                seed=0 if solver is None else solver.seed,
                max_repairs=max(0, repairs),
                max_depth=budget.max_depth,
            ),
        )

    def _busy_for(self, fixed: list[PlanningObject], calendar_id: str, ident: str) -> set[int]:
        busy: set[int] = set()
        for obj in fixed:
            if obj.calendar_id == calendar_id or ident in obj.resource_ids:
                span = obj.known_time
                assert span is not None
                busy.update(self._busy(span.start.ns, span.end.ns))
        return busy

    def _current(self, obj: PlanningObject) -> tuple[int | None, str | None]:
        """An existing meeting's current start grain and room (None, None for a new one)."""
        if not obj.is_existing:
            return None, None
        span = obj.known_time
        assert span is not None
        start = self.inputs.index_floor(span.start.ns)
        for room in sorted(self.inputs.batch.rooms, key=lambda r: r.id):
            if room.id in obj.resource_ids or room.calendar_id == obj.calendar_id:
                return start, room.id
        return start, None

    def _meeting(self, meeting: BatchMeeting) -> Meeting:
        mid = meeting.object_id
        duration = self.inputs.duration_grains(meeting)
        assert duration is not None
        obj = self.inputs.objects[mid]
        current_start, current_room = self._current(obj)
        after = [After(a.object_id, a.gap_seconds * NS // self.grain) for a in meeting.after]
        sets = self._allowed_sets(meeting, obj, duration, current_start, after)
        allowed: frozenset[int] | None = None
        for keep in sets:
            allowed = keep if allowed is None else allowed & keep
        room = meeting.room
        preferred = meeting.preferred_start
        return Meeting(
            id=mid,
            duration=duration,
            required=tuple(meeting.required),
            optional=tuple(meeting.optional),
            needs_room=room is not None,
            room_ids=None if room is None or room.room_ids is None else tuple(room.room_ids),
            capacity_needed=None if room is None else room.capacity,
            allowed_starts=allowed,
            after=tuple(after),
            not_same_day_as=tuple(meeting.not_same_day_as),
            preferred_start=None if preferred is None else self.inputs.index_floor(preferred.ns),
            location=meeting.location,
            current_start=current_start,
            current_room=current_room,
            move_cost=1 if meeting.move_cost is None else meeting.move_cost,
            title=meeting.title or "",
        )

    def _fits(self, duration: int, low_ns: int, high_ns: int) -> frozenset[int]:
        """Starts whose whole meeting lies in ``[low_ns, high_ns)`` (shared between meetings
        with the same duration and bounds: a batch often gives them all one window)."""
        key = (duration, low_ns, high_ns)
        cached = self._fits_cache.get(key)
        if cached is None:
            first = max(0, -((self.origin - low_ns) // self.grain))  # ceil((low - origin) / g)
            last = min(self.count, (high_ns - self.origin) // self.grain) - duration
            cached = frozenset(range(first, last + 1))
            self._fits_cache[key] = cached
        return cached

    def _allowed_sets(
        self,
        meeting: BatchMeeting,
        obj: PlanningObject,
        duration: int,
        current_start: int | None,
        after: list[After],
    ) -> list[frozenset[int]]:
        """The start sets the window, constraints and facts allow (their intersection is
        ``allowed_starts``); ``DEPENDENCY_ORDER`` on a meeting is appended to ``after``."""
        mid = meeting.object_id
        pinned = frozenset(() if current_start is None else (current_start,))
        sets: list[frozenset[int]] = []
        if meeting.window is not None:
            sets.append(self._fits(duration, meeting.window.start.ns, meeting.window.end.ns))
        request = self.inputs.request
        for spec in request.constraints:
            if spec.object_id == mid:
                keep = self._rule_starts(spec.rule, obj, duration, pinned, after)
                if keep is not None:
                    sets.append(keep)
        for fact in request.context.facts:
            if fact.object_id == mid and isinstance(fact.value, FactExternalLock):
                sets.append(pinned)
            elif fact.object_id == mid and isinstance(fact.value, FactDeadline):
                sets.append(self._fits(duration, self.origin, fact.value.value.ns))
        return sets

    def _rule_starts(
        self,
        rule: object,
        obj: PlanningObject,
        duration: int,
        pinned: frozenset[int],
        after: list[After],
    ) -> frozenset[int] | None:
        """The starts one hard constraint allows, or None (no restriction of the start:
        ``DEPENDENCY_ORDER`` on another meeting, appended to ``after`` instead)."""
        if isinstance(rule, EarliestStart):
            return self._fits(duration, rule.value.ns, self.end)
        if isinstance(rule, LatestEnd | Deadline):
            return self._fits(duration, self.origin, rule.value.ns)
        if isinstance(rule, AvailabilityWindow):
            return self._fits(duration, rule.value.start.ns, rule.value.end.ns)
        if isinstance(rule, ExplicitTime):
            span = rule.value
            offset = span.start.ns - self.origin
            if span.length_ns != duration * self.grain or offset % self.grain:
                return frozenset()
            return self._fits(duration, span.start.ns, span.end.ns) & {offset // self.grain}
        if isinstance(rule, ExplicitDate):
            rows = self.inputs.grid.of(obj.timezone)
            day = rule.value.format()
            return frozenset(s for s in range(len(rows)) if rows[s][0] == day)
        if isinstance(rule, ExternalLock):
            return pinned
        if isinstance(rule, DependencyOrder):
            if rule.value in self.inputs.meetings:
                after.append(After(rule.value, 0))
                return None
            predecessor = self.inputs.objects[rule.value].known_time
            assert predecessor is not None
            return self._fits(duration, predecessor.end.ns, self.end)
        return None
