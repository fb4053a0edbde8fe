"""From a CPIR ``OPTIMIZE`` request to a :class:`~cerebri.optimize.model.BatchProblem`
(issue #24, decision 0070).

:func:`map_request` validates the request as the planner does (planner.md 2.3 with
``OPTIMIZE`` supported, :func:`cerebri.planner.validate_request` ``batch=True``), adds the
``batch`` member's own rules, and builds the solver's discrete model:

* **Grains**: ``scope.time_range.start + k * granularity`` for every ``k`` whose grain ends
  inside the horizon (half-open, UTC). Each grain's *day* is its start's local date in the
  **day zone**: the ``timezone`` of the target object with the smallest id (a meeting never
  runs over that zone's midnight; ``not_same_day_as`` compares these dates).
* **Open grains** of a person with ``hours``: a grain is open when its local start and its
  local end (in the person's own zone, exact UTC arithmetic, so a DST day simply has one
  hour more or less of grains) both fall inside one entry of the hours of the start's local
  date: ``start <= local start < end`` and ``start < local end <= end``. The local end is
  the wall-clock time of the grain's last second plus one second (a grain ending at
  midnight ends at ``24:00``; one ending at a fall-back instant ends on the offset it ran
  in). ``hours`` null: every grain is open. Rooms are always open.
* **Busy grains** of a person: every grain overlapping an ``EVENT``/``TASK`` object with a
  ``KNOWN`` time that is not a batch meeting, when ``object.calendar_id`` is the person's
  ``calendar_id`` or the person's id is in ``object.resource_ids``; of a room likewise with
  the room's ``calendar_id`` and id. Compiled series occurrences (``context.temporal``) are
  busy for every person and room (they name no calendar: conservative).
* **Meetings**: each ``batch.meetings`` entry; ``allowed_starts`` is the intersection of its
  ``window`` and its hard constraints (``EARLIEST_START``, ``LATEST_END``, ``DEADLINE``,
  ``AVAILABILITY_WINDOW``, ``EXPLICIT_TIME``, ``EXPLICIT_DATE`` in the object's zone,
  ``EXTERNAL_LOCK`` on an existing event = its current start, ``DEPENDENCY_ORDER`` on a
  fixed object = after its end); ``DEPENDENCY_ORDER`` on another meeting is an ``after``.

Limits of its own (:data:`OPTIMIZE_LIMITS`, :data:`MAX_MEETINGS`, :data:`MAX_GRAINS`); a
breach is the bare issue ``"InputLimit"`` alone, as for cpir-0.2.md 12's admission rows.

Issues (sorted with the planner's, de-duplicated by their JSON text):

* ``{"BatchRequired": "OPTIMIZE"}``: no ``batch`` member;
* ``{"InvalidBatch": {"id": id, "field": f}}``: ``f`` is ``meeting`` (an entry that is
  neither a target nor an existing ``EVENT`` object; or listed twice), ``target`` (a target
  without an entry), ``person`` / ``room`` (an id listed twice; or named by a meeting but
  absent), ``duration`` (not a whole number of grains), ``window`` (not on the grid or not
  inside the horizon; id ``scope.time_range`` when the horizon holds no whole grain),
  ``after`` (names no meeting, or a gap that is not whole grains),
  ``not_same_day_as`` (names no meeting), ``travel`` (not whole grains), ``time`` (an
  existing meeting whose current range is off the grid, outside the horizon, or not its
  duration long), ``movable`` (an existing meeting ``scope.movable_object_ids`` does not
  list), ``preferred_start`` (outside the horizon), ``dependency`` (a ``DEPENDENCY_ORDER``
  on an object that has no time);
* ``{"UnsupportedBatchConstraint": {"object_id": id, "kind": K}}``: a hard constraint the
  optimiser does not map (any kind on an object that is not a meeting, and ``NO_OVERLAP``,
  ``MIN_DURATION``, ``FIXED_DURATION``, ``REQUIRED_BUFFER``, ``RECURRENCE_RULE``,
  ``TIMEZONE_INTEGRITY`` on a meeting; ``EXTERNAL_LOCK`` on a new meeting);
* ``{"BatchLimit": "max_mutations"}``: a mutating request whose targets alone exceed
  ``scope.max_mutations`` or ``policy.snapshot.mutation.max_mutations``;
* for each existing meeting of a mutating request: ``ScopeViolation``,
  ``MissingPlanningCapability``, ``PolicyDenied`` (``MOVE_EVENT``), as for a ``MOVE`` target.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from cerebri.cpir import (
    AvailabilityWindow,
    BatchHours,
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
    Operation,
    PlanningObject,
    PlanningRequest,
    Tagged,
    TaskKind,
    ValidationReport,
    ValidationState,
)
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
from cerebri.planner import PlannerLimits
from cerebri.planner.capability import target_permissions
from cerebri.planner.validate import Validation, validate_request
from cerebri.temporal.zones import zone

__all__ = [
    "MAX_GRAINS",
    "MAX_MEETINGS",
    "OPTIMIZE_LIMITS",
    "BatchMapping",
    "map_request",
]

NS = 1_000_000_000

MAX_MEETINGS = 1024
"""At most this many ``batch.meetings`` (new and movable together) and ``target_ids``."""

MAX_GRAINS = 20_000
"""At most this many grains in the horizon (``time_range`` length / ``granularity``)."""

OPTIMIZE_LIMITS = PlannerLimits(
    max_request_bytes=4 * 1024 * 1024,
    max_request_work_bytes=None,
    max_objects=4096,
    max_facts=4096,
    max_constraints=4096,
    max_candidates=4096,
    max_work_units=1 << 62,
)
"""Admission limits of an ``OPTIMIZE`` request (decision 0070): compact re-serialised size
<= 4 MiB, <= 4096 objects, facts and constraints; ``budget.max_candidates`` (unused by the
optimiser) <= 4096; the single-target work estimate does not apply. Every other operation
keeps cpir-0.2.md 12's limits (256 KiB, 256 objects, ...)."""

_INPUT_LIMIT = Tagged("InputLimit")
_BLOCKING = (EventKind, TaskKind)
_ALLOWED_STARTS_RULES = (
    EarliestStart,
    LatestEnd,
    Deadline,
    AvailabilityWindow,
    ExplicitTime,
    ExplicitDate,
    ExternalLock,
    DependencyOrder,
)


@dataclass(frozen=True, slots=True)
class BatchMapping:
    """The outcome of :func:`map_request`.

    ``report``: the validation report (planner issues and batch issues, sorted).
    ``validation``: the planner's :class:`~cerebri.planner.validate.Validation` (graph,
    compiled snapshot). ``problem``: the model, or None when the report blocks planning.
    ``origin_ns``/``grain_ns``: grain ``i`` starts at ``origin_ns + i * grain_ns`` (UTC ns).
    ``targets``: the new meetings' ids (sorted); ``existing``: the movable meetings' ids.
    """

    report: ValidationReport
    validation: Validation
    problem: BatchProblem | None
    origin_ns: int
    grain_ns: int
    targets: tuple[str, ...]
    existing: tuple[str, ...]

    def grain_start_ns(self, index: int) -> int:
        """UTC start of grain ``index`` in nanoseconds."""
        return self.origin_ns + index * self.grain_ns


def _blocked(
    report: ValidationReport, validation: Validation, request: PlanningRequest
) -> BatchMapping:
    return BatchMapping(
        report,
        validation,
        None,
        request.scope.time_range.start.ns,
        request.granularity * NS,
        tuple(sorted(set(request.target_ids))),
        (),
    )


def _merge(issues: list[Tagged], state_if_clean: ValidationState) -> ValidationReport:
    unique = {issue.sort_text: issue for issue in issues}
    ordered = tuple(unique[text] for text in sorted(unique))
    state = ValidationState.INSUFFICIENT_INFORMATION if ordered else state_if_clean
    return ValidationReport(state, ordered)


def map_request(request: PlanningRequest) -> BatchMapping:
    """Validate an ``OPTIMIZE`` request and build its :class:`BatchProblem` (decision 0070).

    Returns a :class:`BatchMapping` whose ``problem`` is None when the report's state is
    ``InsufficientInformation`` (the issues say why; see the module docstring). Pure and
    deterministic: the problem's meetings, people and rooms are in sorted id order, grains
    in time order. Never raises for a well-typed request.
    """
    validation = validate_request(request, OPTIMIZE_LIMITS, batch=True)
    base = validation.report
    if base.issues == (_INPUT_LIMIT,):
        return _blocked(base, validation, request)
    horizon = request.scope.time_range
    grain_ns = request.granularity * NS
    count = (horizon.end.ns - horizon.start.ns) // grain_ns
    batch = request.batch
    too_many = (
        count > MAX_GRAINS
        or len(request.target_ids) > MAX_MEETINGS
        or (batch is not None and len(batch.meetings) > MAX_MEETINGS)
    )
    if too_many:
        report = ValidationReport(ValidationState.INSUFFICIENT_INFORMATION, (_INPUT_LIMIT,))
        return _blocked(report, validation, request)
    issues = list(base.issues)
    if batch is None:
        issues.append(Tagged("BatchRequired", Operation.OPTIMIZE.value))
        return _blocked(_merge(issues, base.state), validation, request)
    builder = _Builder(request, validation, count)
    issues.extend(builder.issues)
    if count == 0:
        issues.append(Tagged("InvalidBatch", {"id": "scope.time_range", "field": "window"}))
    report = _merge(issues, base.state)
    blocked = report.state is ValidationState.INSUFFICIENT_INFORMATION
    if blocked or validation.duration_seconds is None:
        return _blocked(report, validation, request)
    return BatchMapping(
        report,
        validation,
        builder.problem(),
        horizon.start.ns,
        grain_ns,
        builder.targets,
        builder.existing,
    )


class _LocalGrid:
    """Per zone: each grain's local date and its local start/end seconds of that date."""

    def __init__(self, origin_ns: int, grain_ns: int, count: int) -> None:
        self._origin = origin_ns
        self._grain = grain_ns
        self._count = count
        self._cache: dict[str, tuple[tuple[str, int, int, int | None], ...]] = {}

    def _local(self, ns: int, tz: ZoneInfo) -> datetime:
        return datetime.fromtimestamp(ns // NS, UTC).astimezone(tz)

    def of(self, zone_name: str) -> tuple[tuple[str, int, int, int | None], ...]:
        """Per grain ``(local date, weekday 0=Mon, start seconds, end seconds or None)``.

        The end is read on the wall clock of the grain's last second, plus one second: so a
        grain that ends at a DST fall-back instant ends at ``02:00``/``03:00`` of the offset
        it ran in (not at the repeated hour's start), and one ending at midnight ends at
        ``24:00``. None when that last second is on another date."""
        cached = self._cache.get(zone_name)
        if cached is not None:
            return cached
        tz = zone(zone_name)
        rows: list[tuple[str, int, int, int | None]] = []
        for index in range(self._count):
            start_ns = self._origin + index * self._grain
            start = self._local(start_ns, tz)
            last = self._local(start_ns + self._grain - NS, tz)
            start_s = start.hour * 3600 + start.minute * 60 + start.second
            end_s = last.hour * 3600 + last.minute * 60 + last.second + 1
            end_of = end_s if last.date() == start.date() else None
            rows.append((start.date().isoformat(), start.weekday(), start_s, end_of))
        result = tuple(rows)
        self._cache[zone_name] = result
        return result


def _clock_seconds(text: str) -> int:
    hours, minutes = text.split(":")
    return int(hours) * 3600 + int(minutes) * 60


class _Builder:
    """Checks the batch member against the request and builds the model pieces."""

    def __init__(self, request: PlanningRequest, validation: Validation, count: int) -> None:
        batch = request.batch
        assert batch is not None
        self.request = request
        self.batch = batch
        self.count = count
        self.origin = request.scope.time_range.start.ns
        self.end = request.scope.time_range.end.ns
        self.grain = request.granularity * NS
        self.validation = validation
        self.grid = _LocalGrid(self.origin, self.grain, count)
        self.issues: list[Tagged] = []
        self._fits_cache: dict[tuple[int, int, int], frozenset[int]] = {}
        self.objects: dict[str, PlanningObject] = {}
        for obj in request.context.objects:
            self.objects.setdefault(obj.id, obj)
        self.targets = tuple(sorted(set(request.target_ids)))
        self.meetings: dict[str, BatchMeeting] = {}
        self._check_ids()
        self.existing = tuple(
            sorted(m for m in self.meetings if m not in set(self.targets) and m in self.objects)
        )
        self._check_existing()
        self._check_budget()
        self._check_model_inputs()

    # ------------------------------------------------------------------ checks

    def _invalid(self, ident: str, field: str) -> None:
        self.issues.append(Tagged("InvalidBatch", {"id": ident, "field": field}))

    def _check_ids(self) -> None:
        targets = set(self.targets)
        for meeting in self.batch.meetings:
            mid = meeting.object_id
            obj = self.objects.get(mid)
            if mid in self.meetings:
                self._invalid(mid, "meeting")
                continue
            self.meetings[mid] = meeting
            existing_event = obj is not None and obj.is_existing and isinstance(obj.kind, EventKind)
            if mid not in targets and not existing_event:
                self._invalid(mid, "meeting")
        for target in self.targets:
            if target not in self.meetings:
                self._invalid(target, "target")
        for kind, ids in (
            ("person", [p.id for p in self.batch.people]),
            ("room", [r.id for r in self.batch.rooms]),
        ):
            seen: set[str] = set()
            for ident in ids:
                if ident in seen:
                    self._invalid(ident, kind)
                seen.add(ident)
        for meeting in self.meetings.values():
            self._check_references(meeting)
        step = self.grain // NS
        for travel in self.batch.travel:
            if travel.seconds % step:
                self._invalid(f"{travel.a}|{travel.b}", "travel")

    def _check_references(self, meeting: BatchMeeting) -> None:
        people = {p.id for p in self.batch.people}
        rooms = {r.id for r in self.batch.rooms}
        step = self.grain // NS
        self.issues.extend(
            Tagged("InvalidBatch", {"id": person, "field": "person"})
            for person in (*meeting.required, *meeting.optional)
            if person not in people
        )
        need = meeting.room
        self.issues.extend(
            Tagged("InvalidBatch", {"id": room, "field": "room"})
            for room in (() if need is None else need.room_ids or ())
            if room not in rooms
        )
        if any(a.object_id not in self.meetings or a.gap_seconds % step for a in meeting.after):
            self._invalid(meeting.object_id, "after")
        if any(other not in self.meetings for other in meeting.not_same_day_as):
            self._invalid(meeting.object_id, "not_same_day_as")

    def _check_existing(self) -> None:
        mutating = not self.request.analysis_only
        scope = self.request.scope
        for mid in self.existing:
            obj = self.objects[mid]
            if not scope.selects(obj):
                self.issues.append(Tagged("ScopeViolation", mid))
            if not scope.may_move(obj):
                self._invalid(mid, "movable")
            if mutating:
                capability, policy = target_permissions(self.request, obj)
                if not capability:
                    self.issues.append(Tagged("MissingPlanningCapability", mid))
                if not policy:
                    self.issues.append(Tagged("PolicyDenied", mid))

    def _check_budget(self) -> None:
        if self.request.analysis_only:
            return
        caps = (
            self.request.scope.max_mutations,
            self.request.policy.snapshot.mutation.max_mutations,
        )
        if len(self.targets) > min(caps):
            self.issues.append(Tagged("BatchLimit", "max_mutations"))

    # ------------------------------------------------------------------ model

    def _duration_grains(self, meeting: BatchMeeting) -> int | None:
        seconds = meeting.duration or self.validation.duration_seconds
        if seconds is None:
            return None
        if (seconds * NS) % self.grain:
            self._invalid(meeting.object_id, "duration")
            return None
        return seconds * NS // self.grain

    def _index_floor(self, ns: int) -> int:
        return (ns - self.origin) // self.grain

    def _busy(self, start_ns: int, end_ns: int) -> range:
        low = max(0, self._index_floor(start_ns))
        high = min(self.count, -((self.origin - end_ns) // self.grain))
        return range(low, max(low, high))

    def _day_zone(self) -> str:
        for target in self.targets:
            obj = self.objects.get(target)
            if obj is not None:
                return obj.timezone
        return "UTC"

    def problem(self) -> BatchProblem:
        """The model; call only when no issue blocks it."""
        day_rows = self.grid.of(self._day_zone())
        grains = tuple(
            Grain(i, (self.origin + i * self.grain) // NS, day_rows[i][0])
            for i in range(self.count)
        )
        fixed = [
            obj
            for obj in self.request.context.objects
            if obj.id not in self.meetings
            and isinstance(obj.kind, _BLOCKING)
            and obj.known_time is not None
        ]
        everyone: set[int] = set()
        compiled = self.validation.compiled
        for occurrence in () if compiled is None else compiled.busy():
            everyone.update(self._busy(occurrence.start, occurrence.end))
        people = tuple(
            Person(
                p.id,
                self._open(p.timezone, p.hours),
                frozenset(self._busy_for(fixed, p.calendar_id, p.id) | everyone),
            )
            for p in sorted(self.batch.people, key=lambda p: p.id)
        )
        rooms = tuple(
            Room(
                r.id,
                r.capacity,
                None,
                frozenset(self._busy_for(fixed, r.calendar_id, r.id) | everyone),
            )
            for r in sorted(self.batch.rooms, key=lambda r: r.id)
        )
        meetings = tuple(self._meeting(self.meetings[mid]) for mid in sorted(self.meetings))
        step = self.grain // NS
        travel = tuple(Travel(t.a, t.b, t.seconds // step) for t in self.batch.travel)
        weights = self.batch.weights
        solver = self.batch.solver
        budget = self.request.budget
        repairs = min(budget.max_repairs, budget.max_moved_objects)
        if not self.request.analysis_only:
            caps = (
                self.request.scope.max_mutations,
                self.request.policy.snapshot.mutation.max_mutations,
            )
            repairs = min(repairs, min(caps) - len(self.targets))
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

    def _open(self, zone_name: str, hours: tuple[BatchHours, ...] | None) -> frozenset[int] | None:
        if hours is None:
            return None
        rows = self.grid.of(zone_name)
        spans: dict[int, list[tuple[int, int]]] = {}
        for entry in hours:
            span = (_clock_seconds(entry.start), _clock_seconds(entry.end))
            for day in entry.days:
                spans.setdefault(day.number, []).append(span)
        open_grains: set[int] = set()
        for index, (_, weekday, start, end) in enumerate(rows):
            if end is None:
                continue
            for low, high in spans.get(weekday, ()):
                if low <= start < high and low < end <= high:
                    open_grains.add(index)
                    break
        return frozenset(open_grains)

    def _current(self, obj: PlanningObject) -> tuple[int | None, str | None]:
        """An existing meeting's current start grain and room (None, None for a new one)."""
        if not obj.is_existing:
            return None, None
        span = obj.known_time
        assert span is not None
        for room in sorted(self.batch.rooms, key=lambda r: r.id):
            if room.id in obj.resource_ids or room.calendar_id == obj.calendar_id:
                return self._index_floor(span.start.ns), room.id
        return self._index_floor(span.start.ns), None

    def _meeting(self, meeting: BatchMeeting) -> Meeting:
        mid = meeting.object_id
        duration = self._duration_grains(meeting)
        assert duration is not None
        obj = self.objects[mid]
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
            preferred_start=None if preferred is None else self._index_floor(preferred.ns),
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
        for spec in self.request.constraints:
            if spec.object_id == mid:
                keep = self._rule_starts(spec.rule, obj, duration, pinned, after)
                if keep is not None:
                    sets.append(keep)
        for fact in self.request.context.facts:
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
            rows = self.grid.of(obj.timezone)
            day = rule.value.format()
            return frozenset(s for s in range(len(rows)) if rows[s][0] == day)
        if isinstance(rule, ExternalLock):
            return pinned
        if isinstance(rule, DependencyOrder):
            if rule.value in self.meetings:
                after.append(After(rule.value, 0))
                return None
            predecessor = self.objects[rule.value].known_time
            assert predecessor is not None
            return self._fits(duration, predecessor.end.ns, self.end)
        return None

    # ---------------------------------------------------------------- further checks

    def _check_model_inputs(self) -> None:
        """Whole-grain, horizon and constraint checks (issues only)."""
        for mid in sorted(self.meetings):
            meeting = self.meetings[mid]
            duration = self._duration_grains(meeting)
            window = meeting.window
            if window is not None and (
                (window.start.ns - self.origin) % self.grain
                or (window.end.ns - self.origin) % self.grain
                or window.start.ns < self.origin
                or window.end.ns > self.end
            ):
                self._invalid(mid, "window")
            preferred = meeting.preferred_start
            if preferred is not None and not self.origin <= preferred.ns < self.end:
                self._invalid(mid, "preferred_start")
            obj = self.objects.get(mid)
            if obj is not None and obj.is_existing and mid not in self.targets:
                span = obj.known_time
                if (
                    span is None
                    or (span.start.ns - self.origin) % self.grain
                    or span.start.ns < self.origin
                    or span.end.ns > self.end
                    or (duration is not None and span.length_ns != duration * self.grain)
                ):
                    self._invalid(mid, "time")
        for spec in self.request.constraints:
            rule = spec.rule
            kind = rule.kind
            on_meeting = spec.object_id in self.meetings
            supported = on_meeting and isinstance(rule, _ALLOWED_STARTS_RULES)
            if isinstance(rule, ExternalLock) and spec.object_id in self.targets:
                supported = False
            if not supported:
                self.issues.append(
                    Tagged(
                        "UnsupportedBatchConstraint", {"object_id": spec.object_id, "kind": kind}
                    )
                )
                continue
            if isinstance(rule, DependencyOrder) and rule.value not in self.meetings:
                predecessor = self.objects.get(rule.value)
                if predecessor is None or predecessor.known_time is None:
                    self._invalid(spec.object_id, "dependency")
