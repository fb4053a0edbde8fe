"""find-slot on the command line: daily --prefer, optional attendees, --min-attendance and
the replay of --emit-request. Calendars are written with the icalendar library; expected
values are worked out in each test."""

from __future__ import annotations

import json
from datetime import datetime, time
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from icalendar import Calendar, Event, FreeBusy
from typer.testing import CliRunner

import cerebri
from cerebri.calendars import FIND_SLOT_LIMITS, ImportedCalendars, SlotQuery
from cerebri.cli import app
from cerebri.errors import InvalidArgumentError
from cerebri.temporal import Instant

BERLIN = ZoneInfo("Europe/Berlin")
UTC = ZoneInfo("UTC")


def local(day: int, hour: int, minute: int = 0) -> datetime:
    return datetime(2026, 10, day, hour, minute, tzinfo=BERLIN)


def write(path: Path, events: list[tuple[datetime, datetime]]) -> Path:
    cal = Calendar()
    cal.add("prodid", "-//cerebri tests//EN")
    cal.add("version", "2.0")
    for index, (start, end) in enumerate(events):
        event = Event()
        event.add("uid", f"{path.stem}-{index}@test")
        event.add("dtstamp", datetime(2026, 1, 1, tzinfo=UTC))
        event.add("dtstart", start)
        event.add("dtend", end)
        event.add("summary", f"busy {index}")
        cal.add_component(event)
    path.write_bytes(cal.to_ical())
    return path


def utc_text(moment: datetime) -> str:
    return Instant.from_datetime(moment).format()


WEEK = ["--between", "2026-10-05T09:00/2026-10-09T17:00", "--tz", "Europe/Berlin"]
HOURS = ["--working-hours", "09:00-17:00", "--duration", "30m"]


def run(*args: str | Path) -> tuple[int, str, str]:
    outcome = CliRunner().invoke(app, ["find-slot", *map(str, args)])
    return outcome.exit_code, outcome.stdout, outcome.stderr


def test_prefer_ranks_the_free_wednesday_first(tmp_path: Path) -> None:
    # Alice is busy Monday 09:00-14:15 and all Tuesday; Bob is busy Monday 10:00-12:00.
    alice = write(
        tmp_path / "alice.ics", [(local(5, 9), local(5, 14, 15)), (local(6, 9), local(6, 17))]
    )
    bob = write(tmp_path / "bob.ics", [(local(5, 10), local(5, 12))])
    code, out, err = run("--ics", alice, "--ics", bob, *WEEK, *HOURS, "--prefer", "10:30", "--json")
    assert code == 0, err
    answer = json.loads(out)
    starts = [c["start"] for c in answer["candidates"]]
    assert starts[:3] == [
        utc_text(local(7, 10, 30)),
        utc_text(local(8, 10, 30)),
        utc_text(local(9, 10, 30)),
    ]
    assert utc_text(local(5, 14, 15)) in starts  # free, but far from any day's 10:30
    assert [s["preference_distance_seconds"] for s in answer["slots"][:4]] == [0, 0, 0, 900]
    table = run("--ics", alice, "--ics", bob, *WEEK, *HOURS, "--prefer", "10:30", "--top", "4")
    assert table[0] == 0
    rows = _rows(table[1])
    assert [row[3] for row in rows] == [local(7, 10, 30).strftime("%Y-%m-%d %H:%M:%S %z")] + [
        datetime.fromisoformat(s.replace("Z", "+00:00"))
        .astimezone(BERLIN)
        .strftime("%Y-%m-%d %H:%M:%S %z")
        for s in starts[1:4]
    ]
    # One table: the daily-preference distance stands where the planner's cost was.
    assert [row[4] for row in rows] == ["0", "0", "0", "900"]
    assert "Ranked candidates (" in table[1]
    assert ") by the daily preference, then the start" in table[1]
    assert "cost" not in table[1]
    assert "optional" not in table[1]
    assert "preferred start" not in table[1]


def _rows(stdout: str) -> list[list[str]]:
    """The cells of the candidates table's rows, wrapped cells joined with a space."""
    rows: list[list[str]] = []
    for line in stdout.splitlines():
        if not line.startswith("│"):
            continue
        cells = [cell.strip() for cell in line.strip("│").split("│")]
        if cells[0].isdigit():
            rows.append(cells)
        elif rows and not cells[0]:
            rows[-1] = [" ".join(filter(None, pair)) for pair in zip(rows[-1], cells, strict=True)]
    return rows


def test_without_ranking_options_the_planner_cost_is_shown(tmp_path: Path) -> None:
    alice = write(tmp_path / "alice.ics", [(local(5, 9), local(5, 14, 15))])
    code, out, err = run("--ics", alice, *WEEK, *HOURS, "--top", "2")
    assert code == 0, err
    assert "cost s" in out
    assert "cost = seconds from the preferred start" in out
    assert " by " not in next(line for line in out.splitlines() if "Ranked candidates" in line)


def test_optional_attendee_free_ranks_first_and_min_attendance_filters(tmp_path: Path) -> None:
    # Required Alice is free all week; optional Carol is busy every day except Thursday
    # 09:00-17:00; optional Dan publishes free/busy for Monday-Tuesday only.
    alice = write(tmp_path / "alice.ics", [])
    carol = write(tmp_path / "carol.ics", [(local(d, 9), local(d, 17)) for d in (5, 6, 7, 9)])
    dan = tmp_path / "dan.ics"
    cal = Calendar()
    cal.add("prodid", "-//cerebri tests//EN")
    cal.add("version", "2.0")
    fb = FreeBusy()
    fb.add("uid", "fb@dan")
    fb.add("dtstamp", datetime(2026, 1, 1, tzinfo=UTC))
    fb.add("dtstart", local(5, 0).astimezone(UTC))
    fb.add("dtend", local(7, 0).astimezone(UTC))
    cal.add_component(fb)
    dan.write_bytes(cal.to_ical())
    common = ["--ics", alice, "--optional-ics", carol, "--optional-ics", dan, *WEEK, *HOURS]
    code, out, err = run(*common, "--prefer", "10:30", "--json")
    assert code == 0, err
    answer = json.loads(out)
    # One optional attendee free at each day's 10:30: Monday and Tuesday Dan (observed, no
    # busy time; Carol busy), Thursday Carol (Dan's calendar says nothing about Thursday).
    top = answer["slots"][:3]
    assert [s["start"] for s in top] == [utc_text(local(d, 10, 30)) for d in (5, 6, 8)]
    assert [(s["optional_free"], s["optional_busy"], s["optional_unknown"]) for s in top] == [
        (["dan"], ["carol"], []),
        (["dan"], ["carol"], []),
        (["carol"], [], ["dan"]),
    ]
    # Every slot with one optional attendee free ranks before every slot with none.
    counts = [len(s["optional_free"]) for s in answer["slots"]]
    assert counts == sorted(counts, reverse=True)
    assert [c["start"] for c in answer["candidates"]] == [s["start"] for s in answer["slots"]]
    code, out, err = run(*common, "--prefer", "10:30", "--top", "3")
    assert code == 0, err
    assert "by optional attendees free, then the daily preference, then the start" in out
    rows = _rows(out)
    assert [row[4:7] for row in rows] == [
        [
            str(s["preference_distance_seconds"]),
            ", ".join(s["optional_free"]) or "-",
            ", ".join([*s["optional_busy"], *(f"{n} (unknown)" for n in s["optional_unknown"])])
            or "-",
        ]
        for s in top
    ]
    # 2 of 3 attendees (0.67) must be free: only slots where Carol or Dan is free remain.
    code, out, err = run(*common, "--min-attendance", "0.6", "--json")
    assert code == 0, err
    kept = json.loads(out)
    assert kept["slots"] and all(len(s["optional_free"]) >= 1 for s in kept["slots"])
    dropped = kept["below_min_attendance"]
    assert dropped and all(s["optional_free"] == [] for s in dropped)
    assert len(kept["slots"]) + len(dropped) == len(answer["slots"])
    # Everyone (1.0): no slot has Carol and Dan free together.
    code, out, _ = run(*common, "--min-attendance", "1", "--json")
    nobody = json.loads(out)
    assert (nobody["outcome"], nobody["candidates"]) == ("NoSolution", [])


def test_emit_request_replay_reproduces_the_answer(tmp_path: Path) -> None:
    alice = write(tmp_path / "alice.ics", [(local(5, 10), local(5, 11))])
    carol = write(tmp_path / "carol.ics", [(local(5, 9), local(5, 17))])
    common = ["--ics", alice, "--optional-ics", carol, *WEEK, *HOURS, "--prefer", "10:30"]
    code, emitted, err = run(*common, "--emit-request")
    assert code == 0, err
    answer = json.loads(run(*common, "--json")[1])
    replay = cerebri.plan(emitted, limits=FIND_SLOT_LIMITS).to_wire()
    by_id = {c["proposed"]["id"]: c for c in replay["candidates"]}
    # Same candidates, byte for byte, and the same first choice.
    assert sorted(by_id) == sorted(c["proposed"]["id"] for c in answer["candidates"])
    assert replay["candidates"][0] == answer["candidates"][0]
    # find-slot's order: the replay's candidates sorted by (-optional free, distance, start).
    slots = {s["start"]: s for s in answer["slots"]}
    resorted = sorted(
        replay["candidates"],
        key=lambda c: (
            -len(slots[c["start"]]["optional_free"]),
            slots[c["start"]]["preference_distance_seconds"],
            c["start"],
        ),
    )
    assert resorted == answer["candidates"]
    # Carol is busy all Monday, so Tuesday 10:30 (both free, distance 0) comes first.
    assert answer["candidates"][0]["start"] == utc_text(local(6, 10, 30))


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--prefer", "10:30", "--prefer-earliest"], "--prefer and --prefer-earliest"),
        (["--prefer-between", "10:00-12:00", "--prefer-latest"], "are alternatives"),
        (["--prefer-between", "12:00-10:00"], "--prefer-between"),
        (["--min-attendance", "80"], "0.8 for 80 %"),
        (["--min-attendance", "lots"], "--min-attendance"),
    ],
)
def test_bad_preference_options_are_typed_errors(
    tmp_path: Path, extra: list[str], message: str
) -> None:
    alice = write(tmp_path / "alice.ics", [])
    code, _, err = run("--ics", alice, *WEEK, *HOURS, *extra)
    assert code == 2
    assert err.startswith("error input.invalid_option")
    assert message in err


def test_optional_ids_must_differ_from_required_ones(tmp_path: Path) -> None:
    cal = Calendar()
    imported = ImportedCalendars([("alice", cal)])
    query = SlotQuery(
        Instant.parse("2026-10-05T00:00:00Z"),
        Instant.parse("2026-10-06T00:00:00Z"),
        1800,
        prefer=time(10),
    )
    with pytest.raises(InvalidArgumentError) as caught:
        imported.find_slot(query, optional=[("alice", Calendar())])
    assert caught.value.code == "calendars.invalid_argument"
    # Another file with the same name gets a distinct id on the command line: the
    # shortest path suffix the two do not share (docs/decisions/0037).
    path = write(tmp_path / "alice.ics", [])
    (tmp_path / "other").mkdir()
    other = write(tmp_path / "other" / "alice.ics", [])
    code, out, err = run("--ics", path, "--optional-ics", other, *WEEK, *HOURS, "--json")
    assert code == 0, err
    assert json.loads(out)["slots"][0]["optional_free"] == ["other.alice"]
    # The same file twice is one person: refused, naming both options.
    code, out, err = run("--ics", path, "--optional-ics", path, *WEEK, *HOURS, "--json")
    assert (code, out) == (2, "")
    assert err.startswith("error input.invalid_option: --ics ")
    assert f"--optional-ics {path} name the same calendar" in err
