"""Procedural memory: the draft of a completed plan, kept under its goal key (plans.md 6).

When a plan completes and fulfils its intention, its draft is stored under the intention's
``goal_key`` (or the draft's objective when none was given). :func:`recall` returns the most
recent one, which :func:`~cerebri.execution.submit.submit` accepts as it is
(``cerebri submit --goal KEY`` with no file).
"""

from __future__ import annotations

from cerebri._guard import arguments
from cerebri.execution._rows import loads
from cerebri.execution.context import Executor
from cerebri.execution.errors import execution_argument_error
from cerebri.execution.store import knowledge
from cerebri.plans import PlanDraft

__all__ = ["recall"]


@arguments(execution_argument_error, executor=Executor, goal_key=str)
def recall(executor: Executor, goal_key: str) -> PlanDraft | None:
    """The draft most recently remembered under ``goal_key`` (latest ``created_at``, then
    greatest id), or ``None`` when nothing was remembered under it."""
    with executor.engine.connect() as connection:
        text = knowledge.recall(connection, goal_key)
    return None if text is None else PlanDraft.model_validate(loads(text))
