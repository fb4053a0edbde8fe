"""The step kinds that observe, wait or keep records (plans.md section 2), run on a claim.

Each function takes the :class:`StepRun` of a claimed step (the part of
:class:`~cerebri.execution.runner.StepRun` a kind uses, so this module does not import the
runner) and moves it to its next state through the run's conditional updates:

* :func:`verify` polls its check every ``interval_seconds`` until it holds (the prediction
  is confirmed and its belief moves halfway to 1) or its deadline passes: its own
  ``within_seconds`` from its first claim, or the prediction's ``due_at`` if earlier (for an
  expectation with a positive ``within_seconds``); then the prediction is missed, the belief
  halved, the step fails and the plan replans;
* :func:`wait` parks the step ``waiting`` until ``seconds`` have passed (a time in the store);
* :func:`monitor` needs its check to hold for ``stable_seconds`` before ``deadline_seconds``;
* :func:`internal` summarises the findings of its dependencies, records a procedure, or
  (``await_approval``, decision 0076) asks for an approval and completes once it is
  approved: a gate that effects depend on, covered by its approval
  (:mod:`cerebri.execution.approval_cover`);
* :func:`request_capability` asks for a grant as an approval row and completes with it.
"""

from __future__ import annotations

from typing import Any, Protocol

from cerebri._json import JSONValue
from cerebri.execution._rows import dumps, loads
from cerebri.execution.approvals import consume
from cerebri.execution.claims import Claim
from cerebri.execution.context import NS, Executor
from cerebri.execution.progress import finish
from cerebri.execution.store import approvals as approval_store
from cerebri.execution.store import knowledge
from cerebri.execution.store import plans as plan_store
from cerebri.execution.store import steps as step_store
from cerebri.execution.store.connection import Connection
from cerebri.execution.store.vocabulary import ApprovalStatus, PredictionStatus
from cerebri.plans import Check, InternalAction, StepSpec, StepStatus
from cerebri.temporal import Instant

__all__ = ["StepRun", "internal", "monitor", "request_capability", "verify", "wait"]


class StepRun(Protocol):
    """What a step kind needs of the run of its claimed step (implemented by
    :class:`cerebri.execution.runner.StepRun`)."""

    ex: Executor
    held: Claim
    spec: StepSpec

    def finish(self, status: StepStatus, **kwargs: Any) -> None:
        """End the step in a terminal ``status`` (:func:`~cerebri.execution.progress.finish`)."""

    def park(self, status: StepStatus, **kwargs: Any) -> None:
        """Release the lease leaving the step non-terminal (see
        :func:`~cerebri.execution.progress.park`)."""

    def observe(self, check: Check) -> tuple[bool, dict[str, JSONValue]]:
        """Run a check through its read-only capability: ``(holds, observation)``."""

    def _ask(self, status: StepStatus, request: dict[str, JSONValue]) -> str:
        """Open an approval request and park the step in ``status``; ``"awaiting"``, or the
        reason the request was refused (the plan was stopped)."""


def verify(run: StepRun) -> None:
    """Poll the check of a ``verify`` step once; confirm, wait again or miss (module doc)."""
    spec = run.spec.verify
    assert spec is not None
    now = run.ex.now_ns()
    with run.ex.engine.connect() as connection:
        of = knowledge.prediction_of_step(connection, run.held.plan_id, spec.of)
    holds, observation = run.observe(spec.check)
    deadline = run.held.started_at + spec.within_seconds * NS
    if of.due_at is not None and of.due_at > of.created_at:
        # an observation after the prediction was due cannot confirm it (plans.md 2: what
        # the step should bring about *within* its expectation's within_seconds)
        deadline = min(deadline, of.due_at)
    if holds and now <= deadline:
        _resolve(run, of.prediction_id, PredictionStatus.CONFIRMED, observation)
        run.finish(StepStatus.COMPLETED, observation=observation, result=observation)
        return
    following = now + spec.interval_seconds * NS
    if following <= deadline:
        run.park(
            StepStatus.WAITING,
            next_run_at=following,
            reason=f"verifying {spec.of}: not yet observed",
            observation=dumps(observation),
        )
        return
    _resolve(run, of.prediction_id, PredictionStatus.MISSED, observation)
    run.finish(
        StepStatus.FAILED,
        reason=f"prediction_missed: {spec.of} not observed by {Instant(deadline).format()}",
        observation=observation,
    )


def _resolve(
    run: StepRun, prediction_id: str | None, status: PredictionStatus, observation: JSONValue
) -> None:
    if prediction_id is None:
        return
    now = run.ex.now_ns()
    with run.ex.transaction() as connection:
        row = knowledge.resolve_prediction(
            connection, prediction_id, status, dumps(observation), now
        )
        if row is None:
            return
        belief = (loads(row.expectation) or {}).get("belief_id")
        if belief:
            _adjust_belief(connection, str(belief), status, prediction_id, now)


def wait(run: StepRun) -> None:
    """Park a ``wait`` step until its wake-up instant, then complete it."""
    spec = run.spec.wait
    assert spec is not None
    wake = (run.held.observation or {}).get("wake_at_ns")
    now = run.ex.now_ns()
    if wake is None:
        wake = now + spec.seconds * NS
    if now >= wake:
        run.finish(StepStatus.COMPLETED, observation={"waited_seconds": spec.seconds})
        return
    run.park(
        StepStatus.WAITING,
        next_run_at=wake,
        reason=f"waiting {spec.seconds} s",
        observation=dumps({"wake_at_ns": wake}),
    )


def monitor(run: StepRun) -> None:
    """Check a ``monitor`` step's condition once; complete, wait again or fail."""
    spec = run.spec.monitor
    assert spec is not None
    now = run.ex.now_ns()
    holds, observation = run.observe(spec.check)
    state = dict(run.held.observation or {})
    stable_since = state.get("stable_since_ns") if holds else None
    if holds and stable_since is None:
        stable_since = now
    if holds and now - int(stable_since or now) >= spec.stable_seconds * NS:
        run.finish(StepStatus.COMPLETED, observation=observation, result=observation)
        return
    deadline = run.held.started_at + spec.deadline_seconds * NS
    following = now + spec.interval_seconds * NS
    if following > deadline:
        run.finish(
            StepStatus.FAILED,
            reason=f"monitor_deadline: the check did not hold for {spec.stable_seconds} s "
            f"within {spec.deadline_seconds} s",
            observation=observation,
        )
        return
    run.park(
        StepStatus.WAITING,
        next_run_at=following,
        reason="monitoring",
        observation=dumps({**observation, "stable_since_ns": stable_since}),
    )


def internal(run: StepRun) -> None:
    """Run an ``internal`` step: summarise its dependencies' findings or record a procedure."""
    spec = run.spec.internal
    assert spec is not None
    if spec.action == InternalAction.AWAIT_APPROVAL.value:
        _await_approval(run)
        return
    with run.ex.engine.connect() as connection:
        rows = step_store.of_plan(connection, run.held.plan_id, keys=run.spec.depends_on)
    findings: list[JSONValue] = [
        {
            "key": r.key,
            "status": r.status,
            "result": loads(r.result),
            "observation": loads(r.observation),
        }
        for r in rows
    ]
    if spec.action == InternalAction.RECORD_PROCEDURE.value:
        _record_procedure(run, findings)
        return
    run.finish(StepStatus.COMPLETED, result={"findings": findings})


def _await_approval(run: StepRun) -> None:
    """An approval gate (decision 0076): ask (first claim; for ``approver`` only, when the
    step names one), then consume the approval once and complete with its id and decider.
    A rejection never reaches here: it fails the step when it is decided."""
    if run.held.approval_id is None:
        request: dict[str, JSONValue] = {
            "kind": "approval",
            "gate": True,
            "step": run.spec.to_wire(),
        }
        if run.spec.approver is not None:
            request["approver"] = run.spec.approver.strip().casefold()  # canonical form
        run._ask(StepStatus.AWAITING_APPROVAL, request)
        return
    with run.ex.transaction() as connection:
        refused = consume(connection, run.ex, run.held)
        if refused is None:
            row = approval_store.get(connection, run.held.approval_id)
            assert row is not None  # consume found it
            result: dict[str, JSONValue] = {"approval": row.id, "decided_by": row.decided_by}
            finish(connection, run.ex, run.held, StepStatus.COMPLETED, result=result)
            return
    run.finish(StepStatus.FAILED, reason=f"approval: {refused}")


def _record_procedure(run: StepRun, findings: list[JSONValue]) -> None:
    now = run.ex.now_ns()
    with run.ex.transaction() as connection:
        plan = plan_store.get(connection, run.held.plan_id)
        draft = loads(plan.draft)
        memory_id = run.ex.ids.new_id()
        knowledge.remember(
            connection,
            id=memory_id,
            plan_id=run.held.plan_id,
            intention_id=plan.intention_id,
            goal_key=str(draft.get("objective")),
            steps=dumps(draft),
            created_at=now,
        )
        finish(
            connection,
            run.ex,
            run.held,
            StepStatus.COMPLETED,
            result={"memory_id": memory_id, "findings": findings},
        )


def request_capability(run: StepRun) -> None:
    """Ask for a grant (first claim) or complete with the decided one (after it)."""
    spec = run.spec.request
    assert spec is not None
    if run.held.approval_id is None:
        run._ask(StepStatus.AWAITING_GRANT, {"kind": "grant", **spec.to_wire()})
        return
    with run.ex.engine.connect() as connection:
        row = approval_store.get(connection, run.held.approval_id)
    assert row is not None  # the step's own request: an approval row is never deleted
    if row.status != ApprovalStatus.APPROVED.value:
        run.finish(StepStatus.FAILED, reason=f"grant {row.status}")
        return
    until = (row.decided_at or 0) + spec.duration_seconds * NS
    run.finish(
        StepStatus.COMPLETED,
        result={
            "grant": row.id,
            "capability": spec.capability,
            "target_pattern": spec.target_pattern,
            "until": Instant(until).format(),
        },
    )


def _adjust_belief(
    connection: Connection, belief_id: str, status: PredictionStatus, prediction_id: str, now: int
) -> None:
    """A confirmed prediction moves its belief halfway to 1, a missed one halves it
    (an unknown belief starts at 1). Evidence keeps the last prediction that moved it."""
    row = knowledge.belief(connection, belief_id)
    old = 1.0 if row is None else float(row.confidence)
    new = old + (1.0 - old) / 2 if status is PredictionStatus.CONFIRMED else old / 2
    evidence = dumps({"prediction": prediction_id, "status": status.value, "before": old})
    if row is None:
        knowledge.add_belief(connection, belief_id, new, evidence, now)
    else:
        knowledge.set_belief(connection, belief_id, new, evidence, now)
