"""An attendee's iTIP ``REPLY`` applied to the organizer's copy of the event (RFC 5546
section 3.2.3; decision 0068).

:func:`reply_messages` reads the ``METHOD:REPLY`` objects of one file: an ``.ics`` file, or
an e-mail (RFC 5322) whose ``text/calendar`` parts carry them (iMIP, RFC 6047), parsed with
the standard library's ``email`` package. :func:`apply_reply` applies one reply to the
organizer's stored calendar object resource and says what it did; it never touches the
input. For each ``VEVENT`` of the reply (the series, or one instance by ``RECURRENCE-ID``):

* the organizer's component with the same ``UID`` and ``RECURRENCE-ID`` is the one answered;
  none: ``itip.reply_unknown_event`` (no such ``UID``) or ``itip.reply_unknown_instance``
  (an instance the organizer has no override for: a reply to one instance updates that
  instance's own component only);
* the reply names exactly one ``ATTENDEE`` (section 3.2.3); it must be one of the
  component's ``ATTENDEE``\\ s (compared as ``mailto:`` addresses without case), else
  ``itip.reply_not_an_attendee``: a stranger cannot add themselves;
* a reply whose ``SEQUENCE`` is below the component's answers a version the organizer has
  since changed (section 2.1.4): it is ignored (``stale``) with that reason; one above it
  answers a version the organizer never wrote: ``itip.reply_sequence_ahead``;
* otherwise the attendee's ``PARTSTAT`` becomes the reply's (``RSVP`` removed: the answer
  came); the same ``PARTSTAT`` already there is ``unchanged``, so applying one reply twice
  writes nothing the second time. The organizer's ``SEQUENCE`` and ``DTSTAMP`` stay as they
  are: a reply is not a change of the event (section 2.1.4).

Errors are :class:`~cerebri.calendars.itip.ItipError` with the codes above, and
``itip.reply_unreadable`` (not iCalendar, no ``METHOD:REPLY``, no ``UID`` or ``ATTENDEE``,
an ``ATTENDEE`` without ``PARTSTAT``, more than one ``ATTENDEE``).
"""

from __future__ import annotations

import copy
import email
from dataclasses import dataclass
from email import policy
from email.message import EmailMessage
from email.utils import getaddresses
from typing import Final

from icalendar import Calendar, Component, vCalAddress

from cerebri.calendars.itip import ItipError

__all__ = [
    "ReplyOutcome",
    "apply_reply",
    "reply_messages",
]

_ANSWERS: Final = frozenset({"ACCEPTED", "DECLINED", "TENTATIVE", "DELEGATED", "NEEDS-ACTION"})
"""The ``PARTSTAT`` values a ``VEVENT`` reply may carry (RFC 5545 3.2.12)."""


@dataclass(frozen=True)
class ReplyOutcome:
    """What one reply component did: ``uid``, ``recurrence_id`` (the ``RECURRENCE-ID`` as
    iCalendar text, ``None`` for the series), ``attendee`` (``mailto:`` lower case),
    ``partstat`` (the answer), ``sequence`` (the reply's), ``outcome`` (``updated``,
    ``unchanged`` or ``stale``) and ``reason`` (words for a person; empty when updated)."""

    uid: str
    recurrence_id: str | None
    attendee: str
    partstat: str
    sequence: int
    outcome: str
    reason: str


def _unreadable(message: str) -> ItipError:
    return ItipError(message, code="itip.reply_unreadable")


def _address(value: object) -> str:
    """A calendar user address as ``mailto:`` lower case (RFC 6047: one mailbox)."""
    text = str(value).strip()
    if text.lower().startswith("mailto:"):
        text = text[7:]
    return f"mailto:{text.lower()}"


def _replies_in(data: bytes, where: str) -> list[Calendar]:
    try:
        calendars = Calendar.from_ical(data, multiple=True)
    except ValueError as error:
        raise _unreadable(f"{where}: not iCalendar ({error})") from None
    found = [c for c in calendars if str(c.get("METHOD", "")).upper() == "REPLY"]
    if not found:
        raise _unreadable(f"{where}: no METHOD:REPLY object (RFC 5546 3.2.3)")
    return found


def reply_messages(data: bytes, where: str) -> tuple[list[Calendar], str | None]:
    """The ``METHOD:REPLY`` objects in ``data`` (the bytes of the file ``where``) and the
    e-mail's ``From`` address (``mailto:`` lower case; ``None`` for an ``.ics`` file). An
    e-mail is recognised by its headers; its ``text/calendar`` parts are read (RFC 6047
    2.4). Raises ``itip.reply_unreadable`` (module doc)."""
    head = data.lstrip()[:15].upper()
    if head.startswith(b"BEGIN:VCALENDAR"):
        return _replies_in(data, where), None
    message = email.message_from_bytes(data, policy=policy.default)
    assert isinstance(message, EmailMessage)
    parts = [p for p in message.walk() if p.get_content_type() == "text/calendar"]
    if not parts:
        raise _unreadable(f"{where}: neither iCalendar nor an e-mail with a text/calendar part")
    found: list[Calendar] = []
    for part in parts:
        payload = part.get_payload(decode=True)
        if isinstance(payload, bytes) and b"REPLY" in payload.upper():
            found += _replies_in(payload, where)
    if not found:
        raise _unreadable(f"{where}: no METHOD:REPLY object in its text/calendar parts")
    senders = getaddresses([str(message.get("From", ""))])
    sender = next((a for _, a in senders if a), None)
    return found, None if sender is None else _address(sender)


def _sequence(component: Component, what: str) -> int:
    try:
        return int(component.get("SEQUENCE", 0))
    except (TypeError, ValueError):
        raise _unreadable(f"{what}: SEQUENCE is not a number") from None


def _rid(component: Component) -> str | None:
    value = component.get("RECURRENCE-ID")
    return None if value is None else value.to_ical().decode()


def _attendees(component: Component) -> list[vCalAddress]:
    value = component.get("ATTENDEE")
    if value is None:
        return []
    return list(value) if isinstance(value, list) else [value]


def _the_replier(component: Component, what: str, sender: str | None) -> tuple[str, str]:
    """The one ``ATTENDEE`` of a reply component and its ``PARTSTAT``."""
    people = _attendees(component)
    if len(people) != 1:
        raise _unreadable(f"{what}: a REPLY names exactly one ATTENDEE, not {len(people)}")
    person = people[0]
    partstat = str(person.params.get("PARTSTAT", "")).upper()
    if partstat not in _ANSWERS:
        raise _unreadable(f"{what}: the ATTENDEE has no PARTSTAT a VEVENT reply may carry")
    address = _address(person)
    if sender is not None:
        allowed = {address}
        if "SENT-BY" in person.params:
            allowed.add(_address(person.params["SENT-BY"]))
        if sender not in allowed:
            raise ItipError(
                f"{what}: sent by {sender}, who is neither the ATTENDEE {address} nor its "
                "SENT-BY (RFC 6047 3)",
                code="itip.reply_sender_mismatch",
            )
    return address, partstat


def _target(stored: Calendar, uid: str, rid: str | None) -> Component:
    same_uid = [c for c in stored.walk("VEVENT") if str(c.get("UID", "")) == uid]
    if not same_uid:
        raise ItipError(
            f"the organizer's calendar has no event {uid!r} to apply this reply to",
            code="itip.reply_unknown_event",
        )
    for component in same_uid:
        if _rid(component) == rid:
            return component
    raise ItipError(
        f"event {uid!r} has no component for instance {rid}: a reply to one instance "
        "updates that instance's own override, and the organizer has none",
        code="itip.reply_unknown_instance",
    )


def apply_reply(
    stored: Calendar, reply: Calendar, *, sender: str | None = None
) -> tuple[Calendar, list[ReplyOutcome]]:
    """``stored`` (the organizer's calendar object resource, unchanged) with ``reply``
    applied, and one outcome per ``VEVENT`` of the reply (module doc). ``sender`` is the
    e-mail's ``From`` (``None``: not checked). The returned calendar is ``stored`` itself
    when nothing changed, else a deep copy.

    Raises:
        ItipError: ``itip.reply_unreadable``, ``itip.reply_unknown_event``,
            ``itip.reply_unknown_instance``, ``itip.reply_not_an_attendee``,
            ``itip.reply_sequence_ahead``, ``itip.reply_sender_mismatch``.
    """
    components = list(reply.walk("VEVENT"))
    if not components:
        raise _unreadable("the REPLY holds no VEVENT")
    result = stored
    outcomes: list[ReplyOutcome] = []
    for component in components:
        uid = str(component.get("UID", "")).strip()
        if not uid:
            raise _unreadable("a VEVENT of the REPLY has no UID")
        rid = _rid(component)
        what = f"reply to {uid!r}" + ("" if rid is None else f" instance {rid}")
        attendee, partstat = _the_replier(component, what, sender)
        sequence = _sequence(component, what)
        target = _target(result, uid, rid)
        known = {_address(a): a for a in _attendees(target)}
        if attendee not in known:
            raise ItipError(
                f"{what}: {attendee} is not among the event's attendees; the reply is refused",
                code="itip.reply_not_an_attendee",
            )
        stored_sequence = _sequence(target, "the organizer's event")
        if sequence > stored_sequence:
            raise ItipError(
                f"{what}: SEQUENCE {sequence} is ahead of the organizer's {stored_sequence}",
                code="itip.reply_sequence_ahead",
            )

        def outcome(kind: str, reason: str = "") -> ReplyOutcome:
            return ReplyOutcome(uid, rid, attendee, partstat, sequence, kind, reason)  # noqa: B023

        if sequence < stored_sequence:
            outcomes.append(
                outcome(
                    "stale",
                    f"answers SEQUENCE {sequence}, and the event has changed since (now "
                    f"{stored_sequence}): ignored (RFC 5546 2.1.4)",
                )
            )
            continue
        line = known[attendee]
        if str(line.params.get("PARTSTAT", "NEEDS-ACTION")).upper() == partstat:
            outcomes.append(outcome("unchanged", f"{attendee} already {partstat}"))
            continue
        if result is stored:
            result = copy.deepcopy(stored)
            target = _target(result, uid, rid)
            line = {_address(a): a for a in _attendees(target)}[attendee]
        line.params["PARTSTAT"] = partstat
        line.params.pop("RSVP", None)
        outcomes.append(outcome("updated"))
    return result, outcomes
