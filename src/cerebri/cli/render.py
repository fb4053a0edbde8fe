"""Human-readable rendering of a PlanningResult (``cerebri plan --table``).

Times are shown in UTC and in the target's own zone; costs and shifts in whole seconds.
Rejected starts are summarised by cause and day (:mod:`cerebri.cli.render_rejections`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

from rich.console import Console
from rich.table import Table
from rich.text import Text

from cerebri._json import compact
from cerebri.cli._plan_text import admission_breaches
from cerebri.cli.render_rejections import group_rejections, print_rejections
from cerebri.cpir import Outcome, PlanningRequest, PlanningResult, Tagged
from cerebri.planner.limits import DEFAULT_LIMITS, PlannerLimits
from cerebri.planner.notes import issue_note, validation_warnings
from cerebri.temporal import Instant

if TYPE_CHECKING:
    from cerebri.cli.render_calendars import SlotColumns

__all__ = ["render_result"]

_PLAN_REASONS = {
    "FeasibleWithinScope": "passes every hard rule",
    "EarliestTieBreak": "no preference: earlier first",
    "AnalysisOnly": "analysis only",
    "DurationUncertain": "duration uncertain",
    "Cancellation": "cancels the event where it is now",
    "UpdateInPlace": "updated where it is (the new length fits)",
}

_DISRUPTION = {
    0: "same day",
    1: "same time, another day",
    2: "another day and time",
}
"""The disruption classes of a reschedule (decision 0049), least disruptive first: the
same local date as the current start, the same local time of day, anything else."""


def _reason_text(
    reason: Tagged, labels: Mapping[str, str] | None = None, events: Mapping[str, str] | None = None
) -> str:
    wire = reason.to_wire()
    payload = wire.get(reason.name) if isinstance(wire, dict) else None
    if reason.name == "Unchanged" and isinstance(payload, str) and payload in (events or {}):
        return f"Unchanged: {(events or {})[payload]}"
    if reason.name == "HardConstraint" and isinstance(payload, dict):
        constraint = payload.get("constraint")
        kind = constraint.get("kind") if isinstance(constraint, dict) else "?"
        evidence = payload.get("evidence")
        blockers: list[str] = []
        if isinstance(evidence, dict):
            for key in ("blocking_objects", "blocking_occurrences"):
                value = evidence.get(key)
                if isinstance(value, list):
                    blockers.extend(str(v) for v in value)
        if labels:
            blockers = [labels.get(b, b) for b in blockers]
        by = f", blocked by {', '.join(blockers)}" if blockers else ""
        return f"{kind} on {payload.get('object_id')}: {payload.get('reason')}{by}"
    if payload is None:
        return reason.name
    return f"{reason.name} {compact(payload)}"


def _hint(reason: Tagged, request: PlanningRequest) -> str | None:
    if reason.name == "MovedObjectLimit":
        return (
            f"budget.max_moved_objects is {request.budget.max_moved_objects}; "
            "moving an existing event needs at least 1"
        )
    if reason.name == "MutationLimit":
        return (
            f"scope.max_mutations ({request.scope.max_mutations}) and "
            f"policy.snapshot.mutation.max_mutations "
            f"({request.policy.snapshot.mutation.max_mutations}) must both allow 1 placement"
        )
    if reason.name == "InvalidDuration":
        return "a placement must last the request's duration, and a move keeps the event's length"
    if reason.name == "Scope":
        return "the target is outside the scope filters, or not in scope.movable_object_ids"
    if reason.name == "Unchanged":
        return "that is the event's current start: a reschedule needs a new time"
    if reason.name == "StartChanged":
        return "an update or a cancel keeps the event's current start; reschedule to move it"
    return None


def _occurrence_labels(result: PlanningResult) -> dict[str, str]:
    """``series@local date local time`` for each compiled occurrence id."""
    compilation = result.compilation
    found: dict[str, str] = {}
    entries = compilation.get("occurrences") if isinstance(compilation, dict) else None
    for entry in entries if isinstance(entries, list) else []:
        occ = entry.get("occurrence") if isinstance(entry, dict) else None
        if isinstance(entry, dict) and isinstance(occ, dict):
            found[str(entry.get("id"))] = (
                f"{entry.get('series_id')}@{occ.get('date')} {occ.get('local_time')}"
            )
    return found


def _occurrence_groups(result: PlanningResult) -> dict[str, str]:
    """The series id of each compiled occurrence id (its rejections count under it)."""
    compilation = result.compilation
    found: dict[str, str] = {}
    entries = compilation.get("occurrences") if isinstance(compilation, dict) else None
    for entry in entries if isinstance(entries, list) else []:
        if isinstance(entry, dict):
            found[str(entry.get("id"))] = f"series {entry.get('series_id')}"
    return found


def _span_text(seconds: int) -> str:
    """``seconds`` as ``2 d 1 h 30 min`` (``0 min`` for less than a minute)."""
    days, rest = divmod(abs(seconds) // 60, 1440)
    hours, minutes = divmod(rest, 60)
    parts = [f"{days} d"] * bool(days) + [f"{hours} h"] * bool(hours)
    parts += [f"{minutes} min"] * bool(minutes)
    return " ".join(parts) or "0 min"


def _disruption_text(reason: Tagged) -> str:
    """``{"Disruption": {"class": c, "shift_seconds": s}}`` in words (decision 0049)."""
    payload = reason.payload
    level = payload.get("class") if isinstance(payload, dict) else None
    shift = payload.get("shift_seconds") if isinstance(payload, dict) else None
    if not isinstance(level, int) or not isinstance(shift, int):
        return reason.name
    kind = _DISRUPTION.get(level, f"class {level}")
    return f"{kind}, {_span_text(shift)} away (disruption {level})"


def _explain(reason: Tagged, cost: int) -> str:
    if reason.name == "PreferredStart":
        return f"{cost} s from the preferred start ({reason.payload})"
    if reason.name == "Disruption":
        return _disruption_text(reason)
    return _PLAN_REASONS.get(reason.name, reason.name)


def _utc(instant: Instant) -> str:
    return instant.format().replace("T", " ")


def _local(instant: Instant, zone: ZoneInfo | None) -> str:
    moment = instant.to_datetime()
    if zone is None or moment is None:
        return "-"
    # The offset tells the two 02:30s of a DST fold apart.
    return moment.astimezone(zone).strftime("%Y-%m-%d %H:%M:%S %z")


def _candidates(
    result: PlanningResult,
    console: Console,
    zone: ZoneInfo | None,
    top: int | None,
    ranking: SlotColumns | None,
) -> None:
    shown = result.candidates if top is None else result.candidates[:top]
    title = f"Ranked candidates ({len(result.candidates)})"
    extra: tuple[str, ...] = ("cost s",)
    if ranking is not None:
        title += f" by {ranking.ranked_by}"
        extra = ranking.headers
    table = Table(title=title)
    table.add_column("#", justify="right")
    table.add_column("start (UTC)", no_wrap=True)
    table.add_column("end (UTC)", no_wrap=True)
    table.add_column("local start", no_wrap=True)
    for header in extra:
        table.add_column(header, justify="right" if header.endswith(" s") else "left")
    table.add_column("shift s", justify="right")
    table.add_column("why")
    for rank, candidate in enumerate(shown, start=1):
        placement = candidate.proposed.placements[0]
        if ranking is None:
            cells: tuple[str, ...] = (str(candidate.cost),)
            why = [_explain(c.reason, c.cost) for c in candidate.explanation]
        else:
            cells = ranking.rows[rank - 1] if rank <= len(ranking.rows) else ("-",) * len(extra)
            why = [
                _explain(c.reason, c.cost)
                for c in candidate.explanation
                if c.reason.name != "PreferredStart"
            ]
        table.add_row(
            str(rank),
            _utc(placement.range.start),
            _utc(placement.range.end),
            _local(placement.range.start, zone),
            *cells,
            str(candidate.shifted_seconds),
            "; ".join(why),
        )
    console.print(table)
    if len(shown) < len(result.candidates):
        console.print(f"… {len(result.candidates) - len(shown)} more candidate(s)")
    console.print(
        ranking.legend
        if ranking is not None
        else "cost = seconds from the preferred start; shift = seconds an existing event moves"
    )


def _issues(
    result: PlanningResult,
    request: PlanningRequest,
    console: Console,
    *,
    limits: PlannerLimits,
    limit_hint: str | None,
) -> None:
    """Each validation issue once, with its limit breaches, hint and note; then the
    request's validation warnings."""
    shown_issues: set[str] = set()
    for issue in result.validation.issues:
        text = _reason_text(issue)
        if text in shown_issues:
            continue  # each issue once, with its breaches and hint
        shown_issues.add(text)
        console.print(f"  issue: {text}")
        if issue.name == "InputLimit":
            for breach in admission_breaches(request, limits):
                console.print(f"    {breach}", soft_wrap=True)
            if limit_hint is not None:
                console.print(f"  hint: {limit_hint}", soft_wrap=True)
        note = issue_note(request, issue)
        if note is not None:
            console.print(f"    {note.message}", soft_wrap=True)
    for warning in validation_warnings(request):
        console.print(
            f"  warning {warning.code} at {warning.path}: {warning.message}", soft_wrap=True
        )


def _search_hints(
    result: PlanningResult, request: PlanningRequest, console: Console, budget_option: str
) -> None:
    """The hints about the search itself: a window shorter than the duration, a search
    stopped by the budget (``budget_option`` names the setting)."""
    space = result.search_space
    if result.outcome is Outcome.NO_SOLUTION and space.evaluated == 0:
        console.print("  hint: the window is shorter than the duration; no start fits in it")
    if result.outcome is Outcome.NEEDS_RELAXATION or (
        result.outcome is Outcome.SOLUTION and not space.exhausted
    ):
        console.print(
            f"  hint: the search stopped after {budget_option} = "
            f"{request.budget.max_candidates} grid positions; raise it (or the granularity) "
            "to search the rest"
        )


def render_result(
    result: PlanningResult,
    request: PlanningRequest,
    console: Console,
    *,
    top: int | None = None,
    limits: PlannerLimits = DEFAULT_LIMITS,
    labels: Mapping[str, str] | None = None,
    budget_option: str = "budget.max_candidates",
    groups: Mapping[str, str] | None = None,
    explain: bool = False,
    ranking: SlotColumns | None = None,
    limit_hint: str | None = None,
    events: Mapping[str, str] | None = None,
) -> None:
    """Print the outcome, the ranked candidates with reasons, and the rejected starts.

    ``top`` caps the candidate rows (None = all); ``labels`` maps object ids to readable
    names (e.g. an event's summary); ``groups`` maps a blocker id to the name its
    rejections are counted under in the summary (default: a series for its occurrences,
    else the label); ``budget_option`` names the setting that raises the search budget in
    the hint. The rejected starts are summarised by cause
    (:mod:`cerebri.cli.render_rejections`); ``explain`` also lists every rejected start.

    ``ranking`` (find-slot with a daily preference, optional attendees or
    ``--min-attendance``) gives the columns the candidates were ordered by; they replace
    the cost column and the preferred-start reason, which only measure the distance to
    the request's one preferred start (the first choice).

    ``limit_hint`` is printed as a hint under an ``InputLimit`` issue (what the caller can
    change).

    ``events`` names existing events in rule reasons that point at them by object id
    (``Unchanged``: the start a reschedule may not keep), e.g. by title and current start;
    an object id it does not name is printed as the planner wrote it.
    """
    space = result.search_space
    labels = {**_occurrence_labels(result), **(labels or {})}
    target = request.object(request.target_ids[0]) if request.target_ids else None
    zone = ZoneInfo(target.timezone) if target is not None else None
    if target is not None:
        console.print(f"target: {target.id} ({target.timezone})")
    console.print(
        Text.assemble(
            (result.outcome.value, "bold"),
            f" ({result.assessment.value}); "
            f"validation {result.validation.state.value}; "
            f"{space.evaluated} grid position(s) evaluated, "
            f"grid {'exhausted' if space.exhausted else 'not exhausted'}",
        )
    )
    _issues(result, request, console, limits=limits, limit_hint=limit_hint)
    _search_hints(result, request, console, budget_option)
    if result.candidates:
        _candidates(result, console, zone, top, ranking)
    if result.rejections:
        causes = group_rejections(
            result,
            {**labels, **_occurrence_groups(result), **(groups or {})},
            lambda reason: _reason_text(reason, labels, events),
            lambda reason: _hint(reason, request),
        )
        print_rejections(
            causes,
            console,
            where=target.timezone if target is not None else "UTC",
            zone=zone,
            step_ns=space.granularity * 1_000_000_000,
            explain=explain,
        )
