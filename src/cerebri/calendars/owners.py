"""Whose calendar is this? The owner's address, for the attendees of a found slot.

RFC 5545 has no "owner" property on ``VCALENDAR``, so :func:`calendar_owner` looks, in
this order, and stops at the first place that names exactly one address
(docs/decisions/0028-an-event-out.md):

1. the ``ORGANIZER`` of the calendar's ``VFREEBUSY`` and ``VAVAILABILITY`` components: both
   describe the time of the calendar user they name (RFC 5545 section 3.6.4, RFC 7953
   section 3.1);
2. calendar-level properties that hold an address: ``ORGANIZER`` (not in RFC 5545 but
   written by some exporters), or ``X-WR-CALNAME``/``NAME`` when the name is an e-mail
   address (Google names an account's main calendar after the account);
3. the events: the one address that is the ``ORGANIZER`` or an ``ATTENDEE`` of every
   ``VEVENT`` naming anybody (the owner is on each of their own meetings).

A place naming several different addresses is ambiguous and skipped. Addresses are
compared case-insensitively and returned as ``Name <a@b>`` when a ``CN`` is known, else
``a@b``. Nothing is guessed beyond that: no owner is ``None``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from email.utils import formataddr

from icalendar import Component

from cerebri._guard import arguments
from cerebri.calendars.arguments import invalid_argument, named_calendar_items

__all__ = ["calendar_owner", "calendar_owners", "invitation_people"]


def _addresses(value: object) -> list[tuple[str, str]]:
    """``(email, display)`` of each ``mailto:`` address in a property value (or list)."""
    values = value if isinstance(value, list) else [value]
    found: list[tuple[str, str]] = []
    for item in values:
        text = str(item).strip()
        if text[:7].lower() == "mailto:":
            text = text[7:]
        if "@" not in text or any(c.isspace() for c in text) or text.startswith("@"):
            continue
        params = getattr(item, "params", {})
        name = str(params.get("CN", "")).strip()
        found.append((text.lower(), formataddr((name, text)) if name else text))
    return found


def _single(found: Iterable[tuple[str, str]]) -> str | None:
    """The display form when ``found`` holds exactly one distinct address, else None.
    The first display form with a name wins (deterministic: document order)."""
    by_email: dict[str, str] = {}
    for email, display in found:
        known = by_email.get(email)
        if known is None or ("<" in display and "<" not in known):
            by_email[email] = display
    if len(by_email) != 1:
        return None
    return next(iter(by_email.values()))


def _from_components(calendar: Component) -> str | None:
    found: list[tuple[str, str]] = []
    for component in calendar.walk():
        if component.name in ("VFREEBUSY", "VAVAILABILITY") and "ORGANIZER" in component:
            found.extend(_addresses(component["ORGANIZER"]))
    return _single(found)


def _from_calendar(calendar: Component) -> str | None:
    found: list[tuple[str, str]] = []
    for name in ("ORGANIZER", "X-WR-CALNAME", "NAME"):
        if name in calendar:
            found.extend(_addresses(calendar[name]))
    return _single(found)


def _from_events(calendar: Component) -> str | None:
    common: dict[str, str] | None = None
    for event in calendar.walk("VEVENT"):
        people = [
            *_addresses(event.get("ORGANIZER", [])),
            *_addresses(event.get("ATTENDEE", [])),
        ]
        if not people:
            continue
        here = dict(reversed(people))  # first display form of each address wins
        if common is None:
            common = here
        else:
            common = {email: common[email] for email in common if email in here}
    if not common:
        return None
    return _single(common.items())


@arguments(invalid_argument, calendar=Component)
def calendar_owner(calendar: Component) -> str | None:
    """The owner's address of a parsed ``VCALENDAR`` (see the module doc), or None.

    Raises ``calendars.invalid_argument`` unless ``calendar`` is an icalendar Component.
    """
    for look in (_from_components, _from_calendar, _from_events):
        owner = look(calendar)
        if owner is not None:
            return owner
    return None


def calendar_owners(calendars: Sequence[tuple[str, Component]]) -> dict[str, str]:
    """``{calendar id: owner}`` for the ``(id, calendar)`` pairs whose owner is known, in
    the order given; a repeated id keeps its first owner.

    Raises ``calendars.invalid_argument`` unless ``calendars`` holds ``(str, Component)``.
    """
    owners: dict[str, str] = {}
    for name, calendar in named_calendar_items(calendars, "calendar_owners() calendars"):
        owner = calendar_owner(calendar)
        if owner is not None and name not in owners:
            owners[name] = owner
    return owners


def invitation_people(
    calendars: Sequence[tuple[str, Component]],
    *,
    calendar: str | None = None,
    organizer: str | None = None,
    attendees: Sequence[str] = (),
) -> tuple[str | None, list[str]]:
    """``(organizer, attendees)`` of the invitation for a slot found over ``calendars``
    (``(id, calendar)`` pairs, required attendees first), the rules of ``find-slot
    --ics-out`` and ``POST /v1/find-slot/event`` (docs/decisions/0028-an-event-out.md):

    * the organizer is ``organizer`` when given, else the owner of calendar id
      ``calendar``, else the first known owner, else None;
    * the attendees are the known owners in the order of ``calendars``, then
      ``attendees``; :func:`cerebri.calendars.slot_event` drops duplicates and the
      organizer.

    Raises ``calendars.invalid_argument`` unless ``calendars`` holds ``(str, Component)``.
    """
    owners = calendar_owners(calendars)
    chosen = owners.get(calendar) if calendar is not None else None
    boss = organizer or chosen or next(iter(owners.values()), None)
    return boss, [*owners.values(), *attendees]
