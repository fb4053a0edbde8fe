"""``cerebri request new``: the request passes ``validate`` and ``plan`` with the
reference limits, and its answer matches a brute-force search (decision 0028)."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from typer.testing import CliRunner, Result

from cerebri.cli import app

ERROR_LINE = re.compile(r"error (?P<code>[a-z_]+\.[a-z_]+)(?: at \S+)?: .+\n")
TOKYO = ZoneInfo("Asia/Tokyo")


def run(*args: str | Path) -> Result:
    return CliRunner().invoke(app, [str(a) for a in args])


def test_request_new_validates_and_plans_like_brute_force(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    busy = [("2026-03-02T09:00", "2026-03-02T10:00"), ("2026-03-02T11:00", "2026-03-02T11:30")]
    made = run(
        *("request", "new", "--duration", "30m", "--tz", "Asia/Tokyo", "--buffer", "15m"),
        *("--between", "2026-03-02T09:00/2026-03-02T13:00", "--out", out),
        *(arg for start, end in busy for arg in ("--busy", f"{start}/{end}")),
    )
    assert made.exit_code == 0, made.output
    checked = run("validate", out)
    assert json.loads(checked.stdout) == {"state": "Valid", "issues": []}
    planned = run("plan", out)
    assert planned.exit_code == 0, planned.output
    answer = json.loads(planned.stdout)
    assert answer["outcome"] == "Solution"
    spans = [
        (
            datetime.fromisoformat(s).replace(tzinfo=TOKYO),
            datetime.fromisoformat(e).replace(tzinfo=TOKYO),
        )
        for s, e in busy
    ]
    gap, length = timedelta(minutes=15), timedelta(minutes=30)
    moment, expected = datetime(2026, 3, 2, 9, tzinfo=TOKYO), []
    while moment + length <= datetime(2026, 3, 2, 13, tzinfo=TOKYO):
        if all(moment + length + gap <= s or moment >= e + gap for s, e in spans):
            expected.append(moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"))
        moment += timedelta(minutes=15)
    assert [c["start"] for c in answer["candidates"]] == expected
    assert expected[0] == "2026-03-02T01:15:00Z"  # 10:15 Tokyo: the buffer after 09-10


def test_request_new_prints_to_stdout_with_working_hours() -> None:
    made = run(
        *("request", "new", "--duration", "1h", "--between", "2026-03-02T00:00Z/2026-03-03T00:00Z"),
        *("--working-hours", "09:00-17:00", "--granularity", "30m", "--prefer", "14:00"),
    )
    assert made.exit_code == 0, made.output
    request = json.loads(made.stdout)
    assert request["schema_version"] == {"major": 0, "minor": 2}
    assert request["granularity"] == 1800
    assert request["budget"]["max_candidates"] == 24 * 2 + 1
    assert request["preferences"]["preferences"][0]["preferred_start"] == "2026-03-02T14:00:00Z"


@pytest.mark.parametrize(
    "extra",
    [
        ("--duration", "soon"),
        ("--busy", "2026-03-02T10:00/2026-03-02T09:00"),
        ("--busy", "nonsense"),
        ("--tz", "Mars/Olympus"),
        ("--working-hours", "17:00-09:00"),
        ("--buffer", "-5m"),
    ],
)
def test_bad_options_are_typed_errors(extra: tuple[str, str], tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    base = ["request", "new", "--between", "2026-03-02T09:00/2026-03-02T13:00", "--out", out]
    args = [*base, *extra] if extra[0] == "--duration" else [*base, "--duration", "30m", *extra]
    result = run(*args)
    assert result.exit_code == 2
    match = ERROR_LINE.fullmatch(result.stderr)
    assert match is not None and match["code"] == "input.invalid_option", result.stderr
    assert not out.exists()
