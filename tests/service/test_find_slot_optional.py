"""``POST /v1/find-slot`` with optional attendees, daily preferences and ``min_attendance``.

Expected answers come from a brute force over the icalendar library's reading of the same
calendars (required all free, then ranked by the number of optional attendees free, the
distance to the nearest day's preferred time, the start), and the route's slots are checked
against ``cerebri find-slot --json`` over the same files and options.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, time, timedelta
from fractions import Fraction
from pathlib import Path
from typing import Any

import icalendar
import jsonschema
import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from cerebri.cli import app
from cerebri.clock import FakeClock
from cerebri.service import create_app
from cerebri.temporal import Instant
from tests.service.test_find_slot_route import ALICE, BERLIN, BOB, _busy_by_library, _calendar, _z

CAROL = _calendar(
    ("c1", "20261005T120000Z", "20261005T150000Z", "Off-site"),  # 14:00-17:00 Berlin
    ("c2", "20261006T100000Z", "20261006T110000Z", "Dentist"),  # 12:00-13:00 Berlin
)
# Dave publishes free/busy for Monday 08:00-18:00 Berlin only: Tuesday is unknown.
DAVE = "\r\n".join(
    [
        "BEGIN:VCALENDAR",
        "VERSION:2.0",
        "PRODID:-//cerebri tests//find-slot//EN",
        "BEGIN:VFREEBUSY",
        "UID:d1",
        "DTSTAMP:20260101T000000Z",
        "DTSTART:20261005T060000Z",
        "DTEND:20261005T160000Z",
        "FREEBUSY:20261005T073000Z/20261005T083000Z",
        "END:VFREEBUSY",
        "END:VCALENDAR",
        "",
    ]
)
CALENDARS: list[dict[str, Any]] = [
    {"id": "alice", "ics": ALICE},
    {"id": "carol", "ics": CAROL, "optional": True},
    {"id": "bob", "ics": BOB},
    {"id": "dave", "ics": DAVE, "optional": True},
]
BODY: dict[str, Any] = {
    "calendars": CALENDARS,
    "duration": "45m",
    "between": "2026-10-05T08:00/2026-10-06T18:00",
    "tz": "Europe/Berlin",
    "working_hours": "09:00-17:00",
    "top": 100,
}
LENGTH = timedelta(minutes=45)


@pytest.fixture(scope="module")
def client() -> TestClient:
    return TestClient(create_app())


def _overlaps(spans: list[tuple[datetime, datetime]], start: datetime, end: datetime) -> bool:
    return any(s < end and start < e for s, e in spans)


def _dave_by_library() -> tuple[tuple[datetime, datetime], list[tuple[datetime, datetime]]]:
    """Dave's described range and busy periods, as the icalendar library reads them."""
    (component,) = icalendar.Calendar.from_ical(DAVE).walk("VFREEBUSY")
    described = (component.decoded("DTSTART"), component.decoded("DTEND"))
    busy = [tuple(period.dt) for period in [component.get("FREEBUSY")]]
    return described, [(s, e) for s, e in busy]


def _optional_state(name: str, start: datetime, end: datetime) -> str:
    if name == "carol":
        spans = [(s, e) for s, e, _ in _busy_by_library(CAROL)]
        return "busy" if _overlaps(spans, start, end) else "free"
    (first, last), spans = _dave_by_library()
    if _overlaps(spans, start, end):
        return "busy"
    return "free" if first <= start and end <= last else "unknown"


def _distance(preference: dict[str, Any], start: datetime) -> int | None:
    """Seconds from ``start`` to the nearest day's preferred local time (decision 0026)."""
    local = start.astimezone(BERLIN)
    days = [local.date() + timedelta(days=n) for n in (-1, 0, 1)]

    def nearest(moment: time) -> int:
        return min(
            abs(int((start - datetime.combine(d, moment, BERLIN)).total_seconds())) for d in days
        )

    if "prefer" in preference:
        return nearest(time.fromisoformat(preference["prefer"]))
    if "prefer_between" in preference:
        low, high = (time.fromisoformat(t) for t in preference["prefer_between"].split("-"))
        if low <= local.time() <= high:
            return 0
        return min(nearest(low), nearest(high))
    seconds = local.hour * 3600 + local.minute * 60 + local.second
    if preference.get("prefer_earliest"):
        return seconds
    if preference.get("prefer_latest"):
        return 86_399 - seconds
    return None


def _brute_force(body: dict[str, Any]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(ranked slots, slots below min_attendance by start), each ``{start, distance, free,
    busy, unknown}``, over every 15-minute start in local working hours."""
    required = [
        (s, e)
        for c in body["calendars"]
        if not c.get("optional")
        for s, e, _ in _busy_by_library(c["ics"])
    ]
    optional = [c["id"] for c in body["calendars"] if c.get("optional")]
    share = body.get("min_attendance")
    everyone = len(body["calendars"])
    moment = datetime(2026, 10, 5, 8, tzinfo=BERLIN).astimezone(UTC)
    end = datetime(2026, 10, 6, 18, tzinfo=BERLIN).astimezone(UTC)
    kept: list[dict[str, Any]] = []
    below: list[dict[str, Any]] = []
    while moment + LENGTH <= end:
        local_start, local_end = moment.astimezone(BERLIN), (moment + LENGTH).astimezone(BERLIN)
        in_hours = (
            local_start.date() == local_end.date()
            and local_start.hour >= 9
            and (local_end.hour, local_end.minute) <= (17, 0)
        )
        if in_hours and not _overlaps(required, moment, moment + LENGTH):
            states = {name: _optional_state(name, moment, moment + LENGTH) for name in optional}
            slot: dict[str, Any] = {
                "start": moment,
                "distance": _distance(body, moment),
                **{k: [n for n in optional if states[n] == k] for k in ("free", "busy", "unknown")},
            }
            present = everyone - len(optional) + len(slot["free"])
            enough = share is None or Fraction(present, everyone) >= Fraction(str(share))
            (kept if enough else below).append(slot)
        moment += timedelta(minutes=15)
    kept.sort(key=lambda s: (-len(s["free"]), s["distance"] or 0, s["start"]))
    return kept, below


PREFERENCES = [
    {},
    {"prefer": "15:00"},
    {"prefer_between": "10:00-11:30"},
    {"prefer_earliest": True},
    {"prefer_latest": True},
]


@pytest.mark.parametrize("preference", PREFERENCES, ids=lambda p: next(iter(p), "none"))
def test_ranked_slots_are_the_brute_force_order(
    client: TestClient, preference: dict[str, Any]
) -> None:
    body = {**BODY, **preference}
    response = client.post("/v1/find-slot", json=body)
    assert response.status_code == 200, response.text
    answer = response.json()
    expected, below = _brute_force(body)
    assert below == []
    assert answer["feasible"] == len(expected)
    assert [s["start"] for s in answer["slots"]] == [_z(s["start"]) for s in expected]
    assert [s["end"] for s in answer["slots"]] == [_z(s["start"] + LENGTH) for s in expected]
    assert [s["preference_distance_seconds"] for s in answer["slots"]] == [
        s["distance"] for s in expected
    ]
    assert [s["free"] for s in answer["slots"]] == [
        {
            "required": ["alice", "bob"],
            "optional_free": s["free"],
            "optional_busy": s["busy"],
            "optional_unknown": s["unknown"],
        }
        for s in expected
    ]
    assert answer["calendars"] == ["alice", "carol", "bob", "dave"]
    assert answer["optional_calendars"] == ["carol", "dave"]
    # the timeline gets the optional attendees' busy time too, in body order
    assert [b["calendar"] for b in answer["busy"]] == ["alice"] * 2 + ["carol"] * 2 + [
        "bob"
    ] * 2 + ["dave"]


def test_the_first_slot_is_where_both_optional_attendees_are_free(client: TestClient) -> None:
    answer = client.post("/v1/find-slot", json={**BODY, "prefer": "15:00", "top": 3}).json()
    first = answer["slots"][0]
    assert first["free"]["optional_free"] == ["carol", "dave"]
    start = datetime.fromisoformat(first["local_start"])
    # Monday: Alice until 11:00, Bob 12:00-13:45, Carol from 14:00, Dave 09:30-10:30:
    # everyone is free 11:00-12:00 only (Tuesday Dave is unknown), so the slot starts at
    # 11:00 or 11:15, and 11:15 is nearer to 15:00; later slots lose Carol
    assert start == datetime(2026, 10, 5, 11, 15, tzinfo=BERLIN)
    assert first["preference_distance_seconds"] == 3 * 3600 + 45 * 60
    assert answer["slots"][1]["local_start"] == "2026-10-05T11:00:00+02:00"
    assert answer["slots"][2]["free"]["optional_free"] == ["dave"]


def test_min_attendance_leaves_out_slots_and_lists_them(client: TestClient) -> None:
    body = {**BODY, "min_attendance": 0.75, "prefer_between": "10:00-11:30", "top": 5}
    answer = client.post("/v1/find-slot", json=body).json()
    expected, below = _brute_force(body)
    assert below, "some feasible slot must lack attendance for the test to mean anything"
    assert all(len(s["free"]) >= 1 for s in expected)
    assert answer["feasible"] == len(expected)
    assert [s["start"] for s in answer["slots"]] == [_z(s["start"]) for s in expected[:5]]
    assert answer["below_min_attendance_total"] == len(below)
    assert [s["start"] for s in answer["below_min_attendance"]] == [
        _z(s["start"]) for s in below[:5]
    ]
    assert all(s["free"]["optional_free"] == [] for s in answer["below_min_attendance"])
    assert "rank" not in answer["below_min_attendance"][0]
    schemas = client.get("/openapi.json").json()["components"]["schemas"]
    jsonschema.validate(answer, {"components": {"schemas": schemas}, **schemas["FindSlotAnswer"]})
    jsonschema.validate(body, {"components": {"schemas": schemas}, **schemas["FindSlotRequest"]})


def test_everyone_or_nothing(client: TestClient) -> None:
    body = {**BODY, "min_attendance": "1"}  # the command line's text form
    answer = client.post("/v1/find-slot", json=body).json()
    expected, below = _brute_force({**body, "min_attendance": 1})
    assert expected and all(s["free"] == ["carol", "dave"] for s in expected)
    assert [s["start"] for s in answer["slots"]] == [_z(s["start"]) for s in expected]
    assert answer["below_min_attendance_total"] == len(below)
    away = _calendar(("all", "20261004T000000Z", "20261008T000000Z", "Holiday"))
    calendars = [{**c, "ics": away} if c["id"] == "carol" else c for c in CALENDARS]
    nobody = client.post("/v1/find-slot", json={**body, "calendars": calendars}).json()
    assert nobody["slots"] == []
    assert (nobody["outcome"], nobody["assessment"]) == ("NoSolution", "Complete")
    assert nobody["feasible"] == 0
    assert nobody["below_min_attendance_total"] == len(expected) + len(below)
    event = client.post("/v1/find-slot/event", json={**body, "calendars": calendars})
    assert event.json()["code"] == "calendars.no_candidate"


def _cli(tmp_path: Path, body: dict[str, Any]) -> dict[str, Any]:
    args = ["find-slot", "--json", "--duration", body["duration"], "--between", body["between"]]
    args += ["--tz", body["tz"], "--working-hours", body["working_hours"]]
    for entry in body["calendars"]:
        path = tmp_path / f"{entry['id']}.ics"
        path.write_text(entry["ics"], encoding="utf-8", newline="")
        args += ["--optional-ics" if entry.get("optional") else "--ics", str(path)]
    for key in ("prefer", "prefer_between", "min_attendance"):
        if key in body:
            args += ["--" + key.replace("_", "-"), str(body[key])]
    for key in ("prefer_earliest", "prefer_latest"):
        if body.get(key):
            args.append("--" + key.replace("_", "-"))
    outcome = CliRunner().invoke(app, args)
    assert outcome.exit_code == 0, outcome.stderr
    document: dict[str, Any] = json.loads(outcome.stdout)
    return document


@pytest.mark.parametrize(
    "extra",
    [*PREFERENCES[1:], {"min_attendance": 0.75, "prefer": "09:00"}],
    ids="+".join,
)
def test_the_route_and_the_command_line_agree(
    client: TestClient, tmp_path: Path, extra: dict[str, Any]
) -> None:
    body = {**BODY, **extra}
    answer = client.post("/v1/find-slot", json=body).json()
    printed = _cli(tmp_path, body)
    assert [s["start"] for s in answer["slots"]] == [s["start"] for s in printed["slots"]]
    assert [s["start"] for s in answer["slots"]] == [
        c["proposed"]["placements"][0]["range"]["start"] for c in printed["candidates"]
    ]
    for mine, theirs in zip(answer["slots"], printed["slots"], strict=True):
        assert mine["free"]["optional_free"] == theirs["optional_free"]
        assert mine["free"]["optional_busy"] == theirs["optional_busy"]
        assert mine["free"]["optional_unknown"] == theirs["optional_unknown"]
        assert mine["preference_distance_seconds"] == theirs["preference_distance_seconds"]
    assert [s["start"] for s in answer["below_min_attendance"]] == [
        s["start"] for s in printed["below_min_attendance"]
    ]
    assert answer["outcome"] == printed["outcome"]


def test_pick_follows_the_ranked_order() -> None:
    stamp = Instant.from_datetime(datetime(2026, 9, 1, 12, tzinfo=UTC))
    stamped = TestClient(create_app(clock=FakeClock(stamp)))
    body = {**BODY, "prefer_latest": True}
    expected, _ = _brute_force(body)
    for pick in (1, 2, len(expected)):
        response = stamped.post("/v1/find-slot/event", json={**body, "pick": pick})
        assert response.status_code == 200, response.text
        (event,) = icalendar.Calendar.from_ical(response.content).walk("VEVENT")
        assert event.decoded("DTSTART").astimezone(UTC) == expected[pick - 1]["start"]
    past = stamped.post("/v1/find-slot/event", json={**body, "pick": len(expected) + 1})
    assert past.json()["code"] == "calendars.invalid_pick"


def _refused(response: Any, path: str) -> str:
    assert response.status_code == 422, response.text
    assert response.headers["content-type"] == "application/problem+json"
    problem = response.json()
    assert set(problem) == {"type", "title", "status", "detail", "code", "path"}
    assert (problem["code"], problem["path"]) == ("input.invalid_option", path)
    detail: str = problem["detail"]
    return detail


@pytest.mark.parametrize(
    ("change", "path", "cli"),
    [
        (
            {"prefer": "10:00", "prefer_latest": True},
            "/prefer_latest",
            ["--prefer", "10:00", "--prefer-latest"],
        ),
        ({"prefer_between": "12:00-10:00"}, "/prefer_between", ["--prefer-between", "12:00-10:00"]),
        ({"prefer_between": "noon"}, "/prefer_between", ["--prefer-between", "noon"]),
        ({"min_attendance": 80}, "/min_attendance", ["--min-attendance", "80"]),
        ({"min_attendance": "80%"}, "/min_attendance", ["--min-attendance", "80%"]),
        ({"min_attendance": 1.5}, "/min_attendance", ["--min-attendance", "1.5"]),
        ({"min_attendance": True}, "/min_attendance", None),
        ({"prefer_earliest": "yes"}, "/prefer_earliest", None),
        (
            {"calendars": [{"id": "a", "ics": ALICE, "optional": "yes"}]},
            "/calendars/0/optional",
            None,
        ),
        (
            {"calendars": [{"id": "c", "ics": CAROL, "optional": True}]},
            "/calendars",
            None,
        ),
    ],
)
def test_bad_preferences_are_the_command_lines_errors(
    client: TestClient,
    tmp_path: Path,
    change: dict[str, Any],
    path: str,
    cli: list[str] | None,
) -> None:
    detail = _refused(client.post("/v1/find-slot", json={**BODY, **change}), path)
    if cli is None:
        return
    ics = tmp_path / "alice.ics"
    ics.write_text(ALICE, encoding="utf-8", newline="")
    args = ["find-slot", "--ics", str(ics), "--duration", "45m", "--between", BODY["between"]]
    outcome = CliRunner().invoke(app, [*args, *cli])
    assert outcome.exit_code != 0
    assert outcome.stderr.startswith("error input.invalid_option")
    reason = outcome.stderr.split(": ", 1)[1].strip()
    # the same message, naming the field (prefer_latest) where the CLI names its option
    fields = re.sub(r"--([a-z-]+)", lambda m: m[1].replace("-", "_"), reason)
    assert detail == fields


def test_an_unreadable_optional_calendar_keeps_its_code(client: TestClient) -> None:
    broken = [*CALENDARS[:3], {"id": "dave", "ics": "BEGIN:VCALENDAR", "optional": True}]
    response = client.post("/v1/find-slot", json={**BODY, "calendars": broken})
    assert response.status_code == 422
    assert (response.json()["code"], response.json()["path"]) == ("ics.syntax", "/calendars/3/ics")
