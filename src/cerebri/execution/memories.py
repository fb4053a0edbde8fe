"""Procedural memory: the draft of a completed plan, kept under its goal key (plans.md 6).

When a plan completes and fulfils its intention, its draft is stored under the intention's
``goal_key`` (or the draft's objective when none was given). :func:`recall` returns the most
recent one, which :func:`~cerebri.execution.submit.submit` accepts as it is
(``cerebri submit --goal KEY`` with no file).
"""

from __future__ import annotations

from sqlalchemy import select

from cerebri._guard import arguments
from cerebri.execution._rows import loads
from cerebri.execution.context import Executor
from cerebri.execution.errors import execution_argument_error
from cerebri.execution.store.schema import procedural_memories
from cerebri.plans import PlanDraft

__all__ = ["recall"]


@arguments(execution_argument_error, executor=Executor, goal_key=str)
def recall(executor: Executor, goal_key: str) -> PlanDraft | None:
    """The draft most recently remembered under ``goal_key`` (latest ``created_at``, then
    greatest id), or ``None`` when nothing was remembered under it."""
    with executor.engine.connect() as connection:
        text = connection.execute(
            select(procedural_memories.c.steps)
            .where(procedural_memories.c.goal_key == goal_key)
            .order_by(procedural_memories.c.created_at.desc(), procedural_memories.c.id.desc())
            .limit(1)
        ).scalar()
    return None if text is None else PlanDraft.model_validate(loads(text))
