"""HTTP find-slot fixes from the issue #14 new-user trial: the event route names people as
the command line does, and problem details say what is wrong and where."""

from __future__ import annotations

import copy
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import icalendar
import pytest
from fastapi.testclient import TestClient

from cerebri.calendars.wire import FIND_SLOT_MAX_OCCURRENCES
from cerebri.clock import FakeClock
from cerebri.service import create_app
from cerebri.temporal import Instant
from tests.service.test_find_slot_route import ALICE, BOB, BODY

OWNED_ALICE = ALICE.replace("BEGIN:VEVENT", "X-WR-CALNAME:alice@example.com\r\nBEGIN:VEVENT", 1)


@pytest.fixture(scope="module")
def client() -> TestClient:
    stamp = Instant.from_datetime(datetime(2026, 9, 1, 12, tzinfo=UTC))
    return TestClient(create_app(clock=FakeClock(stamp)))


def _event(client: TestClient, body: dict[str, Any]) -> icalendar.cal.Component:
    response = client.post("/v1/find-slot/event", json=body)
    assert response.status_code == 200, response.text
    (event,) = icalendar.Calendar.from_ical(response.content).walk("VEVENT")
    return event


def _people(event: icalendar.cal.Component) -> list[tuple[str, str]]:
    found = event.get("ATTENDEE", [])
    found = found if isinstance(found, list) else [found]
    return [(str(a), str(a.params.get("ROLE"))) for a in found]


def test_event_route_uses_the_calendar_owners_like_the_cli(client: TestClient) -> None:
    body = {**BODY, "calendars": [{"id": "alice", "ics": OWNED_ALICE}, {"id": "bob", "ics": BOB}]}
    event = _event(client, body)
    # alice is the only known owner: organizer and, alone, the chair attendee
    assert str(event["ORGANIZER"]) == "mailto:alice@example.com"
    assert _people(event) == [("mailto:alice@example.com", "CHAIR")]
    named = _event(
        client, {**body, "organizer": "Olga <olga@example.com>", "attendees": ["dan@example.com"]}
    )
    assert str(named["ORGANIZER"]) == "mailto:olga@example.com"
    assert named["ORGANIZER"].params["CN"] == "Olga"
    assert _people(named) == [
        ("mailto:alice@example.com", "REQ-PARTICIPANT"),
        ("mailto:dan@example.com", "REQ-PARTICIPANT"),
    ]


def test_event_route_refuses_a_bad_address_at_its_pointer(client: TestClient) -> None:
    response = client.post("/v1/find-slot/event", json={**BODY, "attendees": ["x", "nobody"]})
    assert response.status_code == 422
    problem = response.json()
    assert (problem["code"], problem["path"]) == ("input.invalid_option", "/attendees/0")


@pytest.mark.parametrize("seconds", [-5, 0])
def test_a_duration_that_is_not_positive_says_so(client: TestClient, seconds: int) -> None:
    problem = client.post("/v1/find-slot", json={**BODY, "duration": seconds}).json()
    assert (problem["code"], problem["path"]) == ("input.invalid_option", "/duration")
    assert "greater than 0" in problem["detail"]
    assert "valid string" not in problem["detail"]


def test_integer_seconds_are_a_duration_and_buffer_zero_is_none(client: TestClient) -> None:
    by_text = client.post("/v1/find-slot", json=BODY).json()
    by_seconds = client.post("/v1/find-slot", json={**BODY, "duration": 45 * 60}).json()
    assert by_seconds["slots"] == by_text["slots"]
    for zero in (0, "0"):
        response = client.post("/v1/find-slot", json={**BODY, "buffer": zero})
        assert response.status_code == 200, response.text
        assert response.json()["slots"] == by_text["slots"]


def test_expansion_limit_points_at_the_calendar_and_names_the_route_limit(
    client: TestClient,
) -> None:
    minutely = (
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//EN\r\nBEGIN:VEVENT\r\nUID:m\r\n"
        "DTSTAMP:20260101T000000Z\r\nDTSTART:20261005T000000Z\r\nDTEND:20261005T000001Z\r\n"
        "RRULE:FREQ=SECONDLY;INTERVAL=5\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
    )
    body = copy.deepcopy(BODY)
    body["calendars"].append({"id": "busy", "ics": minutely})
    response = client.post("/v1/find-slot", json=body)
    assert response.status_code == 422
    problem = response.json()
    assert (problem["code"], problem["path"]) == ("ics.expansion_limit", "/calendars/2/ics")
    assert "--max-occurrences" not in problem["detail"]
    assert f"at most {FIND_SLOT_MAX_OCCURRENCES} instances" in problem["detail"]


def test_plan_details_have_no_pydantic_prefix(client: TestClient) -> None:
    example = Path(__file__).parents[2] / "examples" / "design-review.json"
    request = json.loads(example.read_text())
    request["context"]["objects"][0]["timezone"] = "Nowhere/Zone"
    problem = client.post("/v1/plan", json=request).json()
    assert problem["path"] == "/context/objects/0/timezone"
    assert problem["detail"].startswith("unknown time zone 'Nowhere/Zone'")


def test_suggestions_with_a_wrong_media_type_say_so(client: TestClient) -> None:
    response = client.post(
        "/v1/integration/suggestions", content=b"{}", headers={"Content-Type": "text/plain"}
    )
    assert response.status_code == 415
    body = response.json()
    assert body["code"] == "invalid_request"
    assert "media type" in body["detail"] and "envelope {" not in body["detail"]


def test_the_same_person_in_body_and_owner_is_written_once(client: TestClient) -> None:
    body = {**BODY, "calendars": [{"id": "alice", "ics": OWNED_ALICE}, {"id": "bob", "ics": BOB}]}
    event = _event(client, {**body, "attendees": ["ALICE@example.com"]})
    assert _people(event) == [("mailto:alice@example.com", "CHAIR")]
