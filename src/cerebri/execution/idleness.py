"""When a worker has nothing left that it can do (decision 0066, rule 1).

``cerebri worker --until-idle`` ends once no step is ``ready``, ``waiting`` or ``executing``
(:func:`~cerebri.execution.views.scheduled_steps`). A step this worker already passed on
(:data:`~cerebri.execution.runner.NOT_SERVED_HERE`: no adapter for its capability, or a
calendar it was not given) stays ``ready`` for another worker, due again in
:data:`~cerebri.execution.runner.PASS_ON_SECONDS`: counted as scheduled, it would keep such a
worker running for ever. :func:`idleness` splits the scheduled steps into those this worker
may still act on and those *out of its reach*: ``ready`` steps whose latest finished attempt
was this worker's and passed the step on. A worker is idle when the first group is empty;
the second is what it reports as stuck (the CLI exits 3, ``EXIT_WORKER_OUT_OF_REACH``).

A step waiting for a backoff this worker can serve is not out of reach: the worker waits
for it. Steps waiting for a person (approval, grant, verification) are not scheduled at all.
"""

from __future__ import annotations

from dataclasses import dataclass

from cerebri._guard import arguments
from cerebri._json import JSONValue
from cerebri.execution._rows import loads
from cerebri.execution.context import Executor
from cerebri.execution.errors import execution_argument_error
from cerebri.execution.runner import NOT_SERVED_HERE
from cerebri.execution.store import attempts as attempt_store
from cerebri.execution.store.schema import steps
from cerebri.execution.store.vocabulary import AttemptOutcome
from cerebri.plans import StepStatus

__all__ = ["Idleness", "OutOfReach", "idleness"]

_SCHEDULED = (StepStatus.READY.value, StepStatus.WAITING.value, StepStatus.EXECUTING.value)
_PASSED_ON = "no_adapter:"
"""How a step passed on for want of an adapter starts its reason (runner ``_pass_on``)."""


@dataclass(frozen=True, slots=True)
class OutOfReach:
    """A ``ready`` step the asking worker passed on: its plan, step id and key, the error
    code of the pass-on (``calendar.unknown_calendar``, ``adapter.unsupported_capability``),
    its message (the attempt's error, else the step's reason) and the step's status reason
    (what happens next: due again for another worker, or a retry)."""

    plan_id: str
    step_id: str
    step_key: str
    code: str
    message: str
    reason: str

    def to_wire(self) -> dict[str, JSONValue]:
        """``{"plan_id", "step_id", "step_key", "code", "message", "reason"}``."""
        return {
            "plan_id": self.plan_id,
            "step_id": self.step_id,
            "step_key": self.step_key,
            "code": self.code,
            "message": self.message,
            "reason": self.reason,
        }

    def to_text(self) -> str:
        """``step KEY (ID) of plan PLAN is out of this worker's reach: CODE: MESSAGE``."""
        return (
            f"step {self.step_key} ({self.step_id}) of plan {self.plan_id} is out of this "
            f"worker's reach: {self.code}: {self.message}"
        )


@dataclass(frozen=True, slots=True)
class Idleness:
    """``reachable``: scheduled steps the worker may still act on (now or when due);
    ``out_of_reach``: the ones it passed on, by (plan id, step key)."""

    reachable: int
    out_of_reach: tuple[OutOfReach, ...]


def _pass_on(last: object, reason: str) -> tuple[str, str] | None:
    """The code and message of a pass-on, when ``last`` (the latest finished attempt) was
    one."""
    error = loads(getattr(last, "error", None))
    code = error.get("code") if isinstance(error, dict) else None
    if getattr(last, "outcome", None) == AttemptOutcome.INTERRUPTED.value and reason.startswith(
        _PASSED_ON
    ):  # no adapter at all (decision 0075): the reason says which capability
        return "adapter.unsupported_capability", reason
    if isinstance(error, dict) and isinstance(code, str) and code in NOT_SERVED_HERE:
        return code, str(error.get("message") or reason)
    if reason.startswith(_PASSED_ON):
        return "adapter.unsupported_capability", reason
    return None


@arguments(execution_argument_error, executor=Executor, worker_id=(str, type(None)))
def idleness(executor: Executor, worker_id: str | None) -> Idleness:
    """Split the ``ready``/``waiting``/``executing`` steps for the worker ``worker_id``
    (``None``: a worker that claimed nothing yet, so nothing is out of its reach).

    A step is out of reach when it is ``ready`` and its latest finished attempt was made by
    ``worker_id`` and passed the step on: an attempt error whose code is in
    :data:`~cerebri.execution.runner.NOT_SERVED_HERE`, or a status reason starting
    ``no_adapter:``. Reads the store once; raises what the store raises
    (:class:`~cerebri.execution.store.StoreError`)."""
    with executor.engine.connect() as connection:
        rows = connection.execute(
            steps.select()
            .with_only_columns(
                steps.c.id, steps.c.plan_id, steps.c.key, steps.c.status, steps.c.status_reason
            )
            .where(steps.c.status.in_(_SCHEDULED))
            .order_by(steps.c.plan_id, steps.c.position)
        ).all()
        ready = [row.id for row in rows if row.status == StepStatus.READY.value]
        history = attempt_store.finished_rows(connection, ready) if worker_id and ready else []
    latest = {attempt.step_id: attempt for attempt in history}  # ordered by number
    reachable = 0
    beyond: list[OutOfReach] = []
    for row in rows:
        last = latest.get(row.id)
        reason = row.status_reason or ""
        passed = None
        if last is not None and last.worker_id == worker_id:
            passed = _pass_on(last, reason)
        if passed is None:
            reachable += 1
        else:
            beyond.append(OutOfReach(row.plan_id, row.id, row.key, *passed, reason))
    return Idleness(reachable, tuple(beyond))
