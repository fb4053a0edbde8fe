"""An independent oracle for tiny batches: every placement enumerated, hard rules checked
straight from the model's docstrings (no CP-SAT, no code of cerebri.optimize but the scorer).

The scorer (``cerebri.optimize._explain.score_placement``) is the reference for the soft and
medium levels; the rule tests check it against hand-computed values.
"""

from __future__ import annotations

from collections.abc import Iterator

from cerebri.optimize import BatchProblem, Meeting, RuleRef
from cerebri.optimize._explain import score_placement
from cerebri.optimize._prepare import prepare

Placement = dict[str, tuple[int, str | None]]
#: the rules in force (``None``: all of them); a rule left out is not checked
Rules = frozenset[RuleRef] | None


def _on(rules: Rules, kind: str, *ids: str) -> bool:
    ref = RuleRef(kind, ids if kind == "after" else tuple(sorted(ids)))
    return rules is None or ref in rules


def fits(problem: BatchProblem, start: int, duration: int) -> bool:
    grains = problem.grains
    if start + duration > len(grains):
        return False
    first = grains[start]
    return all(
        grains[start + k].day == first.day
        and grains[start + k].start == first.start + k * problem.grain_seconds
        for k in range(duration)
    )


def _taken(start: int, duration: int) -> set[int]:
    return set(range(start, start + duration))


def _options(
    problem: BatchProblem, meeting: Meeting, rules: Rules = None
) -> list[tuple[int, str | None]]:
    people = {p.id: p for p in problem.people}
    rooms = {r.id: r for r in problem.rooms}
    need = meeting.capacity_needed
    if need is None:
        need = len(meeting.required) + len(meeting.optional)
    out: list[tuple[int, str | None]] = []
    for start in range(len(problem.grains)):
        if not fits(problem, start, meeting.duration):
            continue
        outside = meeting.allowed_starts is not None and start not in meeting.allowed_starts
        if outside and _on(rules, "window", meeting.id):
            continue
        taken = _taken(start, meeting.duration)
        if any(
            (
                people[p].open_grains is not None
                and not taken <= people[p].open_grains
                and _on(rules, "hours", meeting.id, p)
            )
            or (taken & people[p].busy_grains and _on(rules, "busy", meeting.id, p))
            for p in meeting.required
        ):
            continue
        if not meeting.needs_room:
            out.append((start, None))
            continue
        for room_id in sorted(meeting.room_ids if meeting.room_ids is not None else rooms):
            room = rooms[room_id]
            if room.capacity < need and _on(rules, "capacity", meeting.id, room_id):
                continue
            if taken & room.busy_grains and _on(rules, "busy", meeting.id, room_id):
                continue
            closed = room.open_grains is not None and not taken <= room.open_grains
            if closed and _on(rules, "hours", meeting.id, room_id):
                continue
            out.append((start, room_id))
    return out


def _moved(meeting: Meeting, start: int, room: str | None) -> bool:
    if meeting.current_start is None:
        return False
    if start != meeting.current_start:
        return True
    return meeting.needs_room and meeting.current_room is not None and room != meeting.current_room


def _pair_ok(
    problem: BatchProblem,
    a: Meeting,
    pa: tuple[int, str | None],
    b: Meeting,
    pb: tuple[int, str | None],
    *,
    rules: Rules = None,
) -> bool:
    (sa, ra), (sb, rb) = pa, pb
    overlap = _taken(sa, a.duration) & _taken(sb, b.duration)
    shared = set(a.required) & set(b.required)
    if overlap and shared and _on(rules, "attendee_overlap", a.id, b.id, *shared):
        return False
    if overlap and ra is not None and ra == rb and _on(rules, "room_overlap", a.id, b.id, ra):
        return False
    day = {g.index: g.day for g in problem.grains}
    for x, sx, y, sy in ((a, sa, b, sb), (b, sb, a, sa)):
        for after in x.after:
            late = after.meeting_id == y.id and sx < sy + y.duration + after.gap
            if late and _on(rules, "after", x.id, y.id):
                return False
        same_day = y.id in x.not_same_day_as and day[sx] == day[sy]
        if same_day and _on(rules, "not_same_day", x.id, y.id):
            return False
    if not _on(rules, "travel", a.id, b.id):
        return True
    if shared and a.location and b.location and a.location != b.location and day[sa] == day[sb]:
        travel = {(t.a, t.b): t.grains for t in problem.travel}
        travel |= {(t.b, t.a): t.grains for t in problem.travel}
        need = travel.get((a.location, b.location), 0)
        if not (sa + a.duration + need <= sb or sb + b.duration + need <= sa):
            return False
    return True


def _depth_ok(problem: BatchProblem, placement: Placement, rules: Rules = None) -> bool:
    """Moved meetings' displacement chains: acyclic, at most ``max_depth`` meetings long."""
    budget = problem.budget
    existing = [m for m in problem.meetings if m.current_start is not None]
    moved = [m for m in existing if _moved(m, *placement[m.id])]
    if len(moved) > budget.max_repairs and _on(rules, "max_repairs"):
        return False
    if budget.max_depth >= min(budget.max_repairs, len(existing)):
        return True
    if not _on(rules, "max_depth"):
        return True
    edges: dict[str, list[str]] = {m.id: [] for m in moved}
    for x in moved:
        sx, rx = placement[x.id]
        for y in moved:
            if x.id == y.id:
                continue
            assert y.current_start is not None
            if not _taken(sx, x.duration) & _taken(y.current_start, y.duration):
                continue
            if set(x.required) & set(y.required) or (rx is not None and rx == y.current_room):
                edges[x.id].append(y.id)  # x took y's old place: depth(x) > depth(y)

    def longest(node: str, path: tuple[str, ...]) -> int:
        if node in path:
            return 10**9  # a cycle: no finite depth
        return 1 + max((longest(n, (*path, node)) for n in edges[node]), default=0)

    return all(longest(m.id, ()) <= budget.max_depth for m in moved)


def feasible(problem: BatchProblem, placement: Placement) -> bool:
    """Whether ``placement`` (every meeting id -> (start, room)) meets every hard rule."""
    meetings = sorted(problem.meetings, key=lambda m: m.id)
    if set(placement) != {m.id for m in meetings}:
        return False
    for meeting in meetings:
        if placement[meeting.id] not in _options(problem, meeting):
            return False
    for i, a in enumerate(meetings):
        for b in meetings[i + 1 :]:
            if not _pair_ok(problem, a, placement[a.id], b, placement[b.id]):
                return False
    return _depth_ok(problem, placement)


def placements(problem: BatchProblem, rules: Rules = None) -> Iterator[Placement]:
    """Every placement meeting the ``rules`` in force (backtracking over each meeting's
    unary options)."""
    meetings = sorted(problem.meetings, key=lambda m: m.id)
    options = [_options(problem, m, rules) for m in meetings]

    def extend(k: int, chosen: Placement) -> Iterator[Placement]:
        if k == len(meetings):
            if _depth_ok(problem, chosen, rules):
                yield dict(chosen)
            return
        for option in options[k]:
            if all(
                _pair_ok(
                    problem, meetings[j], chosen[meetings[j].id], meetings[k], option, rules=rules
                )
                for j in range(k)
            ):
                chosen[meetings[k].id] = option
                yield from extend(k + 1, chosen)
                del chosen[meetings[k].id]

    yield from extend(0, {})


def best(problem: BatchProblem) -> tuple[int, int] | None:
    """The lexicographically least ``(medium, soft)`` over all feasible placements, or
    ``None`` when there is none."""
    prep = prepare(problem)
    found: tuple[int, int] | None = None
    for placement in placements(problem):
        score, _ = score_placement(prep, placement)
        key = (score.medium, score.soft)
        if found is None or key < found:
            found = key
    return found
