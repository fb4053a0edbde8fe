"""The plan graph of an optimised batch: one approval, owners' approvals, then the effects
(issue #24, decision 0076).

A batch is an action plan of several ``CREATE_EVENT`` and ``MOVE_EVENT`` actions that the
requester wants carried out together (the result of ``OPTIMIZE``). Written by
:func:`batch_steps` for the ``direct_action_verified`` strategy:

``approve-batch``
    an ``internal`` step ``await_approval`` with ``require_approval``: the one approval of
    the whole batch, by any approver but the requester and the proposal's author
    (decision 0022).
``approve-owner-i``
    for each move *i* of an event in a calendar whose owner (:attr:`BatchApprovals.owners`)
    is not the requester: ``await_approval`` with ``approver`` = that owner, after
    ``approve-batch`` (an owner is asked only about a batch its requester's approver
    accepted). Only that owner may decide it (``approval.not_approver`` otherwise).
``create-i`` / ``move-i`` and ``verify-i``
    the effect and its read-back as for one action (:mod:`cerebri.plans.from_action_plan`),
    with the action's own idempotency key (``<plan id>-<i>``: a content hash of the request
    and the placements, the same on every replay), depending on **every** gate: nothing is
    written until the batch and every owner approved. The effect asks for nothing itself;
    the gate's approval covers it (:mod:`cerebri.execution.approval_cover`).
``room-i`` and ``verify-room-i``
    for a created meeting with a room (:attr:`BatchApprovals.rooms`): the same event (same
    UID) created in the room's calendar, idempotency key ``<key>-room``, read back there,
    after the same gates: the room's free/busy then shows the booking on any CalDAV server,
    with or without RFC 6638 scheduling.
``record``
    ``record_procedure`` after every verification.

A rejection of any gate fails it and the plan replans before anything was written; a move
found already at its range is skipped (its precondition), not repeated.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from cerebri.cpir import MutationKind
from cerebri.cpir.batch import Batch
from cerebri.planner import Action
from cerebri.plans.draft import InternalSpec, StepSpec
from cerebri.plans.report import draft_argument_error
from cerebri.plans.vocabulary import InternalAction, StepKind

__all__ = ["BATCH_GATE", "BatchApprovals", "batch_steps", "owner_gate"]

BATCH_GATE: Final = "approve-batch"
"""The key of the batch's one approval step."""

_PRINCIPAL: Final = re.compile(r"principal:[^\s:]+")


def _person(text: object, what: str) -> str:
    """``text`` in the executor's canonical form (space trimmed, case folded): a person,
    ``principal:<name>``; ``draft.invalid_argument`` otherwise."""
    folded = text.strip().casefold() if isinstance(text, str) else ""
    if not _PRINCIPAL.fullmatch(folded):
        raise draft_argument_error(f"{what} must be principal:<name>, not {text!r}")
    return folded


@dataclass(frozen=True, slots=True)
class BatchApprovals:
    """Who asks for a batch and whose calendars it touches.

    ``requester``: the principal who will submit the plan (``principal:<name>``).
    ``owners``: calendar id → the principal who owns it; a move of an event in a calendar
    owned by someone else needs that owner's approval too. A calendar not listed is the
    requester's (or one the requester may change on its own, e.g. a shared team calendar).
    ``rooms``: object id of a created meeting → the calendar id of its room.

    Raises :class:`~cerebri.plans.DraftError` ``draft.invalid_argument`` when a principal is
    not ``principal:<name>`` or a mapping does not map text to text.
    """

    requester: str
    owners: Mapping[str, str] = field(default_factory=dict)
    rooms: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "requester", _person(self.requester, "the requester"))
        for name in ("owners", "rooms"):
            table = getattr(self, name)
            if not isinstance(table, Mapping) or not all(
                isinstance(k, str) and isinstance(v, str) for k, v in table.items()
            ):
                raise draft_argument_error(f"{name} maps text to text")
        owners = {c: _person(p, f"the owner of {c!r}") for c, p in self.owners.items()}
        object.__setattr__(self, "owners", dict(sorted(owners.items())))
        object.__setattr__(self, "rooms", dict(sorted(self.rooms.items())))

    @classmethod
    def from_batch(
        cls, batch: Batch, actions: Iterable[Action], *, requester: str
    ) -> BatchApprovals:
        """The approvals of an ``OPTIMIZE`` request's ``batch`` (decision 0070) carried out
        as ``actions``: each person owns their calendar (``batch.people[].calendar_id`` →
        ``principal:<person id>``), and each created action with a ``room_id`` is booked in
        that room's calendar (``batch.rooms[].calendar_id``). Raises
        :class:`~cerebri.plans.DraftError` ``draft.invalid_argument`` for a ``room_id`` the
        batch does not list, or as the constructor."""
        room_calendars = {room.id: room.calendar_id for room in batch.rooms}
        rooms: dict[str, str] = {}
        for action in actions:
            if action.room_id is None or action.kind is not MutationKind.CREATE_EVENT:
                continue
            if action.room_id not in room_calendars:
                raise draft_argument_error(
                    f"action {action.id} names unknown room {action.room_id!r}"
                )
            rooms[action.target] = room_calendars[action.room_id]
        owners = {person.calendar_id: f"principal:{person.id}" for person in batch.people}
        return cls(requester=requester, owners=owners, rooms=rooms)

    def owner_to_ask(self, action: Action) -> str | None:
        """The owner who must approve ``action`` too: for a move of an event in a calendar
        owned by someone other than the requester; else ``None``."""
        if action.kind is not MutationKind.MOVE_EVENT:
            return None
        owner = self.owners.get(action.calendar_id)
        return owner if owner not in (None, self.requester) else None


def _gate(key: str, title: str, *, after: tuple[str, ...], approver: str | None) -> StepSpec:
    return StepSpec(
        key=key,
        title=title,
        kind=StepKind.INTERNAL,
        depends_on=after,
        require_approval=True,
        approver=approver,
        internal=InternalSpec(action=InternalAction.AWAIT_APPROVAL),
    )


def owner_gate(index: int) -> str:
    """The key of the owner's approval of action ``index``."""
    return f"approve-owner-{index}"


def _span(action: Action) -> str:
    span = action.placement.range
    return f"[{span.start}, {span.end})"


def _room_steps(effect: StepSpec, verify: StepSpec, index: int, room: str) -> list[StepSpec]:
    """The create and read-back of the same event in the room's calendar ``room``."""

    def moved(params: Mapping[str, Any] | None, **more: Any) -> dict[str, Any]:
        return {**(params or {}), "calendar_id": room, **more}

    assert effect.params is not None and effect.precondition is not None
    assert verify.verify is not None
    key = f"{effect.params['idempotency_key']}-room"
    pre = effect.precondition.check
    check = verify.verify.check
    book = effect.model_copy(
        update={
            "key": f"room-{index}",
            "title": f"book room {room}: {effect.title}",
            "params": moved(effect.params, idempotency_key=key),
            "precondition": effect.precondition.model_copy(
                update={"check": pre.model_copy(update={"params": moved(pre.params)})}
            ),
            "expectation": effect.expectation.model_copy(
                update={"description": f"{effect.target} is booked in room calendar {room}"}
            )
            if effect.expectation is not None
            else None,
        }
    )
    read = verify.model_copy(
        update={
            "key": f"verify-room-{index}",
            "title": f"read {effect.target} back from room {room}",
            "depends_on": (book.key,),
            "verify": verify.verify.model_copy(
                update={
                    "of": book.key,
                    "check": check.model_copy(update={"params": moved(check.params)}),
                }
            ),
        }
    )
    return [book, read]


def batch_steps(
    actions: tuple[Action, ...],
    approvals: BatchApprovals,
    plan_id: str,
    write: Callable[[int, Action], tuple[StepSpec, StepSpec]],
) -> list[StepSpec]:
    """The steps of the module doc, before ``record``. ``write(i, action)`` gives action
    *i*'s effect and read-back as for a single action; the effect here asks for no approval
    of its own (the gates cover it) and depends on every gate."""
    creates = sum(a.kind is MutationKind.CREATE_EVENT for a in actions)
    moves = len(actions) - creates
    gates = [
        _gate(
            BATCH_GATE,
            f"approve batch {plan_id}: {creates} create(s), {moves} move(s), requested by "
            f"{approvals.requester}",
            after=(),
            approver=None,
        )
    ]
    for index, action in enumerate(actions):
        owner = approvals.owner_to_ask(action)
        if owner is not None:
            gates.append(
                _gate(
                    owner_gate(index),
                    f"{owner} approves moving {action.target} in their calendar "
                    f"{action.calendar_id} to {_span(action)}",
                    after=(BATCH_GATE,),
                    approver=owner,
                )
            )
    after = tuple(g.key for g in gates)
    steps = list(gates)
    for index, action in enumerate(actions):
        effect, verify = write(index, action)
        effect = effect.model_copy(update={"depends_on": after, "require_approval": False})
        steps += [effect, verify]
        room = approvals.rooms.get(action.target)
        if room is not None and action.kind is MutationKind.CREATE_EVENT:
            steps += _room_steps(effect, verify, index, room)
    return steps
