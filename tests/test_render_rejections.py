"""The rejection summary counts each start once per cause, by day and night.

The expected counts are worked out here from the PlanningResult JSON (which blockers each
rejection names), independently of the renderer's grouping code.
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from cerebri.calendars import FIND_SLOT_LIMITS
from cerebri.cli import app
from cerebri.planner import plan
from tests.calendars.test_find_slot import ALICE, BOB

NIGHT = "outside-working-hours-"
HEADER = re.compile(r"^(\d+) rejected start\(s\) by cause")
LINE = re.compile(r"^  (\d+) × (.+?): (.*)$")


@pytest.fixture
def calendars(tmp_path: Path) -> list[str]:
    (tmp_path / "alice.ics").write_text(ALICE, encoding="utf-8")
    (tmp_path / "bob.ics").write_text(BOB, encoding="utf-8")
    return ["--ics", str(tmp_path / "alice.ics"), "--ics", str(tmp_path / "bob.ics")]


def _find_slot(calendars: list[str], *extra: str) -> list[str]:
    args = [
        "find-slot",
        *calendars,
        "--duration",
        "30m",
        "--between",
        "2026-10-05T08:00/2026-10-09T18:00",
        "--tz",
        "Europe/Berlin",
        "--working-hours",
        "09:00-17:00",
        "--buffer",
        "10m",
        *extra,
    ]
    run = CliRunner().invoke(app, args)
    assert run.exit_code == 0, run.output
    return run.stdout.splitlines()


def _summary(lines: list[str]) -> list[str]:
    """The header and the cause lines of the rejection summary."""
    first = next(i for i, line in enumerate(lines) if HEADER.match(line))
    rest = lines[first + 1 :]
    end = next((i for i, line in enumerate(rest) if not line.startswith("  ")), len(rest))
    return [lines[first], *rest[:end]]


def _blockers(reason: Any) -> tuple[str, list[str]]:
    payload = reason["HardConstraint"]
    evidence = payload["evidence"]
    return payload["reason"], [*evidence["blocking_objects"], *evidence["blocking_occurrences"]]


def _expected(
    result: dict[str, Any], names: dict[str, str] | None = None
) -> tuple[Counter[str], dict[str, int]]:
    """Starts per night blocker id, and starts per (overlap|buffer, blocker) with a start
    inside a blocker not counted again as within its buffer; the working-hours nights
    counted once whichever rule they broke."""
    nights: dict[str, set[str]] = defaultdict(set)
    counts: Counter[str] = Counter()
    for rejection in result["conflicts"]["rejections"]:
        names = names or {}
        overlap: set[str] = set()
        buffer: set[str] = set()
        for reason in rejection["reasons"]:
            kind, blockers = _blockers(reason)
            for blocker in blockers:
                if blocker.startswith(NIGHT):
                    nights[blocker].add(rejection["start"])
                else:
                    (overlap if kind == "Overlap" else buffer).add(names.get(blocker, blocker))
        if any(rejection["start"] in starts for starts in nights.values()):
            counts["outside working hours"] += 1
        for blocker in overlap:
            counts[f"overlap {blocker}"] += 1
        for blocker in buffer - overlap:
            counts[f"buffer {blocker}"] += 1
    return counts, {night: len(starts) for night, starts in nights.items()}


def _event_names(request: dict[str, Any]) -> dict[str, str]:
    """The ics objects of the emitted request named from their calendar and length alone:
    Alice's 15-minute events are the daily standup, her hour the review, Bob's the focus."""
    names: dict[str, str] = {}
    for obj in request["context"]["objects"]:
        if not obj["id"].startswith("ics-"):
            continue
        data = obj["time"]["value"]["knowledge"]["data"]
        minutes = (_seconds(data["end"]) - _seconds(data["start"])) // 60
        names[obj["id"]] = {("alice", 15): "standup", ("alice", 60): "review"}.get(
            (obj["calendar_id"], minutes), obj["calendar_id"]
        )
    return names


def _seconds(text: str) -> int:
    return int(datetime.fromisoformat(text).timestamp())


def test_five_day_working_hours_summary_is_short_and_counts_once(calendars: list[str]) -> None:
    lines = _find_slot(calendars)
    summary = _summary(lines)
    assert len(summary) <= 10
    runner = CliRunner()
    result = json.loads(runner.invoke(app, [*_find_slot_args(calendars), "--json"]).stdout)
    request = json.loads(runner.invoke(app, [*_find_slot_args(calendars), "--emit-request"]).stdout)
    names = _event_names(request)
    counts, nights = _expected(result, names)
    header = HEADER.match(summary[0])
    assert header is not None
    assert int(header.group(1)) == len(result["conflicts"]["rejections"])
    shown = {m.group(2): (int(m.group(1)), m.group(3)) for m in map(LINE.match, summary[1:]) if m}
    total, runs = shown["outside working hours"]
    assert total == counts["outside working hours"]
    # One run per night (and one each for the morning and evening edges), with its count.
    assert sorted(int(n) for n in re.findall(r"\((\d+)\)", runs)) == sorted(nights.values())
    assert len(nights) == 6
    # Events: a series is one cause; the buffer is not counted again where the start overlaps.
    assert shown["overlaps Standup (standup@alice)"][0] == counts["overlap standup"]
    assert (
        shown["within the 600 s buffer of Standup (standup@alice)"][0] == counts["buffer standup"]
    )
    assert shown["overlaps Focus time (focus@bob)"][0] == counts["overlap bob"]
    assert shown["within the 600 s buffer of Focus time (focus@bob)"][0] == counts["buffer bob"]
    assert shown["overlaps Review (review@alice)"][0] == counts["overlap review"]
    assert len(shown) == len(counts)
    assert not any("NO_OVERLAP" in line or "REQUIRED_BUFFER" in line for line in summary)


def _find_slot_args(calendars: list[str]) -> list[str]:
    return [
        "find-slot",
        *calendars,
        "--duration",
        "30m",
        "--between",
        "2026-10-05T08:00/2026-10-09T18:00",
        "--tz",
        "Europe/Berlin",
        "--working-hours",
        "09:00-17:00",
        "--buffer",
        "10m",
    ]


def test_explain_lists_every_rejected_start(calendars: list[str]) -> None:
    lines = _find_slot(calendars, "--explain")
    result = json.loads(CliRunner().invoke(app, [*_find_slot_args(calendars), "--json"]).stdout)
    first = lines.index("every rejected start:")
    listed = lines[first + 1 : first + 1 + len(result["conflicts"]["rejections"])]
    starts = [r["start"] for r in result["conflicts"]["rejections"]]
    assert [re.search(r"\((\S+Z)\)", line).group(1) for line in listed] == starts  # type: ignore[union-attr]
    assert len(_summary(lines)) <= 10


def test_explicit_no_overlap_changes_no_count(calendars: list[str], tmp_path: Path) -> None:
    emitted = CliRunner().invoke(app, [*_find_slot_args(calendars), "--emit-request"]).stdout
    request = json.loads(emitted)
    target = request["target_ids"][0]
    doubled = json.loads(emitted)
    doubled["constraints"].append(
        {"object_id": target, "rule": {"kind": "NO_OVERLAP"}, "evidence": []}
    )
    plain_result = plan(request, limits=FIND_SLOT_LIMITS).to_wire()
    doubled_result = plan(doubled, limits=FIND_SLOT_LIMITS).to_wire()
    # The JSON does list the explicit rule again ...
    assert sum(len(r["reasons"]) for r in doubled_result["conflicts"]["rejections"]) > sum(
        len(r["reasons"]) for r in plain_result["conflicts"]["rejections"]
    )
    summaries = []
    for name, document in (("plain", request), ("doubled", doubled)):
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(document), encoding="utf-8")
        run = CliRunner().invoke(app, ["plan", "--table", "--limits", "local", str(path)])
        assert run.exit_code == 0, run.output
        summaries.append(_summary(run.stdout.splitlines()))
    # ... but the summary of causes is the same, and counts as computed from the JSON.
    assert summaries[0] == summaries[1]
    counts, _ = _expected(doubled_result)
    assert f"  {counts['outside working hours']} × outside working hours: " in "\n".join(
        summaries[1]
    )
