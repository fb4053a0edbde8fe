"""The store's handles, for the modules that pass them on (decision 0043).

The execution stage's use-case modules take a connection, open a transaction on an engine or
catch a duplicate key, but issue no SQL of their own: they name these types through the store,
so that only :mod:`cerebri.execution.store` imports SQLAlchemy.

* :data:`Connection`: one connection and its transaction (SQLAlchemy 2 Core's ``Connection``);
  every repository function runs in the caller's;
* :data:`Engine`: the store's engine (:func:`~cerebri.execution.store.open_engine`);
* :data:`Row`: a row a repository read returns (columns as attributes);
* :data:`IntegrityError`: what an insert raises for a key that is already stored (a
  principal, a token, a key, an envelope's idempotency key).
"""

from __future__ import annotations

from sqlalchemy import Connection, Engine, Row
from sqlalchemy.exc import IntegrityError

__all__ = ["Connection", "Engine", "IntegrityError", "Row"]
