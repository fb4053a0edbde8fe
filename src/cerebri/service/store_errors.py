"""HTTP statuses of the store-backed routes' errors (``/v1/plans``, ``/v1/approvals``, ...).

Every refusal is an RFC 9457 problem (:func:`~cerebri.service.problems.problem_response`)
whose ``code`` is the core error's code; the status follows from the code:

* 401: ``auth.unauthorized`` (no token, or a token the store does not know),
  ``auth.token_revoked``, ``auth.principal_disabled``;
* 403: the caller is known but may not do this: ``auth.forbidden`` (a role is missing, or
  the plan is another requester's), ``approval.self_approval``,
  ``approval.agent_cannot_approve``, ``approval.not_approver``, ``approval.not_requester``;
* 404: ``execution.not_found`` (no plan, step or approval with that id),
  ``itip.not_recorded`` (no outbox record for that key and recipient);
* 409: the request is well formed but the thing is not in a state that allows it:
  ``execution.invalid_state``, ``approval.not_open``, ``approval.expired`` (the approval
  still exists and can be read, so not 410), ``approval.replayed``, ``proposal.replayed``,
  ``itip.not_uncertain`` (an outbox record that knows better), ``outbox.not_configured``
  (the service has no outbox folder);
* 422: the input is at fault: ``http.invalid_body``, ``json.not_object``, ``cpir.*``,
  ``draft.*``, ``proposal.*``, ``intake.*``, ``execution.invalid_argument``,
  ``execution.invalid_principal``, and the decision's proof: ``approval.signature_required``,
  ``approval.bad_signature``, ``approval.wrong_key``, ``approval.unknown_key``,
  ``approval.key_revoked``;
* 400: JSON that is not syntactically valid (``json.*`` syntax codes); 413
  ``input.too_large`` (a body holding more values than a document may);
* 503: ``store.*`` (the store cannot be reached or is not initialised), with
  ``Retry-After`` (:data:`~cerebri.service.store_outage.RETRY_AFTER_SECONDS`); a driver's
  error that means the store is down is 503 ``store.unavailable``
  (:mod:`cerebri.service.store_outage`); so are ``itip.outbox_busy``,
  ``itip.outbox_unwritable`` and ``itip.outbox_unreadable`` (the outbox folder cannot be
  used now: :mod:`cerebri.service.outbox_api`).

``input.invalid_text`` (a NUL character or a lone surrogate, :mod:`cerebri._text`) is 422 as
every ``input.*`` code.

A code not listed here is 422 if its error points into the input (``path`` set), else 409.
"""

from __future__ import annotations

from typing import Final

from starlette.responses import Response

from cerebri.errors import CerebriError, ParseError
from cerebri.service.body import parse_error_status
from cerebri.service.problems import problem_response
from cerebri.service.store_outage import RETRY_AFTER_SECONDS

__all__ = ["STATUS_BY_CODE", "error_response", "status_of"]

STATUS_BY_CODE: Final[dict[str, int]] = {
    "auth.unauthorized": 401,
    "auth.token_revoked": 401,
    "auth.principal_disabled": 401,
    "auth.forbidden": 403,
    "approval.self_approval": 403,
    "approval.agent_cannot_approve": 403,
    "approval.not_approver": 403,
    "approval.not_requester": 403,
    "execution.not_found": 404,
    "itip.not_recorded": 404,
    "execution.invalid_state": 409,
    "approval.not_open": 409,
    "approval.expired": 409,
    "approval.replayed": 409,
    "proposal.replayed": 409,
    "itip.not_uncertain": 409,
    "outbox.not_configured": 409,
    "input.too_large": 413,
    "execution.invalid_argument": 422,
    "execution.invalid_principal": 422,
    "approval.signature_required": 422,
    "approval.bad_signature": 422,
    "approval.wrong_key": 422,
    "approval.unknown_key": 422,
    "approval.key_revoked": 422,
    "itip.outbox_busy": 503,
    "itip.outbox_unwritable": 503,
    "itip.outbox_unreadable": 503,
}
"""The status of each code the store routes raise (see the module docstring)."""

_INPUT_PREFIXES: Final = ("http.", "json.", "cpir.", "draft.", "proposal.", "intake.", "input.")


def status_of(error: CerebriError) -> int:
    """The HTTP status of a refused store request (module docstring)."""
    if error.code in STATUS_BY_CODE:
        return STATUS_BY_CODE[error.code]
    if isinstance(error, ParseError):
        return parse_error_status(error)
    if error.code.startswith("store."):
        return 503
    if error.code.startswith(_INPUT_PREFIXES) or error.path is not None:
        return 422
    return 409


def error_response(error: CerebriError) -> Response:
    """The problem response of ``error``: its code, message and path, the status of
    :func:`status_of`; a 401 also carries ``WWW-Authenticate: Bearer``, a 503
    ``Retry-After``."""
    status = status_of(error)
    headers = None
    if status == 401:
        headers = {"WWW-Authenticate": "Bearer"}
    elif status == 503:
        headers = {"Retry-After": str(RETRY_AFTER_SECONDS)}
    return problem_response(status, error.code, error.message, error.path, headers)
