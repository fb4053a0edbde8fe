"""Which CalDAV login each URL is read with: a credentials file, netrc, one default login.

Two people's calendars on one server need two logins, and passwords do not belong on the
command line. For each URL the first of these that applies gives the login
(docs/decisions/0037), most specific first:

1. the entry of a **credentials file** (``--caldav-credentials FILE`` of find-slot, freebusy,
   worker and mcp) whose URL prefix matches the URL on the most path segments; a JSON
   object mapping an ``http(s)`` URL prefix to ``{"user": NAME}`` with at most one of
   ``"password": TEXT`` or ``"password_env": VARIABLE`` (the password read from that
   environment variable)::

       {"https://dav.example.org/alice/": {"user": "alice", "password_env": "ALICE_DAV"},
        "https://dav.example.org/bob/": {"user": "bob", "password_env": "BOB_DAV"}}

   A prefix matches a URL with the same scheme, host and port (default ports are implied)
   whose path starts with the prefix's path segments (``/alice`` matches ``/alice/work/``,
   not ``/alicia/``);
2. credentials written into the URL itself (``https://user:pw@host/...``), kept as they are;
3. the **netrc** entry for the URL's host (``machine`` name, else ``default``), read with
   Python's :mod:`netrc` from ``$NETRC`` or ``~/.netrc``, as curl and the ``requests``
   family read it (per host: ports and paths are not part of a netrc entry);
4. the **default login** given by the caller (``CEREBRI_CALDAV_USER`` /
   ``CEREBRI_CALDAV_PASSWORD``, or ``--caldav-user``/``--caldav-password``).

A credentials file and a netrc file must belong to the user running cerebri and must not be
readable or writable by anybody else (``chmod 600``), as ssh and Python's own netrc reader
ask; otherwise :class:`CredentialsError` ``credentials.insecure``. A file that cannot be
read or does not have the shape above is ``credentials.invalid``; so is a
``password_env`` naming an unset variable. Messages name files, prefixes and variables,
never a password.
"""

from __future__ import annotations

import json
import netrc
import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final, Literal
from urllib.parse import unquote, urlsplit

from cerebri.errors import CerebriError

__all__ = ["CalDAVLogins", "CredentialsError", "Login"]

_DEFAULT_PORTS: Final = {"http": 80, "https": 443}
_ENTRY_KEYS: Final = frozenset({"user", "password", "password_env"})
MAX_CREDENTIALS_BYTES: Final = 1024 * 1024
"""Largest credentials or netrc file read, in bytes."""


class CredentialsError(CerebriError):
    """A credentials or netrc file cannot be used.

    Codes: ``credentials.invalid`` (unreadable, malformed, an unset ``password_env``
    variable) and ``credentials.insecure`` (the file is not the user's own, or others may
    read or write it).
    """

    code = "credentials.invalid"

    def __init__(
        self, message: str, *, code: Literal["credentials.invalid", "credentials.insecure"]
    ) -> None:
        super().__init__(message, code=code)


@dataclass(frozen=True, slots=True)
class Login:
    """The login one URL is read with.

    Attributes:
        username, password: sent when the server asks (``None``: none, or the URL's own).
        origin: where they come from, for messages (never the password).
    """

    username: str | None
    password: str | None = field(repr=False)
    origin: str

    def shown(self) -> str:
        """The login for a message, never its password: ``user 'bob' from <origin>``."""
        who = f"user {self.username!r}" if self.username is not None else "no user name"
        return f"{who} from {self.origin}"


_Key = tuple[str, str, int, tuple[str, ...]]


def _key(url: str) -> _Key | None:
    """``(scheme, host, port, path segments)`` of an ``http(s)`` URL; ``None`` otherwise."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORTS or not parts.hostname:
        return None
    segments = tuple(unquote(part) for part in parts.path.split("/") if part)
    return scheme, parts.hostname.lower(), port or _DEFAULT_PORTS[scheme], segments


def _check_private(path: Path, what: str) -> None:
    """``credentials.insecure`` unless ``path`` is the user's own and private (POSIX)."""
    if os.name != "posix":
        return
    try:
        info = path.stat()
    except OSError as exc:
        raise CredentialsError(
            f"{what} {path} cannot be read ({exc.strerror})", code="credentials.invalid"
        ) from None
    if info.st_uid != os.geteuid() or info.st_mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise CredentialsError(
            f"{what} {path} must belong to you and be private to you (chmod 600 {path}); "
            f"it is mode {stat.filemode(info.st_mode)}",
            code="credentials.insecure",
        )


def _read_text(path: Path, what: str) -> str:
    _check_private(path, what)
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_CREDENTIALS_BYTES + 1)
    except OSError as exc:
        raise CredentialsError(
            f"{what} {path} cannot be read ({exc.strerror})", code="credentials.invalid"
        ) from None
    if len(data) > MAX_CREDENTIALS_BYTES:
        raise CredentialsError(
            f"{what} {path} is larger than {MAX_CREDENTIALS_BYTES} bytes",
            code="credentials.invalid",
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise CredentialsError(f"{what} {path} is not UTF-8", code="credentials.invalid") from None


def _invalid(path: Path, message: str) -> CredentialsError:
    return CredentialsError(f"credentials file {path}: {message}", code="credentials.invalid")


def _entry(path: Path, prefix: str, value: object, environ: Mapping[str, str]) -> Login:
    if not isinstance(value, dict) or not set(value) <= _ENTRY_KEYS:
        raise _invalid(
            path,
            f'the entry for {prefix!r} must be an object with "user" and at most one of '
            '"password" or "password_env"',
        )
    user, password, variable = value.get("user"), value.get("password"), value.get("password_env")
    if not isinstance(user, str) or not user:
        raise _invalid(path, f'the entry for {prefix!r} needs "user" (a non-empty string)')
    if password is not None and variable is not None:
        raise _invalid(path, f'the entry for {prefix!r} has both "password" and "password_env"')
    if password is not None and not isinstance(password, str):
        raise _invalid(path, f'the entry for {prefix!r}: "password" must be a string')
    if variable is not None:
        if not isinstance(variable, str) or not variable:
            raise _invalid(path, f'the entry for {prefix!r}: "password_env" must name a variable')
        if variable not in environ:
            raise _invalid(
                path,
                f"the entry for {prefix!r} reads its password from ${variable}, which is unset",
            )
        password = environ[variable]
    return Login(user, password, f"credentials file {path} (entry {prefix})")


def _credentials_file(path: Path, environ: Mapping[str, str]) -> dict[_Key, Login]:
    text = _read_text(path, "credentials file")
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        raise _invalid(path, f"not JSON (line {exc.lineno}: {exc.msg})") from None
    if not isinstance(document, dict):
        raise _invalid(path, "must be a JSON object mapping URL prefixes to logins")
    entries: dict[_Key, Login] = {}
    for prefix, value in document.items():
        key = _key(prefix)
        if key is None or "@" in urlsplit(prefix).netloc:
            raise _invalid(
                path, f"{prefix!r} is not an http:// or https:// URL prefix without a login"
            )
        if key in entries:
            raise _invalid(path, f"{prefix!r} names the same prefix as another entry")
        entries[key] = _entry(path, prefix, value, environ)
    return entries


def _netrc_path(environ: Mapping[str, str], home: Path | None) -> tuple[Path | None, bool]:
    """The netrc file to read and whether it was named explicitly (``$NETRC``)."""
    named = environ.get("NETRC")
    if named:
        return Path(named).expanduser(), True
    return (home / ".netrc" if home is not None else None), False


class CalDAVLogins:
    """The login for each CalDAV URL (module doc for the order).

    Build one with :meth:`load`; :meth:`login_for` answers per URL.
    """

    __slots__ = ("_default", "_entries", "_netrc", "_netrc_path")

    def __init__(
        self,
        entries: Mapping[_Key, Login],
        default: Login,
        netrc_path: Path | None,
    ) -> None:
        self._entries = dict(entries)
        self._default = default
        self._netrc_path = netrc_path
        self._netrc: netrc.netrc | None = None

    @classmethod
    def load(
        cls,
        *,
        credentials_file: Path | None,
        username: str | None,
        password: str | None,
        environ: Mapping[str, str],
        home: Path | None,
    ) -> CalDAVLogins:
        """Read ``credentials_file`` (if given) now; netrc (``$NETRC`` in ``environ``, else
        ``home/.netrc`` when it exists) on the first URL that needs it.

        Raises:
            CredentialsError: ``credentials.invalid`` / ``credentials.insecure`` for the
                credentials file, or for a ``$NETRC`` file that does not exist.
        """
        entries = {} if credentials_file is None else _credentials_file(credentials_file, environ)
        path, named = _netrc_path(environ, home)
        if path is not None and not path.exists():
            if named:
                raise CredentialsError(
                    f"NETRC names {path}, which does not exist", code="credentials.invalid"
                )
            path = None
        default = Login(
            username,
            password,
            "the default login (CEREBRI_CALDAV_USER/CEREBRI_CALDAV_PASSWORD)"
            if username is not None or password is not None
            else "no login",
        )
        return cls(entries, default, path)

    def login_for(self, url: str) -> Login:
        """The login ``url`` is read with.

        Raises:
            CredentialsError: the netrc file is insecure or malformed (read on first use).
        """
        key = _key(url)
        if key is None:
            return self._default  # the fetch refuses the URL itself
        scheme, host, port, segments = key
        matching = [
            (len(e_segments), login)
            for (e_scheme, e_host, e_port, e_segments), login in self._entries.items()
            if (e_scheme, e_host, e_port) == (scheme, host, port)
            and segments[: len(e_segments)] == e_segments
        ]
        if matching:  # prefixes are distinct, so the longest is one entry
            return max(matching, key=lambda item: item[0])[1]
        if urlsplit(url.strip()).username:
            return Login(None, None, "the URL's own user name")
        found = self._from_netrc(host)
        return found if found is not None else self._default

    def _from_netrc(self, host: str) -> Login | None:
        if self._netrc_path is None:
            return None
        if self._netrc is None:
            path = self._netrc_path
            _read_text(path, "netrc file")  # private, bounded, UTF-8
            try:
                self._netrc = netrc.netrc(str(path))
            except netrc.NetrcParseError as exc:  # its text may quote a token: not shown
                raise CredentialsError(
                    f"netrc file {path} is not valid netrc (line {exc.lineno})",
                    code="credentials.invalid",
                ) from None
            except OSError as exc:
                raise CredentialsError(
                    f"netrc file {path} cannot be read ({exc.strerror})",
                    code="credentials.invalid",
                ) from None
        found = self._netrc.authenticators(host)
        if found is None:
            return None
        user, _account, password = found
        return Login(user or None, password or None, f"netrc file {self._netrc_path} ({host})")
