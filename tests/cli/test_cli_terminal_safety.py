"""Text from inputs (calendar summaries, draft members) cannot drive the terminal: Rich markup
is printed as written and control characters are escaped."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from cerebri.cli import app
from cerebri.cli._app import printable

runner = CliRunner()
MARKUP = "[/red][bold red]APPROVED[/] [link=http://evil.example]click[/link]"
ESC = "\x1b[2J\x1b[31m"


def _ics(tmp_path: Path, summary: str) -> Path:
    path = tmp_path / "cal.ics"
    path.write_text(
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nBEGIN:VEVENT\r\nUID:u1\r\n"
        "DTSTAMP:20260101T000000Z\r\nDTSTART:20261005T090000Z\r\nDTEND:20261005T100000Z\r\n"
        f"SUMMARY:{summary}\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n",
        encoding="utf-8",
    )
    return path


def test_printable_escapes_only_what_is_not_text() -> None:
    assert printable("Größe ☕ a/b [x]") == "Größe ☕ a/b [x]"
    assert printable("a\x1b[31mb\x00c\u202ed") == "a\\x1b[31mb\\x00c\\u202ed"


def test_calendar_summaries_are_not_markup(tmp_path: Path) -> None:
    ics = _ics(tmp_path, MARKUP)
    window = "2026-10-05T08:00/2026-10-05T11:00"
    for args in (
        ["find-slot", "--ics", str(ics), "--duration", "30m", "--between", window],
        ["freebusy", "--ics", str(ics), "--between", window],
    ):
        result = runner.invoke(app, args)
        assert result.exit_code == 0, result.output
        assert "[/red][bold red]APPROVED[/]" in result.stdout
        assert "[link=http://evil.example]click[/link]" in result.stdout


def test_model_draft_members_are_escaped(tmp_path: Path) -> None:
    draft = {
        "objective": "check",
        "origin": "model",
        "strategy": "s",
        "steps": [{"key": "a", "kind": "wait", "wait": {"seconds": 1}}],
        MARKUP + ESC: 1,
    }
    path = tmp_path / "draft.json"
    path.write_text(json.dumps(draft), encoding="utf-8")
    result = runner.invoke(app, ["plan-graph", "validate", "--model", str(path)])
    assert result.exit_code == 0, result.output
    assert "\x1b" not in result.stdout
    assert "ignored /[~1red][bold red]APPROVED[~1] [link=http:~1~1evil.example]" in result.stdout
    assert "\\x1b[2J\\x1b[31m" in result.stdout


def test_error_lines_escape_control_characters(tmp_path: Path) -> None:
    draft = {"objective": "x", "origin": "operator", "strategy": "s", "steps": [], ESC: 1}
    path = tmp_path / "draft.json"
    path.write_text(json.dumps(draft), encoding="utf-8")
    result = runner.invoke(app, ["plan-graph", "validate", str(path)])
    assert result.exit_code == 2
    assert "\x1b" not in result.stderr
    assert result.stderr.startswith("error draft.schema at /\\x1b[2J\\x1b[31m: ")
