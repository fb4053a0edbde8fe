"""``cerebri optimize BATCH --ics-calendar ID=FILE`` (decision 0081) on a batch small
enough to solve by hand, with the real CP-SAT solver: the table, ``--emit-request`` replayed
as a plain ``cerebri optimize REQUEST``, and the refused option combinations."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from cerebri.cli import EXIT_INPUT, app
from tests.cli.test_cli_proposals import error_code

# Monday 5 October 2026, Berlin CEST (UTC+2); hourly grains 06, 07, 08, 09 UTC
ANN = """BEGIN:VCALENDAR\r
VERSION:2.0\r
PRODID:-//test//optimize calendars//EN\r
BEGIN:VEVENT\r
UID:standup\r
DTSTAMP:20260901T000000Z\r
DTSTART;TZID=Europe/Berlin:20260928T080000\r
DTEND;TZID=Europe/Berlin:20260928T090000\r
RRULE:FREQ=DAILY\r
SUMMARY:Stand-up\r
END:VEVENT\r
BEGIN:VEVENT\r
UID:review\r
DTSTAMP:20260901T000000Z\r
DTSTART:20261005T070000Z\r
DTEND:20261005T080000Z\r
SUMMARY:Review\r
END:VEVENT\r
BEGIN:VEVENT\r
UID:focus\r
DTSTAMP:20260901T000000Z\r
DTSTART:20261005T080000Z\r
DTEND:20261005T090000Z\r
SEQUENCE:1\r
SUMMARY:Focus\r
X-CEREBRI-MOVABLE:TRUE\r
X-CEREBRI-MOVE-COST:2\r
END:VEVENT\r
END:VCALENDAR\r
"""
CAND = ANN.partition("BEGIN:VEVENT")[0] + (
    "BEGIN:VEVENT\r\nUID:flight\r\nDTSTAMP:20260901T000000Z\r\n"
    "DTSTART:20261005T090000Z\r\nDTEND:20261005T100000Z\r\nSUMMARY:Flight\r\n"
    "END:VEVENT\r\nEND:VCALENDAR\r\n"
)
BATCH = {
    "window": {"start": "2026-10-05T06:00:00Z", "end": "2026-10-05T10:00:00Z"},
    "timezone": "Europe/Berlin",
    "granularity": 3600,
    "repairs": {"max_repairs": 1},
    "batch": {
        "meetings": [{"object_id": "i-1", "title": "Interview", "required": ["cand", "ann"]}],
        "people": [
            {"id": "ann", "calendar_id": "ann", "timezone": "Europe/Berlin"},
            {"id": "cand", "calendar_id": "cand", "timezone": "Europe/Berlin"},
        ],
        "weights": {"early": 1, "preference": 0, "back_to_back": 0, "move": 10},
        "solver": {"deterministic_time": 2.0},
    },
}


def _files(tmp_path: Path) -> list[str]:
    (tmp_path / "ann.ics").write_text(ANN, encoding="utf-8", newline="")
    (tmp_path / "cand.ics").write_text(CAND, encoding="utf-8", newline="")
    (tmp_path / "batch.json").write_text(json.dumps(BATCH), encoding="utf-8")
    return [
        str(tmp_path / "batch.json"),
        "--ics-calendar", f"ann={tmp_path / 'ann.ics'}",
        "--ics-calendar", f"cand={tmp_path / 'cand.ics'}",
    ]  # fmt: skip


def test_the_focus_block_moves_to_make_room(tmp_path: Path) -> None:
    # By hand: ann is busy 06-07Z (stand-up) and 07-08Z (review); cand flies 09-10Z. The
    # interview fits only at 08-09Z, where ann's focus is, so focus moves to the one hour
    # ann has left, 09-10Z. Soft: early i-1 (grain 2) 2 + move 10 x cost 2 = 22 (early
    # charges new meetings only); no other placement exists, so it is proven optimal.
    done = CliRunner().invoke(app, ["optimize", *_files(tmp_path)])
    assert done.exit_code == 0, done.output
    assert done.stdout == (
        "status: proven optimal\n"
        "score: hard 0, medium 0, soft 22\n"
        "zone: Europe/Berlin\n"
        "\n"
        "meeting  title      UTC                     Europe/Berlin           room  change\n"
        "focus    Focus      2026-10-05 09:00-10:00  2026-10-05 11:00-12:00  -     moved\n"
        "i-1      Interview  2026-10-05 08:00-09:00  2026-10-05 10:00-11:00  -     new\n"
        "\n"
        "terms:\n"
        "  early i-1: amount 2, cost 2\n"
        "  move focus: amount 2, cost 20\n"
    )


def test_the_emitted_request_answers_the_same(tmp_path: Path) -> None:
    runner = CliRunner()
    emitted = runner.invoke(app, ["optimize", *_files(tmp_path), "--emit-request"])
    assert emitted.exit_code == 0, emitted.output
    request = json.loads(emitted.stdout)
    assert (request["operation"], request["target_ids"]) == ("OPTIMIZE", ["i-1"])
    assert request["scope"]["movable_object_ids"] == ["focus"]
    (tmp_path / "request.json").write_text(emitted.stdout, encoding="utf-8")
    direct = runner.invoke(app, ["optimize", *_files(tmp_path), "--json"])
    replayed = runner.invoke(app, ["optimize", str(tmp_path / "request.json"), "--json"])
    assert direct.exit_code == replayed.exit_code == 0
    assert direct.stdout == replayed.stdout
    assert json.loads(direct.stdout)["batch"]["status"] == "OPTIMAL"


def test_refused_options(tmp_path: Path) -> None:
    runner = CliRunner()
    alone = runner.invoke(app, ["optimize", str(tmp_path / "batch.json"), "--movable", "focus"])
    assert (alone.exit_code, error_code(alone)) == (EXIT_INPUT, "input.invalid_option")
    both = runner.invoke(app, ["optimize", *_files(tmp_path), "--emit-request", "--json"])
    assert (both.exit_code, error_code(both)) == (EXIT_INPUT, "input.invalid_option")
    typo = runner.invoke(app, ["optimize", *_files(tmp_path), "--movable", "fokus"])
    assert (typo.exit_code, error_code(typo)) == (EXIT_INPUT, "calendars.invalid_argument")
