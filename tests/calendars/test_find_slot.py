"""find-slot and freebusy over real iCalendar text, with answers worked out by hand."""

from __future__ import annotations

import json
from datetime import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

import cerebri
from cerebri.calendars import SlotQuery, find_slot, freebusy
from cerebri.calendars.options import (
    parse_duration,
    parse_window,
    parse_working_days,
    parse_working_hours,
)
from cerebri.cli import app
from cerebri.ics import parse_calendar
from cerebri.temporal import Instant

ALICE = """BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//cerebri tests//EN
BEGIN:VEVENT
UID:standup@alice
DTSTART;TZID=Europe/Berlin:20261005T093000
DTEND;TZID=Europe/Berlin:20261005T094500
RRULE:FREQ=DAILY;COUNT=5
SUMMARY:Standup
END:VEVENT
BEGIN:VEVENT
UID:review@alice
DTSTART:20261005T120000Z
DTEND:20261005T130000Z
SUMMARY:Review
END:VEVENT
END:VCALENDAR
"""

BOB = """BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//cerebri tests//EN
BEGIN:VEVENT
UID:focus@bob
DTSTART;TZID=Europe/Berlin:20261005T100000
DTEND;TZID=Europe/Berlin:20261005T120000
SUMMARY:Focus time
END:VEVENT
END:VCALENDAR
"""

# Carol only publishes free/busy for 10:00-14:00Z, busy 10:00-10:30Z.
CAROL = """BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//cerebri tests//EN
BEGIN:VFREEBUSY
UID:fb@carol
DTSTAMP:20261001T000000Z
DTSTART:20261005T100000Z
DTEND:20261005T140000Z
FREEBUSY;FBTYPE=BUSY:20261005T100000Z/20261005T103000Z
END:VFREEBUSY
END:VCALENDAR
"""

Z = "2026-10-05T"


def _calendars(*texts: tuple[str, str]) -> list[tuple[str, object]]:
    return [(name, parse_calendar(text, source=name)) for name, text in texts]


def _query(**changes: object) -> SlotQuery:
    start, end = parse_window("2026-10-05T08:00/2026-10-05T18:00", "Europe/Berlin")
    fields: dict[str, object] = {
        "window_start": start,
        "window_end": end,
        "duration_seconds": 1800,
        "granularity_seconds": 900,
        "zone": "Europe/Berlin",
        "working_hours": (time(9), time(17)),
        "buffer_seconds": 600,
    }
    fields.update(changes)
    return SlotQuery(**fields)  # type: ignore[arg-type]


def test_two_attendees_working_hours_and_buffer() -> None:
    # Local (Berlin, UTC+2): standup 09:30-09:45, focus 10:00-12:00, review 14:00-15:00.
    # With a 10-minute buffer inside 09:00-17:00 the feasible local starts are
    # 12:15-13:15 and 15:15-16:30 (16:30 ends 17:00 sharp); 39 grid starts 08:00-17:30.
    request, result = find_slot(_calendars(("alice", ALICE), ("bob", BOB)), _query())
    wire = result.to_wire()
    starts = [c["start"] for c in wire["candidates"]]
    utc = [
        "10:15",
        "10:30",
        "10:45",
        "11:00",
        "11:15",
        "13:15",
        "13:30",
        "13:45",
        "14:00",
        "14:15",
        "14:30",
    ]
    assert starts == [f"{Z}{hm}:00Z" for hm in utc]
    assert wire["search_space"]["evaluated"] == 39
    assert wire["outcome"] == "Solution"
    # The request is plain CPIR: planning it again gives the same bytes.
    replay = cerebri.plan(json.dumps(request), limits=cerebri.calendars.FIND_SLOT_LIMITS)
    assert json.dumps(replay.to_wire()) == json.dumps(wire)


def test_preference_ranks_nearest_first() -> None:
    _, result = find_slot(_calendars(("alice", ALICE), ("bob", BOB)), _query(prefer=time(15, 0)))
    firsts = [c["start"] for c in result.to_wire()["candidates"][:3]]
    # 15:00 local is 13:00Z; nearest feasible: 13:15Z (900 s), then 13:30Z, then 11:15Z/13:45Z.
    assert firsts[:2] == [f"{Z}13:15:00Z", f"{Z}13:30:00Z"]


def test_unobserved_time_is_never_offered() -> None:
    calendars = _calendars(("carol", CAROL))
    _, result = find_slot(calendars, _query(working_hours=None, buffer_seconds=0))
    starts = [c["start"][11:16] for c in result.to_wire()["candidates"]]
    # Only 10:30-14:00Z is observed and free: starts 10:30 … 13:30Z.
    assert starts == [
        "10:30",
        "10:45",
        "11:00",
        "11:15",
        "11:30",
        "11:45",
        "12:00",
        "12:15",
        "12:30",
        "12:45",
        "13:00",
        "13:15",
        "13:30",
    ]


def test_freebusy_view_partitions_the_window() -> None:
    calendars = [c for _, c in _calendars(("alice", ALICE), ("carol", CAROL))]
    start, end = Instant.parse(f"{Z}08:00:00Z"), Instant.parse(f"{Z}16:00:00Z")
    view = freebusy(calendars, start, end, floating_zone="Europe/Berlin")
    assert [(p.uid, p.recurrence_id) for p in view.busy] == [
        ("fb@carol", None),
        ("review@alice", None),
    ]
    assert [(Instant(i.start).format(), Instant(i.end).format()) for i in view.unknown] == [
        (f"{Z}08:00:00Z", f"{Z}10:00:00Z"),
        (f"{Z}14:00:00Z", f"{Z}16:00:00Z"),
    ]
    assert [(Instant(i.start).format(), Instant(i.end).format()) for i in view.free] == [
        (f"{Z}10:30:00Z", f"{Z}12:00:00Z"),
        (f"{Z}13:00:00Z", f"{Z}14:00:00Z"),
    ]


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("90", 90), ("45s", 45), ("30m", 1800), ("1h30m", 5400), ("2d", 172_800), ("PT1H30M", 5400)],
)
def test_durations(text: str, seconds: int) -> None:
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("text", ["", "0", "0m", "30x", "m", "-5m", "1.5s", "500ms"])
def test_bad_durations(text: str) -> None:
    with pytest.raises(ValueError, match="duration"):
        parse_duration(text)


def test_window_and_hours_parsing() -> None:
    start, end = parse_window("2026-10-05T08:00/2026-10-05T18:00Z", "Europe/Berlin")
    assert (start.format(), end.format()) == (f"{Z}06:00:00Z", f"{Z}18:00:00Z")
    assert parse_working_hours("09:00-17:30") == (time(9), time(17, 30))
    for bad in ("2026-10-05", "2026-10-05T18:00/2026-10-05T08:00", "x/y"):
        with pytest.raises(ValueError, match=r"window|date-time"):
            parse_window(bad, "UTC")
    with pytest.raises(ValueError, match="working hours"):
        parse_working_hours("17:00-09:00")


def test_cli_find_slot_json_emit_and_errors(tmp_path: Path) -> None:
    (tmp_path / "alice.ics").write_text(ALICE, encoding="utf-8")
    (tmp_path / "bob.ics").write_text(BOB, encoding="utf-8")
    runner = CliRunner()
    common = [
        "find-slot",
        "--ics",
        str(tmp_path / "alice.ics"),
        "--ics",
        str(tmp_path / "bob.ics"),
        "--duration",
        "30m",
        "--between",
        "2026-10-05T08:00/2026-10-05T18:00",
        "--tz",
        "Europe/Berlin",
        "--working-hours",
        "09:00-17:00",
        "--buffer",
        "10m",
    ]
    table = runner.invoke(app, common)
    assert table.exit_code == 0, table.output
    assert "Focus time (focus@bob)" in table.output
    emitted = runner.invoke(app, [*common, "--emit-request"])
    result = runner.invoke(app, [*common, "--json"])
    replay = cerebri.plan(emitted.stdout, limits=cerebri.calendars.FIND_SLOT_LIMITS)
    answered = json.loads(result.stdout)
    assert answered.pop("warnings") == []  # clean calendars: nothing noticed
    assert answered == replay.to_wire()
    bad = runner.invoke(app, [*common[:-2], "--buffer", "ten minutes"])
    assert bad.exit_code == 2
    assert bad.stderr.startswith("error input.invalid_option: --buffer: cannot read duration")
    zone = runner.invoke(
        app,
        [
            "freebusy",
            "--ics",
            str(tmp_path / "bob.ics"),
            "--between",
            "2026-10-05T08:00/2026-10-05T18:00",
            "--tz",
            "Mars/Olympus",
        ],
    )
    assert zone.exit_code == 2
    assert "input.invalid_option" in zone.stderr
    missing = runner.invoke(app, ["freebusy", "--between", "2026-10-05T08:00/2026-10-05T18:00"])
    assert (missing.exit_code, missing.stderr.split(":")[0]) == (2, "error input.missing")


def test_cli_freebusy_json(tmp_path: Path) -> None:
    (tmp_path / "alice.ics").write_text(ALICE, encoding="utf-8")
    runner = CliRunner()
    out = runner.invoke(
        app,
        [
            "freebusy",
            "--ics",
            str(tmp_path / "alice.ics"),
            "--between",
            "2026-10-06T00:00Z/2026-10-07T00:00Z",
            "--tz",
            "Europe/Berlin",
            "--json",
        ],
    )
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert [(b["uid"], b["recurrence_id"], b["start"]) for b in data["busy"]] == [
        ("standup@alice", "20261006T073000Z", "2026-10-06T07:30:00Z")
    ]
    assert data["busy"][0]["local_start"] == "2026-10-06T09:30:00+02:00"
    assert data["unknown"] == []


def _one_event(uid: str, start: str, end: str, sequence: int = 0) -> str:
    return (
        "BEGIN:VCALENDAR\nVERSION:2.0\nPRODID:-//cerebri tests//EN\nBEGIN:VEVENT\n"
        f"UID:{uid}\nDTSTAMP:20261001T000000Z\nSEQUENCE:{sequence}\n"
        f"DTSTART:{start}\nDTEND:{end}\nEND:VEVENT\nEND:VCALENDAR\n"
    )


def _starts(result: cerebri.PlanningResult) -> list[str]:
    return [c["start"][11:16] for c in result.to_wire()["candidates"]]


def _utc_query(start: str, end: str, **changes: object) -> SlotQuery:
    fields: dict[str, object] = {
        "window_start": Instant.parse(f"{Z}{start}:00Z"),
        "window_end": Instant.parse(f"{Z}{end}:00Z"),
        "duration_seconds": 1800,
        "granularity_seconds": 900,
    }
    fields.update(changes)
    return SlotQuery(**fields)  # type: ignore[arg-type]


def test_same_event_in_two_calendars_blocks_the_union_in_any_order() -> None:
    short = _one_event("same@x", "20261005T100000Z", "20261005T110000Z", 0)
    long = _one_event("same@x", "20261005T100000Z", "20261005T120000Z", 1)
    query = _utc_query("10:00", "13:00")
    forward = find_slot(_calendars(("a", short), ("b", long)), query)[1]
    backward = find_slot(_calendars(("b", long), ("a", short)), query)[1]
    assert _starts(forward) == _starts(backward) == ["12:00", "12:15", "12:30"]


def test_buffer_sees_events_just_outside_the_window() -> None:
    # An event ends at 12:55Z, five minutes before the window; with a 10-minute buffer the
    # first acceptable start is 13:05, so on a 15-minute grid 13:15.
    edge = _one_event("edge@x", "20261005T120000Z", "20261005T125500Z")
    _, result = find_slot(_calendars(("a", edge)), _utc_query("13:00", "14:00", buffer_seconds=600))
    assert _starts(result) == ["13:15", "13:30"]


def test_published_availability_closes_the_rest_of_its_range() -> None:
    # Available only 08:00-10:00Z on 2026-10-05 inside a VAVAILABILITY for 10-05..10-07.
    text = (
        "BEGIN:VCALENDAR\nVERSION:2.0\nPRODID:-//cerebri tests//EN\nBEGIN:VAVAILABILITY\n"
        "UID:av@x\nDTSTAMP:20261001T000000Z\nDTSTART:20261005T000000Z\nDTEND:20261007T000000Z\n"
        "BUSYTYPE:BUSY-UNAVAILABLE\nBEGIN:AVAILABLE\nUID:av-1@x\nDTSTAMP:20261001T000000Z\n"
        "DTSTART:20261005T080000Z\nDTEND:20261005T100000Z\nEND:AVAILABLE\nEND:VAVAILABILITY\n"
        "END:VCALENDAR\n"
    )
    calendars = _calendars(("a", text))
    _, result = find_slot(calendars, _utc_query("06:00", "12:00"))
    assert _starts(result) == ["08:00", "08:15", "08:30", "08:45", "09:00", "09:15", "09:30"]
    view = freebusy(
        [c for _, c in calendars], Instant.parse(f"{Z}06:00:00Z"), Instant.parse(f"{Z}12:00:00Z")
    )
    assert [
        (Instant(i.start).format()[11:16], Instant(i.end).format()[11:16]) for i in view.free
    ] == [("08:00", "10:00")]


def test_working_hours_hold_even_when_the_buffer_swallows_the_night() -> None:
    # Working 01:00-23:00 UTC with a 2 h buffer: the 2 h night would shrink to nothing, so it
    # blocks whole and no start before 01:00 or ending after 23:00 is offered.
    empty = _one_event("far@x", "20261010T100000Z", "20261010T110000Z")
    query = _utc_query(
        "00:00",
        "23:59",
        working_hours=(time(1), time(23)),
        buffer_seconds=7200,
        granularity_seconds=1800,
        zone="UTC",
    )
    starts = _starts(find_slot(_calendars(("a", empty)), query)[1])
    assert starts[0] >= "01:00"
    assert starts[-1] <= "22:30"
    assert "00:00" not in starts and "23:00" not in starts


def test_default_budget_covers_a_quarter_on_a_quarter_hour_grid() -> None:
    # An all-day absence until 2026-11-25 in a window to 2026-12-31: slots after it exist.
    away = _one_event("away@x", "20261005T000000Z", "20261125T000000Z")
    query = SlotQuery(Instant.parse(f"{Z}00:00:00Z"), Instant.parse("2026-12-31T00:00:00Z"), 3600)
    _, result = find_slot(_calendars(("a", away)), query)
    wire = result.to_wire()
    assert wire["outcome"] == "Solution"
    assert wire["candidates"][0]["start"] == "2026-11-25T00:00:00Z"
    assert wire["search_space"]["exhausted"] is True


def test_emitted_request_replays_with_local_limits(tmp_path: Path) -> None:
    (tmp_path / "alice.ics").write_text(ALICE, encoding="utf-8")
    runner = CliRunner()
    common = [
        "find-slot",
        "--ics",
        str(tmp_path / "alice.ics"),
        "--duration",
        "30m",
        "--between",
        "2026-10-05T00:00/2026-10-08T00:00",
        "--tz",
        "Europe/Berlin",
    ]
    request = tmp_path / "request.json"
    request.write_text(runner.invoke(app, [*common, "--emit-request"]).stdout, encoding="utf-8")
    direct = runner.invoke(app, [*common, "--json"]).stdout
    replay = runner.invoke(app, ["plan", "--limits", "local", str(request)])
    assert replay.exit_code == 0
    answered = json.loads(direct)
    assert answered.pop("warnings") == []  # the only key find-slot adds to the result
    assert json.loads(replay.stdout) == answered
    # The emitted request asks for 100 000 positions, beyond the reference service limits.
    refused = json.loads(runner.invoke(app, ["plan", str(request)]).stdout)
    assert refused["validation"]["issues"] == ["InputLimit"]


def test_temporal_schema_describes_the_temporal_command(tmp_path: Path) -> None:
    import jsonschema

    runner = CliRunner()
    schema = json.loads(runner.invoke(app, ["schema", "--temporal"]).stdout)
    request = {
        "horizon": {"start": "2026-03-28T00:00:00Z", "end": "2026-03-31T00:00:00Z"},
        "busy": [],
        "coverage": "Complete",
        "recurrences": [
            {
                "start_date": "2026-03-28",
                "local_time": "02:30:00",
                "timezone": "Europe/Berlin",
                "duration": 1800,
                "pattern": {"frequency": "DAILY", "every": 1},
                "gap_policy": "Skip",
                "fold_policy": "Earlier",
            }
        ],
        "limits": {"max_occurrences": 10, "max_dates": 10},
    }
    jsonschema.Draft202012Validator(schema).validate(request)
    path = tmp_path / "temporal.json"
    path.write_text(json.dumps(request), encoding="utf-8")
    out = json.loads(runner.invoke(app, ["temporal", str(path)]).stdout)
    # 02:30 Berlin: 03-28 is 01:30Z, 03-29 does not exist (skipped), 03-30 is 00:30Z.
    expansion = out["data"]["expansions"][0]
    assert [o["range"]["start"] for o in expansion["occurrences"]] == [
        "2026-03-28T01:30:00Z",
        "2026-03-30T00:30:00Z",
    ]
    assert expansion["skipped"] == [
        {"sequence": 2, "date": "2026-03-29", "reason": "NonexistentLocalTime"}
    ]


@pytest.mark.parametrize(
    ("text", "days"),
    [
        ("Mon-Fri", {0, 1, 2, 3, 4}),
        ("mon,wed,FRI", {0, 2, 4}),
        ("Fri-Mon", {4, 5, 6, 0}),
        ("Sunday", {6}),
    ],
)
def test_working_days(text: str, days: set[int]) -> None:
    assert parse_working_days(text) == frozenset(days)


def test_bad_working_days() -> None:
    with pytest.raises(ValueError, match="working days"):
        parse_working_days("Mon-Funday")


def test_weekend_is_closed_with_working_days() -> None:
    # 2026-10-09 is a Friday. Mon-Fri 09:00-17:00 UTC: the last Friday start is 16:30 and
    # the next is Monday 2026-10-12 09:00.
    empty = _one_event("far@x", "20260101T100000Z", "20260101T110000Z")
    query = SlotQuery(
        Instant.parse("2026-10-09T15:00:00Z"),
        Instant.parse("2026-10-12T10:00:00Z"),
        1800,
        working_hours=(time(9), time(17)),
        working_days=frozenset(range(5)),
    )
    starts = [
        c["start"] for c in find_slot(_calendars(("a", empty)), query)[1].to_wire()["candidates"]
    ]
    assert starts == [
        "2026-10-09T15:00:00Z",
        "2026-10-09T15:15:00Z",
        "2026-10-09T15:30:00Z",
        "2026-10-09T15:45:00Z",
        "2026-10-09T16:00:00Z",
        "2026-10-09T16:15:00Z",
        "2026-10-09T16:30:00Z",
        "2026-10-12T09:00:00Z",
        "2026-10-12T09:15:00Z",
        "2026-10-12T09:30:00Z",
    ]
