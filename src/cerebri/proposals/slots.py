"""Calendar slots in a proposed artifact, and when they may be proposed
(docs/decisions/0025-proposing-calendar-slots.md).

A *slot* is the range an effect puts an event at: each action's ``action.range`` of a
``cerebri.action-plan.v1`` but a ``DELETE_EVENT``'s (the range a cancel removes: it puts
nothing anywhere), each ``calendar.event.create`` / ``move`` / ``update`` step's
``params.start``/``params.end`` of a ``cerebri.plan-graph.v1`` (an update writes the event at
its range after the update; a ``calendar.event.cancel`` step has no range). So an action
plan and the plan graph drawn from it have the same slots (docs/decisions/0061). Two rules,
checked by
:func:`~cerebri.proposals.propose` before anything is signed:

* no slot may have begun at ``proposed-at`` (its start at or before it):
  ``proposal.slot_started`` (path ``/proposed-at``); proposing a meeting that is already
  under way would ask for approval of a past effect;
* ``expires-at`` may not come before the latest slot start: ``proposal.expires_before_slot``
  (path ``/expires-at``); the envelope has to stay valid until the last slot starts, so a
  worker can still act on it once it is approved.

Instants are UTC; nothing here reads a clock.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Final

from cerebri._guard import arguments, items_of
from cerebri.proposals.digest import load_json
from cerebri.proposals.errors import ProposalError, proposal_argument_error
from cerebri.temporal import Instant

__all__ = ["SLOT_CAPABILITIES", "check_slot_times", "slot_starts"]

SLOT_CAPABILITIES: Final = frozenset(
    {"calendar.event.create", "calendar.event.move", "calendar.event.update"}
)
"""Plan graph capabilities whose ``params.start`` is a slot (the calendar writes that put an
event at a range; a cancel removes one)."""

_NO_SLOT_KINDS: Final = frozenset({"DELETE_EVENT"})
"""Action kinds whose ``range`` is no slot: the range a cancel removes."""


def _instant(value: object) -> Instant | None:
    if not isinstance(value, str):
        return None
    try:
        return Instant.parse(value)
    except ValueError:
        return None


def _starts_of(document: Any) -> list[Instant | None]:
    if not isinstance(document, dict):
        return []
    found: list[Instant | None] = []
    for action in document.get("actions") or []:  # an action plan
        if isinstance(action, dict) and isinstance(action.get("action"), dict):
            if action["action"].get("kind") in _NO_SLOT_KINDS:
                continue
            span = action["action"].get("range")
            found.append(_instant(span.get("start")) if isinstance(span, dict) else None)
    for step in document.get("steps") or []:  # a plan graph
        if isinstance(step, dict) and step.get("capability") in SLOT_CAPABILITIES:
            params = step.get("params")
            found.append(_instant(params.get("start")) if isinstance(params, dict) else None)
    return found


@arguments(proposal_argument_error, payload=bytes)
def slot_starts(payload: bytes) -> tuple[Instant, ...]:
    """The start of every slot in an artifact's JSON bytes (an action plan or a plan graph;
    see the module doc), in document order; ``()`` for an artifact without slots.

    Raises ``proposal.canonical_json`` / ``proposal.schema`` when ``payload`` is not strict
    JSON (:func:`~cerebri.proposals.load_json`), and ``proposal.schema`` when a slot's start
    is not an RFC 3339 instant.
    """
    starts = _starts_of(load_json(payload))
    if any(start is None for start in starts):
        raise ProposalError(
            "a slot in the artifact has no readable RFC 3339 start", code="proposal.schema"
        )
    return tuple(start for start in starts if start is not None)


@arguments(proposal_argument_error, starts=Iterable, proposed_at=Instant, expires_at=Instant)
def check_slot_times(
    starts: Iterable[Instant], *, proposed_at: Instant, expires_at: Instant
) -> None:
    """Refuse slots that began at ``proposed_at`` or start after ``expires_at``.

    Raises:
        ProposalError: ``proposal.slot_started`` (path ``/proposed-at``) when a slot starts
            at or before ``proposed_at``; ``proposal.expires_before_slot`` (path
            ``/expires-at``) when ``expires_at`` is before the latest slot start, with the
            ``--expires-in`` (seconds) that would cover it.
        ProposalError: ``proposal.invalid_argument`` for a start that is not an Instant.
    """
    checked: Sequence[Instant] = items_of(
        starts, Instant, proposal_argument_error, "check_slot_times starts"
    )
    if not checked:
        return
    earliest, latest = min(checked), max(checked)
    if earliest <= proposed_at:
        raise ProposalError(
            f"the slot starting at {earliest} has already begun at proposed-at {proposed_at}; "
            "find a slot that starts later",
            code="proposal.slot_started",
            path="/proposed-at",
        )
    if expires_at < latest:
        needed = -(-(latest.ns - proposed_at.ns) // 1_000_000_000)
        raise ProposalError(
            f"expires-at {expires_at} is before the slot starting at {latest}: the envelope "
            f"must stay valid until its latest slot starts; pass --expires-in "
            f"{_readable(needed)} or more (the slot starts {needed} s after proposed-at)",
            code="proposal.expires_before_slot",
            path="/expires-at",
        )


_UNITS = (("d", 86_400), ("h", 3_600), ("m", 60))


def _readable(seconds: int) -> str:
    """``seconds`` rounded up to whole days, hours or minutes (the largest unit it reaches),
    in the ``--expires-in`` grammar: 1 093 626 s is ``13d``, 61 200 s ``17h``, 90 s ``2m``,
    under a minute ``Ns`` (decision 0074)."""
    for unit, size in _UNITS:
        if seconds >= size:
            return f"{-(-seconds // size)}{unit}"
    return f"{seconds}s"
