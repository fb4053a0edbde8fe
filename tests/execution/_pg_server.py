"""A throwaway PostgreSQL server a test can stop and start (the store outage tests).

The session server of the root ``tests/conftest.py`` is shared by every test and must never
go down; :class:`PgServer` is a server of its own, in a temporary folder, on a free loopback
port, run through ``pg_ctl`` (as the ``postgres`` system user when the tests run as root,
which PostgreSQL refuses to run as). :func:`start_server` skips the test when no PostgreSQL
binaries are installed (fails under ``CI=true``).
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest

_PG_CTLS = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"))
_COMMAND_TIMEOUT_SECONDS = 120


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@dataclass
class PgServer:
    """One PostgreSQL cluster: ``folder`` (data, socket, log), ``port``, ``bindir``."""

    folder: Path
    port: int
    bindir: Path
    as_postgres: bool

    @property
    def url(self) -> str:
        """The store URL of the ``postgres`` database (trust authentication)."""
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/postgres"

    def _run(self, *command: str) -> None:
        prefix = ["runuser", "-u", "postgres", "--"] if self.as_postgres else []
        subprocess.run(
            [*prefix, *command], check=True, capture_output=True, timeout=_COMMAND_TIMEOUT_SECONDS
        )

    def _pg_ctl(self, *arguments: str) -> None:
        self._run(str(self.bindir / "pg_ctl"), "-D", str(self.folder / "data"), *arguments)

    def start(self) -> None:
        """Start the server and wait until it accepts connections."""
        options = f"-F -p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1"
        self._pg_ctl("-l", str(self.folder / "server.log"), "-w", "-o", options, "start")

    def stop(self) -> None:
        """Stop the server at once (``-m immediate``: open connections are cut, as when a
        server crashes or is restarted by its operator)."""
        self._pg_ctl("-m", "immediate", "-w", "stop")

    def remove(self) -> None:
        """Stop the server if it runs, and delete its folder."""
        try:
            self._pg_ctl("-m", "immediate", "-w", "stop")
        except subprocess.CalledProcessError:
            pass  # it was not running
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)


def start_server() -> PgServer:
    """``initdb`` and start a new cluster (see the module docstring)."""
    if not _PG_CTLS:
        if os.environ.get("CI", "").strip().lower() in {"true", "1", "yes"}:
            pytest.fail("CI run without PostgreSQL binaries")
        pytest.skip("no /usr/lib/postgresql/*/bin/pg_ctl")
    as_postgres = os.geteuid() == 0
    folder = Path(tempfile.mkdtemp(prefix="cerebri-pg-outage-"))
    if as_postgres:
        owner = pwd.getpwnam("postgres")
        os.chown(folder, owner.pw_uid, owner.pw_gid)
    server = PgServer(folder, _free_port(), Path(_PG_CTLS[-1]).parent, as_postgres)
    try:
        server._run(str(server.bindir / "initdb"), "-D", str(folder / "data"), "-A", "trust",
                    "-U", "postgres", "-E", "UTF8", "--no-sync")  # fmt: skip
        server.start()
    except BaseException:
        server.remove()
        raise
    return server
