"""CPIR OPTIMIZE -> BatchProblem (decision 0070): grains, days, open and busy grains, the
meetings' allowed starts; every expected value worked out by hand from the request."""

from __future__ import annotations

from typing import Any

from cerebri.cpir import parse_request
from cerebri.optimize import BatchMapping, BatchProblem, map_request
from tests.optimize_wire.wire_helpers import MONDAY, existing, meeting, optimize_request

H = 3600
ORIGIN = 1_791_180_000  # 2026-10-05T06:00:00Z


def mapped(request: dict[str, Any]) -> BatchMapping:
    result = map_request(parse_request(request))
    assert result.report.issues == (), result.report.to_wire()
    return result


def problem_of(request: dict[str, Any]) -> BatchProblem:
    problem = mapped(request).problem
    assert problem is not None
    return problem


def one_day() -> dict[str, Any]:
    return optimize_request(
        [
            meeting("m-a", ["ann", "bob"], room={"capacity": 2}),
            meeting("m-b", ["ann"], room={}, after=[{"object_id": "m-a", "gap_seconds": 3600}]),
            meeting("m-c", ["bob"], optional=["ann"], duration=7200),
        ],
        objects=[
            # ann's own calendar: 10:00-10:30Z touches the grain 10-11Z only
            existing("ann-busy", MONDAY + "10:00:00Z", MONDAY + "10:30:00Z", calendar="ann-cal"),
            # someone else's calendar naming the room as a resource: 12-13Z
            existing(
                "room-busy",
                MONDAY + "12:00:00Z",
                MONDAY + "13:00:00Z",
                calendar="zoe-cal",
                resources=["r1"],
            ),
            # bob is an attendee (resource id) of an event on zoe's calendar: 15:30-16Z
            existing(
                "bob-late",
                MONDAY + "15:30:00Z",
                MONDAY + "16:00:00Z",
                calendar="zoe-cal",
                resources=["bob"],
            ),
        ],
    )


def test_grains_of_one_day() -> None:
    problem = problem_of(one_day())
    # 06:00Z .. 16:00Z in steps of one hour: 10 grains, all on Monday in Berlin (08-18 CEST)
    assert problem.grain_seconds == H
    assert [(g.index, g.start) for g in problem.grains] == [(i, ORIGIN + i * H) for i in range(10)]
    assert {g.day for g in problem.grains} == {"2026-10-05"}


def test_open_and_busy_grains_in_each_persons_zone() -> None:
    problem = problem_of(one_day())
    ann, bob = problem.people
    # ann: Berlin 09-17 = 07Z-15Z -> grains 1..8; busy 10-10:30Z -> grain 4
    assert (ann.id, ann.open_grains, ann.busy_grains) == ("ann", frozenset(range(1, 9)), {4})
    # bob: London 09-12 = 08Z-11Z -> grains 2, 3, 4; busy 15:30-16Z -> grain 9
    assert (bob.id, bob.open_grains, bob.busy_grains) == ("bob", frozenset({2, 3, 4}), {9})
    (room,) = problem.rooms
    assert (room.id, room.capacity, room.open_grains, room.busy_grains) == ("r1", 4, None, {6})


def test_meetings_in_id_order_with_their_needs() -> None:
    problem = problem_of(one_day())
    a, b, c = problem.meetings
    assert (a.id, a.duration, a.required, a.needs_room, a.capacity_needed) == (
        "m-a",
        1,
        ("ann", "bob"),
        True,
        2,
    )
    assert (b.needs_room, b.capacity_needed, b.room_ids) == (True, None, None)
    assert [(x.meeting_id, x.gap) for x in b.after] == [("m-a", 1)]
    assert (c.duration, c.optional, c.needs_room) == (2, ("ann",), False)
    assert all(m.current_start is None and m.allowed_starts is None for m in problem.meetings)


def test_constraints_and_window_become_allowed_starts() -> None:
    request = one_day()
    request["batch"]["meetings"][0]["window"] = {
        "start": MONDAY + "07:00:00Z",
        "end": MONDAY + "12:00:00Z",
    }
    request["constraints"] = [
        {
            "object_id": "m-a",
            "rule": {"kind": "EARLIEST_START", "value": MONDAY + "08:30:00Z"},
            "evidence": [],
        },
        {
            "object_id": "m-b",
            "rule": {"kind": "LATEST_END", "value": MONDAY + "11:00:00Z"},
            "evidence": [],
        },
        {
            "object_id": "m-c",
            "rule": {
                "kind": "EXPLICIT_TIME",
                "value": {"start": MONDAY + "09:00:00Z", "end": MONDAY + "11:00:00Z"},
            },
            "evidence": [],
        },
        {
            "object_id": "m-c",
            "rule": {"kind": "DEPENDENCY_ORDER", "value": "ann-busy"},
            "evidence": [],
        },
    ]
    problem = problem_of(request)
    a, b, c = problem.meetings
    # window 07-12Z: starts 1..5 (1 h); earliest 08:30Z: starts from 3 (09Z)
    assert a.allowed_starts == {3, 4, 5}
    # ends by 11Z: starts 0..4
    assert b.allowed_starts == frozenset(range(5))
    # exactly 09-11Z = start 3, and after ann-busy's end 10:30Z: nothing is left
    assert c.allowed_starts == frozenset()


def test_dependency_on_a_meeting_is_an_after() -> None:
    request = one_day()
    request["constraints"] = [
        {"object_id": "m-c", "rule": {"kind": "DEPENDENCY_ORDER", "value": "m-b"}, "evidence": []}
    ]
    c = problem_of(request).meetings[2]
    assert [(x.meeting_id, x.gap) for x in c.after] == [("m-b", 0)]
    assert c.allowed_starts is None


def test_an_existing_meeting_is_not_busy_for_anyone_and_keeps_its_place() -> None:
    sync = existing(
        "sync", MONDAY + "08:00:00Z", MONDAY + "09:00:00Z", calendar="ann-cal", resources=["r1"]
    )
    request = optimize_request(
        [meeting("m-a", ["ann"]), meeting("sync", ["ann"], room={}, move_cost=3)],
        objects=[sync],
    )
    request["scope"]["movable_object_ids"] = ["sync"]
    request["budget"].update(max_repairs=2, max_moved_objects=1, max_depth=1)
    result = mapped(request)
    problem = result.problem
    assert problem is not None
    assert (result.targets, result.existing) == (("m-a",), ("sync",))
    assert problem.people[0].busy_grains == frozenset()  # sync is on ann-cal, yet a meeting
    assert problem.rooms[0].busy_grains == frozenset()
    moved = problem.meetings[1]
    assert (moved.current_start, moved.current_room, moved.move_cost) == (2, "r1", 3)
    # moves <= min(max_repairs 2, max_moved_objects 1); depth as given
    assert (problem.budget.max_repairs, problem.budget.max_depth) == (1, 1)


def test_max_mutations_caps_moves_after_the_targets() -> None:
    sync = existing("sync", MONDAY + "08:00:00Z", MONDAY + "09:00:00Z", calendar="ann-cal")
    request = optimize_request(
        [meeting("m-a", ["ann"]), meeting("m-b", ["ann"]), meeting("sync", ["ann"])],
        objects=[sync],
    )
    request["budget"].update(max_repairs=5, max_moved_objects=5)
    request["scope"]["max_mutations"] = 3
    assert problem_of(request).budget.max_repairs == 1  # 3 mutations - 2 targets
    request["policy"]["snapshot"]["mutation"]["max_mutations"] = 2
    assert problem_of(request).budget.max_repairs == 0


def test_weights_and_solver_limits_are_carried() -> None:
    request = one_day()
    request["batch"]["weights"] = {"early": 0, "room_stability": 7}
    request["batch"]["solver"] = {"deterministic_time": 2.5, "workers": 2, "seed": 9}
    problem = problem_of(request)
    assert (problem.weights.early, problem.weights.room_stability, problem.weights.move) == (
        0,
        7,
        10,
    )
    budget = problem.budget
    assert (budget.deterministic_time, budget.workers, budget.seed) == (2.5, 2, 9)


def berlin_dst_day(
    hours: list[dict[str, Any]], end: str = "2026-10-25T23:00:00Z"
) -> dict[str, Any]:
    """Sunday 2026-10-25, when Berlin goes from CEST (UTC+2) to CET (UTC+1) at 03:00 CEST."""
    return optimize_request(
        [meeting("m-a", ["ann"])],
        people=[
            {"id": "ann", "calendar_id": "ann-cal", "timezone": "Europe/Berlin", "hours": hours}
        ],
        start="2026-10-24T22:00:00Z",  # 00:00 CEST
        end=end,
    )


def test_a_dst_day_in_berlin_has_25_hours_of_grains() -> None:
    problem = problem_of(berlin_dst_day([{"days": ["Sun"], "start": "00:00", "end": "24:00"}]))
    # 00:00 CEST (22Z) .. 00:00 CET Monday (23Z next day) is 25 hours: 25 grains, one day
    assert len(problem.grains) == 25
    assert {g.day for g in problem.grains} == {"2026-10-25"}
    assert problem.people[0].open_grains == frozenset(range(25))
    longer = problem_of(
        berlin_dst_day(
            [{"days": ["Sun"], "start": "00:00", "end": "24:00"}], "2026-10-26T01:00:00Z"
        )
    )
    assert [g.day for g in longer.grains[24:]] == ["2026-10-25", "2026-10-26", "2026-10-26"]


def test_hours_across_the_dst_change_are_read_on_the_wall_clock() -> None:
    problem = problem_of(berlin_dst_day([{"days": ["Sun"], "start": "01:00", "end": "04:00"}]))
    # grain 1 = 23Z = 01:00-02:00 CEST, grain 2 = 00Z = 02:00-03:00 CEST, grain 3 = 01Z =
    # 02:00-03:00 CET (the repeated hour), grain 4 = 02Z = 03:00-04:00 CET: four real hours
    # between 01:00 and 04:00 on the wall clock; grain 5 (04:00-05:00 CET) is closed
    assert problem.people[0].open_grains == frozenset({1, 2, 3, 4})
    # 02:00-03:00 on the wall clock happens twice: grains 2 and 3
    twice = problem_of(berlin_dst_day([{"days": ["Sun"], "start": "02:00", "end": "03:00"}]))
    assert twice.people[0].open_grains == frozenset({2, 3})


def test_spring_forward_day_has_23_grains_and_hours_lose_one() -> None:
    request = optimize_request(
        [meeting("m-a", ["ann"])],
        people=[
            {
                "id": "ann",
                "calendar_id": "ann-cal",
                "timezone": "Europe/Berlin",
                "hours": [{"days": ["Sun"], "start": "01:00", "end": "04:00"}],
            }
        ],
        start="2026-03-28T23:00:00Z",  # Sunday 29 March 00:00 CET
        end="2026-03-29T22:00:00Z",  # Monday 00:00 CEST
    )
    problem = problem_of(request)
    assert len(problem.grains) == 23
    # grain 1 = 00Z-01Z = 01:00-02:00 CET (then the clock jumps to 03:00 CEST), grain 2 =
    # 01Z = 03:00-04:00 CEST: two grains, two real hours between 01:00 and 04:00 that day
    assert problem.people[0].open_grains == frozenset({1, 2})


def test_series_occurrences_block_every_person_and_room() -> None:
    request = one_day()
    request["context"]["temporal"] = {
        "horizon": request["scope"]["time_range"],
        "coverage": "Complete",
        "limits": {"max_dates": 64, "max_occurrences": 32},
        "series": [
            {
                "id": "standup",
                "state": {"kind": "Existing", "revision": 7},
                "provenance": "INTEGRATION_FACT",
                "evidence": [],
                "rule": {
                    "start_date": "2026-10-05",
                    "local_time": "13:00:00",  # 11:00Z in Berlin (CEST): grain 5
                    "timezone": "Europe/Berlin",
                    "duration": 1800,
                    "pattern": {"frequency": "DAILY", "every": 1},
                    "until": None,
                    "count": None,
                    "gap_policy": "Reject",
                    "fold_policy": "Earlier",
                },
            }
        ],
    }
    problem = problem_of(request)
    ann, bob = problem.people
    assert (ann.busy_grains, bob.busy_grains, problem.rooms[0].busy_grains) == (
        {4, 5},
        {5, 9},
        {5, 6},
    )
