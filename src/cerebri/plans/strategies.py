"""The deterministic strategies and the order they are preferred in (plans.md section 4).

1. ``direct_action_verified``: act through the capability, then check by observation;
2. ``read_only_diagnosis``: request temporary, scoped read access, observe, summarise
   (risk, mitigation and fallback stated);
3. ``escalation``: diagnose and inform the operator instead of repeating a failed action.

A strategy that failed for an intention is not chosen again for it
(:func:`choose_strategy`). A completed escalation does not fulfil the intention
(:func:`fulfils_intention`). A language model is consulted only when every deterministic
strategy is spent.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum
from typing import Final

from cerebri._guard import arguments
from cerebri.plans.report import draft_argument_error

__all__ = ["STRATEGY_ORDER", "Strategy", "choose_strategy", "fulfils_intention"]


class Strategy(StrEnum):
    """A deterministic strategy, by its wire name (the draft's ``strategy``)."""

    DIRECT_ACTION_VERIFIED = "direct_action_verified"
    READ_ONLY_DIAGNOSIS = "read_only_diagnosis"
    ESCALATION = "escalation"


STRATEGY_ORDER: Final = (
    Strategy.DIRECT_ACTION_VERIFIED,
    Strategy.READ_ONLY_DIAGNOSIS,
    Strategy.ESCALATION,
)
"""Most preferred first."""


@arguments(draft_argument_error, failed=Iterable)
def choose_strategy(failed: Iterable[str] = ()) -> Strategy | None:
    """The most preferred strategy not in ``failed`` (wire names of strategies that already
    failed for this intention), or ``None`` when all are spent. ``draft.invalid_argument``
    when ``failed`` is not iterable."""
    spent = set(failed)
    return next((s for s in STRATEGY_ORDER if s.value not in spent), None)


def fulfils_intention(strategy: Strategy) -> bool:
    """Whether completing a plan of ``strategy`` fulfils its intention (escalation does not:
    it only informs the operator)."""
    return strategy is not Strategy.ESCALATION
