"""The CP-SAT variables and hard rules of a batch (decision 0069).

Per meeting: a start variable (a grain index) and, when it takes a room, one literal per
candidate room (exactly one holds). A meeting occupies the grain indices ``[start, start +
duration)``; it never leaves its day (its starts are the prepared ``fits``), so the
half-open interval over indices is exact even though days are not contiguous in time.

Two forms of the same rules:

* the **search model** (``explain=False``): unary rules (window, hours, busy grains, a
  fixed existing meeting) cut the start domains up front, required attendees and rooms get
  ``NoOverlap`` over interval variables;
* the **explanation model** (``explain=True``): every rule is a named group behind its own
  literal (:attr:`Built.rules`), pairwise disjunctions replace ``NoOverlap``; assuming a
  subset of the literals asks whether those rules alone can hold (:mod:`._conflict`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from ortools.sat.python import cp_model

from cerebri.optimize._prepare import Prepared, free_starts, open_starts
from cerebri.optimize.solution import RuleRef

__all__ = ["Built", "build", "holds_and", "in_values"]


@dataclass
class Built:
    """The model and its variables. ``domains``: per meeting, the sorted starts its variable
    may take (empty in the search model: some meeting has no start at all, the batch is
    infeasible before any search). ``room``: per meeting, room id -> literal. ``moved``:
    meeting position -> literal, for existing meetings. ``rules``: the named rule literals
    (explanation model only)."""

    model: cp_model.CpModel
    start: list[cp_model.IntVar]
    room: list[dict[str, cp_model.IntVar]]
    domains: list[tuple[int, ...]]
    moved: dict[int, cp_model.IntVar] = field(default_factory=dict)
    rules: dict[RuleRef, cp_model.IntVar] = field(default_factory=dict)
    empty: bool = False


def in_values(values: Iterable[int]) -> cp_model.Domain:
    """A CP-SAT domain of exactly ``values``."""
    return cp_model.Domain.from_values(sorted(values))


def holds_and(model: cp_model.CpModel, literals: Sequence[cp_model.BoolVarT]) -> cp_model.IntVar:
    """A new literal equal to the conjunction of ``literals`` (both directions)."""
    both = model.new_bool_var("")
    for literal in literals:
        model.add_implication(both, literal)
    model.add_bool_or([~literal for literal in literals] + [both])
    return both


class _Builder:
    def __init__(self, prep: Prepared, explain: bool) -> None:
        self.prep = prep
        self.explain = explain
        self.model = cp_model.CpModel()
        self.rules: dict[RuleRef, cp_model.IntVar] = {}
        self.days: dict[int, cp_model.IntVar] = {}
        budget = prep.problem.budget
        self.existing = [i for i in range(len(prep.meetings)) if prep.existing(i)]
        self.pinned = budget.max_repairs == 0 and not explain

    def rule(self, kind: str, *ids: str) -> list[cp_model.IntVar]:
        """The literal enforcing a named rule group (explanation model), or nothing. Ids are
        sorted, except for ``after`` (the meeting, then the one it follows)."""
        if not self.explain:
            return []
        ref = RuleRef(kind, ids if kind == "after" else tuple(sorted(ids)))
        if ref not in self.rules:
            self.rules[ref] = self.model.new_bool_var(f"{kind}:{','.join(ref.ids)}")
        return [self.rules[ref]]

    def restrict(
        self,
        var: cp_model.IntVar,
        full: tuple[int, ...],
        allowed: frozenset[int],
        enforce: list[cp_model.IntVar],
    ) -> None:
        if len(allowed) == len(full):
            return
        ct = self.model.add_linear_expression_in_domain(var, in_values(allowed))
        ct.only_enforce_if(enforce)

    # -- per meeting ----------------------------------------------------------------------

    def search_domain(self, i: int) -> tuple[int, ...]:
        prep, meeting = self.prep, self.prep.meetings[i]
        starts = set(prep.fits[i])
        if meeting.allowed_starts is not None:
            starts &= meeting.allowed_starts
        for person_id in meeting.required:
            person = prep.people[person_id]
            starts &= open_starts(starts, meeting.duration, person.open_grains)
            starts &= free_starts(starts, meeting.duration, person.busy_grains)
        if self.pinned and meeting.current_start is not None:
            starts &= {meeting.current_start}
        return tuple(sorted(starts))

    def explained_unary(self, i: int, var: cp_model.IntVar) -> None:
        prep, meeting = self.prep, self.prep.meetings[i]
        fits = prep.fits[i]
        if meeting.allowed_starts is not None:
            allowed = frozenset(fits) & meeting.allowed_starts
            self.restrict(var, fits, allowed, self.rule("window", meeting.id))
        for person_id in meeting.required:
            person = prep.people[person_id]
            hours = open_starts(fits, meeting.duration, person.open_grains)
            self.restrict(var, fits, hours, self.rule("hours", meeting.id, person_id))
            free = free_starts(fits, meeting.duration, person.busy_grains)
            self.restrict(var, fits, free, self.rule("busy", meeting.id, person_id))

    def rooms_of(self, i: int, domain: tuple[int, ...]) -> dict[str, cp_model.IntVar]:
        prep, meeting = self.prep, self.prep.meetings[i]
        literals: dict[str, cp_model.IntVar] = {}
        for room_id in prep.candidate_rooms[i]:
            room = prep.rooms[room_id]
            pinned_elsewhere = (
                self.pinned
                and meeting.current_start is not None
                and meeting.current_room is not None
                and room_id != meeting.current_room
            )
            if not self.explain and (room.capacity < prep.need[i] or pinned_elsewhere):
                continue
            hours = open_starts(domain, meeting.duration, room.open_grains)
            free = free_starts(domain, meeting.duration, room.busy_grains)
            if not self.explain and not hours & free:
                continue
            x = self.model.new_bool_var(f"room:{meeting.id}:{room_id}")
            literals[room_id] = x
            self.restrict(
                self.starts[i], domain, hours, [x, *self.rule("hours", meeting.id, room_id)]
            )
            self.restrict(
                self.starts[i], domain, free, [x, *self.rule("busy", meeting.id, room_id)]
            )
            if self.explain and room.capacity < prep.need[i]:
                for lit in self.rule("capacity", meeting.id, room_id):
                    self.model.add_implication(lit, ~x)
        return literals

    def day_of(self, i: int) -> cp_model.IntVar:
        if i not in self.days:
            day = self.model.new_int_var(0, max(self.prep.day, default=0), "")
            self.model.add_element(self.starts[i], list(self.prep.day), day)
            self.days[i] = day
        return self.days[i]

    # -- the whole model ------------------------------------------------------------------

    def build(self) -> Built:
        prep, model = self.prep, self.model
        n = len(prep.meetings)
        domains = [prep.fits[i] if self.explain else self.search_domain(i) for i in range(n)]
        if any(not d for d in domains):
            return Built(model, [], [], [], empty=True)
        self.starts = [
            model.new_int_var_from_domain(in_values(domains[i]), f"start:{m.id}")
            for i, m in enumerate(prep.meetings)
        ]
        rooms: list[dict[str, cp_model.IntVar]] = []
        for i, meeting in enumerate(prep.meetings):
            if self.explain:
                self.explained_unary(i, self.starts[i])
            literals = self.rooms_of(i, domains[i]) if meeting.needs_room else {}
            if meeting.needs_room and not literals:
                return Built(model, [], [], [], empty=True)
            if literals:
                model.add_exactly_one(list(literals.values()))
            rooms.append(literals)
        self.room_lits = rooms
        self.domains = domains
        self.overlaps()
        self.order_rules()
        moved = self.repairs()
        return Built(model, self.starts, rooms, domains, moved, self.rules)

    def disjoint(self, i: int, j: int, gap: int, enforce: list[cp_model.IntVar]) -> None:
        """``i`` and ``j`` do not overlap and leave ``gap`` grains between them."""
        m_i, m_j = self.prep.meetings[i], self.prep.meetings[j]
        first = self.model.new_bool_var("")
        s_i, s_j = self.starts[i], self.starts[j]
        self.model.add(s_i + m_i.duration + gap <= s_j).only_enforce_if([first, *enforce])
        self.model.add(s_j + m_j.duration + gap <= s_i).only_enforce_if([~first, *enforce])

    def overlaps(self) -> None:
        prep = self.prep
        by_person: dict[str, list[int]] = defaultdict(list)
        for i, meeting in enumerate(prep.meetings):
            for person in meeting.required:
                by_person[person].append(i)
        by_room: dict[str, list[int]] = defaultdict(list)
        for i, literals in enumerate(self.room_lits):
            for room_id in literals:
                by_room[room_id].append(i)
        if self.explain:
            self.pairwise_rooms(by_room)
        else:
            self.no_overlap(by_person, by_room)
        shared: dict[tuple[int, int], set[str]] = defaultdict(set)
        for person, users in by_person.items():
            for a, i in enumerate(users):
                for j in users[a + 1 :]:
                    shared[(i, j)].add(person)
        for (i, j), persons in sorted(shared.items()):
            m_i, m_j = prep.meetings[i], prep.meetings[j]
            if self.explain:
                ids = (m_i.id, m_j.id, *persons)
                self.disjoint(i, j, 0, self.rule("attendee_overlap", *ids))
            travel = prep.travel_grains(i, j)
            if travel:
                self.travel(i, j, travel)

    def no_overlap(self, by_person: dict[str, list[int]], by_room: dict[str, list[int]]) -> None:
        """``NoOverlap`` per required person and per room (the search model)."""
        prep, model = self.prep, self.model
        for person in sorted(by_person):
            if len(by_person[person]) > 1:
                model.add_no_overlap(
                    [
                        model.new_fixed_size_interval_var(
                            self.starts[i], prep.meetings[i].duration, ""
                        )
                        for i in by_person[person]
                    ]
                )
        for room_id in sorted(by_room):
            if len(by_room[room_id]) > 1:
                model.add_no_overlap(
                    [
                        model.new_optional_fixed_size_interval_var(
                            self.starts[i],
                            prep.meetings[i].duration,
                            self.room_lits[i][room_id],
                            "",
                        )
                        for i in by_room[room_id]
                    ]
                )

    def pairwise_rooms(self, by_room: dict[str, list[int]]) -> None:
        """A named disjunction per pair of meetings that may share a room (explanation)."""
        for room_id in sorted(by_room):
            users = by_room[room_id]
            for a, i in enumerate(users):
                for j in users[a + 1 :]:
                    pair = (self.prep.meetings[i].id, self.prep.meetings[j].id, room_id)
                    both = [self.room_lits[i][room_id], self.room_lits[j][room_id]]
                    self.disjoint(i, j, 0, [*both, *self.rule("room_overlap", *pair)])

    def travel(self, i: int, j: int, grains: int) -> None:
        enforce = self.rule("travel", self.prep.meetings[i].id, self.prep.meetings[j].id)
        days = {self.prep.day[s] for s in (*self.domains[i], *self.domains[j])}
        if len(days) == 1:
            self.disjoint(i, j, grains, enforce)
            return
        model, s_i, s_j = self.model, self.starts[i], self.starts[j]
        d_i, d_j = self.prep.meetings[i].duration, self.prep.meetings[j].duration
        before, after, apart = (model.new_bool_var("") for _ in range(3))
        model.add(s_i + d_i + grains <= s_j).only_enforce_if([before, *enforce])
        model.add(s_j + d_j + grains <= s_i).only_enforce_if([after, *enforce])
        model.add(self.day_of(i) != self.day_of(j)).only_enforce_if([apart, *enforce])
        model.add_bool_or([before, after, apart])

    def order_rules(self) -> None:
        prep, model = self.prep, self.model
        for i, meeting in enumerate(prep.meetings):
            for after in sorted(meeting.after, key=lambda a: (a.meeting_id, a.gap)):
                j = prep.position[after.meeting_id]
                other = prep.meetings[j]
                enforce = self.rule("after", meeting.id, other.id)
                ct = model.add(self.starts[i] >= self.starts[j] + other.duration + after.gap)
                ct.only_enforce_if(enforce)
            for other_id in sorted(set(meeting.not_same_day_as)):
                j = prep.position[other_id]
                enforce = self.rule("not_same_day", meeting.id, other_id)
                model.add(self.day_of(i) != self.day_of(j)).only_enforce_if(enforce)

    def repairs(self) -> dict[int, cp_model.IntVar]:
        prep, model = self.prep, self.model
        moved: dict[int, cp_model.IntVar] = {}
        for i in self.existing:
            meeting = prep.meetings[i]
            current = meeting.current_start
            assert current is not None
            stays: list[cp_model.IntVar] = []
            on_place = model.new_bool_var("")
            if current in self.domains[i]:
                model.add(self.starts[i] == current).only_enforce_if(on_place)
                model.add(self.starts[i] != current).only_enforce_if(~on_place)
            else:
                model.add(on_place == 0)
            stays.append(on_place)
            if meeting.needs_room and meeting.current_room is not None:
                room = self.room_lits[i].get(meeting.current_room)
                if room is None:
                    room = model.new_bool_var("")
                    model.add(room == 0)
                stays.append(room)
            stay = holds_and(model, stays)
            moved[i] = model.new_bool_var(f"moved:{meeting.id}")
            model.add(moved[i] + stay == 1)
        budget = prep.problem.budget
        if self.pinned or not moved:
            return moved
        if budget.max_repairs < len(moved):
            model.add(sum(moved.values()) <= budget.max_repairs).only_enforce_if(
                self.rule("max_repairs")
            )
        if budget.max_depth < min(budget.max_repairs, len(moved)):
            self.depth(moved, budget.max_depth)
        return moved

    def depth(self, moved: dict[int, cp_model.IntVar], limit: int) -> None:
        """Displacement chains of at most ``limit`` moved meetings (decision 0069)."""
        prep, model = self.prep, self.model
        enforce = self.rule("max_depth")
        if limit == 0:
            for i in sorted(moved):
                model.add(moved[i] == 0).only_enforce_if(enforce)
            return
        depth = {i: model.new_int_var(0, limit, "") for i in sorted(moved)}
        for i in sorted(moved):
            model.add(depth[i] >= 1).only_enforce_if([moved[i], *enforce])
        for x in sorted(moved):
            m_x = prep.meetings[x]
            for y in sorted(moved):
                m_y = prep.meetings[y]
                if x == y or m_y.current_start is None:
                    continue
                via: list[cp_model.IntVar] = []
                if not set(m_x.required) & set(m_y.required):
                    room = self.room_lits[x].get(m_y.current_room or "")
                    if room is None:
                        continue
                    via = [room]
                old = m_y.current_start
                low, high = old - m_x.duration + 1, old + m_y.duration - 1
                takes = model.new_bool_var("")
                outside = cp_model.Domain.from_intervals([[low, high]]).complement()
                model.add_linear_expression_in_domain(self.starts[x], outside).only_enforce_if(
                    ~takes
                )
                model.add(depth[x] >= depth[y] + 1).only_enforce_if(
                    [takes, moved[x], moved[y], *via, *enforce]
                )


def build(prep: Prepared, *, explain: bool) -> Built:
    """The CP-SAT model of ``prep``'s hard rules: the search model, or (``explain``) the
    explanation model with one literal per named rule group."""
    return _Builder(prep, explain).build()
