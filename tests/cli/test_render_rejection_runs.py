"""Runs of rejected starts that cross days keep both dates and their count (issue 21 item 10).

A run from Monday 16:45 to Wednesday 08:45 (Tuesday closed) used to print as
``12-07 16:45–08:45``: the end date was lost. The expected texts are built here from the
PlanningResult JSON and zoneinfo, not by the renderer's code.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from typer.testing import CliRunner

from cerebri.cli import app
from cerebri.cli.render_rejections import fold_spans
from cerebri.temporal import Instant

BERLIN = ZoneInfo("Europe/Berlin")
STEP = timedelta(minutes=15)
ONE_EVENT = """BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//test//EN
BEGIN:VEVENT
UID:x1@test
DTSTAMP:20260101T000000Z
DTSTART:20261207T100000Z
DTEND:20261207T110000Z
SUMMARY:call
END:VEVENT
END:VCALENDAR
"""


def _closed_starts(result: dict[str, Any]) -> list[datetime]:
    """Starts that a working-hours blocker rejects, ascending, in Berlin time."""
    found = []
    for rejection in result["conflicts"]["rejections"]:
        for reason in rejection["reasons"]:
            payload = reason.get("HardConstraint")
            if payload is None or payload["reason"] not in {"Overlap", "InsufficientBuffer"}:
                continue
            evidence = payload["evidence"]
            blockers = [*evidence["blocking_objects"], *evidence["blocking_occurrences"]]
            if any(b.startswith("outside-working-hours-") for b in blockers):
                moment = datetime.fromisoformat(rejection["start"].replace("Z", "+00:00"))
                found.append(moment.astimezone(BERLIN))
                break
    return sorted(set(found))


def _runs(starts: list[datetime]) -> list[list[datetime]]:
    runs: list[list[datetime]] = []
    for start in starts:
        if runs and start - runs[-1][-1] == STEP:
            runs[-1].append(start)
        else:
            runs.append([start])
    return runs


def _text(run: list[datetime]) -> str:
    first, last = run[0], run[-1]
    if first.date() == last.date():
        return f"{first:%m-%d %H:%M}–{last:%H:%M}"
    return f"{first:%m-%d %H:%M}–{last:%m-%d %H:%M} ({len(run)})"


def test_a_run_across_a_closed_day_shows_both_dates_and_its_count(tmp_path: Path) -> None:
    (tmp_path / "a.ics").write_text(ONE_EVENT, encoding="utf-8")
    args = [
        "find-slot",
        *("--ics", str(tmp_path / "a.ics"), "--duration", "30m", "--tz", "Europe/Berlin"),
        *("--between", "2026-12-07T08:00/2026-12-10T18:00", "--working-hours", "09:00-17:00"),
        *("--working-days", "Mon,Wed-Fri"),  # Tuesday 12-08 is closed
    ]
    runner = CliRunner()
    result = json.loads(runner.invoke(app, [*args, "--json"]).stdout)
    runs = _runs(_closed_starts(result))
    longest = max(runs, key=len)
    # Monday 16:45 (a 30-minute start then ends after 17:00) to Wednesday 08:45.
    assert (longest[0].date().isoformat(), longest[-1].date().isoformat()) == (
        "2026-12-07",
        "2026-12-09",
    )
    expected = _text(longest)
    assert expected == f"12-07 16:45–12-09 08:45 ({len(longest)})"
    stdout = runner.invoke(app, args).stdout
    line = next(x for x in stdout.splitlines() if x.startswith("  outside working hours:"))
    assert f": {expected}" in line  # most starts: listed first
    assert "16:45–08:45 on" not in line  # never folded with the one-night run


def test_fold_spans_keeps_short_forms_within_a_day_and_folds_single_nights() -> None:
    def starts(first: datetime, count: int) -> list[datetime]:
        return [first + STEP * i for i in range(count)]

    monday = datetime(2026, 10, 5, tzinfo=BERLIN)
    morning = starts(monday.replace(hour=8), 4)  # 08:00-08:45 within one day
    nights = [
        starts(monday.replace(day=day, hour=16, minute=45), 65)  # 16:45 to 08:45 next day
        for day in (5, 6)
    ]
    lone_night = starts(monday.replace(day=8, hour=20), 24)  # Thu 20:00 to Fri 01:45
    everything = sorted({*morning, *nights[0], *nights[1], *lone_night})
    shown = fold_spans(
        [Instant.from_datetime(moment) for moment in everything],
        int(STEP.total_seconds()) * 1_000_000_000,
        BERLIN,
    )
    assert shown == [
        "16:45–08:45 on 2 nights",  # 130 starts
        _text(lone_night),  # 24 starts
        _text(morning),  # 4 starts
    ]
    assert _text(lone_night) == "10-08 20:00–10-09 01:45 (24)"
    assert _text(morning) == "10-05 08:00–08:45"
