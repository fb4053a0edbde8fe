"""The ``batch`` member of an ``OPTIMIZE`` request, indexed and checked against the request
(issue #24, decision 0070; the issues are listed in :mod:`cerebri.optimize.mapping`'s
docstring).

:class:`BatchInputs` reads the request once: its objects by id, the targets, the meetings by
id (the first entry of an id; a second one is an issue), the movable existing meetings, the
local grid; and collects every ``InvalidBatch``, ``UnsupportedBatchConstraint``,
``BatchLimit``, ``ScopeViolation``, ``MissingPlanningCapability`` and ``PolicyDenied`` issue
in :attr:`BatchInputs.issues` (unsorted; the mapping sorts and de-duplicates them).
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
    LatestEnd,
    PlanningObject,
    PlanningRequest,
    Tagged,
)
from cerebri.optimize._map_grid import NS, LocalGrid
from cerebri.planner.capability import target_permissions
from cerebri.planner.validate import Validation

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


class BatchInputs:
    """A request's batch member indexed and checked; construction runs every check.

    ``origin``/``end``: the horizon in UTC ns; ``grain``: the granularity in ns; ``count``:
    whole grains in the horizon. ``objects``: context objects by id (first wins);
    ``targets``: the new meetings' ids (sorted); ``meetings``: batch entries by id;
    ``existing``: the movable meetings' ids (sorted); ``issues``: what the checks found.
    """

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
        self.grid = LocalGrid(self.origin, self.grain, count)
        self.issues: list[Tagged] = []
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

    # ------------------------------------------------------------------ shared

    def invalid(self, ident: str, field: str) -> None:
        """Record ``{"InvalidBatch": {"id": ident, "field": field}}``."""
        self.issues.append(Tagged("InvalidBatch", {"id": ident, "field": field}))

    def duration_grains(self, meeting: BatchMeeting) -> int | None:
        """The meeting's length in grains (its ``duration`` or the request's); None when
        there is none or it is not whole grains (then an ``InvalidBatch`` ``duration``)."""
        seconds = meeting.duration or self.validation.duration_seconds
        if seconds is None:
            return None
        if (seconds * NS) % self.grain:
            self.invalid(meeting.object_id, "duration")
            return None
        return seconds * NS // self.grain

    def index_floor(self, ns: int) -> int:
        """The index of the grain holding the UTC instant ``ns`` (may be outside the grid)."""
        return (ns - self.origin) // self.grain

    def mutation_caps(self) -> tuple[int, int]:
        """``scope.max_mutations`` and ``policy.snapshot.mutation.max_mutations``."""
        return (
            self.request.scope.max_mutations,
            self.request.policy.snapshot.mutation.max_mutations,
        )

    # ------------------------------------------------------------------ checks

    def _check_ids(self) -> None:
        targets = set(self.targets)
        for meeting in self.batch.meetings:
            mid = meeting.object_id
            obj = self.objects.get(mid)
            if mid in self.meetings:
                self.invalid(mid, "meeting")
                continue
            self.meetings[mid] = meeting
            existing_event = obj is not None and obj.is_existing and isinstance(obj.kind, EventKind)
            if mid not in targets and not existing_event:
                self.invalid(mid, "meeting")
        for target in self.targets:
            if target not in self.meetings:
                self.invalid(target, "target")
        for kind, ids in (
            ("person", [p.id for p in self.batch.people]),
            ("room", [r.id for r in self.batch.rooms]),
        ):
            seen: set[str] = set()
            for ident in ids:
                if ident in seen:
                    self.invalid(ident, kind)
                seen.add(ident)
        for meeting in self.meetings.values():
            self._check_references(meeting)
        step = self.grain // NS
        for travel in self.batch.travel:
            if travel.seconds % step:
                self.invalid(f"{travel.a}|{travel.b}", "travel")

    def _check_references(self, meeting: BatchMeeting) -> None:
        people = {p.id for p in self.batch.people}
        rooms = {r.id for r in self.batch.rooms}
        step = self.grain // NS
        listed = (*meeting.required, *meeting.optional)
        for person in listed:
            if person not in people:
                self.invalid(person, "person")
        if len(set(listed)) != len(listed):
            self.invalid(meeting.object_id, "attendees")
        need = meeting.room
        for room in () if need is None else need.room_ids or ():
            if room not in rooms:
                self.invalid(room, "room")
        mid = meeting.object_id
        if any(
            a.object_id not in self.meetings or a.object_id == mid or a.gap_seconds % step
            for a in meeting.after
        ):
            self.invalid(mid, "after")
        if any(other not in self.meetings or other == mid for other in meeting.not_same_day_as):
            self.invalid(mid, "not_same_day_as")

    def _check_existing(self) -> None:
        mutating = not self.request.analysis_only
        scope = self.request.scope
        for mid in self.existing:
            obj = self.objects[mid]
            if not scope.selects(obj):
                self.issues.append(Tagged("ScopeViolation", mid))
            if not scope.may_move(obj):
                self.invalid(mid, "movable")
            if mutating:
                capability, policy = target_permissions(self.request, obj)
                if not capability:
                    self.issues.append(Tagged("MissingPlanningCapability", mid))
                if not policy:
                    self.issues.append(Tagged("PolicyDenied", mid))

    def _check_budget(self) -> None:
        if not self.request.analysis_only and len(self.targets) > min(self.mutation_caps()):
            self.issues.append(Tagged("BatchLimit", "max_mutations"))

    def _off_grid(self, start_ns: int, end_ns: int) -> bool:
        """Whether ``[start_ns, end_ns)`` does not start on the grid or leaves the horizon."""
        return bool(
            (start_ns - self.origin) % self.grain or start_ns < self.origin or end_ns > self.end
        )

    def _check_model_inputs(self) -> None:
        """Whole-grain, horizon and constraint checks (issues only)."""
        for mid in sorted(self.meetings):
            meeting = self.meetings[mid]
            duration = self.duration_grains(meeting)
            window = meeting.window
            if window is not None and (
                self._off_grid(window.start.ns, window.end.ns)
                or (window.end.ns - self.origin) % self.grain
            ):
                self.invalid(mid, "window")
            preferred = meeting.preferred_start
            if preferred is not None and not self.origin <= preferred.ns < self.end:
                self.invalid(mid, "preferred_start")
            obj = self.objects.get(mid)
            if obj is not None and obj.is_existing and mid not in self.targets:
                span = obj.known_time
                if (
                    span is None
                    or self._off_grid(span.start.ns, span.end.ns)
                    or (duration is not None and span.length_ns != duration * self.grain)
                ):
                    self.invalid(mid, "time")
        for spec in self.request.constraints:
            rule = spec.rule
            on_meeting = spec.object_id in self.meetings
            supported = on_meeting and isinstance(rule, _ALLOWED_STARTS_RULES)
            if isinstance(rule, ExternalLock) and spec.object_id in self.targets:
                supported = False
            if not supported:
                what = Tagged(
                    "UnsupportedBatchConstraint", {"object_id": spec.object_id, "kind": rule.kind}
                )
                self.issues.append(what)
                continue
            if isinstance(rule, DependencyOrder) and rule.value not in self.meetings:
                predecessor = self.objects.get(rule.value)
                if predecessor is None or predecessor.known_time is None:
                    self.invalid(spec.object_id, "dependency")
