"""The step state machine: the one place that changes ``steps.status`` (decision 0043).

:data:`STEP_TRANSITIONS` maps each :class:`~cerebri.plans.StepStatus` to the statuses a step
may move to from it (plans.md section 5; terminal statuses are never left). Every UPDATE of a
step's status is built by :func:`move` (or, for a statement whose target is chosen per row, by
:func:`move_when`): the caller names the statuses it moves from and the one it moves to, the
pair is checked against the table before any SQL is built, and the statement only matches rows
in those from-statuses, so the database can never take a transition the table does not hold.
An illegal pair raises :class:`StepTransitionError` (``store.illegal_transition``): a
programming error, found when the statement is built (for module-level statements, at import).

The transitions, by who takes them:

* a claim (``ready``/``waiting`` → ``executing``; ``executing`` → ``executing`` is the takeover
  of an expired lease);
* the holder of the lease parks (``executing`` → ``ready``, ``waiting``, ``blocked``,
  ``awaiting_approval``, ``awaiting_grant``) or finishes (``executing`` → ``completed``,
  ``skipped``, ``failed``, ``cancelled``);
* a done step readies its dependants (``pending`` → ``ready``);
* an operator or a decision releases a waiting step (``blocked``, ``awaiting_approval``,
  ``awaiting_grant`` → ``ready``), settles a blocked one (``blocked`` → ``completed``) or
  a refusal fails it (``awaiting_*`` → ``failed``);
* a plan that stops cancels every step not yet terminal (any open status → ``cancelled``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import Any, Final

from sqlalchemy import ColumnElement, Update, case, update

from cerebri.execution.store.errors import StoreError
from cerebri.execution.store.schema import steps
from cerebri.plans.vocabulary import TERMINAL_STEP_STATUSES, StepStatus

__all__ = [
    "OPEN_STEP_STATUSES",
    "STEP_TRANSITIONS",
    "StepTransitionError",
    "check",
    "move",
    "move_when",
]

_S = StepStatus

OPEN_STEP_STATUSES: Final = frozenset(StepStatus) - TERMINAL_STEP_STATUSES
"""The statuses a step can still leave: every one that is not terminal."""

STEP_TRANSITIONS: Final[Mapping[StepStatus, frozenset[StepStatus]]] = MappingProxyType(
    {
        _S.PENDING: frozenset({_S.READY, _S.CANCELLED}),
        _S.READY: frozenset({_S.EXECUTING, _S.CANCELLED}),
        _S.WAITING: frozenset({_S.EXECUTING, _S.CANCELLED}),
        _S.EXECUTING: frozenset(
            {
                _S.EXECUTING,
                _S.READY,
                _S.WAITING,
                _S.BLOCKED,
                _S.AWAITING_APPROVAL,
                _S.AWAITING_GRANT,
                _S.COMPLETED,
                _S.SKIPPED,
                _S.FAILED,
                _S.CANCELLED,
            }
        ),
        _S.AWAITING_APPROVAL: frozenset({_S.READY, _S.FAILED, _S.CANCELLED}),
        _S.AWAITING_GRANT: frozenset({_S.READY, _S.FAILED, _S.CANCELLED}),
        _S.BLOCKED: frozenset({_S.READY, _S.COMPLETED, _S.CANCELLED}),
        _S.COMPLETED: frozenset(),
        _S.SKIPPED: frozenset(),
        _S.FAILED: frozenset(),
        _S.CANCELLED: frozenset(),
    }
)
"""``from status → the statuses it may move to``; a terminal status maps to nothing."""


class StepTransitionError(StoreError):
    """A step status change that :data:`STEP_TRANSITIONS` does not allow was asked for
    (code ``store.illegal_transition``); nothing was written."""

    code = "store.illegal_transition"


def check(sources: StepStatus | Iterable[StepStatus], target: StepStatus) -> tuple[str, ...]:
    """The wire values of ``sources`` (one status or several, in the vocabulary's order), once
    every ``source → target`` is allowed. Raises :class:`StepTransitionError` naming the
    first pair that is not, or when ``sources`` is empty."""
    froms = (sources,) if isinstance(sources, StepStatus) else tuple(sources)
    if not froms:
        raise StepTransitionError(f"a move to {target.value} names no status it leaves")
    for source in froms:
        if target not in STEP_TRANSITIONS[StepStatus(source)]:
            raise StepTransitionError(
                f"a step may not move from {StepStatus(source).value} to {target.value}"
            )
    named = {StepStatus(s) for s in froms}
    return tuple(s.value for s in StepStatus if s in named)


def _leaving(froms: tuple[str, ...]) -> ColumnElement[bool]:
    """``status = x`` for one status, ``status IN (...)`` for several."""
    return steps.c.status == froms[0] if len(froms) == 1 else steps.c.status.in_(froms)


def _refuse_status(values: Mapping[str, Any]) -> None:
    if "status" in values:
        raise StepTransitionError("the status is the move's target, not a value")


def move(
    sources: StepStatus | Iterable[StepStatus],
    target: StepStatus,
    *where: ColumnElement[bool],
    **values: Any,
) -> Update:
    """``UPDATE steps SET status = target, **values WHERE status IN sources AND *where``,
    after :func:`check`. The caller adds ``RETURNING`` or makes it a CTE; the statement is
    not executed here. Raises :class:`StepTransitionError` for an illegal pair, or when
    ``values`` names ``status``."""
    _refuse_status(values)
    froms = check(sources, target)
    return update(steps).where(_leaving(froms), *where).values(status=target.value, **values)


def move_when(
    sources: StepStatus | Iterable[StepStatus],
    target: StepStatus,
    when: ColumnElement[bool],
    *where: ColumnElement[bool],
    **values: Any,
) -> Update:
    """Like :func:`move`, but only the matched rows for which ``when`` holds take the new
    status; the others keep theirs while ``values`` are still written (a dependant counted
    down but still waiting on another step). Raises :class:`StepTransitionError`."""
    _refuse_status(values)
    froms = check(sources, target)
    return (
        update(steps)
        .where(_leaving(froms), *where)
        .values(status=case((when, target.value), else_=steps.c.status), **values)
    )
