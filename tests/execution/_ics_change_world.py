"""A change of one event carried out through the plan graph on an ``.ics`` file, in this
process (decisions 0050, 0064, 0074): the store, the calendar adapter and the executor
(:func:`ics_executor`), the plan draft of one change (:func:`change_draft`), and the worker
runs with bob approving in between (:func:`run_and_approve`).

Nothing here reads the calendar back: the tests do that, independently.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from cerebri.calendars.changes import resource_etag
from cerebri.clock import FakeClock, SequentialIds
from cerebri.cpir import MutationKind
from cerebri.cpir.scalars import TimeRange
from cerebri.execution import Executor, decide, list_approvals, run_worker, show_plan, submit
from cerebri.execution import store as execution_store
from cerebri.execution.adapters import Adapters, IcsFileCalendar
from cerebri.execution.adapters.ics_file import CALENDAR_CAPABILITIES
from cerebri.plans import PlanDraft, draft_from_action_plan
from cerebri.temporal import Instant
from tests.plans.test_change_drafts import _change, _plan

__all__ = ["carry_out", "change_draft", "ics_executor", "run_and_approve"]


@contextmanager
def ics_executor(
    tmp_path: Path, text: str, now: str
) -> Iterator[tuple[Executor, IcsFileCalendar, Path]]:
    """A SQLite store in ``tmp_path``, ``work.ics`` holding ``text`` (written as is), one
    :class:`IcsFileCalendar` serving every calendar capability, and an executor on a fake
    clock at ``now``; yields ``(executor, calendars, work.ics)``, disposes the engine after."""
    url = f"sqlite:///{tmp_path / 'store.sqlite3'}"
    execution_store.init(url)
    engine = execution_store.open_engine(execution_store.parse_store_url(url))
    clock = FakeClock(Instant.parse(now))
    work = tmp_path / "work.ics"
    work.write_text(text, encoding="utf-8", newline="")
    calendars = IcsFileCalendar({"work": work}, clock)
    adapters = Adapters()
    for name in CALENDAR_CAPABILITIES:
        adapters = adapters.with_adapter(name, calendars)
    try:
        yield Executor(engine, clock, SequentialIds("a"), adapters=adapters), calendars, work
    finally:
        engine.dispose()


def change_draft(
    calendars: IcsFileCalendar,
    kind: MutationKind,
    span: TimeRange,
    *,
    uid: str,
    current: dict[str, str],
    current_title: str,
    zone: str,
    **change: Any,
) -> PlanDraft:
    """The draft of ``kind`` of event ``uid`` in ``work`` to ``span``: the example plan's one
    action with that range, the change record (no organizer, no attendees; the resource's
    current ETag; ``change`` overrides), the event's ``current`` range, ``current_title``
    and ``zone``."""
    plan, action = _plan(kind)
    action = dataclasses.replace(
        action, placement=dataclasses.replace(action.placement, range=span)
    )
    plan = dataclasses.replace(plan, actions=(action,))
    resource = calendars.read_resource("work", uid)
    assert resource is not None
    record = _change(
        uid=uid, etag=resource_etag(resource), organizer=None, attendees=None, **change
    )
    return draft_from_action_plan(
        plan,
        change=record,
        current={action.target: current},
        titles={action.target: current_title},
        zones={action.target: zone},
    )


def run_and_approve(executor: Executor) -> None:
    """Twice: run the worker until idle (no errors), then approve every open request as bob."""
    for _ in range(2):
        report = run_worker(executor, until_idle=True, poll_seconds=0.01)
        assert report.errors == 0, report.last_error
        for asked in list_approvals(executor):
            decide(executor, str(asked["id"]), approve=True, by="principal:bob")


def carry_out(executor: Executor, draft: PlanDraft) -> dict[str, Any]:
    """Submit ``draft`` as alice, run it with bob's approvals; the plan as ``show_plan``."""
    plan_id = submit(executor, draft, requester="principal:alice").plan_id
    run_and_approve(executor)
    return show_plan(executor, plan_id)
