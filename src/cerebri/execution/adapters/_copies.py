"""An attendee's copy of the organizer's event, as a scheduling server makes it (decision 0057).

RFC 6638 sections 3.2 and 4: a server that schedules delivers the organizer's event into each
attendee's calendar; the attendee's copy holds the components that name the attendee, with
their own participation status. :func:`mirror` computes that copy from the organizer's
stored calendar object resource (RFC 4791 4.1) and the attendee's current copy (or none):

* the ``VEVENT``\\ s whose ``ATTENDEE`` lines name the attendee (compared as lower-case
  ``mailto:`` addresses), deep copies with cerebri's own ``X-CEREBRI-*`` properties left out;
  when the master names them and an override does not (they were removed from that one
  instance), the override is left out and its ``RECURRENCE-ID`` becomes an ``EXDATE`` of the
  copy's master (RFC 5545 3.8.5.1); when only overrides name them, the copy holds only those
  (RFC 6638 3.2.6 lets a server deliver single instances);
* the attendee's own ``ATTENDEE`` line keeps the ``PARTSTAT`` of their current copy: that of
  the component with the same ``RECURRENCE-ID``, else of their copy's master (their answer to
  the series), else the organizer's (``NEEDS-ACTION`` for an attendee just added, RFC 5546
  3.2.2); but a component that reschedules what their copy holds
  (:func:`cerebri.calendars.changes.reschedules`, RFC 6638 3.2.8) takes the organizer's line,
  which the change set back to ``NEEDS-ACTION`` (decision 0073): their answer was to the old
  time;
* every ``VTIMEZONE`` of the organizer's resource, under ``PRODID`` :data:`COPY_PRODID`;
* ``None`` when no component names the attendee (removed, or never invited): the copy is to
  be deleted.

:func:`same_events` compares two copies by their ``VEVENT`` properties, so a delivery that
would write what is already there writes nothing. :class:`StoredCopy` is what an adapter's
``read_copy`` answers.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from icalendar import Calendar, Component, Event

from cerebri.calendars.changes import reschedules
from cerebri.errors import CerebriError

__all__ = [
    "COPY_PRODID",
    "StoredCopy",
    "highest_sequence",
    "mirror",
    "normal_address",
    "same_events",
]

COPY_PRODID: Final = "-//cerebri//attendee copy//EN"
"""``PRODID`` of a copy cerebri delivers into an attendee's calendar."""
_OWN_PREFIX: Final = "X-CEREBRI-"


@dataclass(frozen=True, slots=True)
class StoredCopy:
    """An event's calendar object resource as stored in an attendee's calendar: its content,
    its ``ETag`` (the server's, or for an ``.ics`` file the digest
    :func:`cerebri.calendars.changes.resource_etag`; ``None`` when the server gave none) and
    where it lives (the resource URL, or the file)."""

    calendar: Calendar
    etag: str | None
    where: str


def normal_address(address: str) -> str:
    """``address`` lower case with a ``mailto:`` prefix: one mailbox, however spelt."""
    text = address.strip()
    if text[:7].lower() == "mailto:":
        text = text[7:]
    return "mailto:" + text.lower()


def _events(calendar: Calendar) -> list[Component]:
    return [c for c in calendar.subcomponents if c.name == "VEVENT"]


def _attendee_lines(event: Component) -> list[object]:
    found = event.get("ATTENDEE")
    if found is None:
        return []
    return list(found) if isinstance(found, list) else [found]


def _names(event: Component, key: str) -> bool:
    return any(normal_address(str(line)) == key for line in _attendee_lines(event))


def _rid(event: Component) -> str | None:
    """The ``RECURRENCE-ID`` as its iCalendar text (``None`` for a master)."""
    found = event.get("RECURRENCE-ID")
    return None if found is None else found.to_ical().decode("utf-8")


def highest_sequence(calendar: Calendar) -> int:
    """The highest ``SEQUENCE`` of the ``VEVENT``\\ s of ``calendar`` (0 when none has one;
    RFC 5545 3.8.7.4)."""
    values = [int(e.get("SEQUENCE", 0)) for e in _events(calendar)]
    return max(values, default=0)


def _partstats(existing: Calendar | None, key: str) -> dict[str | None, str]:
    """``RECURRENCE-ID`` text (``None``: the master) -> the attendee's ``PARTSTAT`` in their
    current copy."""
    found: dict[str | None, str] = {}
    for event in [] if existing is None else _events(existing):
        for line in _attendee_lines(event):
            params = getattr(line, "params", {})
            if normal_address(str(line)) == key and "PARTSTAT" in params:
                found[_rid(event)] = str(params["PARTSTAT"])
    return found


def _cleaned(event: Component) -> Component:
    kept = copy.deepcopy(event)
    for name in [k for k in kept if str(k).upper().startswith(_OWN_PREFIX)]:
        del kept[name]
    return kept


def _keep_partstat(
    event: Component, key: str, answers: dict[str | None, str], existing: Calendar | None
) -> None:
    answer = answers.get(_rid(event), answers.get(None))
    if answer is None or _moved(event, existing):
        return
    for line in _attendee_lines(event):
        if normal_address(str(line)) == key:
            line.params["PARTSTAT"] = answer  # type: ignore[attr-defined]


def _moved(event: Component, existing: Calendar | None) -> bool:
    """Whether ``event`` reschedules the attendee's current copy (an unreadable one counts as
    moved: the organizer's line is then taken)."""
    if not isinstance(event, Event):
        return True
    try:
        return reschedules(event, existing)
    except CerebriError:
        return True


def mirror(source: Calendar, attendee: str, existing: Calendar | None) -> Calendar | None:
    """The copy of the organizer's resource ``source`` for ``attendee`` (``mailto:``
    address), keeping their ``PARTSTAT`` from ``existing`` (their current copy or ``None``);
    ``None`` when no component names them (module doc). ``source`` is not changed."""
    key = normal_address(attendee)
    events = _events(source)
    listed = [e for e in events if _names(e, key)]
    if not listed:
        return None
    master = next((e for e in listed if "RECURRENCE-ID" not in e), None)
    chosen = [_cleaned(e) for e in listed]
    if master is not None:
        copied_master = next(e for e in chosen if "RECURRENCE-ID" not in e)
        for left_out in (e for e in events if "RECURRENCE-ID" in e and not _names(e, key)):
            copied_master.add("EXDATE", left_out.decoded("RECURRENCE-ID"))
    answers = _partstats(existing, key)
    result = Calendar()
    result.add("PRODID", COPY_PRODID)
    result.add("VERSION", "2.0")
    for component in source.subcomponents:
        if component.name == "VTIMEZONE":
            result.add_component(copy.deepcopy(component))
    for event in chosen:
        _keep_partstat(event, key, answers, existing)
        result.add_component(event)
    return result


def _shape(event: Component) -> tuple[tuple[str, bytes, tuple[tuple[str, str], ...]], ...]:
    """Every property of ``event`` as (name, value text, sorted parameters): independent of
    line folding, property order and parameter order."""
    rows: list[tuple[str, bytes, tuple[tuple[str, str], ...]]] = []
    for name, value in event.property_items(recursive=False):
        if name in ("BEGIN", "END"):
            continue
        values: Iterable[object] = value if isinstance(value, list) else [value]
        for one in values:
            params = getattr(one, "params", {})
            text = one.to_ical() if hasattr(one, "to_ical") else str(one).encode("utf-8")
            shown = tuple(sorted((str(k).upper(), str(v)) for k, v in params.items()))
            rows.append((name.upper(), text if isinstance(text, bytes) else text.encode(), shown))
    return tuple(sorted(rows))


def same_events(first: Calendar, second: Calendar) -> bool:
    """Whether the two resources hold the same ``VEVENT``\\ s, property by property (the
    ``VTIMEZONE``\\ s and calendar properties are not compared)."""
    return sorted(_shape(e) for e in _events(first)) == sorted(_shape(e) for e in _events(second))
