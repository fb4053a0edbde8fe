"""``worker --until-idle`` ends when only steps it cannot serve are left (decision 0066).

Before, a step passed on for a calendar no worker serves (``calendar.unknown_calendar``)
stayed ``ready`` and kept ``--until-idle`` running for ever.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from cerebri.cli._execution import EXIT_WORKER_OUT_OF_REACH
from cerebri.clock import FakeClock, SequentialIds
from cerebri.execution import Executor, decide, list_approvals, run_worker, submit
from cerebri.execution.adapters import Adapters, IcsFileCalendar
from cerebri.execution.idleness import idleness
from cerebri.execution.store import init, open_engine, parse_store_url
from cerebri.temporal import Instant
from tests.execution._one_event import ONE_EVENT_DRAFT
from tests.execution.test_cli_execution import EXAMPLES, _cli, _ok


def test_until_idle_ends_naming_the_step_out_of_reach(store_url: str, tmp_path: Path) -> None:
    env = {**os.environ, "CEREBRI_STORE": store_url}
    init(store_url)
    plan = json.loads(_ok(env, "submit", str(EXAMPLES / "meeting.json"), "--json"))
    other = ("--ics-calendar", f"other={tmp_path / 'other.ics'}", "--poll", "0.05s")
    # no calendar adapter at all: the create step is passed on before anything is asked
    done = _cli(env, "worker", "--until-idle", "--poll", "0.05s")
    assert done.returncode == EXIT_WORKER_OUT_OF_REACH == 3, (done.stdout, done.stderr)
    [line] = [x for x in done.stdout.splitlines() if "out of this worker's reach" in x]
    assert line.startswith("step create (")
    assert f"of plan {plan['plan_id']}" in line
    assert "adapter.unsupported_capability: no_adapter: " in line
    assert done.stderr.startswith("error execution.out_of_reach: 1 steps are out of")
    # a worker with another calendar asks for the approval: nothing else is due, exit 0
    asked = json.loads(_ok(env, "worker", "--until-idle", *other, "--json"))
    assert "out_of_reach" not in asked
    [approval] = json.loads(_ok(env, "approvals", "list", "--json"))
    _ok(env, "approvals", "approve", approval["id"], "--as", "principal:bob")
    # approved: its calendar "work" is not this worker's, the step is passed on, exit 3
    done = _cli(env, "worker", "--until-idle", *other, "--json")
    assert done.returncode == 3, (done.stdout, done.stderr)
    report = json.loads(done.stdout)
    assert [(s["plan_id"], s["step_key"], s["code"]) for s in report["out_of_reach"]] == [
        (plan["plan_id"], "create", "calendar.unknown_calendar")
    ]
    assert json.loads(done.stderr)["code"] == "execution.out_of_reach"
    # the worker that serves "work" still carries it out once it is due again
    shown = json.loads(_ok(env, "plans", "show", plan["plan_id"], "--json"))
    assert [s["status"] for s in shown["steps"]] == ["ready", "pending"]


def test_idleness_counts_a_step_passed_on_by_another_worker_as_reachable(
    store_url: str, tmp_path: Path
) -> None:
    init(store_url)
    engine = open_engine(parse_store_url(store_url))
    clock = FakeClock(Instant.parse("2026-12-01T09:00:00Z"))
    ids = SequentialIds("n")
    calendar = IcsFileCalendar({"work": tmp_path / "work.ics"}, clock)
    able = Executor(
        engine, clock, ids, adapters=Adapters().with_adapter("calendar.event.create", calendar)
    )
    submit(able, ONE_EVENT_DRAFT, requester="principal:alice")
    run_worker(able, until_idle=True, poll_seconds=0.01)
    (request,) = list_approvals(able)
    decide(able, str(request["id"]), approve=True, by="principal:bob")
    unable = Executor(engine, clock, ids, adapters=Adapters())
    report = run_worker(unable, until_idle=True, poll_seconds=0.01)
    assert report.claims == 1
    mine = idleness(unable, report.worker_id)
    assert (mine.reachable, [s.code for s in mine.out_of_reach]) == (
        0,
        ["adapter.unsupported_capability"],
    )
    # for any other worker (the one that serves the calendar) the step is still to do
    theirs = idleness(able, "worker:someone-else")
    assert (theirs.reachable, theirs.out_of_reach) == (1, ())
    assert idleness(able, None) == theirs
