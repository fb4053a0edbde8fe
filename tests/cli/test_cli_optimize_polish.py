"""``cerebri optimize`` after the new-user trial (decision 0084): the admission-limit hint
names OPTIMIZE's own limits and numbers, conflict lines read meeting first, a meeting longer
than the horizon says so, and ``max_repairs`` with nothing to move is a warning."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

import cerebri
from cerebri.cli import app
from cerebri.cli._plan_text import optimize_breaches
from tests.optimize_wire.test_wire_answer import three
from tests.optimize_wire.wire_helpers import MONDAY, existing, meeting, optimize_request


def _run(tmp_path: Path, request: dict[str, Any], *args: str) -> Any:
    path = tmp_path / "request.json"
    path.write_text(json.dumps(request), encoding="utf-8")
    command = args[0] if args and args[0] in {"plan", "validate"} else "optimize"
    rest = args[1:] if args and args[0] in {"plan", "validate"} else args
    return CliRunner().invoke(app, [command, str(path), *rest])


def _many_meetings(count: int) -> dict[str, Any]:
    # 1025 one-minute meetings over 14 days of one-minute grains: 14 x 1440 = 20 160 grains.
    request = optimize_request(
        [meeting(f"m{i:04d}", ["ann"]) for i in range(count)],
        start="2026-10-05T00:00:00Z",
        end="2026-10-19T00:00:00Z",
        granularity=60,
    )
    request["duration"]["value"]["knowledge"]["data"] = 60
    return request


def test_too_many_meetings_and_grains_name_the_limits(tmp_path: Path) -> None:
    request = _many_meetings(1025)
    expected = [
        "target_ids is 1025, more than 1024 targets",
        "batch.meetings is 1025, more than 1024 meetings",
        "scope.time_range / granularity (60 s) is 20160, more than 20000 grains",
    ]
    table = _run(tmp_path, request)
    assert table.exit_code == 0, table.output
    assert table.stdout.splitlines() == [
        "status: not planned: the request does not validate",
        "  InputLimit",
        *(f"    {line}" for line in expected),
        "  hint: split the batch into requests of at most 1024 meetings; shorten "
        "scope.time_range or use a coarser granularity (at most 20000 grains) (OPTIMIZE's own "
        "limits; docs/reference/limits.md)",
    ]
    hint = (
        "hint: OPTIMIZE has its own admission limits (--limits does not apply; "
        f"docs/reference/limits.md): {'; '.join(expected)}. To fix: split the batch into "
        "requests of at most 1024 meetings; shorten scope.time_range or use a coarser "
        "granularity (at most 20000 grains)\n"
    )
    # `optimize --json` writes as `plan` does (the same function, reference limits).
    for args in (("plan",), ("plan", "--limits", "local")):
        done = _run(tmp_path, request, *args)
        assert done.exit_code == 0, done.output
        assert json.loads(done.stdout)["validation"]["issues"] == ["InputLimit"]
        assert done.stderr == hint, args
    # At the limits nothing is named: 1024 meetings, 20 000 grains.
    at = _many_meetings(1024)
    at["scope"]["time_range"]["end"] = "2026-10-18T21:20:00Z"  # 20 000 minutes after start
    assert optimize_breaches(cerebri.parse_request(at)) == []


def test_objects_and_size_name_the_limits(tmp_path: Path) -> None:
    # 450 existing events, each with 100 resource ids of 98 characters: about 4.7 MB of
    # compact JSON (measured below, independently of cerebri), 4097+ objects separately.
    objects = [
        existing(
            f"x{i:04d}",
            MONDAY + "08:00:00Z",
            MONDAY + "09:00:00Z",
            calendar="zoe-cal",
            resources=[f"{'r' * 90}{i:05d}{j:03d}" for j in range(100)],
        )
        for i in range(450)
    ]
    request = optimize_request([meeting("m-a", ["ann"])], objects=objects)
    size = len(json.dumps(request, separators=(",", ":"), ensure_ascii=False).encode())
    assert size > 4 * 1024 * 1024
    done = _run(tmp_path, request)
    assert done.exit_code == 0, done.output
    (line,) = [x for x in done.stdout.splitlines() if "request size" in x]
    measured = int(line.split(" is ")[1].split(" ")[0])
    assert abs(measured - size) < 0.01 * size  # canonical form vs json.dumps: same bytes here
    assert line.endswith("bytes, more than 4 MiB (4194304 bytes)")
    few = [
        existing(f"y{i:04d}", MONDAY + "08:00:00Z", MONDAY + "09:00:00Z", calendar="zoe-cal")
        for i in range(4096)
    ]
    crowded = optimize_request([meeting("m-a", ["ann"])], objects=few)
    done = _run(tmp_path, crowded)
    assert "    context.objects is 4097, more than 4096 objects\n" in done.stdout
    assert "leave out the context objects" in done.stdout


def test_a_meeting_longer_than_the_horizon_says_so(tmp_path: Path) -> None:
    # The horizon of three() is 06-16Z, 10 h; m-c lasts 11 h.
    request = three()
    request["batch"]["meetings"][2]["duration"] = 11 * 3600
    done = _run(tmp_path, request)
    assert done.exit_code == 0, done.output
    assert done.stdout.splitlines()[:2] == [
        "status: proven infeasible; these rules conflict:",
        "  day: m-c (lasts 11 h, longer than the whole horizon: scope.time_range is 10 h)",
    ]


def test_a_meeting_longer_than_every_day_names_the_longest_day(tmp_path: Path) -> None:
    # 06Z Monday to 06Z Tuesday in Berlin (UTC+2): Monday 08:00-24:00 (16 h) and Tuesday
    # 00:00-08:00 (8 h); m-c lasts 20 h, less than the 24 h horizon.
    request = three()
    request["scope"]["time_range"]["end"] = "2026-10-06T06:00:00Z"
    request["batch"]["meetings"][2]["duration"] = 20 * 3600
    done = _run(tmp_path, request)
    assert done.stdout.splitlines()[1] == (
        "  day: m-c (lasts 20 h; the longest day of the horizon in Europe/Berlin has 16 h: "
        "a meeting never runs over midnight)"
    )


def test_conflict_lines_put_the_meeting_first(tmp_path: Path) -> None:
    # bob works 09-12 London (08-11Z) only; "o05" needs bob and the person "mgr" (named to
    # sort before the meeting) works 16-17 Berlin (14-15Z) only: their hours never meet.
    people = [
        {
            "id": "mgr",
            "calendar_id": "mgr-cal",
            "timezone": "Europe/Berlin",
            "hours": [{"days": ["Mon"], "start": "16:00", "end": "17:00"}],
        },
        {
            "id": "r5",
            "calendar_id": "r5-cal",
            "timezone": "Europe/London",
            "hours": [{"days": ["Mon"], "start": "09:00", "end": "12:00"}],
        },
    ]
    request = optimize_request([meeting("o05", ["mgr", "r5"])], people=people, rooms=[])
    done = _run(tmp_path, request)
    assert done.exit_code == 0, done.output
    rules = done.stdout.splitlines()[1:-1]
    assert sorted(rules) == ["  hours: o05; person mgr", "  hours: o05; person r5"]
    wire = json.loads(_run(tmp_path, request, "--json").stdout)["batch"]["conflict"]
    # The wire keeps its sorted ids (decision 0070): "mgr" < "o05" < "r5".
    assert sorted(c["ids"] for c in wire) == [["mgr", "o05"], ["o05", "r5"]]


def test_after_reads_which_follows_which(tmp_path: Path) -> None:
    # "z-first" must follow "a-then"; ann (a-then) works 09-10 Berlin = 07-08Z only and bob
    # (z-first) 08-09 London = 07-08Z only: both can only take 07-08Z, so the rule "after"
    # and both hours conflict (the only conflicting set: they share no one).
    request = optimize_request(
        [meeting("a-then", ["ann"]), meeting("z-first", ["bob"], after=[{"object_id": "a-then"}])]
    )
    people = request["batch"]["people"]
    people[0]["hours"] = [{"days": ["Mon"], "start": "09:00", "end": "10:00"}]
    people[1]["hours"] = [{"days": ["Mon"], "start": "08:00", "end": "09:00"}]
    done = _run(tmp_path, request)
    assert done.stdout.splitlines()[1:-1] == [
        "  after: z-first, a-then (z-first starts after a-then ends)",
        "  hours: a-then; person ann",
        "  hours: z-first; person bob",
    ]


def test_max_repairs_without_an_existing_meeting_is_a_warning(tmp_path: Path) -> None:
    request = three()
    request["budget"].update(max_repairs=2, max_moved_objects=2, max_depth=1)
    warning = (
        "warning budget.repairs_unused at /budget/max_repairs: budget.max_repairs is 2 but "
        "batch.meetings lists no existing event (every entry is a new meeting of target_ids): "
        "only existing events listed in batch.meetings and in scope.movable_object_ids may "
        "move, so nothing is moved. List the events that may move, or set budget.max_repairs "
        "to 0.\n"
    )
    for args in ((), ("--json",), ("validate",)):
        done = _run(tmp_path, request, *args)
        assert done.exit_code == 0, done.output
        assert done.stderr == warning, args
    # Accepted and planned as without repairs: the answer of three() (soft 8).
    assert cerebri.validate(request).to_wire() == {"state": "Valid", "issues": []}
    answer = json.loads(_run(tmp_path, request, "--json").stdout)
    assert answer["batch"]["score"] == {"hard": 0, "medium": 0, "soft": 8}
    # No warning with an existing meeting to move, nor with max_repairs 0.
    request["budget"]["max_repairs"] = 0
    assert _run(tmp_path, request).stderr == ""


def test_the_guide_table_is_what_the_example_prints(tmp_path: Path) -> None:
    # The guide's first command runs as written, from the repository root, on the shipped
    # example (the three() request of tests/optimize_wire, kept equal to it).
    root = Path(__file__).resolve().parents[2]
    example = root / "examples" / "three-interviews.json"
    assert json.loads(example.read_text(encoding="utf-8")) == three()
    guide = (root / "docs" / "guide" / "optimize-a-batch.md").read_text(encoding="utf-8")
    command = "$ cerebri optimize examples/three-interviews.json\n"
    block = guide.split(command, 1)[1].split("```", 1)[0]
    done = CliRunner().invoke(app, ["optimize", str(example)])
    assert done.exit_code == 0, done.output
    assert done.stdout == block


def test_the_guide_python_snippet_runs(monkeypatch: Any) -> None:
    root = Path(__file__).resolve().parents[2]
    guide = (root / "docs" / "guide" / "optimize-a-batch.md").read_text(encoding="utf-8")
    (snippet,) = guide.split("```python\n")[1:]
    monkeypatch.chdir(root)
    namespace: dict[str, Any] = {}
    exec(compile(snippet.split("```", 1)[0], "optimize-a-batch.md", "exec"), namespace)
    actions = namespace["action_plan"].actions
    # three(): m-a, m-b, m-c are new (three creates), m-a and m-b in room r1.
    assert sorted(a.target for a in actions) == ["m-a", "m-b", "m-c"]
    assert {a.target: a.room_id for a in actions} == {"m-a": "r1", "m-b": "r1", "m-c": None}
    assert namespace["draft"] is not None
