"""The ``cerebri worker`` options of iTIP delivery (``message.itip.send``, decision 0052).

Only the option declarations live here, so that importing the CLI stays light; the worker
builds the adapter with :func:`cerebri.cli._itip_worker.itip_adapters`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Final

import typer

__all__ = [
    "SMTP_CREDENTIAL_VARIABLE",
    "NoServerSchedulesOption",
    "OutboxOption",
    "ServerSchedulesOption",
    "SmtpFromOption",
    "SmtpOption",
    "SmtpStartTlsOption",
    "SmtpUserOption",
    "server_schedules_value",
]

SMTP_CREDENTIAL_VARIABLE: Final = "CEREBRI_SMTP_PASSWORD"
"""The environment variable holding the password of ``--smtp-user`` (never an option: a
command line is visible to every user of the machine)."""

OutboxOption = Annotated[
    Path | None,
    typer.Option(
        "--outbox",
        metavar="DIR",
        readable=False,  # cerebri judges the folder (itip.outbox_*), not a usage box
        help="Folder where message.itip.send writes each iTIP message (.ics), its e-mail "
        "(.eml) and its record (.json); created when missing. Default: the folder 'outbox' "
        "in cerebri's user data folder, beside the default store.",
    ),
]
SmtpOption = Annotated[
    str | None,
    typer.Option(
        "--smtp",
        metavar="URL",
        help="Send iTIP messages by e-mail (iMIP, RFC 6047) through this server: "
        "smtp://HOST[:PORT] (default port 25) or smtps://HOST[:PORT] (TLS from the first "
        "byte, default port 465). Without it messages are only written to the outbox.",
    ),
]
SmtpStartTlsOption = Annotated[
    bool,
    typer.Option(
        "--smtp-starttls",
        help="With --smtp smtp://: switch to TLS with STARTTLS (RFC 3207) before anything "
        "else; a server that does not offer it is refused.",
    ),
]
SmtpFromOption = Annotated[
    str | None,
    typer.Option(
        "--smtp-from",
        metavar="EMAIL",
        help="The envelope sender (MAIL FROM) and Sender header. Default: the organizer of "
        "each message, which is always its From header.",
    ),
]
SmtpUserOption = Annotated[
    str | None,
    typer.Option(
        "--smtp-user",
        metavar="NAME",
        help=f"Log in to the SMTP server as NAME; the password is read from the environment "
        f"variable {SMTP_CREDENTIAL_VARIABLE}.",
    ),
]
ServerSchedulesOption = Annotated[
    bool,
    typer.Option(
        "--server-schedules",
        help="Every CalDAV server delivers the iTIP messages and attendees' copies itself "
        "(RFC 6638): cerebri records the messages and sends nothing. Not with --smtp. "
        "Default: each calendar's server is asked (DAV calendar-auto-schedule, a "
        "schedule-outbox-URL, the organizer among its principal's addresses).",
    ),
]
NoServerSchedulesOption = Annotated[
    bool,
    typer.Option(
        "--no-server-schedules",
        help="cerebri delivers every message and copy itself, whatever the server says.",
    ),
]


def server_schedules_value(server: bool, no_server: bool) -> bool | None:
    """``True``/``False`` for the operator's word, ``None`` to ask each server (decision
    0068); both flags: ``input.invalid_option``."""
    if server and no_server:
        from cerebri.errors import CerebriError  # noqa: PLC0415 - fast CLI start

        raise CerebriError(
            "--server-schedules and --no-server-schedules contradict each other",
            code="input.invalid_option",
        )
    return True if server else False if no_server else None
