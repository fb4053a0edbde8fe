"""A real SMTP server for the tests: ``aiosmtpd`` on ``127.0.0.1`` and a free port, keeping
every message it accepts in memory.

:func:`serve_smtp` starts it (in ``aiosmtpd``'s own thread and event loop) and stops it
after. Each accepted message becomes a :class:`ReceivedMail`: the SMTP envelope (``MAIL
FROM``, ``RCPT TO``, RFC 5321 3.3), the parsed message (the stdlib's :mod:`email` with the
modern policy) and its ``text/calendar`` parts (RFC 6047 iMIP: the part carries the iTIP
``METHOD`` as a Content-Type parameter, RFC 5546 3.1). :meth:`SmtpRecorder.messages` is a
snapshot taken under a lock, so a test may read while the server thread appends.

``smtplib``'s ``sendmail`` returns only after the server has answered the end of ``DATA``,
so a test reads the messages right after sending: no waiting. No authentication, no TLS;
nothing leaves the loopback interface.
"""

from __future__ import annotations

import email
import email.policy
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from email.message import EmailMessage
from types import SimpleNamespace
from typing import Any

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, Envelope, Session

from tests._radicale import free_port

__all__ = ["CalendarPart", "ReceivedMail", "SmtpRecorder", "serve_smtp"]


@dataclass(frozen=True)
class CalendarPart:
    """One ``text/calendar`` part: ``method`` is its Content-Type ``method`` parameter
    (upper case, ``None`` when absent), ``text`` the decoded iCalendar text."""

    method: str | None
    text: str


@dataclass(frozen=True)
class ReceivedMail:
    """One accepted message: envelope sender and recipients, the raw bytes and the parsed
    message, and its ``text/calendar`` parts in document order."""

    mail_from: str
    rcpt_tos: tuple[str, ...]
    raw: bytes
    message: EmailMessage
    calendar_parts: tuple[CalendarPart, ...]


def _calendar_parts(message: EmailMessage) -> tuple[CalendarPart, ...]:
    parts: list[CalendarPart] = []
    for part in message.walk():
        if part.get_content_type() != "text/calendar":
            continue
        method = part.get_param("method")
        payload = part.get_payload(decode=True)
        if not isinstance(payload, bytes):
            raise ValueError("a text/calendar part without a body")
        charset = part.get_content_charset() or "utf-8"
        parts.append(
            CalendarPart(None if method is None else str(method).upper(), payload.decode(charset))
        )
    return tuple(parts)


class SmtpRecorder:
    """What the server accepted; :meth:`on_data` is the handler's ``handle_DATA`` hook."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._messages: list[ReceivedMail] = []
        self.host = "127.0.0.1"
        self.port = 0

    async def on_data(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        """Record the message; answer ``250`` (RFC 5321 4.2.2)."""
        content = envelope.original_content or b""
        raw = content if isinstance(content, bytes) else content.encode("utf-8")
        parsed = email.message_from_bytes(raw, policy=email.policy.default)
        if not isinstance(parsed, EmailMessage):
            raise TypeError("the email policy did not give an EmailMessage")
        received = ReceivedMail(
            mail_from=str(envelope.mail_from),
            rcpt_tos=tuple(str(rcpt) for rcpt in envelope.rcpt_tos),
            raw=raw,
            message=parsed,
            calendar_parts=_calendar_parts(parsed),
        )
        with self._lock:
            self._messages.append(received)
        return "250 Message accepted for delivery"

    def messages(self) -> tuple[ReceivedMail, ...]:
        """Every message accepted so far, in arrival order."""
        with self._lock:
            return tuple(self._messages)

    def clear(self) -> None:
        """Forget the messages accepted so far."""
        with self._lock:
            self._messages.clear()


def serve_smtp() -> Iterator[SmtpRecorder]:
    """Start an SMTP server on ``127.0.0.1`` and a free port (``recorder.port``); stop it
    after."""
    recorder = SmtpRecorder()
    recorder.port = free_port()
    options: dict[str, Any] = {"ready_timeout": 10.0}
    handler = SimpleNamespace(handle_DATA=recorder.on_data)  # the hook aiosmtpd looks up
    controller = Controller(handler, hostname=recorder.host, port=recorder.port, **options)
    controller.start()
    try:
        yield recorder
    finally:
        controller.stop()
