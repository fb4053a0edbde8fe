"""The parts of ``message.itip.send`` that do no I/O: its params checked, the outbox file
names, the ``VEVENT`` picked from a stored resource or made for a CANCEL, the e-mail's
subject and text, and the result objects (see :mod:`cerebri.execution.adapters.itip_delivery`).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime

from icalendar import Calendar, Event

from cerebri._json import JSONValue
from cerebri.calendars.itip import Attendee, ItipMethod
from cerebri.execution.adapters.base import AdapterError
from cerebri.temporal import Instant

__all__ = [
    "SendParams",
    "bare",
    "cancel_event",
    "component",
    "invalid",
    "plain_text",
    "required_text",
    "same_effect",
    "send_result",
    "stem",
    "subject",
]


def invalid(message: str) -> AdapterError:
    return AdapterError(message, code="adapter.invalid_params", before_effect=True)


def bare(address: str) -> str:
    return address.removeprefix("mailto:").removeprefix("MAILTO:").strip().lower()


def _text(params: Mapping[str, JSONValue], name: str, *, optional: bool = False) -> str | None:
    value = params.get(name)
    if value is None and optional:
        return None
    if not isinstance(value, str) or not value:
        raise invalid(f"param {name!r} must be a non-empty string, not {value!r}")
    return value


def required_text(params: Mapping[str, JSONValue], name: str) -> str:
    value = _text(params, name)
    assert value is not None
    return value


def _attendee(item: JSONValue) -> Attendee:
    if not isinstance(item, dict) or not isinstance(item.get("address"), str):
        raise invalid(f"an attendee must be an object with an 'address', not {item!r}")
    address, name = bare(str(item["address"])), item.get("name")
    if isinstance(name, str) and name:
        quoted = name.replace("\\", "\\\\").replace('"', '\\"')
        address = f'"{quoted}" <{address}>'
    return Attendee(address, required=item.get("required") is not False)


@dataclass(frozen=True, slots=True)
class SendParams:
    """The params of one ``message.itip.send``, checked."""

    calendar_id: str
    uid: str
    recurrence_id: Instant | None
    range: str | None
    method: ItipMethod
    sequence: int
    recipient: str
    organizer: str
    attendees: tuple[Attendee, ...]
    key: str
    title: str | None

    @classmethod
    def of(cls, params: Mapping[str, JSONValue]) -> SendParams:
        rid_text = _text(params, "recurrence_id", optional=True)
        try:
            rid = None if rid_text is None else Instant.parse(rid_text)
        except ValueError:
            raise invalid(f"param 'recurrence_id' is not an instant: {rid_text!r}") from None
        method, sequence, attendees = (
            params.get("method"),
            params.get("sequence"),
            params.get("attendees"),
        )
        if method not in {"REQUEST", "CANCEL"}:
            raise invalid(f"param 'method' must be REQUEST or CANCEL, not {method!r}")
        if type(sequence) is not int or sequence < 0:
            raise invalid(f"param 'sequence' must be a whole number >= 0, not {sequence!r}")
        if not isinstance(attendees, list) or not attendees:
            raise invalid("param 'attendees' must be a non-empty list")
        return cls(
            calendar_id=required_text(params, "calendar_id"),
            uid=required_text(params, "uid"),
            recurrence_id=rid,
            range=_text(params, "range", optional=True),
            method=ItipMethod(str(method)),
            sequence=sequence,
            recipient=bare(required_text(params, "recipient")),
            organizer=required_text(params, "organizer"),
            attendees=tuple(_attendee(a) for a in attendees),
            key=required_text(params, "idempotency_key"),
            title=_text(params, "title", optional=True),
        )

    def fingerprint(self) -> dict[str, JSONValue]:
        """What a record of the same key and recipient must hold."""
        return {
            "calendar_id": self.calendar_id,
            "uid": self.uid,
            "recurrence_id": None if self.recurrence_id is None else str(self.recurrence_id),
            "range": self.range,
            "method": self.method.value,
            "sequence": self.sequence,
        }


def stem(idempotency_key: str, recipient: str) -> str:
    """The outbox file name (without suffix) of the message for ``idempotency_key`` and
    ``recipient`` (module doc)."""
    digest = hashlib.sha256(f"{idempotency_key}\n{bare(recipient)}".encode()).hexdigest()
    readable = re.sub(r"[^A-Za-z0-9._-]+", "_", idempotency_key)[:96].strip("._-")
    return f"{readable or 'message'}.{digest[:16]}"


def _same_start(value: object, moment: Instant) -> bool:
    if isinstance(value, datetime):
        if value.utcoffset() is None:  # floating: read as UTC, the only reading a plan has
            value = value.replace(tzinfo=UTC)
        return Instant.from_datetime(value) == moment
    if isinstance(value, date):
        return value.isoformat() == str(moment)[:10]
    return False


def component(resource: Calendar, uid: str, recurrence_id: Instant | None) -> Event | None:
    """The ``VEVENT`` of ``uid`` at ``recurrence_id`` (the master when ``None``)."""
    for component in resource.walk("VEVENT"):
        if str(component.get("UID", "")) != uid or not isinstance(component, Event):
            continue
        rid = component.get("RECURRENCE-ID")
        if recurrence_id is None and rid is None:
            return component
        if recurrence_id is not None and rid is not None and _same_start(rid.dt, recurrence_id):
            return component
    return None


def cancel_event(send: SendParams) -> Event:
    """The ``VEVENT`` of a CANCEL, from the params alone (RFC 5546 section 3.2.5)."""
    event = Event()
    event.add("UID", send.uid)
    if send.recurrence_id is not None:
        moment = send.recurrence_id.to_datetime()
        if moment is None:
            raise invalid(f"recurrence_id {send.recurrence_id} is outside years 1-9999")
        event.add("RECURRENCE-ID", moment, parameters={"RANGE": send.range} if send.range else {})
    if send.title:
        event.add("SUMMARY", send.title)
    return event


def subject(method: ItipMethod, sequence: int, summary: str) -> str:
    if method is ItipMethod.CANCEL:
        return f"Cancelled: {summary}"
    return f"{'Updated invitation' if sequence else 'Invitation'}: {summary}"


def _shown(value: object) -> str:
    """A start as people read it: ``2026-12-03 15:00 (Europe/Berlin)``, a date as it is."""
    if isinstance(value, datetime):
        zone = getattr(value.tzinfo, "key", None) or value.strftime("%Z") or "floating"
        return f"{value:%Y-%m-%d %H:%M} ({zone})"
    return str(value)


def plain_text(send: SendParams, summary: str, event: Event) -> str:
    start = event.get("DTSTART")
    when = "" if start is None else f"When: {_shown(start.dt)}\n"
    what = "cancelled" if send.method is ItipMethod.CANCEL else "invites you to"
    return (
        f"{bare(send.organizer)} {what}: {summary}\n{when}"
        f"The attached text/calendar part (METHOD:{send.method.value}) is for your calendar "
        "program.\n"
    )


def same_effect(record: Mapping[str, JSONValue], send: SendParams) -> None:
    """``itip.key_reused`` when the outbox holds another message under the same key."""
    expected = send.fingerprint()
    differ = sorted(k for k, v in expected.items() if record.get(k) != v)
    if differ:
        raise AdapterError(
            f"the idempotency key {send.key!r} already names a message to {send.recipient} "
            f"with another {', '.join(differ)}: a new message needs a new key",
            code="itip.key_reused",
        )


def send_result(record: Mapping[str, JSONValue], *, replayed: bool) -> dict[str, JSONValue]:
    smtp = record.get("smtp")
    reply = smtp.get("reply") if isinstance(smtp, dict) else None
    names = ("idempotency_key", "recipient", "method", "uid", "recurrence_id", "sequence")
    return {
        **{k: record.get(k) for k in names},
        **{k: record.get(k) for k in ("file", "digest", "message_id", "delivery")},
        "sent": record.get("state") == "sent",
        "smtp_reply": reply,
        "replayed": replayed,
    }
