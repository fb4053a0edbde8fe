r"""A calendar kept in local iCalendar files (RFC 5545): create, move, cancel, update, read.

:class:`IcsFileCalendar` serves ``calendar.event.create``, ``calendar.event.move``,
``calendar.event.cancel``, ``calendar.event.update``, ``calendar.event.get`` and
``calendar.freebusy`` over a fixed set of ``.ics`` files, one per calendar id. An event is
the ``VEVENT`` whose ``UID`` is the ``uid`` param (default the ``object_id``); its revision
is its ``SEQUENCE`` (RFC 5545 3.8.7.4), and the idempotency key of the write that last
changed it is kept in ``X-CEREBRI-IDEMPOTENCY-KEY``. The events of one ``UID`` (a series and
its overrides) with their ``VTIMEZONE``\ s are its calendar object resource
(:mod:`cerebri.execution.adapters._ics_resources`), whose ETag is the digest
:func:`cerebri.calendars.changes.resource_etag` (decision 0051): a change planned on
``expected_etag`` is refused when anything in that resource changed since.

Writes hold ``<file>.lock`` (``filelock``, across processes), read the file, check that
cerebri's own reader (:func:`cerebri.ics.parse_calendar`, as ``cerebri freebusy``) accepts
it, change it and replace it atomically (temporary file, fsync, ``os.replace``, fsync of the
folder), so a crash leaves the old file or the new one, and a calendar cerebri cannot read is
never rewritten. Reads take no lock: they always see a whole file. A calendar file is read up
to :data:`MAX_CALENDAR_BYTES` (16 MiB); a larger one is refused before anything is written.

Every error a write raises before the ``os.replace`` of the calendar file guarantees that
nothing was written and says so (``before_effect``, decision 0040); of those only
``calendar.busy``, a lock timeout, is retryable: the executor tries the step again later,
never reading it as "may have happened". Only an error after the ``os.replace`` (the fsync
of the folder) leaves a write that may have happened: retryable, not ``before_effect``.

Instants are RFC 3339 UTC strings (``2026-10-05T09:00:00Z``); iCalendar DATE-TIMEs hold whole
seconds (RFC 5545 3.3.5), so a write with a fraction of a second is refused.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from datetime import date, datetime, timedelta
from pathlib import Path
from types import MappingProxyType
from typing import Final

import filelock
from icalendar import Calendar, Component, Event

from cerebri._files import ReplacedNotDurableError, read_bounded, write_atomic
from cerebri._guard import arguments
from cerebri._json import JSONValue
from cerebri.calendars.changes import ChangeAction, resource_etag
from cerebri.calendars.sources import MAX_WRITABLE_ICS_BYTES
from cerebri.clock import Clock
from cerebri.errors import InputTooLargeError, UnreadableInputError
from cerebri.execution.adapters._change_params import (
    change_params,
    effect_key,
    event_ref,
    people,
)
from cerebri.execution.adapters._change_steps import (
    ensure_free_everywhere,
    find,
    prepare,
    view_result,
)
from cerebri.execution.adapters._copies import StoredCopy
from cerebri.execution.adapters._freebusy import freebusy_result
from cerebri.execution.adapters._ics_resources import file_resource, put_resource, uid_events
from cerebri.execution.adapters._people import stamp_people
from cerebri.execution.adapters._slots import ensure_slot_free
from cerebri.execution.adapters.base import (
    AdapterError,
    DispatchingAdapter,
    Invocation,
    adapter_argument_error,
    before_any_effect,
    configured_calendar,
    serves,
)
from cerebri.ics import CalendarError, parse_calendar
from cerebri.temporal import Instant

__all__ = [
    "CALENDAR_CAPABILITIES",
    "IDEMPOTENCY_PROPERTY",
    "LOCK_TIMEOUT_SECONDS",
    "MAX_CALENDAR_BYTES",
    "PRODID",
    "IcsFileCalendar",
]

CALENDAR_CAPABILITIES: Final = (
    "calendar.event.cancel",
    "calendar.event.create",
    "calendar.event.get",
    "calendar.event.move",
    "calendar.event.update",
    "calendar.freebusy",
)
"""The capabilities :class:`IcsFileCalendar` serves."""
PRODID: Final = "-//cerebri//execution//EN"
"""``PRODID`` of a calendar file this adapter creates."""
IDEMPOTENCY_PROPERTY: Final = "X-CEREBRI-IDEMPOTENCY-KEY"
"""The property holding the idempotency key of the write that last changed an event."""
LOCK_TIMEOUT_SECONDS: Final = 10.0
"""Longest wait for another writer's lock on the same file, in seconds."""
MAX_CALENDAR_BYTES: Final = MAX_WRITABLE_ICS_BYTES
"""Largest calendar file read, in bytes (16 MiB); a larger one is ``calendar.unreadable``,
for a write before anything is written."""
MAX_EXCERPT_CHARS: Final = 200
"""Most characters of file content (or of a parser's message quoting it) put in an error."""
_NS_PER_SECOND: Final = 1_000_000_000


def _empty_calendar() -> Calendar:
    calendar = Calendar()
    calendar.add("prodid", PRODID)
    calendar.add("version", "2.0")
    return calendar


def _excerpt(text: str, limit: int = MAX_EXCERPT_CHARS) -> str:
    """``text`` with each unprintable character escaped (``\\x1b``, ``\\u202e``), cut to
    ``limit`` characters (``...`` marks a cut): never raw bytes in a message."""
    shown = "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in text[: limit + 1])
    return shown if len(shown) <= limit else f"{shown[:limit]}..."


def _os_error(exc: OSError) -> str:
    return _excerpt(exc.strerror or str(exc))


def _invalid(message: str) -> AdapterError:
    """Params the adapter cannot take: refused before anything is done."""
    return AdapterError(message, code="adapter.invalid_params", before_effect=True)


def _text(params: Mapping[str, JSONValue], name: str) -> str:
    value = params.get(name)
    if not isinstance(value, str):
        raise _invalid(f"param {name!r} must be a string, not {value!r}")
    return value


def _instant(params: Mapping[str, JSONValue], name: str, *, whole_seconds: bool = True) -> Instant:
    text = _text(params, name)
    try:
        moment = Instant.parse(text)
    except ValueError:
        raise _invalid(f"param {name!r} is not an RFC 3339 instant: {text!r}") from None
    if whole_seconds and moment.ns % _NS_PER_SECOND:
        raise _invalid(
            f"param {name!r} {text} has a fraction of a second; iCalendar DATE-TIME holds "
            "whole seconds (RFC 5545 3.3.5)"
        )
    return moment


def _range(params: Mapping[str, JSONValue]) -> tuple[Instant, Instant]:
    start, end = _instant(params, "start"), _instant(params, "end")
    if not start < end:
        raise _invalid(f"end {end} is not after start {start} (the range is half-open)")
    return start, end


def _utc(moment: Instant) -> datetime:
    value = moment.to_datetime()
    if value is None:
        raise _invalid(f"{moment} is outside years 1-9999")
    return value


def _as_instant(value: object, what: str, uid: str) -> Instant:
    if isinstance(value, datetime) and value.utcoffset() is not None:
        return Instant.from_datetime(value)
    kind = "a floating time" if isinstance(value, datetime) else type(value).__name__
    if isinstance(value, date) and not isinstance(value, datetime):
        kind = "a DATE (all-day)"
    raise AdapterError(
        f"event {uid}: {what} is {kind}; only zoned or UTC DATE-TIMEs have an instant",
        code="calendar.unsupported",
    )


def _span(event: Component, uid: str) -> tuple[Instant, Instant]:
    """``[start, end)`` of ``event``: DTEND, else DTSTART + DURATION, else DTSTART
    (RFC 5545 3.6.1)."""
    start = _as_instant(event.decoded("DTSTART", None), "DTSTART", uid)
    if "DTEND" in event:
        return start, _as_instant(event.decoded("DTEND"), "DTEND", uid)
    duration = event.decoded("DURATION", None)
    if isinstance(duration, timedelta):
        return start, Instant(start.ns + duration // timedelta(microseconds=1) * 1000)
    return start, start


def _sequence(event: Component) -> int:
    return int(event.get("SEQUENCE", 0))


def _events(calendar: Calendar, uid: str) -> list[Component]:
    return [c for c in calendar.subcomponents if c.name == "VEVENT" and str(c.get("UID")) == uid]


def _master(events: list[Component]) -> Component | None:
    """The event itself rather than one of its recurrence overrides."""
    plain = [e for e in events if "RECURRENCE-ID" not in e]
    chosen = plain or events
    return chosen[0] if chosen else None


class IcsFileCalendar(DispatchingAdapter):
    """Serves the calendar capabilities over local ``.ics`` files.

    ``calendars`` maps a calendar id to its file (created on the first ``create`` when
    missing, as an empty ``VCALENDAR`` with :data:`PRODID`, VERSION 2.0). ``clock`` gives
    ``DTSTAMP``. Results (instants as RFC 3339 UTC strings):

    * create ``{object_id, calendar_id, start, end, revision, created: true}``; an existing
      ``UID`` written by the same effect (its ``X-CEREBRI-IDEMPOTENCY-KEY`` is the
      ``idempotency_key`` param, the planner's key for the action, kept across attempts and
      revisions) at the same range is adopted: nothing written, ``replayed: true``; any other
      existing ``UID`` raises ``calendar.conflict`` (never a second event with one UID). Before a
      create or a move writes, the range is re-read as free/busy (the event itself left
      out): a range no longer free raises ``calendar.slot_taken`` and nothing is written;
      ``organizer`` and ``attendees`` are stamped on the new event (SEQUENCE 0);
    * move, update and cancel of one instance, this and the future instances or the whole
      series (``scope``, ``recurrence_id``), by
      :func:`cerebri.calendars.changes.apply_change` with the checks of
      :mod:`cerebri.execution.adapters._change_steps` (a replay of the change applied
      already answers ``replayed: true`` and writes nothing; ``expected_etag``,
      ``expected_revision``; the new range re-read as busy time in this calendar and every
      ``check_calendar_ids`` calendar, which this adapter must serve too):
      move ``{object_id, calendar_id, start, end, revision, moved: true, replayed, uid,
      recurrence_id, scope, new_uid}``, update the same with ``updated: true``, cancel
      ``{object_id, calendar_id, cancelled, existed, revision, replayed, uid,
      recurrence_id, scope, new_uid}`` (an absent event or instance is a success with
      ``cancelled`` and ``existed`` ``false``); ``revision`` is the ``SEQUENCE`` after the
      change;
    * get ``{object_id, calendar_id, exists, start, end, range: {start, end}, revision,
      title, sequence, etag}`` of the event or of its instance at ``recurrence_id``, the
      shape the checks of :mod:`cerebri.plans.from_action_plan` compare at path ``range``;
      for an absent event ``exists`` is ``false`` and the other fields are ``null`` (so
      "not already at the range" holds and "at the range" does not);
    * freebusy ``{start, end, busy: [{start, end, calendar_id, object_id, recurrence_id}],
      free: [{start, end}], unknown: [{start, end}], complete}``, read by
      :func:`cerebri.calendars.freebusy` (floating times as UTC), as ``cerebri freebusy``.

    Raises:
        AdapterError: ``calendar.unknown_calendar`` (a calendar id not configured),
            ``calendar.conflict``, ``calendar.not_found``, ``calendar.revision_mismatch``,
            ``calendar.slot_taken`` (a create, move or update whose ``[start, end)`` holds
            another busy event in its calendar or a ``check_calendar_ids`` calendar when the
            lock is held: not written, not retryable), the ``change.*`` codes of
            :func:`cerebri.calendars.changes.apply_change` (nothing written),
            ``calendar.unreadable`` (a file that cannot be read, is larger than
            :data:`MAX_CALENDAR_BYTES`, or that cerebri's reader refuses: the ``ics.*``
            code, line and UID are named; checked before any write),
            ``calendar.unsupported`` (an event without a zoned or UTC time),
            ``calendar.busy`` (retryable and ``before_effect``: another writer held the
            lock for :data:`LOCK_TIMEOUT_SECONDS`; nothing was written),
            ``calendar.write_failed`` (the OS refused the lock file, the temporary file or
            the rename, or the folder does not exist: not retryable, nothing was written,
            the old file intact; or, retryable, the fsync of the folder failed after the
            new file replaced the old one, so the write may have happened),
            ``adapter.invalid_params``, ``adapter.unsupported_capability``.

    Only ``calendar.busy`` and the ``calendar.write_failed`` after ``os.replace`` are
    retryable; every error of a write but that last one is ``before_effect`` (nothing was
    written).
    """

    __slots__ = ("_calendars", "_clock", "_lock_timeout")

    @arguments(
        adapter_argument_error, calendars=Mapping, clock=Clock, lock_timeout_seconds=(int, float)
    )
    def __init__(
        self,
        calendars: Mapping[str, Path],
        clock: Clock,
        *,
        lock_timeout_seconds: float = LOCK_TIMEOUT_SECONDS,
    ) -> None:
        self._calendars = MappingProxyType({k: Path(v) for k, v in calendars.items()})
        self._clock = clock
        self._lock_timeout = lock_timeout_seconds

    # ------------------------------------------------------------------ files

    def _path(self, calendar_id: str) -> Path:
        return configured_calendar(self._calendars, calendar_id)

    @staticmethod
    def _bytes(path: Path) -> bytes | None:
        """The file's bytes, ``None`` when it does not exist."""
        try:
            return read_bounded(path, limit=MAX_CALENDAR_BYTES, what="calendar")
        except UnreadableInputError as exc:
            if exc.missing:
                return None
            raise AdapterError(exc.message, code="calendar.unreadable") from None
        except InputTooLargeError as exc:
            raise AdapterError(exc.message, code="calendar.unreadable") from None

    def _load(self, path: Path, *, checked_as: str | None = None) -> Calendar | None:
        """The calendar in ``path`` (``None`` when there is none), read leniently by
        ``icalendar`` so a rewrite keeps what it holds. With ``checked_as`` (a calendar id),
        first refuse a file :func:`cerebri.ics.parse_calendar` cannot read, so a write never
        rewrites a calendar that ``cerebri freebusy`` refuses."""
        data = self._bytes(path)
        if data is None:
            return None
        if checked_as is not None:
            try:
                parse_calendar(data, source=str(path))
            except CalendarError as exc:
                where = ", ".join(
                    part
                    for part in (
                        None if exc.line is None else f"line {exc.line}",
                        None if exc.uid is None else f"UID {_excerpt(exc.uid, 80)!r}",
                    )
                    if part
                )
                raise AdapterError(
                    f"calendar {checked_as} ({path}) is refused by cerebri's reader, so "
                    f"nothing was written: {exc.code}"
                    f"{f' ({where})' if where else ''}: {_excerpt(exc.detail)}",
                    code="calendar.unreadable",
                ) from None
        return _parse_object(data, str(path))

    def _change(
        self,
        calendar_id: str,
        edit: Callable[[Calendar | None], tuple[Calendar | None, dict[str, JSONValue]]],
    ) -> dict[str, JSONValue]:
        """Under the file's lock: load and check, ``edit`` (returns the calendar to write, or
        ``None`` to leave the file alone, and the result), write atomically.

        Every error before ``os.replace`` of the file means nothing was written
        (``before_effect``) and is not retryable, except the lock timeout ``calendar.busy``;
        an error after it (the folder's fsync) is retryable: the write may have happened."""
        with before_any_effect():
            path = self._path(calendar_id)
        if not path.parent.is_dir():  # filelock would create it: a typo would pass unseen
            raise AdapterError(
                f"cannot write {path}: no folder {path.parent}; nothing was written",
                code="calendar.write_failed",
                before_effect=True,
            )
        lock_path = f"{path}.lock"
        try:
            # filelock retries an OS refusal to open the lock file (as in /proc) until the
            # timeout, which would read as "busy": open it once first to tell the two apart.
            os.close(os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_NONBLOCK, 0o644))
        except OSError as exc:
            raise AdapterError(
                f"cannot write {path}: cannot open the lock file {lock_path}: "
                f"{_os_error(exc)}; nothing was written",
                code="calendar.write_failed",
                before_effect=True,
            ) from None
        replaced = False
        try:
            with filelock.FileLock(lock_path, timeout=self._lock_timeout):
                with before_any_effect():  # conflict, slot_taken, unreadable...
                    updated, result = edit(self._load(path, checked_as=calendar_id))
                if updated is not None:
                    write_atomic(path, updated.to_ical(), mode=None, sync_folder=True)
                    replaced = True  # an error from here on (the unlock) follows the write
        except filelock.Timeout:
            raise AdapterError(
                f"{path} stayed locked by another writer for {self._lock_timeout} s; "
                "nothing was written",
                code="calendar.busy",
                retryable=True,
                before_effect=True,
            ) from None
        except OSError as exc:
            if replaced or isinstance(exc, ReplacedNotDurableError):  # the new file is in place
                raise AdapterError(
                    f"wrote {path} but could not make it durable: {_os_error(exc)}; the "
                    "write may have happened",
                    code="calendar.write_failed",
                    retryable=True,
                ) from None
            raise AdapterError(
                f"cannot write {path}: {_os_error(exc)}; nothing was written",
                code="calendar.write_failed",
                before_effect=True,
            ) from None
        return result

    # ------------------------------------------------------------------ capabilities

    @serves("calendar.event.create")
    def _create(self, invocation: Invocation) -> dict[str, JSONValue]:
        params = invocation.params
        calendar_id, uid = _text(params, "calendar_id"), _text(params, "object_id")
        start, end = _range(params)
        title = params.get("title")
        with before_any_effect():
            organizer, attendees = people(params)
        key = effect_key(invocation)

        def edit(calendar: Calendar | None) -> tuple[Calendar | None, dict[str, JSONValue]]:
            calendar = calendar if calendar is not None else _empty_calendar()
            existing = _events(calendar, uid)
            if existing:
                same = str(existing[0].get(IDEMPOTENCY_PROPERTY)) == key
                if same and _span(existing[0], uid) == (start, end):
                    # this create went through before (its outcome was lost): adopt it
                    revision = _sequence(existing[0])
                    written = _written(calendar_id, uid, start, end, revision, created=True)
                    return None, {**written, "replayed": True}
                why = " by this same idempotency key, at another range" if same else ""
                raise AdapterError(
                    f"calendar {calendar_id} already holds an event {uid} (written{why})",
                    code="calendar.conflict",
                )
            ensure_slot_free([_parsed(calendar, calendar_id)], calendar_id, uid, start, end)
            event = _new_event(uid, start, end, title=title, key=key, stamp=self._clock.now())
            stamp_people(event, organizer, attendees)
            calendar.add_component(event)
            return calendar, _written(calendar_id, uid, start, end, 0, created=True)

        return self._change(calendar_id, edit)

    def _apply(self, invocation: Invocation, action: ChangeAction) -> dict[str, JSONValue]:
        """A move, cancel or update under the file's lock (decision 0051): the resource of
        the ``UID`` cut out of the file, its ETag its digest, every check of
        :func:`~cerebri.execution.adapters._change_steps.prepare`, the busy re-read of the
        new range in this file and every ``check_calendar_ids`` file, then the resources
        put back and the file replaced once (a split series and its trimmed original land
        together)."""
        with before_any_effect():
            p = change_params(invocation, action)
        stamp = self._clock.now()

        def edit(calendar: Calendar | None) -> tuple[Calendar | None, dict[str, JSONValue]]:
            resource = None if calendar is None else file_resource(calendar, p.change.uid)
            etag = None if resource is None else resource_etag(resource)
            prepared = prepare(
                p, resource, etag, stamp, lambda u: bool(calendar and uid_events(calendar, u))
            )
            if prepared.outcome is None or calendar is None:
                return None, prepared.result
            own = [_parsed(calendar, p.calendar_id)]  # as read under the lock

            def read(calendar_id: str, start: Instant, end: Instant) -> list[Component]:
                return own if calendar_id == p.calendar_id else self._busy(calendar_id)

            ensure_free_everywhere(p, prepared.outcome, read)
            for uid, content in prepared.outcome.writes:
                put_resource(calendar, uid, content)
            return calendar, prepared.result

        return self._change(p.calendar_id, edit)

    def _busy(self, calendar_id: str) -> list[Component]:
        """Calendar ``calendar_id`` parsed by :func:`cerebri.ics.parse_calendar` (an empty
        one when its file does not exist yet), for the busy re-read before a write."""
        data = self._bytes(self._path(calendar_id))
        if data is None:
            return [_parsed(_empty_calendar(), calendar_id)]
        return [_parsed(_parse_object(data, calendar_id), calendar_id)]

    @serves("calendar.event.move")
    def _move(self, invocation: Invocation) -> dict[str, JSONValue]:
        return self._apply(invocation, "move")

    @serves("calendar.event.update")
    def _update(self, invocation: Invocation) -> dict[str, JSONValue]:
        return self._apply(invocation, "update")

    @serves("calendar.event.cancel")
    def _cancel(self, invocation: Invocation) -> dict[str, JSONValue]:
        return self._apply(invocation, "cancel")

    def read_resource(self, calendar_id: str, uid: str) -> Calendar | None:
        """The calendar object resource of ``uid`` in ``calendar_id``'s file as it is now
        (:func:`~cerebri.execution.adapters._ics_resources.file_resource`), or ``None``
        when the file or the event does not exist. For the iTIP sender (issue #23, C4).

        Raises:
            AdapterError: ``calendar.unknown_calendar``, ``calendar.unreadable``.
        """
        calendar = self._load(self._path(calendar_id))
        return None if calendar is None else file_resource(calendar, uid)

    def read_copy(self, calendar_id: str, uid: str) -> StoredCopy | None:
        """The resource of ``uid`` in ``calendar_id``'s file with its ETag (the digest
        :func:`~cerebri.calendars.changes.resource_etag`), or ``None``: an attendee's copy
        for ``calendar.itip.deliver`` (decision 0057). Raises as :meth:`read_resource`."""
        resource = self.read_resource(calendar_id, uid)
        if resource is None:
            return None
        return StoredCopy(resource, resource_etag(resource), str(self._path(calendar_id)))

    def write_copy(
        self, calendar_id: str, uid: str, content: Calendar | None, found: StoredCopy | None
    ) -> None:
        """Replace the resource of ``uid`` in ``calendar_id``'s file by ``content`` (``None``:
        remove it) if it is still ``found`` (its ETag; ``None``: there was none), under the
        file's lock, the file replaced atomically (decision 0057).

        Raises:
            AdapterError: ``calendar.revision_mismatch`` (retryable, ``before_effect``: the
                resource changed since it was read), and the write errors of a move
                (``calendar.busy``, ``calendar.write_failed``, ``calendar.unreadable``...).
        """

        def edit(calendar: Calendar | None) -> tuple[Calendar | None, dict[str, JSONValue]]:
            current = None if calendar is None else file_resource(calendar, uid)
            etag = None if current is None else resource_etag(current)
            if etag != (None if found is None else found.etag):
                raise AdapterError(
                    f"event {uid} in calendar {calendar_id} changed since it was read; "
                    "nothing was written",
                    code="calendar.revision_mismatch",
                    retryable=True,
                )
            if content is None and current is None:
                return None, {}
            calendar = calendar if calendar is not None else _empty_calendar()
            put_resource(calendar, uid, content)
            return calendar, {}

        self._change(calendar_id, edit)

    @serves("calendar.event.get")
    def _get(self, invocation: Invocation) -> dict[str, JSONValue]:
        ref = event_ref(invocation.params)
        resource = self.read_resource(ref.calendar_id, ref.uid)
        if resource is None:
            return view_result(ref.calendar_id, ref.object_id, None, None)
        view = find(resource, ref.uid, ref.recurrence_id, ref.floating_zone or "UTC")
        etag = resource_etag(resource)
        zone = ref.floating_zone
        return view_result(ref.calendar_id, ref.object_id, view, etag, floating_zone=zone)

    @serves("calendar.freebusy")
    def _freebusy(self, invocation: Invocation) -> dict[str, JSONValue]:
        ids, start, end = _freebusy_params(invocation.params)
        calendars = []
        for calendar_id in ids:
            data = self._bytes(self._path(calendar_id))
            text = data if data is not None else _empty_calendar().to_ical()
            try:
                calendars.append(parse_calendar(text, source=calendar_id))
            except CalendarError as exc:
                raise AdapterError(
                    f"calendar {calendar_id}: {_excerpt(exc.message, 2 * MAX_EXCERPT_CHARS)}",
                    code="calendar.unreadable",
                ) from None
        return freebusy_result(calendars, start, end)


def _freebusy_params(params: Mapping[str, JSONValue]) -> tuple[list[str], Instant, Instant]:
    """The calendar ids, start and end of a ``calendar.freebusy`` (``adapter.invalid_params``
    when they are not a list of strings and two instants)."""
    ids = params.get("calendar_ids")
    if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
        raise _invalid("param 'calendar_ids' must be a list of strings")
    start = _instant(params, "start", whole_seconds=False)
    end = _instant(params, "end", whole_seconds=False)
    return [str(i) for i in ids], start, end


def _parse_object(text: str | bytes, where: str) -> Calendar:
    """``text`` read leniently by ``icalendar`` (``calendar.unreadable`` when it is not one
    VCALENDAR); ``where`` names it in the message."""
    try:
        calendar = Calendar.from_ical(text)
    except ValueError as exc:
        raise AdapterError(
            f"{where} is not iCalendar: {_excerpt(str(exc))}", code="calendar.unreadable"
        ) from None
    if not isinstance(calendar, Calendar):
        raise AdapterError(f"{where} holds no single VCALENDAR", code="calendar.unreadable")
    return calendar


def _new_event(
    uid: str, start: Instant, end: Instant, *, title: JSONValue, key: str, stamp: Instant
) -> Event:
    """The event a create writes: revision (``SEQUENCE``) 0, ``title`` as its summary when it
    is text, ``key`` in :data:`IDEMPOTENCY_PROPERTY`, stamped ``stamp``."""
    event = Event()
    event.add("uid", uid)
    event.add("dtstamp", _utc(stamp))
    event.add("dtstart", _utc(start))
    event.add("dtend", _utc(end))
    event.add("sequence", 0)
    if isinstance(title, str):
        event.add("summary", title)
    event.add(IDEMPOTENCY_PROPERTY, key)
    return event


def _parsed(calendar: Calendar, calendar_id: str) -> Component:
    """``calendar`` read as ``cerebri freebusy`` reads a file (:func:`cerebri.ics.parse_calendar`),
    for the busy re-read before a write (``calendar.unreadable``: nothing was written)."""
    try:
        return parse_calendar(calendar.to_ical(), source=calendar_id)
    except CalendarError as exc:
        raise AdapterError(
            f"calendar {calendar_id}: {_excerpt(exc.message, 2 * MAX_EXCERPT_CHARS)}; nothing "
            "was written",
            code="calendar.unreadable",
        ) from None


def _written(
    calendar_id: str,
    uid: str,
    start: Instant,
    end: Instant,
    revision: int,
    *,
    created: bool = False,
) -> dict[str, JSONValue]:
    return {
        "object_id": uid,
        "calendar_id": calendar_id,
        "start": start.format(),
        "end": end.format(),
        "revision": revision,
        "created" if created else "moved": True,
    }
