"""Who owns which calendar, as the store records it (decision 0082).

The owner of a calendar is the principal whose approval a move, cancel or update of an
event there needs when another person's plan makes it (the rule is in
:mod:`cerebri.execution.ownership`, checked at intake and again when each such step acts).
The store's record is the authority, never the plan: a proposal that names someone else as
the owner is refused.

A calendar has at most one owner at a time. An owner is a person (``principal:<name>``: an
agent never approves, so it could never consent). Revoking an ownership keeps the row as
history; a calendar whose ownership was revoked and not given again has *nobody* who may
approve changes of other people's events there, and such changes are refused (fail closed:
the revocation does not silently drop the owner's say). Give the calendar to someone (the
requester, for instance) to open it again.

Errors: :class:`~cerebri.execution.errors.AuthError` ``auth.duplicate`` (the calendar has
an owner already: revoke it first), ``auth.invalid_role`` (an agent); :class:`ExecutionError`
``execution.not_found`` (no such principal; no current owner to revoke),
``execution.invalid_argument`` (an empty calendar id or ``*``),
``execution.invalid_principal``. Instants on the wire are RFC 3339 UTC text.
"""

from __future__ import annotations

from typing import Any

from cerebri._guard import arguments
from cerebri._json import JSONValue
from cerebri.execution.context import Executor
from cerebri.execution.errors import AuthError, ExecutionError, execution_argument_error
from cerebri.execution.principals import is_agent, principal_id
from cerebri.execution.store import owners as owner_store
from cerebri.execution.store import principals as principal_store
from cerebri.execution.store.connection import IntegrityError
from cerebri.execution.views import instant_text

__all__ = ["list_calendar_owners", "own_calendar", "revoke_calendar_owner"]


def _wire(row: Any) -> dict[str, JSONValue]:
    return {
        "id": row.id,
        "calendar": row.calendar,
        "principal": row.principal_id,
        "created_at": instant_text(row.created_at),
        "revoked_at": instant_text(row.revoked_at),
    }


def _calendar(calendar: str) -> str:
    text = calendar.strip()
    if not text or text == "*":
        raise ExecutionError(
            f"an owned calendar is one calendar id, not {calendar!r}",
            code="execution.invalid_argument",
        )
    return text


@arguments(execution_argument_error, executor=Executor, principal=str, calendar=str)
def own_calendar(executor: Executor, principal: str, calendar: str) -> dict[str, JSONValue]:
    """Record ``principal`` (a person) as the owner of ``calendar`` from now on. Returns
    ``{"id", "calendar", "principal", "created_at", "revoked_at": null}``.

    Raises :class:`AuthError` ``auth.duplicate`` (the calendar has a current owner),
    ``auth.invalid_role`` (an agent); :class:`ExecutionError` ``execution.not_found`` (the
    principal is not registered), ``execution.invalid_argument``,
    ``execution.invalid_principal``."""
    canonical = principal_id(principal)
    chosen = _calendar(calendar)
    if is_agent(canonical):
        raise AuthError(
            f"{canonical} is an agent: an agent never approves, so it cannot own a calendar",
            code="auth.invalid_role",
        )
    owner_id = executor.ids.new_id()
    now = executor.now_ns()
    try:
        with executor.transaction() as connection:
            if principal_store.get(connection, canonical) is None:
                raise ExecutionError(
                    f"no principal {canonical!r} is registered", code="execution.not_found"
                )
            owner_store.add(
                connection,
                id=owner_id,
                calendar=chosen,
                principal_id=canonical,
                created_at=now,
            )
    except IntegrityError:
        raise AuthError(
            f"calendar {chosen!r} has an owner already: revoke it first "
            "(cerebri principals revoke-owner)",
            code="auth.duplicate",
        ) from None
    return {
        "id": owner_id,
        "calendar": chosen,
        "principal": canonical,
        "created_at": instant_text(now),
        "revoked_at": None,
    }


@arguments(execution_argument_error, executor=Executor, calendar=str)
def revoke_calendar_owner(executor: Executor, calendar: str) -> dict[str, JSONValue]:
    """Revoke the current ownership of ``calendar``: its owner's approvals stop counting for
    changes there, also those given and not yet acted on (checked when each step acts).
    Returns the ownership's wire form (see :func:`own_calendar`) with ``revoked_at`` set.
    Raises :class:`ExecutionError` ``execution.not_found`` (no current owner),
    ``execution.invalid_argument``."""
    chosen = _calendar(calendar)
    with executor.transaction() as connection:
        row = owner_store.revoke(connection, chosen, executor.now_ns())
    if row is None:
        raise ExecutionError(
            f"calendar {chosen!r} has no current owner", code="execution.not_found"
        )
    return _wire(row)


@arguments(execution_argument_error, executor=Executor)
def list_calendar_owners(executor: Executor) -> list[dict[str, JSONValue]]:
    """Every ownership the store recorded, revoked ones included, by (calendar, created):
    the wire form of :func:`own_calendar`."""
    with executor.engine.connect() as connection:
        return [_wire(row) for row in owner_store.all_owners(connection)]
