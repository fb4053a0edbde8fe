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

In a governed store (one with registered principals, decision 0023) a decision is signed:

* ``approval.self_approval`` also covers the author of the proposal the plan came from
  (four-eyes: the author never approves its own proposal);
* ``approval.signature_required``: no ``keyid``/``signature`` given;
* ``approval.unknown_key``, ``approval.key_revoked``: the key is not registered, or revoked;
* ``approval.wrong_key``: the key belongs to another principal;
* ``approval.bad_signature``: not a valid Ed25519 signature of the decision payload;
* ``approval.not_approver``: the principal is unknown, disabled or lacks the role ``approver``,
  or the request names its one approver (a calendar's owner, decision 0076) and it is another;
* ``approval.not_owner``: a move, cancel or update of an event in a calendar the store
  records as owned by someone other than the requester and the author is not approved by
  that owner: the plan does not ask them (refused at intake), or the calendar's ownership
  changed, was revoked or its owner disabled since (refused when the step acts; decision
  0082);
* ``approval.replayed``: a decision already applied was presented again;
* ``approval.not_governed``: a signed decision in a store without registered principals
  (no key could be checked).

:class:`AuthError` codes (principals, tokens, roles and grants):

* ``auth.unauthorized``: no token, or one the store does not know;
* ``auth.token_revoked``: the token was revoked;
* ``auth.principal_disabled``: the token's principal is disabled;
* ``auth.forbidden``: the principal lacks the role the operation needs;
* ``auth.invalid_role``: a role outside ``requester``, ``approver``, ``operator``, or the role
  ``approver`` given to an agent;
* ``auth.duplicate``: the principal, key or token is already registered.
"""

from __future__ import annotations

from cerebri.errors import CerebriError

__all__ = ["ApprovalError", "AuthError", "ExecutionError", "execution_argument_error"]


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


class AuthError(CerebriError):
    """Who is asking was not established or may not do this; ``code`` is one of ``auth.*``."""

    code = "auth.unauthorized"
