"""``ORGANIZER`` and ``ATTENDEE`` on an event a create writes (issue #23, decision 0051).

:func:`stamp_people` adds the organizer (RFC 5545 3.8.4.3) and one ``ATTENDEE`` per
participant (RFC 5545 3.8.4.1) as RFC 5546 3.2.2 expects them on an invitation:
``CUTYPE=INDIVIDUAL``, ``ROLE=REQ-PARTICIPANT`` (required) or ``OPT-PARTICIPANT``,
``PARTSTAT=NEEDS-ACTION``, ``RSVP=TRUE``, ``CN`` when a name is known, the address as
``mailto:`` plus the bare e-mail address (lower case), as :mod:`cerebri.calendars.itip`
writes them. Changes to existing events stamp them in
:func:`cerebri.calendars.changes.apply_change`.
"""

from __future__ import annotations

from collections.abc import Sequence
from email.utils import parseaddr

from icalendar import Component, vCalAddress

from cerebri.calendars.changes import Participant
from cerebri.execution.adapters.base import AdapterError

__all__ = ["stamp_people"]


def _address(text: str, what: str, name: str | None = None) -> vCalAddress:
    """``a@b``, ``mailto:a@b`` or ``Name <a@b>`` as a ``mailto:`` address with ``CN``
    (``change.bad_address`` when it is not ``local@domain``)."""
    shown, email = parseaddr(text.removeprefix("mailto:").removeprefix("MAILTO:"))
    local, at, domain = email.partition("@")
    if not (local and at and domain) or any(not ch.isprintable() or ch.isspace() for ch in email):
        raise AdapterError(
            f"the {what} {text!r} is not an e-mail address (local@domain); nothing was written",
            code="change.bad_address",
            before_effect=True,
        )
    address = vCalAddress(f"mailto:{email.lower()}")
    common_name = name or shown
    if common_name:
        address.params["CN"] = common_name
    return address


def stamp_people(
    event: Component, organizer: str | None, attendees: Sequence[Participant] | None
) -> None:
    """Add ``ORGANIZER`` and ``ATTENDEE`` lines to ``event`` (changed in place; module doc).

    Raises:
        AdapterError: before anything is written, with the codes
            :func:`cerebri.calendars.changes.apply_change` uses: ``change.bad_address`` (an
            address that is not ``local@domain``), ``change.duplicate_attendee`` (an
            attendee named twice).
    """
    if organizer is not None:
        event.add("organizer", _address(organizer, "organizer"))
    seen: set[str] = set()
    for person in attendees or ():
        address = _address(person.address, "attendee", person.name)
        if str(address) in seen:
            raise AdapterError(
                f"the attendee {str(address)!r} is named more than once; nothing was written",
                code="change.duplicate_attendee",
                before_effect=True,
            )
        seen.add(str(address))
        address.params["CUTYPE"] = "INDIVIDUAL"
        address.params["ROLE"] = "REQ-PARTICIPANT" if person.required else "OPT-PARTICIPANT"
        address.params["PARTSTAT"] = "NEEDS-ACTION"
        address.params["RSVP"] = "TRUE"
        event.add("attendee", address)
