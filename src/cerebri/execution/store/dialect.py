"""What differs between the two back ends, each difference in one place (decision 0043).

The execution stage writes portable SQLAlchemy Core; where SQLite and PostgreSQL must be
told apart it asks this module instead of reading ``dialect.name`` itself:

* :func:`is_postgresql`: whether a statement group may run as one statement in autocommit
  (data-modifying CTEs and ``FOR UPDATE SKIP LOCKED``, the claim and the finish fast paths),
  where SQLite runs the same steps inside one ``BEGIN IMMEDIATE`` transaction;
* :func:`upsert`: ``INSERT … ON CONFLICT (key) DO UPDATE`` in each dialect's construct;
* :func:`json_elements`: the text elements of a JSON array column (PostgreSQL only);
* :func:`durable_transaction`: a commit that survives a power loss (SQLite raises
  ``synchronous`` to ``FULL`` for it; PostgreSQL commits are always durable).

Connection set-up (SQLite pragmas, the busy timeout) stays in :mod:`.engine`, the migration
lock in :mod:`.migrate`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from sqlalchemy import Column, Connection, Engine, Table, cast, func
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.sql import ColumnElement
from sqlalchemy.sql.dml import Insert

__all__ = ["durable_transaction", "is_postgresql", "json_elements", "upsert"]


def is_postgresql(bind: Engine | Connection) -> bool:
    """Whether ``bind`` talks to PostgreSQL (else it is the SQLite store)."""
    return bind.dialect.name == "postgresql"


def upsert(
    bind: Engine | Connection,
    table: Table,
    values: Mapping[str, Any],
    *,
    key: Iterable[Column[Any]],
    refresh: Iterable[str],
) -> Insert:
    """``INSERT values ON CONFLICT (key) DO UPDATE SET`` each column named in ``refresh`` to
    the inserted value: one statement, so two writers of the same new row never collide."""
    construct = postgresql if is_postgresql(bind) else sqlite
    statement = construct.insert(table).values(dict(values))
    upserted: Insert = statement.on_conflict_do_update(
        index_elements=list(key),
        set_={name: statement.excluded[name] for name in refresh},
    )
    return upserted


def json_elements(column: ColumnElement[Any]) -> Any:
    """PostgreSQL: the set of a JSON array column's elements as text
    (``jsonb_array_elements_text``), for use in a subquery."""
    return func.jsonb_array_elements_text(cast(column, postgresql.JSONB))


@contextmanager
def durable_transaction(engine: Engine) -> Iterator[Connection]:
    """A transaction whose commit survives a power loss, not only a killed process
    (decision 0021). PostgreSQL commits are always durable (``synchronous_commit`` on);
    SQLite runs with ``synchronous=NORMAL`` and this raises it to ``FULL`` for this commit,
    which also syncs every earlier commit still in the write-ahead log."""
    if engine.dialect.name != "sqlite":
        with engine.begin() as connection:
            yield connection
        return
    with engine.connect() as connection:
        raw = connection.connection.driver_connection
        assert raw is not None
        raw.execute("PRAGMA synchronous=FULL")
        try:
            with connection.begin():
                yield connection
        finally:
            raw.execute("PRAGMA synchronous=NORMAL")
