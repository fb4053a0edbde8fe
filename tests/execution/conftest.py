"""Execution fixtures: a real Radicale for the CalDAV adapter tests.

The PostgreSQL fixtures (``postgres_url``, ``store_url``, ...) live in the root
``tests/conftest.py``, shared by every test folder.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests._radicale import RadicaleServer, serve


@pytest.fixture(scope="session")
def radicale(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RadicaleServer]:
    """A real Radicale for the CalDAV adapter tests: no authentication (any user name is
    accepted), ``owner_only`` rights (a user writes below ``/<user>/`` only)."""
    yield from serve(tmp_path_factory.mktemp("radicale"), "--auth-type", "none")
