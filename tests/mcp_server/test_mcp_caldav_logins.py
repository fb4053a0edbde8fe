"""``cerebri mcp`` reads each configured CalDAV source with its own login (issue 21 item 12,
docs/decisions/0037): two people's calendars on one Radicale (each may read only their own,
:mod:`tests.integrations.test_calendar_identity`), as a real server process over stdio."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import mcp_types as types
import pytest
from anyio.from_thread import start_blocking_portal
from mcp import Client

from tests.integrations.test_calendar_identity import (
    PASSWORDS,
    Server,
    _credentials,
    _private,
    serve_two_users,
)
from tests.mcp_server.support import Live, error_of, server_parameters

FREEBUSY = {
    "caldav": ["alice", "bob"],
    "between": "2026-10-05T09:00Z/2026-10-05T17:00Z",
    "tz": "UTC",
}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    yield from serve_two_users(tmp_path_factory.mktemp("radicale-mcp-logins"))


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    """An empty home (no ~/.netrc) and the two passwords the credentials file names."""
    (tmp_path / "home").mkdir()
    return {
        "HOME": str(tmp_path / "home"),
        "ALICE_DAV": PASSWORDS["alice"],
        "BOB_DAV": PASSWORDS["bob"],
    }


def _sources(server: Server) -> list[str]:
    return ["--caldav", f"alice={server.alice_work}", "--caldav", f"bob={server.bob_work}"]


def _freebusy(env: dict[str, str], *options: str) -> types.CallToolResult:
    """Start ``cerebri mcp OPTIONS`` with ``env`` added and call freebusy once."""
    parameters = server_parameters(*options)
    parameters.env = env
    with start_blocking_portal() as portal:
        client = Client(parameters, read_timeout_seconds=120)
        with portal.wrap_async_context_manager(client) as connected:
            return Live(portal, connected).call("freebusy", FREEBUSY)


def test_each_source_is_read_with_its_own_login(
    server: Server, tmp_path: Path, env: dict[str, str]
) -> None:
    logins = _credentials(tmp_path, server)
    result = _freebusy(env, *_sources(server), "--caldav-credentials", str(logins))
    assert not result.is_error, result.content
    assert result.structured_content is not None
    busy = result.structured_content["busy"]
    # The seeded events: Alice's work at 12:00, Bob's at 15:00 (UTC), one from each login.
    assert [(b["uid"], b["start"]) for b in busy] == [
        ("alice-work", "2026-10-05T12:00:00Z"),
        ("bob-work", "2026-10-05T15:00:00Z"),
    ]


def test_one_default_login_is_refused_for_bobs_source(server: Server, env: dict[str, str]) -> None:
    env = {**env, "CEREBRI_CALDAV_USER": "alice", "CEREBRI_CALDAV_PASSWORD": PASSWORDS["alice"]}
    wire = error_of(_freebusy(env, *_sources(server)))
    assert (wire["code"], wire["path"]) == ("caldav.unauthorized", "/caldav/1")
    assert server.bob_work in wire["message"] and "the default login" in wire["message"]
    assert PASSWORDS["alice"] not in wire["message"]


def test_a_credentials_file_without_caldav_sources_is_refused_at_start(tmp_path: Path) -> None:
    logins = _private(tmp_path / "logins.json", "{}")
    done = subprocess.run(
        [str(Path(sys.executable).parent / "cerebri"), "mcp", "--caldav-credentials", str(logins)],
        input="",
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, "HOME": str(tmp_path)},
    )
    assert done.returncode == 2
    assert done.stderr == (
        "error input.invalid_option: --caldav-credentials gives logins for CalDAV calendars, "
        "and no --caldav is given\n"
    )
