"""bench/_optimize_timefold.py, the Python side of the Java Timefold peer (decision 0079).

No Java and no Timefold here: the input the Java peer reads and the output it prints are
checked on a hand-made set, the output's placement is scored by the bench's judge
(``_optimize_score``), and the Java rules' formulation (one record per pair of meetings that
share people, instead of one per pair of attendances) is replayed in Python over every
placement of the set and compared with the judge.
"""

from __future__ import annotations

import sys
from itertools import combinations, permutations, product
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent.parent / "bench"
sys.path.insert(0, str(BENCH))

from _optimize_score import Placement, TfScore, score  # noqa: E402
from _optimize_timefold import (  # noqa: E402
    JAVA_SOURCES,
    classpath,
    input_text,
    read_output,
    shared_people,
)
from _timefold_data import TfGrain, TfMeeting, TfRoom, TimefoldSet  # noqa: E402


def _tiny() -> TimefoldSet:
    # Day 1: grains 0-2, day 2: grains 3-5. Room 0 seats 3, room 1 seats 2. Person 4 is listed
    # twice in meeting 2 (required and preferred), as Timefold's rules allow.
    grains = tuple(TfGrain(i, 1 if i < 3 else 2, 480 + 15 * (i % 3)) for i in range(6))
    meetings = (
        TfMeeting(0, 2, (1, 2), (3,)),
        TfMeeting(1, 1, (1,), (3,)),
        TfMeeting(2, 2, (4,), (4, 2)),
    )
    return TimefoldSet("tiny", grains, (TfRoom(0, 3), TfRoom(1, 2)), meetings, (1, 2, 3, 4), 8)


def test_shared_people_by_hand() -> None:
    # Person 1: required in m0 and m1. Person 2: required in m0, preferred in m2. Person 3:
    # preferred in m0 and m1. Person 4: required and preferred in m2 (one meeting: no room
    # change can happen between them, so it does not count in ANY).
    assert shared_people(_tiny()) == [(0, 1, 1, 1, 2), (0, 2, 0, 1, 1), (2, 2, 0, 1, 0)]


def test_input_text_by_hand() -> None:
    assert input_text(_tiny()).splitlines() == [
        "slot 0 1",
        "slot 1 1",
        "slot 2 1",
        "slot 3 2",
        "slot 4 2",
        "slot 5 2",
        "room 0 3",
        "room 1 2",
        "meeting 0 2 3",
        "meeting 1 1 2",
        "meeting 2 2 3",
        "shared 0 1 1 1 2",
        "shared 0 2 0 1 1",
        "shared 2 2 0 1 0",
    ]


def _replay_java_rules(text: str, placement: Placement) -> TfScore:
    """The rules of bench/timefold_java/MeetingRules.java, read from the input records only."""
    day: dict[int, int] = {}
    seats: dict[int, int] = {}
    meetings: dict[int, tuple[int, int]] = {}
    shared: list[list[int]] = []
    for line in text.splitlines():
        kind, *values = line.split()
        numbers = [int(v) for v in values]
        if kind == "slot":
            day[numbers[0]] = numbers[1]
        elif kind == "room":
            seats[numbers[0]] = numbers[1]
        elif kind == "meeting":
            meetings[numbers[0]] = (numbers[1], numbers[2])
        else:
            shared.append(numbers)
    start = {m: placement[m][0] for m in meetings}
    until = {m: start[m] + meetings[m][0] for m in meetings}
    room = {m: placement[m][1] for m in meetings}

    def together(a: int, b: int) -> int:
        return max(0, min(until[a], until[b]) - max(start[a], start[b]))

    def too_soon_after(earlier: int, later: int) -> bool:
        return start[earlier] < start[later] and start[later] - until[earlier] <= 2

    hard = medium = soft = 0
    for m, (_duration, needed) in meetings.items():
        last = until[m] - 1
        hard += last if last not in day else int(day[last] != day[start[m]])
        have = seats[room[m]] if room[m] is not None else 0  # type: ignore[index]
        hard += max(0, needed - have)
        soft += last + sum(c - have for c in seats.values() if c > have)
    for a, b in combinations(meetings, 2):
        soft += 10 * together(a, b)
        hard += together(a, b) if room[a] == room[b] else 0
    soft += 100 * sum(1 for a, b in permutations(meetings, 2) if until[a] == start[b])
    for first, second, required, preferred, any_kind in shared:
        hard += required * together(first, second)
        medium += preferred * together(first, second)
        if room[first] != room[second] and (
            too_soon_after(first, second) or too_soon_after(second, first)
        ):
            soft += any_kind
    return TfScore(hard, medium, soft)


def test_the_java_formulation_gives_the_judges_score_everywhere() -> None:
    data = _tiny()
    text = input_text(data)
    for starts in product(range(6), repeat=3):
        for rooms in product((0, 1), repeat=3):
            placement: Placement = {i: (starts[i], rooms[i]) for i in range(3)}
            assert _replay_java_rules(text, placement) == score(data, placement), placement


_OUTPUT = """\
build 0.412
improved 0.051 -5hard/-2medium/-130soft
improved 0.090 -3hard/-2medium/-122soft
initialized 0.051
feasible -
solved 30.004
score -3hard/-2medium/-122soft
place 0 0 0
place 1 3 1
place 2 2 1
"""


def test_read_output_and_score_the_placement() -> None:
    data = _tiny()
    answer = read_output(_OUTPUT, data)
    assert answer.placement == {0: (0, 0), 1: (3, 1), 2: (2, 1)}
    assert answer.placed == 3
    assert answer.score == "-3hard/-2medium/-122soft"
    assert (answer.initialized_seconds, answer.feasible_seconds) == (0.051, None)
    assert (answer.solve_seconds, answer.build_seconds) == (30.004, 0.412)
    assert answer.improved == ((0.051, "-5hard/-2medium/-130soft"), (0.09, answer.score))
    # By hand. Hard: m2 needs 3 seats in the 2-seat room (1), starts on day 1 and ends on
    # day 2 (1), shares grain 3 with m1 in room 1 (1) = 3. Medium: person 4 is required and
    # preferred in m2, which overlaps itself for 2 grains = 2. Soft: last grains 1 + 3 + 3 = 7;
    # m2 starts where m0 ends, 100; m1 and m2 overlap 1 grain, 10; m1 and m2 sit in the
    # 2-seat room while a 3-seat one exists, 1 + 1; room changes soon after m0 (room 0) for
    # persons 1 (to m1), 2 (to m2) and 3 (to m1), 3. Soft = 7 + 100 + 10 + 2 + 3 = 122.
    assert answer.placement is not None
    judged = score(data, answer.placement)
    assert judged == TfScore(3, 2, 122)
    assert str(judged) == answer.score


def test_read_output_of_an_unfinished_construction() -> None:
    text = _OUTPUT.replace("place 1 3 1", "place 1 - -").replace("place 2 2 1", "place 2 4 -")
    answer = read_output(text, _tiny())
    assert answer.placement is None
    assert answer.placed == 2


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda t: t.replace("place 2 2 1\n", ""), "placed meetings"),
        (lambda t: t + "place 2 2 1\n", "placed twice"),
        (lambda t: t.replace("place 2 2 1", "place 7 2 1"), "placed meetings"),
        (lambda t: t.replace("score -3hard/-2medium/-122soft\n", ""), "lacks"),
        (lambda t: t + "Solving ended\n", "unexpected line"),
        (lambda t: t.replace("solved 30.004", "solved -"), "no solve or build time"),
    ],
)
def test_read_output_refuses_what_it_cannot_trust(edit: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        read_output(edit(_OUTPUT), _tiny())  # type: ignore[operator]


def test_classpath_leaves_out_the_python_bridge_and_test_jars(tmp_path: Path) -> None:
    names = [
        "timefold-solver-core-1.24.0.jar",
        "timefold-solver-python-core-1.24.0.jar",
        "timefold-solver-python-core-1.24.0-tests.jar",
        "timefold-solver-test-1.24.0.jar",
        "jpyinterpreter-1.24.0.jar",
        "junit-jupiter-api-5.13.3.jar",
        "logback-classic-1.5.18.jar",
        "slf4j-api-2.0.6.jar",
        "README.txt",
    ]
    for name in names:
        (tmp_path / name).write_bytes(b"")
    assert [p.name for p in classpath(tmp_path)] == [
        "logback-classic-1.5.18.jar",
        "slf4j-api-2.0.6.jar",
        "timefold-solver-core-1.24.0.jar",
    ]


def test_java_sources_are_in_the_repository() -> None:
    names = {p.name for p in JAVA_SOURCES.iterdir()}
    assert {"PeerMain.java", "MeetingRules.java", "Booking.java", "logback.xml"} <= names
