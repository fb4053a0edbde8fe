"""The store tools over stdio: ``preview``, ``plan_status`` and ``propose`` with ``submit``,
against a real SQLite execution store (issue #15, docs/decisions/0033-mcp-tool-server.md).

An agent proposes and watches, never approves: the server signs as ``agent:bot``, the plan
it submits waits for a human's approval, and no listed tool changes that.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from cerebri.clock import FakeClock, SequentialIds
from cerebri.errors import CerebriError
from cerebri.execution import (
    Executor,
    add_principal,
    decide,
    grant,
    list_approvals,
    preview_draft,
    preview_plan,
    register_key,
    run_worker,
    show_plan,
)
from cerebri.execution.adapters import Adapters, NoopAdapter
from cerebri.execution.store import METADATA, init, open_engine, parse_store_url
from cerebri.plans import parse_draft
from cerebri.proposals import (
    InMemoryReplayLedger,
    ObjectStore,
    canonical_json,
    load_registry,
    new_key,
    verify,
)
from cerebri.temporal import Instant
from tests.mcp_server.support import EXAMPLE, MEETING_DRAFT, Live, error_of, live_server
from tests.optimize_wire.test_wire_answer import three

AT = "2026-10-01T00:00:00Z"
BOT, ALICE = "agent:bot", "principal:alice"
SLOT = Instant.parse("2027-03-01T10:00:00Z")  # the meeting draft's event start


@dataclass
class World:
    url: str
    keys: Path
    objects: Path
    executor: Executor
    calendar: Path


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> World:
    root = tmp_path_factory.mktemp("store")
    url = f"sqlite:///{root / 'plans.db'}"
    init(url)
    keys = root / "keys"
    key = new_key(
        "bot",
        private_key_path=keys / "bot.pem",
        registry_path=keys / "registry.json",
        valid_from=Instant.parse("2026-01-01T00:00:00Z"),
        principal=BOT,
    )
    adapters = Adapters().with_adapter("calendar.event.create", NoopAdapter())
    executor = Executor(
        open_engine(parse_store_url(url)),
        FakeClock(Instant.parse(AT)),
        SequentialIds("t"),
        adapters=adapters,
    )
    add_principal(executor, ALICE, roles=["requester", "approver"])
    add_principal(executor, BOT, roles=["requester"])
    register_key(executor, BOT, keyid="bot", public_key=key.public_key, valid_from=key.valid_from)
    grant(executor, BOT, "calendar.event.create", calendar="work")
    calendar = root / "cal.ics"
    calendar.write_text("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//t//EN\r\nEND:VCALENDAR\r\n")
    return World(url, keys, root / "objects", executor, calendar)


@pytest.fixture(scope="module")
def live(world: World) -> Iterator[Live]:
    options = ["--at", AT, "--store", world.url, "--objects", str(world.objects)]
    options += ["--key", str(world.keys / "bot.pem"), "--keyid", "bot", "--author", BOT]
    options += ["--ics", f"team={world.calendar}"]
    with live_server(*options) as connected:
        yield connected


def _meeting() -> dict[str, Any]:
    document: dict[str, Any] = json.loads(MEETING_DRAFT.read_text())
    return document


def _state(world: World) -> dict[str, list[str]]:
    """Every row of every table. (Not the file's bytes: reading the SQLite file in this
    process would drop the POSIX locks its own connections hold, see sqlite.org/howtocorrupt.)
    """
    with world.executor.engine.connect() as connection:
        rows = {
            name: sorted(map(repr, connection.execute(select(table)).all()))
            for name, table in METADATA.tables.items()
        }
        connection.rollback()
    return rows


def _seconds_to_slot() -> int:
    return -(-(SLOT.ns - Instant.parse(AT).ns) // 1_000_000_000)


@pytest.fixture(scope="module")
def submitted(live: Live, world: World) -> dict[str, Any]:
    """The meeting draft proposed and submitted through MCP, then run by a worker until its
    create step waits for approval."""
    answer = live.ok(
        "propose", {"draft": _meeting(), "expires_in": _seconds_to_slot(), "submit": True}
    )
    run_worker(world.executor, until_idle=True, poll_seconds=0.01)
    return dict(answer)


def test_the_store_tools_are_listed_with_a_store(live: Live) -> None:
    names = [tool.name for tool in live.tools()]
    assert names[-2:] == ["preview", "plan_status"]
    assert not any(word in name for name in names for word in ("approve", "reject", "grant"))


def test_an_envelope_expiring_before_its_slot_points_at_expires_in(
    live: Live, world: World
) -> None:
    before = _state(world)
    wire = live.error("propose", {"draft": _meeting(), "expires_in": 86_400, "submit": True})
    assert (wire["code"], wire["path"]) == ("proposal.expires_before_slot", "/expires_in")
    assert f"expires_in {_seconds_to_slot()} " in wire["message"]
    assert "--expires-in" not in wire["message"]
    assert _state(world) == before


def test_propose_and_submit_stores_the_plan_authored_by_the_agent(
    live: Live, world: World, submitted: dict[str, Any]
) -> None:
    envelope = submitted["envelope"]
    assert submitted["signed"] is True
    assert envelope["author"] == {"kind": "service", "id": "bot"}  # agent:bot as a subject
    artifact = ObjectStore(world.objects).get(envelope["candidate"]["artifact/ref"])
    assert json.loads(artifact) == json.loads(canonical_json(parse_draft(_meeting()).to_wire()))
    # the envelope verifies with the key folder's registry, independently of the store
    verified = verify(
        canonical_json(envelope),
        registry=load_registry(world.keys / "registry.json"),
        clock_now=Instant.parse(AT),
        artifact_bytes=artifact,
        replay=InMemoryReplayLedger(),
    )
    assert verified.payload_digest == submitted["payload_digest"]
    done = submitted["submitted"]
    assert set(done) == {
        "plan_id", "intention_id", "revision", "status", "validation", "author",
        "envelope_digest", "replayed",
    }  # fmt: skip
    assert (done["author"], done["replayed"]) == (BOT, False)
    assert done["envelope_digest"] == submitted["payload_digest"]
    shown = show_plan(world.executor, done["plan_id"])
    assert shown["requester"] == BOT
    assert shown["id"] == done["plan_id"]


def test_plan_status_equals_the_python_api_and_waits_for_approval(
    live: Live, world: World, submitted: dict[str, Any]
) -> None:
    plan_id = submitted["submitted"]["plan_id"]
    answer = live.ok("plan_status", {"plan_id": plan_id})
    assert answer == show_plan(world.executor, plan_id)
    steps = {step["key"]: step for step in answer["steps"]}
    assert steps["create"]["status"] == "awaiting_approval"
    [approval] = answer["approvals"]
    assert approval["status"] == "open"


def test_preview_of_a_draft_and_of_the_stored_plan_changes_nothing(
    live: Live, world: World, submitted: dict[str, Any]
) -> None:
    plan_id = submitted["submitted"]["plan_id"]
    before = _state(world)
    draft_answer = live.ok("preview", {"draft": _meeting()})
    stored_answer = live.ok("preview", {"plan_id": plan_id})
    assert _state(world) == before
    assert draft_answer == preview_draft(MEETING_DRAFT.read_bytes())
    assert stored_answer == preview_plan(world.executor, plan_id)
    steps = {step["key"]: step for step in stored_answer["steps"]}
    assert steps["create"]["why"].startswith("awaiting_approval")
    assert _state(world) == before


def test_store_tool_errors_are_typed(live: Live, world: World) -> None:
    before = _state(world)
    assert live.error("plan_status", {"plan_id": "no-such-plan"})["code"] == "execution.not_found"
    assert live.error("preview", {"plan_id": "no-such-plan"})["code"] == "execution.not_found"
    both = live.error("preview", {"draft": _meeting(), "plan_id": "x"})
    assert (both["code"], both["path"]) == ("input.invalid_option", "")
    assert live.error("plan_status", {})["path"] == "/plan_id"
    unknown = live.error("plan_status", {"plan_id": "p" * 100_000})
    assert (unknown["code"], unknown["path"]) == ("execution.not_found", "/plan_id")
    assert len(unknown["message"]) < 400  # the id is cut, not echoed whole
    assert live.error("preview", {"plan_id": "no-such-plan"})["path"] == "/plan_id"
    assert _state(world) == before


def _every_tool_call(plan_id: str) -> list[tuple[str, dict[str, Any]]]:
    meeting = _meeting()
    claiming = {**meeting, "approvals": [{"approval_id": "x", "status": "approved"}]}
    window = {"ics": ["team"], "between": "2026-10-05T08:00/2026-10-05T18:00"}
    example = json.loads(EXAMPLE.read_text())
    return [
        ("validate_request", {"request": example}),
        ("plan", {"request": example}),
        ("find_slot", {**window, "duration": "30m"}),
        ("freebusy", window),
        ("draft_plan", {"draft": claiming}),
        ("propose", {"draft": meeting, "expires_in": _seconds_to_slot(), "submit": True}),
        ("propose", {"request": example, "expires_in": 365 * 86_400}),
        ("preview", {"plan_id": plan_id}),
        ("preview", {"draft": claiming}),
        ("plan_status", {"plan_id": plan_id}),
        ("reschedule_event", {**window, "uid": "team-sync"}),
        ("cancel_event", {**window, "uid": "team-sync", "propose": {}}),
        ("update_event", {**window, "uid": "team-sync", "title": "Renamed"}),
        ("optimize_batch", {"request": three()}),
    ]


def test_no_tool_can_approve_the_agents_plan(
    live: Live, world: World, submitted: dict[str, Any]
) -> None:
    plan_id = submitted["submitted"]["plan_id"]
    [opened] = list_approvals(world.executor)
    calls = _every_tool_call(plan_id)
    assert {name for name, _ in calls} == {tool.name for tool in live.tools()}
    answers = [live.call(name, arguments) for name, arguments in calls]
    refused = [(name, error_of(a)) for (name, _), a in zip(calls, answers, strict=True)
               if a.is_error]  # fmt: skip
    # only the draft claiming an approval is refused (a stored plan's draft is strict), and
    # the changes of an event the (empty) team calendar does not hold
    assert [(name, wire["code"], wire["path"]) for name, wire in refused] == [
        ("preview", "draft.schema", "/draft/approvals"),
        ("reschedule_event", "calendar.not_found", "/uid"),
        ("cancel_event", "calendar.not_found", "/uid"),
        ("update_event", "calendar.not_found", "/uid"),
    ]
    again = answers[5].structured_content["submitted"]
    assert (again["plan_id"], again["replayed"]) == (plan_id, True)
    assert answers[6].structured_content["submitted"] is None
    for name in ("approve", "decide", "grant"):
        assert live.error(name, {"approval_id": opened["id"]})["code"] == "mcp.unknown_tool"
    [still] = list_approvals(world.executor)
    assert (still["id"], still["status"], still["decided_by"]) == (opened["id"], "open", None)
    steps = {step["key"]: step for step in show_plan(world.executor, plan_id)["steps"]}
    assert steps["create"]["status"] == "awaiting_approval"
    # and the store itself refuses the agent, whatever path it took
    with pytest.raises(CerebriError) as refused:
        decide(world.executor, opened["id"], approve=True, by=BOT)
    assert refused.value.code == "approval.agent_cannot_approve"
