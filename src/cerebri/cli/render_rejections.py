"""The rejected starts of a PlanningResult, grouped by cause for people (``--table``,
``find-slot``).

The PlanningResult keeps every violated rule as the spec writes it (planner.md 6-7): a start
inside a blocking event fails the built-in overlap check, an explicit ``NO_OVERLAP`` (the
same check again) and a ``REQUIRED_BUFFER``. Counting those rules line by line says every
night twice. Here a start is counted once per *cause* instead
(docs/decisions/0027-readable-answers.md):

* a blocker generated for closed time (``outside-working-hours-…``, ``unavailable-…``,
  ``unobserved-…``) is one cause per kind, e.g. "outside working hours", whichever rule
  (overlap or buffer) it broke;
* any other blocker is "overlaps X" or, only when the start does not overlap X, "within the
  buffer of X"; X is the blocker's group (a series for its occurrences), so a daily standup
  is one cause over all its days;
* every other reason is its own cause (the rule, the object and the reason).

Each cause lists its starts as runs of consecutive grid positions (a night is one run), each
run with its first local date and its number of starts.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from zoneinfo import ZoneInfo

from rich.console import Console

from cerebri.cpir import PlanningResult, Tagged
from cerebri.temporal import Instant

__all__ = ["CLOSED_TIME", "RejectionCauses", "group_rejections", "print_rejections"]

CLOSED_TIME: tuple[tuple[str, str], ...] = (
    ("outside-working-hours-", "outside working hours"),
    ("closed-day-", "not a working day"),
    ("unavailable-", "outside an attendee's availability"),
    ("unobserved-", "time no calendar describes"),
)
"""Blocker id prefixes that find-slot generates for closed time, and their cause text."""

MAX_CAUSE_LINES = 8
"""Cause lines in the summary; the rest are folded into one ``… more`` line."""

MAX_RUNS = 7
"""Runs shown per cause line (a 5-day working-hours search has 6 nights and edges)."""


@dataclass(frozen=True, slots=True)
class RejectionCauses:
    """Rejected starts grouped by cause.

    Attributes:
        starts: cause text → the rejected starts it covers, ascending.
        hints: cause text → a hint on the setting to change.
        per_start: each rejected start with its causes (in first-seen order), in the
            result's order.
    """

    starts: dict[str, list[Instant]]
    hints: dict[str, str]
    per_start: list[tuple[Instant, list[str]]]


def _closed(blocker: str) -> str | None:
    return next((text for prefix, text in CLOSED_TIME if blocker.startswith(prefix)), None)


def _blockers(payload: Mapping[str, object]) -> list[str]:
    evidence = payload.get("evidence")
    found: list[str] = []
    if isinstance(evidence, dict):
        for key in ("blocking_objects", "blocking_occurrences"):
            value = evidence.get(key)
            if isinstance(value, list):
                found.extend(str(v) for v in value)
    return found


def _buffer_text(payload: Mapping[str, object]) -> str:
    constraint = payload.get("constraint")
    value = constraint.get("value") if isinstance(constraint, dict) else None
    return f"the {value} s buffer" if isinstance(value, int) else "the buffer"


def _start_causes(
    reasons: Sequence[Tagged],
    groups: Mapping[str, str],
    describe: Callable[[Tagged], str],
    hint: Callable[[Tagged], str | None],
    hints: dict[str, str],
) -> list[str]:
    """The causes of one rejected start, each once, in the order the reasons give them."""
    overlaps: list[str] = []
    buffers: list[tuple[str, str]] = []
    causes: list[str] = []
    for reason in reasons:
        wire = reason.to_wire()
        payload = wire.get(reason.name) if isinstance(wire, dict) else None
        kind = payload.get("reason") if isinstance(payload, dict) else None
        blockers = _blockers(payload) if isinstance(payload, dict) else []
        if reason.name == "HardConstraint" and kind in {"Overlap", "InsufficientBuffer"}:
            assert isinstance(payload, dict)
            for blocker in blockers:
                closed = _closed(blocker)
                if closed is not None:
                    causes.append(closed)
                elif kind == "Overlap":
                    overlaps.append(groups.get(blocker, blocker))
                else:
                    buffers.append((groups.get(blocker, blocker), _buffer_text(payload)))
            if blockers:
                continue
        text = describe(reason)
        causes.append(text)
        tip = hint(reason)
        if tip is not None:
            hints[text] = tip
    causes.extend(f"overlaps {group}" for group in overlaps)
    # A start inside X is not counted again as too close to X.
    causes.extend(f"within {what} of {group}" for group, what in buffers if group not in overlaps)
    return list(dict.fromkeys(causes))


def group_rejections(
    result: PlanningResult,
    groups: Mapping[str, str],
    describe: Callable[[Tagged], str],
    hint: Callable[[Tagged], str | None],
) -> RejectionCauses:
    """Group ``result.rejections`` by cause (module doc).

    ``groups`` maps a blocker id to the name it is counted under (default: the id);
    ``describe`` words any other reason; ``hint`` gives an optional hint for a reason.
    """
    starts: dict[str, list[Instant]] = defaultdict(list)
    hints: dict[str, str] = {}
    per_start: list[tuple[Instant, list[str]]] = []
    for rejection in result.rejections:
        causes = _start_causes(rejection.reasons, groups, describe, hint, hints)
        per_start.append((rejection.start, causes))
        for cause in causes:
            starts[cause].append(rejection.start)
    for found in starts.values():
        found.sort(key=lambda instant: instant.ns)
    return RejectionCauses(dict(starts), hints, per_start)


def _local(instant: Instant, zone: ZoneInfo | None) -> tuple[str, str]:
    """``(MM-DD, HH:MM)`` of ``instant`` in ``zone`` (UTC without a zone)."""
    moment = instant.to_datetime()
    if moment is None:
        return "", instant.format()
    local = moment.astimezone(zone) if zone is not None else moment
    return local.strftime("%m-%d"), local.strftime("%H:%M")


def fold_runs(starts: Sequence[Instant], step_ns: int, zone: ZoneInfo | None, dated: bool) -> str:
    """Starts as runs of consecutive grid positions: ``10-05 16:45-08:45 (65), 10-06 09:00``.

    A run shows its first local date (when ``dated``), first and last start and, when it
    holds more than one start, how many; at most :data:`MAX_RUNS` runs, then ``+N runs``.
    """
    runs: list[list[Instant]] = []
    for start in starts:
        if runs and start.ns - runs[-1][-1].ns == step_ns:
            runs[-1].append(start)
        else:
            runs.append([start])
    shown: list[str] = []
    for run in runs[:MAX_RUNS]:
        day, first = _local(run[0], zone)
        text = f"{day} {first}" if dated else first
        if len(run) > 1:
            last_day, last = _local(run[-1], zone)
            through = f"{last_day} {last}" if dated and last_day != day else last
            text += f"-{through} ({len(run)})"
        shown.append(text)
    more = f", … (+{len(runs) - MAX_RUNS} runs)" if len(runs) > MAX_RUNS else ""
    return ", ".join(shown) + more


def print_rejections(
    causes: RejectionCauses,
    console: Console,
    *,
    where: str,
    zone: ZoneInfo | None,
    step_ns: int,
    dated: bool,
    explain: bool,
) -> None:
    """The summary: a header, at most :data:`MAX_CAUSE_LINES` cause lines (most starts
    first, then by text) and one ``… more`` line; with ``explain``, every rejected start with
    its causes. Lines are never wrapped by the console (``soft_wrap``)."""
    total = len(causes.per_start)
    ordered = sorted(causes.starts.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    console.print(
        f"{total} rejected start(s) by cause (a start can have several; starts in {where}"
        f"{'' if explain else '; --explain lists each start'}):",
        soft_wrap=True,
    )
    for text, starts in ordered[:MAX_CAUSE_LINES]:
        tip = causes.hints.get(text)
        suffix = f" — hint: {tip}" if tip is not None else ""
        console.print(
            f"  {len(starts)} × {text}: {fold_runs(starts, step_ns, zone, dated)}{suffix}",
            soft_wrap=True,
        )
    rest = ordered[MAX_CAUSE_LINES:]
    if rest:
        covered = len({s.ns for _, starts in rest for s in starts})
        console.print(f"  … {len(rest)} more cause(s) over {covered} start(s)", soft_wrap=True)
    if explain:
        console.print("every rejected start:", soft_wrap=True)
        for start, found in causes.per_start:
            day, at = _local(start, zone)
            console.print(
                f"  {day} {at} ({start.format()}): {'; '.join(found)}",
                soft_wrap=True,
            )
