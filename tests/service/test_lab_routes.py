"""The Lab's two routes for event changes (docs/decisions/0059): the events behind the busy
bars, and an unsigned proposal the browser signs.

Expected instances come from recurring-ical-events (the oracle), not from cerebri's reader;
the signature is made here with the ``cryptography`` key of the proposer, as the browser makes
it with WebCrypto, over the payload bytes the route hands out.
"""

from __future__ import annotations

import base64
import json
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import recurring_ical_events
from fastapi.testclient import TestClient
from icalendar import Calendar

from cerebri.calendars.change_request import ChangeOperation
from cerebri.calendars.event_change import EventChangeAsk, plan_event_change
from cerebri.calendars.slot_search import SlotSearch
from cerebri.calendars.sources import load_sources
from cerebri.proposals import PROPOSAL_PAYLOAD_TYPE, canonical_json, envelope_payload, sign
from cerebri.service import create_app
from cerebri.temporal import Instant
from tests.service._store_world import World, auth, build_world, keyid_of

HEAD = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n"
TAIL = "END:VCALENDAR\r\n"
REVIEW = (
    "BEGIN:VEVENT\r\nUID:review@example.com\r\nDTSTAMP:20261201T000000Z\r\n"
    "DTSTART:20261208T100000Z\r\nDTEND:20261208T110000Z\r\nSUMMARY:<b>Review</b>\r\n"
    "ORGANIZER:mailto:alice@example.com\r\nATTENDEE:mailto:alice@example.com\r\n"
    "ATTENDEE:mailto:bob@example.com\r\nEND:VEVENT\r\n"
)
STANDUP = (
    "BEGIN:VEVENT\r\nUID:standup@example.com\r\nDTSTAMP:20261201T000000Z\r\n"
    "DTSTART;TZID=Europe/Berlin:20261207T090000\r\nDTEND;TZID=Europe/Berlin:20261207T091500\r\n"
    "RRULE:FREQ=DAILY;COUNT=5\r\nSUMMARY:Standup\r\nEND:VEVENT\r\n"
)
LUNCH = (
    "BEGIN:VEVENT\r\nUID:lunch@example.com\r\nDTSTAMP:20261201T000000Z\r\n"
    "DTSTART:20261208T120000Z\r\nDTEND:20261208T130000Z\r\nSUMMARY:Lunch\r\nEND:VEVENT\r\n"
)
TEXTS = {"alice": HEAD + REVIEW + STANDUP + TAIL, "bob": HEAD + REVIEW + LUNCH + TAIL}
WINDOW = ("2026-12-08T00:00:00Z", "2026-12-11T00:00:00Z")


def _body() -> dict[str, Any]:
    return {
        "calendars": [{"id": name, "ics": text} for name, text in TEXTS.items()],
        "duration": "30m",
        "between": f"{WINDOW[0]}/{WINDOW[1]}",
        "tz": "UTC",
    }


def _utc(moment: Any) -> str:
    return f"{moment.astimezone(UTC):%Y-%m-%dT%H:%M:%SZ}"


def test_events_name_each_busy_instance() -> None:
    answer = TestClient(create_app()).post("/v1/find-slot/events", json=_body())
    assert answer.status_code == 200, answer.text
    got = {
        (e["calendar"], e["uid"], e["recurrence_id"], e["start"], e["end"], e["summary"])
        for e in answer.json()["events"]
    }
    start = datetime.fromisoformat(WINDOW[0])
    end = datetime.fromisoformat(WINDOW[1])
    expected = set()
    for name, text in TEXTS.items():
        calendar = Calendar.from_ical(text)
        series = {str(e["UID"]) for e in calendar.walk("VEVENT") if "RRULE" in e}
        for event in recurring_ical_events.of(calendar).between(start, end):
            recurs = str(event["UID"]) in series
            expected.add(
                (
                    name,
                    str(event["UID"]),
                    _utc(event["DTSTART"].dt) if recurs else None,
                    _utc(event["DTSTART"].dt),
                    _utc(event["DTEND"].dt),
                    str(event["SUMMARY"]),
                )
            )
    assert got == expected
    assert len(got) == 2 + 3 + 1  # review twice, three stand-ups in the window, lunch


@pytest.fixture
def world(tmp_path: Path) -> World:
    return build_world(f"sqlite:///{tmp_path / 'store.sqlite3'}")


def _reschedule_request(tmp_path: Path, operation: str = "RESCHEDULE") -> dict[str, Any]:
    paths = []
    for name, text in TEXTS.items():
        path = tmp_path / f"{name}.ics"
        path.write_text(text, newline="")
        paths.append(path)

    def load(files: Any, urls: Any, ids: Any) -> Any:
        window = (Instant.parse(WINDOW[0]), Instant.parse(WINDOW[1]))
        return load_sources(files, urls, window, ids=ids)

    window = (Instant.parse("2026-12-09T09:00:00Z"), Instant.parse("2026-12-09T17:00:00Z"))
    ask = EventChangeAsk(
        ChangeOperation(operation),
        "review@example.com",
        window=window if operation == "RESCHEDULE" else None,
    )
    found = plan_event_change(ask, SlotSearch(ics=paths), load)
    request, _ = found.answer
    wire: dict[str, Any] = request
    return wire


def test_prepared_envelope_signed_by_the_caller_is_taken_in(world: World, tmp_path: Path) -> None:
    request = _reschedule_request(tmp_path)
    prepared = world.client.post(
        "/v1/proposals/prepare",
        json={"request": request, "candidate": 2, "title": "<b>Review</b>"},
        headers=auth("principal:alice"),
    )
    assert prepared.status_code == 200, prepared.text
    body = prepared.json()
    envelope = body["envelope"]
    assert "signature" not in envelope
    assert envelope["author"] == {"kind": "principal", "id": "alice"}
    assert envelope["proposed-at"] == world.clock.now().format()
    payload = base64.b64decode(body["signing"]["payload"])
    assert payload == envelope_payload(envelope)
    assert body["signing"]["payload_type"] == PROPOSAL_PAYLOAD_TYPE
    # the plan graph moving the event to the second candidate: the window is the 9th only, so
    # the first is 10:00 (another day, same time: class 1), the second the start nearest
    # the current one, 2026-12-08 10:00: the window's first, 09:00 (23 h away; 10:15 is 24 h 15)
    moves = [s for s in body["artifact"]["steps"] if s["key"] == "move-0"]
    assert [(m["params"]["uid"], m["params"]["start"]) for m in moves] == [
        ("review@example.com", "2026-12-09T09:00:00Z")
    ]
    # the title read fills the display-only current state the approver sees
    assert [m["params"]["current"]["title"] for m in moves] == ["<b>Review</b>"]
    entry = sign(PROPOSAL_PAYLOAD_TYPE, payload, world.keys["principal:alice"], "alice-key")
    signed = {**envelope, "signature": {"signatures": [{"keyid": entry.keyid, "sig": entry.sig}]}}
    submitted = world.client.post(
        "/v1/plans",
        json={"envelope": signed, "artifact": body["artifact"]},
        headers=auth("principal:alice"),
    )
    assert submitted.status_code == 201, submitted.text
    assert submitted.json()["author"] == "principal:alice"
    assert keyid_of("principal:alice") == entry.keyid
    assert canonical_json(body["artifact"])  # RFC 8785 form exists: the bytes the digest covers


def test_prepare_refuses_a_candidate_past_the_last(world: World, tmp_path: Path) -> None:
    request = _reschedule_request(tmp_path)
    refused = world.client.post(
        "/v1/proposals/prepare",
        json={"request": request, "candidate": 99_999},
        headers=auth("principal:alice"),
    )
    assert refused.status_code == 422
    assert refused.json()["path"].startswith("/request")


def test_prepare_needs_a_principal(world: World) -> None:
    refused = world.client.post("/v1/proposals/prepare", json={"request": {}})
    assert refused.status_code == 401
    assert refused.json()["code"] == "auth.unauthorized"


def test_a_cancel_is_prepared_with_the_title_read(world: World, tmp_path: Path) -> None:
    request = _reschedule_request(tmp_path, "CANCEL")
    prepared = world.client.post(
        "/v1/proposals/prepare",
        json={"request": request, "title": "Review"},
        headers=auth("principal:alice"),
    )
    assert prepared.status_code == 200, prepared.text
    steps = {s["key"]: s for s in prepared.json()["artifact"]["steps"]}
    cancel = steps["cancel-0"]
    assert cancel["capability"] == "calendar.event.cancel"
    # the request's change carries the title read from the calendar (decision 0061), so the
    # body's "title" (used only where the request has none) does not replace it
    assert cancel["params"]["current"]["title"] == "<b>Review</b>"
    assert cancel["params"]["current"]["start"] == "2026-12-08T10:00:00Z"


def test_prepare_of_an_optimize_is_the_callers_batch(world: World) -> None:
    """An OPTIMIZE batch prepared in the Lab (decision 0080): the caller is the batch's
    requester, so the plan graph asks for the batch's approval (by anyone else) and for the
    owner's approval of the move in another person's calendar, before any write."""
    examples = Path(__file__).resolve().parents[2] / "src" / "cerebri" / "service" / "examples"
    request = json.loads((examples / "interview-week.json").read_text(encoding="utf-8"))
    prepared = world.client.post(
        "/v1/proposals/prepare", json={"request": request}, headers=auth("principal:alice")
    )
    assert prepared.status_code == 200, prepared.text
    body = prepared.json()
    assert body["envelope"]["author"] == {"kind": "principal", "id": "alice"}
    steps = {step["key"]: step for step in body["artifact"]["steps"]}
    # by hand from the request: ann-bob-1on1 is the existing event the optimum moves (the
    # design review takes its hour), in ann's calendar; ann owns it (batch.people)
    moves = [s for s in steps.values() if s.get("capability") == "calendar.event.move"]
    assert [(m["target"], m["params"]["calendar_id"]) for m in moves] == [
        ("ann-bob-1on1", "ann-cal")
    ]
    index = moves[0]["key"].removeprefix("move-")
    gates = [key for key in steps if key.startswith("approve-")]
    assert gates == ["approve-batch", f"approve-owner-{index}"]
    assert "requested by principal:alice" in steps["approve-batch"]["title"]
    owner = steps[f"approve-owner-{index}"]
    assert (owner["approver"], owner["depends_on"]) == ("principal:ann", ["approve-batch"])
    creates = [s for s in steps.values() if s.get("capability") == "calendar.event.create"]
    # each new meeting under its own UID (decision 0083): <target>-<12 hex>@cerebri
    made = {re.sub(r"-[0-9a-f]{12}@cerebri$", "", s["target"]) for s in creates}
    assert made >= set(request["target_ids"])
    for step in [*moves, *creates]:
        assert step["depends_on"] == gates, step["key"]
