"""Opening the execution store for a shell: the CLI's commands, ``cerebri serve`` and the MCP
server's store tools all start here.

:func:`open_executor` resolves the store URL (``--store URL``, else ``CEREBRI_STORE``, else
the embedded SQLite file: :func:`cerebri.execution.store.resolve_store_url`), checks that the
store is initialised and at the current schema revision, and returns an
:class:`~cerebri.execution.Executor` on it with the clock and id source the shell passes in
(this module reads no clock of its own).
"""

from __future__ import annotations

from cerebri.clock import Clock, IdGenerator
from cerebri.execution.adapters import Adapters
from cerebri.execution.context import Executor
from cerebri.execution.store import (
    StoreError,
    open_engine,
    parse_store_url,
    resolve_store_url,
    status,
)

__all__ = ["open_executor"]


def open_executor(
    store: str | None,
    *,
    clock: Clock,
    ids: IdGenerator,
    adapters: Adapters | None = None,
) -> Executor:
    """An executor on ``store`` (a store URL, or ``None`` for ``CEREBRI_STORE`` / the
    embedded SQLite file), with ``clock``, ``ids`` and ``adapters`` (default: none beyond
    :class:`~cerebri.execution.adapters.Adapters`' own).

    Raises:
        StoreError: ``store.not_initialised`` when the store is not at the current schema
            revision (run ``cerebri store init`` or ``cerebri store upgrade``); the URL
            errors of :func:`~cerebri.execution.store.parse_store_url`.
    """
    url = resolve_store_url(store)
    state = status(url)
    if not state.up_to_date:
        raise StoreError(
            f"the store {state.url} is at revision {state.current or '(none)'}, not "
            f"{state.head}: run `cerebri store init` (or `cerebri store upgrade`) first",
            code="store.not_initialised",
        )
    engine = open_engine(parse_store_url(url))
    return Executor(engine, clock, ids, adapters=adapters or Adapters())
