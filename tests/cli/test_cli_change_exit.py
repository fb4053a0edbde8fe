"""Exit status of ``cerebri reschedule`` and ``cerebri update-event`` when the answer is
NoSolution (docs/guide/change-an-event.md): ``0``, like ``cerebri find-slot`` and ``cerebri
plan`` for the same answer (docs/guide/plan.md: a refusal is an answer); ``2`` only for an
input that cannot be used."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.test_cli_changes import _ics, files, run

__all__ = ["files"]

BUSY = "2026-10-05T14:00/2026-10-05T15:00"  # the weekly event's hour, for both calendars


def _status(output: str) -> str:
    return str(json.loads(output)["outcome"])


def test_no_solution_exits_0_for_find_slot_plan_and_the_change_commands(
    files: dict[str, Path], tmp_path: Path
) -> None:
    found = run("find-slot", *_ics(files), "--duration", "1h", "--between", BUSY, "--json")
    moved = run("reschedule", "sync@example.com", *_ics(files), "--between", BUSY, "--json")
    longer = run("update-event", "sync@example.com", *_ics(files), "--duration", "90m", "--json")
    for answer in (found, moved, longer):
        assert (answer.exit_code, _status(answer.stdout)) == (0, "NoSolution"), answer.output
    emitted = run(
        "reschedule", "sync@example.com", *_ics(files), "--between", BUSY, "--emit-request"
    )
    assert emitted.exit_code == 0, emitted.output
    request = tmp_path / "request.json"
    request.write_text(emitted.stdout)
    replay = run("plan", "--limits", "local", request)
    assert (replay.exit_code, _status(replay.stdout)) == (0, "NoSolution"), replay.output
    text = run("update-event", "sync@example.com", *_ics(files), "--duration", "90m")
    assert text.exit_code == 0 and "the change is refused" in text.stdout


def test_an_input_that_cannot_be_used_exits_2(files: dict[str, Path]) -> None:
    unknown = run("reschedule", "nope@example.com", *_ics(files), "--between", BUSY)
    assert unknown.exit_code == 2
    assert "calendar.not_found" in unknown.output
