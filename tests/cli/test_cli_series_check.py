"""``cerebri reschedule --series``: every moved instance checked, in the text and ``--json``
answers, over files and over CalDAV (decision 0063).

The weekly event is Mondays 14:00-15:00 Berlin, 2026-10-05, 12 and 19. Moved as a whole to
Tuesday 2026-10-06 (window 14:00-16:00, 30-minute grid, one hour long) its instances are the
Tuesdays 10-06, 10-13 and 10-20 at the start chosen. Bob is busy on 10-20 from 14:00 to
14:30 (12:00Z-12:30Z): the 14:00 start (12:00Z) meets it at its third instance; 14:30 and
15:00 do not. The window ends 2026-10-06T14:00Z: the check reads until 56 days later,
2026-12-01T14:00Z.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import caldav
import pytest
from icalendar import Calendar
from typer.testing import CliRunner, Result

from cerebri.cli import app
from tests._radicale import RadicaleServer, serve

HEAD = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n"
TAIL = "END:VCALENDAR\r\n"
WEEKLY = (
    "BEGIN:VEVENT\r\nUID:weekly@example.com\r\nDTSTAMP:20260101T000000Z\r\n"
    "DTSTART;TZID=Europe/Berlin:20261005T140000\r\nDTEND;TZID=Europe/Berlin:20261005T150000\r\n"
    "RRULE:FREQ=WEEKLY;COUNT=3\r\nSUMMARY:Weekly\r\nORGANIZER:mailto:alice@example.com\r\n"
    "ATTENDEE;ROLE=REQ-PARTICIPANT:mailto:alice@example.com\r\n"
    "ATTENDEE;ROLE=REQ-PARTICIPANT:mailto:bob@example.com\r\nEND:VEVENT\r\n"
)
LATE = (
    "BEGIN:VEVENT\r\nUID:bob-late@example.com\r\nDTSTAMP:20260101T000000Z\r\n"
    "DTSTART;TZID=Europe/Berlin:20261020T140000\r\nDTEND;TZID=Europe/Berlin:20261020T143000\r\n"
    "SUMMARY:Late\r\nEND:VEVENT\r\n"
)
WINDOW = ["--between", "2026-10-06T14:00/2026-10-06T16:00", "--granularity", "30m"]
ASK = ["reschedule", "weekly@example.com", "--series", "--tz", "Europe/Berlin", *WINDOW]


def run(*args: str | Path) -> Result:
    return CliRunner().invoke(app, [str(a) for a in args])


def _files(tmp_path: Path) -> list[str | Path]:
    alice, bob = tmp_path / "alice.ics", tmp_path / "bob.ics"
    alice.write_text(HEAD + WEEKLY + TAIL, newline="")
    bob.write_text(HEAD + WEEKLY + LATE + TAIL, newline="")
    return ["--ics", alice, "--ics", bob]


def test_the_text_and_json_answers_name_the_instance_in_the_way(tmp_path: Path) -> None:
    sources = _files(tmp_path)
    document = json.loads(run(*ASK, *sources, "--json").stdout)
    assert [c["start"] for c in document["candidates"]] == [
        "2026-10-06T12:30:00Z",
        "2026-10-06T13:00:00Z",
    ]
    check = document["series_check"]
    assert (check["horizon_seconds"], check["until"]) == (56 * 86_400, "2026-12-01T14:00:00Z")
    (rejected,) = check["rejected"]
    assert rejected["start"] == "2026-10-06T12:00:00Z"
    assert rejected["instance"] == {"start": "2026-10-20T12:00:00Z", "end": "2026-10-20T13:00:00Z"}
    assert (rejected["calendar_id"], rejected["blocker"]) == ("bob", "bob-late@example.com")
    assert check["request_ranks"] == [2, 3]  # 12:00Z is the request's first (least shift)

    text = run(*ASK, *sources)
    assert text.exit_code == 0, text.output
    assert "checked up to 56 days after its new start" in text.stdout
    assert "until 2026-12-01T14:00:00Z" in text.stdout
    assert (
        "2026-10-06T12:00:00Z: the series instance moved to [2026-10-20T12:00:00Z, "
        "2026-10-20T13:00:00Z): event 'bob-late@example.com' is busy for bob"
    ) in text.stdout
    assert "propose its candidate 2 (--candidate 2) for #1 above" in text.stdout


@pytest.fixture(scope="module")
def radicale(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RadicaleServer]:
    """Radicale without authentication, for this module."""
    yield from serve(tmp_path_factory.mktemp("radicale-series-cli"), "--auth-type", "none")


def test_over_caldav_the_block_past_the_window_is_found_too(
    tmp_path: Path, radicale: RadicaleServer
) -> None:
    # bob's block lies two weeks past --between: the collections are read whole (decision
    # 0015), so the check sees it as it does in a file
    urls = []
    with caldav.DAVClient(radicale.url, username="x", password="x", timeout=10) as client:
        for name, text in (("alice", WEEKLY), ("bob", WEEKLY + LATE)):
            collection = client.principal().make_calendar(name=name, cal_id=f"{name}-series")
            for event in Calendar.from_ical(HEAD + text + TAIL).walk("VEVENT"):
                one = Calendar()
                one.add("VERSION", "2.0")
                one.add("PRODID", "-//test//EN")
                one.add_component(event)
                collection.save_event(one.to_ical().decode())
            urls.append(str(collection.url))
    answer = run(*ASK, "--caldav", urls[0], "--caldav", urls[1], "--no-cache", "--json")
    assert answer.exit_code == 0, answer.output
    document = json.loads(answer.stdout)
    assert [c["start"] for c in document["candidates"]] == [
        "2026-10-06T12:30:00Z",
        "2026-10-06T13:00:00Z",
    ]
    (rejected,) = document["series_check"]["rejected"]
    assert rejected["blocker"] == "bob-late@example.com"
    assert rejected["calendar_id"].startswith("bob")
