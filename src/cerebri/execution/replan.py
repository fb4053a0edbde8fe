"""Choosing the next revision of a plan (plans.md sections 4 and 6).

A :data:`Replanner` is a pure function: given the intention's goal (the JSON stored with it),
the draft that failed and the strategies that already failed for the intention, it returns
a new draft or ``None`` when nothing is left to try. It never reads the store or the clock;
the executor writes what it returns as a new revision in the same transaction that closes
the old one (:mod:`cerebri.execution.progress`).

:func:`alternatives_replanner` is the default: ``cerebri submit --alternative`` stores other
drafts for the same intention under ``goal["alternatives"]``; the next revision is the first
of them, in :data:`~cerebri.plans.STRATEGY_ORDER` for the deterministic strategies and then
in the order given, whose strategy has not failed. A strategy that failed is never reused.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from typing import Any

from cerebri._guard import arguments
from cerebri.execution.errors import execution_argument_error
from cerebri.plans import STRATEGY_ORDER, PlanDraft

__all__ = ["Replanner", "alternatives_replanner", "strategy_rank"]

Replanner = Callable[[Mapping[str, Any], PlanDraft, frozenset[str]], PlanDraft | None]
"""``(goal, failed_draft, failed_strategies) -> next draft or None``."""

_ORDER = {strategy.value: rank for rank, strategy in enumerate(STRATEGY_ORDER)}


def strategy_rank(strategy: str, position: int) -> tuple[int, int]:
    """Sort key of an alternative: deterministic strategies first, in their preferred order,
    then the others in the order they were given (``position``)."""
    return (_ORDER.get(strategy, len(_ORDER)), position)


@arguments(execution_argument_error, goal=Mapping, failed_draft=PlanDraft, failed=AbstractSet)
def alternatives_replanner(
    goal: Mapping[str, Any], failed_draft: PlanDraft, failed: frozenset[str]
) -> PlanDraft | None:
    """The most preferred stored alternative whose strategy has not failed, or ``None``."""
    raw: Sequence[Any] = goal.get("alternatives") or ()
    drafts = [PlanDraft.model_validate(item) for item in raw]
    ranked = sorted(enumerate(drafts), key=lambda pair: strategy_rank(pair[1].strategy, pair[0]))
    spent = failed | {failed_draft.strategy}
    return next((draft for _, draft in ranked if draft.strategy not in spent), None)
