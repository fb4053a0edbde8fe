"""iTIP delivery: ``message.itip.send`` and ``message.itip.get`` (issue #23, decision 0052).

:class:`ItipDelivery` carries out one iTIP message (RFC 5546) to one attendee per
invocation, in this order:

1. **Build it at act time** with :func:`cerebri.calendars.itip.itip_messages`: a
   ``REQUEST`` from the event as it is stored now, read through the injected
   ``read_resource(calendar_id, uid)`` (the ``VEVENT`` whose ``RECURRENCE-ID`` is the
   ``recurrence_id`` param, or the one without when it is ``null``), refused with
   ``itip.sequence_moved`` when its ``SEQUENCE`` is not the ``sequence`` param (someone
   changed the event after the plan was approved: RFC 5546 section 2.1.4 orders messages by
   it; cerebri's own ``X-CEREBRI-*`` properties are not sent); a ``CANCEL`` from the
   params alone (RFC 5546 section 3.2.5: ``UID``, ``RECURRENCE-ID``, ``SEQUENCE``,
   ``ORGANIZER``, ``ATTENDEE``s, ``STATUS:CANCELLED``), since its event may be gone.
   ``DTSTAMP`` is the clock's now.
2. **Write it to the outbox folder**, one message per file, named
   ``<key>.<hash>.ics`` where ``<key>`` is the ``idempotency_key`` param reduced to
   ``A-Z a-z 0-9 . _ -`` (at most 96 characters) and ``<hash>`` the first 16 hex digits of
   SHA-256 over the key and the recipient; beside it ``<key>.<hash>.eml`` (the whole iMIP
   e-mail, RFC 6047, when SMTP is configured) and ``<key>.<hash>.json`` (the record: what
   was written, its SHA-256 digests, and how far the delivery went). Every file is
   replaced atomically (:func:`cerebri._files.write_atomic`), under a lock per message.
3. **Send it by SMTP** when the adapter has
   :class:`~cerebri.execution.adapters._imip.SmtpSettings` (``Message-ID`` from the key
   and the recipient, so every try carries the same id), the record saying ``sending``
   from the ``DATA`` command on and ``sent`` once the server accepted it. When the
   message's calendar lives on a CalDAV server that delivers iTIP itself (RFC 6638: the
   operator's ``server_schedules``, or, left ``None``, the calendar adapter's probe,
   decision 0068) nothing is sent: the result says ``delivery: "server"``.

**Never twice.** The same ``idempotency_key`` and recipient again (a retried step, a new
revision of the plan, a step an operator re-armed) finds the record: a finished delivery
(or a message recorded as ``sent``, even when its outbox copy was damaged since) is answered
from it (``replayed: true``) without sending; one that stopped before the server accepted
it is sent again with the stored bytes (same ``Message-ID``). The executor's own
rule covers the rest: ``message.itip.send`` is not idempotent, so a worker that dies during
the send leaves the step blocked for verification, never re-run on its own (decision 0021).
The record for the same key and recipient but another event, method or sequence is
``itip.key_reused``. A record left ``sending`` (the worker stopped after ``DATA`` began and
before the server's answer was recorded) is settled by an operator who read the mail
server's log: :meth:`ItipDelivery.settle_send` makes it ``sent`` (the step, resolved as
happened, then verifies, and no send repeats it) or ``written`` (resolved as not happened,
it is sent once more); decision 0062.

Results (instants as RFC 3339 UTC text):

* send: ``{"idempotency_key", "recipient", "method", "uid", "recurrence_id", "sequence",
  "file", "digest", "message_id", "delivery", "sent", "smtp_reply", "replayed"}``;
  ``delivery`` is ``"outbox"`` (no SMTP configured), ``"smtp"`` or ``"server"``; ``digest``
  is ``"sha256:<hex>"`` of the ``.ics`` file; ``recipient`` is the bare address.
* get: ``{"idempotency_key", "recipient", "exists", "intact", "done", "state", "delivery",
  "method", "uid", "recurrence_id", "sequence", "digest", "message_id", "sent"}``:
  ``intact`` when the files hash to the recorded digests, ``done`` when intact and, for
  ``delivery: "smtp"``, accepted by the server. A ``verify`` step checks ``done`` is ``true``.

Errors (:class:`~cerebri.execution.adapters.base.AdapterError`), all ``before_effect``
unless said: ``adapter.invalid_params``; ``calendar.not_found`` (no such event or instance
to REQUEST); ``itip.sequence_moved``; ``itip.not_an_attendee`` (the recipient is not among
``attendees``, or is the organizer); ``itip.key_reused``; the message builder's ``itip.*``
(``itip.bad_address``, ``itip.duplicate_attendee``, ``itip.bad_event``...); what
``read_resource`` raises (``calendar.unknown_calendar`` passes the step on to another
worker); ``itip.outbox_unwritable`` (the folder or a file could not be written; retryable);
``itip.outbox_busy`` (another invocation holds the message's lock; retryable); the SMTP
errors of :mod:`cerebri.execution.adapters._imip` (``itip.smtp_interrupted`` is the one
that may have sent).
"""

from __future__ import annotations

import contextlib
import copy
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Final, cast

import filelock
import platformdirs
from icalendar import Calendar, Event

from cerebri._guard import CALLABLE, PATH, arguments
from cerebri._json import JSONValue
from cerebri.calendars.itip import ItipError, ItipMethod, itip_messages
from cerebri.clock import Clock
from cerebri.errors import CerebriError
from cerebri.execution.adapters._imip import SmtpSettings, imip_email, message_id, send_email
from cerebri.execution.adapters._itip_send import (
    SendParams,
    bare,
    cancel_event,
    component,
    invalid,
    plain_text,
    required_text,
    same_effect,
    send_result,
    stem,
    subject,
)
from cerebri.execution.adapters._outbox import Outbox, sha256
from cerebri.execution.adapters.base import (
    AdapterError,
    Adapters,
    DispatchingAdapter,
    Invocation,
    adapter_argument_error,
    before_any_effect,
    serves,
    unserved_calendar_message,
)
from cerebri.execution.adapters.itip_copies import CopyDelivery
from cerebri.plans.capabilities_messages import ITIP_DELIVER, ITIP_GET, ITIP_SEND
from cerebri.temporal import Instant

__all__ = [
    "ITIP_CAPABILITIES",
    "ItipDelivery",
    "ReadResource",
    "SmtpSettings",
    "default_outbox",
    "read_resource_of",
    "with_itip_delivery",
]

ITIP_CAPABILITIES: Final = (ITIP_GET, ITIP_SEND)
"""The capabilities :class:`ItipDelivery` serves."""

ReadResource = Callable[[str, str], Calendar | None]
SchedulingProbe = Callable[[str, str], bool]
"""``schedules(calendar_id, organizer)``: whether the server of ``calendar_id`` delivers the
iTIP messages of an event ``organizer`` (``mailto:``) organizes there itself (RFC 6638,
decision 0068)."""
"""``read_resource(calendar_id, uid)``: the calendar object resource holding ``uid`` as it
is stored now (icalendar), or ``None`` when there is none (contract C3 of issue #23)."""


class ItipDelivery(DispatchingAdapter):
    """Serves ``message.itip.send`` and ``message.itip.get`` over the folder ``outbox``
    (module doc).

    ``clock`` gives ``DTSTAMP`` and the e-mail's ``Date``; ``read_resource`` reads a
    REQUEST's event back (``None``: this worker has no calendar and sends only CANCELs; a
    REQUEST is ``calendar.unknown_calendar``, passed on to another worker); ``smtp``
    (``None``: outbox only) is the server to send through; ``server_schedules`` says the
    CalDAV server delivers iTIP itself (RFC 6638), so nothing is sent (``True``: every
    calendar's, the operator's word, not with ``smtp``; ``False``: none; ``None``: asked
    per message of ``schedules(calendar_id, organizer)``, the calendar adapter's probe,
    decision 0068; no probe: none); ``sleep`` waits between SMTP tries (seconds).
    """

    __slots__ = (
        "_box",
        "_clock",
        "_probe",
        "_read",
        "_server_schedules",
        "_sleep",
        "_smtp",
    )

    @arguments(
        adapter_argument_error,
        clock=Clock,
        outbox=PATH,
        read_resource=(CALLABLE, type(None)),
        smtp=(SmtpSettings, type(None)),
        server_schedules=(bool, type(None)),
        schedules=(CALLABLE, type(None)),
        sleep=CALLABLE,
    )
    def __init__(
        self,
        clock: Clock,
        *,
        outbox: Path,
        read_resource: ReadResource | None = None,
        smtp: SmtpSettings | None = None,
        server_schedules: bool | None = False,
        schedules: SchedulingProbe | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if smtp is not None and server_schedules is True:
            raise adapter_argument_error(
                "a server that schedules itself (RFC 6638) sends the messages: give no SMTP "
                "server with it"
            )
        self._clock = clock
        self._box = Outbox(Path(outbox))
        self._read = read_resource
        self._smtp = smtp
        self._server_schedules = server_schedules
        self._probe = schedules
        self._sleep = sleep

    @property
    def delivery(self) -> str:
        """``"server"``, ``"smtp"`` or ``"outbox"``: how this adapter delivers a message
        whose calendar's server does not schedule (``"server"`` when the operator said
        every server does)."""
        return "server" if self._server_schedules else "smtp" if self._smtp else "outbox"

    def delivery_of(self, send: SendParams) -> str:
        """How the message ``send`` is delivered: ``"server"`` when its calendar's server
        schedules an event of its organizer (the operator's word, else the probe,
        decision 0068), else :attr:`delivery`.

        Raises:
            AdapterError: the probe's (``adapter.unavailable``, ``calendar.unauthorized``,
                ``calendar.unknown_calendar``), all ``before_effect``.
        """
        if self._server_schedules is None and self._probe is not None:
            try:
                if self._probe(send.calendar_id, f"mailto:{bare(send.organizer)}"):
                    return "server"
            except AdapterError as error:
                if error.code != "calendar.unknown_calendar":
                    raise
        return self.delivery

    # -- building ----------------------------------------------------------------------

    def _stored_event(self, send: SendParams) -> Event:
        """The REQUEST's event as stored now, at the SEQUENCE the params name."""
        if self._read is None:  # no calendar here: another worker may serve it
            raise AdapterError(
                f"{unserved_calendar_message(send.calendar_id, ())}: a REQUEST is built from "
                "the event read back",
                code="calendar.unknown_calendar",
            )
        try:
            resource = self._read(send.calendar_id, send.uid)
        except AdapterError:
            raise
        except CerebriError as error:
            raise AdapterError(error.message, code="calendar.unreadable") from None
        event = None if resource is None else component(resource, send.uid, send.recurrence_id)
        which = "" if send.recurrence_id is None else f" (instance {send.recurrence_id})"
        if event is None:
            raise AdapterError(
                f"no event {send.uid!r}{which} in calendar {send.calendar_id!r}",
                code="calendar.not_found",
            )
        try:
            stored = int(event.get("SEQUENCE", 0))
        except (TypeError, ValueError):
            raise AdapterError(
                f"event {send.uid!r}{which} has an unreadable SEQUENCE", code="calendar.unreadable"
            ) from None
        if stored != send.sequence:
            raise AdapterError(
                f"event {send.uid!r}{which} is at SEQUENCE {stored}, not {send.sequence}: it "
                "changed after the plan was made; no message sent (RFC 5546 2.1.4)",
                code="itip.sequence_moved",
            )
        sent = copy.deepcopy(event)  # cerebri's own bookkeeping stays home
        for own in [k for k in sent if str(k).upper().startswith("X-CEREBRI-")]:
            del sent[own]
        return sent

    def _build(
        self, send: SendParams, event: Event, now: Instant, *, by_smtp: bool
    ) -> tuple[bytes, bytes | None]:
        """The ``.ics`` bytes of the message to ``send.recipient`` and, when it goes by
        SMTP, the iMIP e-mail."""
        try:
            messages = itip_messages(
                send.method,
                event,
                organizer=send.organizer,
                attendees=send.attendees,
                sequence=send.sequence,
                dtstamp=now,
            )
        except ItipError as error:
            raise AdapterError(error.message, code=error.code) from None
        except CerebriError as error:
            raise invalid(error.message) from None
        mine = [m for m in messages if m.recipient == send.recipient]
        if not mine:
            raise AdapterError(
                f"{send.recipient} is not an attendee of this message (the organizer never is)",
                code="itip.not_an_attendee",
            )
        if self._smtp is None or not by_smtp:
            return mine[0].data, None
        summary = str(event.get("SUMMARY") or send.title or send.uid)
        stamp = now.to_datetime()
        assert stamp is not None  # itip_messages refused an instant outside years 1-9999
        email = imip_email(
            mine[0].data,
            method=send.method.value,
            recipient=send.recipient,
            organizer=send.organizer,
            sender=self._smtp.sender,
            subject=subject(send.method, send.sequence, summary),
            summary=plain_text(send, summary, event),
            idempotency_key=send.key,
            date=stamp,
        )
        return mine[0].data, email

    def _prepare(
        self, send: SendParams, name: str, record: dict[str, JSONValue] | None
    ) -> dict[str, JSONValue]:
        """The record of the message in the outbox, written now unless an intact one is
        there (a send that stopped before the server accepted it)."""
        event = self._stored_event(send) if send.method is ItipMethod.REQUEST else None
        if record is not None and self._box.intact(name, record):
            return record
        now = self._clock.now()
        delivery = self.delivery_of(send)
        ics, email = self._build(send, event or cancel_event(send), now, by_smtp=delivery == "smtp")
        self._box.write(self._box.path(name, ".ics"), ics)
        if email is not None:
            self._box.write(self._box.path(name, ".eml"), email)
        fresh: dict[str, JSONValue] = {
            **send.fingerprint(),
            "idempotency_key": send.key,
            "recipient": send.recipient,
            "organizer": bare(send.organizer),
            "file": f"{name}.ics",
            "digest": sha256(ics),
            "eml_digest": None if email is None else sha256(email),
            "message_id": None
            if self._smtp is None or delivery != "smtp"
            else message_id(send.key, send.recipient, self._smtp.sender or send.organizer),
            "delivery": delivery,
            "state": "written",
            "written_at": str(now),
            "smtp": None,
        }
        self._box.save(name, fresh)
        return fresh

    # -- the capabilities --------------------------------------------------------------

    def _lock(self, name: str) -> filelock.BaseFileLock:
        """The lock of message ``name``, acquired; ``itip.outbox_busy`` (retryable) when
        another invocation holds it."""
        lock = self._box.lock(name)
        try:
            lock.acquire()
        except filelock.Timeout:
            raise AdapterError(
                f"another invocation is delivering the message {name} (lock held)",
                code="itip.outbox_busy",
                retryable=True,
            ) from None
        return lock

    @serves(ITIP_SEND)
    def send(self, invocation: Invocation) -> dict[str, JSONValue]:
        """Carry out ``message.itip.send`` (module doc)."""
        with before_any_effect():
            send = SendParams.of(invocation.params)
            name = stem(send.key, send.recipient)
            lock = self._lock(name)
        try:
            return self._send_locked(send, name)
        finally:
            lock.release()

    def _send_locked(self, send: SendParams, name: str) -> dict[str, JSONValue]:
        with before_any_effect():
            record = self._box.load(name)
            if record is not None:
                same_effect(record, send)
                if record.get("state") == "sent" or self._finished(name, record):
                    return send_result(record, replayed=True)  # a damaged copy is not resent
            if record is not None and record.get("delivery") == "smtp" and self._smtp is None:
                raise AdapterError(  # passed on to a worker that has one (decision 0022)
                    f"the message {name} waits for an SMTP server, and this worker has none",
                    code="adapter.unsupported_capability",
                )
            record = self._prepare(send, name, record)
        if record.get("delivery") != "smtp":
            return send_result(record, replayed=False)
        return self._send_smtp(send, name, record)

    def _finished(self, name: str, record: Mapping[str, JSONValue]) -> bool:
        return self._box.intact(name, record) and (
            record.get("delivery") != "smtp" or record.get("state") == "sent"
        )

    def _send_smtp(
        self, send: SendParams, name: str, record: dict[str, JSONValue]
    ) -> dict[str, JSONValue]:
        assert self._smtp is not None
        settings = self._smtp
        email = self._box.read_email(name)

        def sending() -> None:  # from the DATA command on, the message may leave
            self._box.save(name, {**record, "state": "sending"})

        try:
            receipt = send_email(
                settings,
                envelope_from=settings.sender or send.organizer,
                recipient=send.recipient,
                data=email,
                before_data=sending,
                sleep=self._sleep,
            )
        except AdapterError as error:
            if error.before_effect:  # nothing left: the record says so again
                # if this fails, "sending" only makes a reader doubt; the error is the news
                with contextlib.suppress(AdapterError):
                    self._box.save(name, {**record, "state": "written"})
            raise
        done: dict[str, JSONValue] = {
            **record,
            "state": "sent",
            "sent_at": str(self._clock.now()),
            "smtp": {
                "envelope_from": receipt.envelope_from,
                "envelope_to": receipt.envelope_to,
                "reply": receipt.reply,
            },
        }
        try:
            self._box.save(name, done)
        except AdapterError as error:
            raise AdapterError(
                f"the SMTP server accepted the message, but the outbox record could not be "
                f"updated ({error.message}); the message was sent",
                code="itip.outbox_unwritable",
                retryable=True,
            ) from None
        return send_result(done, replayed=False)

    @arguments(adapter_argument_error, idempotency_key=str, recipient=str, accepted=bool, by=str)
    def settle_send(
        self, idempotency_key: str, recipient: str, *, accepted: bool, by: str
    ) -> dict[str, JSONValue]:
        """Record what an operator found out about a message whose record says ``sending``
        (the worker stopped between the ``DATA`` command and the record of the server's
        answer: only the mail server's log can tell). ``accepted`` (the server's log holds
        its ``Message-ID``): the record becomes ``sent`` (``smtp.confirmed_by`` = ``by``), so
        ``message.itip.get`` says ``done`` and a send of the same key and recipient is
        answered from the record, never sent again; not accepted: it becomes ``written``,
        so the next send (after the step is resolved as not happened) sends it, with the
        stored bytes and the same ``Message-ID``. A record already in that state is left as
        it is. Returns what ``message.itip.get`` answers afterwards.

        Raises:
            AdapterError: ``itip.not_recorded`` (no record for that key and recipient),
                ``itip.not_uncertain`` (the record says ``sent`` and ``accepted`` is false,
                or ``written`` and ``accepted`` is true: the record knows better),
                ``itip.outbox_busy`` (retryable), ``itip.outbox_unwritable``.
        """
        name = stem(idempotency_key, recipient)
        lock = self._lock(name)
        try:
            record = self._box.load(name)
            if record is None:
                raise AdapterError(
                    f"the outbox holds no message {name} for {recipient}",
                    code="itip.not_recorded",
                )
            state, wanted = record.get("state"), "sent" if accepted else "written"
            if state not in {"sending", wanted}:
                raise AdapterError(
                    f"the record of {name} says {state!r}: it is not uncertain, and "
                    f"{'an accepted' if accepted else 'a refused'} message contradicts it",
                    code="itip.not_uncertain",
                )
            if state == "sending":
                settled: dict[str, JSONValue] = {**record, "state": wanted}
                if accepted:
                    settled["sent_at"] = str(self._clock.now())
                    settled["smtp"] = {"reply": None, "confirmed_by": by}
                self._box.save(name, settled)
        finally:
            lock.release()
        return self.get(
            Invocation(
                ITIP_GET,
                recipient,
                {"idempotency_key": idempotency_key, "recipient": recipient},
                by,
                by,
            )
        )

    @serves(ITIP_GET)
    def get(self, invocation: Invocation) -> dict[str, JSONValue]:
        """Carry out ``message.itip.get`` (module doc)."""
        with before_any_effect():
            key = required_text(invocation.params, "idempotency_key")
            recipient = bare(required_text(invocation.params, "recipient"))
            name = stem(key, recipient)
            record = self._box.load(name)
        found: dict[str, JSONValue] = {
            "idempotency_key": key,
            "recipient": recipient,
            "exists": record is not None,
        }
        if record is None:
            absent = ("state", "delivery", "method", "uid", "recurrence_id", "sequence")
            return {
                **found,
                "intact": False,
                "done": False,
                **dict.fromkeys(absent),
                "digest": None,
                "message_id": None,
                "sent": False,
            }
        return {
            **found,
            "intact": self._box.intact(name, record),
            "done": self._finished(name, record),
            **{k: record.get(k) for k in ("state", "delivery", "method", "uid")},
            **{k: record.get(k) for k in ("recurrence_id", "sequence", "digest", "message_id")},
            "sent": record.get("state") == "sent",
        }


def default_outbox() -> Path:
    """``platformdirs.user_data_dir("cerebri")/outbox``, beside the default store: where a
    worker given no ``--outbox`` writes its messages (not created here)."""
    return Path(platformdirs.user_data_dir("cerebri")) / "outbox"


def read_resource_of(adapter: object) -> ReadResource:
    """The ``read_resource(calendar_id, uid)`` of a calendar adapter (contract C3 of issue
    #23), or, for an adapter without one, a reader that refuses with
    ``calendar.unsupported`` (that calendar's events cannot be read back)."""
    read = getattr(adapter, "read_resource", None)
    if callable(read):
        return cast("ReadResource", read)

    def refuse(calendar_id: str, uid: str) -> Calendar | None:
        raise AdapterError(
            f"the adapter of calendar {calendar_id!r} cannot read event {uid!r} back",
            code="calendar.unsupported",
        )

    return refuse


@arguments(
    adapter_argument_error,
    adapters=Adapters,
    clock=Clock,
    outbox=PATH,
    smtp=(SmtpSettings, type(None)),
    server_schedules=(bool, type(None)),
    sleep=CALLABLE,
)
def with_itip_delivery(
    adapters: Adapters,
    clock: Clock,
    *,
    outbox: Path,
    smtp: SmtpSettings | None = None,
    server_schedules: bool | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> Adapters:
    """``adapters`` with ``message.itip.send`` and ``message.itip.get`` served by one
    :class:`ItipDelivery` over ``outbox`` that reads events back through the adapter of
    ``calendar.event.get`` (none: REQUESTs are passed on to a worker that has the
    calendar). With ``server_schedules``, a ``calendar.itip.deliver`` served by
    :class:`~cerebri.execution.adapters.itip_copies.CopyDelivery` leaves the attendees'
    copies to the server too (decision 0057); ``None`` (the default) asks each calendar's
    adapter whether its server schedules (``schedules(calendar_id, organizer)``, decision
    0068; an adapter without that method never does), ``False`` never leaves anything to a
    server. Raises ``adapter.invalid_argument`` for ``smtp`` with ``server_schedules``
    ``True``."""
    calendar = adapters.get("calendar.event.get")
    delivery = ItipDelivery(
        clock,
        outbox=outbox,
        read_resource=None if calendar is None else read_resource_of(calendar),
        smtp=smtp,
        server_schedules=server_schedules,
        schedules=None if calendar is None else scheduling_probe_of(calendar),
        sleep=sleep,
    )
    for name in ITIP_CAPABILITIES:
        adapters = adapters.with_adapter(name, delivery)
    copies = adapters.get(ITIP_DELIVER)
    if isinstance(copies, CopyDelivery):  # who writes the attendees' copies (0057, 0068)
        adapters = adapters.with_adapter(ITIP_DELIVER, copies.leaving_to_server(server_schedules))
    return adapters


def scheduling_probe_of(adapter: object) -> SchedulingProbe | None:
    """The ``schedules(calendar_id, organizer)`` of a calendar adapter (decision 0068), or
    ``None`` for an adapter whose calendars never schedule (an ``.ics`` file). A
    dispatching adapter over several calendars answers with its own method, which
    routes by calendar id."""
    probe = getattr(adapter, "schedules", None)
    return cast("SchedulingProbe", probe) if callable(probe) else None
