"""Three real CalDAV servers for the cross-server tests, each with three people's calendars.

:func:`start` runs one of :data:`SERVER_NAMES` on ``127.0.0.1`` and a free port, with its
storage in a temporary folder, and yields a :class:`CalDavServer` whose accounts ``alice``,
``bob`` and ``carol`` (:data:`PEOPLE`) each have a calendar home below which
:meth:`CalDavServer.new_calendar` makes fresh calendars (``MKCALENDAR``, RFC 4791 5.3.1).
The server is stopped and its folder deleted at the end, also when a test failed.

* ``radicale``: ``python -m radicale`` from this environment (:mod:`tests._radicale`), no
  authentication, ``owner_only`` rights: a person's home is ``/<user>/``.
* ``xandikos``: ``python -m xandikos.web``, one principal (``/alice/``), no authentication;
  a person's home is the collection ``/<user>/calendars/`` (made with ``MKCOL``), so the
  three people's calendars live side by side on the one principal.
* ``cyrus``: Cyrus IMAP's CalDAV server (Debian's ``cyrus-imapd`` and ``cyrus-caldav``;
  ``make caldav-deps`` installs them), its ``master`` process with its own configuration
  (no file of ``/etc`` read), SASL passwords in its own ``sasldb``, one password per person
  (:data:`CYRUS_PASSWORD`); a person's home is ``/dav/calendars/user/<user>/``. Cyrus runs
  as the ``cyrus`` system user, so only root can start it; its folder is made outside
  pytest's root-only temporary folder and handed to that user. Its own scheduling
  (RFC 6638, ``caldav_allowscheduling``) stays off: the tests check what cerebri writes and
  sends, not what a server would deliver by itself (decision 0054). When Cyrus cannot run
  (not installed, not root), its tests fail under ``CI=true`` and are skipped elsewhere,
  like the PostgreSQL tests of the root ``conftest.py``.

Nothing leaves the loopback interface. Every request of these helpers is bounded by
:data:`HTTP_TIMEOUT_SECONDS`.
"""

from __future__ import annotations

import imaplib
import itertools
import json
import os
import pwd
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import pytest
from caldav.davclient import DAVClient

from tests._dav_reader import DavReader
from tests._radicale import RadicaleServer, free_port, serve, stop, wait_until_answering

__all__ = [
    "CYRUS_PASSWORD",
    "PEOPLE",
    "SERVER_NAMES",
    "Account",
    "CalDavServer",
    "cyrus_missing",
    "matrix_fixture",
    "on_radicale",
    "start",
]

SERVER_NAMES: Final = ("radicale", "xandikos", "cyrus")
"""The servers of the matrix, in the order the parametrised fixtures run them."""

PEOPLE: Final = ("alice", "bob", "carol")
"""The accounts every server has."""

CYRUS_PASSWORD: Final = "dav-Test-7"  # a test fixture value, not a credential
_UNCHECKED_PASSWORD: Final = "unused"  # Radicale (auth none) and Xandikos check none
HTTP_TIMEOUT_SECONDS: Final = 30

_CYRUS_BIN: Final = Path("/usr/lib/cyrus/bin")
_CYRUS_ADMIN: Final = "cyrusadmin"
_POLLS: Final = 300  # Cyrus: up to 30 s on a loaded machine (seconds on an idle one)
_POLL_SECONDS: Final = 0.1
_calendar_numbers = itertools.count(1)


@dataclass(frozen=True)
class Account:
    """One person on a server: ``home_url`` is the collection below which their calendars
    are made (ends with ``/``); ``principal_url`` their principal (RFC 5397), ``None`` where
    the server has none for them (Xandikos has one principal, ``alice``)."""

    user: str
    password: str
    home_url: str
    principal_url: str | None


@dataclass(frozen=True)
class CalDavServer:
    """A running CalDAV server of the matrix: ``name`` is one of :data:`SERVER_NAMES`,
    ``url`` its root (``http://127.0.0.1:<port>/``), ``accounts`` one per :data:`PEOPLE`."""

    name: str
    url: str
    accounts: tuple[Account, ...]

    def account(self, user: str) -> Account:
        """The account of ``user``; ``KeyError`` for anybody not in :data:`PEOPLE`."""
        for account in self.accounts:
            if account.user == user:
                return account
        raise KeyError(user)

    def client(self, user: str) -> DAVClient:
        """A ``caldav`` client logged in as ``user`` (close it, or use it in ``with``)."""
        account = self.account(user)
        return DAVClient(
            url=account.home_url,
            username=account.user,
            password=account.password,
            auth_type="basic",  # at once: Radicale without authentication never asks
            timeout=HTTP_TIMEOUT_SECONDS,
        )

    def reader(self, user: str, calendar_url: str) -> DavReader:
        """An independent reader (:mod:`tests._dav_reader`) of ``calendar_url`` as ``user``."""
        account = self.account(user)
        return DavReader(calendar_url, username=account.user, password=account.password)

    def new_calendar(self, user: str, slug: str = "cal") -> str:
        """Make a new empty calendar in ``user``'s home and return its URL (ends with ``/``).

        The collection name is ``slug`` (letters, digits, ``-``) with a number unique in
        this process appended, so tests sharing a session server never share a calendar.
        """
        name = f"{_slug(slug)}-{os.getpid()}-{next(_calendar_numbers)}"
        url = f"{self.account(user).home_url}{name}/"
        with self.client(user) as client:
            # Radicale makes a principal's collection when its owner first reads it.
            client.propfind(self.account(user).home_url, depth=0)
            _created(client.mkcalendar(url).status, "MKCALENDAR", url)
        return url

    def write_credentials(self, path: Path) -> Path:
        """Write a cerebri credentials file (``--caldav-credentials``, decision 0037) that
        maps each person's home to their login; ``chmod 600``, as cerebri requires."""
        entries = {
            account.home_url: {"user": account.user, "password": account.password}
            for account in self.accounts
        }
        path.write_text(json.dumps(entries, indent=2, sort_keys=True), encoding="utf-8")
        path.chmod(0o600)
        return path


def _created(status: int, method: str, url: str) -> None:
    if status != 201:  # RFC 4791 5.3.1 and RFC 4918 9.3.1: 201 Created
        raise RuntimeError(f"{method} {url} answered HTTP {status}, not 201")


def _slug(text: str) -> str:
    cleaned = re.sub(r"[^a-z0-9-]+", "-", text.lower()).strip("-")
    return cleaned[:40] or "cal"


def start(name: str, folder: Path, *, scheduling: bool = False) -> Iterator[CalDavServer]:
    """Start the server ``name`` (one of :data:`SERVER_NAMES`) with its storage below
    ``folder`` (Cyrus: a folder of its own, see the module docstring); stop it after.
    ``scheduling`` turns Cyrus's own RFC 6638 scheduling on (``caldav_allowscheduling``);
    the other two have no such switch (decision 0068)."""
    if name == "radicale":
        yield from _radicale(folder)
    elif name == "xandikos":
        yield from _xandikos(folder)
    elif name == "cyrus":
        yield from _cyrus(scheduling=scheduling)
    else:
        raise ValueError(f"unknown CalDAV server {name!r}; one of {SERVER_NAMES}")


def on_radicale(server: RadicaleServer) -> CalDavServer:
    """The matrix's view of a running Radicale without authentication (the ``radicale``
    session fixtures): each person's home is ``/<user>/``."""
    accounts = tuple(
        Account(user, _UNCHECKED_PASSWORD, f"{server.url}{user}/", f"{server.url}{user}/")
        for user in PEOPLE
    )
    return CalDavServer("radicale", server.url, accounts)


def _radicale(folder: Path) -> Iterator[CalDavServer]:
    for server in serve(folder, "--auth-type", "none"):
        yield on_radicale(server)


def matrix_fixture(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[CalDavServer]:
    """The body of a session fixture parametrised over :data:`SERVER_NAMES`: Radicale is
    the folder's own ``radicale`` session fixture (no second process), the others are
    started here."""
    name: str = request.param
    if name == "radicale":
        yield on_radicale(request.getfixturevalue("radicale"))
    else:
        yield from start(name, tmp_path_factory.mktemp(name))


@contextmanager
def run_xandikos(folder: Path, user: str) -> Iterator[str]:
    """``python -m xandikos.web`` on ``127.0.0.1`` and a free port, its data and state in
    ``folder`` (deleted after), ``--defaults`` making ``user``'s principal and calendar home
    (no authentication); yields its base URL once it answers HTTP, stops it at the end."""
    port = free_port()
    log_path = folder / "xandikos.log"
    command = [
        sys.executable,
        "-m",
        "xandikos.web",
        "-d",
        str(folder / "data"),
        "-l",
        "127.0.0.1",
        "-p",
        str(port),
        "--defaults",
        "--current-user-principal",
        f"/{user}/",
        "--no-detect-systemd",
        "--state-dir",
        str(folder / "state"),
    ]
    try:
        with log_path.open("wb") as log:
            process = subprocess.Popen(
                command, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT
            )
        try:
            wait_until_answering(process, port, log_path, "Xandikos")
            yield f"http://127.0.0.1:{port}/"
        finally:
            stop(process)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _xandikos(folder: Path) -> Iterator[CalDavServer]:
    with run_xandikos(folder, PEOPLE[0]) as url:
        with DAVClient(url=url, timeout=HTTP_TIMEOUT_SECONDS) as client:
            for user in PEOPLE[1:]:  # alice's principal and home come from --defaults
                for path in (f"{user}/", f"{user}/calendars/"):
                    _created(client.mkcol(f"{url}{path}", "").status, "MKCOL", path)
        accounts = tuple(
            Account(
                user,
                _UNCHECKED_PASSWORD,
                f"{url}{user}/calendars/",
                f"{url}{user}/" if user == PEOPLE[0] else None,
            )
            for user in PEOPLE
        )
        yield CalDavServer("xandikos", url, accounts)


def cyrus_missing() -> str | None:
    """Why Cyrus cannot be started here, or ``None`` when it can."""
    needed = [_CYRUS_BIN / "master", _CYRUS_BIN / "httpd", _CYRUS_BIN / "imapd"]
    absent = [str(path) for path in needed if not path.exists()]
    if absent or shutil.which("saslpasswd2") is None:
        return (
            f"Cyrus IMAP's CalDAV server is not installed ({', '.join(absent) or 'saslpasswd2'}"
            " missing): run `make caldav-deps` (Debian's cyrus-imapd, cyrus-caldav, sasl2-bin)"
        )
    if os.geteuid() != 0:
        return "Cyrus runs as the 'cyrus' system user: only root can start it"
    try:
        pwd.getpwnam("cyrus")
    except KeyError:
        return "no 'cyrus' system user (Debian's cyrus-common makes it)"
    return None


def _cyrus_unavailable(reason: str) -> None:
    if os.environ.get("CI", "").strip().lower() in {"true", "1", "yes"}:
        pytest.fail(f"CI run without Cyrus: {reason}")
    pytest.skip(f"Cyrus not available: {reason}")


def _cyrus_config(
    folder: Path, http_port: int, imap_port: int, *, scheduling: bool = False
) -> None:
    subfolders = ("spool", "sieve", "run/socket", "run/proc", "run/lock")
    # What Debian's cyrus-makedirs makes below the configuration folder (lock files, etc.).
    configs = ("db", "socket", "log", "msg", "ptclient", "quota", "user", "proc", "lock")
    for sub in (*subfolders, *(f"config/{name}" for name in configs)):
        (folder / sub).mkdir(parents=True, exist_ok=True)
    settings = {
        "configdirectory": folder / "config",
        "defaultpartition": "default",
        "partition-default": folder / "spool",
        "proc_path": folder / "run/proc",
        "mboxname_lockpath": folder / "run/lock",
        "lmtpsocket": folder / "run/socket/lmtp",
        "idlesocket": folder / "run/socket/idle",
        "notifysocket": folder / "run/socket/notify",
        "sievedir": folder / "sieve",
        "servername": "localhost",
        "admins": _CYRUS_ADMIN,
        "httpmodules": "caldav",
        "allowplaintext": "yes",
        "sasl_pwcheck_method": "auxprop",
        "sasl_auxprop_plugin": "sasldb",
        "sasl_sasldb_path": folder / "sasldb2",
        "sasl_mech_list": "PLAIN",
        "unixhierarchysep": "yes",
        "caldav_allowscheduling": "on" if scheduling else "off",
        "syslog_prefix": "cerebri-test-cyrus",
    }
    (folder / "imapd.conf").write_text(
        "".join(f"{key}: {value}\n" for key, value in settings.items()), encoding="utf-8"
    )
    conf = folder / "imapd.conf"
    (folder / "cyrus.conf").write_text(
        "START {\n"
        f'  recover cmd="ctl_cyrusdb -r -C {conf}"\n'
        "}\n"
        "SERVICES {\n"
        f'  http cmd="httpd -C {conf}" listen="127.0.0.1:{http_port}" prefork=1\n'
        f'  imap cmd="imapd -C {conf}" listen="127.0.0.1:{imap_port}" prefork=0\n'
        "}\n",
        encoding="utf-8",
    )
    for user in (_CYRUS_ADMIN, *PEOPLE):
        subprocess.run(
            ["saslpasswd2", "-p", "-c", "-f", str(folder / "sasldb2"), "-u", "localhost", user],
            input=CYRUS_PASSWORD.encode(),
            check=True,
            capture_output=True,
            timeout=HTTP_TIMEOUT_SECONDS,
        )
    owner = pwd.getpwnam("cyrus")
    for path in (folder, *folder.rglob("*")):
        os.chown(path, owner.pw_uid, owner.pw_gid)


def _wait_for_port(process: subprocess.Popen[bytes], port: int) -> bool:
    for _ in range(_POLLS):
        if process.poll() is not None:
            return False
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return True
        except OSError:
            time.sleep(_POLL_SECONDS)  # waiting for another process to start, not moving time
    return False


def _create_mailboxes(imap_port: int) -> None:
    """Every person's mailbox (``user/<name>``), which Cyrus's CalDAV homes live in."""
    imap = imaplib.IMAP4("127.0.0.1", imap_port, timeout=HTTP_TIMEOUT_SECONDS)
    try:
        imap.login(_CYRUS_ADMIN, CYRUS_PASSWORD)
        for user in PEOPLE:
            status, answer = imap.create(f"user/{user}")
            if status != "OK":
                raise RuntimeError(f"Cyrus refused to create user/{user}: {answer!r}")
    finally:
        imap.logout()


def _cyrus(*, scheduling: bool = False) -> Iterator[CalDavServer]:
    reason = cyrus_missing()
    if reason is not None:
        _cyrus_unavailable(reason)
    folder = Path(tempfile.mkdtemp(prefix="cerebri-test-cyrus-"))
    http_port, imap_port = free_port(), free_port()
    log_path = folder / "master.log"
    try:
        _cyrus_config(folder, http_port, imap_port, scheduling=scheduling)
        command = [
            str(_CYRUS_BIN / "master"),
            "-C",
            str(folder / "imapd.conf"),
            "-M",
            str(folder / "cyrus.conf"),
            "-p",
            str(folder / "master.pid"),
            "-D",
        ]
        with log_path.open("wb") as log:
            # A session of its own: on shutdown the master signals its whole process group,
            # which would otherwise be pytest's and every other server's.
            process = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        try:
            if not _wait_for_port(process, imap_port):
                output = log_path.read_text(encoding="utf-8", errors="replace")
                pytest.fail(f"Cyrus IMAP did not answer on {imap_port}; its output:\n{output}")
            wait_until_answering(process, http_port, log_path, "Cyrus")
            _create_mailboxes(imap_port)
            url = f"http://127.0.0.1:{http_port}/"
            accounts = tuple(
                Account(
                    user,
                    CYRUS_PASSWORD,
                    f"{url}dav/calendars/user/{user}/",
                    f"{url}dav/principals/user/{user}/",
                )
                for user in PEOPLE
            )
            yield CalDavServer("cyrus", url, accounts)
        finally:
            stop(process)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
