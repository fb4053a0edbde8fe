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
