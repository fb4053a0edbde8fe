"""Each rule kind on a tiny batch whose optimum is worked out by hand (in the comments) and
confirmed by the brute-force oracle (tests/optimize/oracle.py)."""

from __future__ import annotations

from cerebri.optimize import (
    After,
    Assignment,
    BatchProblem,
    Meeting,
    Person,
    Room,
    SolverBudget,
    Term,
    Travel,
    Weights,
)
from tests.optimize.helpers import GRAIN, grid, solved

OFF = Weights(early=0, preference=0, back_to_back=0, move=0)
EARLY = Weights(early=1, preference=0, back_to_back=0, move=0)
P, Q = Person("p"), Person("q")


def problem(*meetings: Meeting, **kw: object) -> BatchProblem:
    kw.setdefault("grains", grid(6))
    kw.setdefault("people", (P, Q))
    kw.setdefault("weights", EARLY)
    return BatchProblem(GRAIN, meetings=meetings, **kw)  # type: ignore[arg-type]


def at(answer: object, meeting_id: str) -> Assignment:
    return next(a for a in answer.assignments if a.meeting_id == meeting_id)  # type: ignore[attr-defined]


def test_early_puts_the_short_meeting_first() -> None:
    # b (1 grain) at 0 ends on grain 0, a (2 grains) at 1 ends on grain 2: 0 + 2 = 2; the
    # other order costs 1 + 2 = 3.
    answer = solved(problem(Meeting("a", 2, ("p",)), Meeting("b", 1, ("p",))))
    assert answer.score is not None and answer.score.soft == 2
    assert (at(answer, "a").start, at(answer, "b").start) == (1, 0)
    assert answer.terms == (Term("early", "a", None, 2, 2),)


def test_preference_is_the_distance_to_the_preferred_start() -> None:
    # Allowed 0, 2, 7 with preferred 4: distances 4, 2, 3.
    weights = Weights(early=0, preference=3, back_to_back=0, move=0)
    meeting = Meeting("a", 1, ("p",), allowed_starts=frozenset({0, 2, 7}), preferred_start=4)
    answer = solved(problem(meeting, grains=grid(8), weights=weights))
    assert at(answer, "a").start == 2
    assert answer.terms == (Term("preference", "a", None, 2, 6),)


def test_back_to_back_is_avoided_by_a_break_grain() -> None:
    # 5 grains, two 2-grain meetings of p: (0,2) touch: 1 + 3 + 10; (0,3): 1 + 4 = 5.
    weights = Weights(early=1, preference=0, back_to_back=10, move=0)
    answer = solved(
        problem(Meeting("a", 2, ("p",)), Meeting("b", 2, ("p",)), grains=grid(5), weights=weights)
    )
    assert answer.score is not None and answer.score.soft == 5


def test_back_to_back_when_nothing_else_fits() -> None:
    # 4 grains: the only placement is 0-1 and 2-3, back to back: 10 + 1 + 3.
    weights = Weights(early=1, preference=0, back_to_back=10, move=0)
    answer = solved(
        problem(Meeting("a", 2, ("p",)), Meeting("b", 2, ("p",)), grains=grid(4), weights=weights)
    )
    assert answer.score is not None and answer.score.soft == 14
    assert Term("back_to_back", "a", "b", 1, 10) in answer.terms


def test_a_day_boundary_is_a_break() -> None:
    # Two days of 2 grains: one meeting per day, grains 1 and 2 are not adjacent in time.
    weights = Weights(early=1, preference=0, back_to_back=10, move=0)
    answer = solved(
        problem(
            Meeting("a", 2, ("p",)), Meeting("b", 2, ("p",)), grains=grid(2, 2), weights=weights
        )
    )
    assert answer.score is not None and answer.score.soft == 1 + 3


def test_a_closed_hour_splits_a_day() -> None:
    # 6 grains, lunch after grain 2: a 2-grain meeting fits at 0, 1, 3, 4 (not 2: it would
    # span lunch). a must start at 1 and ends on grain 2; b at 3 follows it by index but
    # not in time (lunch between): no back-to-back cost, 2 + 4 = 6 (b at 4 would cost 7).
    weights = Weights(early=1, preference=0, back_to_back=10, move=0)
    a = Meeting("a", 2, ("p",), allowed_starts=frozenset({1, 2}))
    answer = solved(
        problem(a, Meeting("b", 2, ("p",)), grains=grid(6, closed_after=3), weights=weights)
    )
    assert (at(answer, "a").start, at(answer, "b").start) == (1, 3)
    assert answer.score is not None and answer.score.soft == 6


def test_back_to_back_any_counts_pairs_without_a_shared_person() -> None:
    # a fixed at 0; b at 1 touches a (10 + 0 + 1), b at 2 does not (0 + 2).
    weights = Weights(early=1, preference=0, back_to_back=0, back_to_back_any=10, move=0)
    a = Meeting("a", 1, ("p",), allowed_starts=frozenset({0}))
    b = Meeting("b", 1, ("q",), allowed_starts=frozenset({1, 2}))
    answer = solved(problem(a, b, weights=weights))
    assert at(answer, "b").start == 2 and answer.score is not None and answer.score.soft == 2


def test_overlap_any_counts_overlapping_grains() -> None:
    # 2-grain a, b of different people in 4 grains: both at 0 cost 5*2 + 1 + 1 = 12; 0 and 1
    # cost 5 + 1 + 2 = 8; 0 and 2 cost 1 + 3 = 4.
    weights = Weights(early=1, preference=0, back_to_back=0, overlap_any=5, move=0)
    answer = solved(
        problem(Meeting("a", 2, ("p",)), Meeting("b", 2, ("q",)), grains=grid(4), weights=weights)
    )
    assert answer.score is not None and answer.score.soft == 4


def test_optional_conflict_outweighs_every_soft_cost() -> None:
    # q is optional in a, required in b (fixed at 1). a at 0 or 1 overlaps b by 1 grain
    # (medium 1); a at 2 does not: medium 0, soft 3 + 1 = 4, worse on soft than a at 0 (1 + 1).
    a = Meeting("a", 2, ("p",), optional=("q",), allowed_starts=frozenset({0, 1, 2}))
    b = Meeting("b", 1, ("q",), allowed_starts=frozenset({1}))
    answer = solved(problem(a, b, grains=grid(4)))
    assert answer.score is not None
    assert (answer.score.medium, answer.score.soft) == (0, 4)


def test_optional_conflict_with_busy_grains() -> None:
    # As above, and q is busy on grain 3: a at 2 now overlaps it; every place costs medium 1,
    # and the earliest wins: a at 0 (soft 1 + 1).
    busy_q = Person("q", busy_grains=frozenset({3}))
    a = Meeting("a", 2, ("p",), optional=("q",), allowed_starts=frozenset({0, 1, 2}))
    b = Meeting("b", 1, ("q",), allowed_starts=frozenset({1}))
    answer = solved(problem(a, b, grains=grid(4), people=(P, busy_q)))
    assert answer.score is not None
    assert (answer.score.medium, answer.score.soft) == (1, 2)
    assert answer.terms[-1] == Term("optional_conflict", "a", "b", 1, 1, "q")


def test_optional_attendee_outside_hours_loses_those_grains() -> None:
    # q is optional and open only on grains 2-3; a (2 grains, p required) at 0 loses 2 grains
    # of q (medium 2), at 1 loses 1, at 2 loses none: medium 0 beats the earlier starts.
    q = Person("q", open_grains=frozenset({2, 3}))
    a = Meeting("a", 2, ("p",), optional=("q",))
    answer = solved(problem(a, grains=grid(4), people=(P, q)))
    assert at(answer, "a").start == 2
    assert answer.score is not None and (answer.score.medium, answer.score.soft) == (0, 3)
    # with a only allowed at 0 or 1, the loss is charged as an optional_conflict term
    a = Meeting("a", 2, ("p",), optional=("q",), allowed_starts=frozenset({0, 1}))
    answer = solved(problem(a, grains=grid(4), people=(P, q)))
    assert at(answer, "a").start == 1
    assert answer.score is not None and answer.score.medium == 1
    assert Term("optional_conflict", "a", None, 1, 1, "q") in answer.terms


def test_an_existing_meeting_is_not_moved_only_to_be_earlier() -> None:
    # x sits at 2 with move cost 1. Were early charged on x, moving it to 0 would cost
    # 1 (early) + 1 (move) < 3 (early at 2); early charges new meetings only, so x stays and
    # the soft score is y's early alone: y at 0 ends on grain 0, 0.
    weights = Weights(early=1, preference=0, back_to_back=0, move=1)
    x = Meeting("x", 2, ("p",), current_start=2, move_cost=1)
    y = Meeting("y", 1, ("q",), allowed_starts=frozenset({0}))
    budget = SolverBudget(max_repairs=1, max_depth=1)
    people = (P, Person("q"))
    answer = solved(problem(x, y, grains=grid(4), weights=weights, budget=budget, people=people))
    assert at(answer, "x") == Assignment("x", 2, None, False)
    assert answer.score is not None and answer.score.soft == 0


def test_move_costs_and_counts_against_the_budget() -> None:
    # x sits at 0; the new y can only start at 0; x moves to 2: move 10 * 3 + early of y 1
    # (early charges new meetings only: the moved x pays its move, not its lateness).
    weights = Weights(early=1, preference=0, back_to_back=0, move=10)
    x = Meeting("x", 2, ("p",), current_start=0, move_cost=3)
    y = Meeting("y", 2, ("p",), allowed_starts=frozenset({0}))
    budget = SolverBudget(max_repairs=1, max_depth=1)
    answer = solved(problem(x, y, grains=grid(4), weights=weights, budget=budget))
    assert at(answer, "x") == Assignment("x", 2, None, True)
    assert answer.score is not None and answer.score.soft == 31


def test_room_stability_keeps_one_persons_meetings_apart_or_in_one_room() -> None:
    # a must use r1, b r2 (p in both): within 2 free grains costs 10; b at 4 (3 free grains
    # after a at 0) costs early 0 + 4.
    weights = Weights(early=1, preference=0, back_to_back=0, move=0, room_stability=10)
    rooms = (Room("r1", 5), Room("r2", 5))
    a = Meeting("a", 1, ("p",), needs_room=True, room_ids=("r1",))
    b = Meeting("b", 1, ("p",), needs_room=True, room_ids=("r2",))
    answer = solved(problem(a, b, rooms=rooms, weights=weights))
    assert answer.score is not None and answer.score.soft == 4


def test_larger_rooms_first() -> None:
    # Two overlapping meetings of two people: one takes r3 (penalty 0), the other r2
    # (10 - 5 = 5); r1 would cost 3 + 8 = 11.
    weights = Weights(early=0, preference=0, back_to_back=0, move=0, larger_rooms_first=1)
    rooms = (Room("r1", 2), Room("r2", 5), Room("r3", 10))
    only0 = frozenset({0})
    a = Meeting("a", 1, ("p",), optional=("q",), needs_room=True, allowed_starts=only0)
    b = Meeting("b", 1, (), needs_room=True, capacity_needed=2, allowed_starts=only0)
    answer = solved(problem(a, b, rooms=rooms, weights=weights))
    assert answer.score is not None and answer.score.soft == 5
    assert {at(answer, "a").room_id, at(answer, "b").room_id} == {"r2", "r3"}


def test_hours_busy_and_capacity() -> None:
    # p is open on 2..4 and busy on 2: a (2 grains) can start at 3 only; r1 is too small.
    person = Person("p", open_grains=frozenset({2, 3, 4}), busy_grains=frozenset({2}))
    rooms = (Room("r1", 1), Room("r2", 3, busy_grains=frozenset({0})))
    a = Meeting("a", 2, ("p",), optional=("q",), needs_room=True)
    answer = solved(problem(a, people=(person, Q), rooms=rooms))
    assert at(answer, "a") == Assignment("a", 3, "r2", False)


def test_after_with_a_gap() -> None:
    # b starts at least 2 grains after a ends: a at 0, b at 3.
    b = Meeting("b", 1, ("q",), after=(After("a", 2),))
    answer = solved(problem(Meeting("a", 1, ("p",)), b))
    assert (at(answer, "a").start, at(answer, "b").start) == (0, 3)


def test_not_same_day() -> None:
    a = Meeting("a", 1, ("p",), not_same_day_as=("b",))
    answer = solved(problem(a, Meeting("b", 1, ("q",)), grains=grid(3, 3)))
    assert answer.score is not None and answer.score.soft == 3


def test_travel_between_locations() -> None:
    # p needs 2 grains between X and Y on one day: 0 and 3.
    travel = (Travel("X", "Y", 2),)
    a = Meeting("a", 1, ("p",), location="X")
    b = Meeting("b", 1, ("p",), location="Y")
    answer = solved(problem(a, b, travel=travel))
    assert answer.score is not None and answer.score.soft == 3


def test_travel_is_not_needed_across_days() -> None:
    # Days of 2 grains, 5 grains of travel: only possible on different days (0 and 2).
    travel = (Travel("X", "Y", 5),)
    a = Meeting("a", 2, ("p",), location="X")
    b = Meeting("b", 2, ("p",), location="Y")
    answer = solved(problem(a, b, travel=travel, grains=grid(2, 2)))
    assert answer.score is not None and answer.score.soft == 1 + 3


def test_a_chain_of_two_displacements_needs_depth_two() -> None:
    # n must start at 0 (x's place); x can only go to 2 (y's place); y then moves to 4.
    x = Meeting("x", 2, ("p",), current_start=0, allowed_starts=frozenset({0, 2}))
    y = Meeting("y", 2, ("p",), current_start=2)
    n = Meeting("n", 2, ("p",), allowed_starts=frozenset({0}))
    weights = Weights(early=0, preference=0, back_to_back=0, move=1)
    deep = problem(n, x, y, weights=weights, budget=SolverBudget(max_repairs=2, max_depth=2))
    answer = solved(deep)
    assert answer.score is not None and answer.score.soft == 2
    assert [(a.start, a.moved) for a in answer.assignments] == [(0, False), (2, True), (4, True)]
