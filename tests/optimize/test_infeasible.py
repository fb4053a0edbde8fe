"""Infeasible batches answer INFEASIBLE with a minimal conflicting set, checked by hand: the
set cannot hold, and without any one of its rules the rest can (argued in each comment)."""

from __future__ import annotations

import pytest

from cerebri.optimize import (
    After,
    BatchProblem,
    Meeting,
    OptimizeError,
    Person,
    Room,
    RuleRef,
    SolverBudget,
    SolveStatus,
    Travel,
    solve,
)
from tests.optimize import oracle
from tests.optimize.helpers import GRAIN, assert_minimal_conflict, grid

P, Q = Person("p"), Person("q")


def conflict_of(*meetings: Meeting, **kw: object) -> tuple[RuleRef, ...]:
    kw.setdefault("grains", grid(6))
    kw.setdefault("people", (P, Q))
    problem = BatchProblem(GRAIN, meetings=meetings, **kw)  # type: ignore[arg-type]
    assert oracle.best(problem) is None
    answer = solve(problem)
    assert answer.status is SolveStatus.INFEASIBLE
    assert (answer.assignments, answer.score, answer.terms, answer.bound) == ((), None, (), None)
    assert_minimal_conflict(problem, answer.conflict)
    return answer.conflict


def test_two_windows_and_a_shared_person() -> None:
    # b must start at 1 or 2, so it takes grain 2; a (4 of 6 grains) starts at 0, 1 or 2 and
    # takes grain 2 wherever it goes, so a's own window is not part of the conflict. Without
    # b's window (b at 4) or the no-overlap rule for p, both fit.
    a = Meeting("a", 4, ("p",), allowed_starts=frozenset({0}))
    b = Meeting("b", 2, ("p",), allowed_starts=frozenset({1, 2}))
    assert conflict_of(a, b) == (
        RuleRef("attendee_overlap", ("a", "b", "p")),
        RuleRef("window", ("b",)),
    )


def test_only_the_rules_that_matter_are_named() -> None:
    # c and q are free to go anywhere: nothing about them is in the conflict.
    a = Meeting("a", 6, ("p",))
    b = Meeting("b", 1, ("p",))
    c = Meeting("c", 1, ("q",), not_same_day_as=())
    assert conflict_of(a, b, c) == (RuleRef("attendee_overlap", ("a", "b", "p")),)


def test_capacity() -> None:
    rooms = (Room("small", 2), Room("closed", 9, open_grains=frozenset({0})))
    a = Meeting("a", 2, ("p", "q"), needs_room=True, capacity_needed=4)
    assert conflict_of(a, rooms=rooms) == (
        RuleRef("capacity", ("a", "small")),
        RuleRef("hours", ("a", "closed")),
    )


def test_an_existing_meeting_is_pinned_without_a_repair_budget() -> None:
    # x sits at 0 and y must start at 0: with one repair x could move.
    x = Meeting("x", 2, ("p",), current_start=0)
    y = Meeting("y", 2, ("p",), allowed_starts=frozenset({0}))
    assert conflict_of(x, y) == (
        RuleRef("attendee_overlap", ("p", "x", "y")),
        RuleRef("max_repairs", ()),
        RuleRef("window", ("y",)),
    )


def test_a_chain_too_deep() -> None:
    # As in test_rules: n takes x's place, x can only take y's place, y moves on: depth 2.
    # Leaving out n's or x's window, either no-overlap rule, or the depth limit, it fits.
    x = Meeting("x", 2, ("p",), current_start=0, allowed_starts=frozenset({0, 2}))
    y = Meeting("y", 2, ("p",), current_start=2)
    n = Meeting("n", 2, ("p",), allowed_starts=frozenset({0}))
    budget = SolverBudget(max_repairs=2, max_depth=1)
    assert conflict_of(n, x, y, budget=budget) == (
        RuleRef("attendee_overlap", ("n", "p", "x")),
        RuleRef("attendee_overlap", ("p", "x", "y")),
        RuleRef("max_depth", ()),
        RuleRef("window", ("n",)),
        RuleRef("window", ("x",)),
    )


def test_dependencies_in_a_cycle() -> None:
    a = Meeting("a", 1, ("p",), after=(After("b"),))
    b = Meeting("b", 1, ("q",), after=(After("a"),))
    assert conflict_of(a, b) == (RuleRef("after", ("a", "b")), RuleRef("after", ("b", "a")))


def test_not_same_day_on_a_single_day() -> None:
    a = Meeting("a", 1, ("p",), not_same_day_as=("b",))
    assert conflict_of(a, Meeting("b", 1, ("q",))) == (RuleRef("not_same_day", ("a", "b")),)


def test_travel_and_hours() -> None:
    # p is open on 0..3 only; X to Y takes 3 grains: 1 + 3 + 1 > 4.
    person = Person("p", open_grains=frozenset(range(4)))
    a = Meeting("a", 1, ("p",), location="X")
    b = Meeting("b", 1, ("p",), location="Y")
    assert conflict_of(a, b, people=(person, Q), travel=(Travel("Y", "X", 3),)) == (
        RuleRef("hours", ("a", "p")),
        RuleRef("hours", ("b", "p")),
        RuleRef("travel", ("a", "b")),
    )


def test_busy_room_overlap() -> None:
    rooms = (Room("r", 5, busy_grains=frozenset({2, 3, 4, 5})),)
    a = Meeting("a", 1, ("p",), needs_room=True)
    b = Meeting("b", 2, ("q",), needs_room=True)
    assert conflict_of(a, b, rooms=rooms) == (
        RuleRef("busy", ("a", "r")),
        RuleRef("busy", ("b", "r")),
        RuleRef("room_overlap", ("a", "b", "r")),
    )


def test_no_search_when_a_meeting_cannot_fit_a_day_or_has_no_room() -> None:
    assert conflict_of(Meeting("long", 7, ("p",))) == (RuleRef("day", ("long",)),)
    assert conflict_of(Meeting("a", 1, ("p",), needs_room=True)) == (RuleRef("rooms", ("a",)),)


@pytest.mark.parametrize(
    ("meetings", "people", "code"),
    [
        ((Meeting("a", 1), Meeting("a", 2)), (), "optimize.duplicate_id"),
        ((Meeting("a", 1, ("nobody",)),), (), "optimize.unknown_id"),
        ((Meeting("a", 1, after=(After("b"),)),), (), "optimize.unknown_id"),
        ((Meeting("a", 0),), (), "optimize.invalid_problem"),
        ((Meeting("a", 1, ("p",), ("p",)),), (P,), "optimize.invalid_problem"),
        ((Meeting("a", 1, allowed_starts=frozenset({99})),), (), "optimize.invalid_problem"),
        ((Meeting("a", 1),), (P, P), "optimize.duplicate_id"),
    ],
)
def test_bad_problems_raise_typed_errors(
    meetings: tuple[Meeting, ...], people: tuple[Person, ...], code: str
) -> None:
    with pytest.raises(OptimizeError) as caught:
        solve(BatchProblem(GRAIN, grid(4), meetings, people))
    assert caught.value.code == code
    assert isinstance(caught.value, ValueError)
