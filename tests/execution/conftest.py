"""Execution fixtures: a real Radicale for the CalDAV adapter tests; the three servers of
the cross-server matrix with alice's, bob's and carol's calendars (``dav_matrix``,
``people_calendars``, :mod:`tests._dav_servers`); a real SMTP server (``smtp_server``,
:mod:`tests._smtp`).

The PostgreSQL fixtures (``postgres_url``, ``store_url``, ...) live in the root
``tests/conftest.py``, shared by every test folder.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests._dav_servers import PEOPLE, SERVER_NAMES, CalDavServer, matrix_fixture
from tests._radicale import RadicaleServer, serve
from tests._smtp import SmtpRecorder, serve_smtp


@pytest.fixture(scope="session")
def radicale(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RadicaleServer]:
    """A real Radicale for the CalDAV adapter tests: no authentication (any user name is
    accepted), ``owner_only`` rights (a user writes below ``/<user>/`` only)."""
    yield from serve(tmp_path_factory.mktemp("radicale"), "--auth-type", "none")


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
