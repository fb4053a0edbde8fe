"""A stateful property test of the step state machine (plans.md sections 5 and 6).

Hypothesis drives one small plan through any interleaving of: claim, heartbeat, moving the
clock (past leases, backoffs, waits and approval expiries), running a held claim (the
adapter answering, failing retryably or failing for good; the claim may be stale), a worker
dying in the middle of a run, claiming and running at once (a worker), cancelling
the plan, deciding its approvals and firing timers. After every step it checks:

* every status change of a step is in :data:`ALLOWED` (written from the spec, not the code);
* no step or plan leaves a terminal status;
* ``next_run_at`` is set exactly for ``ready``, ``waiting`` and ``executing`` steps;
* ``lease_token`` is set exactly for ``executing`` steps;
* at most one open attempt per step holds the step's lease, an executing step has one, and
  a step that is not executing has no open attempt at all;
* each plan's ``open_steps`` is the number of its steps not in a terminal status.

Each example runs in one shared store per back end (a fresh store per example would cost more
than the example): the example's teardown closes whatever it left open.
"""

from __future__ import annotations

import contextlib
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule, run_state_machine_as_test
from sqlalchemy import select

from cerebri._json import JSONValue
from cerebri.execution import ApprovalError, Claim, claim, decide, expire_due, heartbeat, run_claim
from cerebri.execution.adapters import AdapterError, Adapters, Invocation
from cerebri.execution.progress import stop_plan
from cerebri.execution.store.schema import approvals, attempts, plans, steps
from cerebri.plans import PlanStatus, StepStatus
from tests.execution.rules_support import RulesEnv, capability_step, draft, open_env

S = StepStatus
TERMINAL: Final = frozenset({S.COMPLETED, S.SKIPPED, S.FAILED, S.CANCELLED})
DUE: Final = frozenset({S.READY, S.WAITING, S.EXECUTING})
CLOSED_PLAN: Final = frozenset(
    {PlanStatus.COMPLETED, PlanStatus.FAILED, PlanStatus.ABANDONED, PlanStatus.SUPERSEDED}
)

ALLOWED: Final = frozenset(
    {
        # dependencies done; or the plan closed before it ran
        (S.PENDING, S.READY),
        (S.PENDING, S.CANCELLED),
        # a worker claims a due step; the plan may close first
        (S.READY, S.EXECUTING),
        (S.READY, S.CANCELLED),
        (S.WAITING, S.EXECUTING),
        (S.WAITING, S.CANCELLED),
        # what running a step leads to: an end, a durable wait, a retry after backoff, a
        # request for approval or a grant, a block (needs verification, sandbox, ...)
        (S.EXECUTING, S.COMPLETED),
        (S.EXECUTING, S.SKIPPED),
        (S.EXECUTING, S.FAILED),
        (S.EXECUTING, S.CANCELLED),
        (S.EXECUTING, S.WAITING),
        (S.EXECUTING, S.READY),
        (S.EXECUTING, S.AWAITING_APPROVAL),
        (S.EXECUTING, S.AWAITING_GRANT),
        (S.EXECUTING, S.BLOCKED),
        # a decision: approved readies, rejected or expired fails, withdrawn or plan closed
        # cancels
        (S.AWAITING_APPROVAL, S.READY),
        (S.AWAITING_APPROVAL, S.FAILED),
        (S.AWAITING_APPROVAL, S.CANCELLED),
        (S.AWAITING_GRANT, S.READY),
        (S.AWAITING_GRANT, S.FAILED),
        (S.AWAITING_GRANT, S.CANCELLED),
        # a blocked step is resolved by an operator or cancelled with its plan
        (S.BLOCKED, S.READY),
        (S.BLOCKED, S.COMPLETED),
        (S.BLOCKED, S.FAILED),
        (S.BLOCKED, S.CANCELLED),
    }
)
"""Every status change a step may make (sections 5-6); terminal statuses have none."""

LEASE = 30
TTL = 60


class CrashError(Exception):
    """The worker process dies here."""


@dataclass
class Switch:
    """One adapter for every effect of the plan; ``mode`` decides its next answer."""

    mode: str = "ok"

    def invoke(self, invocation: Invocation) -> dict[str, JSONValue]:
        if self.mode == "ok":
            return {}
        raise AdapterError("told to fail", code="test.failed", retryable=self.mode == "retryable")


PLAN = draft(
    [
        capability_step("a", "test.idem", max_attempts=2),
        capability_step("b", "test.approve"),
        capability_step("c", "test.effect", depends_on=["a"]),
        {"key": "d", "kind": "wait", "wait": {"seconds": 10}},
    ]
)
ALTERNATIVE = draft([capability_step("e", "test.idem")], strategy="escalation")


class StepMachine(RuleBasedStateMachine):
    env: RulesEnv  # set by the test on a subclass
    switch: Switch

    def __init__(self) -> None:
        super().__init__()
        submitted = self.env.submit(
            PLAN, alternatives=[ALTERNATIVE], max_replans=1, requester="principal:alice"
        )
        self.intention_id = submitted.intention_id
        self.held: list[Claim] = []
        self.seen: dict[str, list[str]] = {}
        self.closed_plans: dict[str, str] = {}

    # -- helpers -----------------------------------------------------------------------

    def _plan_ids(self) -> list[str]:
        with self.env.engine.connect() as connection:
            return list(
                connection.execute(
                    select(plans.c.id).where(plans.c.intention_id == self.intention_id)
                ).scalars()
            )

    def _open_plan_ids(self) -> list[str]:
        with self.env.engine.connect() as connection:
            return list(
                connection.execute(
                    select(plans.c.id).where(
                        plans.c.intention_id == self.intention_id,
                        plans.c.status.not_in([s.value for s in CLOSED_PLAN]),
                    )
                ).scalars()
            )

    # -- rules -------------------------------------------------------------------------

    @rule()
    def claim_step(self) -> None:
        held = claim(self.env.ex, "worker:h", lease_seconds=LEASE)
        if held is not None:
            self.held.append(held)

    @rule(pick=st.integers(0, 7))
    def heartbeat_step(self, pick: int) -> None:
        if self.held:
            heartbeat(self.env.ex, self.held[pick % len(self.held)], lease_seconds=LEASE)

    @rule(seconds=st.sampled_from([1, 5, 10, LEASE + 1, TTL]))
    def advance(self, seconds: int) -> None:
        self.env.advance(seconds)

    @rule(pick=st.integers(0, 7), mode=st.sampled_from(["ok", "ok", "retryable", "permanent"]))
    def run_step(self, pick: int, mode: str) -> None:
        if self.held:
            held = self.held.pop(pick % len(self.held))
            self.switch.mode = mode
            run_claim(self.env.ex, held)

    @rule(
        pick=st.integers(0, 7),
        mode=st.sampled_from(["ok", "retryable", "permanent"]),
        at=st.sampled_from(["claimed", "invoking", "invoked", "outcome_saved"]),
    )
    def crash_step(self, pick: int, mode: str, at: str) -> None:
        """A worker dies at boundary ``at`` of a held claim's run (if the run reaches it)."""
        if self.held:
            held = self.held.pop(pick % len(self.held))
            self.switch.mode = mode

            def die(name: str, _claim: Claim) -> None:
                if name == at:
                    raise CrashError(name)

            with contextlib.suppress(CrashError):
                run_claim(self.env.ex, held, die)

    @rule(mode=st.sampled_from(["ok", "ok", "retryable", "permanent"]))
    def work(self, mode: str) -> None:
        """What a worker does: claim the step due first and run it at once."""
        held = claim(self.env.ex, "worker:w", lease_seconds=LEASE)
        if held is not None:
            self.rules_hold()  # observe the claim before the run
            self.switch.mode = mode
            run_claim(self.env.ex, held)

    @rule(chance=st.integers(0, 3))
    def cancel_plan(self, chance: int = 0) -> None:
        if chance:
            return  # cancelling ends the example's story: only one time in four
        for plan_id in self._open_plan_ids():
            with self.env.ex.transaction() as connection:
                stop_plan(connection, self.env.ex, plan_id, PlanStatus.ABANDONED, "cancelled",
                          replan=False)  # fmt: skip

    @rule(approve=st.booleans())
    def decide_approval(self, approve: bool) -> None:
        plan_ids = self._plan_ids()
        with self.env.engine.connect() as connection:
            open_ids = list(
                connection.execute(
                    select(approvals.c.id).where(
                        approvals.c.plan_id.in_(plan_ids), approvals.c.status == "open"
                    )
                ).scalars()
            )
        for approval_id in open_ids:
            try:
                decide(self.env.ex, approval_id, approve=approve, by="principal:bob")
            except ApprovalError as error:
                assert error.code == "approval.expired"  # the only refusal of an open one

    @rule()
    def fire_timers(self) -> None:
        expire_due(self.env.ex)

    # -- invariants --------------------------------------------------------------------

    @invariant()
    def rules_hold(self) -> None:
        plan_ids = self._plan_ids()
        with self.env.engine.connect() as connection:
            step_rows = connection.execute(select(steps).where(steps.c.plan_id.in_(plan_ids))).all()
            plan_rows = connection.execute(select(plans).where(plans.c.id.in_(plan_ids))).all()
            open_attempts = connection.execute(
                select(attempts).where(attempts.c.step_id.in_([r.id for r in step_rows]))
            ).all()
        by_step: dict[str, list[Any]] = {}
        for attempt in open_attempts:
            by_step.setdefault(attempt.step_id, []).append(attempt)
        for row in step_rows:
            status = S(row.status)
            history = self.seen.setdefault(row.id, [])
            if history and history[-1] in TERMINAL:
                assert status == history[-1], f"{row.key} left {history[-1]} for {status}"
            if history and history[-1] != status:
                change = (S(history[-1]), status)
                assert change in ALLOWED, f"{row.key}: {change} not allowed (seen {history})"
            if not history or history[-1] != status:
                history.append(status)
            assert (row.next_run_at is not None) == (status in DUE), (row.key, status)
            assert (row.lease_token is not None) == (status is S.EXECUTING), (row.key, status)
            mine = by_step.get(row.id, [])
            live = [a for a in mine if a.lease_token == row.lease_token]
            assert len(live) <= 1, (row.key, live)
            if status is S.EXECUTING:
                # an attempt is stored while it runs only once a non-idempotent invocation may
                # have begun (decision 0019); every stored one belongs to a lease holder
                assert all(a.worker_id is not None for a in mine), (row.key, mine)
                if row.idempotent:
                    assert live == [], (row.key, live)
            else:
                assert mine == [], (row.key, status, mine)
        non_terminal = Counter(r.plan_id for r in step_rows if S(r.status) not in TERMINAL)
        for plan in plan_rows:
            assert plan.open_steps == non_terminal[plan.id], (plan.status, plan.open_steps)
            if plan.id in self.closed_plans:
                assert plan.status == self.closed_plans[plan.id]
            elif plan.status in CLOSED_PLAN:
                self.closed_plans[plan.id] = plan.status

    def teardown(self) -> None:
        self.held.clear()
        self.cancel_plan()
        self.env.advance(3600)


@pytest.fixture
def env(store_url: str, tmp_path: Path) -> Iterator[RulesEnv]:
    yield from open_env(store_url, tmp_path)


def test_the_step_state_machine(env: RulesEnv, store_url: str) -> None:
    switch = Switch()
    adapters = Adapters()
    for name in ("test.idem", "test.effect", "test.approve"):
        adapters = adapters.with_adapter(name, switch)
    env.with_executor(adapters=adapters, approval_ttl_seconds=TTL)
    machine = type("Machine", (StepMachine,), {"env": env, "switch": switch})
    examples = 40 if store_url.startswith("sqlite") else 15
    run_state_machine_as_test(
        machine,
        settings=settings(
            max_examples=examples,
            stateful_step_count=30,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
        ),
    )
