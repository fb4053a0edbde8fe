"""``find-slot`` options: ISO 8601 durations with weeks and days, the CPIR bound on
durations, ``--json`` with ``--emit-request``, and a ``--buffer`` too wide for the time
range (docs/decisions/0014, section 6)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from cerebri.calendars.options import parse_duration
from cerebri.cli import app

# The CPIR limit (cpir.MAX_DURATION_SECONDS): the longest whole-second duration whose
# milliseconds fit a signed 64-bit integer.
CPIR_MAX_SECONDS = (2**63 - 1) // 1000

EVENT = (
    "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//cerebri//tests//EN\r\n"
    "BEGIN:VEVENT\r\nUID:busy\r\nDTSTAMP:20260101T000000Z\r\n"
    "DTSTART:20261005T090000Z\r\nDTEND:20261005T100000Z\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
)


def find_slot(tmp_path: Path, *options: str) -> Result:
    path = tmp_path / "a.ics"
    path.write_text(EVENT, encoding="utf-8")
    window = "2026-10-05T08:00/2026-10-05T18:00"
    return CliRunner().invoke(app, ["find-slot", "--ics", str(path), "--between", window, *options])


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("P1W", 7 * 24 * 3600),
        ("P1D", 24 * 3600),
        ("p1d", 24 * 3600),
        ("P1DT2H", 26 * 3600),
        ("P2W3D", 17 * 24 * 3600),
        ("PT1H30M5S", 3600 + 30 * 60 + 5),
        ("PT90M", 90 * 60),
    ],
)
def test_iso_durations_with_weeks_and_days(text: str, seconds: int) -> None:
    assert parse_duration(text) == seconds


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("P1Y", "years or months"),
        ("P1M", "years or months"),
        ("P1Y2DT1H", "years or months"),
        ("PT0.5S", "whole seconds"),
        ("PT0S", "longer than zero"),
        ("P", "cannot read"),
        ("-P1D", "cannot read"),
        ("P1X", "cannot read"),
    ],
)
def test_iso_durations_refused(text: str, reason: str) -> None:
    with pytest.raises(ValueError, match=reason):
        parse_duration(text)


def test_duration_bound_is_the_cpir_limit() -> None:
    assert parse_duration(str(CPIR_MAX_SECONDS)) == CPIR_MAX_SECONDS
    with pytest.raises(ValueError, match=f"longer than the maximum, {CPIR_MAX_SECONDS} s"):
        parse_duration(str(CPIR_MAX_SECONDS + 1))
    with pytest.raises(ValueError, match="longer than the maximum"):
        parse_duration("99999999999999999999d")


def test_cli_names_duration_and_its_maximum(tmp_path: Path) -> None:
    shown = find_slot(tmp_path, "--duration", "99999999999999999999d")
    assert shown.exit_code == 2
    assert shown.stderr.startswith("error input.invalid_option: --duration: ")
    assert str(CPIR_MAX_SECONDS) in shown.stderr
    assert "/duration/value" not in shown.stderr  # no internal CPIR path


def test_cli_names_granularity_when_it_is_bad(tmp_path: Path) -> None:
    shown = find_slot(tmp_path, "--duration", "1h", "--granularity", "P1M")
    assert shown.exit_code == 2
    assert shown.stderr.startswith("error input.invalid_option: --granularity: ")


def test_cli_accepts_an_iso_duration_with_days(tmp_path: Path) -> None:
    # The 10-hour window cannot hold a one-day meeting; the answer says so (exit 0).
    shown = find_slot(tmp_path, "--duration", "P1D", "--json")
    assert shown.exit_code == 0, shown.output
    assert '"NoSolution"' in shown.stdout


def test_cli_refuses_json_with_emit_request(tmp_path: Path) -> None:
    shown = find_slot(tmp_path, "--duration", "1h", "--json", "--emit-request")
    assert shown.exit_code == 2
    assert shown.stdout == ""
    assert shown.stderr.startswith("error input.invalid_option: --json and --emit-request")


def test_cli_refuses_a_buffer_beyond_the_time_range(tmp_path: Path) -> None:
    shown = find_slot(tmp_path, "--duration", "1h", "--buffer", "100000000000d")
    assert shown.exit_code == 2
    assert shown.stderr.startswith("error input.invalid_option: --buffer: ")
