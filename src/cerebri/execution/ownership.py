"""The calendar owner's say over changes of events in their calendar (decision 0082).

In a governed store, a step that changes an event that already exists, a ``move``,
``cancel`` or ``update`` (:data:`CHANGE_CAPABILITIES`), in a calendar the store records as
owned (:mod:`cerebri.execution.owners`) by a principal who is neither the plan's requester
nor its author, needs that owner's approval. The store's record decides who the owner is;
whatever the proposal says (e.g. ``batch.people`` of an ``OPTIMIZE``, turned into the
``approve-owner-i`` gates of decision 0076) is only a claim to check.

:func:`owner_refusal` checks, for each such step, in order:

1. the calendar has a current owner: a calendar whose ownership was revoked and not given
   again refuses every change by another person (fail closed);
2. the owner is enabled (a disabled principal's approval counts for nothing);
3. the plan asks the owner: the step itself, or a step it depends on (directly or
   through others) that asks for an approval (``require_approval`` or an
   ``await_approval`` gate), names the owner as its one ``approver``;
4. at act time, for the step about to act: an approval by the owner among those steps was
   given; and for every step, each approval the owner gave there still holds (the
   caller's ``verify``: the owner still an enabled approver, the signature, the key).

The first failure is the answer, a text starting with ``approval.not_owner`` (or the code
``verify`` returned). Calendars the store knows no owner of are left to the author's grants
(decision 0023), as before.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from cerebri.execution.store import owners as owner_store
from cerebri.execution.store import principals as principal_store
from cerebri.execution.store.connection import Connection
from cerebri.execution.views import instant_text
from cerebri.plans.vocabulary import InternalAction

__all__ = ["CHANGE_CAPABILITIES", "NOT_OWNER", "calendar_of", "owner_refusal"]

CHANGE_CAPABILITIES: Final = frozenset(
    {"calendar.event.move", "calendar.event.cancel", "calendar.event.update"}
)
"""The writes that change an event someone already arranged (a create adds one and asks no
owner, decision 0076)."""
NOT_OWNER: Final = "approval.not_owner"
"""The code of a refusal by :func:`owner_refusal`."""


@dataclass(frozen=True, slots=True)
class _Owned:
    """A calendar the store knows an ownership of: its current ``owner`` (``None`` when the
    last one was revoked at ``revoked_at``) and when that owner was disabled."""

    owner: str | None
    revoked_at: int | None
    disabled_at: int | None


def calendar_of(step: Mapping[str, Any]) -> str:
    """The calendar a step's effect writes: ``params.calendar_id``, else its target."""
    calendar = (step.get("params") or {}).get("calendar_id")
    return calendar if isinstance(calendar, str) else str(step.get("target") or "")


def _owned(connection: Connection, calendars: Iterable[str]) -> dict[str, _Owned]:
    rows = owner_store.of_calendars(connection, calendars)
    found: dict[str, _Owned] = {}
    for row in rows:  # by creation: the current owner, if any, is the one not revoked
        if row.revoked_at is None:
            person = principal_store.get(connection, row.principal_id)
            disabled = None if person is None else person.disabled_at
            found[row.calendar] = _Owned(row.principal_id, None, 0 if person is None else disabled)
        elif found.get(row.calendar, _Owned(None, None, None)).owner is None:
            found[row.calendar] = _Owned(None, int(row.revoked_at), None)
    return found


def _asks(step: Mapping[str, Any]) -> bool:
    internal = step.get("internal") or {}
    gate = internal.get("action") == InternalAction.AWAIT_APPROVAL.value
    return bool(step.get("require_approval")) or gate


def _line(steps: Mapping[str, Mapping[str, Any]], key: str) -> set[str]:
    """``key`` and every step it depends on, directly or through others."""
    seen: set[str] = set()
    todo = [key]
    while todo:
        current = todo.pop()
        if current in seen or current not in steps:
            continue
        seen.add(current)
        todo.extend(steps[current].get("depends_on") or ())
    return seen


def _canonical(text: object) -> str | None:
    return text.strip().casefold() if isinstance(text, str) else None


def _refusal(
    key: str,
    calendar: str,
    owned: _Owned,
    asked: Mapping[str, str | None],
) -> str | None:
    """Items 1-3 of the module doc for one step; ``asked``: the approvals of its line."""
    where = f"step {key} changes an event in calendar {calendar}"
    if owned.owner is None:
        return (
            f"{NOT_OWNER}: {where}, whose ownership was revoked at "
            f"{instant_text(owned.revoked_at)} and is held by nobody now: no one may approve "
            "changing another person's event there"
        )
    if owned.disabled_at is not None:
        return (
            f"{NOT_OWNER}: {where}, whose owner {owned.owner} is disabled since "
            f"{instant_text(owned.disabled_at)}: their approval counts for nothing"
        )
    if owned.owner not in asked.values():
        named = sorted({a for a in asked.values() if a is not None})
        who = ", ".join(named) if named else "no one by name"
        return (
            f"{NOT_OWNER}: {where}, which {owned.owner} owns (the store's record); the plan "
            f"asks {who} to approve it, not {owned.owner}"
        )
    return None


def owner_refusal(
    connection: Connection,
    steps: Sequence[Mapping[str, Any]],
    *,
    still: Collection[str] | None = None,
    requester: str | None,
    author: str | None,
    acting: str | None = None,
    decided: Mapping[str, Any] | None = None,
    verify: Callable[[Any], str | None] | None = None,
) -> str | None:
    """Why the plan's ``steps`` (wire step specs) may not change events in owned calendars
    (module doc), or ``None``. ``still``: the keys of the steps still to act (default:
    every step), the only ones checked; ``acting``: the key of the step about to act;
    ``decided``: step key -> its approved approval row (act time); ``verify(row)``: why an
    owner's approval no longer holds (a reason starting with its code), or ``None``."""
    by_key = {str(step.get("key")): step for step in steps}
    changes = [
        s
        for s in steps
        if s.get("capability") in CHANGE_CAPABILITIES and (still is None or s.get("key") in still)
    ]
    owned = _owned(connection, {calendar_of(s) for s in changes}) if changes else {}
    mine = {p for p in (requester, author) if p is not None}
    for step in changes:
        key, calendar = str(step.get("key")), calendar_of(step)
        state = owned.get(calendar)
        if state is None or state.owner in mine:
            continue
        line = _line(by_key, key)
        asked = {k: _canonical(by_key[k].get("approver")) for k in line if _asks(by_key[k])}
        refused = _refusal(key, calendar, state, asked)
        if refused is not None:
            return refused
        given = [
            (decided or {})[k]
            for k, approver in sorted(asked.items())
            if approver == state.owner and k in (decided or {})
        ]
        if key == acting and not any(row.decided_by == state.owner for row in given):
            return (
                f"{NOT_OWNER}: step {key} changes an event in calendar {calendar}, which "
                f"{state.owner} owns, and no approval by {state.owner} covers it"
            )
        for row in given:
            problem = None if verify is None else verify(row)
            if row.decided_by != state.owner:
                problem = f"{NOT_OWNER}: approval {row.id} was decided by {row.decided_by}"
            if problem is not None:
                return problem
    return None
