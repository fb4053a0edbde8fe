"""``cerebri optimize`` (decision 0077): the readable batch table, ``--json`` and the exit
codes, on the hand-computed OPTIMIZE requests of tests/optimize_wire (real CP-SAT solver;
each optimum is unique, so the solver cannot pick another)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from cerebri.cli import EXIT_INPUT, app
from tests.optimize_wire.test_wire_answer import repair, three


def _run(tmp_path: Path, request: dict[str, Any], *options: str) -> Any:
    path = tmp_path / "request.json"
    path.write_text(json.dumps(request), encoding="utf-8")
    return CliRunner().invoke(app, ["optimize", str(path), *options])


def test_three_new_meetings_table(tmp_path: Path) -> None:
    # three(): by hand m-a at grain 2 (08-09Z), m-b and m-c at grain 3 (09-10Z); early
    # costs 2 + 3 + 3 = 8. Berlin is UTC+2 on 2026-10-05 (CEST).
    done = _run(tmp_path, three())
    assert done.exit_code == 0, done.output
    assert done.stdout == (
        "status: proven optimal\n"
        "score: hard 0, medium 0, soft 8\n"
        "zone: Europe/Berlin\n"
        "\n"
        "meeting  title      UTC                     Europe/Berlin           room  change\n"
        "m-a      Interview  2026-10-05 08:00-09:00  2026-10-05 10:00-11:00  r1    new\n"
        "m-b      -          2026-10-05 09:00-10:00  2026-10-05 11:00-12:00  r1    new\n"
        "m-c      -          2026-10-05 09:00-10:00  2026-10-05 11:00-12:00  -     new\n"
        "\n"
        "terms:\n"
        "  early m-a: amount 2, cost 2\n"
        "  early m-b: amount 3, cost 3\n"
        "  early m-c: amount 3, cost 3\n"
    )
    assert done.stderr == ""


def test_a_repair_is_marked_moved(tmp_path: Path) -> None:
    # repair(1): m-a must take 08-09Z, sync moves to 07-08Z; early m-a 2 (early charges new
    # meetings only), move 10 x 1 = 12.
    done = _run(tmp_path, repair(1))
    assert done.exit_code == 0, done.output
    assert done.stdout == (
        "status: proven optimal\n"
        "score: hard 0, medium 0, soft 12\n"
        "zone: Europe/Berlin\n"
        "\n"
        "meeting  title  UTC                     Europe/Berlin           room  change\n"
        "m-a      -      2026-10-05 08:00-09:00  2026-10-05 10:00-11:00  r1    new\n"
        "sync     -      2026-10-05 07:00-08:00  2026-10-05 09:00-10:00  r1    moved\n"
        "\n"
        "terms:\n"
        "  early m-a: amount 2, cost 2\n"
        "  move sync: amount 1, cost 10\n"
    )


def test_infeasible_lists_the_conflicting_rules(tmp_path: Path) -> None:
    # repair(0): sync may not move and m-a can only be at sync's hour.
    done = _run(tmp_path, repair(0))
    assert done.exit_code == 0, done.output
    lines = done.stdout.splitlines()
    assert lines[0] == "status: proven infeasible; these rules conflict:"
    assert lines[-1] == "zone: Europe/Berlin"
    rules = lines[1:-1]
    # Every rule that can take part, written by hand: the kind, the meeting(s), then the
    # person or room (decision 0084), whatever order the wire's sorted ids have.
    by_hand = {
        ("attendee_overlap", ("ann", "m-a", "sync")): "attendee_overlap: m-a, sync; person ann",
        ("room_overlap", ("m-a", "r1", "sync")): "room_overlap: m-a, sync; room r1",
        ("hours", ("bob", "m-a")): "hours: m-a; person bob",
        ("max_repairs", ()): "max_repairs: at most 0 existing meetings may move "
        "(budget.max_repairs 0, budget.max_moved_objects 1); existing meetings in this "
        "conflict: sync",
    }
    answer = json.loads(_run(tmp_path, repair(0), "--json").stdout)
    wire = [(c["kind"], tuple(c["ids"])) for c in answer["batch"]["conflict"]]
    assert ("hours", ("bob", "m-a")) in wire and ("max_repairs", ()) in wire
    assert rules == [f"  {by_hand[rule]}" for rule in wire]


def test_json_is_the_plan_bytes(tmp_path: Path) -> None:
    path = tmp_path / "request.json"
    path.write_text(json.dumps(three()), encoding="utf-8")
    runner = CliRunner()
    done = runner.invoke(app, ["optimize", str(path), "--json"])
    planned = runner.invoke(app, ["plan", str(path)])
    assert done.exit_code == planned.exit_code == 0
    assert done.stdout == planned.stdout
    assert json.loads(done.stdout)["batch"]["score"] == {"hard": 0, "medium": 0, "soft": 8}


def test_a_request_that_does_not_validate(tmp_path: Path) -> None:
    request = three()
    del request["batch"]
    done = _run(tmp_path, request)
    assert done.exit_code == 0, done.output
    assert done.stdout == (
        "status: not planned: the request does not validate\n  BatchRequired: OPTIMIZE\n"
    )


def test_other_operations_and_bad_input_are_refused(tmp_path: Path) -> None:
    request = three() | {"operation": "CREATE", "batch": None}
    done = _run(tmp_path, request)
    assert done.exit_code == EXIT_INPUT
    assert done.stdout == ""
    assert done.stderr.startswith("error input.invalid_argument at /operation: ")
    broken = tmp_path / "broken.json"
    broken.write_text("{", encoding="utf-8")
    done = CliRunner().invoke(app, ["optimize", str(broken)])
    assert done.exit_code == EXIT_INPUT
    assert done.stderr.startswith("error json.syntax: ")
