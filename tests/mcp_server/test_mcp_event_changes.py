"""The MCP tools ``reschedule_event``, ``cancel_event`` and ``update_event`` over stdio
(issue #23, docs/decisions/0058).

Each answer is compared with the command line's for the same .ics files: ``--json`` plus
``request`` equal to ``--emit-request``. Proposing goes through the ``propose`` tool's path:
the envelope is the one ``propose`` answers for the same request, and no tool approves.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import caldav
import pytest
from icalendar import Calendar
from typer.testing import CliRunner

from cerebri.cli import app as cli
from tests._radicale import RadicaleServer, serve
from tests.cli.test_cli_changes import ALICE_BUSY, BOB_BUSY, HEAD, SYNC, TAIL, WEEKLY, _busy_events
from tests.mcp_server.support import Live, live_server

AT = "2026-10-01T00:00:00Z"
DAY = "2026-10-05T08:00/2026-10-05T18:00"
BERLIN = {"tz": "Europe/Berlin"}


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    here = tmp_path_factory.mktemp("changes")
    texts = {
        "alice": HEAD + SYNC + WEEKLY + _busy_events("alice", ALICE_BUSY) + TAIL,
        "bob": HEAD + SYNC + WEEKLY + _busy_events("bob", BOB_BUSY) + TAIL,
    }
    for name, text in texts.items():
        (here / f"{name}.ics").write_text(text, newline="")
    return here


@pytest.fixture(scope="module")
def live(folder: Path) -> Iterator[Live]:
    with live_server("--at", AT, "--ics-root", str(folder)) as connected:
        yield connected


def _cli(folder: Path, *command: str) -> dict[str, Any]:
    """The CLI's ``--json`` document plus ``request`` from ``--emit-request``."""
    files = ["--ics", str(folder / "alice.ics"), "--ics", str(folder / "bob.ics")]
    answers = []
    for flag in ("--json", "--emit-request"):
        done = CliRunner().invoke(cli, [*command, *files, "--tz", "Europe/Berlin", flag])
        assert done.exit_code == 0, done.output
        answers.append(json.loads(done.stdout))
    document: dict[str, Any] = {**answers[0], "request": answers[1]}
    return document


CALENDARS = {"ics": ["alice.ics", "bob.ics"]}


def test_reschedule_answers_the_cli_document(live: Live, folder: Path) -> None:
    answer = live.ok(
        "reschedule_event",
        {"uid": "sync@example.com", "between": DAY, "granularity": "30m", **CALENDARS, **BERLIN},
    )
    expected = _cli(
        folder, "reschedule", "sync@example.com", "--between", DAY, "--granularity", "30m"
    )
    assert json.dumps(answer) == json.dumps(expected)  # same members, same order
    assert "proposal" not in answer


HOURS = ["alice=Mon-Fri 09:00-12:00@America/New_York", "bob=@Asia/Tokyo"]


def test_hours_answer_the_cli_document_with_local_times(live: Live, folder: Path) -> None:
    hours = [x for entry in HOURS for x in ("--hours", entry)]
    ask = {"uid": "sync@example.com", "hours": HOURS, **CALENDARS, **BERLIN}
    answer = live.ok("reschedule_event", {**ask, "between": DAY, "granularity": "30m"})
    expected = _cli(
        folder, "reschedule", "sync@example.com", "--between", DAY, "--granularity", "30m", *hours
    )
    assert json.dumps(answer) == json.dumps(expected)
    assert len(answer["local_times"]) == len(answer["candidates"]) > 0
    for local in answer["local_times"]:  # inside alice's 09:00-12:00 in New York (EDT)
        start, end = local["alice"]["start"], local["alice"]["end"]
        assert start.endswith("-04:00") and end.endswith("-04:00"), local
        assert start[:16] >= "2026-10-05T09:00" and end[:16] <= "2026-10-05T12:00", local
    assert answer["local_times"][0]["bob"]["zone"] == "Asia/Tokyo"
    updated = live.ok("update_event", {**ask, "duration": "30m"})
    assert json.dumps(updated) == json.dumps(
        _cli(folder, "update-event", "sync@example.com", "--duration", "30m", *hours)
    )
    assert set(updated["local_times"][0]) == {"alice", "bob"}


def test_cancel_proposes_through_the_propose_path(live: Live, folder: Path) -> None:
    ask = {"uid": "weekly@example.com", "instance": "2026-10-12T14:00", **CALENDARS, **BERLIN}
    answer = live.ok("cancel_event", {**ask, "propose": {"expires_in": 30 * 86_400}})
    proposal = answer.pop("proposal")
    expected = _cli(folder, "cancel-event", "weekly@example.com", "--instance", "2026-10-12T14:00")
    assert answer == expected
    proposed = live.ok(
        "propose",
        {
            "request": answer["request"],
            "wrap": "plan-graph",
            "limits": "local",
            "expires_in": 30 * 86_400,
        },
    )
    assert proposal == proposed  # the same envelope: one path, one clock
    assert proposal["signed"] is False
    assert proposal["artifact"]["type"] == "cerebri.plan-graph.v1"
    assert proposal["still_required"]


def test_update_into_a_conflict_proposes_nothing(live: Live, folder: Path) -> None:
    ask = {"uid": "sync@example.com", "duration": "90m", **CALENDARS, **BERLIN}
    answer = live.ok("update_event", {**ask, "propose": {}})
    assert answer.pop("proposal") is None
    assert answer["outcome"] == "NoSolution"
    assert answer == _cli(folder, "update-event", "sync@example.com", "--duration", "90m")
    fits = live.ok("update_event", {**ask, "duration": "30m", "title": "Short sync"})
    assert fits["change"]["title"] == "Short sync"
    [candidate] = fits["candidates"]
    assert candidate["proposed"]["placements"][0]["range"]["end"] == "2026-10-05T08:30:00Z"


@pytest.mark.parametrize(
    ("tool", "arguments", "code", "path"),
    [
        (
            "reschedule_event",
            {"uid": "nobody@example.com", "between": DAY},
            "calendar.not_found",
            "/uid",
        ),
        ("reschedule_event", {"uid": "sync@example.com"}, "input.invalid_option", "/between"),
        (
            "cancel_event",
            {"uid": "sync@example.com", "caldav": ["work"], "between": DAY},
            "mcp.not_configured",
            "/caldav/0",
        ),
        (
            "cancel_event",
            {"uid": "sync@example.com", "instance": "soon"},
            "input.invalid_option",
            "/instance",
        ),
        ("update_event", {"uid": "sync@example.com"}, "input.invalid_option", ""),  # no edit
        ("update_event", {"uid": "sync@example.com", "ics": []}, "input.missing", "/ics"),
        (
            "cancel_event",
            {"uid": "sync@example.com", "caldav": ["work"], "ics": []},
            "input.missing",
            "/between",
        ),
        (
            "update_event",
            {"uid": "sync@example.com", "title": "x", "ics": ["../x.ics"]},
            "mcp.path_not_allowed",
            "/ics/0",
        ),
        (
            "reschedule_event",
            {"uid": "sync@example.com", "between": DAY, "propose": {"expires_in": 60}},
            "proposal.expires_before_slot",
            "/propose/expires_in",
        ),
        (
            "reschedule_event",
            {"uid": "sync@example.com", "between": DAY, "propose": {"submit": True}},
            "mcp.not_configured",
            "/propose/submit",
        ),
        (
            "reschedule_event",
            {"uid": "sync@example.com", "between": DAY, "hours": ["alice=9-17"]},
            "input.invalid_option",
            "/hours/0",
        ),
        (
            "update_event",
            {"uid": "sync@example.com", "title": "x", "hours": ["bob=@UTC", "carol=@UTC"]},
            "input.invalid_option",
            "/hours/1",
        ),
    ],
)
def test_refusals_point_into_the_arguments(
    live: Live, tool: str, arguments: dict[str, Any], code: str, path: str
) -> None:
    given = {**CALENDARS, **BERLIN, **arguments}
    error = live.error(tool, given)
    assert (error["code"], error["path"]) == (code, path), error


def test_the_change_tools_are_listed_and_none_approves(live: Live) -> None:
    tools = {tool.name: tool for tool in live.tools()}
    for name in ("reschedule_event", "cancel_event", "update_event"):
        schema = tools[name].input_schema
        assert "uid" in schema["required"]
        assert "propose" in schema["properties"]
        assert not any(word in key for key in schema["properties"] for word in ("approv", "grant"))
    assert not any(word in name for name in tools for word in ("approve", "reject", "grant"))


@pytest.fixture(scope="module")
def radicale(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RadicaleServer]:
    """Radicale without authentication, for this module."""
    yield from serve(tmp_path_factory.mktemp("radicale-changes-mcp"), "--auth-type", "none")


def test_reschedule_over_configured_caldav_sources(folder: Path, radicale: RadicaleServer) -> None:
    """CalDAV sources the operator configured (the agent names them, never a URL) answer as
    ``cerebri reschedule --caldav URL`` over the same collections, target integration caldav."""
    urls = {}
    with caldav.DAVClient(radicale.url, username="x", password="x", timeout=10) as client:
        for name in ("alice", "bob"):
            collection = client.principal().make_calendar(name=name, cal_id=f"{name}-work")
            calendar = Calendar.from_ical((folder / f"{name}.ics").read_bytes())
            for event in calendar.walk("VEVENT"):
                one = Calendar()
                one.add("VERSION", "2.0")
                one.add("PRODID", "-//test//EN")
                one.add_component(event)
                collection.save_event(one.to_ical().decode())
            urls[f"{name}-work"] = str(collection.url)
    window = ["--between", DAY, "--granularity", "30m", "--tz", "Europe/Berlin"]
    command = ["reschedule", "sync@example.com", *window, "--no-cache"]
    for url in urls.values():
        command += ["--caldav", url]
    answers = []
    for flag in ("--json", "--emit-request"):
        done = CliRunner().invoke(cli, [*command, flag])
        assert done.exit_code == 0, done.output
        answers.append(json.loads(done.stdout))
    expected = {**answers[0], "request": answers[1]}
    options = ["--at", AT]
    for name, url in urls.items():
        options += ["--caldav", f"{name}={url}"]
    with live_server(*options) as connected:
        answer = connected.ok(
            "reschedule_event",
            {
                "uid": "sync@example.com",
                "caldav": list(urls),
                "between": DAY,
                "granularity": "30m",
                **BERLIN,
            },
        )
    assert answer == expected
    assert answer["event"]["calendar"] == "alice-work"
    assert answer["request"]["change"]["etag"].startswith("sha256:")
    assert '"calendar_id": "alice-work", "integration_id": "caldav"' in json.dumps(
        answer["request"]
    )
