"""find-slot fixes from the issue #14 new-user trial: outputs never replace inputs, a
calendar is one attendee however often it is named, and the messages say what to do."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from icalendar import Calendar
from typer.testing import CliRunner, Result

import cerebri
from cerebri.calendars import FIND_SLOT_LIMITS
from cerebri.cli import app
from tests.cli.test_cli_find_slot_ics_out import ALICE, AT, BOB, BUSY, error_code, free_starts

WINDOW = "2026-10-05T09:00/2026-10-05T13:00"  # Berlin local (UTC+2), a Monday
NOBODY = """BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//test//EN
BEGIN:VEVENT
UID:n1
DTSTAMP:20260101T000000Z
DTSTART:20261005T070000Z
DTEND:20261005T080000Z
SUMMARY:gym
END:VEVENT
END:VCALENDAR
"""


def run(*args: str | Path) -> Result:
    return CliRunner().invoke(app, [str(a) for a in args])


@pytest.fixture
def cals(tmp_path: Path) -> dict[str, Path]:
    for name, text in (("alice", ALICE), ("bob", BOB), ("nobody", NOBODY)):
        (tmp_path / f"{name}.ics").write_text(text)
    return {name: tmp_path / f"{name}.ics" for name in ("alice", "bob", "nobody")} | {
        "tmp": tmp_path
    }


def base(cals: dict[str, Path], *extra: str | Path) -> list[str | Path]:
    return [
        "find-slot",
        *("--ics", cals["alice"], "--ics", cals["bob"]),
        *("--between", WINDOW, "--tz", "Europe/Berlin", "--duration", "45m"),
        *extra,
    ]


@pytest.mark.parametrize("which", ["alice", "bob"])
def test_ics_out_onto_an_input_is_refused_and_nothing_is_written(
    cals: dict[str, Path], which: str
) -> None:
    before = cals[which].read_bytes()
    # a different spelling of the same file: ./sub/../alice.ics
    (cals["tmp"] / "sub").mkdir()
    same = cals["tmp"] / "." / "sub" / ".." / f"{which}.ics"
    for target in (cals[which], same):
        result = run(*base(cals, "--ics-out", target, "--at", AT))
        assert result.exit_code == 2
        assert error_code(result) == "input.invalid_option"
        assert f"is the --ics calendar {cals[which]}" in result.stderr
        assert cals[which].read_bytes() == before


def test_ics_out_onto_an_optional_input_is_refused(cals: dict[str, Path]) -> None:
    before = cals["nobody"].read_bytes()
    result = run(*base(cals, "--optional-ics", cals["nobody"], "--ics-out", cals["nobody"]))
    assert result.exit_code == 2 and error_code(result) == "input.invalid_option"
    assert "--optional-ics calendar" in result.stderr
    assert cals["nobody"].read_bytes() == before


def test_ics_out_says_wrote_then_replaced(cals: dict[str, Path]) -> None:
    out = cals["tmp"] / "meeting.ics"
    first = run(*base(cals, "--ics-out", out, "--at", AT))
    assert first.exit_code == 0, first.output
    assert first.stderr.startswith(f"wrote {out}: candidate 1")
    again = run(*base(cals, "--ics-out", out, "--at", AT, "--pick", "2"))
    assert again.exit_code == 0, again.output
    assert again.stderr.startswith(f"replaced {out}: candidate 2")
    (event,) = Calendar.from_ical(out.read_bytes()).walk("VEVENT")
    assert event.start == free_starts(BUSY, 45)[1]


def test_ics_out_dash_writes_the_event_to_stdout_only(cals: dict[str, Path]) -> None:
    result = run(*base(cals, "--ics-out", "-", "--at", AT))
    assert result.exit_code == 0, result.output
    assert not (Path.cwd() / "-").exists()
    (event,) = Calendar.from_ical(result.stdout_bytes).walk("VEVENT")
    assert event.start == free_starts(BUSY, 45)[0]
    assert result.stdout_bytes.startswith(b"BEGIN:VCALENDAR\r\n")
    with_json = run(*base(cals, "--ics-out", "-", "--json"))
    assert with_json.exit_code == 2 and error_code(with_json) == "input.invalid_option"


@pytest.mark.parametrize(
    ("extra", "first", "second"),
    [
        (("--ics", "bob"), "--ics", "--ics"),
        (("--optional-ics", "alice"), "--ics", "--optional-ics"),
    ],
)
def test_the_same_calendar_twice_is_refused(
    cals: dict[str, Path], extra: tuple[str, str], first: str, second: str
) -> None:
    option, name = extra
    result = run(*base(cals, option, cals[name], "--min-attendance", "1"))
    assert result.exit_code == 2
    assert error_code(result) == "input.invalid_option"
    assert f"{first} {cals[name]} and {second} {cals[name]} name the same calendar" in (
        result.stderr
    )


def test_the_same_caldav_url_twice_is_refused_before_any_request(cals: dict[str, Path]) -> None:
    # Port 9 (discard) is never contacted: the refusal comes before any calendar is read.
    url = "http://127.0.0.1:9/dav/alice/"
    result = run(*base(cals, "--caldav", url, "--optional-caldav", "HTTP://127.0.0.1:9/dav/alice"))
    assert result.exit_code == 2 and error_code(result) == "input.invalid_option"
    assert "--caldav http://127.0.0.1:9/dav/alice/ and --optional-caldav" in result.stderr


def test_emit_request_says_what_a_replay_loses(cals: dict[str, Path]) -> None:
    carol = cals["tmp"] / "carol.ics"  # busy 11:00-12:00 Berlin, when alice and bob are free
    carol.write_text(NOBODY.replace("T070000Z", "T090000Z").replace("T080000Z", "T100000Z"))
    common = base(cals, "--optional-ics", carol, "--min-attendance", "1")
    emitted = run(*common, "--emit-request")
    assert emitted.exit_code == 0, emitted.output
    answer = json.loads(run(*common, "--json").stdout)
    replay = cerebri.plan(emitted.stdout, limits=FIND_SLOT_LIMITS).to_wire()
    left_out = len(replay["candidates"]) - len(answer["candidates"])
    assert left_out == len(answer["below_min_attendance"]) > 0
    assert replay["candidates"][0] == answer["candidates"][0]
    note = emitted.stderr
    assert "optional attendees (--optional-ics/--optional-caldav) and --min-attendance" in note
    assert "the same first choice" in note
    assert f"including the {left_out} slot(s) --min-attendance left out" in note
    plain = run(*base(cals, "--emit-request"))
    assert plain.exit_code == 0 and plain.stderr == ""


def test_buffer_zero_means_no_buffer(cals: dict[str, Path]) -> None:
    zero = json.loads(run(*base(cals, "--buffer", "0", "--json")).stdout)
    none = json.loads(run(*base(cals, "--json")).stdout)
    starts = [c["start"] for c in zero["candidates"]]
    assert starts == [c["start"] for c in none["candidates"]]
    expected = [m.strftime("%Y-%m-%dT%H:%M:%SZ") for m in free_starts(BUSY, 45)]
    assert starts == expected
    negative = run(*base(cals, "--buffer", "PT-5M"))
    assert negative.exit_code == 2 and error_code(negative) == "input.invalid_option"


def test_request_new_accepts_buffer_zero() -> None:
    result = run(
        "request",
        "new",
        *("--duration", "30m", "--between", WINDOW, "--tz", "Europe/Berlin", "--buffer", "0m"),
    )
    assert result.exit_code == 0, result.output
    assert "REQUIRED_BUFFER" not in result.stdout


def test_days_off_are_not_a_working_day(cals: dict[str, Path]) -> None:
    result = run(*base(cals, "--working-hours", "09:00-17:00", "--working-days", "Sat-Sun"))
    assert result.exit_code == 0, result.output
    # 09:00-13:00 Berlin at 15 min, 45 min meetings: (240 - 45) / 15 + 1 starts, all closed
    positions = (240 - 45) // 15 + 1
    assert f"not a working day: {positions} starts" in result.stdout
    assert "outside working hours" not in result.stdout


def test_event_options_grammar_without_ics_out(cals: dict[str, Path]) -> None:
    one = run(*base(cals, "--pick", "2"))
    assert one.stderr.startswith("error input.invalid_option: --pick describes the event")
    two = run(*base(cals, "--pick", "2", "--title", "x"))
    assert "--pick, --title describe the event" in two.stderr


def test_input_limit_is_printed_once_with_a_hint(cals: dict[str, Path]) -> None:
    result = run(
        "find-slot",
        *("--ics", cals["alice"], "--duration", "30m", "--tz", "Europe/Berlin"),
        *("--between", "2026-01-01T00:00/2036-01-01T00:00", "--working-hours", "09:00-17:00"),
    )
    assert result.exit_code == 0, result.output
    assert result.stdout.count("InputLimit") == 1
    assert result.stdout.count("work units") == 1
    assert "hint: lower --max-candidates or shorten the window (--between)" in result.stdout


def test_plan_hints_limits_local_for_an_emitted_request(
    cals: dict[str, Path], tmp_path: Path
) -> None:
    emitted = run(*base(cals, "--emit-request", "--granularity", "1m"))
    assert emitted.exit_code == 0, emitted.output
    request = json.loads(emitted.stdout)
    assert request["budget"]["max_candidates"] > 4096  # beyond the reference limit
    path = tmp_path / "request.json"
    path.write_text(emitted.stdout)
    table = run("plan", "--table", path)
    assert "InsufficientInformation" in table.stdout
    assert "pass --limits local" in table.stdout
    as_json = run("plan", path)
    assert "hint: the request is within the local limits" in as_json.stderr
    local = run("plan", "--table", "--limits", "local", path)
    assert "InputLimit" not in local.stdout


def test_an_organizer_alone_is_also_the_chair_attendee(cals: dict[str, Path]) -> None:
    out = cals["tmp"] / "meeting.ics"
    result = run(
        "find-slot",
        *("--ics", cals["nobody"], "--ics", cals["bob"], "--between", WINDOW),
        *("--tz", "Europe/Berlin", "--duration", "45m", "--ics-out", out, "--at", AT),
    )
    assert result.exit_code == 0, result.output
    (event,) = Calendar.from_ical(out.read_bytes()).walk("VEVENT")
    assert str(event["ORGANIZER"]) == "mailto:bob@example.com"
    attendee = event["ATTENDEE"]
    assert not isinstance(attendee, list)
    assert str(attendee) == "mailto:bob@example.com"
    assert (attendee.params["ROLE"], attendee.params["PARTSTAT"]) == ("CHAIR", "ACCEPTED")


def test_nobody_known_writes_a_request_without_people_and_says_so(
    cals: dict[str, Path],
) -> None:
    out = cals["tmp"] / "meeting.ics"
    result = run(
        "find-slot",
        *("--ics", cals["nobody"], "--between", WINDOW, "--tz", "Europe/Berlin"),
        *("--duration", "45m", "--ics-out", out, "--at", AT),
    )
    assert result.exit_code == 0, result.output
    calendar = Calendar.from_ical(out.read_bytes())
    (event,) = calendar.walk("VEVENT")
    assert str(calendar["METHOD"]) == "REQUEST"
    assert "ORGANIZER" not in event and "ATTENDEE" not in event
    assert "no organizer or attendee is known" in result.stderr
    start = datetime(2026, 10, 5, 8, tzinfo=UTC)  # 10:00 Berlin, after the gym
    assert event.start == start and event.end == start + timedelta(minutes=45)
