"""The packaged example requests: listed and served by the service (the Lab fetches
``/v1/examples``), and each planned with its key values recomputed here by brute force from
the scenario (local times through zoneinfo, busy intervals, buffer, dependencies)."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterable
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from fastapi.testclient import TestClient

import cerebri
from tests.service.conftest import JSON, compact

PACKAGED = Path(__file__).resolve().parents[2] / "src" / "cerebri" / "service" / "examples"
NAMES = [
    "dentist-with-buffers",
    "dependency-chain",
    "design-review",
    "infeasible-workshop",
    "interview-week",
    "standup-across-dst",
    "team-three-time-zones",
    "unknown-coverage",
]
Span = tuple[datetime, datetime]


def load(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((PACKAGED / f"{name}.json").read_text())
    return data


def when(text: str) -> datetime:
    return datetime.fromisoformat(text)


def z(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def known_spans(request: dict[str, Any]) -> dict[str, Span]:
    """Every context object with a KNOWN time, read from the JSON."""
    spans = {}
    for obj in request["context"]["objects"]:
        knowledge = obj["time"]["value"]["knowledge"]
        if knowledge["state"] == "KNOWN":
            spans[obj["id"]] = (when(knowledge["data"]["start"]), when(knowledge["data"]["end"]))
    return spans


def grid(request: dict[str, Any]) -> Iterable[datetime]:
    """Every start of the request's grid whose meeting fits the window."""
    window = request["scope"]["time_range"]
    start, end = when(window["start"]), when(window["end"])
    length = timedelta(seconds=request["duration"]["value"]["knowledge"]["data"])
    step = timedelta(seconds=request["granularity"])
    while start + length <= end:
        yield start
        start += step


def brute(
    request: dict[str, Any],
    busy: Iterable[Span],
    *,
    buffer: timedelta = timedelta(0),
    not_before: datetime | None = None,
    prefer: datetime | None = None,
) -> list[str]:
    """Feasible starts, best first: no busy span within ``buffer`` of the meeting, not
    before ``not_before``; ranked by distance to ``prefer``, then by start."""
    spans = list(busy)
    length = timedelta(seconds=request["duration"]["value"]["knowledge"]["data"])
    found = [
        s
        for s in grid(request)
        if all(s + length + buffer <= b or s >= e + buffer for b, e in spans)
        and (not_before is None or s >= not_before)
    ]
    if prefer is not None:
        found.sort(key=lambda s: (abs((s - prefer).total_seconds()), s))
    return [z(s) for s in found]


def planned(name: str) -> dict[str, Any]:
    result: dict[str, Any] = cerebri.plan((PACKAGED / f"{name}.json").read_bytes()).to_wire()
    return result


def starts(result: dict[str, Any]) -> list[str]:
    return [c["start"] for c in result["candidates"]]


def test_the_service_lists_serves_and_plans_every_example(client: TestClient) -> None:
    listing = client.get("/v1/examples")
    assert listing.json() == NAMES == sorted(p.stem for p in PACKAGED.glob("*.json"))
    for name in NAMES:
        served = client.get(f"/v1/examples/{name}")
        assert served.content == (PACKAGED / f"{name}.json").read_bytes()
        answer = client.post("/v1/plan", content=served.content, headers=JSON)
        assert answer.status_code == 200
        assert answer.content == compact(cerebri.plan(served.content).to_wire())
        assert answer.json()["validation"] == {"state": "Valid", "issues": []}


def test_dentist_keeps_the_travel_buffer() -> None:
    request = load("dentist-with-buffers")
    berlin = ZoneInfo("Europe/Berlin")
    day = date(2026, 11, 12)
    busy = [
        (datetime.combine(day, time(h1, m1), berlin), datetime.combine(day, time(h2, m2), berlin))
        for h1, m1, h2, m2 in ((9, 0, 10, 0), (12, 0, 12, 30), (15, 0, 15, 30))
    ]
    assert sorted(known_spans(request).values()) == busy
    prefer = datetime.combine(day, time(12, 30), berlin)
    expected = brute(request, busy, buffer=timedelta(minutes=30), prefer=prefer)
    result = planned("dentist-with-buffers")
    assert result["outcome"] == "Solution"
    assert starts(result) == expected
    assert expected[0] == z(datetime.combine(day, time(13, 0), berlin))  # 30 min after lunch
    assert result["candidates"][0]["cost"] == 1800


def test_team_meets_where_three_working_days_overlap() -> None:
    request = load("team-three-time-zones")
    zones = [ZoneInfo(n) for n in ("America/New_York", "Europe/Berlin", "Asia/Tokyo")]
    length = timedelta(minutes=30)
    one_on_one = known_spans(request)["kai-one-on-one"]

    def open_everywhere(s: datetime) -> bool:
        for tz in zones:
            day = s.astimezone(tz).date()
            opens = datetime.combine(day, time(7), tz)
            closes = datetime.combine(day, time(21), tz)
            if not (opens <= s and s + length <= closes):
                return False
        return not (s < one_on_one[1] and one_on_one[0] < s + length)

    expected = [z(s) for s in grid(request) if open_everywhere(s)]
    result = planned("team-three-time-zones")
    assert starts(result) == expected == ["2026-10-05T11:15:00Z", "2026-10-05T11:30:00Z"]


def test_standup_moves_with_daylight_saving_time() -> None:
    request = load("standup-across-dst")
    rule = request["context"]["temporal"]["series"][0]["rule"]
    berlin = ZoneInfo(rule["timezone"])
    local = time.fromisoformat(rule["local_time"])
    occurrences = []
    for offset in range(-1, 5):
        start = datetime.combine(date(2026, 10, 24) + timedelta(days=offset), local, berlin)
        occurrences.append((start, start + timedelta(seconds=rule["duration"])))
    assert z(occurrences[1][0]) == "2026-10-24T07:00:00Z"  # CEST
    assert z(occurrences[3][0]) == "2026-10-26T08:00:00Z"  # CET, after 2026-10-25
    prefer = when(request["preferences"]["preferences"][0]["preferred_start"])
    expected = brute(request, occurrences, prefer=prefer)
    result = planned("standup-across-dst")
    assert starts(result) == expected
    assert expected[0] == "2026-10-26T08:15:00Z"


def test_dependency_chain_waits_for_its_predecessor() -> None:
    request = load("dependency-chain")
    spans = known_spans(request)
    predecessor = next(
        c["rule"]["value"]
        for c in request["constraints"]
        if c["object_id"] == "sign-off" and c["rule"]["kind"] == "DEPENDENCY_ORDER"
    )
    assert predecessor == "legal-review"
    expected = brute(request, spans.values(), not_before=spans[predecessor][1])
    result = planned("dependency-chain")
    assert starts(result) == expected
    assert expected[0] == z(spans["all-hands"][1])  # after the review and the all-hands


def test_unknown_coverage_is_never_offered_as_free() -> None:
    request = load("unknown-coverage")
    spans = known_spans(request)
    unknown = spans["unobserved-1"]
    expected = brute(request, spans.values())
    result = planned("unknown-coverage")
    assert starts(result) == expected
    assert when(expected[0]) >= unknown[1]
    known_only = [span for oid, span in spans.items() if oid != "unobserved-1"]
    assert brute(request, known_only)[0] == "2026-10-08T10:00:00Z"  # free if it were known
    request["context"]["objects"] = [
        o for o in request["context"]["objects"] if o["id"] != "unobserved-1"
    ]
    trusting = cerebri.plan(json.dumps(request).encode()).to_wire()
    assert starts(trusting)[0] == "2026-10-08T10:00:00Z"


def test_infeasible_workshop_explains_every_rejected_start() -> None:
    request = load("infeasible-workshop")
    spans = known_spans(request)
    assert brute(request, spans.values()) == []
    result = planned("infeasible-workshop")
    assert (result["outcome"], result["assessment"]) == ("NoSolution", "Complete")
    assert result["candidates"] == []
    length = timedelta(hours=2)
    expected = {
        z(s): sorted(oid for oid, (b, e) in spans.items() if s < e and b < s + length)
        for s in grid(request)
    }
    rejections = result["conflicts"]["rejections"]
    assert {r["start"] for r in rejections} == set(expected)
    for rejection in rejections:
        (reason,) = rejection["reasons"]
        violation = reason["HardConstraint"]
        assert violation["reason"] == "Overlap"
        assert sorted(violation["evidence"]["blocking_objects"]) == expected[rejection["start"]]


@pytest.mark.parametrize("name", NAMES)
def test_every_example_is_valid_under_the_reference_limits(name: str) -> None:
    report = cerebri.validate((PACKAGED / f"{name}.json").read_bytes())
    assert report.to_wire() == {"state": "Valid", "issues": []}


def _open_hours(person: dict[str, Any], moment: datetime, length: timedelta) -> bool:
    """Whether ``[moment, moment + length)`` lies inside one of ``person``'s hours entries, on
    their own wall clock (zoneinfo)."""
    zone = ZoneInfo(person["timezone"])
    start, end = moment.astimezone(zone), (moment + length).astimezone(zone)
    day = start.strftime("%a")
    for hours in person["hours"]:
        low = time.fromisoformat(hours["start"])
        high = time.fromisoformat(hours["end"])
        same_day = start.date() == end.date()
        if day in hours["days"] and same_day and low <= start.time() and end.time() <= high:
            return True
    return False


def test_interview_week_moves_the_one_to_one_for_the_design_review() -> None:
    """The OPTIMIZE example (the Lab's week grid): every meeting inside its people's hours,
    nobody double-booked, and the design review, whose only common hour on Wednesday is
    bob's 10-11 Berlin, takes that hour, so the 1:1 that sat there moves; the team sync
    stays. All recomputed from the request with zoneinfo."""
    request = load("interview-week")
    batch = request["batch"]
    people = {p["id"]: p for p in batch["people"]}
    meetings = {m["object_id"]: m for m in batch["meetings"]}
    hour = timedelta(hours=1)
    wednesday = [
        datetime(2027, 1, 13, h, tzinfo=UTC)
        for h in range(24)
        if all(
            _open_hours(people[p], datetime(2027, 1, 13, h, tzinfo=UTC), hour)
            for p in meetings["design-review"]["required"]
        )
    ]
    assert wednesday == [datetime(2027, 1, 13, 9, tzinfo=UTC)]  # 10:00 Berlin (CET)
    before = known_spans(request)
    assert before["ann-bob-1on1"][0] == wednesday[0]

    answer = cerebri.plan(json.dumps(request)).to_wire()
    assert answer["batch"]["status"] == "OPTIMAL"
    placed = {a["object_id"]: a for a in answer["batch"]["assignments"]}
    assert set(placed) == set(meetings)
    spans = {k: (when(a["range"]["start"]), when(a["range"]["end"])) for k, a in placed.items()}
    assert spans["design-review"][0] == wednesday[0]
    assert placed["ann-bob-1on1"]["moved"] and spans["ann-bob-1on1"] != before["ann-bob-1on1"]
    assert not placed["team-sync"]["moved"] and spans["team-sync"] == before["team-sync"]
    busy: dict[str, list[Span]] = {p: [] for p in people}
    calendars = {p["calendar_id"]: p["id"] for p in people.values()}
    for obj in request["context"]["objects"]:
        if obj["id"] not in meetings and obj["id"] in before:
            busy[calendars[obj["calendar_id"]]].append(before[obj["id"]])
    for name, (start, end) in spans.items():
        for person in meetings[name]["required"]:
            assert _open_hours(people[person], start, end - start), (name, person)
            busy[person].append((start, end))
    for person, taken in busy.items():
        ordered = sorted(taken)
        assert all(a[1] <= b[0] for a, b in itertools.pairwise(ordered)), person
    assert spans["interview-1"][0].date() != spans["interview-2"][0].date()
    assert spans["hiring-debrief"][0] >= spans["interview-2"][1]
