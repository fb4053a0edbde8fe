"""Opening an engine on a checked store URL.

SQLite: the parent folder of the file is created; every new connection sets
``journal_mode=WAL`` (readers do not block the writer), ``foreign_keys=ON``,
``synchronous=NORMAL`` (a commit survives the process being killed; the commits that must
also survive a power loss raise it to ``FULL``, decision 0021) and ``busy_timeout``
(milliseconds a writer waits for the lock before ``database is locked``), and
every transaction starts with ``BEGIN IMMEDIATE``: it takes the write lock first, so a
transaction that reads and then writes never fails half-way when another writer committed
in between (WAL's ``SQLITE_BUSY_SNAPSHOT``); it waits up to ``busy_timeout`` instead.
PostgreSQL: psycopg 3. Connections are not pinged before use (a round trip per
transaction); one that broke is discarded by SQLAlchemy when it fails, and the worker loop
carries on with the next claim.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, create_engine, event
from sqlalchemy.engine import URL

from cerebri._guard import arguments
from cerebri.execution.store.errors import StoreError, store_argument_error
from cerebri.execution.store.text import refuse_unstorable_text

__all__ = ["POSTGRES_CONNECT_ARGS", "SQLITE_BUSY_TIMEOUT_MS", "open_engine"]

SQLITE_BUSY_TIMEOUT_MS = 30_000
"""How long a SQLite connection waits for the write lock, in milliseconds (30 s: a worker
with many threads on one file queues for it; 5 s was seen to run out with 8 threads)."""


POSTGRES_CONNECT_ARGS = {
    "connect_timeout": 10,
    "keepalives": 1,
    "keepalives_idle": 10,
    "keepalives_interval": 5,
    "keepalives_count": 3,
    "tcp_user_timeout": 30_000,
}
"""libpq settings of every PostgreSQL connection (seconds, ``tcp_user_timeout`` in ms): a
worker whose link to the server dies notices within about 30 s instead of the kernel's
15 minutes of retransmissions, fails that step's transaction and carries on; its leases
have expired by then and other workers took the steps over. A setting given in the URL's
query (``?keepalives_idle=30``) is used instead."""


def _on_sqlite_connect(connection: sqlite3.Connection, _record: Any) -> None:
    connection.isolation_level = None  # the driver's own BEGIN is replaced by _begin_immediate
    cursor = connection.cursor()
    try:
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
    finally:
        cursor.close()


def _begin_immediate(connection: Connection) -> None:
    connection.exec_driver_sql("BEGIN IMMEDIATE")


@arguments(store_argument_error, url=URL)
def open_engine(url: URL) -> Engine:
    """An engine for a URL checked by :func:`~cerebri.execution.store.url.parse_store_url`.

    For SQLite the file's parent folders are created (the file itself on first connection).
    Nothing connects here; connection errors surface on first use. Every statement's text
    parameters are checked first (:func:`~cerebri.execution.store.text.refuse_unstorable_text`:
    ``input.invalid_text`` for a NUL character or a lone surrogate, on both back ends). Raises
    :class:`StoreError` ``store.unreachable`` when the folder cannot be created.
    """
    if url.get_backend_name() == "sqlite":
        database = url.database or ""
        if database != ":memory:" and not database.startswith("file:"):
            folder = Path(database).expanduser().parent
            try:
                folder.mkdir(parents=True, exist_ok=True)
            except OSError as error:
                raise StoreError(
                    f"cannot create the store folder {folder}: {error.strerror or error}",
                    code="store.unreachable",
                ) from error
        engine = create_engine(url)
        event.listen(engine, "connect", _on_sqlite_connect)
        event.listen(engine, "begin", _begin_immediate)
    else:
        given = set(url.query)
        defaults = {k: v for k, v in POSTGRES_CONNECT_ARGS.items() if k not in given}
        engine = create_engine(url, connect_args=defaults)
    event.listen(engine, "before_cursor_execute", refuse_unstorable_text, retval=True)
    return engine
