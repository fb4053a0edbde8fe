"""The whole path of issue #13, end to end: find-slot --create → action plan → plan graph →
signed envelope → submit → approval request → approved by another principal (signed) → a
worker creates the event → verified by reading it back → plan completed.

* SQLite with .ics files: ``examples/put-on-calendar.sh`` (what ``make run`` runs) as real
  processes; the calendar file and the store are then read independently.
* PostgreSQL with CalDAV calendars on a real Radicale: the same commands through typer's runner
  (one process: each ``cerebri`` start costs seconds), the server then listed with the caldav
  library.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from caldav import DAVClient
from icalendar import Calendar
from typer.testing import CliRunner

from cerebri.cli import app
from cerebri.clock import SystemClock, UuidIds
from cerebri.execution import Executor, list_approvals, list_plans
from cerebri.execution import store as execution_store
from tests._radicale import RadicaleServer

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "examples" / "put-on-calendar.sh"
BIN = Path(sys.executable).parent
runner = CliRunner()


def _events(text: str, summary: str) -> list[Any]:
    return [c for c in Calendar.from_ical(text).walk("VEVENT") if str(c.get("SUMMARY")) == summary]


def _store_facts(url: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    engine = execution_store.open_engine(execution_store.parse_store_url(url))
    try:
        executor = Executor(engine, SystemClock(), UuidIds())
        return list_plans(executor), list_approvals(executor, status=None)
    finally:
        engine.dispose()


def _check_store(url: str) -> None:
    plans, approvals = _store_facts(url)
    assert [p["status"] for p in plans] == ["completed"]
    [approval] = approvals
    assert (approval["status"], approval["decided_by"], approval["signed"]) == (
        "approved",
        "principal:bob",
        True,
    )
    assert (approval["author"], approval["requester"]) == ("principal:alice", "principal:alice")


COMMAND_TIMEOUT_SECONDS = 300
"""Hang guard of *one* ``cerebri`` command of the script. Each command is a new Python
process importing the package (about 2.5 s of CPU, several times that in wall time on a
loaded machine) and the script runs about twenty of them, so a bound on the whole script
(it was 300 s) measured the machine's load, not a hang."""


def _guarded_cerebri(folder: Path) -> Path:
    """An executable that runs ``cerebri`` under ``timeout`` (coreutils): a command still
    running after :data:`COMMAND_TIMEOUT_SECONDS` is stopped and the script fails there
    (``set -e``), naming the step in its output."""
    folder.mkdir()
    guarded = folder / "cerebri"
    real = BIN / "cerebri"
    guarded.write_text(
        f'#!/bin/sh\nexec timeout -k 10 {COMMAND_TIMEOUT_SECONDS} "{real}" "$@"\n',
        encoding="utf-8",
    )
    guarded.chmod(0o755)
    return guarded


def test_make_run_puts_the_meeting_on_the_calendar_once(tmp_path: Path) -> None:
    guarded = _guarded_cerebri(tmp_path / "bin")
    env = {**os.environ, "TMPDIR": str(tmp_path), "CEREBRI": str(guarded)}
    env.update(PYTHON=sys.executable)
    env.pop("CEREBRI_STORE", None)
    commands = SCRIPT.read_text(encoding="utf-8").count('"$CEREBRI"')
    assert commands > 10  # the bound below follows the script's length
    done = subprocess.run(
        ["bash", str(SCRIPT)],
        env=env,
        capture_output=True,
        text=True,
        timeout=commands * COMMAND_TIMEOUT_SECONDS,  # a backstop: each command is guarded
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "approval.self_approval" in done.stderr  # alice was refused before bob approved
    [work] = list(tmp_path.glob("cerebri-meeting.*"))
    text = (work / "alice.ics").read_text()
    [busy] = _events(text, "Planning")
    day = busy.decoded("DTSTART").date()
    # alice is busy 09:00-10:30 and bob 10:30-11:30 (UTC); the earliest free half hour on the
    # 15-minute grid inside 09:00-12:30 is therefore 11:30-12:00
    [created] = _events(text, "Design review")
    start = datetime(day.year, day.month, day.day, 11, 30, tzinfo=UTC)
    assert created.decoded("DTSTART") == start
    assert created.decoded("DTEND") == start + timedelta(minutes=30)
    assert _events((work / "bob.ics").read_text(), "Design review") == []
    _check_store(f"sqlite:///{work / 'store.sqlite3'}")


# -- PostgreSQL and CalDAV ---------------------------------------------------------------


def _ics(uid: str, start: datetime, end: datetime, summary: str) -> str:
    stamp = "%Y%m%dT%H%M%SZ"
    return "\r\n".join(
        [
            "BEGIN:VCALENDAR",
            "VERSION:2.0",
            "PRODID:-//test//scenario//EN",
            "BEGIN:VEVENT",
            f"UID:{uid}",
            "DTSTAMP:20260101T000000Z",
            f"DTSTART:{start.strftime(stamp)}",
            f"DTEND:{end.strftime(stamp)}",
            f"SUMMARY:{summary}",
            "END:VEVENT",
            "END:VCALENDAR",
            "",
        ]
    )


@pytest.fixture
def calendars(radicale: RadicaleServer) -> Iterator[tuple[DAVClient, dict[str, Any]]]:
    client = DAVClient(url=radicale.url, username="scenario", password="unused")
    principal = client.principal()
    suffix = os.urandom(4).hex()
    made = {
        name: principal.make_calendar(name=f"{name}{suffix}", cal_id=f"{name}{suffix}")
        for name in ("alice", "bob")
    }
    yield client, made
    for calendar in made.values():
        calendar.delete()
    client.close()


def _cli(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, (args, result.output)
    return result.stdout


def test_postgresql_and_caldav(
    postgres_url: str,
    calendars: tuple[DAVClient, dict[str, Any]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _, made = calendars
    day = (datetime.now(UTC) + timedelta(days=2)).date()
    at = datetime(day.year, day.month, day.day, tzinfo=UTC)
    made["alice"].save_event(
        _ics("a-busy", at + timedelta(hours=9), at + timedelta(hours=10, minutes=30), "Plan")
    )
    made["bob"].save_event(
        _ics(
            "b-busy",
            at + timedelta(hours=10, minutes=30),
            at + timedelta(hours=11, minutes=30),
            "1:1",
        )
    )
    urls = {name: str(calendar.url) for name, calendar in made.items()}
    alice_id = urls["alice"].rstrip("/").rsplit("/", 1)[-1]
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CEREBRI_STORE", postgres_url)
    monkeypatch.setenv("CEREBRI_CALDAV_USER", "scenario")
    monkeypatch.setenv("CEREBRI_CALDAV_PASSWORD", "unused")
    _cli("store", "init")
    for name, role in (("alice", "requester"), ("bob", "approver")):
        _cli("keys", "new", "--dir", "keys", name, "--principal", f"principal:{name}")
        _cli("principals", "add", f"principal:{name}", "--role", role)
        _cli("principals", "key", f"principal:{name}", "--keys", "keys", "--keyid", name)
    _cli("principals", "grant", "principal:alice", "calendar.event.create", "--calendar", alice_id)
    window = f"{day.isoformat()}T09:00/{day.isoformat()}T12:30"
    request = _cli(
        "find-slot", "--caldav", urls["alice"], "--caldav", urls["bob"], "--duration", "30m",
        "--between", window, "--create", "Design review", "--no-cache", "--emit-request",
    )  # fmt: skip
    (tmp_path / "request.json").write_text(request)
    _cli(
        "propose", "request.json", "--as", "plan-graph", "--title", "Design review",
        "--limits", "local", "--key", "keys/alice.pem", "--keyid", "alice",
        "--objects", "objects", "--expires-in", "604800", "--out", "envelope.json",
    )  # fmt: skip
    submitted = json.loads(_cli("submit", "envelope.json", "--objects", "objects", "--json"))
    assert submitted["author"] == "principal:alice"
    calendar = f"{alice_id}={urls['alice']}"
    _cli("worker", "--until-idle", "--caldav-calendar", calendar)
    [asked] = json.loads(_cli("approvals", "list", "--json"))
    refused = runner.invoke(
        app,
        ["approvals", "approve", asked["id"], "--as", "principal:alice", "--key", "keys/alice.pem"],
    )
    assert refused.exit_code == 2
    assert "approval.self_approval" in refused.output
    _cli("approvals", "approve", asked["id"], "--as", "principal:bob", "--key", "keys/bob.pem")
    _cli("worker", "--until-idle", "--caldav-calendar", calendar)
    _check_store(postgres_url)

    found = []
    for event in made["alice"].events():
        component = event.icalendar_component
        if str(component.get("SUMMARY")) == "Design review":
            found.append(component)
    assert len(found) == 1
    assert re.fullmatch(r"event-[0-9a-f]{32}", str(found[0].get("UID")))
    start = at + timedelta(hours=11, minutes=30)
    assert found[0].decoded("DTSTART") == start
    assert found[0].decoded("DTEND") == start + timedelta(minutes=30)
    assert [
        e
        for e in made["bob"].events()
        if str(e.icalendar_component.get("SUMMARY")) == "Design review"
    ] == []


def test_an_empty_caldav_calendar_can_receive_the_event(
    calendars: tuple[DAVClient, dict[str, Any]],
) -> None:
    """A collection holding no events is still a calendar: it keeps its id, so --create can
    target it (it once vanished, and the event went to the next calendar read)."""
    _, made = calendars
    day = (datetime.now(UTC) + timedelta(days=2)).date()
    at = datetime(day.year, day.month, day.day, tzinfo=UTC)
    made["bob"].save_event(_ics("b-busy", at + timedelta(hours=9), at + timedelta(hours=10), "1:1"))
    urls = [str(made[name].url) for name in ("alice", "bob")]
    alice_id = urls[0].rstrip("/").rsplit("/", 1)[-1]
    window = f"{day.isoformat()}T09:00/{day.isoformat()}T11:00"
    for chosen in ([], ["--calendar", alice_id]):
        result = runner.invoke(
            app,
            [
                "find-slot", "--caldav", urls[0], "--caldav", urls[1], "--duration", "30m",
                "--between", window, "--create", "Sync", "--no-cache", "--emit-request",
                "--caldav-user", "scenario", "--caldav-password", "unused", *chosen,
            ],
        )  # fmt: skip
        assert result.exit_code == 0, result.output
        [target] = _new_events(json.loads(result.stdout))
        assert target["calendar_id"] == alice_id


def _new_events(document: Any) -> list[dict[str, Any]]:
    """Every object of the request whose id is a new event's (``event-<digest>``)."""
    if isinstance(document, list):
        return [found for item in document for found in _new_events(item)]
    if not isinstance(document, dict):
        return []
    mine = [document] if str(document.get("id", "")).startswith("event-") else []
    return mine + [found for value in document.values() for found in _new_events(value)]
