"""What a worker does with one claimed step (plans.md sections 2 and 6).

:func:`run_claim` decides from the step row, its plan and the world, and records the
outcome by conditional updates on the claim's lease token. In order:

1. **Takeover** of an expired lease: an interrupted attempt with a saved outcome is adopted
   (a saved retryable failure, ``"retryable": true`` in its error, blocks the step for
   verification as its worker would have, or, also ``"before_effect": true``, is retried as
   in 6); a non-idempotent one that may have begun
   (``invoked_at``) makes the step ``blocked`` with reason ``needs_verification`` and it is
   never re-run on its own; anything else runs again
   (an idempotent step, or an invocation that provably never began), at most
   :data:`MAX_INTERRUPTIONS` times.
2. **The plan may act**: a closed plan cancels the step; a plan of origin ``dream`` or of a
   disabled sandbox blocks every effect (``origin_dream``, ``sandbox_disabled``); the budget
   (capability invocations, wall seconds, money, approvals) stops the plan (``budget.*``).
3. **Permission when acting**: the capability must still be registered and not locked;
   effects that need approval (the step's, the capability's or the plan's
   ``require_approval``) wait for an approval row and consume it once; reads are allowed.
   An effect that needs it only by the plan's ``require_approval`` is covered by an
   approval a step it depends on consumed, and any effect not asking by its own
   ``require_approval`` by an approval gate it depends on (decision 0076;
   :mod:`cerebri.execution.approval_cover`).
4. **Preconditions** that do not hold skip the step; for a step that needs approval they are
   checked before anyone is asked, and again when it acts. One that could not be read (an
   :class:`AdapterError`) never skips: it is retried like a refusal before any effect, then
   fails the step with the read's error code (decision 0047).
5. **Invocation** through the adapter, with origin ``plan_step:<id>`` and the idempotency key.
   Non-idempotent steps write ``invoked_at`` before and the outcome after, each durable.
6. **Outcome**: completed (an expectation becomes an open prediction due within its
   ``within_seconds``); a retryable failure of an idempotent step runs again after a backoff
   (``retry_base_seconds`` doubling, at most ``retry_max_seconds``) until ``max_attempts``;
   a retryable failure of a non-idempotent step is blocked for verification (it may have
   acted), unless the adapter proves it changed nothing (``before_effect``, decision 0040):
   then it runs again after the same backoff, until :data:`PRE_EFFECT_ATTEMPTS`;
   otherwise the step fails and the plan replans.

The other kinds (``verify``, ``wait``, ``monitor``, ``internal``, ``request_capability``) are
in :mod:`cerebri.execution.kinds`. Waiting is a ``next_run_at`` in the store, never a
sleeping worker.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Callable
from typing import Any, Final

from cerebri._guard import CALLABLE, arguments
from cerebri._json import JSONValue
from cerebri.execution import kinds
from cerebri.execution._rows import dumps, loads
from cerebri.execution.adapters import AdapterError, Invocation
from cerebri.execution.adapters.base import unserved_calendar_message
from cerebri.execution.approval_cover import covering_approval
from cerebri.execution.approvals import consume, open_request
from cerebri.execution.checks import evaluate_check
from cerebri.execution.claims import (
    Claim,
    LeaseLostError,
    close_attempt,
    holds_lease,
    invocation_limit,
    mark_invoking,
    record_late_outcome,
    refund,
    save_outcome,
)
from cerebri.execution.context import NS, Executor
from cerebri.execution.decisions import authority_refusal
from cerebri.execution.errors import execution_argument_error
from cerebri.execution.progress import finish, finish_in_one_statement, park, stop_plan
from cerebri.execution.store import approvals as approval_store
from cerebri.execution.store import attempts as attempt_store
from cerebri.execution.store import knowledge
from cerebri.execution.store import plans as plan_store
from cerebri.execution.store import sandboxes as sandbox_store
from cerebri.execution.store.connection import Connection
from cerebri.execution.store.vocabulary import PASSED_ON, AttemptOutcome
from cerebri.plans import (
    OPEN_PLAN_STATUSES,
    Check,
    Origin,
    PlanStatus,
    StepKind,
    StepSpec,
    StepStatus,
)

__all__ = [
    "MAX_INTERRUPTIONS",
    "NOT_SERVED_HERE",
    "PASS_ON_SECONDS",
    "PRE_EFFECT_ATTEMPTS",
    "Hook",
    "StepRun",
    "run_claim",
]

MAX_INTERRUPTIONS: Final = 5
"""Takeovers after which a step that keeps interrupting its workers fails
(``interrupted_too_often``) instead of running again."""

PRE_EFFECT_ATTEMPTS: Final = 5
"""Invocations (the first included) of a non-idempotent step whose every failure was
retryable and refused before any effect (``AdapterError.before_effect``, e.g. a calendar
lock held by another writer) after which the step fails like any failure (decision 0040).
Its ``max_attempts`` is 1 by validation (a repeat of the effect could act twice); a refusal
before the effect did not act, so it is tried again, with the executor's backoff."""

PASS_ON_SECONDS: Final = 60
"""A step this worker cannot carry out (no adapter for its capability, or the adapter does
not serve its target, e.g. a calendar it was not given) is ready again this many seconds
later, for another worker."""

NOT_SERVED_HERE: Final = frozenset({"adapter.unsupported_capability", "calendar.unknown_calendar"})
"""Adapter error codes meaning "not configured on this worker" (raised before acting)."""

Hook = Callable[[str, Claim], None]
"""Called at each boundary of a step's run with its name: ``claimed``, ``invoking`` (the
invocation is about to begin), ``invoked`` (it returned, nothing recorded yet),
``outcome_saved`` (non-idempotent: the outcome is durable, the step not yet moved) and
``recorded`` (the outcome's transaction committed). Crash tests kill the worker here."""

_OPEN = tuple(s.value for s in OPEN_PLAN_STATUSES)


def _no_hook(_name: str, _claim: Claim) -> None:
    return None


def _error_wire(error: Exception) -> dict[str, JSONValue]:
    code = getattr(error, "code", "adapter.failed")
    return {"code": str(code), "message": str(getattr(error, "message", error))}


def _not_served(check: Check) -> AdapterError:
    """The error of a check whose capability this worker has no adapter for (a worker given
    no calendar has no ``calendar.*`` adapter at all)."""
    calendar = (check.params or {}).get("calendar_id")
    if check.capability.startswith("calendar.") and isinstance(calendar, str):
        return AdapterError(
            f"{unserved_calendar_message(calendar, ())} (this worker has no adapter for "
            f"{check.capability})",
            code="calendar.unknown_calendar",
        )
    return AdapterError(
        f"this worker has no adapter for {check.capability}",
        code="adapter.unsupported_capability",
    )


class _BudgetSpentError(Exception):
    """The plan's invocation budget is spent (the message says which)."""


class StepRun:
    """One claimed step being run; every store write checks the lease token."""

    def __init__(self, executor: Executor, held: Claim, hook: Hook) -> None:
        self.ex = executor
        self.held = held
        self.hook = hook
        self.spec = StepSpec.model_validate(held.spec)
        self.limits: dict[str, Any] = held.plan["limits"]
        self.invoked = False
        self.outcome: tuple[AttemptOutcome, JSONValue, JSONValue] | None = None
        self.adopting = False  # settling a saved outcome: this attempt is discarded (0066)
        self.passed_on = False  # left for a worker that can carry it out (decision 0075)

    # -- recording -------------------------------------------------------------------

    def hold(self, connection: Connection) -> None:
        """Go on in this transaction only while the lease is ours (the conditional update
        also locks the step row on PostgreSQL until the transaction ends), else raise
        :class:`LeaseLostError`: a worker whose lease was taken over changes nothing."""
        if not holds_lease(connection, self.held, self.ex.now_ns()):
            raise LeaseLostError(self.held.step_id)

    def refund(self, connection: Connection) -> None:
        """Give back the counted invocation when this run did not invoke."""
        if not self.invoked:
            refund(connection, self.held)

    def finish(self, status: StepStatus, **kwargs: Any) -> None:
        with self.ex.transaction() as connection:
            self.refund(connection)
            finish(connection, self.ex, self.held, status, adopted=self.adopting, **kwargs)

    def park(self, status: StepStatus, **kwargs: Any) -> None:
        with self.ex.transaction() as connection:
            self.refund(connection)
            park(connection, self.ex, self.held, status, adopted=self.adopting, **kwargs)

    def stop(self, status: PlanStatus, reason: str, *, replan: bool) -> None:
        """Stop the plan (a budget ran out); this step is cancelled with the others, and its
        attempt written to history as ``interrupted`` by the cancellation."""
        with self.ex.transaction() as connection:
            self.hold(connection)
            stop_plan(connection, self.ex, self.held.plan_id, status, reason, replan=replan)

    # -- the run ---------------------------------------------------------------------

    def run(self) -> None:
        self.hook("claimed", self.held)
        if self.held.takeover and self._take_over():
            return
        if self.held.plan["status"] not in _OPEN:
            reason = f"plan {self.held.plan['status']}"
            self.finish(StepStatus.CANCELLED, reason=reason, outcome=AttemptOutcome.INTERRUPTED)
            return
        try:
            self._dispatch()
        except _BudgetSpentError as spent:
            self.stop(PlanStatus.FAILED, str(spent), replan=False)

    def _dispatch(self) -> None:
        kind = self.spec.kind
        if kind == StepKind.CAPABILITY:
            self._capability()
        elif kind == StepKind.VERIFY:
            kinds.verify(self)
        elif kind == StepKind.WAIT:
            kinds.wait(self)
        elif kind == StepKind.MONITOR:
            kinds.monitor(self)
        elif kind == StepKind.INTERNAL:
            kinds.internal(self)
        elif kind == StepKind.REQUEST_CAPABILITY:
            kinds.request_capability(self)
        else:  # pragma: no cover - validation refuses other kinds before they are stored
            self.finish(StepStatus.FAILED, reason=f"unknown step kind {kind!r}")

    def _take_over(self) -> bool:
        """Settle the interrupted attempt(s); ``True`` when the step is settled."""
        now = self.ex.now_ns()
        saved = next((a for a in self.held.interrupted if a.outcome is not None), None)
        begun = any(a.invoked_at is not None for a in self.held.interrupted)
        with self.ex.transaction() as connection:
            self.hold(connection)
            for attempt in self.held.interrupted:
                if attempt is not saved:
                    close_attempt(
                        connection,
                        attempt,
                        self.held.step_id,
                        AttemptOutcome.INTERRUPTED,
                        now,
                        error={"code": "lease.expired", "message": "the worker stopped"},
                    )
        if saved is not None:
            with self.ex.transaction() as connection:
                self.hold(connection)
                close_attempt(
                    connection,
                    saved,
                    self.held.step_id,
                    AttemptOutcome(saved.outcome or AttemptOutcome.COMPLETED),
                    now,
                    result=saved.result,
                    error=saved.error,
                )
            self.adopting = True  # the saved attempt is the one attempt; ours did nothing
            self._settle_outcome(
                saved.outcome == AttemptOutcome.COMPLETED.value, saved, adopted=True
            )
            return True
        if not self.held.idempotent and begun:
            self.park(
                StepStatus.BLOCKED,
                reason="needs_verification: the worker stopped after the invocation began and "
                "before its outcome was recorded; it is never repeated on its own",
                outcome=AttemptOutcome.INTERRUPTED,
            )
            self._plan_status(PlanStatus.BLOCKED, "a step needs verification")
            return True
        if self._interruptions() >= MAX_INTERRUPTIONS:
            self.finish(
                StepStatus.FAILED,
                reason="interrupted_too_often",
                outcome=AttemptOutcome.INTERRUPTED,
            )
            return True
        return False

    def _settle_outcome(self, completed: bool, saved: Any, *, adopted: bool) -> None:
        """Move the step on from a saved outcome (adopted after a takeover)."""
        note = "adopted the outcome saved before the worker stopped" if adopted else None
        if completed:
            self._completed(saved.result, reason=note)
        elif isinstance(saved.error, dict) and saved.error.get("retryable"):
            # what the stopped worker would have done; its failure is in history already
            self._after_failure(
                saved.error,
                retryable=True,
                before_effect=saved.error.get("before_effect") is True,
                failures=self._failures(),
            )
        else:
            self.finish(StepStatus.FAILED, reason=note or "failed", error=saved.error)

    def _interruptions(self) -> int:
        with self.ex.engine.connect() as connection:
            return attempt_store.count_history(
                connection, self.held.step_id, AttemptOutcome.INTERRUPTED
            )

    def _plan_status(self, status: PlanStatus, reason: str) -> None:
        with self.ex.transaction() as connection:
            plan_store.set_status(
                connection,
                self.held.plan_id,
                status,
                self.ex.now_ns(),
                leaving=OPEN_PLAN_STATUSES,
                status_reason=reason,
            )

    # -- capability steps --------------------------------------------------------------

    def _acts(self) -> bool:
        capability = self.ex.registry.get(self.spec.capability or "")
        return capability is not None and not capability.read_only

    def _refusal(self) -> tuple[StepStatus, str] | None:
        """Why the plan may not act now, if it may not."""
        plan = self.held.plan
        if plan["origin"] == Origin.DREAM.value:
            return StepStatus.BLOCKED, "origin_dream: a dream plan never acts"
        if plan["sandbox"] is not None:
            with self.ex.engine.connect() as connection:
                enabled = sandbox_store.enabled(connection, plan["sandbox"])
            if not enabled:
                return (
                    StepStatus.BLOCKED,
                    f"sandbox_disabled: sandbox {plan['sandbox']} is disabled",
                )
        return None

    def _budget_exceeded(self) -> str | None:
        budget = self.limits.get("budget", {})
        plan = self.held.plan
        wall = int(budget.get("max_wall_seconds") or 0)
        if wall and self.ex.now_ns() - plan["created_at"] >= wall * NS:
            return f"budget.wall_seconds: {wall} s since the plan was submitted"
        money = float(budget.get("max_money") or 0)
        if money and float(plan["money_spent"]) >= money:
            return f"budget.money: {plan['money_spent']} of {money} spent"
        return None

    def _needs_approval(self) -> bool:
        capability = self.ex.registry.get(self.spec.capability or "")
        return bool(
            self.spec.require_approval
            or (capability is not None and capability.requires_approval)
            or (self.limits.get("require_approval") and self._acts())
        )

    def _covering_approval(self) -> str | None:
        """The approval that covers this step, when only the plan asks for one (decision
        0056, :mod:`cerebri.execution.approval_cover`)."""
        capability = self.ex.registry.get(self.spec.capability or "")
        if self.spec.require_approval or capability is None:
            return None
        if capability.requires_approval:  # only a gate asked for this effect covers it
            with self.ex.engine.connect() as connection:
                return covering_approval(
                    connection, self.held.plan_id, self.held.spec, gates_only=True
                )
        if not (self.limits.get("require_approval") and self._acts()):
            return None
        with self.ex.engine.connect() as connection:
            return covering_approval(connection, self.held.plan_id, self.held.spec)

    def _permission(self) -> str | None:
        """``None`` when the step may invoke now; else the reason it may not (it was parked
        or finished here)."""
        name = self.spec.capability or ""
        capability = self.ex.registry.get(name)
        if capability is None or self.ex.registry.is_locked(name):
            why = "capability.unknown" if capability is None else "capability.locked"
            self.finish(StepStatus.FAILED, reason=f"{why}: {name}")
            return why
        if self.ex.adapters.get(name) is None:
            why = f"this worker cannot carry out {name}"
            passed: dict[str, JSONValue] = {
                "code": "adapter.unsupported_capability",
                "message": why,
                "before_effect": True,
                PASSED_ON: True,
            }
            self._pass_on(why, outcome=AttemptOutcome.INTERRUPTED, error=passed)
            return "no_adapter"
        covering = None if self.held.approval_id is not None else self._covering_approval()
        if covering is not None:
            return self._authority(covering)
        if not self._needs_approval():
            if capability.read_only:
                return None
            if capability.allowed_by_default or self._granted(name):
                return self._authority(None)
            self.park(StepStatus.BLOCKED, reason=f"capability.not_granted: {name} needs a grant")
            self._plan_status(PlanStatus.BLOCKED, f"{name} needs a grant")
            return "not_granted"
        if self.held.approval_id is None:
            refused = self._authority(None, asking=True)
            if refused is not None:
                return refused
            request: dict[str, JSONValue] = {"kind": "approval", "step": self.spec.to_wire()}
            if self.spec.approver is not None:  # only this principal decides (0076)
                request["approver"] = self.spec.approver.strip().casefold()
            return self._ask(StepStatus.AWAITING_APPROVAL, request)
        with self.ex.transaction() as connection:
            self.hold(connection)
            refused = consume(connection, self.ex, self.held)
        if refused is not None:
            self.finish(StepStatus.FAILED, reason=f"approval: {refused}")
            return refused
        return self._authority(self.held.approval_id)

    def _authority(self, approval_id: str | None, *, asking: bool = False) -> str | None:
        """Governed stores (decision 0023): the envelope, the requester's grant, (with
        ``approval_id``) the signed approval and the calendar owners' approvals (decision
        0082; ``asking``: before this step's own approval is asked for), checked now; a
        refusal stops the plan without replanning (another revision would meet the same
        refusal)."""
        with self.ex.engine.connect() as connection:
            refused = authority_refusal(
                connection,
                self.ex,
                plan_id=self.held.plan_id,
                capability=self.spec.capability or "",
                params=self.spec.params or {},
                target=self.spec.target,
                approval_id=approval_id,
                step_key=self.spec.key,
                asking=asking,
            )
        if refused is not None:
            self.stop(PlanStatus.FAILED, refused, replan=False)
        return refused

    def _ask(self, status: StepStatus, request: dict[str, JSONValue]) -> str:
        budget = self.limits.get("budget", {})
        most = int(budget.get("max_human_approvals") or 0)
        if most and int(self.held.plan["approvals_requested"]) >= most:
            reason = f"budget.human_approvals: {most} already asked"
            self.stop(PlanStatus.FAILED, reason, replan=False)
            return reason
        with self.ex.transaction() as connection:
            self.refund(connection)
            approval_id, intention_id = open_request(connection, self.ex, self.held, request)
            park(
                connection,
                self.ex,
                self.held,
                status,
                reason=f"waiting for approval {approval_id}",
                approval_id=approval_id,
                intention_id=intention_id,
            )
        return "awaiting"

    def _granted(self, name: str) -> bool:
        """A grant of a ``request_capability`` step of this plan, approved, not expired,
        matching ``name`` and the step's target."""
        now = self.ex.now_ns()
        with self.ex.engine.connect() as connection:
            rows = approval_store.approved_of_plan(connection, self.held.plan_id)
        for row in rows:
            request = loads(row.request) or {}
            if request.get("kind") != "grant" or request.get("capability") != name:
                continue
            until = (row.decided_at or 0) + int(request.get("duration_seconds", 0)) * NS
            pattern = str(request.get("target_pattern", ""))
            if now < until and fnmatch.fnmatchcase(self.spec.target or "", pattern):
                return True
        return False

    def _invoke(
        self, name: str, target: str | None, params: dict[str, Any]
    ) -> dict[str, JSONValue]:
        adapter = self.ex.adapters.get(name)
        if adapter is None:
            raise AdapterError(f"this worker has no adapter for {name}", code="adapter.unavailable")
        invocation = Invocation(
            capability=name,
            target=target,
            params=params,
            origin=self.held.origin,
            idempotency_key=self.held.idempotency_key,
        )
        return adapter.invoke(invocation)

    def observe(self, check: Check) -> tuple[bool, dict[str, JSONValue]]:
        """Run a check through its read-only capability; ``(holds, observation)``. The read
        counts against the plan's invocation budget (plans.md section 3 counts checks);
        :class:`_BudgetSpentError` when none is left. A read that failed (an
        :class:`AdapterError`) does not hold, its error in the observation: right for a
        verification or a monitor, which then wait, never for a precondition (see
        :meth:`_skipped_by_precondition`)."""
        try:
            return self._observe(check)
        except AdapterError as error:
            return False, {"error": _error_wire(error), "path": check.path}

    def _observe(self, check: Check) -> tuple[bool, dict[str, JSONValue]]:
        """:meth:`observe`, raising the :class:`AdapterError` of a read that failed."""
        most = invocation_limit(self.limits)
        with self.ex.transaction() as connection:
            self.hold(connection)
            counted = plan_store.count_invocation(connection, self.held.plan_id, most)
        if not counted:
            raise _BudgetSpentError(f"budget.capability_invocations: all {most} used")
        result = self._invoke(check.capability, check.target, dict(check.params or {}))
        outcome = evaluate_check(check, result)
        return outcome.holds, {
            "path": check.path,
            "op": check.op.value,
            "observed": outcome.observed,
            "found": outcome.found,
            "holds": outcome.holds,
            "detail": outcome.detail,
        }

    def _capability(self) -> None:
        refusal = self._refusal() if self._acts() else None
        if refusal is not None:
            self.park(refusal[0], reason=refusal[1])
            self._plan_status(PlanStatus.BLOCKED, refusal[1])
            return
        exceeded = self._budget_exceeded()
        if exceeded is not None:
            self.stop(PlanStatus.FAILED, exceeded, replan=False)
            return
        asking = self.held.approval_id is None and self._needs_approval()
        if asking and self._skipped_by_precondition():
            return  # nobody is asked to approve a step that would be skipped anyway
        if self._permission() is not None:
            return
        if self._skipped_by_precondition():  # checked again when it acts, after approval
            return
        if not self.held.reserved:
            most = invocation_limit(self.limits)
            self.stop(
                PlanStatus.FAILED,
                f"budget.capability_invocations: all {most} used",
                replan=False,
            )
            return
        if not self.held.idempotent and not mark_invoking(self.ex, self.held):
            raise LeaseLostError(self.held.step_id)
        self.invoked = True
        self.hook("invoking", self.held)
        name = self.spec.capability or ""
        try:
            result = self._invoke(name, self.spec.target, dict(self.spec.params or {}))
        except AdapterError as error:
            self.outcome = (AttemptOutcome.FAILED, None, _error_wire(error))
            self.hook("invoked", self.held)
            self._failed(error)
            return
        self.outcome = (AttemptOutcome.COMPLETED, result, None)
        self.hook("invoked", self.held)
        if not self.held.idempotent:
            if not save_outcome(self.ex, self.held, AttemptOutcome.COMPLETED, result, None):
                raise LeaseLostError(self.held.step_id)
            self.hook("outcome_saved", self.held)
        self._completed(result)

    def _skipped_by_precondition(self) -> bool:
        """Observe the step's precondition; when it does not hold, skip the step (done).

        ``True`` when the step was settled here: skipped, or (decision 0047) its precondition
        could not be read. Unknown is not false: a failed read never skips a step, and nobody
        is asked to approve on its strength; it is a refusal before any effect
        (:meth:`_unobserved`)."""
        precondition = self.spec.precondition
        if precondition is None:
            return False
        check = precondition.check
        try:
            if self.ex.adapters.get(check.capability) is None:
                raise _not_served(check)
            holds, observation = self._observe(check)
        except AdapterError as error:
            self._unobserved(error)
            return True
        if holds:
            return False
        reason = (
            "already_satisfied: the desired state already holds"
            if precondition.satisfied_if_false
            else "precondition_false: the precondition does not hold"
        )
        self.finish(StepStatus.SKIPPED, reason=reason, observation=observation)
        return True

    def _unobserved(self, error: AdapterError) -> None:
        """The precondition's read failed, before any effect: ``ready`` again after the
        executor's backoff while it may succeed (a retryable error, or one this worker's
        configuration caused, :data:`NOT_SERVED_HERE`, which another worker may not meet),
        until :data:`PRE_EFFECT_ATTEMPTS` tries in all, else ``failed`` with the error's
        code (the plan replans). Never skipped, never ``needs_verification``."""
        wire = _error_wire(error)
        wire["before_effect"] = True
        failures = self._failures() + 1
        if (error.retryable or error.code in NOT_SERVED_HERE) and failures < PRE_EFFECT_ATTEMPTS:
            most = PRE_EFFECT_ATTEMPTS
            delay = min(self.ex.retry_base_seconds * 2 ** (failures - 1), self.ex.retry_max_seconds)
            self.park(
                StepStatus.READY,
                next_run_at=self.ex.now_ns() + delay * NS,
                reason=f"retry {failures + 1} of {most} in {delay} s after {wire['code']} "
                "(its precondition could not be read; nothing done)",
                outcome=AttemptOutcome.FAILED,
                error=wire,
            )
            return
        self.finish(
            StepStatus.FAILED,
            reason=f"{wire['code']}: its precondition could not be read: {wire['message']}",
            outcome=AttemptOutcome.FAILED,
            error=wire,
        )

    def _completed(self, result: JSONValue, *, reason: str | None = None) -> None:
        now = self.ex.now_ns()
        expectation = self.spec.expectation
        money = result.get("money") if isinstance(result, dict) else None
        simple = expectation is None and money is None and (self.invoked or not self.held.reserved)
        simple = simple and not self.adopting  # the one-statement path records the attempt
        if simple and finish_in_one_statement(
            self.ex, self.held, StepStatus.COMPLETED, reason=reason, result=result
        ):
            return
        with self.ex.transaction() as connection:
            self.refund(connection)
            extra: dict[str, Any] = {}
            if expectation is not None:
                prediction_id = self.ex.ids.new_id()
                knowledge.open_prediction(
                    connection,
                    id=prediction_id,
                    plan_id=self.held.plan_id,
                    step_id=self.held.step_id,
                    expectation=dumps(expectation.to_wire()),
                    due_at=now + expectation.within_seconds * NS,
                    created_at=now,
                )
                extra["prediction_id"] = prediction_id
            if isinstance(money, int | float) and not isinstance(money, bool) and money > 0:
                plan_store.spend(connection, self.held.plan_id, float(money))
            finish(
                connection,
                self.ex,
                self.held,
                StepStatus.COMPLETED,
                reason=reason,
                result=result,
                adopted=self.adopting,
                **extra,
            )

    def _pass_on(self, why: str, **kwargs: Any) -> None:
        """Leave the step for a worker that can carry it out: ``ready`` again in
        :data:`PASS_ON_SECONDS`, reason ``no_adapter: ...`` (``cerebri stuck`` shows it). The
        attempt's error carries ``"passed_on": true`` (decision 0075)."""
        self.passed_on = True
        self.park(
            StepStatus.READY,
            next_run_at=self.ex.now_ns() + PASS_ON_SECONDS * NS,
            reason=f"no_adapter: {why} ({self.held.worker_id}); it is left for a worker that can",
            **kwargs,
        )

    def _failed(self, error: AdapterError) -> None:
        wire = _error_wire(error)
        if error.code in NOT_SERVED_HERE:
            # refused before acting, by this worker's configuration, not by the world
            wire[PASSED_ON] = True
            if not self.held.idempotent and not save_outcome(
                self.ex, self.held, AttemptOutcome.FAILED, None, wire
            ):
                raise LeaseLostError(self.held.step_id)
            self._pass_on(str(wire["message"]), outcome=AttemptOutcome.FAILED, error=wire)
            return
        if not self.held.idempotent:
            # a takeover adopting the saved outcome decides the same way
            wire["retryable"] = error.retryable
            if error.before_effect:
                wire["before_effect"] = True
            if not save_outcome(self.ex, self.held, AttemptOutcome.FAILED, None, wire):
                raise LeaseLostError(self.held.step_id)
            self.hook("outcome_saved", self.held)
        self._after_failure(
            wire,
            retryable=error.retryable,
            before_effect=error.before_effect,
            failures=self._failures() + 1,
        )

    def _after_failure(
        self,
        wire: dict[str, JSONValue],
        *,
        retryable: bool,
        before_effect: bool,
        failures: int,
    ) -> None:
        """Move the step on after its ``failures``-th failed invocation (``wire``, the error):
        again after a backoff while the retry budget lasts (``max_attempts`` for an idempotent
        step; :data:`PRE_EFFECT_ATTEMPTS` for a non-idempotent one refused before any
        effect), ``blocked`` for verification when a non-idempotent one may have acted,
        else ``failed``."""
        if retryable and not self.held.idempotent and not before_effect:
            self._needs_verification(wire)
            return
        most = self.held.max_attempts if self.held.idempotent else PRE_EFFECT_ATTEMPTS
        if retryable and failures < most:
            delay = min(self.ex.retry_base_seconds * 2 ** (failures - 1), self.ex.retry_max_seconds)
            nothing_done = "" if self.held.idempotent else " (refused before any effect)"
            self.park(
                StepStatus.READY,
                next_run_at=self.ex.now_ns() + delay * NS,
                reason=f"retry {failures + 1} of {most} in {delay} s after {wire['code']}"
                f"{nothing_done}",
                outcome=AttemptOutcome.FAILED,
                error=wire,
            )
            return
        self.finish(StepStatus.FAILED, reason=f"{wire['code']}: {wire['message']}", error=wire)

    def _needs_verification(self, wire: dict[str, JSONValue]) -> None:
        """A write that may or may not have happened (a timeout, a lost answer): blocked."""
        self.park(
            StepStatus.BLOCKED,
            reason=f"needs_verification: {wire['code']} after the invocation began; "
            "it may have acted and is never repeated on its own",
            outcome=AttemptOutcome.FAILED,
            error=wire,
        )
        self._plan_status(PlanStatus.BLOCKED, "a step needs verification")

    def _failures(self) -> int:
        with self.ex.engine.connect() as connection:
            return attempt_store.count_history(connection, self.held.step_id, AttemptOutcome.FAILED)

    # -- other kinds -----------------------------------------------------------------


@arguments(execution_argument_error, executor=Executor, held=Claim, hook=CALLABLE)
def run_claim(executor: Executor, held: Claim, hook: Hook = _no_hook) -> bool:
    """Run one claimed step to its next state (see the module doc); ``True`` when this worker
    passed the step on to another (no adapter here, or its adapter refused with a
    :data:`NOT_SERVED_HERE` code: decision 0075), else ``False``. A lost lease ends the run
    quietly: another worker owns the step now (or its plan was cancelled), and nothing of ours
    is committed for it beyond what a takeover reads (``invoked_at``, a saved outcome) and,
    when a non-idempotent invocation of ours went through, what it did
    (:func:`~cerebri.execution.claims.record_late_outcome`)."""
    run = StepRun(executor, held, hook)
    try:
        run.run()
    except LeaseLostError:
        if run.outcome is not None and not held.idempotent:
            # a non-idempotent invocation went through: what it did must not be lost
            record_late_outcome(executor, held, *run.outcome)
        return False
    hook("recorded", held)
    return run.passed_on
