"""Alembic environment of the execution store: runs on the connection the caller passes.

:mod:`cerebri.execution.store.migrate` puts an open SQLAlchemy ``Connection`` in
``config.attributes["connection"]``; there is no alembic.ini and no logging setup here.
"""

from __future__ import annotations

from alembic import context
from sqlalchemy import Connection

from cerebri.execution.store.schema import METADATA

_connection = context.config.attributes.get("connection")
if not isinstance(_connection, Connection):
    raise RuntimeError("cerebri migrations run through cerebri.execution.store.migrate only")
context.configure(connection=_connection, target_metadata=METADATA, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
