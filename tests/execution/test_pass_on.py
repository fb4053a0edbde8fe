"""A worker that cannot carry out a step leaves it to one that can (trial finding).

Before, a worker started without the right ``--ics-calendar`` blocked the step for good
(``no_adapter``) or failed the plan (``calendar.unknown_calendar``).
"""

from __future__ import annotations

from pathlib import Path

import icalendar
from sqlalchemy import select

from cerebri.clock import FakeClock, SequentialIds
from cerebri.execution import Executor, decide, list_approvals, run_worker, stuck, submit
from cerebri.execution.adapters import Adapters, IcsFileCalendar
from cerebri.execution.runner import PASS_ON_SECONDS
from cerebri.execution.store import init, open_engine, parse_store_url
from cerebri.execution.store.schema import steps
from cerebri.temporal import Instant
from tests.execution._one_event import ONE_EVENT_DRAFT

START = Instant.parse("2026-12-01T09:00:00Z")


def _calendar(clock: FakeClock, calendars: dict[str, Path]) -> Adapters:
    adapter = IcsFileCalendar(calendars, clock)
    return Adapters().with_adapter("calendar.event.create", adapter)


def _step(executor: Executor) -> tuple[str, str | None, int | None]:
    with executor.engine.connect() as connection:
        row = connection.execute(select(steps)).one()
    return row.status, row.status_reason, row.next_run_at


def test_a_worker_without_the_calendar_passes_the_step_on(store_url: str, tmp_path: Path) -> None:
    init(store_url)
    engine = open_engine(parse_store_url(store_url))
    clock = FakeClock(START)
    ids = SequentialIds("n")
    work = tmp_path / "work.ics"
    able = Executor(engine, clock, ids, adapters=_calendar(clock, {"work": work}))
    submit(able, ONE_EVENT_DRAFT, requester="principal:alice")
    run_worker(able, until_idle=True, poll_seconds=0.01)
    (request,) = list_approvals(able)
    decide(able, str(request["id"]), approve=True, by="principal:bob")

    for adapters in (Adapters(), _calendar(clock, {"other": tmp_path / "other.ics"})):
        unable = Executor(engine, clock, ids, adapters=adapters)
        run_worker(unable, until_idle=True, poll_seconds=0.01)
        status, reason, due = _step(unable)
        assert status == "ready"
        assert reason is not None and reason.startswith("no_adapter: ")
        assert due == clock.now().ns + PASS_ON_SECONDS * 10**9
        [entry] = [e for e in stuck(unable) if e["kind"] == "step"]
        assert (entry["owner"], entry["stuck"]) == ("operator", True)
        clock.advance(PASS_ON_SECONDS)

    assert not work.exists()  # nothing was written by the workers that could not
    run_worker(able, until_idle=True, poll_seconds=0.01)
    assert _step(able)[0] == "completed"
    events = icalendar.Calendar.from_ical(work.read_bytes()).walk("VEVENT")
    assert [str(e["UID"]) for e in events] == ["e1"]


def test_pass_ons_are_counted_as_pass_ons(store_url: str, tmp_path: Path) -> None:
    """Decision 0075: an attempt that passed the step on is marked ``passed_on`` (outcome
    ``interrupted`` without an adapter, ``failed`` with an adapter that does not serve the
    calendar, as before) and counted apart: the step's ``pass_ons``, the worker's report,
    ``plans show``; the attempt that did the work is the one ``completed``."""
    from typer.testing import CliRunner

    from cerebri.cli import app
    from cerebri.execution import show_plan

    init(store_url)
    engine = open_engine(parse_store_url(store_url))
    clock = FakeClock(START)
    ids = SequentialIds("n")
    work = tmp_path / "work.ics"
    able = Executor(engine, clock, ids, adapters=_calendar(clock, {"work": work}))
    plan_id = submit(able, ONE_EVENT_DRAFT, requester="principal:alice").plan_id
    run_worker(able, until_idle=True, poll_seconds=0.01)
    (request,) = list_approvals(able)
    decide(able, str(request["id"]), approve=True, by="principal:bob")

    reports = []
    for adapters in (Adapters(), _calendar(clock, {"other": tmp_path / "other.ics"})):
        unable = Executor(engine, clock, ids, adapters=adapters)
        reports.append(run_worker(unable, until_idle=True, poll_seconds=0.01))
        clock.advance(PASS_ON_SECONDS)
    assert [(r.claims, r.pass_ons) for r in reports] == [(1, 1), (1, 1)]
    assert reports[0].to_wire()["pass_ons"] == 1
    done = run_worker(able, until_idle=True, poll_seconds=0.01)
    assert (done.claims, done.pass_ons) == (1, 0)

    [step] = show_plan(able, plan_id)["steps"]
    assert isinstance(step, dict)
    history = step["attempt_history"]
    assert isinstance(history, list)
    seen = [(a["outcome"], a["passed_on"], (a["error"] or {}).get("code")) for a in history]
    assert seen == [
        ("completed", False, None),  # the first claim asked for the approval
        ("interrupted", True, "adapter.unsupported_capability"),
        ("failed", True, "calendar.unknown_calendar"),
        ("completed", False, None),
    ]
    assert (step["attempts"], step["pass_ons"], step["status"]) == (4, 2, "completed")
    shown = CliRunner().invoke(app, ["plans", "show", plan_id, "--store", store_url])
    assert shown.exit_code == 0, shown.output
    assert "4 (2 passed on)" in shown.stdout
