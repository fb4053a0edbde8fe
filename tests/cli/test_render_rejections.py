"""The rejection summary counts each start once: closed time by kind, the rest by local day.

The expected counts are worked out here from the PlanningResult JSON (which blockers each
rejection names) and zoneinfo, independently of the renderer's grouping code.
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from icalendar import Calendar, Event
from typer.testing import CliRunner

from cerebri.calendars import FIND_SLOT_LIMITS
from cerebri.cli import app
from cerebri.planner import plan
from tests.calendars.test_find_slot import ALICE, BOB

BERLIN = ZoneInfo("Europe/Berlin")
NIGHT = "outside-working-hours-"
HEADER = re.compile(r"^(\d+) rejected starts?, each counted once \(times in (\S+)")
CLOSED = re.compile(r"^  outside working hours: (\d+) starts?: (.*)$")
DAY = re.compile(r"^  (\w{3} \d\d-\d\d): (\d+) starts?(?:; (.*))?$")
MORE = re.compile(r"^  … (\d+) more days? \((\d+) starts?\)$")
MAX_LINE = 130  # about 100: the first name of each list keeps at least 24 characters
WEEK = ["--between", "2026-10-05T08:00/2026-10-09T18:00", "--tz", "Europe/Berlin"]
HOURS = ["--working-hours", "09:00-17:00", "--buffer", "10m", "--duration", "30m"]


@pytest.fixture
def calendars(tmp_path: Path) -> list[str]:
    (tmp_path / "alice.ics").write_text(ALICE, encoding="utf-8")
    (tmp_path / "bob.ics").write_text(BOB, encoding="utf-8")
    return ["--ics", str(tmp_path / "alice.ics"), "--ics", str(tmp_path / "bob.ics")]


def _invoke(*args: str) -> str:
    run = CliRunner().invoke(app, ["find-slot", *args])
    assert run.exit_code == 0, run.output
    return run.stdout


def _summary(lines: list[str]) -> list[str]:
    """The header and the indented lines of the rejection summary."""
    first = next(i for i, line in enumerate(lines) if HEADER.match(line))
    rest = lines[first + 1 :]
    end = next((i for i, line in enumerate(rest) if not line.startswith("  ")), len(rest))
    return [lines[first], *rest[:end]]


def _kind(rejection: dict[str, Any]) -> tuple[bool, str]:
    """(closed, kind) of a rejection from its JSON: closed when a working-hours blocker
    rejects it, else ``overlap`` when it overlaps any event, else ``buffer`` when it is too
    close to one, else ``rule``."""
    overlap = buffer = closed = False
    for reason in rejection["reasons"]:
        payload = reason.get("HardConstraint")
        if payload is None or payload["reason"] not in {"Overlap", "InsufficientBuffer"}:
            continue
        evidence = payload["evidence"]
        for blocker in [*evidence["blocking_objects"], *evidence["blocking_occurrences"]]:
            if blocker.startswith(NIGHT):
                closed = True
            elif payload["reason"] == "Overlap":
                overlap = True
            else:
                buffer = True
    return closed, "overlap" if overlap else "buffer" if buffer else "rule"


def _expected(result: dict[str, Any], zone: ZoneInfo) -> tuple[int, dict[str, Counter[str]]]:
    """Starts in closed time, and per local day (``Mon 10-05``) the starts by kind."""
    closed = 0
    days: dict[str, Counter[str]] = defaultdict(Counter)
    for rejection in result["conflicts"]["rejections"]:
        shut, kind = _kind(rejection)
        if shut:
            closed += 1
            continue
        moment = datetime.fromisoformat(rejection["start"].replace("Z", "+00:00"))
        day = moment.astimezone(zone)
        days[f"{day:%a} {day:%m-%d}"][kind] += 1
    return closed, dict(days)


def _parts(rest: str | None) -> Counter[str]:
    """Counts of a day line's parts: ``N overlap``, ``N in the buffer of``, ``N break``."""
    found: Counter[str] = Counter()
    for part in (rest or "").split("; "):
        for word, kind in (("overlap", "overlap"), ("in the buffer of", "buffer")):
            match = re.match(rf"(\d+) {word} ", part)
            if match:
                found[kind] += int(match.group(1))
        match = re.match(r"(\d+) break ", part)
        if match:
            found["rule"] += int(match.group(1))
    return found


def _check(stdout: str, result: dict[str, Any]) -> tuple[list[str], dict[str, int]]:
    """Check the summary against the JSON; return it and the day counts it shows."""
    summary = _summary(stdout.splitlines())
    assert len(summary) <= 10
    assert all(len(line) <= MAX_LINE for line in summary), summary
    header = HEADER.match(summary[0])
    assert header is not None
    total = len(result["conflicts"]["rejections"])
    assert int(header.group(1)) == total
    closed, days = _expected(result, ZoneInfo(header.group(2).rstrip(";)")))
    shown_closed = [int(m.group(1)) for m in map(CLOSED.match, summary) if m]
    assert shown_closed == ([closed] if closed else [])
    shown: dict[str, int] = {}
    for match in filter(None, map(DAY.match, summary)):
        day, count = match.group(1), int(match.group(2))
        shown[day] = count
        assert count == sum(days[day].values())
        assert _parts(match.group(3)) == +days[day]
    more = [m for m in map(MORE.match, summary) if m]
    folded = [day for day in days if day not in shown]
    if folded:
        assert len(more) == 1
        assert int(more[0].group(1)) == len(folded)
        assert int(more[0].group(2)) == sum(sum(days[d].values()) for d in folded)
    else:
        assert more == []
    # Every start is counted once: closed time, a shown day or the folded days.
    assert closed + sum(sum(c.values()) for c in days.values()) == total
    return summary, shown


def test_readme_five_day_working_hours_case(calendars: list[str]) -> None:
    args = [*calendars, *WEEK, *HOURS]
    result = json.loads(_invoke(*args, "--json"))
    summary, shown = _check(_invoke(*args), result)
    assert list(shown) == ["Mon 10-05", "Tue 10-06", "Wed 10-07", "Thu 10-08", "Fri 10-09"]
    # Working hours are one line, not one per night: 4 whole nights 16:45-08:45 (a 30-minute
    # start at 16:45 ends after 17:00) and the window's morning and evening edges.
    closed_line = next(line for line in summary if CLOSED.match(line))
    assert "16:45–08:45 on 4 nights" in closed_line
    assert "10-05 08:00–08:45" in closed_line
    assert "10-09 16:45–17:30" in closed_line
    # The standup is counted once per start on the days it alone rejects starts.
    tuesday = next(line for line in summary if line.startswith("  Tue 10-06"))
    assert "overlap Standup (standup@alice) ×2" in tuesday
    assert "in the buffer of Standup (standup@alice) ×2" in tuesday
    assert not any("NO_OVERLAP" in line or "REQUIRED_BUFFER" in line for line in summary)


def _busy_calendar(path: Path, first: date, days: int, per_day: int) -> list[str]:
    """``per_day`` 50-minute events from 09:00 each day (Berlin), one per hour."""
    cal = Calendar()
    cal.add("prodid", "-//cerebri tests//EN")
    cal.add("version", "2.0")
    for offset in range(days):
        day = first + timedelta(days=offset)
        for hour in range(per_day):
            start = datetime(day.year, day.month, day.day, 9 + hour, tzinfo=BERLIN)
            event = Event()
            event.add("uid", f"m{offset}-{hour}@test")
            event.add("dtstamp", datetime(2026, 1, 1, tzinfo=ZoneInfo("UTC")))
            event.add("dtstart", start)
            event.add("dtend", start + timedelta(minutes=50))
            event.add("summary", f"Meeting {hour}")
            cal.add_component(event)
    path.write_bytes(cal.to_ical())
    return ["--ics", str(path)]


def test_eight_events_a_day_for_five_days_shows_every_day(tmp_path: Path) -> None:
    busy = _busy_calendar(tmp_path / "busy.ics", date(2026, 10, 5), 5, 8)
    args = [*busy, *WEEK, *HOURS]
    result = json.loads(_invoke(*args, "--json"))
    assert result["outcome"] == "NoSolution"
    _, shown = _check(_invoke(*args), result)
    assert list(shown) == ["Mon 10-05", "Tue 10-06", "Wed 10-07", "Thu 10-08", "Fri 10-09"]


def test_sixty_day_window_stays_within_ten_lines(tmp_path: Path) -> None:
    busy = _busy_calendar(tmp_path / "busy.ics", date(2026, 10, 5), 60, 3)
    args = [*busy, "--between", "2026-10-05T08:00/2026-12-03T18:00", "--tz", "Europe/Berlin"]
    args += [*HOURS, "--max-candidates", "20000"]
    result = json.loads(_invoke(*args, "--json"))
    summary, shown = _check(_invoke(*args), result)
    assert 1 <= len(shown) < 60
    assert any(MORE.match(line) for line in summary)
    # 59 whole nights (the clocks go back on 10-25: that night is one more hour, same times).
    closed_line = next(line for line in summary if CLOSED.match(line))
    assert "16:45–08:45 on 59 nights" in closed_line


def test_explain_lists_every_rejected_start(calendars: list[str]) -> None:
    args = [*calendars, *WEEK, *HOURS]
    lines = _invoke(*args, "--explain").splitlines()
    result = json.loads(_invoke(*args, "--json"))
    first = lines.index("every rejected start:")
    listed = lines[first + 1 : first + 1 + len(result["conflicts"]["rejections"])]
    starts = [r["start"] for r in result["conflicts"]["rejections"]]
    assert [re.search(r"\((\S+Z)\)", line).group(1) for line in listed] == starts  # type: ignore[union-attr]
    assert len(_summary(lines)) <= 10


def test_explicit_no_overlap_changes_nothing(calendars: list[str], tmp_path: Path) -> None:
    emitted = _invoke(*calendars, *WEEK, *HOURS, "--emit-request")
    request = json.loads(emitted)
    doubled = json.loads(emitted)
    doubled["constraints"].append(
        {"object_id": request["target_ids"][0], "rule": {"kind": "NO_OVERLAP"}, "evidence": []}
    )
    plain_result = plan(request, limits=FIND_SLOT_LIMITS).to_wire()
    doubled_result = plan(doubled, limits=FIND_SLOT_LIMITS).to_wire()
    # The JSON does list the explicit rule again ...
    assert sum(len(r["reasons"]) for r in doubled_result["conflicts"]["rejections"]) > sum(
        len(r["reasons"]) for r in plain_result["conflicts"]["rejections"]
    )
    outputs = []
    for name, document in (("plain", request), ("doubled", doubled)):
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(document), encoding="utf-8")
        run = CliRunner().invoke(app, ["plan", "--table", "--limits", "local", str(path)])
        assert run.exit_code == 0, run.output
        outputs.append(run.stdout)
    # ... but the summary is the same, and counts as computed from the JSON.
    assert _summary(outputs[0].splitlines()) == _summary(outputs[1].splitlines())
    _check(outputs[1], doubled_result)
