"""The medium and soft levels as CP-SAT expressions, folded into one objective (decision 0069).

Each term follows its definition in :class:`~cerebri.optimize.model.Weights` and
:mod:`._explain` exactly (every auxiliary variable is tied both ways, so the objective of any
solution, optimal or not, equals the recomputed score). A term with weight 0 builds nothing;
pair terms are built only for pairs whose start domains let them interact.

The objective is ``medium * M + soft`` with ``M = soft_upper_bound + 1``: no soft total can
outweigh one grain of medium, so minimising the sum minimises ``(medium, soft)``
lexicographically.
"""

from __future__ import annotations

from dataclasses import dataclass

from ortools.sat.python import cp_model

from cerebri.optimize._cp_model import Built, holds_and, in_values
from cerebri.optimize._prepare import Prepared, occupied

__all__ = ["Objective", "add_objective"]

LinearExpr = cp_model.LinearExprT


@dataclass(frozen=True, slots=True)
class Objective:
    """``fold``: the ``M`` of ``medium * M + soft``; ``expression``: that sum (the
    solution's own value of it is what the recomputed score is checked against)."""

    fold: int
    expression: cp_model.LinearExprT


class _Terms:
    def __init__(self, prep: Prepared, built: Built) -> None:
        self.prep, self.built, self.model = prep, built, built.model
        self.medium: list[LinearExpr] = []
        self.soft: list[LinearExpr] = []
        self.soft_bound = 0
        self.overlap_cache: dict[tuple[int, int], cp_model.IntVar] = {}

    def table(self, i: int, values: dict[int, int]) -> cp_model.IntVar:
        """A variable equal to ``values[start]`` (starts outside ``values`` never occur)."""
        table = [values.get(g, 0) for g in range(self.prep.n_grains)]
        low, high = min(values.values()), max(values.values())
        var = self.model.new_int_var(low, high, "")
        self.model.add_element(self.built.start[i], table, var)
        return var

    def unary(self) -> None:
        prep, built, w = self.prep, self.built, self.prep.problem.weights
        for i, meeting in enumerate(prep.meetings):
            domain = built.domains[i]
            start = built.start[i]
            if w.early and meeting.current_start is None:
                self.soft.append(w.early * (start + meeting.duration - 1))
                self.soft_bound += w.early * (domain[-1] + meeting.duration - 1)
            if w.preference and meeting.preferred_start is not None:
                distance = {s: abs(s - meeting.preferred_start) for s in domain}
                if max(distance.values()):
                    self.soft.append(w.preference * self.table(i, distance))
                    self.soft_bound += w.preference * max(distance.values())
            busy = {
                s: sum(
                    len(set(occupied(s, meeting.duration)) & prep.away[p]) for p in meeting.optional
                )
                for s in domain
            }
            if max(busy.values()):
                self.medium.append(self.table(i, busy))
            if w.move and i in built.moved and meeting.move_cost:
                self.soft.append(w.move * meeting.move_cost * built.moved[i])
                self.soft_bound += w.move * meeting.move_cost
            if w.larger_rooms_first and built.room[i]:
                penalties = {
                    room_id: sum(
                        max(0, prep.rooms[r].capacity - prep.rooms[room_id].capacity)
                        for r in prep.room_ids
                    )
                    for room_id in built.room[i]
                }
                weight = w.larger_rooms_first
                self.soft.extend(weight * p * built.room[i][r] for r, p in penalties.items() if p)
                self.soft_bound += weight * max(penalties.values())

    def overlap(self, i: int, j: int) -> cp_model.IntVar:
        """``max(0, min(e_i, e_j) - max(s_i, s_j))``, exactly."""
        if (i, j) not in self.overlap_cache:
            s_i, s_j = self.built.start[i], self.built.start[j]
            d_i, d_j = self.prep.meetings[i].duration, self.prep.meetings[j].duration
            longest = min(d_i, d_j)
            low = -self.prep.n_grains - max(d_i, d_j)
            raw = self.model.new_int_var(low, longest, "")
            self.model.add_min_equality(raw, [d_i, d_j, s_i + d_i - s_j, s_j + d_j - s_i])
            var = self.model.new_int_var(0, longest, "")
            self.model.add_max_equality(var, [0, raw])
            self.overlap_cache[(i, j)] = var
        return self.overlap_cache[(i, j)]

    def follows(self, i: int, j: int) -> cp_model.IntVar | None:
        """A literal: ``j`` starts at ``i``'s end on a grain that continues in time (``None``
        when the domains never allow it)."""
        prep, built, model = self.prep, self.built, self.model
        d_i = prep.meetings[i].duration
        targets = {s + d_i for s in built.domains[i]} & set(built.domains[j])
        if not targets & prep.continues:
            return None
        s_i, s_j = built.start[i], built.start[j]
        equal = model.new_bool_var("")
        model.add(s_j - s_i == d_i).only_enforce_if(equal)
        model.add(s_j - s_i != d_i).only_enforce_if(~equal)
        if targets <= prep.continues:
            return equal
        domain = set(built.domains[j])
        inside = model.new_bool_var("")
        continuing = domain & prep.continues
        model.add_linear_expression_in_domain(s_j, in_values(continuing)).only_enforce_if(inside)
        model.add_linear_expression_in_domain(s_j, in_values(domain - continuing)).only_enforce_if(
            ~inside
        )
        return holds_and(model, [equal, inside])

    def near(self, i: int, j: int) -> cp_model.IntVar:
        """A literal: at most two free grains between ``i`` and ``j`` (either order)."""
        model, built = self.model, self.built
        s_i, s_j = built.start[i], built.start[j]
        d_i, d_j = self.prep.meetings[i].duration, self.prep.meetings[j].duration
        parts = []
        for a, b, d in ((s_i, s_j, d_i), (s_j, s_i, d_j)):
            close = model.new_bool_var("")
            model.add(b - a - d <= 2).only_enforce_if(close)
            model.add(b - a - d >= 3).only_enforce_if(~close)
            parts.append(close)
        return holds_and(model, parts)

    def pairs(self) -> None:
        prep, built, w = self.prep, self.built, self.prep.problem.weights
        n = len(prep.meetings)
        low = [d[0] for d in built.domains]
        high = [d[-1] + prep.meetings[i].duration for i, d in enumerate(built.domains)]
        for i in range(n):
            m_i = prep.meetings[i]
            for j in range(i + 1, n):
                m_j = prep.meetings[j]
                shared = prep.attendees[i] & prep.attendees[j]
                can_meet = low[i] < high[j] and low[j] < high[i]
                can_touch = low[i] <= high[j] and low[j] <= high[i]
                optional = [p for p in shared if p in m_i.optional or p in m_j.optional]
                longest = min(m_i.duration, m_j.duration)
                if can_meet and optional:
                    self.medium.append(len(optional) * self.overlap(i, j))
                if can_meet and w.overlap_any:
                    self.soft.append(w.overlap_any * self.overlap(i, j))
                    self.soft_bound += w.overlap_any * longest
                weight = w.back_to_back_any + (w.back_to_back if shared else 0)
                if can_touch and weight:
                    for a, b in ((i, j), (j, i)):
                        follows = self.follows(a, b)
                        if follows is not None:
                            self.soft.append(weight * follows)
                    self.soft_bound += weight
                if w.room_stability and shared and built.room[i] and built.room[j]:
                    self.room_stability(i, j, len(shared), low, high)

    def room_stability(self, i: int, j: int, people: int, low: list[int], high: list[int]) -> None:
        if not (low[i] <= high[j] + 2 and low[j] <= high[i] + 2):
            return
        rooms_i, rooms_j = self.built.room[i], self.built.room[j]
        if len(rooms_i) == 1 and rooms_i.keys() == rooms_j.keys():
            return  # one room for both: never different rooms
        model = self.model
        same = model.new_bool_var("")
        common = sorted(rooms_i.keys() & rooms_j.keys())
        model.add(same == sum(holds_and(model, [rooms_i[r], rooms_j[r]]) for r in common))
        apart = holds_and(model, [self.near(i, j), ~same])
        weight = self.prep.problem.weights.room_stability * people
        self.soft.append(weight * apart)
        self.soft_bound += weight


def add_objective(prep: Prepared, built: Built) -> Objective:
    """Add the folded objective ``medium * M + soft`` to ``built``'s model; return ``M``."""
    terms = _Terms(prep, built)
    terms.unary()
    terms.pairs()
    fold = terms.soft_bound + 1
    medium = cp_model.LinearExpr.sum(terms.medium)
    expression = fold * medium + cp_model.LinearExpr.sum(terms.soft)
    built.model.minimize(expression)
    return Objective(fold=fold, expression=expression)
