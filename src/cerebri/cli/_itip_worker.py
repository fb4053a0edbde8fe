"""``cerebri worker``'s iTIP delivery: the options of :mod:`cerebri.cli._itip_options` made
into an :class:`~cerebri.execution.adapters.itip_delivery.ItipDelivery` (decision 0052).

Refusals are ``input.invalid_option`` (decision 0039), before the worker starts: an SMTP URL
that is not ``smtp://HOST[:PORT]`` or ``smtps://HOST[:PORT]`` (a user or password written in
it included: use ``--smtp-user`` and ``CEREBRI_SMTP_PASSWORD``), ``--smtp-starttls`` with
``smtps://``, ``--smtp-from``/``--smtp-user``/``--smtp-starttls`` without ``--smtp``,
``--smtp-user`` without the password variable, ``--server-schedules`` with ``--smtp``, and an
``--outbox`` that exists but is not a folder.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from urllib.parse import urlsplit

from cerebri.cli._itip_options import SMTP_CREDENTIAL_VARIABLE
from cerebri.clock import Clock
from cerebri.errors import CerebriError
from cerebri.execution.adapters import Adapters
from cerebri.execution.adapters.itip_delivery import (
    SmtpSettings,
    default_outbox,
    with_itip_delivery,
)

__all__ = ["itip_adapters", "smtp_settings"]

_PORTS = {"smtp": 25, "smtps": 465}


def _refuse(message: str) -> CerebriError:
    return CerebriError(message, code="input.invalid_option")


def smtp_settings(
    url: str | None,
    *,
    starttls: bool = False,
    sender: str | None = None,
    user: str | None = None,
    environ: Mapping[str, str] | None = None,
) -> SmtpSettings | None:
    """The SMTP server of ``--smtp URL`` and its companions (``None`` without ``--smtp``);
    the password of ``user`` from ``environ`` (default ``os.environ``)
    [:data:`~cerebri.cli._itip_options.SMTP_CREDENTIAL_VARIABLE`]. Refusals: module doc."""
    if url is None:
        given = [n for n, v in (("--smtp-from", sender), ("--smtp-user", user)) if v is not None]
        if starttls:
            given.append("--smtp-starttls")
        if given:
            raise _refuse(f"{given[0]} goes with --smtp URL")
        return None
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as error:
        raise _refuse(f"--smtp {url!r}: {error}") from None
    if parts.scheme not in _PORTS or not parts.hostname or parts.path not in {"", "/"}:
        raise _refuse(f"--smtp takes smtp://HOST[:PORT] or smtps://HOST[:PORT], not {url!r}")
    if parts.username is not None or parts.password is not None or parts.query:
        raise _refuse(
            f"--smtp takes no user, password or query in the URL: use --smtp-user and "
            f"{SMTP_CREDENTIAL_VARIABLE}"
        )
    if starttls and parts.scheme == "smtps":
        raise _refuse("--smtp-starttls goes with smtp://, not smtps:// (TLS from the start)")
    password = (os.environ if environ is None else environ).get(SMTP_CREDENTIAL_VARIABLE)
    if user is not None and password is None:
        raise _refuse(f"--smtp-user {user}: set the password in {SMTP_CREDENTIAL_VARIABLE}")
    if sender is not None and "@" not in sender:
        raise _refuse(f"--smtp-from {sender!r} is not an e-mail address")
    return SmtpSettings(
        host=parts.hostname,
        port=port or _PORTS[parts.scheme],
        tls="implicit" if parts.scheme == "smtps" else "starttls" if starttls else "none",
        sender=sender,
        username=user,
        password=password if user is not None else None,
    )


def itip_adapters(
    adapters: Adapters,
    clock: Clock,
    *,
    outbox: Path | None,
    smtp: SmtpSettings | None,
    server_schedules: bool | None,
) -> Adapters:
    """``adapters`` with ``message.itip.send``/``message.itip.get`` over ``outbox`` (default
    :func:`~cerebri.execution.adapters.itip_delivery.default_outbox`), sending through
    ``smtp`` or, with ``server_schedules``, leaving delivery to the CalDAV server
    (``None``: where each calendar's server says it schedules, decision 0068)."""
    if server_schedules is True and smtp is not None:
        raise _refuse("--server-schedules leaves delivery to the CalDAV server: not with --smtp")
    folder = default_outbox() if outbox is None else outbox
    if folder.exists() and not folder.is_dir():
        raise _refuse(f"--outbox {folder}: not a folder")
    return with_itip_delivery(
        adapters, clock, outbox=folder, smtp=smtp, server_schedules=server_schedules
    )
