"""Errors of the executor (plans.md section 6).

:class:`ExecutionError` codes:

* ``execution.not_found``: no plan, step or approval with that id in the store;
* ``execution.invalid_state``: the operation does not apply in the current state (cancel a
  plan that is already closed, resolve a step that is not blocked, ...);
* ``execution.invalid_argument``: a wrong-typed or unusable argument (a lease shorter than a
  second, a concurrency below one, ...);
* ``execution.invalid_principal``: not ``principal:<name>`` or ``agent:<name>``.

:class:`ApprovalError` codes (approvals are durable rows, ``open → approved | rejected |
expired | withdrawn``):

* ``approval.not_open``: already decided, withdrawn or expired;
* ``approval.expired``: its ``expires_at`` has passed (fails closed: never approved late);
* ``approval.not_requester``: only the principal that asked may withdraw a request;
* ``approval.self_approval``: the principal that submitted the plan may not decide on it;
* ``approval.agent_cannot_approve``: an ``agent:`` principal never approves or rejects.
"""

from __future__ import annotations

from cerebri.errors import CerebriError

__all__ = ["ApprovalError", "ExecutionError", "execution_argument_error"]


class ExecutionError(CerebriError):
    """An executor operation was refused; ``code`` is one of ``execution.*``."""

    code = "execution.invalid_state"


def execution_argument_error(message: str) -> ExecutionError:
    """The argument guard's error for :mod:`cerebri.execution`: code
    ``execution.invalid_argument`` (a public function got a wrong-typed Python argument; see
    :mod:`cerebri._guard`)."""
    return ExecutionError(message, code="execution.invalid_argument")


class ApprovalError(CerebriError):
    """An approval decision or withdrawal was refused; ``code`` is one of ``approval.*``."""

    code = "approval.not_open"
