"""``cerebri cancel-event``, ``update-event`` and ``reschedule`` of an instance whose wall
time falls in a daylight-saving gap, and of an all-day event across a change (decision
0064). Europe/Berlin springs forward on 2026-03-29 at 02:00: the weekly 02:30 instance that
day is read at +01:00, 01:30Z (03:30 summer time), and lasts its hour until 02:30Z.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from cerebri.cli import app

NIGHT = (
    "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n"
    "BEGIN:VEVENT\r\nUID:night@example.com\r\nDTSTAMP:20260101T000000Z\r\n"
    "DTSTART;TZID=Europe/Berlin:20260322T023000\r\nDTEND;TZID=Europe/Berlin:20260322T033000\r\n"
    "RRULE:FREQ=WEEKLY;COUNT=3\r\nSUMMARY:Night run\r\nEND:VEVENT\r\n"
    "BEGIN:VEVENT\r\nUID:off@example.com\r\nDTSTAMP:20260101T000000Z\r\n"
    "DTSTART;VALUE=DATE:20260320\r\nDTEND;VALUE=DATE:20260321\r\nSUMMARY:Off\r\n"
    "END:VEVENT\r\n"
    "BEGIN:VEVENT\r\nUID:sunday@example.com\r\nDTSTAMP:20260101T000000Z\r\n"
    "DTSTART;VALUE=DATE:20260329\r\nDTEND;VALUE=DATE:20260330\r\nSUMMARY:Sunday\r\n"
    "TRANSP:TRANSPARENT\r\n"
    "END:VEVENT\r\nEND:VCALENDAR\r\n"
)
GAP = ["--instance", "2026-03-29T01:30:00Z"]


@pytest.fixture
def ics(tmp_path: Path) -> list[str]:
    path = tmp_path / "alice.ics"
    path.write_text(NIGHT, newline="")
    return ["--ics", str(path), "--tz", "Europe/Berlin"]


def run(*args: str) -> Result:
    return CliRunner().invoke(app, list(args))


def _ranges(answer: Result) -> list[tuple[str, str]]:
    assert answer.exit_code == 0, answer.output
    found = json.loads(answer.stdout)
    assert found["outcome"] == "Solution", found
    spans = [c["proposed"]["placements"][0]["range"] for c in found["candidates"]]
    return [(span["start"], span["end"]) for span in spans]


def test_the_gap_instance_is_cancelled_with_its_hour(ics: list[str]) -> None:
    answer = run("cancel-event", "night@example.com", *ics, *GAP, "--json")
    assert _ranges(answer) == [("2026-03-29T01:30:00Z", "2026-03-29T02:30:00Z")]
    event = json.loads(answer.stdout)["event"]
    assert (event["local_start"], event["local_end"]) == (
        "2026-03-29T03:30:00+02:00",
        "2026-03-29T04:30:00+02:00",
    )


def test_the_gap_instance_named_by_its_local_time(ics: list[str]) -> None:
    # 02:30 does not exist that day: read with the offset before the gap (+01:00)
    local = ["--instance", "2026-03-29T02:30"]
    answer = run("cancel-event", "night@example.com", *ics, *local, "--json")
    assert _ranges(answer) == [("2026-03-29T01:30:00Z", "2026-03-29T02:30:00Z")]


def test_the_gap_instance_is_updated(ics: list[str]) -> None:
    answer = run("update-event", "night@example.com", *ics, *GAP, "--title", "Run", "--json")
    assert _ranges(answer) == [("2026-03-29T01:30:00Z", "2026-03-29T02:30:00Z")]


def test_the_gap_instance_is_rescheduled_with_its_hour(ics: list[str]) -> None:
    window = ["--between", "2026-03-30T08:00/2026-03-30T10:00", "--granularity", "1h"]
    answer = run("reschedule", "night@example.com", *ics, *GAP, *window, "--json")
    # 08:00 and 09:00 summer time (+02:00)
    assert sorted(_ranges(answer)) == [
        ("2026-03-30T06:00:00Z", "2026-03-30T07:00:00Z"),
        ("2026-03-30T07:00:00Z", "2026-03-30T08:00:00Z"),
    ]


def test_an_all_day_reschedule_is_whole_local_days_after_the_change(ics: list[str]) -> None:
    window = ["--between", "2026-03-30T00:00/2026-04-01T00:00"]
    answer = run("reschedule", "off@example.com", *ics, *window, "--json")
    # 30 and 31 March from midnight summer time (+02:00)
    assert sorted(_ranges(answer)) == [
        ("2026-03-29T22:00:00Z", "2026-03-30T22:00:00Z"),
        ("2026-03-30T22:00:00Z", "2026-03-31T22:00:00Z"),
    ]


def test_an_all_day_reschedule_across_the_change_is_refused_when_planning(
    ics: list[str],
) -> None:
    window = ["--between", "2026-03-27T00:00/2026-04-01T00:00"]
    answer = run("reschedule", "off@example.com", *ics, *window, "--json")
    assert answer.exit_code == 2, answer.output
    assert "input.invalid_option" in answer.output
    assert "2026-03-29" in answer.output


def test_the_change_day_itself_is_cancelled_as_its_23_hours(ics: list[str]) -> None:
    answer = run("cancel-event", "sunday@example.com", *ics, "--json")
    # 29 March 00:00 +01:00 to 30 March 00:00 +02:00
    assert _ranges(answer) == [("2026-03-28T23:00:00Z", "2026-03-29T22:00:00Z")]


def test_the_change_day_is_not_moved_onto_a_24_hour_day(ics: list[str]) -> None:
    # a reschedule keeps the exact length (decision 0049): 23 hours fit no other day
    window = ["--between", "2026-04-01T00:00/2026-04-02T00:00"]
    answer = run("reschedule", "sunday@example.com", *ics, *window, "--json")
    assert answer.exit_code == 2, answer.output
    assert "input.invalid_option" in answer.output
    assert "23 hours" in answer.output
