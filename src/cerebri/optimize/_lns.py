"""Repair and large neighbourhood search over a placement (decision 0078).

:class:`Search` holds the placement and the counted work. :meth:`Search.improve` solves one
neighbourhood (:mod:`._neighbourhood`) exactly with CP-SAT, hinted with the current
placement, and keeps the answer when it places a meeting that was unplaced, or when its
``(medium, soft)`` on the sub-batch is lexicographically lower (every other term of the
batch is unchanged, so the whole score is lower by as much). Hard rules are constraints of
the sub-batch, so the placement never breaks one.

:func:`repair` places the meetings the construction left out: each (in id order) with the
meetings of one day it can use (days in order of load per grain, then day number) freed
around it, those free to move to the day before or after as well. :func:`descend` visits
neighbourhoods in a fixed cycle: each day alone, then each
pair of days one apart, two apart, three apart (days in order); each call gets
``step`` deterministic time, doubled after a cycle that improved nothing (at most a quarter
of the budget); a neighbourhood CP-SAT proved optimal is skipped until one of its meetings
moves; the search ends when the budget is spent or a whole cycle is proven optimal.
"""

from __future__ import annotations

from collections import defaultdict

from cerebri.optimize._conflict import Work
from cerebri.optimize._construct import starts_of
from cerebri.optimize._explain import score_placement
from cerebri.optimize._neighbourhood import sub_batch
from cerebri.optimize._prepare import Prepared
from cerebri.optimize._solve import search
from cerebri.optimize.solution import SolveStatus

__all__ = ["Search", "descend", "repair"]

#: the first per-call limit (deterministic time), before doubling
FIRST_STEP = 0.25
#: pairs of days this many apart at most
_FURTHEST = 3


class Search:
    """The placement (meeting id -> (start, room)) and the work counted so far."""

    def __init__(self, prep: Prepared, placement: dict[str, tuple[int, str | None]]) -> None:
        self.prep = prep
        self.placement = placement
        self.work = Work()
        self.total = prep.problem.budget.deterministic_time
        self.starts = {m.id: starts_of(prep, i) for i, m in enumerate(prep.meetings)}
        self.links: dict[str, list[tuple[str, int, bool]]] = defaultdict(list)
        for meeting in prep.meetings:
            for after in meeting.after:
                self.links[after.meeting_id].append((meeting.id, after.gap, True))
            for other in meeting.not_same_day_as:
                self.links[other].append((meeting.id, 0, False))
        self.days = sorted(set(prep.day))
        self.proven: set[tuple[object, ...]] = set()

    def left(self) -> float:
        """Deterministic time left of the budget."""
        return self.total - self.work.deterministic_time

    def on_days(self, days: set[int]) -> list[str]:
        """The placed meetings on ``days``."""
        day = self.prep.day
        return sorted(m for m, (s, _) in self.placement.items() if day[s] in days)

    def improve(
        self, free: list[str], days: set[int], limit: float, medium_only: bool = False
    ) -> bool:
        """Solve the neighbourhood of ``free`` on ``days``; ``True`` when the placement
        changed (see the module docstring). ``medium_only``: the sub-batch's soft weights
        are 0, and a neighbourhood without lost optional attendance is not searched."""
        nb = sub_batch(
            self.prep,
            self.placement,
            free,
            days,
            starts=self.starts,
            links=self.links,
            limit=limit,
            medium_only=medium_only,
        )
        if nb is None:
            return False
        key = (medium_only, tuple(sorted(days)), tuple(sorted(nb.current.items())))
        if key in self.proven:
            return False
        complete = len(nb.current) == len(nb.prep.meetings)
        if complete and medium_only and score_placement(nb.prep, nb.current)[0].medium == 0:
            return False
        hint = nb.current if complete else None
        status, part, _ = search(nb.prep, limit, self.work, hint=hint)
        if status is SolveStatus.OPTIMAL or status is SolveStatus.INFEASIBLE:
            self.proven.add(key)
        if part is None:
            return False
        if complete:
            before, _ = score_placement(nb.prep, nb.current)
            after, _ = score_placement(nb.prep, part)
            if (after.medium, after.soft) >= (before.medium, before.soft):
                return False
        for meeting_id in nb.free:
            self.placement[meeting_id] = part[meeting_id]
        return True


def repair(run: Search, unplaced: list[str], step: float) -> list[str]:
    """Place what it can of ``unplaced`` (see the module docstring); the ids still unplaced."""
    prep = run.prep
    left: list[str] = []
    for meeting_id in sorted(unplaced):
        days = sorted({prep.day[s] for s in run.starts[meeting_id]})
        load: dict[int, int] = defaultdict(int)
        size: dict[int, int] = defaultdict(int)
        for d in prep.day:
            size[d] += 1
        for m, (s, _) in run.placement.items():
            load[prep.day[s]] += prep.meetings[prep.position[m]].duration
        placed = False
        for d in sorted(days, key=lambda d: (load[d] / size[d], d)):
            if run.left() <= 0:
                break
            near = {d - 1, d, d + 1} & set(run.days)
            free = [*run.on_days({d}), meeting_id]
            if run.improve(free, near, min(step, run.left())):
                placed = True
                break
        if not placed:
            left.append(meeting_id)
    return left


def _cycle(days: list[int]) -> list[set[int]]:
    out = [{d} for d in days]
    for gap in range(1, min(_FURTHEST, len(days) - 1) + 1):
        out.extend({days[k], days[k + gap]} for k in range(len(days) - gap))
    return out


def descend(run: Search, medium_only: bool = False, until: float | None = None) -> None:
    """Large neighbourhood search while the budget lasts (see the module docstring);
    ``until``: stop when this much deterministic time is spent in all."""
    step = min(FIRST_STEP, run.total / 10)
    cycle = _cycle(run.days)
    total = run.total
    if until is not None:
        run.total = min(total, until)
    try:
        _descend(run, cycle, step, medium_only)
    finally:
        run.total = total


def _descend(run: Search, cycle: list[set[int]], step: float, medium_only: bool) -> None:
    while run.left() > 0:
        improved = False
        tried = False
        for days in cycle:
            if run.left() <= 0:
                return
            free = run.on_days(days)
            if not free:
                continue
            before = run.work.deterministic_time
            improved |= run.improve(free, days, min(step, run.left()), medium_only)
            tried |= run.work.deterministic_time > before
        if not tried:
            return  # every neighbourhood proven optimal as it stands
        if not improved:
            step = min(step * 2, run.total / 4)


def _conflicts(run: Search) -> list[tuple[str, str]]:
    """Pairs of meetings whose overlap loses optional attendance (sorted)."""
    prep = run.prep
    by_person: dict[str, list[str]] = defaultdict(list)
    for meeting_id in sorted(run.placement):
        for person in prep.attendees[prep.position[meeting_id]]:
            by_person[person].append(meeting_id)
    out: set[tuple[str, str]] = set()
    for person in sorted(by_person):
        ids = by_person[person]
        for k, a in enumerate(ids):
            m_a = prep.meetings[prep.position[a]]
            s_a = run.placement[a][0]
            for b in ids[k + 1 :]:
                m_b = prep.meetings[prep.position[b]]
                if person not in m_a.optional and person not in m_b.optional:
                    continue
                s_b = run.placement[b][0]
                if s_a < s_b + m_b.duration and s_b < s_a + m_a.duration:
                    out.add((a, b))
    return sorted(out)


def untangle(run: Search, until: float) -> None:
    """Lost optional attendance, pair by pair: for each overlapping pair that loses some
    (sorted), the two meetings and every meeting sharing an attendee with either, on their
    days and the days next to them, solved for medium alone; while ``until`` deterministic
    time is not spent and a round changes something."""
    prep = run.prep
    total = run.total
    run.total = min(total, until)
    step = max(FIRST_STEP, run.total / 40)
    try:
        while run.left() > 0:
            pairs = _conflicts(run)
            changed = False
            for a, b in pairs:
                if run.left() <= 0 or a not in run.placement:
                    break
                days = set()
                for m in (a, b):
                    d = prep.day[run.placement[m][0]]
                    days |= {d - 1, d, d + 1}
                days &= set(run.days)
                people = prep.attendees[prep.position[a]] | prep.attendees[prep.position[b]]
                free = [m for m in run.on_days(days) if prep.attendees[prep.position[m]] & people]
                changed |= run.improve(free, days, min(step, run.left()), medium_only=True)
            if not changed:
                return
    finally:
        run.total = total
