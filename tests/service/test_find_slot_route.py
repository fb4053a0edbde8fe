"""``POST /v1/find-slot``: answers checked against a brute force over the icalendar library's
reading of the same calendars, problems for bad bodies, and nothing written anywhere."""

from __future__ import annotations

import builtins
import json
from datetime import UTC, datetime, time, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import icalendar
import jsonschema
import pytest
from fastapi.testclient import TestClient

from cerebri.calendars import SlotQuery, find_slot
from cerebri.clock import FakeClock
from cerebri.ics import parse_calendar
from cerebri.service import create_app
from cerebri.service.settings import ServiceSettings
from cerebri.temporal import Instant

BERLIN = ZoneInfo("Europe/Berlin")


def _calendar(*events: tuple[str, str, str, str]) -> str:
    """An .ics text of (uid, start, end, summary) events, times in UTC (YYYYMMDDTHHMMSSZ)."""
    lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//cerebri tests//find-slot//EN"]
    for uid, start, end, summary in events:
        lines += [
            "BEGIN:VEVENT",
            f"UID:{uid}",
            "DTSTAMP:20260101T000000Z",
            f"DTSTART:{start}",
            f"DTEND:{end}",
            f"SUMMARY:{summary}",
            "END:VEVENT",
        ]
    lines.append("END:VCALENDAR")
    return "\r\n".join(lines) + "\r\n"


ALICE = _calendar(
    ("a1", "20261005T073000Z", "20261005T090000Z", "Standup and review"),
    ("a2", "20261006T120000Z", "20261006T133000Z", "Lunch talk"),
)
BOB = _calendar(
    ("b1", "20261005T100000Z", "20261005T114500Z", "Customer call"),
    ("b2", "20261006T070000Z", "20261006T100000Z", "Workshop"),
)
BODY: dict[str, Any] = {
    "calendars": [{"id": "alice", "ics": ALICE}, {"id": "bob", "ics": BOB}],
    "duration": "45m",
    "between": "2026-10-05T08:00/2026-10-06T18:00",
    "tz": "Europe/Berlin",
    "working_hours": "09:00-17:00",
    "granularity": "15m",
    "top": 100,
}


@pytest.fixture(scope="module")
def client() -> TestClient:
    return TestClient(create_app())


def _busy_by_library(text: str) -> list[tuple[datetime, datetime, str]]:
    calendar = icalendar.Calendar.from_ical(text)
    return [
        (e.decoded("DTSTART"), e.decoded("DTEND"), str(e.get("SUMMARY")))
        for e in calendar.walk("VEVENT")
    ]


def _brute_force(body: dict[str, Any]) -> list[datetime]:
    """Every 15-minute start in the window whose meeting lies in local working hours and
    overlaps no event of any calendar (no preference: the planner orders them by start)."""
    busy = [b for c in body["calendars"] for b in _busy_by_library(c["ics"])]
    start = datetime(2026, 10, 5, 8, tzinfo=BERLIN).astimezone(UTC)
    end = datetime(2026, 10, 6, 18, tzinfo=BERLIN).astimezone(UTC)
    length, step = timedelta(minutes=45), timedelta(minutes=15)
    found, moment = [], start
    while moment + length <= end:
        local_start, local_end = moment.astimezone(BERLIN), (moment + length).astimezone(BERLIN)
        in_hours = (
            local_start.date() == local_end.date()
            and local_start.hour >= 9
            and (local_end.hour, local_end.minute) <= (17, 0)
        )
        free = all(not (s < moment + length and moment < e) for s, e, _ in busy)
        if in_hours and free:
            found.append(moment)
        moment += step
    return found


def _z(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def test_slots_are_the_brute_force_answer(client: TestClient) -> None:
    response = client.post("/v1/find-slot", json=BODY)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "application/json"
    answer = response.json()
    expected = _brute_force(BODY)
    assert answer["feasible"] == len(expected)
    assert [s["start"] for s in answer["slots"]] == [_z(m) for m in expected]
    assert [s["end"] for s in answer["slots"]] == [_z(m + timedelta(minutes=45)) for m in expected]
    assert [s["rank"] for s in answer["slots"]] == list(range(1, len(expected) + 1))
    assert [s["local_start"] for s in answer["slots"]] == [
        m.astimezone(BERLIN).isoformat() for m in expected
    ]
    assert answer["outcome"] == "Solution"
    assert answer["assessment"] == "ProvenOptimal"
    assert answer["complete"] is True
    assert answer["calendars"] == ["alice", "bob"]
    assert answer["window"] == {"start": "2026-10-05T06:00:00Z", "end": "2026-10-06T16:00:00Z"}
    assert (answer["duration"], answer["granularity"]) == (2700, 900)


def test_who_is_free_and_busy_time_match_the_calendars(client: TestClient) -> None:
    answer = client.post("/v1/find-slot", json={**BODY, "top": 3}).json()
    assert len(answer["slots"]) == 3
    for slot in answer["slots"]:
        assert slot["free"] == {
            "required": ["alice", "bob"],
            "optional_free": [],
            "optional_busy": [],
            "optional_unknown": [],
        }
        assert slot["preference_distance_seconds"] is None
    assert answer["optional_calendars"] == []
    assert (answer["below_min_attendance"], answer["below_min_attendance_total"]) == ([], 0)
    expected = [
        {"calendar": name, "start": _z(s), "end": _z(e), "summary": summary}
        for name, text in (("alice", ALICE), ("bob", BOB))
        for s, e, summary in sorted(_busy_by_library(text))
    ]
    assert answer["busy"] == expected
    assert answer["busy_truncated"] is False
    assert answer["warnings"] == []


def test_same_slots_as_the_python_api(client: TestClient) -> None:
    body = {**BODY, "prefer": "14:00", "top": 5}
    answer = client.post("/v1/find-slot", json=body).json()
    start = Instant.from_datetime(datetime(2026, 10, 5, 8, tzinfo=BERLIN))
    end = Instant.from_datetime(datetime(2026, 10, 6, 18, tzinfo=BERLIN))
    query = SlotQuery(
        start,
        end,
        2700,
        900,
        "Europe/Berlin",
        working_hours=(time(9), time(17)),
        prefer=time(14),
    )
    calendars = [("alice", parse_calendar(ALICE)), ("bob", parse_calendar(BOB))]
    _, result = find_slot(calendars, query)
    assert [s["start"] for s in answer["slots"]] == [
        c.start.format() for c in result.candidates[:5]
    ]
    assert answer["slots"][0]["local_start"] == "2026-10-05T14:00:00+02:00"


def test_the_answer_follows_its_published_schema(client: TestClient) -> None:
    document = client.get("/openapi.json").json()
    operation = document["paths"]["/v1/find-slot"]["post"]
    ok = operation["responses"]["200"]["content"]["application/json"]["schema"]
    assert ok == {"$ref": "#/components/schemas/FindSlotAnswer"}
    schemas = document["components"]["schemas"]
    resolver = {"components": {"schemas": schemas}, **schemas["FindSlotAnswer"]}
    jsonschema.validate(client.post("/v1/find-slot", json=BODY).json(), resolver)
    request = {"components": {"schemas": schemas}, **schemas["FindSlotRequest"]}
    jsonschema.validate(BODY, request)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**BODY, "surprise": 1}, request)


def _problem(response: Any, status: int, code: str, path: str | None) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/problem+json"
    problem: dict[str, Any] = response.json()
    assert set(problem) == {"type", "title", "status", "detail", "code", "path"}
    assert (problem["status"], problem["code"], problem["path"]) == (status, code, path)
    assert problem["detail"]
    return problem


@pytest.mark.parametrize(
    ("change", "code", "path"),
    [
        ({"duration": "soon"}, "input.invalid_option", "/duration"),
        ({"duration": 0}, "input.invalid_option", "/duration"),
        ({"between": "2026-10-06/2026-10-05"}, "input.invalid_option", "/between"),
        ({"tz": "Mars/Olympus"}, "input.invalid_option", "/tz"),
        ({"working_hours": "17:00-09:00"}, "input.invalid_option", "/working_hours"),
        ({"working_days": "Someday"}, "input.invalid_option", "/working_days"),
        ({"prefer": "noon"}, "input.invalid_option", "/prefer"),
        ({"top": 0}, "input.invalid_option", "/top"),
        ({"top": "3"}, "input.invalid_option", "/top"),
        ({"calendars": []}, "input.invalid_option", "/calendars"),
        ({"calendars": [{"id": "a b", "ics": ALICE}]}, "input.invalid_option", "/calendars/0/id"),
        (
            {"calendars": [{"id": "a", "ics": ALICE, "x": 1}]},
            "input.invalid_option",
            "/calendars/0/x",
        ),
        ({"surprise": True}, "input.invalid_option", "/surprise"),
        (
            {"calendars": [{"id": "a", "ics": ALICE}, {"id": "a", "ics": BOB}]},
            "input.invalid_option",
            "/calendars/1/id",
        ),
        (
            {"calendars": [{"id": "a", "ics": ALICE}, {"id": "b", "ics": "BEGIN:VCALENDAR"}]},
            "ics.syntax",
            "/calendars/1/ics",
        ),
    ],
)
def test_bad_fields_are_problems_with_a_pointer(
    client: TestClient, change: dict[str, Any], code: str, path: str
) -> None:
    _problem(client.post("/v1/find-slot", json={**BODY, **change}), 422, code, path)


def test_missing_fields_and_transport_failures(client: TestClient) -> None:
    without = {k: v for k, v in BODY.items() if k != "between"}
    _problem(client.post("/v1/find-slot", json=without), 422, "input.invalid_option", "/between")
    syntax = client.post(
        "/v1/find-slot", content=b'{"calendars": [', headers={"Content-Type": "application/json"}
    )
    _problem(syntax, 400, "json.syntax", None)
    _problem(
        client.post("/v1/find-slot", content=b"[]", headers={"Content-Type": "application/json"}),
        422,
        "json.not_object",
        "",
    )
    _problem(
        client.post("/v1/find-slot", content=b"{}", headers={"Content-Type": "text/plain"}),
        415,
        "http.unsupported_media_type",
        None,
    )
    assert client.get("/v1/find-slot").status_code == 405


def test_the_body_limit_is_the_find_slot_setting() -> None:
    body = json.dumps(BODY).encode()
    small = TestClient(create_app(ServiceSettings(max_find_slot_bytes=len(body) - 1)))
    headers = {"Content-Type": "application/json"}
    _problem(
        small.post("/v1/find-slot", content=body, headers=headers), 413, "input.too_large", None
    )
    exact = TestClient(create_app(ServiceSettings(max_find_slot_bytes=len(body))))
    assert exact.post("/v1/find-slot", content=body, headers=headers).status_code == 200
    # a calendar larger than the planning routes' 256 KiB still fits the default limit
    many = [
        (
            f"e{i}",
            f"202609{1 + i % 28:02d}T{i % 24:02d}0000Z",
            f"202609{1 + i % 28:02d}T{i % 24:02d}3000Z",
            "x" * 300,
        )
        for i in range(900)
    ]
    big = {**BODY, "calendars": [{"id": "big", "ics": _calendar(*many)}]}
    assert len(json.dumps(big)) > 256 * 1024
    assert TestClient(create_app()).post("/v1/find-slot", json=big).status_code == 200


def test_calendars_are_never_written(
    client: TestClient,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """No file is opened for writing while the request is answered, and no log line carries
    the calendars' content."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CEREBRI_CACHE_DIR", str(tmp_path / "cache"))
    written: list[str] = []
    real_open = builtins.open

    def watching_open(file: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        if any(flag in mode for flag in "wax+"):
            written.append(str(file))
        return real_open(file, mode, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", watching_open)
    marker = "Secret-board-meeting-7f3a"
    secret = _calendar(("s1", "20261005T120000Z", "20261005T130000Z", marker))
    body = {**BODY, "calendars": [{"id": "alice", "ics": secret}]}
    with caplog.at_level("DEBUG"):
        response = client.post("/v1/find-slot", json=body)
    assert response.status_code == 200
    assert written == []
    assert list(tmp_path.iterdir()) == []
    assert marker not in caplog.text
    assert marker in response.text  # the summary goes back only to the sender


def test_docs_pages_load_nothing_from_elsewhere(client: TestClient) -> None:
    for page, assets in (
        ("/docs", ("swagger-ui-bundle.js", "swagger-ui.css")),
        ("/redoc", ("redoc.standalone.js",)),
    ):
        response = client.get(page)
        html = response.text
        csp = response.headers["content-security-policy"]
        assert "default-src 'self'" in csp
        assert "https:" not in csp
        for asset in assets:
            assert f'"/static-offline-docs/{asset}"' in html
            asset_response = client.get(f"/static-offline-docs/{asset}")
            assert asset_response.status_code == 200
            assert len(asset_response.content) > 10_000
        assert "cdn.jsdelivr.net" not in html
        assert "fonts.googleapis.com" not in html


def test_the_event_of_a_picked_slot_reads_back_with_icalendar() -> None:
    stamp = Instant.from_datetime(datetime(2026, 9, 1, 12, tzinfo=UTC))
    stamped = TestClient(create_app(clock=FakeClock(stamp)))
    slots = stamped.post("/v1/find-slot", json=BODY).json()["slots"]
    response = stamped.post("/v1/find-slot/event", json={**BODY, "pick": 3, "title": "Plan Q4"})
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/calendar")
    assert 'filename="slot-3.ics"' in response.headers["content-disposition"]
    calendar = icalendar.Calendar.from_ical(response.content)
    (event,) = calendar.walk("VEVENT")
    assert _z(event.decoded("DTSTART")) == slots[2]["start"]
    assert _z(event.decoded("DTEND")) == slots[2]["end"]
    assert event.decoded("DTSTART").utcoffset() == timedelta(hours=2)  # Europe/Berlin, CEST
    assert str(event.get("SUMMARY")) == "Plan Q4"
    assert event.decoded("DTSTAMP") == datetime(2026, 9, 1, 12, tzinfo=UTC)
    assert str(calendar.get("METHOD")) == "REQUEST"
    again = stamped.post("/v1/find-slot/event", json={**BODY, "pick": 3, "title": "Plan Q4"})
    assert again.content == response.content  # same input, same bytes


def test_event_problems(client: TestClient) -> None:
    feasible = len(_brute_force(BODY))
    _problem(
        client.post("/v1/find-slot/event", json={**BODY, "pick": feasible + 1}),
        422,
        "calendars.invalid_pick",
        None,
    )
    _problem(
        client.post("/v1/find-slot/event", json={**BODY, "title": "  "}),
        422,
        "input.invalid_option",
        "/title",
    )
    full = _calendar(("all", "20261001T000000Z", "20261010T000000Z", "Away"))
    nobody = {**BODY, "calendars": [{"id": "alice", "ics": full}]}
    _problem(client.post("/v1/find-slot/event", json=nobody), 422, "calendars.no_candidate", None)
    _problem(
        client.post("/v1/find-slot", json={**BODY, "pick": 1}), 422, "input.invalid_option", "/pick"
    )
