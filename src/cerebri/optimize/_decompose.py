"""A large batch solved day by day: a day per meeting, then each day exactly (decision 0069).

Every pair term (overlap, back to back, optional conflicts) needs two meetings on one day, so a
batch of many meetings over many days splits into small exact models once each meeting has a
day. Three phases, all within ``budget.deterministic_time`` (counted work summed over every
CP-SAT call):

1. **Days** (:data:`DAYS_SHARE` of the budget): a CP-SAT model with one literal per meeting and
   day it can use. Its rules are a *relaxation* of the batch's hard rules: each meeting on one
   day where it has a start (window, required attendees' hours and busy grains, a usable
   room); per required person and day, the meetings' grains fit in the person's free grains
   of that day; per set of meetings that pairwise share a required person (grown greedily,
   one from each meeting), their grains fit in the day's grains; per room capacity level
   ``c`` and day, the meetings that can only use rooms of capacity at least ``c`` fit in
   those rooms' free grains; ``not_same_day_as`` on different
   days; ``after`` never on an earlier day. Every placement of the batch gives an assignment
   of days that meets them, so when this model is infeasible the batch is (the answer is then
   the monolithic model's ``INFEASIBLE`` with its conflicting set). Its objective estimates
   the real one: per person and day, the grains of the meetings they attend beyond the day's
   grains (medium, weighted above the rest); per day and ``k = 1 .. 6``, ``overlap_any * k *
   k`` times the meetings' grains beyond ``k`` times the day's grains (with weight ``k``
   instead of ``k * k`` the sum is the least pairwise overlap that load forces; the square
   spreads the load more); per meeting, ``early`` at its first start of the day.
2. **Each day** (:data:`DAY_SHARE`, split by meeting count): the exact model
   (:func:`._solve.search`) of that day's meetings, days in order; an ``after`` reaching a
   meeting already placed on an earlier day cuts the starts. A day whose model is infeasible
   or undecided first pushes one of its meetings to a later day it can use (one without
   ``after``/``not_same_day_as`` links, sharing required people with the most meetings of the
   day, to the later day least loaded per grain) and is solved again; when none can move, it
   adds a no-good (not all those meetings on that day) to phase 1, which runs again (a
   no-good from an undecided day, or a day cut by another's placement, is not implied by the
   batch: phase 1 is then no longer a relaxation, and its infeasibility proves nothing,
   the answer is ``UNKNOWN``).
3. **Improvement** (the rest): large neighbourhood search over pairs of days, in a fixed order
   (days ``k`` and ``k + step`` for ``step = 1, 2, ...``): the two days' meetings are solved
   again together (each may take either day), hinted with their current placement; the new
   placement is kept when its ``(medium, soft)`` on those meetings is lexicographically lower.

The answer is ``FEASIBLE`` (nothing is proven optimal; ``bound`` is ``None``) with the score
recomputed from the whole placement, or ``INFEASIBLE`` (proven by phase 1 or a day without
any start), or ``UNKNOWN``. The runs are deterministic: days, meetings and pairs are visited in
sorted order and each CP-SAT call has the batch's seed, workers and a counted limit.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict

from ortools.sat.python import cp_model

from cerebri.optimize._conflict import Work, solver_for
from cerebri.optimize._cp_model import _Builder
from cerebri.optimize._explain import Placement, score_placement
from cerebri.optimize._prepare import Prepared, free_starts, open_starts, prepare
from cerebri.optimize._solve import answer, infeasible, search, stats
from cerebri.optimize.model import Meeting
from cerebri.optimize.solution import BatchSolution, SolveStatus

__all__ = ["DAYS_SHARE", "DAY_SHARE", "DECOMPOSE_ABOVE", "decomposable", "solve_decomposed"]

#: batches of more meetings than this (over more than one day) are decomposed
DECOMPOSE_ABOVE = 60
#: share of ``budget.deterministic_time`` for phase 1 (days)
DAYS_SHARE = 0.2
#: share for phase 2 (each day); the rest, with what phases 1 and 2 left, goes to phase 3
DAY_SHARE = 0.3
#: at most this many load levels per day in phase 1's overlap estimate
_LEVELS = 6
#: at most this many rounds of phase 1 after no-goods
_MAX_ROUNDS = 20


def decomposable(prep: Prepared) -> bool:
    """Whether :func:`cerebri.optimize.solve` decomposes ``prep``: more than
    :data:`DECOMPOSE_ABOVE` meetings, more than one day, and no existing meeting (a repair
    budget ties all days together)."""
    return (
        len(prep.meetings) > DECOMPOSE_ABOVE
        and max(prep.day, default=0) > 0
        and not any(prep.existing(i) for i in range(len(prep.meetings)))
    )


@dataclasses.dataclass
class _Days:
    """Phase 1's facts. ``first``: per meeting, day -> its first possible start that day."""

    first: list[dict[int, int]]
    grains: dict[int, list[int]]


def _day_facts(prep: Prepared) -> _Days:
    builder = _Builder(prep, explain=False)
    first: list[dict[int, int]] = []
    for i, meeting in enumerate(prep.meetings):
        domain = builder.search_domain(i)
        if meeting.needs_room:
            usable: set[int] = set()
            for room_id in prep.candidate_rooms[i]:
                room = prep.rooms[room_id]
                if room.capacity < prep.need[i]:
                    continue
                usable |= open_starts(domain, meeting.duration, room.open_grains) & free_starts(
                    domain, meeting.duration, room.busy_grains
                )
            domain = tuple(s for s in domain if s in usable)
        days: dict[int, int] = {}
        for s in domain:
            days.setdefault(prep.day[s], s)
        first.append(days)
    grains: dict[int, list[int]] = defaultdict(list)
    for g, d in enumerate(prep.day):
        grains[d].append(g)
    return _Days(first, dict(grains))


def _free(grains: list[int], open_grains: frozenset[int] | None, busy: frozenset[int]) -> int:
    return sum(1 for g in grains if (open_grains is None or g in open_grains) and g not in busy)


def _cliques(prep: Prepared) -> list[list[int]]:
    """Sets of meetings that pairwise share a required person (so never overlap): one maximal
    set grown greedily from each meeting (longest first, then id order), without repeats."""
    n = len(prep.meetings)
    required = [frozenset(m.required) for m in prep.meetings]
    order = sorted(range(n), key=lambda i: (-prep.meetings[i].duration, i))
    seen: set[tuple[int, ...]] = set()
    out: list[list[int]] = []
    for i in range(n):
        clique = [i]
        for j in order:
            if j != i and all(required[j] & required[k] for k in clique):
                clique.append(j)
        key = tuple(sorted(clique))
        if len(key) > 1 and key not in seen:
            seen.add(key)
            out.append(list(key))
    return out


class _DayModel:
    """Phase 1: a day per meeting (see the module docstring)."""

    def __init__(self, prep: Prepared, facts: _Days) -> None:
        self.prep, self.facts = prep, facts
        model = self.model = cp_model.CpModel()
        n = len(prep.meetings)
        self.x: list[dict[int, cp_model.IntVar]] = []
        for i in range(n):
            literals = {d: model.new_bool_var("") for d in sorted(facts.first[i])}
            model.add_exactly_one(list(literals.values()))
            self.x.append(literals)
        # capacity rules: (members, day, grains); per meeting, the rules it is in
        self.caps: list[tuple[list[int], int, int]] = []
        self.rules()
        self.objective()
        self.greedy_hint()

    def day_expr(self, i: int) -> cp_model.LinearExprT:
        return cp_model.LinearExpr.weighted_sum(list(self.x[i].values()), list(self.x[i]))

    def load(self, members: list[int], d: int) -> cp_model.LinearExprT:
        prep = self.prep
        parts = [(self.x[i][d], prep.meetings[i].duration) for i in members if d in self.x[i]]
        return cp_model.LinearExpr.weighted_sum([p[0] for p in parts], [p[1] for p in parts])

    def cap(self, members: list[int], d: int, grains: int) -> None:
        """The meetings of ``members`` on day ``d`` take at most ``grains`` grains."""
        self.caps.append((members, d, grains))
        self.model.add(self.load(members, d) <= grains)

    def greedy_hint(self) -> None:
        """A first assignment for CP-SAT: longest meetings first (then id order), each on the
        day its capacity rules allow with the fewest grains taken relative to the day's size
        (then the earliest day); a meeting no day allows takes its least loaded day."""
        prep, grains = self.prep, self.facts.grains
        rules_of: dict[int, list[int]] = defaultdict(list)
        for k, (members, _, _) in enumerate(self.caps):
            for i in members:
                rules_of[i].append(k)
        used = [0] * len(self.caps)
        taken: dict[int, int] = defaultdict(int)
        days: list[int] = [0] * len(prep.meetings)
        order = sorted(range(len(prep.meetings)), key=lambda i: (-prep.meetings[i].duration, i))
        for i in order:
            duration = prep.meetings[i].duration

            def fits(d: int, i: int = i, duration: int = duration) -> bool:
                return all(
                    self.caps[k][1] != d or used[k] + duration <= self.caps[k][2]
                    for k in rules_of[i]
                )

            options = sorted(self.x[i], key=lambda d: ((taken[d] + duration) / len(grains[d]), d))
            day = next((d for d in options if fits(d)), options[0])
            days[i] = day
            taken[day] += duration
            for k in rules_of[i]:
                if self.caps[k][1] == day:
                    used[k] += duration
        self.hint(days)

    def rules(self) -> None:
        prep, model, grains = self.prep, self.model, self.facts.grains
        required: dict[str, list[int]] = defaultdict(list)
        for i, meeting in enumerate(prep.meetings):
            for person in meeting.required:
                required[person].append(i)
        for person_id in sorted(required):
            attendee = prep.people[person_id]
            for d in sorted(grains):
                free = _free(grains[d], attendee.open_grains, attendee.busy_grains)
                self.cap(required[person_id], d, free)
        self.room_rules()
        for clique in _cliques(prep):
            for d in sorted(grains):
                self.cap(clique, d, len(grains[d]))
        for i, meeting in enumerate(prep.meetings):
            for other in sorted(set(meeting.not_same_day_as)):
                j = prep.position[other]
                for d in sorted(self.x[i].keys() & self.x[j].keys()):
                    model.add_at_most_one([self.x[i][d], self.x[j][d]])
            for after in meeting.after:
                j = prep.position[after.meeting_id]
                model.add(self.day_expr(i) >= self.day_expr(j))

    def room_rules(self) -> None:
        prep, grains = self.prep, self.facts.grains
        for level in sorted({room.capacity for room in prep.rooms.values()}):
            big = [r for r in prep.room_ids if prep.rooms[r].capacity >= level]
            members = [
                i
                for i, meeting in enumerate(prep.meetings)
                if meeting.needs_room
                and all(
                    r in big
                    for r in prep.candidate_rooms[i]
                    if prep.rooms[r].capacity >= prep.need[i]
                )
            ]
            if not members:
                continue
            for d in sorted(grains):
                free = sum(
                    _free(grains[d], prep.rooms[r].open_grains, prep.rooms[r].busy_grains)
                    for r in big
                )
                self.cap(members, d, free)

    def objective(self) -> None:
        prep, model, grains = self.prep, self.model, self.facts.grains
        w = prep.problem.weights
        soft: list[cp_model.LinearExprT] = []
        bound = 0
        for i, meeting in enumerate(prep.meetings):
            if w.early:
                costs = {
                    d: w.early * (s + meeting.duration - 1) for d, s in self.facts.first[i].items()
                }
                soft.append(
                    cp_model.LinearExpr.weighted_sum(
                        [self.x[i][d] for d in costs], list(costs.values())
                    )
                )
                bound += max(costs.values())
        total = sum(m.duration for m in prep.meetings)
        if w.overlap_any:
            everyone = list(range(len(prep.meetings)))
            for d in sorted(grains):
                size = len(grains[d])
                load = self.load(everyone, d)
                most = sum(prep.meetings[i].duration for i in everyone if d in self.x[i])
                for k in range(1, min(_LEVELS, most // size) + 1):
                    beyond = model.new_int_var(0, most, "")
                    model.add(beyond >= load - k * size)
                    soft.append(w.overlap_any * k * k * beyond)
                    bound += w.overlap_any * k * k * most
        attends: dict[str, list[int]] = defaultdict(list)
        for i in range(len(prep.meetings)):
            for person in sorted(prep.attendees[i]):
                attends[person].append(i)
        medium: list[cp_model.LinearExprT] = []
        for person in sorted(attends):
            if not any(person in prep.meetings[i].optional for i in attends[person]):
                continue
            for d in sorted(grains):
                beyond = model.new_int_var(0, total, "")
                model.add(beyond >= self.load(attends[person], d) - len(grains[d]))
                medium.append(beyond)
        fold = bound + 1
        model.minimize(fold * cp_model.LinearExpr.sum(medium) + cp_model.LinearExpr.sum(soft))

    def days(self, solver: cp_model.CpSolver) -> list[int]:
        return [next(d for d, x in lits.items() if solver.boolean_value(x)) for lits in self.x]

    def forbid(self, members: list[int], d: int) -> None:
        self.model.add_bool_or([~self.x[i][d] for i in members])

    def hint(self, days: list[int]) -> None:
        self.model.clear_hints()  # type: ignore[no-untyped-call]
        for i, lits in enumerate(self.x):
            for d, x in lits.items():
                self.model.add_hint(x, d == days[i])


class _Run:
    """Phases 2 and 3: exact models of a few days' meetings, the budget counted in ``work``."""

    def __init__(self, prep: Prepared, work: Work) -> None:
        self.prep, self.work = prep, work
        self.total = prep.problem.budget.deterministic_time
        self.placement: dict[str, tuple[int, str | None]] = {}
        self.day_of: dict[str, int] = {}

    def left(self) -> float:
        return self.total - self.work.deterministic_time

    def after_placed(self, meeting: Meeting, starts: set[int], inside: set[str]) -> set[int]:
        """``starts`` cut by the placed meetings outside ``inside`` that ``meeting`` follows
        (``after``) or must not share a day with."""
        prep = self.prep
        for after in meeting.after:
            if after.meeting_id not in inside and after.meeting_id in self.placement:
                j = prep.position[after.meeting_id]
                end = self.placement[after.meeting_id][0] + prep.meetings[j].duration
                starts = {s for s in starts if s >= end + after.gap}
        for other in meeting.not_same_day_as:
            if other not in inside and other in self.day_of:
                starts = {s for s in starts if prep.day[s] != self.day_of[other]}
        return starts

    def sub(self, ids: list[str], days: set[int], lower: bool = True) -> Prepared | None:
        """The batch of ``ids`` on ``days``: starts cut by the placed meetings outside it
        (``after`` both ways, ``not_same_day_as``); ``None`` when a meeting has no start."""
        prep, inside = self.prep, set(ids)
        meetings = []
        for meeting_id in ids:
            i = prep.position[meeting_id]
            meeting = prep.meetings[i]
            starts = {s for s in prep.fits[i] if prep.day[s] in days}
            if meeting.allowed_starts is not None:
                starts &= meeting.allowed_starts
            starts = self.after_placed(meeting, starts, inside)
            if not starts:
                return None
            meetings.append(
                dataclasses.replace(
                    meeting,
                    allowed_starts=frozenset(starts),
                    after=tuple(a for a in meeting.after if a.meeting_id in inside),
                    not_same_day_as=tuple(o for o in meeting.not_same_day_as if o in inside),
                )
            )
        if lower and not self.before_followers(ids, meetings):
            return None
        problem = dataclasses.replace(self.prep.problem, meetings=tuple(meetings))
        return prepare(problem)

    def before_followers(self, ids: list[str], meetings: list[Meeting]) -> bool:
        """Cut ``meetings`` (those of ``ids``) to end before the placed meetings outside that
        must follow them (``after`` seen from the other side); ``False`` when one has no
        start left."""
        inside = set(ids)
        for follower in self.prep.meetings:
            if follower.id in inside or follower.id not in self.placement:
                continue
            for after in follower.after:
                if after.meeting_id in inside:
                    k = ids.index(after.meeting_id)
                    latest = self.placement[follower.id][0] - after.gap - meetings[k].duration
                    starts = {s for s in meetings[k].allowed_starts or () if s <= latest}
                    if not starts:
                        return False
                    meetings[k] = dataclasses.replace(meetings[k], allowed_starts=frozenset(starts))
        return True

    def take(self, part: Placement) -> None:
        for meeting_id, (start, room) in part.items():
            self.placement[meeting_id] = (start, room)
            self.day_of[meeting_id] = self.prep.day[start]


def _by_day(prep: Prepared, days: list[int]) -> dict[int, list[str]]:
    out: dict[int, list[str]] = defaultdict(list)
    for i, d in enumerate(days):
        out[d].append(prep.meetings[i].id)
    return dict(sorted(out.items()))


def _limited(prep: Prepared, limit: float) -> Prepared:
    budget = dataclasses.replace(prep.problem.budget, deterministic_time=limit)
    return dataclasses.replace(prep, problem=dataclasses.replace(prep.problem, budget=budget))


def solve_decomposed(prep: Prepared) -> BatchSolution:
    """Solve ``prep`` by days (see the module docstring): ``FEASIBLE`` with ``bound`` ``None``,
    ``INFEASIBLE`` (proven, with the monolithic model's conflicting set) or ``UNKNOWN``."""
    work = Work()
    total = prep.problem.budget.deterministic_time
    facts = _day_facts(prep)
    if any(not days for days in facts.first):
        return infeasible(prep, work)
    phase1 = _DayModel(prep, facts)
    relaxation = True
    run = _Run(prep, work)
    tried: dict[tuple[int, tuple[str, ...]], Placement | None] = {}
    for _ in range(_MAX_ROUNDS):
        limit = max(total * DAYS_SHARE, 0.0) if not tried else max(run.left() * 0.25, 0.01)
        solver = solver_for(prep, limit, prep.problem.budget.workers)
        code = solver.solve(phase1.model)
        work.add(solver)
        if code == cp_model.INFEASIBLE and relaxation:
            return infeasible(prep, work)
        if code not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            break
        days = phase1.days(solver)
        phase1.hint(days)
        run.placement.clear()
        run.day_of.clear()
        failed = _place_days(prep, run, days, tried, facts)
        if failed is None:
            _improve(prep, run)
            return answer(
                prep, dict(sorted(run.placement.items())), SolveStatus.FEASIBLE, None, work
            )
        members, d, proven = failed
        relaxation = relaxation and proven
        phase1.forbid([prep.position[m] for m in members], d)
        if run.left() <= 0:
            break
    return BatchSolution(SolveStatus.UNKNOWN, (), None, (), None, (), stats(work))


def _place_days(
    prep: Prepared,
    run: _Run,
    days: list[int],
    tried: dict[tuple[int, tuple[str, ...]], Placement | None],
    facts: _Days,
) -> tuple[list[str], int, bool] | None:
    """Phase 2; ``None`` when every day is placed, else the failed day's meetings, the day and
    whether its failure is a proof (infeasible with no cut from another day). A day that fails
    first pushes one of its meetings to a later day (:func:`_push`) and is tried again."""
    total = prep.problem.budget.deterministic_time
    n = len(prep.meetings)
    days = list(days)
    for d in sorted(facts.grains):
        while True:
            ids = [prep.meetings[i].id for i in range(n) if days[i] == d]
            if not ids:
                break
            key = (d, tuple(ids))
            cut = any(
                a.meeting_id in run.placement
                for m in ids
                for a in prep.meetings[prep.position[m]].after
            )
            part: Placement | None = None
            proven = False
            if key in tried and not cut:
                part = tried[key]
                proven = part is None
            else:
                sub = run.sub(ids, {d}, lower=False)
                if sub is not None:
                    limit = max(min(total * DAY_SHARE * len(ids) / n, run.left()), 0.01)
                    status, part, _ = search(_limited(sub, limit), limit, run.work)
                    proven = status is SolveStatus.INFEASIBLE and not cut
                    if not cut:
                        tried[key] = part
            if part is not None:
                run.take(part)
                break
            if run.left() <= 0 or not _push(prep, facts, days, d):
                return ids, d, proven
    return None


def _push(prep: Prepared, facts: _Days, days: list[int], d: int) -> bool:
    """Move one meeting of day ``d`` to a later day it can use: among those without ``after``
    or ``not_same_day_as`` links, the one sharing required people with the most meetings of
    the day (then the longest, then id order), to the later day with the least load per
    grain (then the earliest). ``False`` when none can move."""
    linked = {m.id for m in prep.meetings if m.after or m.not_same_day_as}
    linked |= {a.meeting_id for m in prep.meetings for a in m.after}
    linked |= {o for m in prep.meetings for o in m.not_same_day_as}
    members = [i for i in range(len(prep.meetings)) if days[i] == d]
    load: dict[int, int] = defaultdict(int)
    for i, day in enumerate(days):
        load[day] += prep.meetings[i].duration

    def clashes(i: int) -> int:
        mine = set(prep.meetings[i].required)
        return sum(1 for j in members if j != i and mine & set(prep.meetings[j].required))

    movable = [
        i
        for i in members
        if prep.meetings[i].id not in linked and any(e > d for e in facts.first[i])
    ]
    if not movable:
        return False
    i = min(movable, key=lambda i: (-clashes(i), -prep.meetings[i].duration, i))
    later = [e for e in sorted(facts.first[i]) if e > d]
    days[i] = min(later, key=lambda e: (load[e] / len(facts.grains[e]), e))
    return True


def _improve(prep: Prepared, run: _Run) -> None:
    """Phase 3: pairs of days solved again together while the budget lasts."""
    days = sorted(set(run.day_of.values()))
    pairs = [
        (days[k], days[k + step]) for step in range(1, len(days)) for k in range(len(days) - step)
    ]
    if not pairs:
        return
    for a, b in pairs:
        left = run.left()
        if left <= 0:
            return
        limit = min(left, max(0.05, prep.problem.budget.deterministic_time * 0.02))
        ids = sorted(m for m, d in run.day_of.items() if d in (a, b))
        current = {m: run.placement.pop(m) for m in ids}
        for m in ids:
            del run.day_of[m]
        sub = run.sub(ids, {a, b})
        if sub is None:
            run.take(current)
            continue
        before, _ = score_placement(sub, current)
        _, part, _ = search(_limited(sub, limit), limit, run.work, hint=current)
        if part is not None:
            after, _ = score_placement(sub, part)
            if (after.medium, after.soft) < (before.medium, before.soft):
                run.take(part)
                continue
        run.take(current)
