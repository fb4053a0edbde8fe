"""``cerebri update-event`` and ``cerebri reschedule`` on an all-day event (decisions 0050,
0055): a length that is not whole days is refused when planning, before any approval."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from cerebri.cli import app

OFFSITE = (
    "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n"
    "BEGIN:VEVENT\r\nUID:offsite@example.com\r\nDTSTAMP:20260101T000000Z\r\n"
    "DTSTART;VALUE=DATE:20261005\r\nDTEND;VALUE=DATE:20261006\r\nSUMMARY:Offsite\r\n"
    "END:VEVENT\r\nEND:VCALENDAR\r\n"
)


@pytest.fixture
def ics(tmp_path: Path) -> list[str]:
    path = tmp_path / "alice.ics"
    path.write_text(OFFSITE, newline="")
    return ["--ics", str(path), "--tz", "Europe/Berlin"]


def run(*args: str) -> Result:
    return CliRunner().invoke(app, list(args))


@pytest.mark.parametrize("duration", ["90m", "25h"])
def test_an_all_day_event_refuses_a_length_that_is_not_whole_days(
    ics: list[str], duration: str
) -> None:
    answer = run("update-event", "offsite@example.com", *ics, "--duration", duration, "--json")
    assert answer.exit_code == 2, answer.output
    assert "input.invalid_option" in answer.output
    assert "--duration 1d, 2d" in answer.output


def test_an_all_day_event_takes_two_whole_days(ics: list[str]) -> None:
    answer = run("update-event", "offsite@example.com", *ics, "--duration", "2d", "--json")
    assert answer.exit_code == 0, answer.output
    (candidate,) = json.loads(answer.stdout)["candidates"]
    # Oct 5 00:00 to Oct 7 00:00 in Berlin (summer time, UTC+2)
    span = candidate["proposed"]["placements"][0]["range"]
    assert (span["start"], span["end"]) == (
        "2026-10-04T22:00:00Z",
        "2026-10-06T22:00:00Z",
    )


def test_a_reschedule_of_an_all_day_event_refuses_hours_too(ics: list[str]) -> None:
    window = ["--between", "2026-10-06T00:00/2026-10-09T00:00", "--duration", "90m"]
    answer = run("reschedule", "offsite@example.com", *ics, *window)
    assert answer.exit_code == 2, answer.output
    assert "input.invalid_option" in answer.output
