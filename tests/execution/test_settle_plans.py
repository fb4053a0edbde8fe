"""A plan whose steps all ended but which was never closed is completed by the workers' sweep.

On PostgreSQL a done step's outcome and its plan's completion are two transactions; a worker
that stops between them leaves the plan open with no open step (found by the simulated
many-machine bench). The state is made here by reopening a completed plan's row, as the
crash would have left it, on both back ends.
"""

from __future__ import annotations

from sqlalchemy import delete, select, update

from cerebri.clock import FakeClock, SequentialIds
from cerebri.execution import Executor, expire_due, run_worker, submit
from cerebri.execution.store import init, open_engine, parse_store_url
from cerebri.execution.store.schema import intentions, plans, procedural_memories
from cerebri.temporal import Instant

_DRAFT = {
    "objective": "pause",
    "origin": "operator",
    "strategy": "direct_action_verified",
    "steps": [{"key": "pause", "kind": "wait", "wait": {"seconds": 0}}],
}


def test_the_sweep_completes_a_plan_left_open_after_its_last_step(store_url: str) -> None:
    init(store_url)
    clock = FakeClock(Instant.parse("2026-12-01T10:00:00Z"))
    executor = Executor(open_engine(parse_store_url(store_url)), clock, SequentialIds("s"))
    done = submit(executor, _DRAFT)
    run_worker(executor, until_idle=True, poll_seconds=0.01)
    with executor.transaction() as connection:  # as a worker stopped before closing it
        connection.execute(
            update(plans)
            .where(plans.c.id == done.plan_id)
            .values(status="executing", closed_at=None)
        )
        connection.execute(
            update(intentions)
            .where(intentions.c.id == done.intention_id)
            .values(status="open", closed_at=None)
        )
        connection.execute(delete(procedural_memories))
    assert expire_due(executor) == 1
    assert expire_due(executor) == 0  # settled once
    with executor.engine.connect() as connection:
        plan = connection.execute(select(plans).where(plans.c.id == done.plan_id)).one()
        intention = connection.execute(select(intentions.c.status)).scalar()
        memories = connection.execute(select(procedural_memories.c.plan_id)).scalars().all()
    assert (plan.status, plan.open_steps) == ("completed", 0)
    assert plan.closed_at == clock.now().ns
    assert intention == "fulfilled"
    assert memories == [done.plan_id]
