"""Authority in a governed store (issue #13, decision 0023): principals, signed decisions,
four-eyes, grants and keys checked again when a step acts, envelope intake.

Every refusal is checked for its code *and* for leaving the store unchanged, and every
"nothing acted" claim is read from the adapter's own journal, not from the store.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from sqlalchemy import func, select

from cerebri.errors import CerebriError
from cerebri.execution import (
    ApprovalError,
    AuthError,
    add_principal,
    authenticate,
    decide,
    decision_payload,
    disable_principal,
    grant,
    issue_token,
    register_key,
    revoke_grant,
    revoke_key,
    revoke_token,
    submit_envelope,
    withdraw,
)
from cerebri.execution.store.schema import envelopes, intentions, plans
from cerebri.plans import PlanStatus, StepStatus
from cerebri.proposals import (
    APPROVAL_PAYLOAD_TYPE,
    ProposalError,
    artifact_for,
    canonical_json,
    parse_subject,
    propose,
    sign,
)
from cerebri.temporal import Instant
from tests.execution.rules_support import (
    START,
    RulesEnv,
    capability_step,
    changes,
    draft,
    open_env,
)

ALICE, BOB, CAROL, BOT = "principal:alice", "principal:bob", "principal:carol", "agent:bot"
TTL = 3600
KEYS = {name: Ed25519PrivateKey.generate() for name in ("alice", "bob", "carol", "bot")}


@pytest.fixture
def env(store_url: str, tmp_path: Path) -> Iterator[RulesEnv]:
    for env in open_env(store_url, tmp_path):
        env.with_executor(approval_ttl_seconds=TTL)
        ex = env.ex
        add_principal(ex, ALICE, roles=["requester", "approver"])
        add_principal(ex, BOB, roles=["approver"])
        add_principal(ex, CAROL, roles=["requester"])
        add_principal(ex, BOT, roles=["requester"])
        for name, principal in (("alice", ALICE), ("bob", BOB), ("carol", CAROL), ("bot", BOT)):
            register_key(ex, principal, keyid=name, public_key=KEYS[name].public_key())
        grant(ex, ALICE, "test.approve")
        grant(ex, BOT, "test.approve", calendar="work")
        yield env


_proposals = itertools.count(1)


def _ask(env: RulesEnv, requester: str = ALICE) -> tuple[str, str]:
    """Propose one ``test.approve`` step (calendar ``work``), signed by alice and submitted by
    ``requester``, and run it until it asks: ``(plan id, approval id)``."""
    envelope, body = _envelope(_one_step(), key=f"ask-{next(_proposals)}")
    submitted = submit_envelope(env.ex, envelope, artifact=body, submitted_by=requester)
    env.run()
    [approval] = env.approvals(submitted.plan_id)
    assert approval["status"] == "open"
    return submitted.plan_id, approval["id"]


def _signed(
    env: RulesEnv, approval_id: str, by: str, keyname: str, decision: str = "approve"
) -> str:
    payload = decision_payload(env.ex, approval_id, decision=decision, by=by)
    return sign(APPROVAL_PAYLOAD_TYPE, payload, KEYS[keyname], keyname).sig


def _refused(env: RulesEnv, code: str, call: Any) -> None:
    """``call()`` raises ``code`` and changes nothing in the store."""
    before = env.snapshot()
    with pytest.raises(CerebriError) as caught:
        call()
    assert caught.value.code == code, caught.value
    assert changes(before, env.snapshot()) == []


def test_a_signed_approval_lets_the_step_act_once(env: RulesEnv) -> None:
    plan_id, approval_id = _ask(env)
    signature = _signed(env, approval_id, BOB, "bob")
    decided = decide(env.ex, approval_id, approve=True, by=BOB, keyid="bob", signature=signature)
    assert (decided["status"], decided["signed"], decided["keyid"]) == ("approved", True, "bob")
    assert decided["subject_digest"].startswith("sha256:")
    env.drain()
    assert len(env.journal("test.approve")) == 1
    assert env.plan(plan_id)["status"] == PlanStatus.COMPLETED.value


def test_the_payload_names_the_decision_and_the_subject(env: RulesEnv) -> None:
    _, approval_id = _ask(env)
    approve = decision_payload(env.ex, approval_id, decision="approve", by=BOB)
    reject = decision_payload(env.ex, approval_id, decision="reject", by=BOB)
    [row] = env.approvals()
    expected = canonical_json(
        {
            "approval/id": approval_id,
            "decision": "approve",
            "principal": BOB,
            "subject/digest": row["subject_digest"],
        }
    )
    assert approve == expected
    assert approve != reject


@pytest.mark.parametrize(
    ("by", "keyname", "code"),
    [
        (ALICE, "alice", "approval.self_approval"),  # the requester
        (BOT, "bot", "approval.agent_cannot_approve"),
        (CAROL, "carol", "approval.not_approver"),  # registered, not an approver
        ("principal:mallory", "carol", "approval.not_approver"),  # not registered
        (BOB, "carol", "approval.wrong_key"),  # carol's key, carol's signature
    ],
)
def test_who_may_not_decide(env: RulesEnv, by: str, keyname: str, code: str) -> None:
    plan_id, approval_id = _ask(env)
    payload = decision_payload(env.ex, approval_id, decision="approve", by=by)
    signature = sign(APPROVAL_PAYLOAD_TYPE, payload, KEYS[keyname], keyname).sig
    _refused(
        env,
        code,
        lambda: decide(
            env.ex, approval_id, approve=True, by=by, keyid=keyname, signature=signature
        ),
    )
    env.drain()
    assert env.journal("test.approve") == []
    assert env.step(plan_id, "act")["status"] == StepStatus.AWAITING_APPROVAL.value


def test_forged_and_misused_signatures_are_refused(env: RulesEnv) -> None:
    _, approval_id = _ask(env)
    _, other_id = _ask(env)
    forged = sign(
        APPROVAL_PAYLOAD_TYPE,
        decision_payload(env.ex, approval_id, decision="approve", by=BOB),
        KEYS["carol"],
        "bob",
    ).sig  # signed with carol's key, claiming bob's keyid
    as_reject = _signed(env, approval_id, BOB, "bob", decision="reject")
    for_other = _signed(env, other_id, BOB, "bob")
    for signature in (forged, as_reject, for_other, "not base64"):
        _refused(
            env,
            "approval.bad_signature",
            lambda s=signature: decide(
                env.ex, approval_id, approve=True, by=BOB, keyid="bob", signature=s
            ),
        )
    _refused(
        env,
        "approval.signature_required",
        lambda: decide(env.ex, approval_id, approve=True, by=BOB),
    )
    _refused(
        env,
        "approval.unknown_key",
        lambda: decide(env.ex, approval_id, approve=True, by=BOB, keyid="nope", signature=forged),
    )
    revoke_key(env.ex, "bob")
    good = _signed(env, approval_id, BOB, "bob")
    _refused(
        env,
        "approval.key_revoked",
        lambda: decide(env.ex, approval_id, approve=True, by=BOB, keyid="bob", signature=good),
    )
    assert env.journal("test.approve") == []


def test_a_decision_cannot_be_replayed(env: RulesEnv) -> None:
    _, approval_id = _ask(env)
    signature = _signed(env, approval_id, BOB, "bob")
    decide(env.ex, approval_id, approve=True, by=BOB, keyid="bob", signature=signature)
    _refused(
        env,
        "approval.replayed",
        lambda: decide(env.ex, approval_id, approve=True, by=BOB, keyid="bob", signature=signature),
    )


def test_expired_and_withdrawn_requests_fail_closed(env: RulesEnv) -> None:
    _, approval_id = _ask(env)
    signature = _signed(env, approval_id, BOB, "bob")
    env.advance(TTL)
    with pytest.raises(ApprovalError) as caught:
        decide(env.ex, approval_id, approve=True, by=BOB, keyid="bob", signature=signature)
    assert caught.value.code == "approval.expired"
    env.drain()
    assert env.journal("test.approve") == []

    _, second = _ask(env)
    signature = _signed(env, second, BOB, "bob")
    withdraw(env.ex, second, by=ALICE)
    _refused(
        env,
        "approval.not_open",
        lambda: decide(env.ex, second, approve=True, by=BOB, keyid="bob", signature=signature),
    )
    env.drain()
    assert env.journal("test.approve") == []


@pytest.mark.parametrize("revoke", ["key", "grant", "approver"])
def test_authority_revoked_between_approval_and_action_stops_the_step(
    env: RulesEnv, revoke: str
) -> None:
    plan_id, approval_id = _ask(env)
    signature = _signed(env, approval_id, BOB, "bob")
    decide(env.ex, approval_id, approve=True, by=BOB, keyid="bob", signature=signature)
    expected = {
        "key": "approval.key_revoked",
        "grant": "grant.missing",
        "approver": "approval.not_approver",
    }[revoke]
    if revoke == "key":
        revoke_key(env.ex, "bob")
    elif revoke == "grant":
        [grant_row] = [g for g in _grants(env) if g["principal_id"] == ALICE]
        revoke_grant(env.ex, grant_row["id"])
    else:
        disable_principal(env.ex, BOB)
    env.drain()
    assert env.journal("test.approve") == []
    plan = env.plan(plan_id)
    assert plan["status"] == PlanStatus.FAILED.value
    assert plan["status_reason"].startswith(expected)
    assert plan["superseded_by"] is None  # no replanning: a new revision would be refused too


def _grants(env: RulesEnv) -> list[dict[str, Any]]:
    from cerebri.execution.store.schema import grants

    with env.engine.connect() as connection:
        return [dict(r._mapping) for r in connection.execute(select(grants))]


def test_an_author_without_a_grant_is_never_asked_for(env: RulesEnv) -> None:
    envelope, body = _envelope(
        _one_step("home"), author="service:bot", keyname="bot", key="bot-home"
    )  # bot holds test.approve on calendar work only
    submitted = submit_envelope(env.ex, envelope, artifact=body)
    env.drain()
    assert env.approvals(submitted.plan_id) == []
    plan = env.plan(submitted.plan_id)
    assert plan["status"] == PlanStatus.FAILED.value
    assert plan["status_reason"].startswith("grant.missing: agent:bot")
    assert env.journal("test.approve") == []


def test_a_bare_draft_never_acts_in_a_governed_store(env: RulesEnv) -> None:
    """A draft submitted without an envelope names its requester without proof: it may be
    previewed and read, but its effects are refused before anyone is asked."""
    submitted = env.submit(_one_step(), requester=ALICE)
    env.drain()
    assert env.approvals(submitted.plan_id) == []
    plan = env.plan(submitted.plan_id)
    assert plan["status"] == PlanStatus.FAILED.value
    assert plan["status_reason"].startswith("proposal.unsigned")
    assert env.journal("test.approve") == []


def test_an_approval_never_outlives_its_envelope(env: RulesEnv) -> None:
    envelope, body = _envelope(_one_step(), key="short", seconds=600)
    submitted = submit_envelope(env.ex, envelope, artifact=body)
    env.run()
    [approval] = env.approvals(submitted.plan_id)
    assert approval["expires_at"] == START.ns + 600 * 1_000_000_000
    assert TTL > 600


def test_a_signature_in_an_ungoverned_store_is_refused(tmp_path: Path) -> None:
    for bare in open_env(f"sqlite:///{tmp_path / 'bare.sqlite3'}", tmp_path):
        step = capability_step("act", "test.approve", params={})
        submitted = bare.submit(draft([step]), requester=ALICE)
        bare.run()
        [approval] = bare.approvals(submitted.plan_id)
        with pytest.raises(ApprovalError) as caught:
            decide(bare.ex, approval["id"], approve=True, by=BOB, keyid="bob", signature="x")
        assert caught.value.code == "approval.not_governed"


def test_tokens_authenticate_until_revoked(env: RulesEnv) -> None:
    issued = issue_token(env.ex, BOB, secret="cbr_" + "b" * 40, label="laptop")
    assert authenticate(env.ex, "cbr_" + "b" * 40) == BOB
    for token, code in (("cbr_" + "x" * 40, "auth.unauthorized"), ("", "auth.unauthorized")):
        with pytest.raises(AuthError) as caught:
            authenticate(env.ex, token)
        assert caught.value.code == code
    revoke_token(env.ex, str(issued["token_id"]))
    with pytest.raises(AuthError) as caught:
        authenticate(env.ex, "cbr_" + "b" * 40)
    assert caught.value.code == "auth.token_revoked"
    issue_token(env.ex, CAROL, secret="cbr_" + "c" * 40)
    disable_principal(env.ex, CAROL)
    with pytest.raises(AuthError) as caught:
        authenticate(env.ex, "cbr_" + "c" * 40)
    assert caught.value.code == "auth.principal_disabled"


def test_an_agent_cannot_hold_the_approver_role(env: RulesEnv) -> None:
    with pytest.raises(AuthError) as caught:
        add_principal(env.ex, "agent:helper", roles=["approver"])
    assert caught.value.code == "auth.invalid_role"


# -- envelopes ---------------------------------------------------------------------------


def _envelope(
    artifact: dict[str, Any],
    *,
    author: str = "principal:alice",
    keyname: str = "alice",
    key: str = "proposal-1",
    artifact_type: str = "cerebri.plan-graph.v1",
    mode: str = "plan-executor",
    proposed_at: Instant = START,
    seconds: int = 86400,
) -> tuple[bytes, bytes]:
    body = canonical_json(artifact)
    stored = artifact_for(body)
    envelope = propose(
        stored,
        artifact_type,
        author=parse_subject(author),
        author_node_id="test",
        query_id="q",
        room_id="room",
        turn_id="turn",
        class_key="Personal",
        executor_mode=mode,
        proposed_at=proposed_at,
        expires_at=Instant(proposed_at.ns + seconds * 1_000_000_000),
        idempotency_key=key,
        signing_keys=[(KEYS[keyname], keyname)],
    )
    return envelope, body


def _one_step(calendar: str = "work") -> dict[str, Any]:
    return draft([capability_step("act", "test.approve", params={"calendar_id": calendar})])


def _count(env: RulesEnv, table: Any) -> int:
    with env.engine.connect() as connection:
        return int(connection.execute(select(func.count()).select_from(table)).scalar_one())


def test_an_envelope_becomes_a_plan_its_author_cannot_approve(env: RulesEnv) -> None:
    envelope, body = _envelope(_one_step())
    submitted = submit_envelope(env.ex, envelope, artifact=body, submitted_by=BOT)
    wire = submitted.to_wire()
    assert (wire["author"], wire["replayed"]) == (ALICE, False)
    assert str(wire["envelope_digest"]).startswith("sha256:")
    env.run()
    [approval] = env.approvals(submitted.plan_id)
    assert (approval["author"], approval["requester"]) == (ALICE, BOT)
    signature = _signed(env, approval["id"], ALICE, "alice")
    _refused(  # alice authored it (bot only submitted it): four-eyes
        env,
        "approval.self_approval",
        lambda: decide(
            env.ex, approval["id"], approve=True, by=ALICE, keyid="alice", signature=signature
        ),
    )
    signature = _signed(env, approval["id"], BOB, "bob")
    decide(env.ex, approval["id"], approve=True, by=BOB, keyid="bob", signature=signature)
    env.drain()
    assert len(env.journal("test.approve")) == 1


def test_the_same_envelope_twice_is_one_plan(env: RulesEnv) -> None:
    envelope, body = _envelope(_one_step())
    first = submit_envelope(env.ex, envelope, artifact=body)
    again = submit_envelope(env.ex, envelope, artifact=body)
    assert again.plan_id == first.plan_id
    assert again.replayed
    assert (_count(env, plans), _count(env, envelopes)) == (1, 1)


def test_an_envelope_expires_before_its_step_acts(env: RulesEnv) -> None:
    envelope, body = _envelope(_one_step(), seconds=2 * 3600)
    submitted = submit_envelope(env.ex, envelope, artifact=body)
    env.run()
    [approval] = env.approvals(submitted.plan_id)
    signature = _signed(env, approval["id"], BOB, "bob")
    decide(env.ex, approval["id"], approve=True, by=BOB, keyid="bob", signature=signature)
    env.advance(2 * 3600)
    env.drain()
    assert env.journal("test.approve") == []
    assert env.plan(submitted.plan_id)["status_reason"].startswith("proposal.expired")


def _refusals(env: RulesEnv) -> list[tuple[str, tuple[bytes, bytes]]]:
    good, body = _envelope(_one_step(), key="used")
    submit_envelope(env.ex, good, artifact=body)
    other, other_body = _envelope({**_one_step(), "objective": "something else"}, key="used")
    stale, stale_body = _envelope(_one_step(), key="stale", seconds=60)
    early, early_body = _envelope(
        _one_step(), key="early", proposed_at=Instant(START.ns + 3600 * 1_000_000_000)
    )
    posing, posing_body = _envelope(_one_step(), key="posing", author=BOB, keyname="alice")
    manual, manual_body = _envelope(_one_step(), key="manual", mode="manual")
    unsigned_key, ok_body = _envelope(_one_step(), key="mallory", keyname="alice")
    env.advance(120)
    return [
        ("proposal.replayed", (other, other_body)),
        ("proposal.expired", (stale, stale_body)),
        ("proposal.not_yet_valid", (early, early_body)),
        ("proposal.author_mismatch", (posing, posing_body)),
        ("intake.executor_mode", (manual, manual_body)),
        ("proposal.digest_mismatch", (unsigned_key, ok_body.replace(b"test plan", b"Test plan"))),
        ("proposal.size_mismatch", (unsigned_key, ok_body + b" ")),
    ]


def test_refused_envelopes_store_nothing(env: RulesEnv) -> None:
    for code, (envelope, body) in _refusals(env):
        counts = (_count(env, plans), _count(env, intentions), _count(env, envelopes))
        with pytest.raises(CerebriError) as caught:
            submit_envelope(env.ex, envelope, artifact=body)
        assert caught.value.code == code, (code, caught.value)
        assert (_count(env, plans), _count(env, intentions), _count(env, envelopes)) == counts


def test_an_envelope_signed_by_an_unregistered_key_is_refused(env: RulesEnv) -> None:
    stranger = Ed25519PrivateKey.generate()
    body = canonical_json(_one_step())
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
        proposed_at=START,
        expires_at=Instant(START.ns + 3600 * 1_000_000_000),
        idempotency_key="stranger",
        signing_keys=[(stranger, "stranger")],
    )
    with pytest.raises(ProposalError) as caught:
        submit_envelope(env.ex, envelope, artifact=body)
    assert caught.value.code == "proposal.unknown_key"
    assert _count(env, plans) == 0


def test_concurrent_intakes_of_one_envelope_store_one_plan(env: RulesEnv) -> None:
    """Eight threads take the same envelope in at once: the idempotency key is the
    ``envelopes`` primary key, so one plan is stored and every caller is answered with it."""
    envelope, body = _envelope(_one_step(), key="raced")
    barrier = threading.Barrier(8)

    def take_in() -> str:
        barrier.wait()
        return submit_envelope(env.ex, envelope, artifact=body).plan_id

    with ThreadPoolExecutor(max_workers=8) as pool:
        answers = list(pool.map(lambda _: take_in(), range(8)))
    assert len(set(answers)) == 1
    assert (_count(env, plans), _count(env, intentions), _count(env, envelopes)) == (1, 1, 1)


# -- the proposal's own authority, checked when the step acts (issue #21, decision 0034) ---


def _revoke(env: RulesEnv, what: str) -> None:
    if what == "author_key":
        revoke_key(env.ex, "alice")
    elif what == "author":
        disable_principal(env.ex, ALICE)
    else:
        disable_principal(env.ex, CAROL)


_CODES = {
    "author_key": "proposal.revoked_key",
    "author": "proposal.author_disabled",
    "requester": "proposal.requester_disabled",
}


@pytest.mark.parametrize("what", sorted(_CODES))
@pytest.mark.parametrize("moment", ["before_ask", "while_asking", "after_approval"])
def test_the_proposals_authority_is_checked_when_the_step_acts(
    env: RulesEnv, what: str, moment: str
) -> None:
    """Alice signs, carol submits: revoking alice's signing key, disabling alice or
    disabling carol at any moment after intake stops the step before it acts."""
    envelope, body = _envelope(_one_step(), key=f"{what}-{moment}")
    submitted = submit_envelope(env.ex, envelope, artifact=body, submitted_by=CAROL)
    if moment == "before_ask":
        _revoke(env, what)
    env.run()
    asked = env.approvals(submitted.plan_id)
    if moment == "before_ask":
        assert asked == []  # nobody is asked to approve what cannot act
    else:
        [approval] = asked
        if moment == "while_asking":
            _revoke(env, what)
        signature = _signed(env, approval["id"], BOB, "bob")
        decide(env.ex, approval["id"], approve=True, by=BOB, keyid="bob", signature=signature)
        if moment == "after_approval":
            _revoke(env, what)
    env.drain()
    assert env.journal("test.approve") == []
    plan = env.plan(submitted.plan_id)
    assert plan["status"] == PlanStatus.FAILED.value
    assert plan["status_reason"].startswith(_CODES[what] + ":"), plan["status_reason"]
    assert plan["superseded_by"] is None


def test_only_the_key_that_signed_counts(env: RulesEnv) -> None:
    """Alice holds a second key, but the one that signed the envelope is revoked: refused.
    An envelope signed by the second key still acts."""
    second = Ed25519PrivateKey.generate()
    register_key(env.ex, ALICE, keyid="alice-2", public_key=second.public_key())
    plan_id, approval_id = _ask(env)
    signature = _signed(env, approval_id, BOB, "bob")
    decide(env.ex, approval_id, approve=True, by=BOB, keyid="bob", signature=signature)
    revoke_key(env.ex, "alice")
    env.drain()
    assert env.journal("test.approve") == []
    assert env.plan(plan_id)["status_reason"].startswith("proposal.revoked_key: ")
    assert "(alice)" in env.plan(plan_id)["status_reason"]

    KEYS["alice-2"] = second
    try:
        envelope, body = _envelope(_one_step(), keyname="alice-2", key="by-the-second-key")
    finally:
        del KEYS["alice-2"]
    submitted = submit_envelope(env.ex, envelope, artifact=body)
    env.run()
    [approval] = env.approvals(submitted.plan_id)
    signature = _signed(env, approval["id"], BOB, "bob")
    decide(env.ex, approval["id"], approve=True, by=BOB, keyid="bob", signature=signature)
    env.drain()
    assert len(env.journal("test.approve")) == 1
    assert env.plan(submitted.plan_id)["status"] == PlanStatus.COMPLETED.value


def test_the_record_says_who_signed_and_who_submitted(env: RulesEnv) -> None:
    from cerebri.execution import show_plan

    envelope, body = _envelope(_one_step(), key="recorded")
    submitted = submit_envelope(env.ex, envelope, artifact=body, submitted_by=CAROL)
    shown = show_plan(env.ex, submitted.plan_id)
    assert shown["requester"] == CAROL
    assert shown["proposal"] == {
        "author": ALICE,
        "envelope_digest": submitted.envelope_digest,
        "expires_at": "2026-12-02T10:00:00Z",
        "submitted_by": CAROL,
        "keyids": ["alice"],
    }
    bare = env.submit(_one_step(), requester=ALICE)
    assert show_plan(env.ex, bare.plan_id)["proposal"] is None


def test_an_envelope_taken_in_before_0004_needs_an_active_key_of_its_author(
    env: RulesEnv,
) -> None:
    """Ledger rows written before store revision 0004 name no signing key: any active key
    of the author will do, and none is a refusal."""
    from sqlalchemy import update

    plan_id, approval_id = _ask(env)
    with env.engine.begin() as connection:
        connection.execute(update(envelopes).values(keyids=None, submitted_by=None))
    signature = _signed(env, approval_id, BOB, "bob")
    decide(env.ex, approval_id, approve=True, by=BOB, keyid="bob", signature=signature)
    revoke_key(env.ex, "alice")
    env.drain()
    assert env.journal("test.approve") == []
    assert env.plan(plan_id)["status_reason"].startswith("proposal.revoked_key: ")


@pytest.mark.parametrize(
    ("what", "code"),
    [("author", "proposal.author_disabled"), ("author_key", "proposal.revoked_key")],
)
def test_intake_refuses_what_the_author_could_no_longer_sign(
    env: RulesEnv, what: str, code: str
) -> None:
    envelope, body = _envelope(_one_step(), key=f"late-{what}")
    _revoke(env, what)
    counts = (_count(env, plans), _count(env, intentions), _count(env, envelopes))
    with pytest.raises(CerebriError) as caught:
        submit_envelope(env.ex, envelope, artifact=body, submitted_by=CAROL)
    assert caught.value.code == code, caught.value
    assert (_count(env, plans), _count(env, intentions), _count(env, envelopes)) == counts


def test_a_disabled_requester_is_told_so_at_intake(env: RulesEnv) -> None:
    envelope, body = _envelope(_one_step(), key="disabled-requester")
    disable_principal(env.ex, CAROL)
    with pytest.raises(AuthError) as caught:
        submit_envelope(env.ex, envelope, artifact=body, submitted_by=CAROL)
    assert caught.value.code == "auth.forbidden"
    assert caught.value.message == f"{CAROL} is disabled since 2026-12-01T10:00:00Z"
    assert _count(env, plans) == 0


def test_a_failed_proposal_may_be_proposed_again_once(env: RulesEnv) -> None:
    """Decision 0066: another envelope under an idempotency key whose plan failed is a
    re-proposal (a new plan); while the plan under the key is open, or once it completed,
    it stays ``proposal.replayed``: exactly once."""

    def later(minutes: int) -> tuple[bytes, bytes]:
        at = Instant(START.ns + minutes * 60 * 1_000_000_000)
        return _envelope(_one_step(), key="again", proposed_at=at)

    first_envelope, body = later(0)
    first = submit_envelope(env.ex, first_envelope, artifact=body)
    env.run()
    [approval] = env.approvals(first.plan_id)
    second_envelope, _ = later(1)
    env.advance(120)
    _refused(
        env, "proposal.replayed", lambda: submit_envelope(env.ex, second_envelope, artifact=body)
    )
    signature = _signed(env, approval["id"], BOB, "bob", decision="reject")
    decide(env.ex, approval["id"], approve=False, by=BOB, keyid="bob", signature=signature)
    env.drain()
    assert env.plan(first.plan_id)["status"] == "failed"

    second = submit_envelope(env.ex, second_envelope, artifact=body)
    assert (second.replayed, second.revision) == (False, 1)
    assert second.plan_id != first.plan_id
    again = submit_envelope(env.ex, second_envelope, artifact=body)  # the same envelope
    assert (again.plan_id, again.replayed) == (second.plan_id, True)
    # the first envelope again: the key's plan is now the second, open
    _refused(
        env, "proposal.replayed", lambda: submit_envelope(env.ex, first_envelope, artifact=body)
    )
    assert (_count(env, plans), _count(env, envelopes)) == (2, 1)

    env.run()
    [approval] = env.approvals(second.plan_id)
    signature = _signed(env, approval["id"], BOB, "bob")
    decide(env.ex, approval["id"], approve=True, by=BOB, keyid="bob", signature=signature)
    env.drain()
    assert env.plan(second.plan_id)["status"] == "completed"
    assert len(env.journal("test.approve")) == 1
    third_envelope, _ = later(2)
    _refused(
        env, "proposal.replayed", lambda: submit_envelope(env.ex, third_envelope, artifact=body)
    )
