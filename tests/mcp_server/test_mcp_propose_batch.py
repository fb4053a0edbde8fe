"""The MCP ``propose`` tool of an ``OPTIMIZE`` request as a plan graph (decision 0080): the
proposal's author is the batch's requester, as for ``cerebri propose --as plan-graph``
(decision 0077), so the graph has the batch's approval and the owner's approval of the move
of an event in another person's calendar."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest

from cerebri.errors import CerebriError
from cerebri.mcp.arguments import ProposeArgs
from cerebri.mcp.settings import McpSettings
from cerebri.mcp.tools import propose_tool
from cerebri.planner import DEFAULT_LIMITS
from cerebri.proposals import ArtifactChoice, canonical_json, proposal_artifact
from cerebri.proposals.digest import sha256_digest
from cerebri.temporal import Instant
from tests.mcp_server.support import REPO, Live, live_server

AT = "2027-01-01T00:00:00Z"
WEEK = REPO / "src" / "cerebri" / "service" / "examples" / "interview-week.json"
VALID = 20 * 86_400  # past the batch's last meeting (Friday 15 January 2027)


def _week() -> dict[str, Any]:
    document: dict[str, Any] = json.loads(WEEK.read_text(encoding="utf-8"))
    return document


@pytest.fixture(scope="module")
def live() -> Iterator[Live]:
    with live_server("--at", AT, "--author", "principal:alice") as connected:
        yield connected


def test_an_optimize_proposed_by_a_principal_gets_the_batch_gates(live: Live) -> None:
    request = _week()
    answer = live.ok("propose", {"request": request, "wrap": "plan-graph", "expires_in": VALID})
    envelope = answer["envelope"]
    assert envelope["author"] == {"kind": "principal", "id": "alice"}
    assert answer["artifact"]["type"] == "cerebri.plan-graph.v1"
    # an unsigned envelope stores nothing: the graph it names is the one alice's batch gives
    made = proposal_artifact(
        canonical_json(request),
        wrap=ArtifactChoice.PLAN_GRAPH,
        limits=DEFAULT_LIMITS,
        requester="principal:alice",
    )
    assert answer["artifact"]["digest"] == sha256_digest(made.payload)
    graph = json.loads(made.payload)
    steps = {step["key"]: step for step in graph["steps"]}
    # by hand from the request: the moved meetings are existing events (revision set) in a
    # person's calendar; its owner (batch.people) is asked, as alice asks for the batch
    owners = {p["calendar_id"]: f"principal:{p['id']}" for p in request["batch"]["people"]}
    existing = {o["id"]: o["calendar_id"] for o in request["context"]["objects"] if o["revision"]}
    moves = {s["target"]: s for s in steps.values() if s.get("capability") == "calendar.event.move"}
    assert set(moves) == {"ann-bob-1on1"}
    gates = [key for key, step in steps.items() if key.startswith("approve-")]
    index = moves["ann-bob-1on1"]["key"].removeprefix("move-")
    assert gates == ["approve-batch", f"approve-owner-{index}"]
    assert "requested by principal:alice" in steps["approve-batch"]["title"]
    owner = steps[f"approve-owner-{index}"]
    assert owner["approver"] == owners[existing["ann-bob-1on1"]] == "principal:ann"
    assert owner["depends_on"] == ["approve-batch"]
    writes = [s for s in steps.values() if s.get("capability", "").startswith("calendar.event.")]
    creates = [s for s in writes if s["capability"] == "calendar.event.create"]
    # each new meeting under its own UID (decision 0083): <target>-<12 hex>@cerebri
    made = {re.sub(r"-[0-9a-f]{12}@cerebri$", "", s["target"]) for s in creates}
    assert made == set(request["target_ids"])
    for step in writes:
        if step["capability"] != "calendar.event.get":
            assert step["depends_on"] == gates, step["key"]


def test_a_service_author_cannot_request_a_batch() -> None:
    """The default author (``service:cerebri-mcp``) is nobody whose own calendars need no
    owner: the plan graph is refused, pointing into the request."""
    settings = McpSettings(at=Instant.parse(AT))
    args = ProposeArgs(request=_week(), wrap="plan-graph", expires_in=VALID)
    with pytest.raises(CerebriError) as raised:
        propose_tool(args, settings)
    assert raised.value.code == "draft.invalid_argument"
    assert (raised.value.path or "").startswith("/request")
    assert "principal" in raised.value.message
