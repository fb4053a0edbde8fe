"""A real Radicale CalDAV server for the integration tests.

Each fixture starts ``python -m radicale`` from the running interpreter's environment on
``127.0.0.1`` and a free port, with its storage in a temporary folder, waits (a bounded
number of polls) until it answers HTTP, and stops it and deletes the folder at the end of
the session, also when a test failed. No configuration file is read (``--config`` with no
paths), so the machine's ``/etc/radicale/config`` or ``~/.config/radicale/config`` cannot
change the behaviour. Nothing leaves the loopback interface.

* :func:`radicale`: ``[auth] type = none`` (any user name is accepted, no password
  checked) and ``[rights] type = owner_only`` (a user reads and writes below ``/<user>/``).
* :func:`radicale_htpasswd`: the same with a plain-text htpasswd file holding one user,
  whose name and password the fixture reports; a wrong password is refused at once
  (``--auth-delay 0`` on both).
* :func:`xandikos`: ``python -m xandikos.web`` (single user, no authentication, principal
  ``/alice/``, ``--defaults`` creates its calendar home).
* :func:`dav_server`: parametrized over both servers, so a test using it runs on each.

Every test gets its own empty CalDAV cache folder (``CEREBRI_CACHE_DIR``), so no test reads
or writes the user's real cache.
"""

from __future__ import annotations

import http.client
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from cerebri.integrations import CACHE_DIR_ENV

_HTPASSWD_USER = "alice"
_HTPASSWD_PASSWORD = "correct-Horse-7"  # a test fixture value, not a credential

_POLLS = 100
_POLL_SECONDS = 0.1


@dataclass(frozen=True)
class RadicaleServer:
    """A running Radicale: ``url`` is its root, ``http://127.0.0.1:<port>/``.

    ``username``/``password`` are the htpasswd account, ``None`` without authentication.
    """

    url: str
    port: int
    folder: Path
    username: str | None = None
    password: str | None = None


@dataclass(frozen=True)
class DavServer:
    """A running CalDAV server for the cross-server tests.

    ``principal_url`` is the user's principal, below which test calendars are made.
    """

    name: str
    url: str
    principal_url: str
    username: str
    password: str


def _free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago (bind to port 0, then release)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _answers(port: int) -> bool:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
    try:
        connection.request("OPTIONS", "/")
        connection.getresponse().read()
    except OSError:
        return False
    finally:
        connection.close()
    return True


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


def _wait(process: subprocess.Popen[bytes], port: int, log_path: Path, name: str) -> None:
    """Poll until the server answers HTTP; fail the session with its output if it never does."""
    for _ in range(_POLLS):
        if process.poll() is not None or _answers(port):
            break
        time.sleep(_POLL_SECONDS)
    if process.poll() is not None or not _answers(port):
        _stop(process)
        output = log_path.read_text(encoding="utf-8", errors="replace")
        pytest.fail(
            f"{name} did not answer on 127.0.0.1:{port} "
            f"(exit code {process.returncode}); its output:\n{output}"
        )


def _serve(
    folder: Path, *options: str, username: str | None = None, password: str | None = None
) -> Iterator[RadicaleServer]:
    """Start Radicale with its storage below ``folder``; stop it and delete ``folder`` after."""
    port = _free_port()
    log_path = folder / "radicale.log"
    command = [
        sys.executable,
        "-m",
        "radicale",
        "--config",
        "--server-hosts",
        f"127.0.0.1:{port}",
        "--storage-filesystem-folder",
        str(folder / "collections"),
        "--rights-type",
        "owner_only",
        "--logging-level",
        "warning",
        "--auth-delay",
        "0",
        *options,
    ]
    try:
        with log_path.open("wb") as log:
            process = subprocess.Popen(
                command, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT
            )
        try:
            _wait(process, port, log_path, "Radicale")
            yield RadicaleServer(f"http://127.0.0.1:{port}/", port, folder, username, password)
        finally:
            _stop(process)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="session")
def radicale(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RadicaleServer]:
    """Radicale without authentication (any user name is accepted)."""
    yield from _serve(tmp_path_factory.mktemp("radicale"), "--auth-type", "none")


@pytest.fixture(scope="session")
def radicale_htpasswd(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RadicaleServer]:
    """Radicale checking passwords against a plain-text htpasswd file."""
    folder = tmp_path_factory.mktemp("radicale-htpasswd")
    users = folder / "users"
    users.write_text(f"{_HTPASSWD_USER}:{_HTPASSWD_PASSWORD}\n", encoding="utf-8")
    yield from _serve(
        folder,
        "--auth-type",
        "htpasswd",
        "--auth-htpasswd-filename",
        str(users),
        "--auth-htpasswd-encryption",
        "plain",
        username=_HTPASSWD_USER,
        password=_HTPASSWD_PASSWORD,
    )


_XANDIKOS_USER = "alice"


@pytest.fixture(scope="session")
def xandikos(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DavServer]:
    """Xandikos serving one user's calendars from a temporary folder, no authentication."""
    folder = tmp_path_factory.mktemp("xandikos")
    port = _free_port()
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
        f"/{_XANDIKOS_USER}/",
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
            _wait(process, port, log_path, "Xandikos")
            url = f"http://127.0.0.1:{port}/"
            yield DavServer("xandikos", url, f"{url}{_XANDIKOS_USER}/", _XANDIKOS_USER, "unused")
        finally:
            _stop(process)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="session", params=["radicale", "xandikos"])
def dav_server(request: pytest.FixtureRequest) -> DavServer:
    """Each CalDAV server in turn (tests using this run once per server)."""
    if request.param == "xandikos":
        server: DavServer = request.getfixturevalue("xandikos")
        return server
    plain: RadicaleServer = request.getfixturevalue("radicale")
    # Its own user, so these calendars stay out of the other tests' principal "alice".
    user = "carol"
    return DavServer("radicale", plain.url, f"{plain.url}{user}/", user, "unused")


@pytest.fixture(autouse=True)
def _private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh CalDAV cache folder for every test (never the user's own cache)."""
    folder = tmp_path / "caldav-cache"
    monkeypatch.setenv(CACHE_DIR_ENV, str(folder))
    return folder
