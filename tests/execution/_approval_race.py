"""Processes that race on one approval each round (issue #21 item 3): one approves (a signed
decision by bob), the other withdraws (alice, the requester). Run by
:mod:`tests.execution.test_approval_races` through :mod:`multiprocessing` with the ``spawn``
start method: each side is a fresh interpreter with its own engine and connections, as two
worker or service processes would be.

Keys are fixed (from seeds), so both processes and the test sign with the same keys.
"""

from __future__ import annotations

from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from cerebri.clock import FakeClock, SequentialIds
from cerebri.errors import CerebriError
from cerebri.execution import Executor, decide, decision_payload, withdraw
from cerebri.execution.store import open_engine, parse_store_url
from cerebri.proposals import APPROVAL_PAYLOAD_TYPE, sign
from cerebri.temporal import Instant

ALICE, BOB = "principal:alice", "principal:bob"


def key_of(name: str) -> Ed25519PrivateKey:
    """The fixed test key of ``name`` (``alice``, ``bob``)."""
    return Ed25519PrivateKey.from_private_bytes(name.encode("ascii").ljust(32, b"\0"))


def race(side: str, store_url: str, now_ns: int, approval_ids: list[str], meet: Any) -> None:
    """For each approval id in order: prepare, meet the other side at the barrier, then
    approve (``side == "approve"``) or withdraw at once; put ``(side, id, outcome)`` on the
    queue, the outcome ``"ok"`` or the refusal's code. ``meet`` is ``(barrier, queue)``."""
    barrier, results = meet
    engine = open_engine(parse_store_url(store_url))
    executor = Executor(engine, FakeClock(Instant(now_ns)), SequentialIds(f"race-{side}-"))
    try:
        for approval_id in approval_ids:
            signature = None
            if side == "approve":
                payload = decision_payload(executor, approval_id, decision="approve", by=BOB)
                signature = sign(APPROVAL_PAYLOAD_TYPE, payload, key_of("bob"), "bob").sig
            with engine.connect():  # a pooled connection ready before the start signal
                pass
            barrier.wait(timeout=60)
            try:
                if signature is not None:
                    decide(
                        executor,
                        approval_id,
                        approve=True,
                        by=BOB,
                        keyid="bob",
                        signature=signature,
                    )
                else:
                    withdraw(executor, approval_id, by=ALICE)
            except CerebriError as error:
                results.put((side, approval_id, error.code))
            else:
                results.put((side, approval_id, "ok"))
    finally:
        engine.dispose()
