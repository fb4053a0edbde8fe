"""A store that cannot be reached is 503 ``store.unavailable``, never a 500 with a traceback.

While PostgreSQL is stopped or unreachable, or the SQLite file cannot be opened or read (its
folder removed, a file that is not a database, a full disk), every store-backed route answers
``503 Service Unavailable``, an RFC 9457 problem with code ``store.unavailable``, ``path``
``null``, and ``Retry-After: RETRY_AFTER_SECONDS`` (RFC 9110 section 10.2.3). The server log
gets one warning line (logger ``cerebri.service``) naming the driver's error, not a traceback;
the client's detail names no host or file. Once the store is back the next request succeeds:
SQLAlchemy discards the broken connections.

:func:`is_store_outage` is the classification shared with the worker and the command line:
:func:`cerebri.execution.store.store_error_code` (decisions 0035, 0036). A full disk answers
``store.full``, every other outage ``store.unavailable``; anything else (a constraint
violation, a programming error) stays a 500: it is a bug, not an outage.
"""

from __future__ import annotations

import logging
import sqlite3
from typing import Final

import psycopg
from starlette.requests import Request
from starlette.responses import Response

from cerebri.execution.store import store_error_code
from cerebri.execution.store.errors import SQLALCHEMY_OUTAGE_TYPES, driver_error
from cerebri.service.problems import problem_response

__all__ = [
    "OUTAGE_TYPES",
    "RETRY_AFTER_SECONDS",
    "is_store_outage",
    "outage_response",
    "store_outage_handler",
]

RETRY_AFTER_SECONDS: Final = 5
"""The ``Retry-After`` of a 503, in seconds: long enough for a restarting database, short
enough that a client does not wait long after it is back."""

OUTAGE_TYPES: Final = (*SQLALCHEMY_OUTAGE_TYPES, psycopg.Error, sqlite3.Error)
"""The exception types :func:`store_outage_handler` is registered for (it re-raises those
that :func:`is_store_outage` does not call an outage)."""

_LOG = logging.getLogger("cerebri.service")


def is_store_outage(error: BaseException) -> bool:
    """Whether ``error`` means the store cannot be reached, read or written (module doc)."""
    return store_error_code(error) is not None


def _summary(error: BaseException) -> str:
    """``"OperationalError: connection failed: ..."``: the driver's error, first line only."""
    cause = driver_error(error)
    lines = str(cause).strip().splitlines()
    first = lines[0] if lines else ""
    return f"{type(cause).__name__}: {first[:300]}"


def outage_response(error: BaseException) -> Response:
    """The 503 problem (``store.unavailable``, or ``store.full`` when the store's disk is
    full) with ``Retry-After``; logs one warning line."""
    _LOG.warning("store unavailable: %s", _summary(error))
    code = store_error_code(error) or "store.unavailable"
    detail = (
        "the execution store's disk is full; retry later"
        if code == "store.full"
        else "the execution store cannot be reached or read; retry later"
    )
    return problem_response(
        503,
        code,
        detail,
        None,
        {"Retry-After": str(RETRY_AFTER_SECONDS)},
    )


async def store_outage_handler(request: Request, error: Exception) -> Response:
    """Exception handler for :data:`OUTAGE_TYPES`: an outage becomes
    :func:`outage_response`; any other database error is raised again (a 500)."""
    if not is_store_outage(error):
        raise error
    return outage_response(error)
