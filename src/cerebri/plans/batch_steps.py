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
from dataclasses import dataclass, field, replace
from typing import Any, Final

from cerebri.cpir import MutationKind
from cerebri.cpir.batch import Batch
from cerebri.planner import Action
from cerebri.plans.batch_events import (
    batch_titles,
    created_facts,
    created_uid,
    invitations,
    moved_uids,
)
from cerebri.plans.change_facts import ChangeParty
from cerebri.plans.change_steps import change_steps
from cerebri.plans.draft import Check, InternalSpec, StepSpec
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
    ``uids``: object id of a moved event → its iCalendar ``UID`` (not listed: the object id).
    ``titles``: object id of a created meeting → its own title (``SUMMARY``; a ``titles``
    given to :func:`~cerebri.plans.draft_from_action_plan` is the default for the others).
    ``organizer``: the requester's ``mailto:`` address (``ORGANIZER`` of created events) and
    ``attendees``: object id of a created meeting → its attendees (``ATTENDEE`` lines, an
    iTIP ``REQUEST`` each, a copy delivered into each attendee calendar; decision 0083).
    ``moved_from``: object id of a moved event → its range when planned, as text
    (``[start, end)`` in UTC), named in its owner's approval ("from ... to ...").

    Raises :class:`~cerebri.plans.DraftError` ``draft.invalid_argument`` when a principal is
    not ``principal:<name>`` or a mapping does not map text to text.
    """

    requester: str
    owners: Mapping[str, str] = field(default_factory=dict)
    rooms: Mapping[str, str] = field(default_factory=dict)
    uids: Mapping[str, str] = field(default_factory=dict)
    titles: Mapping[str, str] = field(default_factory=dict)
    organizer: str | None = None
    attendees: Mapping[str, tuple[ChangeParty, ...]] = field(default_factory=dict)
    moved_from: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "requester", _person(self.requester, "the requester"))
        if self.organizer is not None and not isinstance(self.organizer, str):
            raise draft_argument_error("the organizer is a mailto: address or None")
        invited = self.attendees
        if not isinstance(invited, Mapping) or not all(
            isinstance(k, str)
            and isinstance(v, tuple)
            and all(isinstance(p, ChangeParty) for p in v)
            for k, v in invited.items()
        ):
            raise draft_argument_error("attendees maps object ids to tuples of ChangeParty")
        object.__setattr__(self, "attendees", dict(sorted(invited.items())))
        for name in ("owners", "rooms", "uids", "titles", "moved_from"):
            table = getattr(self, name)
            if not isinstance(table, Mapping) or not all(
                isinstance(k, str) and isinstance(v, str) for k, v in table.items()
            ):
                raise draft_argument_error(f"{name} maps text to text")
        owners = {c: _person(p, f"the owner of {c!r}") for c, p in self.owners.items()}
        object.__setattr__(self, "owners", dict(sorted(owners.items())))
        for name in ("rooms", "uids", "titles", "moved_from"):
            object.__setattr__(self, name, dict(sorted(getattr(self, name).items())))

    @classmethod
    def from_batch(
        cls,
        batch: Batch,
        actions: Iterable[Action],
        *,
        requester: str,
        moved_from: Mapping[str, str] | None = None,
    ) -> BatchApprovals:
        """The approvals of an ``OPTIMIZE`` request's ``batch`` (decision 0070) carried out
        as ``actions``: each person owns their calendar (``batch.people[].calendar_id`` →
        ``principal:<person id>``), and each created action with a ``room_id`` is booked in
        that room's calendar (``batch.rooms[].calendar_id``); each moved event's ``UID``,
        each created meeting's title, organizer and attendees
        (:mod:`cerebri.plans.batch_events`). Raises :class:`~cerebri.plans.DraftError`
        ``draft.invalid_argument`` for a ``room_id`` the batch does not list, or as the
        constructor; ``draft.unresolved_event`` for a move of an ``ics-`` object without a
        ``uid`` (refused when proposed, not after the approvals). ``moved_from``: as the
        field (the request's current ranges of the moved events; optional)."""
        actions = tuple(actions)
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
        asker = _person(requester, "the requester")
        organizer, attendees = invitations(batch, actions, asker)
        return cls(
            requester=requester,
            owners=owners,
            rooms=rooms,
            uids=moved_uids(batch, actions),
            titles=dict(batch_titles(batch)),
            organizer=organizer,
            attendees=attendees,
            moved_from=dict(moved_from or {}),
        )

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


def _from(approvals: BatchApprovals, action: Action) -> str:
    """`` from [start, end)`` when the event's range when planned is known, else nothing."""
    seen = approvals.moved_from.get(action.target)
    return "" if seen is None else f" from {seen}"


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
                    f"{owner} approves moving "
                    f"{approvals.uids.get(action.target, action.target)} in their calendar "
                    f"{action.calendar_id}{_from(approvals, action)} to {_span(action)}",
                    after=(BATCH_GATE,),
                    approver=owner,
                )
            )
    after = tuple(g.key for g in gates)
    steps = list(gates)
    for index, action in enumerate(actions):
        if action.kind is MutationKind.CREATE_EVENT:
            effect, verify, *told = _create(index, action, approvals, plan_id)
        else:
            effect, verify = _addressed(write(index, action), approvals.uids.get(action.target))
            told = []
        effect = effect.model_copy(update={"depends_on": after, "require_approval": False})
        steps += [effect, verify]
        room = approvals.rooms.get(action.target)
        if room is not None and action.kind is MutationKind.CREATE_EVENT:
            steps += _room_steps(effect, verify, index, room)
        steps += told
    return steps


def _create(index: int, action: Action, approvals: BatchApprovals, plan_id: str) -> list[StepSpec]:
    """A created meeting's steps as a single create with attendees writes them
    (:func:`~cerebri.plans.change_steps.change_steps`): under its own ``UID``
    (:func:`~cerebri.plans.batch_events.created_uid`), with its title, organizer and
    attendees, then the iTIP messages and the copies in attendee calendars."""
    uid = created_uid(action.target, plan_id)
    facts = created_facts(
        uid,
        approvals.titles.get(action.target),
        approvals.organizer,
        approvals.attendees.get(action.target, ()),
    )
    return change_steps(index, replace(action, target=uid), facts, None)


def _with_uid(check: Check, uid: str) -> Check:
    return check.model_copy(update={"params": {**(check.params or {}), "uid": uid}})


def _addressed(pair: tuple[StepSpec, StepSpec], uid: str | None) -> tuple[StepSpec, StepSpec]:
    """A move's effect and read-back addressing the event by ``uid`` (None: unchanged)."""
    effect, verify = pair
    if uid is None:
        return effect, verify
    assert effect.precondition is not None and verify.verify is not None
    effect = effect.model_copy(
        update={
            "title": f"{effect.title} (UID {uid})",
            "params": {**(effect.params or {}), "uid": uid},
            "precondition": effect.precondition.model_copy(
                update={"check": _with_uid(effect.precondition.check, uid)}
            ),
        }
    )
    verify = verify.model_copy(
        update={
            "verify": verify.verify.model_copy(
                update={"check": _with_uid(verify.verify.check, uid)}
            )
        }
    )
    return effect, verify
