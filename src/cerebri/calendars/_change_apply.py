"""The edits behind :func:`cerebri.calendars.changes.apply_change`: one instance (an override
or an ``EXDATE``), the whole series (shifted in its own zone), and a split at an instance
(decision 0050). Everything here works on copies; see :mod:`cerebri.calendars.changes` for
the rules and the RFC sections."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any, Final, Literal

from icalendar import Calendar, Component, Event

from cerebri.calendars._change_answers import ask_again, asks_again
from cerebri.calendars._change_clock import exact_span_end, instance_wall, time_value
from cerebri.calendars._change_model import (
    IDEMPOTENCY_PROPERTY,
    ChangeError,
    ChangeNotice,
    ChangeOutcome,
    EventChange,
    Participant,
)
from cerebri.calendars._change_people import (
    email,
    organizer_of,
    recipients,
    stamp_people,
    without_organizer,
)
from cerebri.calendars._change_series import Series, sequence_of, span_of
from cerebri.calendars._change_times import (
    Kind,
    instant_of,
    rule_of,
    shift_rule,
    until_before,
    value_list,
)
from cerebri.temporal import Instant

__all__ = [
    "Edit",
    "cancel_future",
    "cancel_instance",
    "cancel_series",
    "change_instance",
    "change_series",
    "highest_sequence",
    "split",
    "trim",
]

_SERIES_ONLY: Final = ("RRULE", "RDATE", "EXDATE", "EXRULE", "RECURRENCE-ID")
_TIMES: Final = ("DTSTART", "DTEND", "DURATION")


@dataclass
class Edit:
    """One change being built: the resource copy, its series, the change, ``stamp``;
    ``before`` is the series as read (never modified: what :meth:`answers` compares)."""

    calendar: Calendar
    series: Series
    change: EventChange
    stamp: datetime
    before: Series
    writes: list[tuple[str, Calendar | None]] = field(default_factory=list)
    notices: list[ChangeNotice] = field(default_factory=list)

    @property
    def kind(self) -> Kind:
        """The series' time kind."""
        return self.series.kind

    def outcome(self, sequence: int, new_uid: str | None = None) -> ChangeOutcome:
        """The :class:`ChangeOutcome` built so far."""
        return ChangeOutcome(tuple(self.writes), tuple(self.notices), sequence, new_uid)

    def touch(self, event: Component, sequence: int) -> None:
        """``SEQUENCE``, ``DTSTAMP``, ``LAST-MODIFIED`` and the idempotency key of a
        written component (RFC 5545 sections 3.8.7.2-3.8.7.4)."""
        for name, value in (
            ("SEQUENCE", sequence),
            ("DTSTAMP", self.stamp),
            ("LAST-MODIFIED", self.stamp),
            (IDEMPOTENCY_PROPERTY, self.change.idempotency_key),
        ):
            event.pop(name, None)
            event.add(name, value)

    def answers(self, event: Component, at: Instant | None) -> None:
        """Ask ``event``'s attendees again when it moves the instance(s) at ``at`` (``None``:
        the master) away from where :attr:`before` had them (decision 0073)."""
        if asks_again(event, self.before, at):
            ask_again(event)

    def new_range(self) -> tuple[datetime, datetime] | None:
        """The change's new range as wall times in the series' frame (``None`` without
        one); ``change.not_whole_days`` for an all-day series at times that are not
        midnights."""
        change = self.change
        if change.start is None or change.end is None:
            return None
        start, end = self.kind.wall_of(change.start), self.kind.wall_of(change.end)
        if self.kind.all_day and (
            start.time() != datetime.min.time() or end.time() != start.time()
        ):
            raise ChangeError(
                f"an all-day event lasts whole days: {start:%Y-%m-%d %H:%M} to "
                f"{end:%Y-%m-%d %H:%M} in {self.kind.floating_zone} are not local midnights",
                code="change.not_whole_days",
            )
        return start, end

    def people(self, event: Component) -> list[Participant]:
        """Stamp the change's organizer, attendees, title and location (update) on ``event``;
        the attendees it removed."""
        change = self.change
        before = recipients(event)
        if change.action == "update":
            for name, value in (("SUMMARY", change.title), ("LOCATION", change.location)):
                if value is not None:
                    event.pop(name, None)
                    event.add(name, value)
        stamp_people(event, change.organizer, change.attendees)
        if change.attendees is None:
            return []
        kept = {email(person.address) for person in change.attendees}
        return [person for person in before if email(person.address) not in kept]

    def notify(
        self,
        uid: str,
        recurrence_id: Instant | None,
        method: Literal["REQUEST", "CANCEL"],
        sequence: int,
        *,
        event: Component,
        removed: tuple[Participant, ...] = (),
    ) -> None:
        """Record the notices of one written (or cancelled) component: a ``REQUEST`` to its
        attendees, a ``CANCEL`` to the change's attendees when it names them (else the
        component's), and a ``CANCEL`` to the attendees an update removed."""
        organizer = self.change.organizer
        if method == "CANCEL" and self.change.attendees is not None:
            people = without_organizer(self.change.attendees, organizer or organizer_of(event))
        else:
            people = recipients(event, organizer)
        self.notices.append(ChangeNotice(uid, recurrence_id, method, sequence, people))
        if removed:
            self.notices.append(ChangeNotice(uid, recurrence_id, "CANCEL", sequence, removed))


def set_span(event: Component, kind: Kind, start: datetime, end: datetime) -> None:
    """New ``DTSTART`` and end of ``event`` (wall times), written in the series' kind; a
    ``DURATION`` stays a ``DURATION`` (exact seconds, or days for an all-day event)."""
    with_duration = "DURATION" in event
    for name in _TIMES:
        event.pop(name, None)
    event.add("DTSTART", kind.value(start))
    if not with_duration:
        event.add("DTEND", kind.value(end))
    elif kind.all_day:
        event.add("DURATION", timedelta(days=(end.date() - start.date()).days))
    else:
        seconds = (kind.instant(end) - kind.instant(start)) // 1_000_000_000
        event.add("DURATION", timedelta(seconds=seconds))


def _values(event: Component, name: str) -> list[Any]:
    return value_list(event, name)


def _start_of(value: Any) -> date | datetime:
    start = value[0] if isinstance(value, tuple) else value
    if not isinstance(start, date):
        raise ChangeError(f"unreadable date value {value!r}", code="change.bad_event")
    return start


def set_values(event: Component, name: str, values: list[Any]) -> None:
    """Replace every ``name`` line (``EXDATE``/``RDATE``) of ``event`` by one with
    ``values`` (none when empty)."""
    event.pop(name, None)
    if values:
        event.add(name, values)


def _shifted(value: Any, kind: Kind, delta: timedelta) -> Any:
    """A date, time or ``RDATE`` period moved by the wall time ``delta``, in ``kind``."""
    if isinstance(value, tuple):
        start, end = value
        moved_end = end if isinstance(end, timedelta) else kind.value(kind.wall(end) + delta)
        return (kind.value(kind.wall(start) + delta), moved_end)
    return kind.value(kind.wall(value) + delta)


def _split_values(
    event: Component, name: str, series: Series, at: Instant
) -> tuple[list[Any], list[Any]]:
    """The ``name`` values of ``event`` before ``at`` and from ``at`` on."""
    zone = series.kind.floating_zone
    values = _values(event, name)
    before = [value for value in values if instant_of(_start_of(value), zone) < at]
    after = [value for value in values if instant_of(_start_of(value), zone) >= at]
    return before, after


def _replace(calendar: Calendar, old: Sequence[Component], new: Sequence[Component]) -> None:
    calendar.subcomponents = [
        component for component in calendar.subcomponents if all(component is not o for o in old)
    ]
    for component in new:
        calendar.add_component(component)


def _override_from(master: Component, instance: Component, kind: Kind, at: Instant) -> Event:
    """A new override of the master's instance at ``at``: the master's properties without
    the recurrence ones, ``RECURRENCE-ID`` in the type and zone of ``DTSTART`` (RFC 5545
    section 3.8.4.4), the instance's own times; alarms copied."""
    event = Event()
    for name, value in master.items():
        if name.upper() not in {*_SERIES_ONLY, *_TIMES}:
            event[name] = copy.deepcopy(value)
    event.add("RECURRENCE-ID", kind.value(instance_wall(instance, at, kind)))
    start, end = span_of(instance, kind)
    event.add("DTSTART", kind.value(start))
    if kind.all_day:
        event.add("DTEND", kind.value(end))
    else:  # the master's exact length, in a DST gap or overlap too (decision 0064)
        event.add(*exact_span_end(kind.instant(start), master, kind))
    for sub in master.subcomponents:
        event.add_component(copy.deepcopy(sub))
    return event


def _not_found(series: Series, at: Instant) -> ChangeError:
    return ChangeError(f"event {series.uid} has no instance at {at}", code="calendar.not_found")


def highest_sequence(series: Series) -> int:
    """The event's revision: the highest ``SEQUENCE`` over its master and every override
    (RFC 5546 section 2.1.4; decision 0050). Every change writes one above it."""
    components = [series.master] if series.master is not None else []
    return max((sequence_of(c) for c in [*components, *series.overrides]), default=0)


def change_instance(edit: Edit, at: Instant) -> ChangeOutcome:
    """Move or update one instance: write (or rewrite) its override; ``SEQUENCE`` one above
    the highest of every component of the event (:func:`highest_sequence`)."""
    series, kind = edit.series, edit.kind
    old = series.override_at(at)
    master = series.master
    base = highest_sequence(series)
    if old is not None:
        event: Component = copy.deepcopy(old)
    else:
        instance = series.master_instance(at)
        if instance is None or master is None:
            raise _not_found(series, at)
        event = _override_from(master, instance, kind, at)
    new = edit.new_range()
    if new is not None:
        for name in _TIMES:
            event.pop(name, None)
        event.add("DTSTART", time_value(kind, new[0]))  # the second 02:30 in UTC (0064)
        event.add("DTEND", time_value(kind, new[1]))
    removed = edit.people(event)
    edit.answers(event, at)
    edit.touch(event, base + 1)
    stale = [o for o in series.overrides if series.recurrence_instant(o) == at]
    _replace(edit.calendar, stale, [event])
    edit.writes.append((series.uid, edit.calendar))
    edit.notify(series.uid, at, "REQUEST", base + 1, event=event, removed=tuple(removed))
    return edit.outcome(base + 1)


def cancel_instance(edit: Edit, at: Instant) -> ChangeOutcome:
    """Cancel one instance: an ``EXDATE`` on the master (RFC 5545 section 3.8.5.1), its
    override dropped, the master's ``SEQUENCE`` one above every component's
    (:func:`highest_sequence`)."""
    series, kind = edit.series, edit.kind
    if not series.exists(at):
        raise _not_found(series, at)
    stale = [o for o in series.overrides if series.recurrence_instant(o) == at]
    cancelled: Component | None = series.override_at(at) or series.master_instance(at)
    sequence = highest_sequence(series) + 1
    master = series.master
    if master is None:  # only overrides stored (an invitation to some instances)
        _replace(edit.calendar, stale, [])
        left = [o for o in series.overrides if all(o is not s for s in stale)]
        edit.writes.append((series.uid, edit.calendar if left else None))
    else:
        named = instance_wall(series.master_instance(at), at, kind)  # as the RRULE has it
        master.add("EXDATE", [kind.value(named)])
        edit.touch(master, sequence)
        _replace(edit.calendar, stale, [])
        edit.writes.append((series.uid, edit.calendar))
    assert cancelled is not None  # exists() said so
    edit.notify(series.uid, at, "CANCEL", sequence, event=cancelled)
    return edit.outcome(sequence)


def cancel_series(edit: Edit) -> ChangeOutcome:
    """Cancel the whole event or series: delete the resource."""
    series = edit.series
    components = [series.master] if series.master is not None else []
    components += series.overrides
    sequence = highest_sequence(series) + 1
    edit.writes.append((series.uid, None))
    edit.notify(series.uid, None, "CANCEL", sequence, event=components[0])
    return edit.outcome(sequence)


def _master(series: Series) -> Event:
    if series.master is None:
        raise ChangeError(
            f"event {series.uid} has no master component (only overrides are stored), so "
            "only its instances can change",
            code="change.bad_event",
        )
    return series.master


def change_series(edit: Edit, anchor: Instant) -> ChangeOutcome:
    """Move or update the whole series: shifted by the wall-time difference between the
    anchor instance's original start and the new start (in the series' own zone), every
    component's ``SEQUENCE`` one up."""
    series, kind = edit.series, edit.kind
    master = _master(series)
    new = edit.new_range()
    if new is not None:
        delta = new[0] - kind.wall_of(anchor)
        start, _ = span_of(master, kind)
        rule = rule_of(master)
        if rule is not None:
            master["RRULE"] = shift_rule(rule, start, delta, kind)
        set_span(master, kind, start + delta, _end_after(edit, start + delta))
        for name in ("RDATE", "EXDATE"):
            if name in master:
                set_values(master, name, [_shifted(v, kind, delta) for v in _values(master, name)])
        for override in series.overrides:
            _shift_override(edit, override, delta)
    removed = edit.people(master)
    edit.answers(master, None)
    sequence = highest_sequence(series) + 1
    for override in series.overrides:
        edit.people(override)
        edit.answers(override, series.recurrence_instant(override))
        edit.touch(override, sequence)
    edit.touch(master, sequence)
    edit.writes.append((series.uid, edit.calendar))
    edit.notify(series.uid, None, "REQUEST", sequence, event=master, removed=tuple(removed))
    return edit.outcome(sequence)


def _end_after(edit: Edit, start: datetime) -> datetime:
    """The wall-time end of an instance starting at ``start`` with the change's length
    (exact seconds; whole days for an all-day event)."""
    change, kind = edit.change, edit.kind
    if change.start is None or change.end is None:
        raise ChangeError("a new range needs start and end", code="change.invalid")
    if kind.all_day:
        return start + (kind.wall_of(change.end) - kind.wall_of(change.start))
    end = kind.instant(start).plus_ns(change.end - change.start)
    if end is None:
        raise ChangeError("the new range lies outside the years 1-9999", code="change.invalid")
    return kind.wall_of(end)


def _shift_override(edit: Edit, event: Component, delta: timedelta) -> None:
    """An override moved with its series: ``RECURRENCE-ID`` and times by ``delta``; its
    own length kept, except an update's new length."""
    kind = edit.kind
    rid = event.get("RECURRENCE-ID")
    value = getattr(rid, "dt", None)
    if not isinstance(value, date):
        raise ChangeError(
            f"event {edit.series.uid} has an unreadable RECURRENCE-ID", code="change.bad_event"
        )
    event.pop("RECURRENCE-ID", None)
    event.add("RECURRENCE-ID", _shifted(value, kind, delta))
    if rid is not None and "RANGE" in rid.params:  # another program's this-and-future
        event["RECURRENCE-ID"].params["RANGE"] = rid.params["RANGE"]
    start, end = span_of(event, kind)
    start += delta
    change = edit.change
    relength = change.action == "update" and change.start is not None
    set_span(event, kind, start, _end_after(edit, start) if relength else end + delta)


def trim(edit: Edit, at: Instant) -> tuple[Event, list[Event]]:
    """End the series before the instance at ``at`` (RFC 5545 section 3.8.5.3): ``COUNT`` lowered or
    ``UNTIL`` set, later ``RDATE``/``EXDATE`` values and overrides dropped, every kept
    component's ``SEQUENCE`` one above the highest of all (dropped ones too). Answers the master
    and the dropped overrides."""
    series, kind = edit.series, edit.kind
    master = _master(series)
    rule = rule_of(master)
    if rule is not None:
        count = series.rule_count_before(at) if "COUNT" in rule else None
        master["RRULE"] = until_before(rule, kind.wall_of(at), kind, count)
    for name in ("RDATE", "EXDATE"):
        if name in master:
            set_values(master, name, _split_values(master, name, series, at)[0])
    later = [o for o in series.overrides if series.recurrence_instant(o) >= at]
    kept = [o for o in series.overrides if all(o is not x for x in later)]
    sequence = highest_sequence(series) + 1
    _replace(edit.calendar, list(later), [])
    for override in kept:
        edit.touch(override, sequence)
    edit.touch(master, sequence)
    return master, later


def cancel_future(edit: Edit, at: Instant) -> ChangeOutcome:
    """Cancel the instance at ``at`` and every later one: the series trimmed, a ``REQUEST``
    of the shorter series to its attendees."""
    master, _ = trim(edit, at)
    sequence = sequence_of(master)
    edit.writes.append((edit.series.uid, edit.calendar))
    edit.notify(edit.series.uid, None, "REQUEST", sequence, event=master)
    return edit.outcome(sequence)


def _resource_like(calendar: Calendar, events: list[Component]) -> Calendar:
    """A new resource with ``calendar``'s properties (no ``METHOD``), its time zones and
    ``events``."""
    out = Calendar()
    for name, value in calendar.items():
        if name.upper() != "METHOD":
            out[name] = copy.deepcopy(value)
    for component in calendar.subcomponents:
        if component.name == "VTIMEZONE":
            out.add_component(copy.deepcopy(component))
    for event in events:
        out.add_component(event)
    return out


def split(edit: Edit, at: Instant, new_uid: str) -> ChangeOutcome:
    """This and future: a new series ``new_uid`` from the instance at ``at`` on, changed,
    at ``SEQUENCE:0``; the old one trimmed before it. Writes the new series first."""
    series, kind = edit.series, edit.kind
    master = _master(series)
    rule = rule_of(master)
    if rule is not None and series.master_instance(at, rule_only=True) is None:
        raise ChangeError(
            f"the instance at {at} is an RDATE of a series with an RRULE: a series cannot "
            "start there with the same rule",
            code="change.unsupported_rule",
        )
    original = copy.deepcopy(master)
    at_wall = kind.wall_of(at)
    start, end = span_of(original, kind)
    new = edit.new_range()
    delta = timedelta(0) if new is None else new[0] - at_wall
    first = at_wall + delta
    head = copy.deepcopy(original)
    head["UID"] = new_uid
    set_span(head, kind, first, end - start + first if new is None else _end_after(edit, first))
    if rule is not None:
        tail = rule_of(original)
        assert tail is not None
        if "COUNT" in tail:
            tail["COUNT"] = [int(tail["COUNT"][0]) - series.rule_count_before(at)]
        head["RRULE"] = shift_rule(tail, at_wall, delta, kind) if delta else tail
        if int(tail.get("COUNT", [1])[0]) < 1:  # the rest are RDATE instances
            head.pop("RRULE", None)
    for name in ("RDATE", "EXDATE"):
        if name in original:
            later = _split_values(original, name, series, at)[1]
            set_values(head, name, [_shifted(v, kind, delta) for v in later])
    _, moved = trim(edit, at)
    heads: list[tuple[Component, Instant]] = [(head, at)]  # each with the instance it was
    for override in moved:
        copied = copy.deepcopy(override)
        copied["UID"] = new_uid
        _shift_override(edit, copied, delta)
        heads.append((copied, series.recurrence_instant(override)))
    for event, was in heads:
        edit.people(event)
        edit.answers(event, was)
        edit.touch(event, 0)
    edit.writes.append((new_uid, _resource_like(edit.calendar, [e for e, _ in heads])))
    edit.writes.append((series.uid, edit.calendar))
    edit.notify(new_uid, None, "REQUEST", 0, event=head)
    sequence = sequence_of(master)
    edit.notify(series.uid, None, "REQUEST", sequence, event=master)
    return edit.outcome(sequence, new_uid)
