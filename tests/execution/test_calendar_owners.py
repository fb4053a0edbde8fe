"""Calendar owners recorded in the store (decision 0082): who owns a calendar is the store's
record, never the proposal's claim; a move in another person's calendar acts only on its
current owner's approval, checked at intake and again when the plan acts.

The batch is the hand-made one of :mod:`tests.plans.batch` (three creates in alice's
calendar, one with a room, and the move of bob's 1:1 in his calendar ``bob``), proposed in a
signed envelope by alice. The writes go to recording adapters: "nothing written" is read
from their journals, not from the store.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from sqlalchemy import func, select

from cerebri.errors import CerebriError
from cerebri.execution import (
    add_principal,
    decide,
    decision_payload,
    disable_principal,
    grant,
    list_calendar_owners,
    own_calendar,
    register_key,
    revoke_calendar_owner,
    submit_envelope,
)
from cerebri.execution.store.schema import plans
from cerebri.plans import BatchApprovals, PlanStatus, draft_from_action_plan
from cerebri.proposals import (
    APPROVAL_PAYLOAD_TYPE,
    artifact_for,
    canonical_json,
    parse_subject,
    propose,
    sign,
)
from cerebri.temporal import Instant
from tests.execution.rules_support import RulesEnv, open_env
from tests.plans import batch

ALICE, CAROL, BOB, MALLORY = batch.REQUESTER, batch.BATCH_APPROVER, batch.OWNER, "principal:mallory"
NAMES = {ALICE: "alice", CAROL: "carol", BOB: "bob", MALLORY: "mallory"}
KEYS = {name: Ed25519PrivateKey.generate() for name in NAMES.values()}
WRITES = ("calendar.event.create", "calendar.event.move")
NOW = Instant.parse("2031-05-01T10:00:00Z")  # a few days before the batch's slots
UNTIL = Instant.parse("2031-06-01T00:00:00Z")  # the envelope outlives them


@pytest.fixture
def env(store_url: str, tmp_path: Path) -> Iterator[RulesEnv]:
    for env in open_env(store_url, tmp_path):
        env.clock.set(NOW)
        for capability in WRITES:
            env.with_recorder(capability)
        env.with_recorder("calendar.event.get", result={"exists": False, "range": None})
        ex = env.ex
        add_principal(ex, ALICE, roles=["requester"])
        for person in (CAROL, BOB, MALLORY):
            add_principal(ex, person, roles=["approver"])
        for person, name in NAMES.items():
            register_key(ex, person, keyid=name, public_key=KEYS[name].public_key())
        grant(ex, ALICE, "calendar.event.create")
        grant(ex, ALICE, "calendar.event.move", calendar=batch.BOB_CAL)
        yield env


def _envelope(owners: dict[str, str]) -> tuple[bytes, bytes]:
    """The batch's plan graph, asking ``owners`` (calendar -> principal), signed by alice."""
    approvals = BatchApprovals(requester=ALICE, owners=owners, rooms=batch.ROOMS)
    draft = draft_from_action_plan(batch.action_plan(), batch=approvals, titles=batch.TITLES)
    body = canonical_json(draft.to_wire())
    envelope = propose(
        artifact_for(body),
        "cerebri.plan-graph.v1",
        author=parse_subject(ALICE),
        author_node_id="test",
        query_id="q",
        room_id="room",
        turn_id="turn",
        class_key="Personal",
        executor_mode="plan-executor",
        proposed_at=NOW,
        expires_at=UNTIL,
        idempotency_key=batch.PLAN_ID,
        signing_keys=[(KEYS["alice"], "alice")],
    )
    return envelope, body


def _submit(env: RulesEnv, owners: dict[str, str]) -> str:
    envelope, body = _envelope(owners)
    return submit_envelope(env.ex, envelope, artifact=body).plan_id


def _approve_open(env: RulesEnv, by: str) -> None:
    """``by`` approves the one open approval, signed with its key."""
    [row] = [a for a in env.approvals() if a["status"] == "open"]
    payload = decision_payload(env.ex, row["id"], decision="approve", by=by)
    signature = sign(APPROVAL_PAYLOAD_TYPE, payload, KEYS[NAMES[by]], NAMES[by]).sig
    decide(env.ex, row["id"], approve=True, by=by, keyid=NAMES[by], signature=signature)


def _gates(env: RulesEnv, owner: str) -> None:
    """carol approves the batch, then ``owner`` its owner's gate; no worker runs after."""
    env.run()
    _approve_open(env, CAROL)
    env.run()
    _approve_open(env, owner)


def _written(env: RulesEnv) -> list[tuple[str, str, str]]:
    return [
        (capability, str(entry["params"]["calendar_id"]), str(entry["target"]))  # type: ignore[index]
        for capability in WRITES
        for entry in env.journal(capability)
    ]


def _code(call: Any) -> str:
    with pytest.raises(CerebriError) as caught:
        call()
    return caught.value.code


def test_owners_are_recorded_one_per_calendar(env: RulesEnv) -> None:
    ex = env.ex
    made = own_calendar(ex, " Principal:Bob ", batch.BOB_CAL)
    assert (made["principal"], made["calendar"], made["revoked_at"]) == (BOB, "bob", None)
    assert made["created_at"] == "2031-05-01T10:00:00Z"
    assert _code(lambda: own_calendar(ex, MALLORY, batch.BOB_CAL)) == "auth.duplicate"
    assert _code(lambda: own_calendar(ex, "agent:bot", "x")) == "auth.invalid_role"
    assert _code(lambda: own_calendar(ex, "principal:nobody", "x")) == "execution.not_found"
    assert _code(lambda: own_calendar(ex, BOB, "*")) == "execution.invalid_argument"
    env.advance(60)
    revoked = revoke_calendar_owner(ex, batch.BOB_CAL)
    assert (revoked["principal"], revoked["revoked_at"]) == (BOB, "2031-05-01T10:01:00Z")
    assert _code(lambda: revoke_calendar_owner(ex, batch.BOB_CAL)) == "execution.not_found"
    own_calendar(ex, MALLORY, batch.BOB_CAL)  # free again after the revocation
    assert [(o["calendar"], o["principal"], o["revoked_at"]) for o in list_calendar_owners(ex)] == [
        ("bob", BOB, "2031-05-01T10:01:00Z"),
        ("bob", MALLORY, None),
    ]


def test_the_owner_approves_and_the_batch_acts(env: RulesEnv) -> None:
    own_calendar(env.ex, BOB, batch.BOB_CAL)
    own_calendar(env.ex, ALICE, batch.ALICE_CAL)  # the requester's own: no gate needed
    plan_id = _submit(env, {batch.BOB_CAL: BOB})
    _gates(env, BOB)
    env.run()
    # created meetings carry their own UID (decision 0083): <id>-<12 hex>@cerebri, one
    # digest for the whole batch (the draft's plan id)
    written = sorted(_written(env))
    made = {re.sub(r"^.*-([0-9a-f]{12})@cerebri$", r"\1", t) for _, _, t in written[:4]}
    assert len(made) == 1
    (digest,) = made
    assert written == [
        ("calendar.event.create", "alice", f"batch-debrief-{digest}@cerebri"),
        ("calendar.event.create", "alice", f"batch-interview-1-{digest}@cerebri"),
        ("calendar.event.create", "alice", f"batch-interview-2-{digest}@cerebri"),
        ("calendar.event.create", "room-a", f"batch-interview-1-{digest}@cerebri"),
        ("calendar.event.move", "bob", "bob-1on1"),
    ]
    assert env.step(plan_id, "move-2")["status"] == "completed"
    assert env.plan(plan_id)["status"] == PlanStatus.EXECUTING.value  # reading back


@pytest.mark.parametrize(
    "owners",
    [{batch.BOB_CAL: MALLORY}, {}],
    ids=["names-mallory", "names-nobody"],
)
def test_intake_refuses_a_plan_that_does_not_ask_the_store_s_owner(
    env: RulesEnv, owners: dict[str, str]
) -> None:
    own_calendar(env.ex, BOB, batch.BOB_CAL)
    envelope, body = _envelope(owners)
    with pytest.raises(CerebriError) as caught:
        submit_envelope(env.ex, envelope, artifact=body)
    assert caught.value.code == "approval.not_owner"
    assert "move-2 changes an event in calendar bob, which principal:bob owns" in str(caught.value)
    with env.engine.connect() as connection:
        assert connection.execute(select(func.count()).select_from(plans)).scalar() == 0


def _revoke(env: RulesEnv) -> None:
    revoke_calendar_owner(env.ex, batch.BOB_CAL)


def _transfer(env: RulesEnv) -> None:
    revoke_calendar_owner(env.ex, batch.BOB_CAL)
    own_calendar(env.ex, MALLORY, batch.BOB_CAL)


def _disable(env: RulesEnv) -> None:
    disable_principal(env.ex, BOB)


WHERE = "approval.not_owner: step move-2 changes an event in calendar bob, "


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (
            _revoke,
            WHERE + "whose ownership was revoked at 2031-05-01T10:00:05Z and is held by nobody",
        ),
        (
            _transfer,
            WHERE + "which principal:mallory owns (the store's record); the plan asks "
            "principal:bob to approve it, not principal:mallory",
        ),
        # the write that acts first is covered by bob's approval, whose decider is checked
        # first (decision 0034); a later write would meet the owner rule's own refusal
        (_disable, "approval.not_approver: principal:bob is disabled"),
    ],
    ids=["revoked", "given-to-another", "owner-disabled"],
)
def test_an_ownership_lost_between_approval_and_act_blocks_every_write(
    env: RulesEnv, change: Any, reason: str
) -> None:
    own_calendar(env.ex, BOB, batch.BOB_CAL)
    plan_id = _submit(env, {batch.BOB_CAL: BOB})
    _gates(env, BOB)  # bob approved as the owner ...
    env.advance(5)
    change(env)  # ... and is not (or no longer may be) when the plan acts
    env.drain()
    assert _written(env) == []  # not even the creates: the batch stops before any write
    plan = env.plan(plan_id)
    assert plan["status"] == PlanStatus.FAILED.value
    assert plan["status_reason"].startswith(reason), plan["status_reason"]
    assert len(env.plans_of(plan["intention_id"])) == 1  # refused, not replanned


def test_a_plan_that_asked_the_wrong_owner_is_refused_when_it_acts(env: RulesEnv) -> None:
    # no owner recorded at intake; the proposal names mallory as the owner of bob's calendar
    plan_id = _submit(env, {batch.BOB_CAL: MALLORY})
    _gates(env, MALLORY)
    own_calendar(env.ex, BOB, batch.BOB_CAL)  # the store's record: bob owns it
    env.drain()
    assert _written(env) == []
    reason = env.plan(plan_id)["status_reason"]
    assert reason.startswith("approval.not_owner: step move-2 changes an event in calendar bob")
    assert "the plan asks principal:mallory to approve it, not principal:bob" in reason
