"""What every executor operation runs with: the store, the clock, ids, capabilities, adapters.

:class:`Executor` bundles them so no operation reads the wall clock, draws random ids or
finds capabilities on its own (``cerebri/clock.py``). Durations are whole seconds unless a
name ends in ``_ns`` (nanoseconds, the unit of every instant column in the store).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Final

from cerebri._guard import CALLABLE, kind_name
from cerebri.clock import Clock, IdGenerator
from cerebri.execution.adapters import Adapters
from cerebri.execution.errors import execution_argument_error
from cerebri.execution.replan import Replanner, alternatives_replanner
from cerebri.execution.store.connection import Connection, Engine
from cerebri.execution.store.dialect import durable_transaction
from cerebri.plans import CapabilityRegistry, builtin_registry

__all__ = ["APPROVAL_TTL_SECONDS", "NS", "Executor"]

NS: Final = 1_000_000_000
"""Nanoseconds per second."""

APPROVAL_TTL_SECONDS: Final = 86_400
"""How long an approval request stays open before it expires (24 hours), unless the
:class:`Executor` says otherwise."""


@dataclass(frozen=True)
class Executor:
    """The store (an engine from :func:`cerebri.execution.store.open_engine`), the injected
    clock and id generator, the capability registry a step is checked against when it acts,
    the adapters that carry out capabilities, and the replanner.

    ``approval_ttl_seconds``: lifetime of an approval request; ``retry_base_seconds``: the
    first backoff of a retried idempotent step (doubling per attempt, at most
    ``retry_max_seconds``).
    """

    engine: Engine
    clock: Clock
    ids: IdGenerator
    registry: CapabilityRegistry = field(default_factory=builtin_registry)
    adapters: Adapters = field(default_factory=Adapters)
    replanner: Replanner = alternatives_replanner
    approval_ttl_seconds: int = APPROVAL_TTL_SECONDS
    retry_base_seconds: int = 5
    retry_max_seconds: int = 300

    def __post_init__(self) -> None:
        """Raises :class:`ExecutionError` ``execution.invalid_argument`` for a part of the
        wrong type, so no operation fails later on an attribute it lacks."""
        kinds: dict[str, type | tuple[type, ...]] = {
            "engine": Engine,
            "clock": Clock,
            "ids": IdGenerator,
            "registry": CapabilityRegistry,
            "adapters": Adapters,
            "replanner": CALLABLE,
            "approval_ttl_seconds": int,
            "retry_base_seconds": int,
            "retry_max_seconds": int,
        }
        for name, kind in kinds.items():
            value = getattr(self, name)
            if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
                raise execution_argument_error(
                    f"Executor() needs {name} as {kind_name(kind)}, got {type(value).__name__}"
                )

    def now_ns(self) -> int:
        """The injected clock's current instant, in nanoseconds since the epoch (UTC)."""
        return self.clock.now().ns

    @contextmanager
    def transaction(self) -> Iterator[Connection]:
        """One transaction: committed when the block ends, rolled back when it raises."""
        with self.engine.begin() as connection:
            yield connection

    @contextmanager
    def durable_transaction(self) -> Iterator[Connection]:
        """A transaction whose commit survives a power loss, not only a killed process.

        Used for the marks written just before and just after a non-idempotent invocation
        (decision 0021). PostgreSQL commits are always durable (``synchronous_commit`` on);
        SQLite runs with ``synchronous=NORMAL`` and this raises it to ``FULL`` for this
        commit, which also syncs every earlier commit still in the write-ahead log.
        """
        with durable_transaction(self.engine) as connection:
            yield connection
