"""Shared test settings and fixtures: the public conformance data and PostgreSQL.

``CEREBRI_CONFORMANCE_DIR`` (default ``../shared/conformance`` next to the repository) points
at the shared, read-only conformance data; it must contain a ``cerebri/`` folder. Without it,
conformance tests report themselves as skipped with the reason; under CI (``CI`` set to
``true``, ``1`` or ``yes``) missing data stops the run at once with one clear message.

PostgreSQL for every test folder: ``postgres_url`` (a fresh database per test) and
``store_url`` (runs a test on SQLite, a temporary file, and on PostgreSQL). PostgreSQL comes
from ``CEREBRI_TEST_POSTGRES_URL`` (a server URL; each test gets a fresh database created on it
and dropped after), else from a throwaway server that pytest-postgresql starts over the
machine's binaries (``/usr/lib/postgresql/*/bin/pg_ctl``); as root, which PostgreSQL refuses
to run as, the same binaries run as the ``postgres`` system user
(:func:`postgres_as_service_user`). When neither is possible the PostgreSQL tests are skipped
with the reason, or fail under CI (like the conformance data).
"""

from __future__ import annotations

import glob
import itertools
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from pytest_postgresql import factories
from sqlalchemy.engine import URL, make_url

REPO = Path(__file__).resolve().parent.parent


def conformance_dir() -> Path:
    """The configured conformance folder (may not exist)."""
    configured = os.environ.get("CEREBRI_CONFORMANCE_DIR")
    return Path(configured) if configured else REPO.parent / "shared" / "conformance"


def _missing_reason() -> str | None:
    folder = conformance_dir()
    if (folder / "cerebri").is_dir():
        return None
    return (
        f"conformance data not found: {folder / 'cerebri'} does not exist "
        "(set CEREBRI_CONFORMANCE_DIR to the folder that holds cerebri/ and ics/)"
    )


def _under_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in {"true", "1", "yes"}


def pytest_sessionstart(session: pytest.Session) -> None:
    reason = _missing_reason()
    if reason is not None and _under_ci():
        pytest.exit(f"CI run without conformance data: {reason}", returncode=3)


@pytest.fixture(scope="session")
def conformance() -> Path:
    """The conformance folder; the test is skipped (with the reason) when it is absent."""
    reason = _missing_reason()
    if reason is not None:
        pytest.skip(reason)
    return conformance_dir()


# PostgreSQL

POSTGRES_ENV = "CEREBRI_TEST_POSTGRES_URL"
_PG_CTLS = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"))

postgresql_server = factories.postgresql_proc(executable=_PG_CTLS[-1] if _PG_CTLS else None)
_numbers = itertools.count(1)


def _unavailable(reason: str) -> None:
    if _under_ci():
        pytest.fail(f"CI run without PostgreSQL: {reason}")
    pytest.skip(f"PostgreSQL not available: {reason}")


def _server_url(request: pytest.FixtureRequest) -> str:
    configured = os.environ.get(POSTGRES_ENV, "").strip()
    if configured:
        return configured
    if not _PG_CTLS:
        _unavailable(f"no /usr/lib/postgresql/*/bin/pg_ctl and {POSTGRES_ENV} is not set")
    if os.geteuid() == 0:  # PostgreSQL refuses to run as root: run it as "postgres"
        root_url: str = request.getfixturevalue("postgres_as_service_user")
        return root_url
    proc = request.getfixturevalue("postgresql_server")
    url = URL.create(
        "postgresql+psycopg",
        username=proc.user,
        password=proc.password or None,
        host=proc.host,
        port=int(proc.port),
        database="postgres",
    )
    return url.render_as_string(hide_password=False)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.fixture(scope="session")
def postgres_as_service_user() -> Iterator[str]:
    """A throwaway PostgreSQL started as the ``postgres`` system user (for root, which
    PostgreSQL refuses to run as): ``initdb`` and ``pg_ctl`` through ``runuser`` in a temporary
    folder owned by that user, on a free loopback port, stopped and deleted at the end."""
    try:
        owner = pwd.getpwnam("postgres")
    except KeyError:
        _unavailable(f"running as root and no 'postgres' user; set {POSTGRES_ENV}")
    runuser = shutil.which("runuser")
    if runuser is None:
        _unavailable(f"running as root and no runuser; set {POSTGRES_ENV}")
    bindir = Path(_PG_CTLS[-1]).parent
    folder = Path(tempfile.mkdtemp(prefix="cerebri-pg-"))
    os.chown(folder, owner.pw_uid, owner.pw_gid)
    data, port = folder / "data", _free_port()

    def as_postgres(*command: str) -> None:
        subprocess.run(
            [runuser, "-u", "postgres", "--", *command],
            check=True,
            capture_output=True,
            timeout=120,
        )

    try:
        as_postgres(str(bindir / "initdb"), "-D", str(data), "-A", "trust", "-U", "postgres",
                    "-E", "UTF8", "--no-sync")  # fmt: skip
        as_postgres(
            str(bindir / "pg_ctl"), "-D", str(data), "-l", str(folder / "server.log"), "-w",
            "-o", f"-F -p {port} -k {folder} -c listen_addresses=127.0.0.1", "start",
        )  # fmt: skip
    except (subprocess.SubprocessError, OSError) as exc:
        shutil.rmtree(folder, ignore_errors=True)
        _unavailable(f"could not start PostgreSQL as the postgres user: {exc}")
    try:
        yield f"postgresql+psycopg://postgres@127.0.0.1:{port}/postgres"
    finally:
        try:
            as_postgres(str(bindir / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop")
        finally:
            shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def postgres_url(request: pytest.FixtureRequest) -> Iterator[str]:
    """A fresh, empty PostgreSQL database for one test, dropped afterwards."""
    server = make_url(_server_url(request)).set(drivername="postgresql")
    name = f"cerebri_test_{os.getpid()}_{next(_numbers)}"
    admin = server.render_as_string(hide_password=False)
    with psycopg.connect(admin, autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}"')
        connection.execute(f'CREATE DATABASE "{name}"')
    try:
        yield server.set(drivername="postgresql+psycopg", database=name).render_as_string(
            hide_password=False
        )
    finally:
        with psycopg.connect(admin, autocommit=True) as connection:
            connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The URL of an empty store on each back end."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'nested' / 'store.sqlite3'}"
    url: str = request.getfixturevalue("postgres_url")
    return url
