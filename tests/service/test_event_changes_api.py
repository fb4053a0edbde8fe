"""``POST /v1/events/reschedule|cancel|update`` (issue #23, docs/decisions/0058).

The answers are compared with the command line's for the same calendars written as files:
the body is ``cerebri reschedule --json`` plus ``request`` equal to ``--emit-request``, byte
for byte through the one encoder. The candidates are also checked against starts computed
here from the busy times written in the fixtures (tests/cli/test_cli_changes.py), and every
answer against the route's documented response schema.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from fastapi.testclient import TestClient
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012
from typer.testing import CliRunner

from cerebri._json import compact
from cerebri.cli import app as cli
from cerebri.service import ServiceSettings, create_app
from tests.cli.test_cli_changes import (
    ALICE_BUSY,
    BOB_BUSY,
    HEAD,
    SYNC,
    TAIL,
    WEEKLY,
    _at,
    _busy_events,
    _expected_starts,
    _utc,
)
from tests.service.conftest import JSON

TEXTS = {
    "alice": HEAD + SYNC + WEEKLY + _busy_events("alice", ALICE_BUSY) + TAIL,
    "bob": HEAD + SYNC + WEEKLY + _busy_events("bob", BOB_BUSY) + TAIL,
}
BERLIN = {"tz": "Europe/Berlin"}
DAY = "2026-10-05T08:00/2026-10-05T18:00"
_BASE = "urn:cerebri:openapi"


@pytest.fixture(scope="module")
def client() -> TestClient:
    return TestClient(create_app(ServiceSettings(lab_dir=Path("/nonexistent"))))


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("changes")
    paths = {}
    for name, text in TEXTS.items():
        paths[name] = folder / f"{name}.ics"
        paths[name].write_text(text, newline="")
    return paths


@pytest.fixture(scope="module")
def validator(client: TestClient) -> Draft202012Validator:
    document = client.get("/openapi.json").json()
    content = document["paths"]["/v1/events/reschedule"]["post"]["responses"]["200"]["content"]
    ref = content["application/json"]["schema"]["$ref"]
    registry: Registry[Any] = Registry().with_resource(
        _BASE, Resource(contents=document, specification=DRAFT202012)
    )
    return Draft202012Validator({"$ref": _BASE + ref}, registry=registry)


def _calendars(*names: str) -> list[dict[str, Any]]:
    return [{"id": name, "ics": TEXTS[name]} for name in names]


def _post(client: TestClient, operation: str, body: dict[str, Any]) -> Any:
    return client.post(f"/v1/events/{operation}", content=json.dumps(body), headers=JSON)


def _cli(command: str, files: dict[str, Path], *options: str) -> tuple[Any, Any]:
    """(``--json`` document, ``--emit-request`` request) of the command over the files."""
    base = [command, *options, "--ics", str(files["alice"]), "--ics", str(files["bob"])]
    answers = []
    for flag in ("--json", "--emit-request"):
        result = CliRunner().invoke(cli, [*base, "--tz", "Europe/Berlin", flag])
        assert result.exit_code == 0, result.output
        answers.append(json.loads(result.stdout))
    return answers[0], answers[1]


def _fits(validator: Draft202012Validator, body: Any) -> None:
    errors = [(list(e.absolute_path), e.message[:200]) for e in validator.iter_errors(body)]
    assert not errors, errors


def test_reschedule_answers_the_cli_document_and_request(
    client: TestClient, files: dict[str, Path], validator: Draft202012Validator
) -> None:
    body = {
        "uid": "sync@example.com",
        "calendars": _calendars("alice", "bob"),
        "between": DAY,
        "granularity": "30m",
        **BERLIN,
    }
    response = _post(client, "reschedule", body)
    assert response.status_code == 200, response.text
    document, request = _cli(
        "reschedule", files, "sync@example.com", "--between", DAY, "--granularity", "30m"
    )
    assert response.content == compact({**document, "request": request}).encode()
    answer = response.json()
    _fits(validator, answer)
    for broken in (
        {k: v for k, v in answer.items() if k != "request"},
        {**answer, "surprise": 1},
        {**answer, "event": {**answer["event"], "sequence": "2"}},
    ):
        assert not validator.is_valid(broken)
    starts = [c["proposed"]["placements"][0]["range"]["start"] for c in answer["candidates"]]
    # the current start is no new time (Unchanged): every other free start, least disruption
    expected = [s for s in _expected_starts(timedelta(hours=1)) if s != _at("10:00")]
    assert starts == [_utc(s) for s in expected]
    assert answer["event"]["start"] == _utc(_at("10:00"))
    assert answer["change"] == answer["request"]["change"]
    assert answer["request"]["operation"] == "RESCHEDULE"


def test_cancel_one_instance(
    client: TestClient, files: dict[str, Path], validator: Draft202012Validator
) -> None:
    body = {
        "uid": "weekly@example.com",
        "calendars": _calendars("alice", "bob"),
        "instance": "2026-10-12T14:00",
        **BERLIN,
    }
    response = _post(client, "cancel", body)
    assert response.status_code == 200, response.text
    document, request = _cli(
        "cancel-event", files, "weekly@example.com", "--instance", "2026-10-12T14:00"
    )
    assert response.content == compact({**document, "request": request}).encode()
    answer = response.json()
    _fits(validator, answer)
    [candidate] = answer["candidates"]
    placed = candidate["proposed"]["placements"][0]["range"]
    assert (placed["start"], placed["end"]) == (_utc(_at("14:00", 12)), _utc(_at("15:00", 12)))
    assert answer["change"]["scope"] == "INSTANCE"
    assert answer["change"]["recurrence_id"] == _utc(_at("14:00", 12))
    assert answer["request"]["operation"] == "CANCEL"


def test_update_into_a_conflict_and_out_of_one(
    client: TestClient, files: dict[str, Path], validator: Draft202012Validator
) -> None:
    base = {"uid": "sync@example.com", "calendars": _calendars("alice", "bob"), **BERLIN}
    # Sync is 10:00-11:00; Bob's dentist is 11:00-12:00 (tests/cli/test_cli_changes.py)
    longer = _post(client, "update", {**base, "duration": "90m"})
    assert longer.status_code == 200, longer.text
    refused = longer.json()
    _fits(validator, refused)
    assert refused["outcome"] == "NoSolution"
    assert refused["candidates"] == []
    assert refused["conflicts"]["rejections"]
    document, request = _cli("update-event", files, "sync@example.com", "--duration", "90m")
    assert longer.content == compact({**document, "request": request}).encode()
    renamed = _post(client, "update", {**base, "duration": 1800, "title": "Short sync"})
    assert renamed.status_code == 200, renamed.text
    fits = renamed.json()
    _fits(validator, fits)
    [candidate] = fits["candidates"]
    placed = candidate["proposed"]["placements"][0]["range"]
    assert (placed["start"], placed["end"]) == (_utc(_at("10:00")), _utc(_at("10:30")))
    assert fits["change"]["title"] == "Short sync"
    assert fits["request"]["operation"] == "UPDATE"


REFUSALS = [
    ("reschedule", {"uid": "nobody@example.com"}, "calendar.not_found", "/uid"),
    ("reschedule", {"title": "x"}, "input.invalid_option", "/title"),
    ("reschedule", {"between": None}, "input.invalid_option", "/between"),
    ("reschedule", {"instance": "yesterday"}, "input.invalid_option", "/instance"),
    ("reschedule", {"tz": "Mars/Olympus"}, "input.invalid_option", "/tz"),
    ("reschedule", {"granularity": 0}, "input.invalid_option", "/granularity"),
    ("cancel", {"series": True, "instance": "2026-10-05T10:00"}, "input.invalid_option", "/series"),
    ("cancel", {"calendar": "carol"}, "calendars.no_calendar", "/calendar"),
    ("cancel", {"instance": "2026-10-05T10:00"}, "input.invalid_option", ""),  # no series
    ("update", {}, "input.invalid_option", ""),  # changes nothing
    ("update", {"attendees": ["not-an-address"]}, "input.invalid_option", ""),
    ("update", {"title": ""}, "input.invalid_option", "/title"),
    ("reschedule", {"hours": ["alice=9-17"]}, "input.invalid_option", "/hours/0"),
    ("reschedule", {"hours": ["bob=@UTC", "carol=@UTC"]}, "input.invalid_option", "/hours/1"),
    (
        "update",
        {"title": "x", "hours": ["bob=@UTC", "bob=@UTC"]},
        "input.invalid_option",
        "/hours/1",
    ),
    ("cancel", {"hours": ["bob=@UTC"]}, "input.invalid_option", "/hours"),  # not a cancel's
]


@pytest.mark.parametrize(("operation", "change", "code", "path"), REFUSALS)
def test_refusals_are_problems_with_pointers(
    client: TestClient, operation: str, change: dict[str, Any], code: str, path: str
) -> None:
    body: dict[str, Any] = {"uid": "sync@example.com", "calendars": _calendars("alice", "bob")}
    if operation == "reschedule":
        body["between"] = DAY
    body.update(change)
    body = {key: value for key, value in body.items() if value is not None}
    response = _post(client, operation, body)
    assert response.status_code == 422, response.text
    assert response.headers["content-type"] == "application/problem+json"
    problem = response.json()
    assert (problem["code"], problem["path"]) == (code, path), problem


def test_a_calendar_that_cannot_be_read_points_at_its_text(client: TestClient) -> None:
    body = {
        "uid": "sync@example.com",
        "calendars": [*_calendars("alice"), {"id": "bob", "ics": "BEGIN:VCALENDAR\r\nnope"}],
    }
    response = _post(client, "cancel", body)
    assert response.status_code == 422
    problem = response.json()
    assert problem["code"].startswith("ics.")
    assert problem["path"] == "/calendars/1/ics"


def test_limits_are_find_slots(client: TestClient) -> None:
    small = TestClient(create_app(ServiceSettings(max_find_slot_bytes=1000)))
    body = {"uid": "sync@example.com", "calendars": _calendars("alice", "bob")}
    response = _post(small, "cancel", body)
    assert response.status_code == 413
    assert response.json()["code"] == "input.too_large"
    many = {"uid": "sync@example.com", "calendars": _calendars("alice") * 33}
    response = _post(client, "cancel", many)
    assert response.status_code == 422
    assert response.json()["path"] == "/calendars"
    plain = client.post("/v1/events/cancel", content=b"{}", headers={"Content-Type": "text/plain"})
    assert plain.status_code == 415


def test_optional_attendees_are_reported_per_candidate(
    client: TestClient, files: dict[str, Path], validator: Draft202012Validator
) -> None:
    calendars = [{"id": "alice", "ics": TEXTS["alice"]}, {"id": "bob", "ics": TEXTS["bob"]}]
    calendars[1]["optional"] = True
    body = {"uid": "sync@example.com", "calendars": calendars, "between": DAY, **BERLIN}
    response = _post(client, "reschedule", body)
    assert response.status_code == 200, response.text
    answer = response.json()
    _fits(validator, answer)
    command = ["reschedule", "sync@example.com", "--between", DAY, "--tz", "Europe/Berlin"]
    command += ["--ics", str(files["alice"]), "--optional-ics", str(files["bob"])]
    done = CliRunner().invoke(cli, [*command, "--json"])
    assert done.exit_code == 0, done.output
    assert {k: v for k, v in answer.items() if k != "request"} == json.loads(done.stdout)
    assert len(answer["slots"]) == len(answer["candidates"])
    # Bob's dentist (11:00-12:00) makes him busy at 11:00, which only Alice must keep free
    eleven = [s for s in answer["slots"] if s["start"] == _utc(_at("11:00"))]
    assert eleven and eleven[0]["optional_busy"] == ["bob"]


HOURS = ["alice=Mon-Fri 09:00-12:00@America/New_York", "bob=@Asia/Tokyo"]


HOURS_CASES = [
    ("reschedule", "reschedule", {"between": DAY, "granularity": "30m"}),
    ("update", "update-event", {"duration": "30m"}),
]


@pytest.mark.parametrize("case", HOURS_CASES)
def test_hours_answer_the_cli_document_with_local_times(
    client: TestClient,
    files: dict[str, Path],
    validator: Draft202012Validator,
    case: tuple[str, str, dict[str, str]],
) -> None:
    operation, command, options = case
    body = {
        "uid": "sync@example.com",
        "calendars": _calendars("alice", "bob"),
        "hours": HOURS,
        **options,
        **BERLIN,
    }
    response = _post(client, operation, body)
    assert response.status_code == 200, response.text
    flags = [x for key, value in options.items() for x in (f"--{key}", value)]
    hours = [x for entry in HOURS for x in ("--hours", entry)]
    document, request = _cli(command, files, "sync@example.com", *flags, *hours)
    assert response.content == compact({**document, "request": request}).encode()
    answer = response.json()
    _fits(validator, answer)
    assert answer["candidates"], answer
    zones = {"alice": "America/New_York", "bob": "Asia/Tokyo"}
    starts = [c["proposed"]["placements"][0]["range"] for c in answer["candidates"]]
    # local_times[i] is candidates[i] in each attendee's zone, computed here with zoneinfo
    assert answer["local_times"] == [
        {
            name: {
                "start": _local(span["start"], zone),
                "end": _local(span["end"], zone),
                "zone": zone,
            }
            for name, zone in zones.items()
        }
        for span in starts
    ]
    if operation == "reschedule":
        # alice's 09:00-12:00 in New York is 13:00-16:00 UTC: nothing starts before
        assert all(span["start"] >= "2026-10-05T13:00:00Z" for span in starts), starts


def _local(text: str, zone: str) -> str:
    moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return moment.astimezone(ZoneInfo(zone)).isoformat()


def test_a_series_reschedule_carries_its_series_check(
    client: TestClient, validator: Draft202012Validator
) -> None:
    """decision 0063: the weekly event (Mondays 14:00-15:00 Berlin, 10-05, 12, 19) moved as a
    whole to Tuesday 10-06 from 14:00; bob's block on 10-20 14:00-14:30 (12:00Z-12:30Z) is in
    the way of the 14:00 start's third instance, not of 14:30 or 15:00."""
    late = (
        "BEGIN:VEVENT\r\nUID:bob-late@example.com\r\nDTSTAMP:20260101T000000Z\r\n"
        "DTSTART;TZID=Europe/Berlin:20261020T140000\r\n"
        "DTEND;TZID=Europe/Berlin:20261020T143000\r\nSUMMARY:Late\r\nEND:VEVENT\r\n"
    )
    body = {
        "uid": "weekly@example.com",
        "calendars": [
            {"id": "alice", "ics": HEAD + WEEKLY + TAIL},
            {"id": "bob", "ics": HEAD + WEEKLY + late + TAIL},
        ],
        "series": True,
        "between": "2026-10-06T14:00/2026-10-06T16:00",
        "granularity": "30m",
        **BERLIN,
    }
    response = _post(client, "reschedule", body)
    assert response.status_code == 200, response.text
    answer = response.json()
    _fits(validator, answer)
    starts = [c["proposed"]["placements"][0]["range"]["start"] for c in answer["candidates"]]
    assert starts == ["2026-10-06T12:30:00Z", "2026-10-06T13:00:00Z"]
    check = answer["series_check"]
    assert check["until"] == "2026-12-01T14:00:00Z"
    assert [(r["start"], r["instance"]["start"], r["blocker"]) for r in check["rejected"]] == [
        ("2026-10-06T12:00:00Z", "2026-10-20T12:00:00Z", "bob-late@example.com")
    ]
    assert check["request_ranks"] == [2, 3]
    assert not validator.is_valid({**answer, "series_check": {**check, "surprise": 1}})
