"""Answers over calendars read with ``skip_invalid_events``: the unreadable event is left
out, the answers list it among their warnings, and claim neither optimality nor
completeness (docs/decisions/0014-lenient-reading.md)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from cerebri.calendars import ImportedCalendars, SlotQuery, find_slot, freebusy
from cerebri.cli import app
from cerebri.cpir import Assessment
from cerebri.ics import parse_calendar
from cerebri.temporal import Instant

GOOD = """BEGIN:VEVENT
UID:busy
DTSTAMP:20260101T000000Z
DTSTART:20261005T090000Z
DTEND:20261005T100000Z
SUMMARY:Standup
END:VEVENT"""
BROKEN = """BEGIN:VEVENT
UID:broken
DTSTAMP:20260101T000000Z
DTSTART:NOT-A-DATE
SUMMARY:Broken
END:VEVENT"""
# Lines: 1 BEGIN:VCALENDAR, 2 VERSION, 3 PRODID, 4-10 GOOD, 11-16 BROKEN (DTSTART on 14).


def text(*events: str) -> str:
    lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//cerebri//tests//EN"]
    for event in events:
        lines += event.splitlines()
    return "\r\n".join([*lines, "END:VCALENDAR"]) + "\r\n"


START = Instant.parse("2026-10-05T09:00:00Z")
END = Instant.parse("2026-10-05T12:00:00Z")
QUERY = SlotQuery(START, END, duration_seconds=3600, granularity_seconds=3600)


def test_find_slot_over_a_skipped_event_is_best_found_with_the_warning() -> None:
    skipped = parse_calendar(text(GOOD, BROKEN), source="a.ics", skip_invalid_events=True)
    clean = parse_calendar(text(GOOD), source="a.ics")
    answer = find_slot([("a", skipped)], QUERY)
    reference = find_slot([("a", clean)], QUERY)
    request, result = answer  # still unpacks as (request, result)
    # The standup 09:00-10:00 stays busy: candidates start at 10:00 and 11:00.
    assert [c.start.format() for c in result.candidates] == [
        "2026-10-05T10:00:00Z",
        "2026-10-05T11:00:00Z",
    ]
    assert request == reference.request
    assert result.candidates == reference.result.candidates
    assert reference.complete is True
    assert reference.result.assessment is not Assessment.BEST_FOUND  # the claim dropped below
    assert result.assessment is Assessment.BEST_FOUND
    assert answer.complete is False
    assert [(w.code, w.uid, w.line, w.source) for w in answer.warnings] == [
        ("ics.skipped_event", "broken", 14, "a.ics")
    ]
    assert reference.warnings == ()


def test_imported_calendars_and_freebusy_expose_warnings_and_completeness() -> None:
    skipped = parse_calendar(text(GOOD, BROKEN), source="a.ics", skip_invalid_events=True)
    imported = ImportedCalendars([("a", skipped)])
    assert imported.complete is False
    assert [w.uid for w in imported.warnings] == ["broken"]
    answer = imported.find_slot(QUERY)
    assert answer.result.assessment is Assessment.BEST_FOUND
    assert answer == find_slot([("a", skipped)], QUERY)
    view = freebusy([skipped], START, END)
    assert view.complete is False
    assert [w.code for w in view.warnings] == ["ics.skipped_event"]
    assert [(p.uid, p.start, p.end) for p in view.busy] == [
        ("busy", START, Instant.parse("2026-10-05T10:00:00Z"))
    ]
    clean = freebusy([parse_calendar(text(GOOD))], START, END)
    assert (clean.complete, clean.warnings) == (True, ())


def _files(tmp_path: Path) -> list[str]:
    path = tmp_path / "team.ics"
    path.write_text(text(GOOD, BROKEN), encoding="utf-8")
    return ["--ics", str(path), "--between", "2026-10-05T09:00/2026-10-05T12:00"]


def test_cli_refuses_by_default_naming_uid_line_and_the_option(tmp_path: Path) -> None:
    runner = CliRunner()
    for command in (["find-slot", "--duration", "1h"], ["freebusy"]):
        refused = runner.invoke(app, [*command, *_files(tmp_path)])
        assert refused.exit_code == 2
        assert refused.stderr.startswith("error ics.syntax: DTSTART could not be read")
        assert "team.ics:14, UID 'broken'" in refused.stderr
        assert "--skip-invalid-events" in refused.stderr


def test_cli_find_slot_with_skip(tmp_path: Path) -> None:
    runner = CliRunner()
    common = ["find-slot", "--duration", "1h", "--granularity", "1h", *_files(tmp_path)]
    as_json = runner.invoke(app, [*common, "--skip-invalid-events", "--json"])
    assert as_json.exit_code == 0, as_json.output
    wire = json.loads(as_json.stdout)
    assert wire["assessment"] == "BestFound"
    assert [c["start"] for c in wire["candidates"]] == [
        "2026-10-05T10:00:00Z",
        "2026-10-05T11:00:00Z",
    ]
    (warning,) = wire["warnings"]
    assert (warning["code"], warning["uid"], warning["line"]) == ("ics.skipped_event", "broken", 14)
    assert warning["source"].endswith("team.ics")
    assert warning["message"].startswith("ics.syntax: DTSTART could not be read")
    table = runner.invoke(app, [*common, "--skip-invalid-events"])
    assert table.exit_code == 0
    assert "warnings (1):" in table.stderr
    assert "ics.skipped_event" in table.stderr
    assert "incomplete:" in table.stderr


def test_cli_freebusy_with_skip(tmp_path: Path) -> None:
    runner = CliRunner()
    shown = runner.invoke(app, ["freebusy", *_files(tmp_path), "--skip-invalid-events", "--json"])
    assert shown.exit_code == 0, shown.output
    wire = json.loads(shown.stdout)
    assert wire["complete"] is False
    assert [(w["code"], w["uid"]) for w in wire["warnings"]] == [("ics.skipped_event", "broken")]
    assert [b["uid"] for b in wire["busy"]] == ["busy"]
    assert [(f["start"], f["end"]) for f in wire["free"]] == [
        ("2026-10-05T10:00:00Z", "2026-10-05T12:00:00Z")
    ]
    table = runner.invoke(app, ["freebusy", *_files(tmp_path), "--skip-invalid-events"])
    assert table.exit_code == 0
    assert "incomplete:" in table.stderr


def test_cli_emit_request_over_incomplete_calendars_says_a_replay_cannot_know(
    tmp_path: Path,
) -> None:
    runner = CliRunner()
    common = ["find-slot", "--duration", "1h", "--granularity", "1h", *_files(tmp_path)]
    emitted = runner.invoke(app, [*common, "--skip-invalid-events", "--emit-request"])
    # The request is printed (stdout stays one JSON document) but the exit status is
    # EXIT_INCOMPLETE and stderr says the request does not carry the incompleteness.
    assert emitted.exit_code == 3
    request = json.loads(emitted.stdout)
    assert request["schema_version"] == {"major": 0, "minor": 2}
    assert "ics.skipped_event" in emitted.stderr
    assert "the request cannot record it" in emitted.stderr
    assert "cerebri plan" in emitted.stderr
    (tmp_path / "clean").mkdir()
    clean = tmp_path / "clean" / "team.ics"
    clean.write_text(text(GOOD), encoding="utf-8")
    window = "2026-10-05T09:00/2026-10-05T12:00"
    options = ["--duration", "1h", "--granularity", "1h", "--between", window]
    complete = runner.invoke(app, ["find-slot", *options, "--ics", str(clean), "--emit-request"])
    assert complete.exit_code == 0
    assert complete.stderr == ""
    # The same request either way: the left-out event is simply missing from it.
    assert json.loads(complete.stdout) == request
