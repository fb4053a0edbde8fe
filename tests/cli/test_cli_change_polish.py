"""Loose ends of the change commands (docs/decisions/0061).

``--hours`` in ``cerebri reschedule`` and ``cerebri update-event`` (decision 0053): a
required attendee's own hours close the reschedule's search, an optional attendee outside
theirs counts as busy, and every candidate is shown in each attendee's local time.
Expectations are computed here with zoneinfo from the fixtures' busy times.

``update-event --remove-attendee``: the request carries the list as read
(``change.previous_attendees``) and its plan graph ends in a CANCEL to the one removed.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from jsonschema import Draft202012Validator

import cerebri
from cerebri.calendars import FIND_SLOT_LIMITS
from cerebri.cli._operations import approval_lines
from cerebri.cpir import request_json_schema
from cerebri.planner import action_plan_for
from cerebri.plans import builtin_registry, draft_from_action_plan, validate_draft
from cerebri.plans.change_facts import change_inputs
from tests.cli.test_cli_changes import (
    HEAD,
    TAIL,
    _at,
    _event,
    _expected_starts,
    _ics,
    _utc,
    files,
    run,
    run_json,
)
from tests.execution.test_change_approvals import _shown
from tests.planner.change_helpers import request_for

__all__ = ["files"]

NEW_YORK = ZoneInfo("America/New_York")
TOKYO = ZoneInfo("Asia/Tokyo")
WINDOW = ["--between", "2026-10-05T08:00/2026-10-05T18:00", "--granularity", "30m"]


def _inside(start: datetime, end: datetime, zone: ZoneInfo, first: int, last: int) -> bool:
    """Whether ``[start, end)`` lies within ``first:00-last:00`` local in ``zone``."""
    local_start, local_end = start.astimezone(zone), end.astimezone(zone)
    opening = local_start.replace(hour=first, minute=0)
    closing = local_start.replace(hour=last, minute=0)
    return opening <= local_start and local_end <= closing


def _optional(tmp_path: Path) -> Path:
    path = tmp_path / "carol.ics"
    busy = _event("carol-0@example.com", "20261005T090000", "20261005T093000", "Call")
    path.write_text(HEAD + busy + TAIL, newline="")
    return path


def test_reschedule_keeps_to_each_attendees_hours_and_shows_local_times(
    files: dict[str, Path], tmp_path: Path
) -> None:
    args = [
        "reschedule",
        "sync@example.com",
        *_ics(files),
        *WINDOW,
        "--optional-ics",
        _optional(tmp_path),
        "--hours",
        "bob=07:00-13:00@America/New_York",
        "--hours",
        "carol=16:00-23:00@Asia/Tokyo",
    ]
    document = run_json(*args, "--json")
    hour = timedelta(hours=1)
    expected = {
        _utc(s)
        for s in _expected_starts(hour)
        if s != _at("10:00") and _inside(s, s + hour, NEW_YORK, 7, 13)
    }
    starts = [c["start"] for c in document["candidates"]]
    assert set(starts) == expected
    assert expected  # 13:00-19:00 Berlin is bob's day: the window's afternoon
    local = document["local_times"]
    assert len(local) == len(document["candidates"])
    for candidate, times in zip(document["candidates"], local, strict=True):
        begin = datetime.fromisoformat(candidate["start"])
        assert list(times) == ["bob", "carol"]  # alice has no zone given: not shown
        assert times["bob"]["start"] == begin.astimezone(NEW_YORK).isoformat()
        assert times["carol"]["zone"] == "Asia/Tokyo"
        assert times["carol"]["end"] == (begin + hour).astimezone(TOKYO).isoformat()
    # carol is optional: busy outside 16:00-23:00 Tokyo (09:00-16:00 Berlin) and 09:00-09:30
    seen = set()
    for slot in document["slots"]:
        begin = datetime.fromisoformat(slot["start"])
        carol_free = _inside(begin, begin + hour, TOKYO, 16, 23) and not (
            begin < _at("09:30") and _at("09:00") < begin + hour
        )
        seen.add(carol_free)
        assert ("carol" in slot["optional_free"]) is carol_free
        assert ("carol" in slot["optional_busy"]) is not carol_free
    assert seen == {True, False}  # 13:00 free, 17:00 after her hours
    text = run(*args)
    assert text.exit_code == 0, text.output
    assert "Local times" in text.stdout
    assert "bob (America/New_York)" in text.stdout
    first = datetime.fromisoformat(starts[0]).astimezone(NEW_YORK)
    assert f"{first:%a %Y-%m-%d %H:%M}" in text.stdout


def test_without_hours_the_answer_has_no_local_times(files: dict[str, Path]) -> None:
    answer = run("reschedule", "sync@example.com", *_ics(files), *WINDOW, "--json")
    assert answer.exit_code == 0, answer.output
    assert "local_times" not in json.loads(answer.stdout)


def test_hours_of_an_unknown_calendar_are_refused(files: dict[str, Path]) -> None:
    answer = run("reschedule", "sync@example.com", *_ics(files), *WINDOW, "--hours", "zed=@UTC")
    assert answer.exit_code == 2
    assert "input.invalid_option" in answer.stderr
    assert "zed" in answer.stderr


def test_update_shows_local_times_and_hours_do_not_refuse_it(files: dict[str, Path]) -> None:
    # the Sync is at 10:00 Berlin = 04:00 New York, outside bob's hours: it stays put
    document = run_json(
        "update-event",
        "sync@example.com",
        *_ics(files),
        "--duration",
        "30m",
        "--hours",
        "bob=09:00-17:00@America/New_York",
        "--json",
    )
    assert [c["start"] for c in document["candidates"]] == [_utc(_at("10:00"))]
    ny = _at("10:00").astimezone(NEW_YORK)
    assert document["local_times"] == [
        {
            "bob": {
                "start": ny.isoformat(),
                "end": (ny + timedelta(minutes=30)).isoformat(),
                "zone": "America/New_York",
            }
        }
    ]


def test_removing_an_attendee_ends_in_a_cancel_to_them(files: dict[str, Path]) -> None:
    answer = run(
        "update-event",
        "sync@example.com",
        *_ics(files),
        "--remove-attendee",
        "Bob@Example.com",
        "--emit-request",
    )
    assert answer.exit_code == 0, answer.output
    document = json.loads(answer.stdout)
    change = document["change"]
    assert [a["address"] for a in change["attendees"]] == ["mailto:alice@example.com"]
    assert [a["address"] for a in change["previous_attendees"]] == [
        "mailto:alice@example.com",
        "mailto:bob@example.com",
    ]
    assert not list(Draft202012Validator(request_json_schema()).iter_errors(document))
    request = cerebri.parse_request(answer.stdout.encode())
    actions = action_plan_for(request, limits=FIND_SLOT_LIMITS)
    draft = draft_from_action_plan(actions, **change_inputs(request, actions))
    assert validate_draft(draft, builtin_registry()).problems == ()
    sends = [s.params for s in draft.steps if s.capability == "message.itip.send"]
    # alice organizes (never a recipient); bob, removed, is told the event is off for him
    assert [(p["recipient"], p["method"]) for p in sends if p] == [
        ("mailto:bob@example.com", "CANCEL")
    ]
    (cancel,) = [p for p in sends if p]
    assert [a["address"] for a in cancel["attendees"]] == ["mailto:bob@example.com"]
    assert cancel["sequence"] == 1  # the SEQUENCE read (0) + 1, RFC 5546 2.1.4
    keys = [s.key for s in draft.steps]
    assert keys.index("update-0") < keys.index("itip-0-0")


def test_a_title_change_keeps_its_request_without_previous_attendees(
    files: dict[str, Path],
) -> None:
    answer = run("update-event", "sync@example.com", *_ics(files), "--title", "X", "--emit-request")
    assert answer.exit_code == 0, answer.output
    change = json.loads(answer.stdout)["change"]
    assert "previous_attendees" not in change
    parsed = cerebri.parse_request(answer.stdout.encode())
    assert parsed.change is not None
    assert "previous_attendees" not in parsed.model_dump(mode="json")["change"]


def test_previous_attendees_belong_to_an_update_only() -> None:
    bob = request_for("UPDATE")["change"]["attendees"]
    assert cerebri.validate(request_for("UPDATE", previous_attendees=bob)).to_wire()["issues"] == []
    for operation in ("RESCHEDULE", "CANCEL"):
        wrong = request_for(operation, previous_attendees=bob)
        issues = cerebri.validate(wrong).to_wire()["issues"]
        assert issues == [{"InvalidChange": "previous_attendees"}]
    twice = request_for("UPDATE", previous_attendees=bob * 2)
    assert cerebri.validate(twice).to_wire()["issues"] == [{"InvalidChange": "previous_attendees"}]


@pytest.mark.parametrize(
    ("command", "extra"),
    [
        ("reschedule", ["--between", "2026-10-05T08:00/2026-10-05T18:00"]),
        ("cancel-event", []),
    ],
)
def test_approvals_show_names_the_event_of_a_move_and_a_cancel(
    files: dict[str, Path], command: str, extra: list[str]
) -> None:
    answer = run(command, "sync@example.com", *_ics(files), *extra, "--emit-request")
    assert answer.exit_code == 0, answer.output
    request = cerebri.parse_request(answer.stdout.encode())
    assert request.change is not None
    assert (request.change.title, request.change.location) == ("Sync", None)
    actions = action_plan_for(request, limits=FIND_SLOT_LIMITS)
    draft = draft_from_action_plan(actions, **change_inputs(request, actions))
    lines = approval_lines(_shown(draft))
    assert "event title: Sync" in lines
    if command == "cancel-event":  # the CANCEL messages carry the title too (SUMMARY)
        sends = [s.params for s in draft.steps if s.capability == "message.itip.send"]
        assert [p["title"] for p in sends if p] == ["Sync"]


def test_a_title_over_lines_becomes_one_line(files: dict[str, Path]) -> None:
    # RFC 5545 3.3.11: an escaped line break and a plain tab inside a TEXT value
    text = files["alice"].read_text().replace("SUMMARY:Sync", "SUMMARY:Sync\\n  with\tBob", 1)
    files["alice"].write_text(text, newline="")
    answer = run("cancel-event", "sync@example.com", *_ics(files), "--emit-request")
    assert answer.exit_code == 0, answer.output
    assert json.loads(answer.stdout)["change"]["title"] == "Sync with Bob"
    assert cerebri.parse_request(answer.stdout.encode()).change is not None
