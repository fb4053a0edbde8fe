"""Errors of the execution store, and which driver errors mean the store is out of service.

:class:`StoreError` codes:

* ``store.invalid_url``: the store URL cannot be parsed, or its scheme is neither SQLite
  (``sqlite:///PATH``) nor PostgreSQL through psycopg 3 (``postgresql+psycopg://...``).
* ``store.unreachable``: the database cannot be opened or connected to (found when a command
  opens the store: a wrong host or path is the usual cause).
* ``store.unavailable``: the store was opened but a statement failed at the connection level
  (the server went away or restarts, a broken link, a SQLite I/O error, the write lock not
  had within the busy timeout): :func:`store_error_code`. Transient: retrying may succeed.
* ``store.full``: the disk or the database is full (SQLite ``SQLITE_FULL``, PostgreSQL
  SQLSTATE ``53100``): nothing more can be written until space is freed.
* ``store.too_new``: the store was migrated by a newer cerebri (its revision is unknown here).
* ``store.not_initialised``: the store is behind the head revision or was never created
  (raised by the execution commands: run ``cerebri store init``).
* ``store.invalid_argument``: a store function got a wrong-typed Python argument (a URL
  that is not text, ...), refused before anything is opened (:func:`store_argument_error`).
* ``store.illegal_transition``: a step status change the transition table does not allow
  (:class:`~cerebri.execution.store.transitions.StepTransitionError`; a programming error,
  decision 0043).

:func:`store_error_code` is the one place that decides which exceptions of SQLAlchemy, psycopg
and ``sqlite3`` are store outages (``store.unavailable``, ``store.full``) rather than
programming errors; :func:`store_error_from` turns one into a :class:`StoreError`. The CLI
(one ``error store.* ...`` line, exit 2), the worker (reconnect, decision 0035) and the
service (HTTP 503) share them.
"""

from __future__ import annotations

import sqlite3
import sys
from typing import Final

from sqlalchemy import exc

from cerebri.errors import CerebriError

__all__ = [
    "OUTAGE_CODES",
    "SQLALCHEMY_OUTAGE_TYPES",
    "StoreError",
    "driver_error",
    "store_argument_error",
    "store_error_code",
    "store_error_from",
]

OUTAGE_CODES: Final = frozenset({"store.unavailable", "store.full"})
"""The codes :func:`store_error_code` returns: the store is (for now) out of service."""

SQLALCHEMY_OUTAGE_TYPES: Final = (exc.DBAPIError, exc.DisconnectionError, exc.TimeoutError)
"""SQLAlchemy's exception types that may mean a store outage (:func:`store_error_code` judges
each one): with psycopg's and ``sqlite3``'s own errors, what the HTTP service registers its 503
handler for, so that no module outside the store names SQLAlchemy (decision 0043)."""


class StoreError(CerebriError):
    """The execution store cannot be used as asked; ``code`` is one of ``store.*``."""

    code = "store.unreachable"


def store_argument_error(message: str) -> StoreError:
    """The argument guard's error for :mod:`cerebri.execution.store`: code
    ``store.invalid_argument`` (see :mod:`cerebri._guard`)."""
    return StoreError(message, code="store.invalid_argument")


# SQLite primary result codes (https://www.sqlite.org/rescode.html); extended codes keep the
# primary one in their low byte (SQLITE_IOERR_WRITE is 778 = 10 | 3 << 8).
_SQLITE_FULL: Final = 13
_SQLITE_OUTAGES: Final = frozenset(
    {
        5,  # SQLITE_BUSY: "database is locked", still, after the busy timeout
        6,  # SQLITE_LOCKED: "database table is locked"
        8,  # SQLITE_READONLY: the file or its folder became read-only
        10,  # SQLITE_IOERR: "disk I/O error"
        11,  # SQLITE_CORRUPT: "database disk image is malformed"
        14,  # SQLITE_CANTOPEN: "unable to open database file"
        15,  # SQLITE_PROTOCOL: the WAL locking protocol failed
        26,  # SQLITE_NOTADB: "file is not a database" (replaced or overwritten under us)
    }
)
# The same by message, for an sqlite3 error without ``sqlite_errorcode``.
_SQLITE_MESSAGES: Final = (
    ("database or disk is full", "store.full"),
    ("disk i/o error", "store.unavailable"),
    ("unable to open database", "store.unavailable"),
    ("database is locked", "store.unavailable"),
    ("database table is locked", "store.unavailable"),
    ("readonly database", "store.unavailable"),
)
# PostgreSQL SQLSTATE classes of connection-level failures: 08 connection exception,
# 53 insufficient resources (53100 disk full, 53300 too many connections), 57P operator
# intervention (admin/crash shutdown, cannot connect now), 58 system error (I/O).
_PG_DISK_FULL: Final = "53100"
_PG_OUTAGE_PREFIXES: Final = ("08", "53", "57P", "58")


def _sqlite_code(error: sqlite3.Error) -> str | None:
    number = getattr(error, "sqlite_errorcode", None)
    if isinstance(number, int):
        primary = number & 0xFF
        if primary == _SQLITE_FULL:
            return "store.full"
        return "store.unavailable" if primary in _SQLITE_OUTAGES else None
    text = str(error).lower()
    return next((code for part, code in _SQLITE_MESSAGES if part in text), None)


def _psycopg_code(error: BaseException) -> str | None:
    psycopg = sys.modules.get("psycopg")  # never imported here: only a loaded driver raises
    if psycopg is None or not isinstance(error, psycopg.Error):
        return None
    state = getattr(error, "sqlstate", None)
    if state == _PG_DISK_FULL:
        return "store.full"
    if isinstance(error, psycopg.InterfaceError):
        return "store.unavailable"  # "the connection is closed", no libpq at hand, ...
    if not isinstance(error, psycopg.OperationalError):
        return None  # ProgrammingError, IntegrityError, DataError: a bug or bad data
    if state is None or state.startswith(_PG_OUTAGE_PREFIXES):
        return "store.unavailable"  # no SQLSTATE: the client lost or never had the link
    return None  # a deadlock, a serialisation failure, a cancelled statement: not an outage


def store_error_code(error: BaseException) -> str | None:
    """``"store.unavailable"``, ``"store.full"`` (:data:`OUTAGE_CODES`) when ``error`` says
    the store is out of service, ``None`` for any other exception (a programming error, a
    constraint violated, an error that is not the store's).

    Outages (decision 0035): a :class:`StoreError` whose code is in :data:`OUTAGE_CODES`;
    SQLAlchemy's ``DisconnectionError``, pool ``TimeoutError`` and any ``DBAPIError`` that
    invalidated its connection; psycopg ``OperationalError``/``InterfaceError`` without a
    SQLSTATE (the link failed) or of SQLSTATE class 08, 53, 57P or 58 (``53100``, disk full,
    is ``store.full``); ``sqlite3`` errors ``SQLITE_FULL`` (``store.full``), ``SQLITE_BUSY``
    and ``SQLITE_LOCKED`` (still locked after the busy timeout), ``SQLITE_READONLY``,
    ``SQLITE_IOERR``, ``SQLITE_CANTOPEN``, ``SQLITE_PROTOCOL``, and ``SQLITE_CORRUPT`` /
    ``SQLITE_NOTADB`` (the file cannot be read as a store, as the service says). SQLite's other
    ``OperationalError`` s ("no such table", a syntax error) are programming errors: ``None``.
    SQLAlchemy errors are judged by the driver error they wrap (``orig``).
    """
    if isinstance(error, StoreError):
        return error.code if error.code in OUTAGE_CODES else None
    if isinstance(error, exc.DisconnectionError | exc.TimeoutError):
        return "store.unavailable"
    cause: BaseException = error
    if isinstance(error, exc.DBAPIError):
        if error.orig is not None:
            cause = error.orig
        elif error.connection_invalidated:
            return "store.unavailable"
    code = _sqlite_code(cause) if isinstance(cause, sqlite3.Error) else _psycopg_code(cause)
    if code is None and isinstance(error, exc.DBAPIError) and error.connection_invalidated:
        return "store.unavailable"
    return code


def driver_error(error: BaseException) -> BaseException:
    """The driver's own error a SQLAlchemy ``DBAPIError`` wraps (its ``orig``), else
    ``error`` itself: what a message about the failure should name."""
    return error.orig if isinstance(error, exc.DBAPIError) and error.orig else error


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return (text.splitlines() or [type(error).__name__])[0].strip()


def store_error_from(error: BaseException) -> StoreError | None:
    """``error`` as a :class:`StoreError` with the code of :func:`store_error_code` and the
    first line of the driver's message (no SQL, no parameters), or ``None`` when it is not a
    store outage. A :class:`StoreError` is returned as it is."""
    code = store_error_code(error)
    if code is None:
        return None
    if isinstance(error, StoreError):
        return error
    cause = driver_error(error)
    what = "the store is full" if code == "store.full" else "the store is unavailable"
    return StoreError(f"{what}: {_first_line(cause)}", code=code)
