"""Random tiny batches against the brute-force oracle: same status, same best
``(medium, soft)``, a placement that meets every hard rule, terms that add up."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cerebri.optimize import (
    After,
    BatchProblem,
    Meeting,
    Person,
    Room,
    SolverBudget,
    Travel,
    Weights,
)
from tests.optimize.helpers import GRAIN, grid, solved

PEOPLE = ("p", "q", "r")


def _grains(draw: st.DrawFn, n: int, size: int) -> frozenset[int]:
    return frozenset(draw(st.lists(st.integers(0, n - 1), max_size=size)))


@st.composite
def batches(draw: st.DrawFn) -> BatchProblem:
    days = draw(st.sampled_from([(8,), (4, 4), (3, 4)]))
    grains = grid(*days)
    n = len(grains)
    people = tuple(
        Person(
            pid,
            open_grains=draw(st.none() | st.just(frozenset(range(1, n)))),
            busy_grains=_grains(draw, n, 2),
        )
        for pid in PEOPLE
    )
    rooms = tuple(
        Room(f"r{k}", draw(st.integers(1, 4)), busy_grains=_grains(draw, n, 1))
        for k in range(draw(st.integers(0, 2)))
    )
    count = draw(st.integers(1, 3))
    ids = [f"m{k}" for k in range(count)]
    meetings = []
    for k, mid in enumerate(ids):
        attendees = draw(st.lists(st.sampled_from(PEOPLE), max_size=3, unique=True))
        split = draw(st.integers(0, len(attendees)))
        others = [o for o in ids if o != mid]
        existing = draw(st.booleans())
        meetings.append(
            Meeting(
                mid,
                draw(st.integers(1, 3)),
                required=tuple(attendees[:split]),
                optional=tuple(attendees[split:]),
                needs_room=bool(rooms) and draw(st.booleans()),
                allowed_starts=draw(st.none() | st.frozensets(st.integers(0, n - 1), min_size=1)),
                after=tuple(  # only on earlier meetings: a cycle is too easy a conflict
                    After(o, draw(st.integers(0, 1)))
                    for o in draw(st.lists(st.sampled_from(ids[:k]), max_size=1))
                )
                if k
                else (),
                not_same_day_as=tuple(draw(st.lists(st.sampled_from(others), max_size=1)))
                if others and len(days) > 1
                else (),
                preferred_start=draw(st.none() | st.integers(0, n - 1)),
                location=draw(st.none() | st.sampled_from(["X", "Y"])),
                current_start=draw(st.integers(0, n - 1)) if existing else None,
                current_room=(rooms[0].id if rooms and existing else None),
                move_cost=draw(st.integers(1, 3)),
            )
        )
    weights = Weights(
        early=draw(st.integers(0, 2)),
        preference=draw(st.integers(0, 2)),
        back_to_back=draw(st.integers(0, 3)),
        back_to_back_any=draw(st.integers(0, 2)),
        overlap_any=draw(st.integers(0, 2)),
        move=draw(st.integers(0, 5)),
        room_stability=draw(st.integers(0, 2)),
        larger_rooms_first=draw(st.integers(0, 1)),
    )
    budget = SolverBudget(max_repairs=draw(st.integers(0, 2)), max_depth=draw(st.integers(0, 2)))
    return BatchProblem(
        GRAIN,
        grains,
        tuple(meetings),
        people,
        rooms,
        (Travel("X", "Y", draw(st.integers(0, 2))),),
        weights,
        budget,
    )


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(batches())
def test_random_batches_match_brute_force(problem: BatchProblem) -> None:
    solved(problem)
