"""The same batch gives the same answer: twice in a row, with its lists in another order, with
several interleaved workers, and in processes with different ``PYTHONHASHSEED``."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from pathlib import Path

from cerebri.optimize import (
    After,
    BatchProblem,
    Meeting,
    Person,
    Room,
    SolverBudget,
    Travel,
    Weights,
    solve,
)
from tests.optimize.helpers import GRAIN, grid

REPO = Path(__file__).resolve().parents[2]


def batch(reverse: bool = False, workers: int = 1) -> BatchProblem:
    people = tuple(Person(f"p{k}", busy_grains=frozenset({k, k + 7})) for k in range(5))
    rooms = (Room("big", 6), Room("small", 3), Room("mid", 4, busy_grains=frozenset({3})))
    meetings = [
        Meeting(
            f"m{k}",
            1 + k % 3,
            required=(f"p{k % 5}", f"p{(k + 1) % 5}"),
            optional=(f"p{(k + 3) % 5}",),
            needs_room=k % 2 == 0,
            preferred_start=(3 * k) % 10,
            location="X" if k % 3 else "Y",
            after=(After("m0", 1),) if k == 5 else (),
            not_same_day_as=("m1",) if k == 6 else (),
            current_start=2 if k == 7 else None,
        )
        for k in range(9)
    ]
    weights = Weights(back_to_back_any=1, overlap_any=1, room_stability=2, larger_rooms_first=1)
    problem = BatchProblem(
        GRAIN,
        grid(10, 10),
        tuple(meetings),
        people,
        rooms,
        (Travel("X", "Y", 1),),
        weights,
        SolverBudget(deterministic_time=0.5, workers=workers, max_repairs=1, max_depth=1),
    )
    if not reverse:
        return problem
    return dataclasses.replace(
        problem,
        meetings=problem.meetings[::-1],
        people=problem.people[::-1],
        rooms=problem.rooms[::-1],
    )


def test_twice_and_in_another_order() -> None:
    first = solve(batch())
    assert first.score is not None
    assert solve(batch()) == first
    assert solve(batch(reverse=True)) == first


def test_interleaved_workers_are_deterministic() -> None:
    first = solve(batch(workers=2))
    assert first.score is not None
    assert solve(batch(workers=2, reverse=True)) == first


def test_across_hash_seeds() -> None:
    script = (
        "from tests.optimize.test_determinism import batch\n"
        "from cerebri.optimize import solve\n"
        "print(repr(solve(batch())))\n"
    )
    outputs = []
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run(
            [sys.executable, "-c", script],
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        outputs.append(done.stdout)
    assert outputs[0] == outputs[1]
    assert outputs[0] == repr(solve(batch())) + "\n"
