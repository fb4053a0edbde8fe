"""``cerebri reschedule``, ``cerebri cancel-event`` and ``cerebri update-event`` over .ics
files (issue #23, docs/decisions/0055).

Expected candidates are computed here from the busy times written in the fixtures (a walk
over the grid) and ordered by the contract's disruption rule (class, then distance to the
current start, then start); every emitted request is replayed with ``cerebri plan``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import caldav
import pytest
from icalendar import Calendar
from typer.testing import CliRunner, Result

from cerebri.cli import app
from tests._radicale import RadicaleServer, serve

BERLIN = ZoneInfo("Europe/Berlin")
EXTRA = ("warnings", "event", "change")  # what --json adds to the PlanningResult
HEAD = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n"
TAIL = "END:VCALENDAR\r\n"
PEOPLE = (
    "ORGANIZER:mailto:alice@example.com\r\n"
    "ATTENDEE;ROLE=REQ-PARTICIPANT:mailto:alice@example.com\r\n"
    "ATTENDEE;ROLE=REQ-PARTICIPANT:mailto:bob@example.com\r\n"
)


def _event(uid: str, start: str, end: str, summary: str, extra: str = "") -> str:
    return (
        f"BEGIN:VEVENT\r\nUID:{uid}\r\nDTSTAMP:20260101T000000Z\r\n"
        f"DTSTART;TZID=Europe/Berlin:{start}\r\nDTEND;TZID=Europe/Berlin:{end}\r\n"
        f"SUMMARY:{summary}\r\n{extra}END:VEVENT\r\n"
    )


SYNC = _event("sync@example.com", "20261005T100000", "20261005T110000", "Sync", PEOPLE)
WEEKLY = _event(
    "weekly@example.com",
    "20261005T140000",
    "20261005T150000",
    "Weekly",
    "RRULE:FREQ=WEEKLY;COUNT=3\r\n" + PEOPLE,
)
# busy time written here and used by the expectations below (local Berlin times, Oct 5)
ALICE_BUSY = [("08:00", "09:00", "Breakfast"), ("12:00", "13:00", "Lunch")]
BOB_BUSY = [("11:00", "12:00", "Dentist"), ("15:30", "17:00", "Gym")]


def _busy_events(name: str, busy: list[tuple[str, str, str]]) -> str:
    return "".join(
        _event(
            f"{name}-{index}@example.com",
            "20261005T" + start.replace(":", "") + "00",
            "20261005T" + end.replace(":", "") + "00",
            summary,
        )
        for index, (start, end, summary) in enumerate(busy)
    )


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    texts = {
        "alice": HEAD + SYNC + WEEKLY + _busy_events("alice", ALICE_BUSY) + TAIL,
        "bob": HEAD + SYNC + WEEKLY + _busy_events("bob", BOB_BUSY) + TAIL,
    }
    paths = {}
    for name, text in texts.items():
        path = tmp_path / f"{name}.ics"
        path.write_text(text, newline="")
        paths[name] = path
    return paths


def run(*args: str | Path) -> Result:
    return CliRunner().invoke(app, [str(a) for a in args])


def run_json(*args: str | Path) -> dict[str, Any]:
    """``cerebri ARGS`` (which print JSON); the document. Fails the test on a non-zero exit."""
    answer = run(*args)
    assert answer.exit_code == 0, answer.output
    document: dict[str, Any] = json.loads(answer.stdout)
    return document


def _ics(files: dict[str, Path]) -> list[str | Path]:
    return ["--ics", files["alice"], "--ics", files["bob"], "--tz", "Europe/Berlin"]


def _at(hhmm: str, day: int = 5) -> datetime:
    hour, minute = map(int, hhmm.split(":"))
    return datetime(2026, 10, day, hour, minute, tzinfo=BERLIN)


def _expected_starts(duration: timedelta) -> list[datetime]:
    """Free 30-minute grid starts on Oct 5, 08:00-18:00 Berlin, for both (the Sync itself
    left out; the weekly 14:00-15:00 stays busy), ordered by least disruption from 10:00."""
    busy = [(_at(s), _at(e)) for s, e, _ in ALICE_BUSY + BOB_BUSY]
    busy.append((_at("14:00"), _at("15:00")))
    starts = []
    moment = _at("08:00")
    while moment + duration <= _at("18:00"):
        if all(moment + duration <= s or e <= moment for s, e in busy):
            starts.append(moment)
        moment += timedelta(minutes=30)
    current = _at("10:00")
    return sorted(starts, key=lambda s: (abs((s - current).total_seconds()), s))


def _utc(moment: datetime) -> str:
    return f"{moment.astimezone(UTC):%Y-%m-%dT%H:%M:%SZ}"


def _replay(tmp_path: Path, request_text: str) -> dict[str, Any]:
    path = tmp_path / "request.json"
    path.write_text(request_text)
    replay = run("plan", "--limits", "local", path)
    assert replay.exit_code == 0, replay.output
    result: dict[str, Any] = json.loads(replay.stdout)
    return result


def test_reschedule_offers_every_free_start_least_disruption_first_and_replays(
    files: dict[str, Path], tmp_path: Path
) -> None:
    args = [
        "reschedule",
        "sync@example.com",
        *_ics(files),
        "--between",
        "2026-10-05T08:00/2026-10-05T18:00",
        "--granularity",
        "30m",
    ]
    document = run_json(*args, "--json")
    starts = [c["start"] for c in document["candidates"]]
    expected = [_utc(s) for s in _expected_starts(timedelta(hours=1)) if s != _at("10:00")]
    assert [s for s in starts if s != _utc(_at("10:00"))] == expected
    assert document["event"]["start"] == _utc(_at("10:00"))
    assert document["change"]["uid"] == "sync@example.com"
    emitted = run(*args, "--emit-request")
    assert emitted.exit_code == 0, emitted.output
    replayed = _replay(tmp_path, emitted.stdout)
    ours = {k: v for k, v in document.items() if k not in EXTRA}
    assert replayed == ours
    text = run(*args, "--top", "3")
    assert text.exit_code == 0, text.output
    assert "before: Mon 2026-10-05 10:00 - Mon 2026-10-05 11:00" in text.stdout
    assert "disruption class 0" in text.stdout


def test_an_instance_of_a_series_moves_alone(files: dict[str, Path]) -> None:
    document = run_json(
        "reschedule",
        "weekly@example.com",
        *_ics(files),
        "--instance",
        "2026-10-12T14:00",
        "--between",
        "2026-10-12T13:00/2026-10-12T17:00",
        "--json",
    )
    assert document["change"]["scope"] == "INSTANCE"
    assert document["change"]["recurrence_id"] == _utc(_at("14:00", 12))
    assert document["event"]["start"] == _utc(_at("14:00", 12))
    starts = {c["start"] for c in document["candidates"]}
    assert _utc(_at("13:00", 12)) in starts  # nothing else on Oct 12


def test_unknown_uid_is_calendar_not_found(files: dict[str, Path]) -> None:
    answer = run("cancel-event", "nobody@example.com", *_ics(files), "--json")
    assert answer.exit_code == 2
    assert "calendar.not_found" in answer.stderr


def test_conflicting_scope_options_are_refused(files: dict[str, Path]) -> None:
    answer = run(
        "cancel-event",
        "weekly@example.com",
        *_ics(files),
        "--series",
        "--instance",
        "2026-10-12T14:00",
    )
    assert answer.exit_code == 2
    assert "input.invalid_option" in answer.stderr


def test_cancel_one_instance_emits_a_cancel_request_that_replays(
    files: dict[str, Path], tmp_path: Path
) -> None:
    args = ["cancel-event", "weekly@example.com", *_ics(files), "--instance", "2026-10-19T14:00"]
    emitted = run(*args, "--emit-request")
    assert emitted.exit_code == 0, emitted.output
    request = json.loads(emitted.stdout)
    assert request["operation"] == "CANCEL"
    assert request["change"]["recurrence_id"] == _utc(_at("14:00", 19))
    answer = run(*args, "--json")
    document = json.loads(answer.stdout)
    replayed = _replay(tmp_path, emitted.stdout)
    assert replayed == {
        k: v for k, v in document.items() if k not in ("warnings", "event", "change")
    }
    assert "after: cancelled" in run(*args).stdout


def test_update_into_a_conflict_is_refused_and_names_it(files: dict[str, Path]) -> None:
    args = ["update-event", "sync@example.com", *_ics(files)]
    longer = run(*args, "--duration", "90m")
    assert longer.exit_code == 0, longer.output
    assert "Dentist" in longer.stdout
    assert "refused" in longer.stdout
    document = json.loads(run(*args, "--duration", "90m", "--json").stdout)
    assert document["candidates"] == []
    fits = json.loads(run(*args, "--duration", "1h", "--title", "Planning", "--json").stdout)
    assert [c["start"] for c in fits["candidates"]] == [_utc(_at("10:00"))]
    assert fits["change"]["title"] == "Planning"


def test_caldav_without_a_window_is_refused_before_any_read() -> None:
    answer = run("cancel-event", "sync@example.com", "--caldav", "http://127.0.0.1:9/cal/")
    assert answer.exit_code == 2
    assert "input.missing" in answer.stderr
    assert "--between" in answer.stderr


@pytest.fixture(scope="module")
def radicale(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RadicaleServer]:
    """Radicale without authentication, for this module."""
    yield from serve(tmp_path_factory.mktemp("radicale-changes-cli"), "--auth-type", "none")


def test_reschedule_over_caldav_answers_as_over_files(
    files: dict[str, Path], radicale: RadicaleServer
) -> None:
    urls = []
    with caldav.DAVClient(radicale.url, username="x", password="x", timeout=10) as client:
        for name in ("alice", "bob"):
            collection = client.principal().make_calendar(name=name, cal_id=f"{name}-work")
            calendar = Calendar.from_ical(files[name].read_bytes())
            for event in calendar.walk("VEVENT"):
                one = Calendar()
                one.add("VERSION", "2.0")
                one.add("PRODID", "-//test//EN")
                one.add_component(event)
                collection.save_event(one.to_ical().decode())
            urls.append(str(collection.url))
    window = ["--between", "2026-10-05T08:00/2026-10-05T18:00", "--granularity", "30m"]
    over_dav = run(
        "reschedule",
        "sync@example.com",
        "--caldav",
        urls[0],
        "--caldav",
        urls[1],
        "--tz",
        "Europe/Berlin",
        "--no-cache",
        *window,
        "--json",
    )
    assert over_dav.exit_code == 0, over_dav.output
    dav = json.loads(over_dav.stdout)
    over_files = json.loads(
        run("reschedule", "sync@example.com", *_ics(files), *window, "--json").stdout
    )
    assert [c["start"] for c in dav["candidates"]] == [c["start"] for c in over_files["candidates"]]
    assert dav["event"]["calendar"] == "alice-work"
    assert dav["change"]["etag"].startswith("sha256:")
    assert [a["calendar_id"] for a in dav["change"]["attendees"]] == [None, None]


def test_update_text_shows_the_event_before_and_after(files: dict[str, Path]) -> None:
    answer = run("update-event", "sync@example.com", *_ics(files), "--duration", "30m")
    assert answer.exit_code == 0, answer.output
    assert "before: Mon 2026-10-05 10:00 - Mon 2026-10-05 11:00" in answer.stdout
    assert "after: Mon 2026-10-05 10:00 - Mon 2026-10-05 10:30 (30 min;" in answer.stdout


def _future(files: dict[str, Path], at: str, between: str) -> Result:
    return run(
        "reschedule",
        "weekly@example.com",
        *_ics(files),
        "--this-and-future",
        at,
        "--between",
        between,
        "--json",
    )


def test_this_and_future_never_starts_before_the_kept_instances_end(
    files: dict[str, Path],
) -> None:
    """decision 0055: the old series keeps 10-05 and 10-12 (14:00-15:00), so the new one
    from 10-19 starts no earlier than 10-12 15:00."""
    answer = _future(files, "2026-10-19T14:00", "2026-10-12T08:00/2026-10-19T18:00")
    assert answer.exit_code == 0, answer.output
    document = json.loads(answer.stdout)
    assert document["change"]["scope"] == "THIS_AND_FUTURE"
    starts = sorted(c["start"] for c in document["candidates"])
    assert starts
    assert starts[0] == _utc(_at("15:00", 12))
    refused = _future(files, "2026-10-19T14:00", "2026-10-05T08:00/2026-10-12T15:00")
    assert refused.exit_code == 2
    assert "input.invalid_option" in refused.stderr
    assert "2026-10-12T13:00:00Z" in refused.stderr  # 15:00 Berlin, the kept end


def test_this_and_future_from_the_first_instance_is_the_series(files: dict[str, Path]) -> None:
    answer = _future(files, "2026-10-05T14:00", "2026-10-05T08:00/2026-10-05T18:00")
    assert answer.exit_code == 0, answer.output
    document = json.loads(answer.stdout)
    assert document["change"]["scope"] == "SERIES"
