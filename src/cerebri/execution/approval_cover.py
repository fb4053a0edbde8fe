"""When the plan's one approval covers a later effect (issue #23, decision 0056).

A plan with ``require_approval`` asks before every effect (decision 0022). A change of an
event is one decision, though: the write, then one iTIP message per attendee once the write
reads back (RFC 5546). The approver sees the write together with every message the plan
will send (``approvals show``, :func:`~cerebri.execution.approval_detail.change_of_step`),
and the decision is bound to the plan revision and its envelope digest, which fix every
step. Asking again for each message would put the same decision before the same person
once per attendee.

So an effect that needs approval **only** because the plan says ``require_approval`` (not
its own ``require_approval``, not its capability's ``requires_approval``) is covered when a
step it depends on, directly or through others, in the same plan revision, has consumed an
approval (``kind: approval``, not a grant). Nothing else changes: a capability declared
``requires_approval`` still asks every time, and a step with no approved ancestor asks.

An approval **gate** (an ``internal`` step ``await_approval``, decision 0076: the one
approval of an optimised batch, and each calendar owner's approval of a move of their
event) is asked for the effects that depend on it, by name: its approval (``gate: true`` in
the request) also covers an effect whose capability is declared ``requires_approval``, when
the effect depends on it. The effect's own ``require_approval`` still asks.
"""

from __future__ import annotations

from typing import Any

from cerebri.execution._rows import loads
from cerebri.execution.store import approvals as approval_store
from cerebri.execution.store import steps as step_store
from cerebri.execution.store.connection import Connection

__all__ = ["covering_approval"]


def covering_approval(
    connection: Connection, plan_id: str, spec: dict[str, Any], *, gates_only: bool = False
) -> str | None:
    """The id of the approval consumed by a step that a step of plan ``plan_id`` with spec
    ``spec`` depends on (directly or through other steps), or ``None`` (module doc); with
    ``gates_only``, only a gate's approval counts. The step then acts on that approval: a
    governed store checks its signed decision again
    (:func:`~cerebri.execution.decisions.authority_refusal`)."""
    consumed = {
        row.step_id: row.id
        for row in approval_store.approved_of_plan(connection, plan_id)
        if row.consumed_at is not None and _counts(loads(row.request) or {}, gates_only)
    }
    if not consumed:
        return None
    rows = step_store.of_plan(connection, plan_id)
    ids = {row.key: row.id for row in rows}
    needs = {row.key: tuple((loads(row.spec) or {}).get("depends_on") or ()) for row in rows}
    seen: set[str] = set()
    todo = list(spec.get("depends_on") or ())
    while todo:
        key = todo.pop()
        if key in seen:
            continue
        seen.add(key)
        found = consumed.get(ids.get(key, ""))
        if found is not None:
            return str(found)
        todo.extend(needs.get(key, ()))
    return None


def _counts(request: dict[str, Any], gates_only: bool) -> bool:
    """Whether an approval with ``request`` may cover a later effect."""
    return request.get("kind") == "approval" and (not gates_only or request.get("gate") is True)
