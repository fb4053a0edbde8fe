"""A governed store served over HTTP, shared by the plan and approval route tests.

Principals: ``principal:alice`` and ``principal:dave`` (requesters), ``principal:bob`` and
``principal:erin`` (approvers, each with an Ed25519 key), ``principal:carol`` (operator),
``agent:helper`` (requester), and ``principal:selfie`` (requester and approver, with a key).
Each has a bearer token ``<name>-token-0123456789`` (16 characters at least); all but carol
have a key. Alice and selfie hold a grant for ``calendar.event.create`` in every calendar, so
an approved step of a proposal they authored acts (a governed store acts only on signed
proposals: :meth:`World.proposal`). The clock is a :class:`FakeClock`; ids are sequential.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass, field
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from fastapi.testclient import TestClient

from cerebri.clock import FakeClock, SequentialIds
from cerebri.execution import (
    Executor,
    add_principal,
    decision_payload,
    grant,
    issue_token,
    register_key,
    run_worker,
)
from cerebri.execution.adapters import Adapters, NoopAdapter
from cerebri.execution.store import init, open_engine, parse_store_url
from cerebri.proposals import (
    APPROVAL_PAYLOAD_TYPE,
    artifact_for,
    canonical_json,
    parse_subject,
    propose,
    sign,
)
from cerebri.service import ServiceSettings, create_app
from cerebri.temporal import Instant

START = Instant.parse("2026-12-01T09:00:00Z")
ROLES: dict[str, tuple[str, ...]] = {
    "principal:alice": ("requester",),
    "principal:dave": ("requester",),
    "principal:bob": ("approver",),
    "principal:erin": ("approver",),
    "principal:carol": ("operator",),
    "agent:helper": ("requester",),
    "principal:selfie": ("requester", "approver"),
}
SIGNERS = (
    "principal:alice",
    "principal:bob",
    "principal:dave",
    "principal:erin",
    "principal:selfie",
    "agent:helper",
)


def token_of(principal: str) -> str:
    """The bearer token secret issued to ``principal``."""
    return principal.split(":", 1)[1] + "-token-0123456789"


def auth(principal: str) -> dict[str, str]:
    """The ``Authorization`` header of ``principal``."""
    return {"Authorization": f"Bearer {token_of(principal)}"}


def keyid_of(principal: str) -> str:
    return principal.split(":", 1)[1] + "-key"


@dataclass
class World:
    """The executor, its clock, the HTTP client, the principals' keys and token ids."""

    executor: Executor
    clock: FakeClock
    client: TestClient
    keys: dict[str, Ed25519PrivateKey] = field(default_factory=dict)
    token_ids: dict[str, str] = field(default_factory=dict)
    proposed: int = 0

    def work(self) -> None:
        """Run a worker until nothing is due."""
        run_worker(self.executor, until_idle=True, poll_seconds=0.01)

    def proposal(
        self, draft: dict[str, Any], *, author: str = "principal:alice", key: str | None = None
    ) -> dict[str, Any]:
        """The ``POST /v1/plans`` body proposing ``draft`` (a plan graph): an envelope signed
        by ``author`` (a fresh idempotency key unless ``key``) and its artifact."""
        self.proposed += 1
        artifact = canonical_json(draft)
        kind, _, name = author.partition(":")
        signed = propose(
            artifact_for(artifact),
            "cerebri.plan-graph.v1",
            author=parse_subject(f"{'service' if kind == 'agent' else 'principal'}:{name}"),
            author_node_id="node-1",
            query_id="query-1",
            room_id="room-1",
            turn_id="turn-1",
            class_key="Personal",
            executor_mode="plan-executor",
            proposed_at=START,
            expires_at=Instant(START.ns + 86_400 * 10**9),
            idempotency_key=key or f"proposal-{self.proposed}",
            signing_keys=[(self.keys[author], keyid_of(author))],
        )
        return {"envelope": json.loads(signed), "artifact": draft}

    def signed_decision(
        self, approval_id: str, decision: str, by: str, *, key_of: str | None = None
    ) -> dict[str, Any]:
        """The body of a decision by ``by``, signed with the key of ``key_of`` (default
        ``by``) over the payload the core computes for ``by``."""
        payload = decision_payload(self.executor, approval_id, decision=decision, by=by)
        signer = key_of or by
        entry = sign(APPROVAL_PAYLOAD_TYPE, payload, self.keys[signer], keyid_of(signer))
        return {"decision": decision, "keyid": entry.keyid, "signature": entry.sig}


def _key(principal: str) -> Ed25519PrivateKey:
    """A fixed key per principal (deterministic tests)."""
    seed = principal.encode("utf-8").ljust(32, b"\0")[:32]
    return Ed25519PrivateKey.from_private_bytes(seed)


def build_world(store_url: str, settings: ServiceSettings | None = None) -> World:
    """An initialised store at ``store_url`` with the principals above, and a client."""
    init(store_url)
    clock = FakeClock(START)
    executor = Executor(
        open_engine(parse_store_url(store_url)),
        clock,
        SequentialIds("s"),
        adapters=Adapters().with_adapter("calendar.event.create", NoopAdapter()),
    )
    world = World(executor, clock, TestClient(create_app(settings, executor=executor)))
    for principal, roles in ROLES.items():
        add_principal(executor, principal, roles=list(roles))
        issued = issue_token(executor, principal, secret=token_of(principal))
        world.token_ids[principal] = str(issued["token_id"])
    for principal in SIGNERS:
        world.keys[principal] = _key(principal)
        register_key(
            executor,
            principal,
            keyid=keyid_of(principal),
            public_key=world.keys[principal].public_key(),
        )
    for principal in ("principal:alice", "principal:selfie"):
        grant(executor, principal, "calendar.event.create", calendar="*")
    return world


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")
