"""A PostgreSQL server of one test's own, which the test may stop and start again.

The shared server of ``tests/conftest.py`` serves every other test, so a test that
takes the database away needs its own: :class:`ThrowawayPostgres` runs ``initdb`` and
``pg_ctl`` from the machine's binaries (``/usr/lib/postgresql/*/bin``) in a temporary folder
on a free loopback port, as the ``postgres`` system user when the tests run as root (which
PostgreSQL refuses to run as). :func:`throwaway_postgres` skips the test (fails under
``CI=true``) when that is not possible.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg
import pytest

_PG_CTLS = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"))


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class ThrowawayPostgres:
    """One PostgreSQL cluster in ``folder`` listening on ``127.0.0.1:port``."""

    def __init__(self, folder: Path, bindir: Path, as_user: list[str]) -> None:
        self.folder, self.bindir, self.as_user = folder, bindir, as_user
        self.data, self.port = folder / "data", _free_port()

    def _run(self, *command: str) -> None:
        subprocess.run([*self.as_user, *command], check=True, capture_output=True, timeout=120)

    def initdb(self) -> None:
        self._run(str(self.bindir / "initdb"), "-D", str(self.data), "-A", "trust",
                  "-U", "postgres", "-E", "UTF8", "--no-sync")  # fmt: skip

    def start(self) -> None:
        """Start the server and wait until it accepts connections."""
        self._run(
            str(self.bindir / "pg_ctl"), "-D", str(self.data), "-l",
            str(self.folder / "server.log"), "-w", "-o",
            f"-F -p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1", "start",
        )  # fmt: skip

    def stop(self) -> None:
        """Stop the server at once (``immediate``: open connections are cut)."""
        self._run(str(self.bindir / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop")

    def database_url(self, name: str) -> str:
        """Create database ``name`` and return its ``postgresql+psycopg`` URL."""
        admin = f"postgresql://postgres@127.0.0.1:{self.port}/postgres"
        with psycopg.connect(admin, autocommit=True) as connection:
            connection.execute(f'CREATE DATABASE "{name}"')
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/{name}"


def _unavailable(reason: str) -> None:
    if os.environ.get("CI", "").strip().lower() in {"true", "1", "yes"}:
        pytest.fail(f"CI run without PostgreSQL: {reason}")
    pytest.skip(f"PostgreSQL not available: {reason}")


@contextmanager
def throwaway_postgres() -> Iterator[ThrowawayPostgres]:
    """A started :class:`ThrowawayPostgres`, stopped (if running) and deleted afterwards."""
    if not _PG_CTLS:
        _unavailable("no /usr/lib/postgresql/*/bin/pg_ctl")
    folder = Path(tempfile.mkdtemp(prefix="cerebri-pg-http-outage-"))
    as_user: list[str] = []
    if os.geteuid() == 0:
        runuser = shutil.which("runuser")
        try:
            owner = pwd.getpwnam("postgres")
        except KeyError:
            runuser = None
        if runuser is None:
            shutil.rmtree(folder, ignore_errors=True)
            _unavailable("running as root without runuser or a 'postgres' user")
        os.chown(folder, owner.pw_uid, owner.pw_gid)
        as_user = [str(runuser), "-u", "postgres", "--"]
    server = ThrowawayPostgres(folder, Path(_PG_CTLS[-1]).parent, as_user)
    try:
        server.initdb()
        server.start()
    except (subprocess.SubprocessError, OSError) as exc:
        shutil.rmtree(folder, ignore_errors=True)
        _unavailable(f"could not start a throwaway PostgreSQL: {exc}")
    try:
        yield server
    finally:
        try:
            server.stop()
        except subprocess.SubprocessError:
            pass  # already stopped by the test
        finally:
            shutil.rmtree(folder, ignore_errors=True)
