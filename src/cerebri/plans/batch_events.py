"""What each event of an optimised batch is, beyond its range (decision 0083).

A CPIR object id is not an iCalendar ``UID``: ``cerebri reschedule --emit-request`` names an
event ``ics-<digest>`` (:mod:`cerebri.ics.ids`), and a ``UID`` such as ``x@example.org`` is
no CPIR id. So a batch carries each moved event's ``UID`` (``batch.meetings[].uid``) and
gives each created event its own (:func:`created_uid`), and a created meeting's title,
organizer and attendees come from the batch too (``batch.meetings[].title``,
``batch.people[].address``).

:func:`created_facts` describes a created meeting as a request's ``change`` describes a
single create (:class:`~cerebri.plans.change_facts.ChangeFacts`), so that
:func:`~cerebri.plans.change_steps.change_steps` writes the same steps for it as for one
meeting: the create with ``ORGANIZER``/``ATTENDEE`` lines, its read-back, one iTIP
``REQUEST`` per attendee and the delivery into each attendee's calendar (decisions 0056,
0057).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from typing import Final

from cerebri.cpir import MutationKind
from cerebri.cpir.batch import Batch
from cerebri.ics.ids import ID_PREFIX
from cerebri.planner import Action
from cerebri.plans.change_facts import ChangeFacts, ChangeParty
from cerebri.plans.report import DraftError

__all__ = [
    "UID_DOMAIN",
    "batch_titles",
    "created_facts",
    "created_uid",
    "invitations",
    "moved_uids",
]

UID_DOMAIN: Final = "cerebri"
"""The right-hand side of the ``UID`` of a created event."""


def created_uid(object_id: str, plan_id: str) -> str:
    """The ``UID`` of the event a batch creates for meeting ``object_id``:
    ``<object_id>-<12 hex digits of SHA-256 of plan_id>@cerebri``. ``plan_id`` is a content
    hash of the request and its placements, so the ``UID`` is the same on every replay and
    every plan revision, and differs between two batches that both place a meeting ``m1``
    (RFC 5545 3.8.4.7 asks for a globally unique ``UID``)."""
    digest = hashlib.sha256(plan_id.encode("utf-8")).hexdigest()[:12]
    return f"{object_id}-{digest}@{UID_DOMAIN}"


def moved_uids(batch: Batch, actions: Iterable[Action]) -> dict[str, str]:
    """Object id → ``UID`` of each event ``actions`` move whose meeting gives a ``uid``
    other than its object id; a move not listed addresses its object id as the ``UID``,
    which an ``ics-`` id (a digest) never is.

    Raises:
        DraftError: ``draft.unresolved_event`` for a move of an ``ics-`` object whose
            meeting gives no ``uid``: the move could not name the event it changes.
    """
    given = {m.object_id: m.uid for m in batch.meetings}
    uids: dict[str, str] = {}
    for action in actions:
        if action.kind is not MutationKind.MOVE_EVENT:
            continue
        uid = given.get(action.target)
        if uid is None and action.target.startswith(ID_PREFIX):
            raise DraftError(
                f"action {action.id} moves {action.target}, a CPIR id made from an event, "
                "not its UID; give the event's UID as batch.meetings[].uid (the change.uid "
                "of `cerebri reschedule --emit-request`)",
                code="draft.unresolved_event",
            )
        if uid is not None and uid != action.target:
            uids[action.target] = uid
    return uids


def invitations(
    batch: Batch, actions: Iterable[Action], requester: str
) -> tuple[str | None, dict[str, tuple[ChangeParty, ...]]]:
    """The organizer's address (the requester's ``batch.people[].address``, the person id
    being the principal's name) and, per created meeting, its attendees with an address
    (required, then optional; each with their calendar), sorted by address. Without an
    organizer address no meeting gets attendees: an iTIP ``REQUEST`` needs an organizer
    (RFC 5546 3.2.2)."""
    people = {p.id: p for p in batch.people}
    me = people.get(requester.removeprefix("principal:"))
    organizer = None if me is None else me.address
    meetings = {m.object_id: m for m in batch.meetings}
    invites: dict[str, tuple[ChangeParty, ...]] = {}
    for action in actions:
        meeting = meetings.get(action.target)
        if action.kind is not MutationKind.CREATE_EVENT or meeting is None or organizer is None:
            continue
        parties: dict[str, ChangeParty] = {}
        roles = [(i, True) for i in meeting.required] + [(i, False) for i in meeting.optional]
        for person_id, required in roles:
            person = people.get(person_id)
            if person is None or person.address is None:
                continue
            party = ChangeParty(person.address, None, required, person.calendar_id)
            parties.setdefault(party.key, party)
        if parties:
            invites[action.target] = tuple(parties[k] for k in sorted(parties))
    return organizer, invites


def created_facts(
    uid: str,
    title: str | None,
    organizer: str | None,
    attendees: tuple[ChangeParty, ...],
) -> ChangeFacts:
    """A created meeting as a single create's ``change``: ``uid``, ``SEQUENCE`` 0, its
    ``title``, and ``organizer``/``attendees`` (none when there is no organizer)."""
    told = attendees if organizer is not None and attendees else None
    return ChangeFacts(
        uid=uid,
        scope="SERIES",
        recurrence_id=None,
        etag=None,
        sequence=0,
        title=title,
        location=None,
        organizer=None if told is None else organizer,
        attendees=told,
    )


def batch_titles(batch: Batch) -> Mapping[str, str]:
    """Object id → the meeting's own title, for the meetings that have one (not blank)."""
    return {m.object_id: m.title for m in batch.meetings if m.title and m.title.strip()}
