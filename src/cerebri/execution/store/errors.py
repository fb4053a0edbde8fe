"""Errors of the execution store.

:class:`StoreError` codes:

* ``store.invalid_url``: the store URL cannot be parsed, or its scheme is neither SQLite
  (``sqlite:///PATH``) nor PostgreSQL through psycopg 3 (``postgresql+psycopg://...``).
* ``store.unreachable``: the database cannot be opened or connected to.
* ``store.too_new``: the store was migrated by a newer cerebri (its revision is unknown here).
* ``store.not_initialised``: the store is behind the head revision or was never created
  (raised by the execution commands: run ``cerebri store init``).
* ``store.invalid_argument``: a store function got a wrong-typed Python argument (a URL
  that is not text, ...), refused before anything is opened (:func:`store_argument_error`).
"""

from __future__ import annotations

from cerebri.errors import CerebriError

__all__ = ["StoreError", "store_argument_error"]


class StoreError(CerebriError):
    """The execution store cannot be used as asked; ``code`` is one of ``store.*``."""

    code = "store.unreachable"


def store_argument_error(message: str) -> StoreError:
    """The argument guard's error for :mod:`cerebri.execution.store`: code
    ``store.invalid_argument`` (see :mod:`cerebri._guard`)."""
    return StoreError(message, code="store.invalid_argument")
