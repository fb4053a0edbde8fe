"""The store boundary for text: no statement sends text a back end cannot hold.

:func:`refuse_unstorable_text` is a SQLAlchemy ``before_cursor_execute`` listener that
:func:`~cerebri.execution.store.engine.open_engine` puts on every engine. It looks at every
string parameter of the statement about to run, a value written or an id looked up alike,
and refuses one holding a NUL character or a lone surrogate (:mod:`cerebri._text`) with
:class:`~cerebri.errors.InvalidArgumentError` ``input.invalid_text`` before the driver sees
it. Without it PostgreSQL answers ``psycopg.DataError`` for a NUL where SQLite stores it or
finds nothing, and both drivers fail to encode a lone surrogate (docs/decisions/0036). The
transaction the statement ran in is rolled back as for any error, so nothing half-applies.

JSON documents are stored as canonical JSON, which writes NUL as the escape ``\\u0000``: a
draft may hold one; a lone surrogate has no escape there and is refused too.
"""

from __future__ import annotations

from typing import Any

from cerebri._text import invalid_text, text_fault

__all__ = ["refuse_unstorable_text"]


def _fault(parameters: object) -> str | None:
    """The fault of the first unstorable string among ``parameters`` (a mapping, a sequence
    of values, or a sequence of those for ``executemany``)."""
    pending: list[object] = [parameters]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            fault = text_fault(item)
            if fault is not None:
                return fault
        elif isinstance(item, dict):
            pending.extend(item.values())
        elif isinstance(item, list | tuple):
            pending.extend(item)
    return None


def refuse_unstorable_text(
    _connection: Any,
    _cursor: Any,
    statement: str,
    parameters: Any,
    _context: Any,
    _executemany: bool,
) -> tuple[str, Any]:
    """``before_cursor_execute`` listener (``retval=True``): the statement and parameters
    unchanged, or :class:`~cerebri.errors.InvalidArgumentError` ``input.invalid_text`` when a
    string parameter holds a NUL character or a lone surrogate."""
    fault = _fault(parameters)
    if fault is not None:
        raise invalid_text("a value given to the execution store", fault)
    return statement, parameters
