"""iMIP (RFC 6047): one iTIP message as an e-mail, and its delivery by SMTP (RFC 5321).

:func:`imip_email` wraps the ``VCALENDAR`` bytes of one iTIP message in a MIME message
(RFC 6047 section 2): ``multipart/alternative`` of a short ``text/plain`` part and the
``text/calendar; method=<METHOD>; charset="UTF-8"`` part (the ``method`` parameter equals
the object's ``METHOD``, section 2.4), ``base64`` so that the CRLF lines arrive unchanged.
``From`` is the organizer (RFC 6047 section 3 asks receivers to match it with
``ORGANIZER``), ``Sender`` the SMTP sender when it differs, ``To`` the one recipient, and
``Message-ID`` derived from the idempotency key and the recipient, so every try of one send
carries the same id (RFC 5322 section 3.6.4) and a receiver can drop a duplicate.

:func:`send_email` delivers those bytes to one recipient through the server of
:class:`SmtpSettings` (stdlib :mod:`smtplib`), as one SMTP transaction, and tells precisely
whether the message may have left:

* everything up to the ``354`` answer to ``DATA`` (connect, ``EHLO``, ``STARTTLS``,
  ``AUTH``, ``MAIL FROM``, ``RCPT TO``, ``DATA`` itself) sends no byte of the message: an
  error there is ``before_effect``. Those that may pass (a refused or dropped connection, a
  timeout, a ``4yz`` transient answer: RFC 5321 section 4.2.1) are tried again inside the
  call with tenacity (:data:`SMTP_ATTEMPTS` tries, waits from
  :data:`SMTP_FIRST_WAIT_SECONDS` doubling), then reported retryable;
* once the first byte of content is written, a lost connection or a timeout before the
  final answer is ``itip.smtp_interrupted``: the message **may have been sent**
  (retryable, not ``before_effect``: the executor blocks the step for verification);
* a final ``250`` is a sent message; a final ``4yz``/``5yz`` means the server did not take
  responsibility for it (RFC 5321 section 4.1.1.4), so nothing was sent.

Errors (:class:`~cerebri.execution.adapters.base.AdapterError`): ``itip.smtp_unreachable``
(no connection, or it dropped before ``DATA``; retryable), ``itip.smtp_tls_failed``
(``STARTTLS`` not offered or the TLS handshake failed; not retryable),
``itip.smtp_unauthorized`` (the login was refused or ``AUTH`` is not offered; not
retryable), ``itip.smtp_refused`` (a ``4yz`` answer: retryable; ``5yz``: not), all
``before_effect``; and ``itip.smtp_interrupted`` as above. Each message says whether the
e-mail may have been sent.
"""

from __future__ import annotations

import hashlib
import re
import smtplib
import ssl
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from email import policy
from email.message import EmailMessage
from email.utils import format_datetime
from typing import Final

from tenacity import Retrying, retry_if_exception, stop_after_attempt, wait_exponential

from cerebri.execution.adapters.base import AdapterError

__all__ = [
    "SMTP_ATTEMPTS",
    "SMTP_FIRST_WAIT_SECONDS",
    "SMTP_TIMEOUT_SECONDS",
    "SmtpReceipt",
    "SmtpSettings",
    "imip_email",
    "message_id",
    "send_email",
]

SMTP_ATTEMPTS: Final = 3
"""Tries of one SMTP transaction inside one invocation, for failures before ``DATA``."""
SMTP_FIRST_WAIT_SECONDS: Final = 0.5
"""Wait before the second try, in seconds; it doubles, up to 4 s."""
SMTP_TIMEOUT_SECONDS: Final = 30.0
"""Longest wait for the server on one socket operation, in seconds."""
_NOT_SENT: Final = "nothing was sent"
_MAY_HAVE: Final = "the message may have been sent"


@dataclass(frozen=True, slots=True)
class SmtpSettings:
    """Where and how to send: ``host``/``port``; ``tls`` ``"none"`` (plain),
    ``"starttls"`` (RFC 3207, refused when not offered) or ``"implicit"`` (TLS from the
    first byte, ``smtps``); ``sender``: the envelope ``MAIL FROM`` and ``Sender`` (``None``:
    the organizer's address); ``username``/``password`` for ``AUTH`` (both or neither);
    ``timeout_seconds`` per socket operation."""

    host: str
    port: int = 25
    tls: str = "none"
    sender: str | None = None
    username: str | None = None
    password: str | None = None
    timeout_seconds: float = SMTP_TIMEOUT_SECONDS


@dataclass(frozen=True, slots=True)
class SmtpReceipt:
    """A message the server accepted: ``envelope_from``, ``envelope_to`` (the one recipient)
    and the server's final ``reply`` (code and text)."""

    envelope_from: str
    envelope_to: str
    reply: str


def _bare(address: str) -> str:
    return address.removeprefix("mailto:").removeprefix("MAILTO:").strip()


def message_id(idempotency_key: str, recipient: str, sender: str) -> str:
    """``<hex.itip@domain>``: a ``Message-ID`` (RFC 5322 section 3.6.4) that depends only on
    the idempotency key and the recipient; ``domain`` is ``sender``'s."""
    digest = hashlib.sha256(f"{idempotency_key}\n{_bare(recipient).lower()}".encode()).hexdigest()
    domain = _bare(sender).rpartition("@")[2] or "localhost"
    return f"<{digest[:40]}.itip@{domain}>"


def imip_email(
    calendar: bytes,
    *,
    method: str,
    recipient: str,
    organizer: str,
    sender: str | None,
    subject: str,
    summary: str,
    idempotency_key: str,
    date: datetime,
) -> bytes:
    """The iMIP e-mail (CRLF lines) carrying ``calendar`` (one iTIP ``VCALENDAR``) to
    ``recipient``; ``date`` (aware UTC) is the ``Date`` header; ``summary`` the plain-text
    part. See the module doc for the headers."""
    mail = EmailMessage(policy=policy.SMTP)
    mail["From"] = _bare(organizer)
    if sender is not None and _bare(sender).lower() != _bare(organizer).lower():
        mail["Sender"] = _bare(sender)
    mail["To"] = _bare(recipient)
    mail["Subject"] = subject
    mail["Date"] = format_datetime(date, usegmt=True)
    identity = message_id(idempotency_key, recipient, sender or organizer)
    mail["Message-ID"] = identity
    mail.set_content(summary, cte="quoted-printable")
    mail.add_alternative(
        calendar,
        maintype="text",
        subtype="calendar",
        params={"method": method, "charset": "UTF-8"},
        cte="base64",
    )
    # the stdlib draws a random boundary; one derived from the Message-ID keeps the bytes
    # of every try of one send the same
    boundary = f"cerebri-{identity[1:41]}"
    while boundary in summary or boundary in subject or boundary.encode() in calendar:
        boundary += "_"  # never a line of the content (RFC 2046 section 5.1.1)
    mail.set_boundary(boundary)
    return mail.as_bytes()


def _transient(error: BaseException) -> bool:
    return isinstance(error, AdapterError) and error.retryable and error.before_effect


def _unreachable(settings: SmtpSettings, why: object) -> AdapterError:
    return AdapterError(
        f"the SMTP server {settings.host}:{settings.port} could not be reached or dropped "
        f"the connection before DATA ({why}); {_NOT_SENT}",
        code="itip.smtp_unreachable",
        retryable=True,
        before_effect=True,
    )


def _refused(step: str, code: int, reply: bytes | str) -> AdapterError:
    text = (reply.decode("utf-8", "replace") if isinstance(reply, bytes) else reply)[:200]
    transient = 400 <= code < 500
    return AdapterError(
        f"the SMTP server refused {step} with {code} {text}"
        f" ({'transient' if transient else 'permanent'}, RFC 5321 4.2.1); {_NOT_SENT}",
        code="itip.smtp_refused",
        retryable=transient,
        before_effect=True,
    )


def _open(settings: SmtpSettings) -> smtplib.SMTP:
    """A connected session, after ``EHLO``, ``STARTTLS`` and ``AUTH`` as configured."""
    try:
        if settings.tls == "implicit":
            session: smtplib.SMTP = smtplib.SMTP_SSL(
                settings.host,
                settings.port,
                timeout=settings.timeout_seconds,
                context=ssl.create_default_context(),
            )
        else:
            session = smtplib.SMTP(settings.host, settings.port, timeout=settings.timeout_seconds)
    except ssl.SSLError as error:
        raise _tls_failed(settings, error) from None
    except (OSError, smtplib.SMTPException) as error:
        raise _unreachable(settings, error) from None
    try:
        _hello(session, settings)
    except BaseException:
        session.close()
        raise
    return session


def _tls_failed(settings: SmtpSettings, why: object) -> AdapterError:
    return AdapterError(
        f"TLS with the SMTP server {settings.host}:{settings.port} failed ({why}); {_NOT_SENT}",
        code="itip.smtp_tls_failed",
        before_effect=True,
    )


def _hello(session: smtplib.SMTP, settings: SmtpSettings) -> None:
    try:
        session.ehlo()
        if settings.tls == "starttls":
            session.starttls(context=ssl.create_default_context())
            session.ehlo()
        if settings.username is not None:
            session.login(settings.username, settings.password or "")
    except smtplib.SMTPAuthenticationError as error:
        raise AdapterError(
            f"the SMTP server refused the login of {settings.username!r} "
            f"({error.smtp_code}); {_NOT_SENT}",
            code="itip.smtp_unauthorized",
            before_effect=True,
        ) from None
    except smtplib.SMTPNotSupportedError as error:
        tls = settings.tls == "starttls" and not session.has_extn("starttls")
        raise AdapterError(
            f"the SMTP server does not offer {'STARTTLS' if tls else 'AUTH'} ({error}); "
            f"{_NOT_SENT}",
            code="itip.smtp_tls_failed" if tls else "itip.smtp_unauthorized",
            before_effect=True,
        ) from None
    except ssl.SSLError as error:
        raise _tls_failed(settings, error) from None
    except smtplib.SMTPResponseException as error:
        raise _refused("the session", error.smtp_code, error.smtp_error) from None
    except (OSError, smtplib.SMTPServerDisconnected) as error:
        raise _unreachable(settings, error) from None
    except smtplib.SMTPException as error:  # e.g. no AUTH mechanism both sides know
        raise AdapterError(
            f"the SMTP session could not be set up ({error}); {_NOT_SENT}",
            code="itip.smtp_unauthorized" if settings.username else "itip.smtp_refused",
            before_effect=True,
        ) from None


def _attempt(
    settings: SmtpSettings,
    sender: str,
    to: str,
    data: bytes,
    before_data: Callable[[], None],
) -> SmtpReceipt:
    session = _open(settings)
    try:
        try:
            code, reply = session.mail(sender)
            if code != 250:
                raise _refused(f"MAIL FROM:<{sender}>", code, reply)
            code, reply = session.rcpt(to)
            if code not in {250, 251}:
                raise _refused(f"RCPT TO:<{to}>", code, reply)
            before_data()
            code, reply = session.docmd("DATA")
            if code != 354:
                raise _refused("DATA", code, reply)
        except (OSError, smtplib.SMTPServerDisconnected) as error:
            raise _unreachable(settings, error) from None
        try:
            quoted = re.sub(rb"(?m)^\.", b"..", data)
            if not quoted.endswith(b"\r\n"):
                quoted += b"\r\n"
            session.send(quoted + b".\r\n")
            code, reply = session.getreply()
        except (OSError, smtplib.SMTPException) as error:
            raise AdapterError(
                f"the connection to the SMTP server {settings.host}:{settings.port} was lost "
                f"while the message was being sent ({error}); {_MAY_HAVE}",
                code="itip.smtp_interrupted",
                retryable=True,
            ) from None
        if code != 250:
            raise _refused("the message", code, reply)
        return SmtpReceipt(sender, to, f"{code} {reply.decode('utf-8', 'replace')[:200]}")
    finally:
        try:
            session.quit()
        except (OSError, smtplib.SMTPException):
            session.close()


def send_email(
    settings: SmtpSettings,
    *,
    envelope_from: str,
    recipient: str,
    data: bytes,
    before_data: Callable[[], None],
    sleep: Callable[[float], None],
) -> SmtpReceipt:
    """Deliver ``data`` (an RFC 5322 message, CRLF lines) to ``recipient`` through the server
    of ``settings`` in one SMTP transaction; ``before_data`` is called before each ``DATA``
    command (the caller records that the message may leave from then on); ``sleep`` waits
    between tries (seconds). Errors: see the module doc."""
    retrying = Retrying(
        stop=stop_after_attempt(SMTP_ATTEMPTS),
        wait=wait_exponential(multiplier=SMTP_FIRST_WAIT_SECONDS, max=4),
        retry=retry_if_exception(_transient),
        sleep=sleep,
        reraise=True,
    )
    receipt: SmtpReceipt = retrying(
        _attempt, settings, _bare(envelope_from), _bare(recipient), data, before_data
    )
    return receipt
