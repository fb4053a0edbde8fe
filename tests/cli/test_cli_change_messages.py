"""The words of ``cerebri reschedule``, ``cancel-event`` and ``update-event`` (issue #23):
a one-off event is a "single event" (no scope), a recurring one keeps its scope; the
``Unchanged`` rejection names the event by title and current start; an answer fed to
``cerebri plan`` says how to save the request instead; overnight ``--hours`` are taken.

The fixtures are tests/cli/test_cli_changes.py's (Oct 5 2026, Europe/Berlin, UTC+2).
"""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest

from tests.cli.test_cli_changes import _at, _expected_starts, _ics, _utc, files, run

__all__ = ["files"]  # the fixture, used by name

WINDOW = ["--between", "2026-10-05T08:00/2026-10-05T18:00", "--granularity", "30m"]


@pytest.mark.parametrize(
    "command",
    [
        ["reschedule", "sync@example.com", *WINDOW],
        ["cancel-event", "sync@example.com"],
        ["update-event", "sync@example.com", "--title", "Planning"],
    ],
)
def test_a_one_off_event_is_a_single_event_without_scope(
    files: dict[str, Path], command: list[str]
) -> None:
    answer = run(*command, *_ics(files))
    assert answer.exit_code == 0, answer.output
    first = answer.stdout.splitlines()[0]
    assert first == "event: Sync (sync@example.com), single event, calendar alice, SEQUENCE 0"
    assert "scope" not in first


@pytest.mark.parametrize(
    ("options", "scope"),
    [
        ([], "scope SERIES"),
        (["--instance", "2026-10-12T14:00"], "scope INSTANCE"),
        (["--this-and-future", "2026-10-12T14:00"], "scope THIS_AND_FUTURE"),
    ],
)
def test_a_recurring_event_keeps_its_scope(
    files: dict[str, Path], options: list[str], scope: str
) -> None:
    answer = run("cancel-event", "weekly@example.com", *_ics(files), *options)
    assert answer.exit_code == 0, answer.output
    first = answer.stdout.splitlines()[0]
    assert first.startswith("event: Weekly (weekly@example.com)")
    assert f", {scope}, calendar alice, SEQUENCE 0" in first


def test_the_current_start_rejection_names_the_event(files: dict[str, Path]) -> None:
    answer = run("reschedule", "sync@example.com", *_ics(files), *WINDOW, "--explain")
    assert answer.exit_code == 0, answer.output
    # Sync starts at 10:00 Berlin (UTC+2 in October): 08:00 UTC.
    named = "Unchanged: Sync at its current start, Mon 2026-10-05 10:00 Europe/Berlin = " + (
        "2026-10-05 08:00 UTC"
    )
    lines = answer.stdout.splitlines()
    assert (
        f"  {named}: 1 start (10-05 10:00) — hint: that is the event's current start: "
        + ("a reschedule needs a new time")
        in lines
    )
    assert f"  10-05 10:00 (2026-10-05T08:00:00Z): {named}" in lines
    assert '"ics-' not in answer.stdout


def test_an_answer_given_to_plan_gets_a_hint(files: dict[str, Path], tmp_path: Path) -> None:
    answer = run("reschedule", "sync@example.com", *_ics(files), *WINDOW, "--json")
    assert answer.exit_code == 0, answer.output
    path = tmp_path / "answer.json"
    path.write_text(answer.stdout)
    replay = run("plan", path)
    assert replay.exit_code == 2
    assert replay.stderr.startswith("error cpir.unknown_field at /outcome: unknown field")
    assert replay.stderr.endswith(
        "; hint: this looks like an answer; use --emit-request to save the request\n"
    )
    # a request with one stray field keeps the plain message
    emitted = json.loads(
        run("reschedule", "sync@example.com", *_ics(files), *WINDOW, "--emit-request").stdout
    )
    emitted["outcome"] = "Solution"
    path.write_text(json.dumps(emitted))
    stray = run("plan", path)
    assert stray.exit_code == 2
    assert stray.stderr == "error cpir.unknown_field at /outcome: unknown field\n"


def test_reschedule_takes_overnight_hours(files: dict[str, Path]) -> None:
    # Bob works 20:00-06:00 in Tokyo (UTC+9): 11:00-21:00 UTC, 13:00-23:00 in Berlin on
    # Oct 5, so of the day's free starts only those from 13:00 (ending by 18:00) remain.
    hours = ["--hours", "bob=20:00-06:00@Asia/Tokyo"]
    answer = run("reschedule", "sync@example.com", *_ics(files), *WINDOW, *hours, "--json")
    assert answer.exit_code == 0, answer.output
    starts = [c["start"] for c in json.loads(answer.stdout)["candidates"]]
    free = [s for s in _expected_starts(timedelta(hours=1)) if s >= _at("13:00")]
    assert sorted(starts) == sorted(_utc(s) for s in free)
    assert sorted(starts) == [_utc(_at("13:00")), _utc(_at("17:00"))]
    update = run("update-event", "sync@example.com", *_ics(files), *hours, "--duration", "30m")
    assert update.exit_code == 0, update.output
    assert "Mon 2026-10-05 17:00-17:30 +0900" in update.stdout  # 08:00Z in Tokyo
