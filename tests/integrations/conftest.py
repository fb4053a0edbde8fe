"""Real CalDAV servers for the integration tests.

Each fixture starts its server from the running interpreter's environment on ``127.0.0.1``
and a free port, with its storage in a temporary folder, waits (a bounded number of polls)
until it answers HTTP, and stops it and deletes the folder at the end of the session, also
when a test failed (Radicale through :func:`tests._radicale.serve`, which reads no
configuration file). Nothing leaves the loopback interface.

* :func:`radicale`: ``[auth] type = none`` (any user name is accepted, no password
  checked) and ``[rights] type = owner_only`` (a user reads and writes below ``/<user>/``).
* :func:`radicale_htpasswd`: the same with a plain-text htpasswd file holding one user,
  whose name and password the fixture reports; a wrong password is refused at once
  (``--auth-delay 0`` on both).
* :func:`xandikos`: ``python -m xandikos.web`` (single user, no authentication, principal
  ``/alice/``, ``--defaults`` creates its calendar home).
* :func:`dav_server`: parametrized over both servers, so a test using it runs on each.
* :func:`dav_matrix`: parametrized over Radicale, Xandikos and Cyrus IMAP's CalDAV server,
  each with the accounts alice, bob and carol (:mod:`tests._dav_servers`);
  :func:`people_calendars` makes a fresh calendar per person on it for one test.
* :func:`smtp_server`: a real SMTP server recording every message (:mod:`tests._smtp`).

Every test gets its own empty CalDAV cache folder (``CEREBRI_CACHE_DIR``), so no test reads
or writes the user's real cache.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from cerebri.integrations import CACHE_DIR_ENV
from tests._dav_servers import PEOPLE, SERVER_NAMES, CalDavServer, matrix_fixture, run_xandikos
from tests._radicale import RadicaleServer, serve
from tests._smtp import SmtpRecorder, serve_smtp

_HTPASSWD_USER = "alice"
_HTPASSWD_PASSWORD = "correct-Horse-7"  # a test fixture value, not a credential

__all__ = ["DavServer", "RadicaleServer"]


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


@pytest.fixture(scope="session")
def radicale(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RadicaleServer]:
    """Radicale without authentication (any user name is accepted)."""
    yield from serve(tmp_path_factory.mktemp("radicale"), "--auth-type", "none")


@pytest.fixture(scope="session")
def radicale_htpasswd(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RadicaleServer]:
    """Radicale checking passwords against a plain-text htpasswd file."""
    folder = tmp_path_factory.mktemp("radicale-htpasswd")
    users = folder / "users"
    users.write_text(f"{_HTPASSWD_USER}:{_HTPASSWD_PASSWORD}\n", encoding="utf-8")
    yield from serve(
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
    with run_xandikos(folder, _XANDIKOS_USER) as url:
        yield DavServer("xandikos", url, f"{url}{_XANDIKOS_USER}/", _XANDIKOS_USER, "unused")


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


@pytest.fixture(scope="session", params=SERVER_NAMES)
def dav_matrix(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[CalDavServer]:
    """Each of Radicale, Xandikos and Cyrus in turn, with alice, bob and carol."""
    yield from matrix_fixture(request, tmp_path_factory)


@pytest.fixture
def people_calendars(dav_matrix: CalDavServer, request: pytest.FixtureRequest) -> dict[str, str]:
    """A new empty calendar for each of alice, bob and carol: person -> calendar URL."""
    return {user: dav_matrix.new_calendar(user, request.node.name) for user in PEOPLE}


@pytest.fixture
def smtp_server() -> Iterator[SmtpRecorder]:
    """A real SMTP server on a free loopback port, for one test."""
    yield from serve_smtp()


@pytest.fixture(autouse=True)
def _private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh CalDAV cache folder for every test (never the user's own cache)."""
    folder = tmp_path / "caldav-cache"
    monkeypatch.setenv(CACHE_DIR_ENV, str(folder))
    return folder
