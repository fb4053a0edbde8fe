"""``cerebri approvals show`` and ``approvals list``: an approver sees what they approve
(issue 21 item 15, docs/decisions/0039), end to end on SQLite and PostgreSQL.

The path of examples/put-on-calendar.sh: a slot found in alice's .ics calendar in
Asia/Tokyo (no daylight saving, so local times are a fixed +09:00), proposed and signed by
alice, taken in by the store, run by a worker until it asks for approval.
"""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from cerebri.cli import app
from cerebri.execution import store as execution_store

ZONE = "Asia/Tokyo"
TITLE = "Budget sync"


def _cli(*args: str) -> str:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, (args, result.output)
    return result.stdout


def _ics(start: datetime, end: datetime) -> str:
    stamp = "%Y%m%dT%H%M%SZ"
    return (
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//approvals show//EN\r\n"
        "BEGIN:VEVENT\r\nUID:alice-busy@example.org\r\nDTSTAMP:20260101T000000Z\r\n"
        f"DTSTART:{start.strftime(stamp)}\r\nDTEND:{end.strftime(stamp)}\r\n"
        "SUMMARY:Planning\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
    )


def _alice_may_create_bob_approves() -> None:
    """Keys and principals: alice requests (and may create events in calendar alice), bob
    approves."""
    for name, role in (("alice", "requester"), ("bob", "approver")):
        _cli("keys", "new", "--dir", "keys", name, "--principal", f"principal:{name}")
        _cli("principals", "add", f"principal:{name}", "--role", role)
        _cli("principals", "key", f"principal:{name}", "--keys", "keys", "--keyid", name)
    _cli("principals", "grant", "principal:alice", "calendar.event.create", "--calendar", "alice")


def _propose_submit_and_run(tmp_path: Path, day: date) -> dict[str, Any]:
    """alice finds a slot on ``day``, proposes it and submits it; a worker runs until the
    plan waits for approval. The ``submit --json`` answer."""
    window = f"{day.isoformat()}T09:00/{day.isoformat()}T12:30"
    request = _cli(
        "find-slot", "--ics", "alice.ics", "--duration", "30m", "--tz", ZONE,
        "--between", window, "--create", TITLE, "--emit-request",
    )  # fmt: skip
    (tmp_path / "request.json").write_text(request, encoding="utf-8")
    _cli(
        "propose", "request.json", "--as", "plan-graph", "--title", TITLE, "--limits", "local",
        "--key", "keys/alice.pem", "--keyid", "alice", "--objects", "objects",
        "--expires-in", "7d", "--out", "envelope.json",
    )  # fmt: skip
    submitted: dict[str, Any] = json.loads(
        _cli("submit", "envelope.json", "--objects", "objects", "--json")
    )
    _cli("worker", "--until-idle", "--poll", "0.05", "--ics-calendar", "alice=alice.ics")
    return submitted


def test_approvals_show_prints_what_was_proposed(
    store_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CEREBRI_STORE", store_url)
    day = (datetime.now(UTC) + timedelta(days=3)).date()
    midnight = datetime(day.year, day.month, day.day, tzinfo=UTC)
    # alice is busy 09:00-10:30 Tokyo (00:00-01:30 UTC): the first free half hour of the
    # window 09:00-12:30 Tokyo starts at 10:30 Tokyo, 01:30 UTC
    busy = (midnight, midnight + timedelta(hours=1, minutes=30))
    (tmp_path / "alice.ics").write_text(_ics(*busy), encoding="utf-8")
    execution_store.init(store_url)
    _alice_may_create_bob_approves()
    submitted = _propose_submit_and_run(tmp_path, day)
    [asked] = json.loads(_cli("approvals", "list", "--json"))

    start_utc = midnight + timedelta(hours=1, minutes=30)
    end_utc = start_utc + timedelta(minutes=30)
    tokyo = timedelta(hours=9)
    local_start = (start_utc + tokyo).replace(tzinfo=None).isoformat() + "+09:00"
    local_end = (end_utc + tokyo).replace(tzinfo=None).isoformat() + "+09:00"
    utc = "%Y-%m-%dT%H:%M:%SZ"

    shown = json.loads(_cli("approvals", "show", asked["id"], "--json"))
    proposed = shown["proposed"]
    assert proposed["capability"] == "calendar.event.create"
    assert proposed["does"].startswith("Create an event over [start, end) in a calendar")
    assert (proposed["title"], proposed["calendar_id"], proposed["timezone"]) == (
        TITLE,
        "alice",
        ZONE,
    )
    assert (proposed["start"], proposed["end"]) == (
        start_utc.strftime(utc),
        end_utc.strftime(utc),
    )
    assert (proposed["local_start"], proposed["local_end"]) == (local_start, local_end)
    assert shown["author"] == "principal:alice"
    assert shown["envelope_digest"] == submitted["envelope_digest"]
    assert shown["plan_id"] == submitted["plan_id"]

    text = _cli("approvals", "show", asked["id"])
    lines = text.splitlines()
    assert lines[0] == f"approval {asked['id']}: open"
    assert f"title: {TITLE}" in lines
    assert f"start: {start_utc.strftime(utc)} UTC, {local_start} {ZONE}" in lines
    assert f"end: {end_utc.strftime(utc)} UTC, {local_end} {ZONE}" in lines
    assert "calendar: alice" in lines
    nobody = "attendees: none invited (the step writes the event into calendar alice only)"
    assert nobody in lines
    assert "requester: principal:alice" in lines
    assert any(
        line.startswith(f"proposed by: principal:alice (envelope {submitted['envelope_digest']}")
        for line in lines
    )
    assert f"expires: {asked['expires_at'].split('.')[0].removesuffix('Z')}Z" in lines

    table = CliRunner().invoke(app, ["approvals", "list"], env={"COLUMNS": "250"}).stdout
    row = next(line for line in table.splitlines() if asked["id"] in line)
    when = f"{day.isoformat()} {local_start[11:16]}-{local_end[11:16]} {ZONE}"
    assert TITLE in row
    assert when in row
    assert " alice " in row

    # the approval goes through and the event is written as shown
    _cli("approvals", "approve", asked["id"], "--as", "principal:bob", "--key", "keys/bob.pem")
    _cli("worker", "--until-idle", "--poll", "0.05", "--ics-calendar", "alice=alice.ics")
    written = (tmp_path / "alice.ics").read_text(encoding="utf-8")
    assert f"DTSTART:{start_utc.strftime('%Y%m%dT%H%M%SZ')}" in written
    assert f"SUMMARY:{TITLE}" in written


def test_approvals_show_of_an_unknown_id_is_a_typed_error(
    store_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    execution_store.init(store_url)
    monkeypatch.setenv("CEREBRI_STORE", store_url)
    result = CliRunner().invoke(app, ["approvals", "show", "nope"])
    assert result.exit_code == 2
    assert result.stderr == "error execution.not_found: no approval 'nope'\n"


def test_an_approver_sees_which_event_a_cancel_removes() -> None:
    """A cancel step names the event it removes; the description is one sentence; there is
    no attendees line (the step invites nobody: it removes an event)."""
    from cerebri.cli._operations import approval_lines

    shown: dict[str, Any] = {
        "id": "a-1",
        "status": "open",
        "decided_by": None,
        "status_reason": None,
        "requester": "principal:alice",
        "plan_id": "p-1",
        "plan_revision": 1,
        "proposed": {
            "step_key": "cancel",
            "capability": "calendar.event.cancel",
            "does": "Cancel an event. A second sentence an approver need not read.",
            "target": "a1@example.org",
            "object_id": "a1@example.org",
            "title": None,
            "calendar_id": "alice",
            "start": None,
            "end": None,
            "timezone": None,
            "local_start": None,
            "local_end": None,
        },
        "envelope_digest": None,
        "author": None,
        "expires_at": "2026-12-04T09:00:00Z",
    }
    lines = approval_lines(shown)
    assert "does: calendar.event.cancel: Cancel an event." in lines
    assert "event: a1@example.org" in lines
    assert not any(line.startswith("attendees:") for line in lines)
