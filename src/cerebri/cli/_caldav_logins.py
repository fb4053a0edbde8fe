"""``--caldav-credentials FILE``: which login each CalDAV URL of a command is read with.

Shared by ``find-slot``, ``freebusy``, ``worker`` and ``mcp``, so every command that reads or
writes CalDAV picks a URL's login the same way (a credentials file entry, the URL's own
login, netrc, then the default login: :mod:`cerebri.integrations.credentials`,
docs/decisions/0037).
"""

from __future__ import annotations

import os
from collections.abc import Collection
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from cerebri.errors import CerebriError

if TYPE_CHECKING:
    from cerebri.integrations.credentials import CalDAVLogins

__all__ = ["CredentialsOption", "caldav_logins"]

CredentialsOption = Annotated[
    Path | None,
    typer.Option(
        "--caldav-credentials",
        metavar="FILE",
        readable=False,  # cerebri judges the file: credentials.*, not a usage box
        help="A JSON file (chmod 600) mapping CalDAV URL prefixes to logins, e.g. "
        '{"https://dav.example.org/bob/": {"user": "bob", "password_env": "BOB_DAV"}}; '
        "before netrc ($NETRC, ~/.netrc) and --caldav-user/--caldav-password.",
    ),
]


def caldav_logins(
    credentials: Path | None,
    user: str | None,
    password: str | None,
    urls: Collection[str],
    *,
    url_options: str,
) -> CalDAVLogins | None:
    """The logins of a command's CalDAV ``urls``: ``None`` when it names none.

    ``credentials`` is the ``--caldav-credentials`` file (read now), ``user``/``password``
    the default login; netrc is ``$NETRC``, else ``~/.netrc`` (read when a URL needs it).
    ``url_options`` names the options that give URLs, for the message.

    Raises:
        CerebriError: ``input.invalid_option`` for ``--caldav-credentials`` without any
            CalDAV URL (a file given for nothing is a mistake, not a default).
        CredentialsError: ``credentials.invalid`` / ``credentials.insecure`` for the file,
            or for a ``$NETRC`` naming a missing file.
    """
    if not urls:
        if credentials is not None:
            raise CerebriError(
                f"--caldav-credentials gives logins for CalDAV calendars, and no {url_options} "
                "is given",
                code="input.invalid_option",
            )
        return None
    from cerebri.integrations.credentials import CalDAVLogins  # noqa: PLC0415 - network edge

    try:
        home: Path | None = Path.home()
    except RuntimeError:  # no home folder known: no ~/.netrc
        home = None
    return CalDAVLogins.load(
        credentials_file=credentials,
        username=user,
        password=password,
        environ=os.environ,
        home=home,
    )
