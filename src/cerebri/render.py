"""Human-readable rendering of a PlanningResult (``cerebri plan --table``)."""

from __future__ import annotations

from collections import Counter

from rich.console import Console
from rich.table import Table

from cerebri.cpir import PlanningResult, Rejection, Tagged

__all__ = ["render_result"]


def _reason_text(reason: Tagged) -> str:
    payload = reason.payload
    if reason.name == "HardConstraint" and isinstance(payload, dict):
        constraint = payload.get("constraint")
        kind = constraint.get("kind") if isinstance(constraint, dict) else "?"
        why = payload.get("reason")
        evidence = payload.get("evidence")
        blockers: list[str] = []
        if isinstance(evidence, dict):
            for key in ("blocking_objects", "blocking_occurrences"):
                value = evidence.get(key)
                if isinstance(value, list):
                    blockers.extend(str(v) for v in value)
        by = f" by {', '.join(blockers)}" if blockers else ""
        return f"{kind} on {payload.get('object_id')}: {why}{by}"
    if payload is None:
        return reason.name
    return f"{reason.name}: {payload}"


def _explain(reason: Tagged, cost: int) -> str:
    if reason.name == "PreferredStart":
        return f"{cost} s from the preferred start ({reason.payload})"
    return _PLAN_REASONS.get(reason.name, reason.name)


_PLAN_REASONS = {
    "FeasibleWithinScope": "passes every hard rule",
    "EarliestTieBreak": "no preference: earlier first",
    "AnalysisOnly": "analysis only",
    "DurationUncertain": "duration uncertain",
}


def _when(text: str) -> str:
    # 2026-10-05T12:00:00Z -> 2026-10-05 12:00:00Z
    return text.replace("T", " ")


def _summary(rejections: tuple[Rejection, ...]) -> Counter[str]:
    counts: Counter[str] = Counter()
    for rejection in rejections:
        for reason in rejection.reasons:
            counts[_reason_text(reason)] += 1
    return counts


def render_result(result: PlanningResult, console: Console) -> None:
    """Print the outcome, a ranked candidate table with reasons and a rejection summary."""
    space = result.search_space
    if result.candidates:
        console.print(f"target: {result.candidates[0].object_id}")
    console.print(
        f"[bold]{result.outcome.value}[/bold] ({result.assessment.value}); "
        f"validation {result.validation.state.value}; "
        f"{space.evaluated} grid positions evaluated, "
        f"grid {'exhausted' if space.exhausted else 'not exhausted'}"
    )
    for issue in result.validation.issues:
        console.print(f"  issue: {_reason_text(issue)}")
    if result.candidates:
        table = Table(title="Ranked candidates (UTC)")
        table.add_column("#", justify="right")
        table.add_column("start", no_wrap=True)
        table.add_column("end", no_wrap=True)
        table.add_column("cost s", justify="right")
        table.add_column("shift s", justify="right")
        table.add_column("why")
        for rank, candidate in enumerate(result.candidates, start=1):
            placement = candidate.proposed.placements[0]
            reasons = "; ".join(_explain(c.reason, c.cost) for c in candidate.explanation)
            table.add_row(
                str(rank),
                _when(placement.range.start.format()),
                _when(placement.range.end.format()),
                str(candidate.cost),
                str(candidate.shifted_seconds),
                reasons,
            )
        console.print(table)
    if result.rejections:
        console.print(f"{len(result.rejections)} rejected start(s):")
        for text, count in sorted(
            _summary(result.rejections).items(), key=lambda kv: (-kv[1], kv[0])
        ):
            console.print(f"  {count} × {text}")
