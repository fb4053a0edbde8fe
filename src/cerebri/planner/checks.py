"""Hard checks of placements against the resulting world (planner.md section 6).

A :class:`PlacementChecker` is built once per request and set of placed object ids; it
precomputes everything that does not depend on where the placed objects land. Checking a
placement then costs ``O(log n)`` plus the size of the answer for each overlap or buffer
rule on a placed object, and ``O(1)`` for rules on unmoved objects.

All instants are integer nanoseconds since the Unix epoch; ranges are half-open.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from cerebri._json import JSONValue
from cerebri.cpir import (
    ConstraintViolation,
    DependencyOrder,
    EventKind,
    Known,
    NoOverlap,
    Operation,
    PlanningRequest,
    RequiredBuffer,
    Resolved,
    Tagged,
    TaskKind,
    TimeRange,
    ViolationReason,
)
from cerebri.planner._objects import first_by_id
from cerebri.planner._rules import Constraint, constraint_set, simple_test
from cerebri.planner._sweep import OverlapIndex
from cerebri.planner.capability import target_permissions

__all__ = ["BusyOccurrence", "PlacementChecker"]

NS = 1_000_000_000
Span = tuple[int, int]
INVALID_TARGETS = Tagged("InvalidTargets")
NO_OVERLAP_WIRE: JSONValue = {"kind": "NO_OVERLAP"}


@dataclass(frozen=True, slots=True)
class BusyOccurrence:
    """A compiled series occurrence that blocks time: full range in nanoseconds."""

    id: str
    start: int
    end: int
    evidence: tuple[str, ...]


class PlacementChecker:
    """Checks placements of the objects ``placed_ids`` (planner.md 6, steps 2-8).

    The change operations (decision 0049) adjust step 5: ``UPDATE`` and ``RESCHEDULE`` may
    resize an existing event (no "a move may not resize" check: the request's ``duration``
    is the new length, decision 0073; ``MOVE`` keeps it), ``UPDATE``, like ``CANCEL``, must
    keep its current
    start (``{"StartChanged": id}``); ``CANCEL`` is checked for limits, scope, its current
    range and permissions only (removing an event can break no overlap or constraint).

    Args:
        request: a request that passed validation.
        duration_seconds: the required request duration.
        placed_ids: ids of the objects being placed (for the search: the single target).
        occurrences: compiled series occurrences (CPIR 0.2), or ``()``.
        horizon: the compiled horizon in nanoseconds when temporal input was compiled;
            enables the horizon rule of ``REQUIRED_BUFFER``.
    """

    def __init__(
        self,
        request: PlanningRequest,
        duration_seconds: int,
        placed_ids: Sequence[str],
        occurrences: Sequence[BusyOccurrence] = (),
        horizon: Span | None = None,
    ) -> None:
        self._request = request
        self._duration_ns = duration_seconds * NS
        self._placed = tuple(sorted(placed_ids))
        self._targets = tuple(sorted(request.target_ids))
        self._horizon = horizon
        self._cancel = request.operation is Operation.CANCEL
        objects = first_by_id(request.context.objects)
        self._objects = objects
        # RESCHEDULE: the current start of each placed existing object is no new time.
        self._unchanged: dict[str, int] = {}
        if request.operation is Operation.RESCHEDULE:
            for oid in placed_ids:
                known = objects[oid].known_time if oid in objects else None
                if known is not None and objects[oid].is_existing:
                    self._unchanged[oid] = known.start.ns
        scope = request.scope
        self._scope_span = (scope.time_range.start.ns, scope.time_range.end.ns)
        mutating = not request.analysis_only
        self._static_reasons: list[Tagged] = []
        if mutating and (
            len(self._placed) > scope.max_mutations
            or len(self._placed) > request.policy.snapshot.mutation.max_mutations
        ):
            self._static_reasons.append(Tagged("MutationLimit"))
        moved = sum(1 for i in self._placed if i in objects and objects[i].is_existing)
        if moved > request.budget.max_moved_objects:
            self._static_reasons.append(Tagged("MovedObjectLimit"))

        # Unmoved part of the resulting world.
        self._fixed: dict[str, Span] = {}
        static_busy: list[tuple[int, int, str, tuple[str, ...] | None]] = []
        placed = self._placed
        for oid, obj in objects.items():
            state = obj.time.value  # obj.known_time, inlined: this runs once per object
            if oid in placed or not isinstance(state, Resolved):
                continue
            knowledge = state.knowledge
            if isinstance(knowledge, Known):
                time: TimeRange = knowledge.data
                span = (time.start.ns, time.end.ns)
                self._fixed[oid] = span
                if isinstance(obj.kind, EventKind | TaskKind):  # obj.blocks_time
                    static_busy.append((span[0], span[1], oid, None))
        static_busy.extend((o.start, o.end, o.id, o.evidence) for o in occurrences)
        self._busy = static_busy
        self._busy_ids = [item[2] for item in static_busy]
        self._plain_busy = not occurrences  # every busy item is an object (no evidence)
        self._base_index = OverlapIndex([(s, e) for s, e, _, _ in static_busy])
        self._index_by_key: dict[tuple[str, int], OverlapIndex] = {}
        self._last_overlap: tuple[tuple[str, tuple[int, ...]], Tagged] | None = None
        self._placement_rules = {oid: self._placement_rule(oid) for oid in self._placed}
        self._constraints = [self._compile(c) for c in constraint_set(request)]

    # --- blockers -------------------------------------------------------------------------

    def _static_blockers(self, a: int, b: int, key: tuple[str, int]) -> list[int]:
        # One sweep per (checked object, padding): its windows only move forward during a
        # grid search, so each sweep stays amortised O(log n) per query.
        index = self._index_by_key.get(key)
        if index is None:
            index = self._base_index.fork()
            self._index_by_key[key] = index
        return index.overlapping(a, b)

    def _violation(
        self,
        constraint_wire: JSONValue,
        object_id: str,
        reason: ViolationReason,
        facts: tuple[str, ...],
        *,
        blockers: Sequence[int] = (),
        placed_blockers: Sequence[str] = (),
    ) -> Tagged:
        if self._plain_busy and not placed_blockers and not facts:
            # Only objects block (their ids never equal a placed object's): no evidence.
            ids = self._busy_ids
            names = [ids[position] for position in blockers]
            if object_id in names:  # a constraint on an unmoved object names itself
                names = [name for name in names if name != object_id]
            names.sort()
            return Tagged(
                "HardConstraint",
                ConstraintViolation(constraint_wire, object_id, reason, (), tuple(names), ()),
            )
        objects: list[str] = list(placed_blockers)
        occurrences: list[str] = []
        evidence = set(facts)
        for position in blockers:
            _, _, item_id, occ_evidence = self._busy[position]
            if item_id == object_id:
                continue
            if occ_evidence is None:
                objects.append(item_id)
            else:
                occurrences.append(item_id)
                evidence.update(occ_evidence)
        return ConstraintViolation(
            constraint=constraint_wire,
            object_id=object_id,
            reason=reason,
            facts=tuple(sorted(evidence)),
            blocking_objects=tuple(sorted(objects)),
            blocking_occurrences=tuple(sorted(occurrences)),
        ).as_reason()

    def _placed_blockers(
        self, spans: Mapping[str, Span], object_id: str, a: int, b: int
    ) -> list[str]:
        return [
            oid
            for oid in self._placed
            if oid != object_id
            and self._objects[oid].blocks_time
            and spans[oid][0] < b
            and a < spans[oid][1]
        ]

    # --- per-placement checks (step 5) ---------------------------------------------------

    def _placement_rule(self, object_id: str) -> Callable[[Span], list[Tagged]] | None:
        obj = self._objects.get(object_id)
        if obj is None:
            return None
        request = self._request
        scope = request.scope
        in_scope = scope.selects(obj) and scope.may_move(obj)
        original = obj.known_time
        original_len = None if original is None or not obj.is_existing else original.length_ns
        operation = request.operation
        keeps_start = operation is Operation.UPDATE or operation is Operation.CANCEL
        fixed_start = None
        if keeps_start and original is not None and obj.is_existing:
            fixed_start = original.start.ns
        if operation is Operation.UPDATE or operation is Operation.RESCHEDULE:
            original_len = None  # both may give a new length (decisions 0049, 0073)
        checks_duration = operation is not Operation.CANCEL
        static: list[Tagged] = []
        if not request.analysis_only:
            capability, policy = target_permissions(request, obj)
            if not capability:
                static.append(Tagged("Capability", object_id))
            if not policy:
                static.append(Tagged("Policy", object_id))
        lo, hi = self._scope_span
        duration = self._duration_ns

        def rule(span: Span) -> list[Tagged]:
            reasons: list[Tagged] = []
            length = span[1] - span[0]
            if not (in_scope and lo <= span[0] and span[1] <= hi):
                reasons.append(Tagged("Scope", object_id))
            if fixed_start is not None and span[0] != fixed_start:
                reasons.append(Tagged("StartChanged", object_id))
            if original_len is not None and length != original_len:
                reasons.append(Tagged("InvalidDuration", object_id))
            if checks_duration and length != duration:
                reasons.append(Tagged("InvalidDuration", object_id))
            reasons.extend(static)
            return reasons

        return rule

    # --- constraints (step 7) ------------------------------------------------------------

    def _compile(self, c: Constraint) -> Callable[[Mapping[str, Span]], tuple[Tagged, ...]]:
        oid, wire, rule, facts = c.object_id, c.rule_wire, c.rule, c.facts
        obj = self._objects.get(oid)
        placed = oid in self._placed
        fixed = self._fixed.get(oid)
        if obj is None or (not placed and fixed is None):
            return lambda spans: (INVALID_TARGETS,)

        def span_of(spans: Mapping[str, Span]) -> Span:
            if placed:
                return spans[oid]
            assert fixed is not None
            return fixed

        if isinstance(rule, NoOverlap | RequiredBuffer):
            return self._window_rule(oid, wire, rule, facts, span_of)

        if isinstance(rule, DependencyOrder):
            pred = rule.value

            def dependency_rule(spans: Mapping[str, Span]) -> tuple[Tagged, ...]:
                if pred in self._placed:
                    pred_end = spans[pred][1]
                elif pred in self._fixed:
                    pred_end = self._fixed[pred][1]
                else:
                    return (self._violation(wire, oid, ViolationReason.DEPENDENCY_MISSING, facts),)
                if pred_end > span_of(spans)[0]:
                    violation = ConstraintViolation(
                        wire, oid, ViolationReason.DEPENDENCY_ORDER, facts, (pred,)
                    )
                    return (violation.as_reason(),)
                return ()

            return dependency_rule

        test = simple_test(rule, obj)

        def simple_rule(spans: Mapping[str, Span]) -> tuple[Tagged, ...]:
            verdict = test(span_of(spans))
            return () if verdict is None else (self._violation(wire, oid, verdict, facts),)

        if not placed:
            constant = simple_rule({})
            return lambda spans: constant
        return simple_rule

    def _window_rule(
        self,
        oid: str,
        wire: JSONValue,
        rule: NoOverlap | RequiredBuffer,
        facts: tuple[str, ...],
        span_of: Callable[[Mapping[str, Span]], Span],
    ) -> Callable[[Mapping[str, Span]], tuple[Tagged, ...]]:
        """NO_OVERLAP (pad 0) and REQUIRED_BUFFER (pad b): a blocker is any other busy item
        overlapping ``[start - pad, end + pad)``, which is the same as "overlaps, or the gap
        is smaller than b" (planner.md 6)."""
        is_buffer = isinstance(rule, RequiredBuffer)
        pad = rule.value * NS if isinstance(rule, RequiredBuffer) else 0
        reason = ViolationReason.INSUFFICIENT_BUFFER if is_buffer else ViolationReason.OVERLAP
        key = (oid, pad)
        horizon = self._horizon if is_buffer else None

        def window_rule(spans: Mapping[str, Span]) -> tuple[Tagged, ...]:
            s, e = span_of(spans)
            blockers = self._static_blockers(s - pad, e + pad, key)
            placed_hits = self._placed_blockers(spans, oid, s - pad, e + pad)
            found: list[Tagged] = []
            if any(self._busy[b][2] != oid for b in blockers) or placed_hits:
                found.append(
                    self._violation(
                        wire, oid, reason, facts, blockers=blockers, placed_blockers=placed_hits
                    )
                )
            if horizon is not None and not (horizon[0] <= s - pad and e + pad <= horizon[1]):
                found.append(self._violation(wire, oid, ViolationReason.OUTSIDE_BOUNDS, facts))
            return tuple(found)

        return window_rule

    # --- entry points --------------------------------------------------------------------

    def check_one(self, object_id: str, start: int, end: int) -> tuple[Tagged, ...]:
        """``check({object_id: (start, end)})`` for a checker of that single object, with
        less work per call: a grid search calls it once per position.

        Consecutive positions blocked by the same busy items share one (immutable)
        violation record. Same reasons, same order as :meth:`check`.
        """
        if self._placed != (object_id,) or self._targets != (object_id,) or self._cancel:
            return self.check({object_id: (start, end)})
        rule = self._placement_rules[object_id]
        if rule is None:
            return (INVALID_TARGETS,)
        span = (start, end)
        reasons = self._static_reasons + rule(span)
        blockers = self._static_blockers(start, end, (object_id, -1))
        if blockers:
            key = (object_id, tuple(blockers))
            if self._last_overlap is not None and self._last_overlap[0] == key:
                reasons.append(self._last_overlap[1])
            else:
                found = self._violation(
                    NO_OVERLAP_WIRE, object_id, ViolationReason.OVERLAP, (), blockers=blockers
                )
                self._last_overlap = (key, found)
                reasons.append(found)
        if self._constraints:
            spans = {object_id: span}
            for constraint in self._constraints:
                reasons.extend(constraint(spans))
        if self._unchanged and self._unchanged.get(object_id) == start:
            reasons.append(Tagged("Unchanged", object_id))
        return tuple(reasons)

    def check_grid(
        self, object_id: str, first: int, step: int, count: int, length: int
    ) -> Iterator[tuple[Tagged, ...]]:
        """``check_one(object_id, s, s + length)`` for ``s = first + k * step``, ``k < count``,
        in that order (``step > 0``, nanoseconds), with one merge walk of the windows over the
        busy items sorted by start instead of a query per position.

        The placement rule is evaluated once when every window lies in the scope (its
        verdict then depends on the length only); the overlap record is rebuilt only when
        the set of blocking items changed since the previous position. Same reasons, same
        order as :meth:`check_one`. Lazy: nothing is checked before the first ``next``.
        """
        rule = self._placement_rules.get(object_id)
        last = first + (count - 1) * step
        walkable = self._walkable(
            object_id, first=first, last=last, step=step, count=count, length=length
        )
        if rule is None or not walkable:
            starts = (first + k * step for k in range(count))
            return (self.check_one(object_id, s, s + length) for s in starts)
        return self._walk_grid(object_id, rule, range(first, last + 1, step), length)

    def _walkable(
        self, object_id: str, *, first: int, last: int, step: int, count: int, length: int
    ) -> bool:
        """The merge walk of :meth:`check_grid` applies: a non-empty grid with a forward
        step, ``object_id`` the single placed target, every window inside the scope."""
        lo, hi = self._scope_span
        return (
            count > 0
            and not self._cancel
            and step > 0
            and self._placed == (object_id,)
            and self._targets == (object_id,)
            and lo <= first
            and last + length <= hi
        )

    def _walk_grid(
        self,
        object_id: str,
        rule: Callable[[Span], list[Tagged]],
        grid: range,
        length: int,
    ) -> Iterator[tuple[Tagged, ...]]:
        """The merge walk of :meth:`check_grid` over the starts ``grid`` (see there).

        Only objects block, never the placed one (it is not in the static busy set): with
        no series occurrences the overlap record is :meth:`_violation`'s without its
        evidence bookkeeping."""
        base = tuple(self._static_reasons + rule((grid.start, grid.start + length)))
        unchanged = self._unchanged.get(object_id)
        index = self._base_index
        starts, ends, order = index.starts, index.ends, index.order
        constraints = self._constraints
        heap: list[tuple[int, int]] = []
        push, pop = heapq.heappush, heapq.heappop
        i, n = 0, len(starts)
        changed = True
        found: Tagged | None = None
        plain, ids = self._plain_busy, self._busy_ids
        overlap = ViolationReason.OVERLAP
        for s in grid:
            e = s + length
            while i < n and starts[i] < e:
                push(heap, (ends[i], i))
                i += 1
                changed = True
            while heap and heap[0][0] <= s:
                pop(heap)
                changed = True
            if heap:
                if changed or found is None:
                    if plain:  # inlined: it runs whenever the blocking items change
                        names = [ids[order[k]] for _, k in heap]
                        names.sort()
                        found = Tagged(
                            "HardConstraint",
                            ConstraintViolation(
                                NO_OVERLAP_WIRE, object_id, overlap, (), tuple(names), ()
                            ),
                        )
                    else:
                        found = self._violation(
                            NO_OVERLAP_WIRE,
                            object_id,
                            overlap,
                            (),
                            blockers=[order[k] for _, k in heap],
                        )
                    changed = False
                reasons = (*base, found)
            else:
                reasons = base
            if constraints:
                spans = {object_id: (s, e)}
                extra = [reason for constraint in constraints for reason in constraint(spans)]
                reasons = (*reasons, *extra)
            if s == unchanged:
                reasons = (*reasons, Tagged("Unchanged", object_id))
            yield reasons

    def check(self, spans: Mapping[str, Span]) -> tuple[Tagged, ...]:
        """Every reason the placements ``spans`` (object id → ``(start_ns, end_ns)``) fail,
        in the reference's check order; ``()`` means feasible.

        ``spans`` must hold exactly the ``placed_ids`` given at construction.
        """
        if len(spans) != len(self._targets) or tuple(sorted(spans)) != self._targets:
            return (INVALID_TARGETS,)
        reasons = list(self._static_reasons)
        for oid in self._placed:
            rule = self._placement_rules[oid]
            if rule is None:
                return (INVALID_TARGETS,)
            span = spans[oid]
            reasons.extend(rule(span))
            if self._cancel:
                continue  # a removed event blocks nothing and is bound by no rule
            s, e = span
            # The static busy set never holds a placed object, so no self-filter is needed.
            blockers = self._static_blockers(s, e, (oid, -1))
            placed_hits = self._placed_blockers(spans, oid, s, e) if len(spans) > 1 else ()
            if blockers or placed_hits:
                reasons.append(
                    self._violation(
                        NO_OVERLAP_WIRE,
                        oid,
                        ViolationReason.OVERLAP,
                        (),
                        blockers=blockers,
                        placed_blockers=placed_hits,
                    )
                )
        if not self._cancel:
            for constraint in self._constraints:
                reasons.extend(constraint(spans))
        reasons.extend(
            Tagged("Unchanged", oid)
            for oid in self._placed
            if oid in self._unchanged and spans[oid][0] == self._unchanged[oid]
        )
        return tuple(reasons)
