"""``ORGANIZER`` and ``ATTENDEE`` lines for :mod:`cerebri.calendars.changes` (RFC 5545
sections 3.8.4.1 and 3.8.4.3, parameters of section 3.2; RFC 5546 section 3.2.2), with the
address checks of :mod:`cerebri.calendars.itip`."""

from __future__ import annotations

from collections.abc import Sequence

from icalendar import Component, vCalAddress

from cerebri.calendars._change_model import ChangeError, Participant
from cerebri.calendars.event_out import _address, _email
from cerebri.errors import InvalidArgumentError

__all__ = [
    "attendees_of",
    "check_people",
    "email",
    "organizer_of",
    "recipients",
    "stamp_people",
    "without_organizer",
]


def email(address: str) -> str:
    """The bare lower-case address of ``mailto:a@b``, ``a@b`` or ``Name <a@b>``;
    ``change.bad_address`` when it is not ``name@domain``."""
    return _email(_line(address, "address"))


def _line(text: str, what: str) -> vCalAddress:
    try:
        return _address(text, what)
    except InvalidArgumentError as error:
        raise ChangeError(error.message, code="change.bad_address") from None


def _lines(event: Component, name: str) -> list[vCalAddress]:
    value = event.get(name)
    if value is None:
        return []
    return [item for item in (value if isinstance(value, list) else [value])]


def organizer_of(event: Component) -> str | None:
    """The ``ORGANIZER`` of ``event`` as written, or ``None``."""
    lines = _lines(event, "ORGANIZER")
    return str(lines[0]) if lines else None


def _participant(line: vCalAddress) -> Participant:
    name = line.params.get("CN")
    role = str(line.params.get("ROLE", "REQ-PARTICIPANT")).upper()
    return Participant(str(line), None if name is None else str(name), role != "OPT-PARTICIPANT")


def attendees_of(event: Component) -> tuple[Participant, ...]:
    """The ``ATTENDEE`` lines of ``event`` in the order written (``ROLE`` other than
    ``OPT-PARTICIPANT`` counts as required; RFC 5545 section 3.2.16 makes
    ``REQ-PARTICIPANT`` the default)."""
    return tuple(_participant(line) for line in _lines(event, "ATTENDEE"))


def _old_lines(event: Component) -> dict[str, vCalAddress]:
    """The ``ATTENDEE`` lines of ``event`` by bare lower-case address (an unreadable line
    keeps nothing)."""
    out: dict[str, vCalAddress] = {}
    for line in _lines(event, "ATTENDEE"):
        try:
            out[_email(line)] = line
        except (TypeError, ValueError):
            continue
    return out


def _kept_line(person: Participant, old: vCalAddress, *, organizer: bool = False) -> vCalAddress:
    """The line of an attendee who stays: every parameter they had (``PARTSTAT``, ``CN``,
    ``ROLE=CHAIR``, ``DELEGATED-FROM``...) kept; ``ROLE`` rewritten only when they move
    between required and optional, ``CN`` and ``CUTYPE=INDIVIDUAL`` added when missing,
    ``RSVP=TRUE`` (RFC 5546 section 3.2.2: the organizer asks for a reply to the change),
    except on the ``organizer``'s own line (they answer no one; decision 0073)."""
    line = _line(person.address, "attendee")
    for name, value in old.params.items():
        line.params[name] = value
    role = str(old.params.get("ROLE", "REQ-PARTICIPANT")).upper()
    if (role != "OPT-PARTICIPANT") != person.required:  # read as _participant reads it
        line.params["ROLE"] = "REQ-PARTICIPANT" if person.required else "OPT-PARTICIPANT"
    if person.name is not None and "CN" not in line.params:
        line.params["CN"] = person.name
    line.params.setdefault("CUTYPE", "INDIVIDUAL")
    if not organizer:
        line.params["RSVP"] = "TRUE"  # a change asks every attendee to answer again
    return line


def _attendee_line(person: Participant, partstat: str) -> vCalAddress:
    if not isinstance(person, Participant):
        raise ChangeError("attendees must be Participant values", code="change.invalid")
    line = _line(person.address, "attendee")
    if person.name is not None:
        line.params["CN"] = person.name
    line.params["CUTYPE"] = "INDIVIDUAL"
    line.params["ROLE"] = "REQ-PARTICIPANT" if person.required else "OPT-PARTICIPANT"
    line.params["PARTSTAT"] = partstat
    line.params["RSVP"] = "TRUE"
    return line


def check_people(organizer: str | None, attendees: Sequence[Participant] | None) -> None:
    """Refuse bad addresses (``change.bad_address``) and an attendee named twice
    (``change.duplicate_attendee``) before anything is built."""
    if organizer is not None:
        _line(organizer, "organizer")
    seen: set[str] = set()
    for person in attendees or ():
        if not isinstance(person, Participant):
            raise ChangeError("attendees must be Participant values", code="change.invalid")
        key = _email(_line(person.address, "attendee"))
        if key in seen:
            raise ChangeError(
                f"attendee {key!r} is named more than once", code="change.duplicate_attendee"
            )
        seen.add(key)


def stamp_people(
    event: Component, organizer: str | None, attendees: Sequence[Participant] | None
) -> None:
    """Write ``ORGANIZER`` (when given) and the ``ATTENDEE`` list (when given) on ``event``:
    a new attendee gets ``CUTYPE=INDIVIDUAL``, ``ROLE``, ``PARTSTAT=NEEDS-ACTION``,
    ``RSVP=TRUE`` and ``CN`` when named; one who stays keeps the line's parameters as
    written (:func:`_kept_line`). The same organizer keeps its line (its ``CN``)."""
    if organizer is not None:
        had = _lines(event, "ORGANIZER")
        same = bool(had) and _safe_key(str(had[0])) == _safe_key(organizer)
        if not same:  # the same organizer keeps the line as written (its CN...)
            event.pop("ORGANIZER", None)
            event.add("ORGANIZER", _line(organizer, "organizer"))
    if attendees is None:
        return
    kept = _old_lines(event)
    boss = _safe_key(organizer_of(event) or "")
    event.pop("ATTENDEE", None)
    for person in attendees:
        key = _email(_line(person.address, "attendee"))
        old = kept.get(key)
        event.add(
            "ATTENDEE",
            _attendee_line(person, "NEEDS-ACTION")
            if old is None
            else _kept_line(person, old, organizer=key == boss),
        )


def without_organizer(
    people: Sequence[Participant], organizer: str | None
) -> tuple[Participant, ...]:
    """``people`` less the ``organizer`` (who sends, and is not told)."""
    boss = None if organizer is None else _safe_key(organizer)
    return tuple(person for person in people if _safe_key(person.address) != boss)


def recipients(event: Component, organizer: str | None = None) -> tuple[Participant, ...]:
    """The attendees of ``event`` to tell about a change, the organizer (``organizer``, else
    the event's ``ORGANIZER``) left out."""
    return without_organizer(
        attendees_of(event), organizer if organizer is not None else organizer_of(event)
    )


def _safe_key(address: str) -> str | None:
    try:
        return email(address)
    except ChangeError:
        return None
