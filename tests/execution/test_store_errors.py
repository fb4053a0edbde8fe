"""Which driver errors are store outages (``store_error_code``), from real SQLite and
PostgreSQL failures: a full database, a file that cannot be opened, a server that is not
there, are outages; a syntax error, a missing table, a broken constraint are not."""

from __future__ import annotations

import socket
import sqlite3
from pathlib import Path

import psycopg
import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.exc import DBAPIError

from cerebri.execution.store import (
    OUTAGE_CODES,
    StoreError,
    open_engine,
    parse_store_url,
    store_error_code,
    store_error_from,
)


def _raised(engine_url: str, *statements: str) -> DBAPIError:
    engine = create_engine(engine_url)
    try:
        with pytest.raises(DBAPIError) as caught, engine.begin() as connection:
            for statement in statements:
                connection.execute(text(statement))
        return caught.value
    finally:
        engine.dispose()


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port  # nothing listens on it once the probe is closed


def test_a_full_sqlite_database_is_store_full(tmp_path: Path) -> None:
    database = tmp_path / "full.sqlite3"
    with sqlite3.connect(database) as connection:
        connection.execute("CREATE TABLE t (x TEXT)")
    raw = sqlite3.connect(database)
    raw.execute("PRAGMA max_page_count = 3")  # SQLite's own "the disk is full"
    with pytest.raises(sqlite3.OperationalError) as caught:
        for _ in range(10):
            raw.execute("INSERT INTO t VALUES (?)", ("x" * 4000,))
    raw.close()
    assert store_error_code(caught.value) == "store.full"
    typed = store_error_from(caught.value)
    assert isinstance(typed, StoreError)
    assert (typed.code, typed.message) == (
        "store.full",
        "the store is full: database or disk is full",
    )


def test_a_sqlite_file_that_cannot_be_opened_is_unavailable(tmp_path: Path) -> None:
    error = _raised(f"sqlite:///{tmp_path / 'missing' / 'store.sqlite3'}", "SELECT 1")
    assert store_error_code(error) == "store.unavailable"


def test_a_sqlite_database_locked_past_the_busy_timeout_is_unavailable(tmp_path: Path) -> None:
    database = tmp_path / "locked.sqlite3"
    holder = sqlite3.connect(database, isolation_level=None)
    holder.execute("CREATE TABLE t (x)")
    holder.execute("BEGIN IMMEDIATE")  # holds the write lock
    try:
        waiter = sqlite3.connect(database, timeout=0.05, isolation_level=None)
        with pytest.raises(sqlite3.OperationalError) as caught:
            waiter.execute("BEGIN IMMEDIATE")
        waiter.close()
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert str(caught.value) == "database is locked"
    assert store_error_code(caught.value) == "store.unavailable"


@pytest.mark.parametrize(
    "statements",
    [
        ("SELEC 1",),  # a syntax error: sqlite3 calls it an OperationalError too
        ("SELECT * FROM no_such_table",),
        (
            "CREATE TABLE t (x INTEGER PRIMARY KEY)",
            "INSERT INTO t VALUES (1)",
            "INSERT INTO t VALUES (1)",
        ),
    ],
)
def test_sqlite_programming_errors_are_not_outages(tmp_path: Path, statements: tuple[str]) -> None:
    error = _raised(f"sqlite:///{tmp_path / 'store.sqlite3'}", *statements)
    assert store_error_code(error) is None
    assert store_error_from(error) is None


def test_a_postgresql_server_that_is_not_there_is_unavailable() -> None:
    url = f"postgresql+psycopg://postgres@127.0.0.1:{_closed_port()}/postgres"
    engine = open_engine(parse_store_url(url))
    try:
        with pytest.raises(DBAPIError) as caught, engine.connect():
            pass
    finally:
        engine.dispose()
    assert isinstance(caught.value.orig, psycopg.OperationalError)
    assert store_error_code(caught.value) == "store.unavailable"
    assert store_error_code(caught.value.orig) == "store.unavailable"  # unwrapped, the same


@pytest.mark.parametrize(
    "statements",
    [
        ("SELEC 1",),
        ("SELECT * FROM no_such_table",),
        (
            "CREATE TEMP TABLE t (x INTEGER PRIMARY KEY)",
            "INSERT INTO t VALUES (1)",
            "INSERT INTO t VALUES (1)",
        ),
    ],
)
def test_postgresql_programming_errors_are_not_outages(
    postgres_url: str, statements: tuple[str]
) -> None:
    error = _raised(postgres_url, *statements)
    assert store_error_code(error) is None


def test_a_postgresql_connection_killed_by_the_server_is_unavailable(postgres_url: str) -> None:
    engine = create_engine(postgres_url)
    try:
        with pytest.raises(DBAPIError) as caught, engine.connect() as connection:
            connection.execute(text("SELECT pg_terminate_backend(pg_backend_pid())"))
    finally:
        engine.dispose()
    assert store_error_code(caught.value) == "store.unavailable"


def test_store_errors_keep_their_code_only_when_it_is_an_outage() -> None:
    assert sorted(OUTAGE_CODES) == ["store.full", "store.unavailable"]
    full = StoreError("the store is full", code="store.full")
    assert store_error_from(full) is full
    assert store_error_code(StoreError("old", code="store.too_new")) is None
    assert store_error_code(ValueError("database or disk is full")) is None  # not the driver's


def test_a_file_that_is_not_a_database_is_unavailable(tmp_path: Path) -> None:
    database = tmp_path / "store.sqlite3"
    database.write_bytes(b"this is not a SQLite file, " * 100)
    error = _raised(f"sqlite:///{database}", "SELECT * FROM plans")
    assert store_error_code(error) == "store.unavailable"
