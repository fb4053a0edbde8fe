"""Small grids and a solve-and-check helper for the optimiser tests."""

from __future__ import annotations

from cerebri.optimize import BatchProblem, BatchSolution, Grain, RuleRef, SolveStatus, solve
from tests.optimize import oracle

GRAIN = 900
DAY = 86_400
EPOCH = 1_796_000_400  # an arbitrary UTC instant: grains are counted from it


def assert_minimal_conflict(problem: BatchProblem, conflict: tuple[RuleRef, ...]) -> None:
    """The oracle agrees: the rules of ``conflict`` alone admit no placement, and leaving out
    any one of them admits one. ``day`` and ``rooms`` are checked on their own."""
    assert conflict, "an infeasible batch names its conflicting rules"
    assert list(conflict) == sorted(conflict, key=lambda r: (r.kind, r.ids))
    if conflict[0].kind in ("day", "rooms"):
        (ref,) = conflict
        meeting = next(m for m in problem.meetings if m.id == ref.ids[0])
        if ref.kind == "rooms":
            assert meeting.needs_room and not (problem.rooms and meeting.room_ids != ())
        else:
            assert not any(
                oracle.fits(problem, s, meeting.duration) for s in range(len(problem.grains))
            )
        return
    rules = frozenset(conflict)
    assert next(oracle.placements(problem, rules), None) is None
    for ref in conflict:
        assert next(oracle.placements(problem, rules - {ref}), None) is not None, ref


def grid(*days: int) -> tuple[Grain, ...]:
    """Grains for consecutive days with ``days[k]`` grains each, contiguous within a day."""
    grains: list[Grain] = []
    for k, count in enumerate(days):
        for g in range(count):
            grains.append(Grain(len(grains), EPOCH + k * DAY + g * GRAIN, f"day{k}"))
    return tuple(grains)


def solved(problem: BatchProblem) -> BatchSolution:
    """Solve ``problem`` and check the answer against the brute-force oracle: same status,
    same best ``(medium, soft)``, and the placement meets every hard rule."""
    answer = solve(problem)
    best = oracle.best(problem)
    if best is None:
        assert answer.status is SolveStatus.INFEASIBLE
        assert answer.assignments == ()
        assert_minimal_conflict(problem, answer.conflict)
        return answer
    assert answer.status is SolveStatus.OPTIMAL
    assert answer.score is not None
    assert (answer.score.medium, answer.score.soft) == best
    placement = {a.meeting_id: (a.start, a.room_id) for a in answer.assignments}
    assert oracle.feasible(problem, placement)
    # OPTIMAL: the bound is the folded objective, medium * M + soft with M > any soft total.
    if answer.score.medium == 0:
        assert answer.bound == answer.score.soft
    else:
        assert answer.bound is not None and answer.bound > answer.score.soft
    assert sum(t.cost for t in answer.terms) == answer.score.medium + answer.score.soft
    return answer
