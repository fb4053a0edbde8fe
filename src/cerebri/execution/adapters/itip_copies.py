"""Delivery into attendees' calendars: ``calendar.itip.deliver`` (issue #23, decision 0057).

A CalDAV server that schedules (RFC 6638 sections 3.2 and 4) puts the organizer's change into
every attendee's calendar itself. Where cerebri reads and writes an attendee's calendar (the
attendee's ``calendar_id`` is known and served by this worker) and no server does that,
:class:`CopyDelivery` does it, one attendee per invocation, in this order (every refusal
before the write is ``before_effect``):

1. read the organizer's resource of ``uid`` (``read_resource`` of the organizer calendar's
   adapter); gone with ``method`` ``REQUEST``: ``calendar.not_found``; there, but its highest
   ``SEQUENCE`` is not ``sequence``: ``itip.sequence_moved`` (the event changed after the
   plan was approved; RFC 5546 2.1.4 orders changes by it);
2. read the attendee's copy of ``uid`` (found by ``UID``, at any URL): a copy whose highest
   ``SEQUENCE`` is above ``sequence`` is left alone (a later change won: ``outcome``
   ``superseded``);
3. compute the copy (:func:`~cerebri.execution.adapters._copies.mirror`: the components that
   name the attendee, their own ``PARTSTAT`` kept, cerebri's ``X-CEREBRI-*`` properties left
   out, the same ``SEQUENCE``), or none (the organizer's event is gone, or names the attendee
   no more);
4. write it with ``If-Match`` on the copy's ``ETag`` (``If-None-Match: *`` when new), or delete
   the copy; the same content already there writes nothing (``outcome`` ``unchanged``).

Result: ``{calendar_id, uid, attendee, method, sequence, outcome, written, delivery}`` with
``outcome`` one of ``created``, ``updated``, ``deleted``, ``unchanged``, ``absent`` (no copy
and none wanted), ``superseded``, ``left_to_server``; ``delivery`` ``"calendar"`` or
``"server"`` (the server of the organizer's calendar schedules, by the operator's word or
the probe of decision 0068: nothing is written, the server delivers and the plan's
read-back observes it).

Errors (:class:`~cerebri.execution.adapters.base.AdapterError`): ``adapter.invalid_params``,
``calendar.unknown_calendar`` (a calendar this worker does not serve: passed on to one that
does), ``calendar.unsupported`` (an adapter that cannot read or write copies),
``calendar.not_found``, ``itip.sequence_moved``, ``calendar.revision_mismatch`` (the copy
changed between read and write: retryable), and the adapters' read and write errors.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Final, Protocol, runtime_checkable

from icalendar import Calendar

from cerebri._guard import CALLABLE, arguments
from cerebri._json import JSONValue
from cerebri.errors import CerebriError
from cerebri.execution.adapters._copies import (
    StoredCopy,
    highest_sequence,
    mirror,
    normal_address,
    same_events,
)
from cerebri.execution.adapters.base import (
    AdapterError,
    DispatchingAdapter,
    Invocation,
    adapter_argument_error,
    before_any_effect,
    serves,
)
from cerebri.plans.capabilities_messages import ITIP_DELIVER

__all__ = ["COPY_CAPABILITIES", "CopyDelivery", "CopyStore"]

COPY_CAPABILITIES: Final = (ITIP_DELIVER,)
"""The capabilities :class:`CopyDelivery` serves."""
_MAX_SEQUENCE: Final = 4294967295


@runtime_checkable
class CopyStore(Protocol):
    """What a calendar adapter offers for delivery (both shipped adapters have it)."""

    def read_resource(self, calendar_id: str, uid: str) -> Calendar | None:
        """The stored resource of ``uid`` (``None``: none)."""
        ...

    def read_copy(self, calendar_id: str, uid: str) -> StoredCopy | None:
        """The stored resource of ``uid`` with its ETag and place (``None``: none)."""
        ...

    def write_copy(
        self, calendar_id: str, uid: str, content: Calendar | None, found: StoredCopy | None
    ) -> None:
        """Write ``content`` (``None``: delete) over ``found``, conditionally."""
        ...


@dataclass(frozen=True, slots=True)
class _Params:
    calendar_id: str
    organizer_calendar_id: str
    uid: str
    method: str
    sequence: int
    attendee: str


def _invalid(message: str) -> AdapterError:
    return AdapterError(message, code="adapter.invalid_params", before_effect=True)


def _text(params: Mapping[str, JSONValue], name: str) -> str:
    value = params.get(name)
    if not isinstance(value, str) or not value:
        raise _invalid(f"param {name!r} must be a non-empty string, not {value!r}")
    return value


def _params(params: Mapping[str, JSONValue]) -> _Params:
    method = _text(params, "method")
    if method not in ("REQUEST", "CANCEL"):
        raise _invalid(f"param 'method' must be REQUEST or CANCEL, not {method!r}")
    sequence = params.get("sequence")
    if isinstance(sequence, bool) or not isinstance(sequence, int):
        raise _invalid(f"param 'sequence' must be an integer, not {sequence!r}")
    if not 0 <= sequence <= _MAX_SEQUENCE:
        raise _invalid(f"param 'sequence' {sequence} is outside 0..{_MAX_SEQUENCE}")
    attendee = _text(params, "attendee")
    if "@" not in attendee:
        raise _invalid(f"param 'attendee' {attendee!r} is not an e-mail address")
    found = _Params(
        calendar_id=_text(params, "calendar_id"),
        organizer_calendar_id=_text(params, "organizer_calendar_id"),
        uid=_text(params, "uid"),
        method=method,
        sequence=sequence,
        attendee=normal_address(attendee),
    )
    if found.calendar_id == found.organizer_calendar_id:
        raise _invalid(
            f"calendar {found.calendar_id!r} is the organizer's: the change itself writes it"
        )
    return found


def organizers_of(source: Calendar) -> list[str]:
    """The ``ORGANIZER`` addresses of the ``VEVENT``\\ s of ``source`` (RFC 5545 3.8.4.3),
    in order, each once."""
    found: list[str] = []
    for event in source.walk("VEVENT"):
        organizer = event.get("ORGANIZER")
        if organizer is not None and str(organizer) not in found:
            found.append(str(organizer))
    return found


class CopyDelivery(DispatchingAdapter):
    """Serves ``calendar.itip.deliver`` (module doc) over the calendar adapters that
    ``calendar_of(calendar_id)`` answers (it raises ``calendar.unknown_calendar`` for a
    calendar not served); ``server_schedules``: the CalDAV server delivers (RFC 6638),
    nothing is written (``True``: the operator's word for every calendar; ``None``: when
    the adapter of the organizer's calendar says its server schedules the event's
    ``ORGANIZER``, decision 0068; ``False``: never)."""

    __slots__ = ("_calendar_of", "_server_schedules")

    @arguments(adapter_argument_error, calendar_of=CALLABLE, server_schedules=(bool, type(None)))
    def __init__(
        self, calendar_of: Callable[[str], object], *, server_schedules: bool | None = False
    ) -> None:
        self._calendar_of = calendar_of
        self._server_schedules = server_schedules

    def leaving_to_server(self, server_schedules: bool | None = True) -> CopyDelivery:
        """The same delivery over the same calendars, with the server scheduling
        (``server_schedules`` as in the class doc)."""
        return CopyDelivery(self._calendar_of, server_schedules=server_schedules)

    def _left_to_server(self, p: _Params, source: Calendar | None) -> bool:
        """Whether the server of the organizer's calendar delivers this copy itself."""
        if self._server_schedules is not None:
            return self._server_schedules
        probe = getattr(self._calendar_of(p.organizer_calendar_id), "schedules", None)
        if not callable(probe):
            return False
        organizers = [] if source is None else organizers_of(source)
        return bool(organizers) and bool(probe(p.organizer_calendar_id, organizers[0]))

    def _store(self, calendar_id: str) -> CopyStore:
        adapter = self._calendar_of(calendar_id)
        if not isinstance(adapter, CopyStore):
            raise AdapterError(
                f"the adapter of calendar {calendar_id!r} cannot read or write an attendee's "
                "copy of an event",
                code="calendar.unsupported",
            )
        return adapter

    @staticmethod
    def _read(read: Callable[[], object], calendar_id: str) -> object:
        try:
            return read()
        except AdapterError:
            raise
        except CerebriError as error:
            raise AdapterError(
                f"calendar {calendar_id}: {error.message}", code="calendar.unreadable"
            ) from None

    def _result(
        self, p: _Params, outcome: str, *, written: bool, server: bool = False
    ) -> dict[str, JSONValue]:
        return {
            "calendar_id": p.calendar_id,
            "uid": p.uid,
            "attendee": p.attendee,
            "method": p.method,
            "sequence": p.sequence,
            "outcome": outcome,
            "written": written,
            "delivery": "server" if server else "calendar",
        }

    def _source(self, p: _Params) -> Calendar | None:
        """The organizer's resource, checked against the params (steps 1 of the module doc)."""
        organizer = self._store(p.organizer_calendar_id)
        source = self._read(
            lambda: organizer.read_resource(p.organizer_calendar_id, p.uid),
            p.organizer_calendar_id,
        )
        if source is None:
            if p.method == "REQUEST":
                raise AdapterError(
                    f"no event {p.uid!r} in the organizer's calendar {p.organizer_calendar_id!r}"
                    " to deliver",
                    code="calendar.not_found",
                )
            return None
        assert isinstance(source, Calendar)
        stored = highest_sequence(source)
        if stored != p.sequence:
            raise AdapterError(
                f"event {p.uid!r} is at SEQUENCE {stored} in the organizer's calendar, not "
                f"{p.sequence}: it changed after the plan was made; nothing delivered "
                "(RFC 5546 2.1.4)",
                code="itip.sequence_moved",
            )
        return source

    @serves(ITIP_DELIVER)
    def deliver(self, invocation: Invocation) -> dict[str, JSONValue]:
        """Carry out ``calendar.itip.deliver`` (module doc)."""
        with before_any_effect():
            p = _params(invocation.params)
            if self._server_schedules:
                return self._result(p, "left_to_server", written=False, server=True)
            target = self._store(p.calendar_id)
            source = self._source(p)
            if self._left_to_server(p, source):
                return self._result(p, "left_to_server", written=False, server=True)
            found = self._read(lambda: target.read_copy(p.calendar_id, p.uid), p.calendar_id)
            assert found is None or isinstance(found, StoredCopy)
            if found is not None and highest_sequence(found.calendar) > p.sequence:
                return self._result(p, "superseded", written=False)
            existing = None if found is None else found.calendar
            wanted = None if source is None else mirror(source, p.attendee, existing)
            if wanted is None and found is None:
                return self._result(p, "absent", written=False)
            if wanted is not None and found is not None and same_events(wanted, found.calendar):
                return self._result(p, "unchanged", written=False)
        target.write_copy(p.calendar_id, p.uid, wanted, found)
        outcome = "deleted" if wanted is None else "created" if found is None else "updated"
        return self._result(p, outcome, written=True)
