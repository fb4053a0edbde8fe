"""``cerebri plan --table`` words the change operations' reasons (decision 0049, 0061):
a reschedule's disruption class and distance, a cancel's and an update's one candidate,
and hints for the rejections ``Unchanged`` and ``StartChanged``. The distances are
recomputed here from the candidates' starts and the event's current start."""

from __future__ import annotations

import dataclasses
import io
import json
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
from rich.console import Console
from typer.testing import CliRunner

import cerebri
from cerebri.cli import app
from cerebri.cli.render import render_result
from cerebri.cpir import PlanningRequest, PlanningResult, Rejection, Tagged
from cerebri.temporal import Instant
from tests.planner.change_helpers import CURRENT, request_for

BERLIN = ZoneInfo("Europe/Berlin")


def _text(result: PlanningResult, request: PlanningRequest) -> str:
    out = io.StringIO()
    render_result(result, request, Console(file=out, width=400), top=None)
    return out.getvalue()


def _words(seconds: int) -> str:
    days, rest = divmod(seconds, 86_400)
    hours, minutes = rest // 3600, rest % 3600 // 60
    named = [(days, "d"), (hours, "h"), (minutes, "min")]
    return " ".join(f"{n} {unit}" for n, unit in named if n) or "0 min"


def test_a_reschedule_says_how_far_and_which_class() -> None:
    request = cerebri.parse_request(json.dumps(request_for("RESCHEDULE")).encode())
    result = cerebri.plan(request)
    text = _text(result, request)
    current = datetime.fromisoformat(CURRENT[0])
    for candidate in result.candidates:
        start = datetime.fromisoformat(candidate.start.format())
        same_day = start.astimezone(BERLIN).date() == current.astimezone(BERLIN).date()
        same_time = start.astimezone(BERLIN).time() == current.astimezone(BERLIN).time()
        kind = "same day" if same_day else "same time, another day" if same_time else None
        level = 0 if same_day else 1 if same_time else 2
        kind = kind or "another day and time"
        away = _words(abs(int((start - current).total_seconds())))
        assert f"{kind}, {away} away (disruption {level})" in text
    assert "Disruption {" not in text
    assert "the event's current start: a reschedule needs a new time" in text


@pytest.mark.parametrize(
    ("operation", "words"),
    [
        ("CANCEL", "cancels the event where it is now"),
        ("UPDATE", "updated where it is (the new length fits)"),
    ],
)
def test_a_cancel_and_an_update_say_they_stay_put(operation: str, words: str) -> None:
    path_text = json.dumps(request_for(operation))
    answer = CliRunner().invoke(app, ["plan", "--table", "-"], input=path_text)
    assert answer.exit_code == 0, answer.output
    flat = " ".join(answer.stdout.replace("│", " ").split())
    assert words in flat
    assert "Cancellation" not in flat  # no bare reason name
    assert "UpdateInPlace" not in flat


def test_a_moved_start_of_an_update_gets_a_hint() -> None:
    """``StartChanged`` is what ``validate_proposal`` answers for an update or cancel put
    at another start; a result carrying it shows the hint under its rule line."""
    request = cerebri.parse_request(json.dumps(request_for("UPDATE")).encode())
    result = cerebri.plan(request)
    later = Instant.parse(CURRENT[0]).plus_seconds(1800)
    assert later is not None
    refused = dataclasses.replace(
        result, candidates=(), rejections=(Rejection(later, (Tagged("StartChanged", "weekly"),)),)
    )
    text = _text(refused, request)
    assert "keeps the event's current start; reschedule to move it" in text
