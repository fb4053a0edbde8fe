"""Errors of the execution store.

:class:`StoreError` codes:

* ``store.invalid_url``: the store URL cannot be parsed, or its scheme is neither SQLite
  (``sqlite:///PATH``) nor PostgreSQL through psycopg 3 (``postgresql+psycopg://...``).
* ``store.unreachable``: the database cannot be opened or connected to.
* ``store.too_new``: the store was migrated by a newer cerebri (its revision is unknown here).
* ``store.not_initialised``: the store is behind the head revision or was never created
  (raised by the execution commands: run ``cerebri store init``).
"""

from __future__ import annotations

from cerebri.errors import CerebriError

__all__ = ["StoreError"]


class StoreError(CerebriError):
    """The execution store cannot be used as asked; ``code`` is one of ``store.*``."""

    code = "store.unreachable"
