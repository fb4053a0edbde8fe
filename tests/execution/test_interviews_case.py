"""Issue #24's realistic case (decision 0081): 40 interviews over eight interviewers'
generated one-week .ics calendars, optimised with repairs, proposed as one batch, approved
(the batch by victor, each moved meeting by its owner only), carried out by a worker on the
.ics files, and read back.

The hard rules are checked here from the files alone, with icalendar and
recurring-ical-events (not cerebri's readers) and zoneinfo: every interview is written once,
in its candidate's calendar and its room's; nobody (interviewer, candidate, room) is double
booked; everyone's working hours hold on their own clock; the dependencies and the days
apart hold; each moved meeting moved once (``SEQUENCE`` + 1), on its own day, keeping its
length.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import icalendar
import pytest
import recurring_ical_events

from cerebri.calendars.batch_file import CalendarBatch
from cerebri.calendars.batch_request import batch_request
from cerebri.calendars.sources import load_sources
from cerebri.clock import FakeClock, SequentialIds
from cerebri.cpir import MutationKind, parse_request
from cerebri.cpir.parse import parse_model
from cerebri.execution import (
    ApprovalError,
    Executor,
    decide,
    list_approvals,
    run_worker,
    show_plan,
    submit,
)
from cerebri.execution import store as execution_store
from cerebri.execution.adapters import Adapters, IcsFileCalendar
from cerebri.execution.adapters.ics_file import CALENDAR_CAPABILITIES
from cerebri.optimize import (
    BatchProblem,
    BatchSolution,
    batch_action_plan,
    default_solver,
    plan_batch,
)
from cerebri.plans import BatchApprovals, draft_from_action_plan
from cerebri.temporal import Instant

BENCH = Path(__file__).resolve().parent.parent.parent / "bench"
sys.path.insert(0, str(BENCH))

from _interviews_data import Case, write_case  # noqa: E402

DAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
Span = tuple[datetime, datetime]


@dataclass
class Solved:
    case: Case
    batch: dict[str, Any]
    request: dict[str, Any]
    result: dict[str, Any]
    solver: Callable[[BatchProblem], BatchSolution]
    before: dict[str, bytes]  # every calendar file as generated


@pytest.fixture(scope="module")
def solved(tmp_path_factory: pytest.TempPathFactory) -> Solved:
    case = write_case(tmp_path_factory.mktemp("week"))
    spec = parse_model(CalendarBatch, case.batch.read_bytes())
    loaded = load_sources(
        list(case.calendars.values()), [], (spec.window.start, spec.window.end),
        ids=list(case.calendars),
    )  # fmt: skip
    built = batch_request(spec, loaded)
    solve = default_solver()
    seen: list[tuple[BatchProblem, BatchSolution]] = []

    def once(problem: BatchProblem) -> BatchSolution:
        """The real solver, run once: the action plan re-plans the same problem."""
        for known, solution in seen:
            if known == problem:
                return solution
        seen.append((problem, solve(problem)))
        return seen[-1][1]

    result = plan_batch(parse_request(built.request), solver=once).to_wire()
    before = {name: path.read_bytes() for name, path in case.calendars.items()}
    batch = json.loads(case.batch.read_text(encoding="utf-8"))
    return Solved(case, batch, built.request, result, once, before)


def test_the_week_is_planned_with_repairs(solved: Solved) -> None:
    batch = solved.result["batch"]
    assert batch["status"] in {"OPTIMAL", "FEASIBLE"}, batch
    assert batch["score"]["hard"] == 0
    new = [a for a in batch["assignments"] if a["new"]]
    moved = [a for a in batch["assignments"] if a["moved"]]
    assert len(new) == 40
    assert moved, "the case needs repairs: cand-5's Friday morning is everyone's focus time"
    assert {a["object_id"] for a in moved} <= set(solved.request["scope"]["movable_object_ids"])
    assert batch["stats"]["deterministic_time"] <= 0.5 * 1.1  # the file's budget


# ------------------------------------------------------------------ reading the files back


def _utc(value: datetime | date, zone: str) -> datetime:
    if isinstance(value, datetime):
        return value.astimezone(UTC)
    return datetime.combine(value, time(0), tzinfo=ZoneInfo(zone)).astimezone(UTC)


def _window(batch: dict[str, Any]) -> Span:
    return (
        datetime.fromisoformat(batch["window"]["start"]),
        datetime.fromisoformat(batch["window"]["end"]),
    )


_CREATED = re.compile(r"(?P<meeting>.+)-[0-9a-f]{12}@cerebri")
"""The UID a batch gives a new meeting (decision 0083): ``<meeting>-<12 hex>@cerebri``."""


def _meeting_uid(uid: str) -> str:
    """The meeting id of a UID a batch created, else ``uid`` (an event that was there)."""
    match = _CREATED.fullmatch(uid)
    return uid if match is None else match["meeting"]


def _instances(path: Path, zone: str, window: Span) -> list[tuple[str, Span, Any]]:
    """Every busy instance of the file in the window: (UID, or the meeting id for an event
    the batch created; UTC span; the component)."""
    calendar = icalendar.Calendar.from_ical(path.read_bytes())
    found = []
    for event in recurring_ical_events.of(calendar).between(*window):
        if str(event.get("TRANSP", "OPAQUE")).upper() == "TRANSPARENT":
            continue
        start = _utc(event["DTSTART"].dt, zone)
        end = _utc(event["DTEND"].dt, zone)
        found.append((_meeting_uid(str(event["UID"])), (start, end), event))
    return found


def _overlap(a: Span, b: Span) -> bool:
    return a[0] < b[1] and b[0] < a[1]


def _within_hours(span: Span, person: dict[str, Any]) -> bool:
    zone = ZoneInfo(person["timezone"])
    start, end = span[0].astimezone(zone), span[1].astimezone(zone)
    if start.date() != (end - timedelta(seconds=1)).date():
        return False
    for hours in person["hours"]:
        opens = time.fromisoformat(hours["start"])
        closes = time.max if hours["end"] == "24:00" else time.fromisoformat(hours["end"])
        if (
            DAYS[start.weekday()] in hours["days"]
            and opens <= start.time()
            and end.time() <= closes
        ):
            return True
    return False


def check_the_week(batch: dict[str, Any], paths: dict[str, Path], planned: dict[str, Any]) -> None:
    """Every hard rule, from the files ``paths`` (calendar id -> file) as they are now."""
    window = _window(batch)
    people = {p["id"]: p for p in batch["batch"]["people"]}
    meetings = {m["object_id"]: m for m in batch["batch"]["meetings"]}
    files = {
        name: _instances(
            path, people[name]["timezone"] if name in people else batch["timezone"], window
        )
        for name, path in paths.items()
    }
    # every interview written once, in its candidate's calendar
    written: dict[str, Span] = {}
    for name in (n for n in files if n.startswith("cand-")):
        for uid, span, _ in files[name]:
            assert uid not in written, f"{uid} written twice"
            assert meetings[uid]["required"][0] == name
            written[uid] = span
    assert set(written) == set(meetings)
    # nobody double-booked: each person's calendar plus the interviews they attend
    for person in people:
        own = (
            [(uid, span) for uid, span, _ in files[person]]
            if not person.startswith("cand-")
            else []
        )
        attends = [(mid, written[mid]) for mid, m in meetings.items() if person in m["required"]]
        changed = {uid for uid, _ in attends} | set(planned["moved"])
        taken = own + attends
        for i, (uid, span) in enumerate(taken):
            if uid not in changed:
                continue
            clashes = [o for j, (o, other) in enumerate(taken) if j != i and _overlap(span, other)]
            assert not clashes, f"{person}: {uid} {span} overlaps {clashes}"
    # working hours on each attendee's own clock
    for mid, m in meetings.items():
        for person in m["required"]:
            assert _within_hours(written[mid], people[person]), (mid, person, written[mid])
    # dependencies and days apart (the batch's zone)
    zone = ZoneInfo(batch["timezone"])
    for mid, m in meetings.items():
        for after in m.get("after", []):
            gap = timedelta(seconds=after.get("gap_seconds", 0))
            assert written[mid][0] >= written[after["object_id"]][1] + gap, (mid, after)
        for other in m.get("not_same_day_as", []):
            assert (
                written[mid][0].astimezone(zone).date() != written[other][0].astimezone(zone).date()
            )
    _check_rooms(batch, files, written, planned)


def _check_rooms(
    batch: dict[str, Any],
    files: dict[str, list[tuple[str, Span, Any]]],
    written: dict[str, Span],
    planned: dict[str, Any],
) -> None:
    """Each onsite interview booked in one room big enough; no room double-booked."""
    rooms = {r["id"]: r for r in batch["batch"]["rooms"]}
    meetings = {m["object_id"]: m for m in batch["batch"]["meetings"]}
    booked: dict[str, str] = {}
    for room in rooms:
        spans = [(uid, span) for uid, span, _ in files[room]]
        for i, (uid, span) in enumerate(spans):
            assert not any(_overlap(span, s) for j, (_, s) in enumerate(spans) if j != i), (
                room,
                uid,
            )
            if uid in meetings:
                assert uid not in booked and span == written[uid]
                booked[uid] = room
                m = meetings[uid]
                assert rooms[room]["capacity"] >= len(m["required"]) + len(m.get("optional", []))
    assert set(booked) == {mid for mid, m in meetings.items() if "room" in m}
    assert booked == planned["rooms"]


def _planned(result: dict[str, Any]) -> dict[str, Any]:
    assignments = result["batch"]["assignments"]
    return {
        "moved": {a["object_id"]: a["range"] for a in assignments if a["moved"]},
        "rooms": {a["object_id"]: a["room_id"] for a in assignments if a["new"] and a["room_id"]},
        "new": {a["object_id"]: a["range"] for a in assignments if a["new"]},
    }


# ------------------------------------------------------------------------- carrying it out


@pytest.fixture
def world(solved: Solved, tmp_path: Path) -> Iterator[tuple[Executor, dict[str, Path]]]:
    paths = {}
    for name, data in solved.before.items():
        paths[name] = tmp_path / f"{name}.ics"
        paths[name].write_bytes(data)
    url = f"sqlite:///{tmp_path / 'store.sqlite3'}"
    execution_store.init(url)
    engine = execution_store.open_engine(execution_store.parse_store_url(url))
    clock = FakeClock(Instant.parse("2026-10-01T08:00:00Z"))
    calendars = IcsFileCalendar(paths, clock)
    adapters = Adapters()
    for name in CALENDAR_CAPABILITIES:
        adapters = adapters.with_adapter(name, calendars)
    try:
        yield Executor(engine, clock, SequentialIds("a"), adapters=adapters), paths
    finally:
        engine.dispose()


def _open_gates(executor: Executor) -> dict[str, dict[str, Any]]:
    """Open approvals by the approver they name (``None``: the batch's)."""
    return {a["request"].get("approver"): a for a in list_approvals(executor)}  # type: ignore[union-attr,misc]


def _run(executor: Executor) -> None:
    report = run_worker(executor, until_idle=True, poll_seconds=0.01)
    assert report.errors == 0, report.last_error


def test_the_week_is_carried_out_and_read_back(
    solved: Solved, world: tuple[Executor, dict[str, Path]]
) -> None:
    executor, paths = world
    request = parse_request(solved.request)
    assert request.batch is not None
    actions = batch_action_plan(request, solver=solved.solver)
    planned = _planned(solved.result)
    titles = {m.object_id: m.title for m in request.batch.meetings if m.title}
    draft = draft_from_action_plan(
        actions,
        titles={
            a.target: titles[a.target]
            for a in actions.actions
            if a.kind is MutationKind.CREATE_EVENT
        },
        batch=BatchApprovals.from_batch(request.batch, actions.actions, requester="principal:rita"),
    )
    plan_id = submit(executor, draft, requester="principal:rita").plan_id
    _run(executor)
    assert {p: paths[p].read_bytes() for p in paths} == solved.before  # nothing written yet
    (batch_gate,) = _open_gates(executor).values()
    decide(executor, str(batch_gate["id"]), approve=True, by="principal:victor")
    _run(executor)
    owners = _open_gates(executor)
    moved_calendars = {uid.split("-")[0] for uid in planned["moved"]}
    assert set(owners) == {f"principal:{p}" for p in moved_calendars}
    assert {p: paths[p].read_bytes() for p in paths} == solved.before
    first, *_ = sorted(owners)
    someone_else = next(
        f"principal:{p}" for p in ("anna", "ben", "hiro") if f"principal:{p}" != first
    )
    with pytest.raises(ApprovalError) as refused:
        decide(executor, str(owners[first]["id"]), approve=True, by=someone_else)
    assert refused.value.code == "approval.not_approver"
    for owner, gate in owners.items():
        decide(executor, str(gate["id"]), approve=True, by=owner)
    _run(executor)
    assert show_plan(executor, plan_id)["status"] == "completed"
    # each moved meeting: at its new range, SEQUENCE + 1, same local day, same length
    window = _window(solved.batch)
    people = {p["id"]: p for p in solved.batch["batch"]["people"]}
    for uid, span in planned["moved"].items():
        owner = uid.split("-")[0]
        zone = people[owner]["timezone"]
        (old,) = [e for e in _instances_from(solved.before[owner], zone, window) if e[0] == uid]
        (new,) = [e for e in _instances(paths[owner], zone, window) if e[0] == uid]
        assert new[1] == (
            datetime.fromisoformat(span["start"]),
            datetime.fromisoformat(span["end"]),
        )
        assert new[1][1] - new[1][0] == old[1][1] - old[1][0]
        local = ZoneInfo(zone)
        assert new[1][0].astimezone(local).date() == old[1][0].astimezone(local).date()
        assert int(new[2].get("SEQUENCE", 0)) == int(old[2].get("SEQUENCE", 0)) + 1
    check_the_week(solved.batch, paths, planned)
    # the interviews are where the answer put them, with their titles
    for uid, span in planned["new"].items():
        cand = f"cand-{uid[1]}"
        (found,) = [e for e in _instances(paths[cand], "Europe/Berlin", window) if e[0] == uid]
        assert found[1] == (
            datetime.fromisoformat(span["start"]),
            datetime.fromisoformat(span["end"]),
        )
        assert str(found[2]["SUMMARY"]) == titles[uid]


def _instances_from(data: bytes, zone: str, window: Span) -> list[tuple[str, Span, Any]]:
    calendar = icalendar.Calendar.from_ical(data)
    return [
        (str(e["UID"]), (_utc(e["DTSTART"].dt, zone), _utc(e["DTEND"].dt, zone)), e)
        for e in recurring_ical_events.of(calendar).between(*window)
    ]
