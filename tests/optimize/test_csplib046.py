"""CSPLib problem 046 (meeting scheduling with travel times) through ``cerebri.optimize.solve``.

The data is read from ``$CEREBRI_OPTIMIZE_DIR/csplib-prob046`` (default ``../shared/optimize``
beside the repository). Without it these tests are skipped with the reason; under CI (``CI``
set to ``true``, ``1`` or ``yes``) missing data is a failure. Answers are judged by the
checker and the backtracking search of ``bench/_csplib046.py``, written from the
specification without cerebri code.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from bench._csplib046 import (
    Instance,
    Known,
    data_dir,
    meeting_id,
    parse_instances,
    parse_results,
    search,
    to_problem,
    violations,
)

from cerebri.optimize import SolverBudget, SolveStatus, solve

BUDGET = SolverBudget(deterministic_time=5.0)


@pytest.fixture(scope="module")
def folder() -> Path:
    found = data_dir()
    if not (found / "data" / "instances.md").is_file():
        reason = f"CSPLib 046 data not found in {found} (set CEREBRI_OPTIMIZE_DIR)"
        if os.environ.get("CI", "").strip().lower() in {"true", "1", "yes"}:
            pytest.fail(f"CI run without the optimisation data: {reason}")
        pytest.skip(reason)
    return found


@pytest.fixture(scope="module")
def instances(folder: Path) -> dict[int, Instance]:
    parsed = parse_instances((folder / "data" / "instances.md").read_text())
    return {instance.number: instance for instance in parsed}


@pytest.fixture(scope="module")
def known(folder: Path) -> dict[int, Known]:
    return parse_results((folder / "results" / "results.md").read_text())


def test_instance_1_is_parsed_as_published(instances: dict[int, Instance]) -> None:
    first = instances[1]
    assert (first.meetings, len(first.agents), first.domain) == (20, 9, 12)
    assert (first.per_agent, first.min_distance, first.max_distance) == (5, 1, 2)
    assert first.agents[0] == (6, 7, 15, 17, 18)
    assert first.agents[8] == (2, 7, 15, 17, 19)
    # Row 0 and row 19 of the published matrix.
    assert first.distance[0] == (0, 1, 2, 1, 2, 2, 1, 2, 1, 2, 2, 1, 2, 1, 1, 1, 2, 2, 1, 2)
    assert first.distance[19][:4] == (2, 2, 1, 1)
    assert all(len(agent) == 5 for agent in first.agents)


def test_all_27_instances_and_outcomes(
    instances: dict[int, Instance], known: dict[int, Known]
) -> None:
    assert sorted(instances) == sorted(known) == list(range(1, 28))
    satisfiable = sorted(n for n, k in known.items() if k.satisfiable)
    assert satisfiable == [1, 2, 3, 4, 5, 19, 20, 21, 22, 23, 24]
    for number in satisfiable:
        times = known[number].times
        assert times is not None and sorted(times) == list(range(instances[number].meetings))


def test_checker_accepts_the_published_solution_and_refuses_a_broken_one(
    instances: dict[int, Instance], known: dict[int, Known]
) -> None:
    times = known[1].times
    assert times is not None
    assert violations(instances[1], times) == []
    # Agent 5 attends meetings 0 (slot 0) and 1 (slot 2), 1 slot apart: 1 at slot 1 is too close.
    broken = {**times, 1: 1}
    assert "agent 5: meetings 0 at 0 and 1 at 1 need 1 slots of travel" in violations(
        instances[1], broken
    )
    assert violations(instances[1], {**times, 4: 12}) == ["meeting 4 at 12, outside 0..11"]


def test_the_published_solution_of_instance_19_breaks_its_data(
    instances: dict[int, Instance], known: dict[int, Known]
) -> None:
    # A fact about the published data (decision 0072): agent 0 has meetings 20 and 37 both at
    # slot 6; agent 11 has 28 at 5 and 37 at 6, 2 slots of travel apart. The instance is still
    # satisfiable (the solver and the backtracking search both find schedules).
    times = known[19].times
    assert times is not None
    assert violations(instances[19], times) == [
        "agent 0: meetings 20 at 6 and 37 at 6 need 1 slots of travel",
        "agent 11: meetings 28 at 5 and 37 at 6 need 2 slots of travel",
    ]


def test_conversion_is_one_day_of_one_grain_meetings(instances: dict[int, Instance]) -> None:
    first = instances[1]
    problem = to_problem(first, BUDGET)
    assert [g.index for g in problem.grains] == list(range(12))
    assert {g.day for g in problem.grains} == {"day"}
    assert [m.id for m in problem.meetings] == [meeting_id(m) for m in range(20)]
    assert all(m.duration == 1 and m.location == m.id for m in problem.meetings)
    # Meeting 15 is attended by agents 0, 1, 2, 3 and 8.
    assert problem.meetings[15].required == ("a00", "a01", "a02", "a03", "a08")
    shared = {(i, j) for agent in first.agents for i in agent for j in agent if i < j}
    assert {(t.a, t.b, t.grains) for t in problem.travel} == {
        (meeting_id(i), meeting_id(j), first.distance[i][j]) for i, j in shared
    }
    weights = problem.weights
    assert weights.early == weights.preference == weights.back_to_back == weights.move == 0


@pytest.mark.parametrize("number", [1, 2, 20, 23])
def test_satisfiable_instances_are_solved(
    number: int, instances: dict[int, Instance], known: dict[int, Known]
) -> None:
    assert known[number].satisfiable
    instance = instances[number]
    answer = solve(to_problem(instance, BUDGET))
    # Every weight is 0, so any placement is optimal.
    assert answer.status is SolveStatus.OPTIMAL
    assert answer.stats.deterministic_time <= BUDGET.deterministic_time
    times = {int(a.meeting_id[1:]): a.start for a in answer.assignments}
    assert violations(instance, times) == []


@pytest.mark.parametrize("number", [14, 27])
def test_infeasible_instances_are_proven_with_a_minimal_conflict(
    number: int, instances: dict[int, Instance], known: dict[int, Known]
) -> None:
    assert not known[number].satisfiable
    instance = instances[number]
    answer = solve(to_problem(instance, BUDGET))
    assert answer.status is SolveStatus.INFEASIBLE
    assert answer.assignments == ()
    assert answer.conflict
    assert {ref.kind for ref in answer.conflict} == {"travel"}
    gaps = {
        (int(ref.ids[0][1:]), int(ref.ids[1][1:])): instance.distance[int(ref.ids[0][1:])][
            int(ref.ids[1][1:])
        ]
        for ref in answer.conflict
    }
    meetings = sorted({m for pair in gaps for m in pair})
    # The named travel rules alone admit no schedule; without any one of them there is one.
    assert search(instance.domain, gaps, meetings) is None
    for pair in gaps:
        rest = {p: g for p, g in gaps.items() if p != pair}
        assert search(instance.domain, rest, meetings) is not None, pair


def test_search_agrees_with_the_published_outcomes_on_small_instances(
    instances: dict[int, Instance], known: dict[int, Known]
) -> None:
    for number in (1, 3, 6, 13, 27):
        instance = instances[number]
        gaps = {
            (i, j): instance.distance[i][j]
            for agent in instance.agents
            for i in agent
            for j in agent
            if i < j
        }
        found = search(instance.domain, gaps, range(instance.meetings))
        assert (found is not None) == known[number].satisfiable, number
        if found is not None:
            assert violations(instance, found) == []
