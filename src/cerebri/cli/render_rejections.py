"""The rejected starts of a PlanningResult, summarised by cause and by day for people
(``plan --table``, ``find-slot``).

The PlanningResult keeps every violated rule as the spec writes it (planner.md 6-7): a start
inside a blocking event fails the built-in overlap check, an explicit ``NO_OVERLAP`` (the
same check again) and a ``REQUIRED_BUFFER``. Here each rejected start is sorted into causes
(docs/decisions/0027-readable-answers.md):

* a blocker generated for closed time (:data:`CLOSED_TIME`, e.g. ``outside-working-hours-…``)
  is one cause per kind, e.g. "outside working hours", whichever rule (overlap or buffer)
  it broke; an attendee's own hours (``outside-working-hours-<id>-<close>-<reopen>``,
  docs/decisions/0053) are a cause per attendee: "outside alice's working hours", "not a
  working day for alice";
* any other blocker is an overlap of X or, only when the start does not overlap X, a start
  within the buffer of X; X is the blocker's group (a series for its occurrences), so a
  daily standup is one name over all its days;
* every other reason is a rule cause (the rule, the object and the reason).

The summary (:func:`print_rejections`) counts every start exactly once: in the first
closed-time kind that rejects it (in :data:`CLOSED_TIME` order), else on its local day,
where it is an overlap, else a buffer rejection, else an other-rule rejection.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from zoneinfo import ZoneInfo

from rich.console import Console

from cerebri.cpir import PlanningResult, Tagged
from cerebri.temporal import Instant

__all__ = [
    "CLOSED_TIME",
    "RejectionCauses",
    "StartCauses",
    "group_rejections",
    "print_rejections",
]

CLOSED_TIME: tuple[tuple[str, str], ...] = (
    ("outside-working-hours-", "outside working hours"),
    ("closed-day-", "not a working day"),
    ("unavailable-", "outside an attendee's availability"),
    ("unobserved-", "time no calendar describes"),
)
"""Blocker id prefixes that find-slot generates for closed time, and their cause text, in
the order a start rejected by several kinds is counted (the first one). Add a row per new
kind; the summary gives each kind present one line."""

MAX_LINES = 10
"""Lines of the summary, header and ``… more days`` line included."""

MAX_RULE_LINES = 2
"""Rule lines (with their hints); further rules appear only in the day lines."""

WIDTH = 100
"""Characters a summary line aims at: name lists are cut with ``+N more`` to fit."""

MIN_NAME = 24
"""Characters the first name of a list keeps at least when it is cut to fit a line."""

SLACK = 10
"""Characters a day line may pass :data:`WIDTH` by before its name lists are cut."""
"""Characters the first name of a list keeps at least when it is cut to fit a line."""


@dataclass(frozen=True, slots=True)
class StartCauses:
    """The causes of one rejected start.

    Attributes:
        start: the rejected start, a UTC instant.
        closed: the closed-time kinds (:data:`CLOSED_TIME` texts) that reject it.
        overlaps: the blocker groups it overlaps.
        buffers: ``(group, "the N s buffer")`` for each blocker whose buffer it breaks
            without overlapping it.
        rules: the text of every other violated rule.
    """

    start: Instant
    closed: tuple[str, ...]
    overlaps: tuple[str, ...]
    buffers: tuple[tuple[str, str], ...]
    rules: tuple[str, ...]

    @property
    def texts(self) -> list[str]:
        """Every cause as a phrase, each once (``--explain``)."""
        return list(
            dict.fromkeys(
                [
                    *self.closed,
                    *self.rules,
                    *(f"overlaps {group}" for group in self.overlaps),
                    *(f"within {what} of {group}" for group, what in self.buffers),
                ]
            )
        )


@dataclass(frozen=True, slots=True)
class RejectionCauses:
    """Rejected starts with their causes.

    Attributes:
        per_start: one :class:`StartCauses` per rejection, in the result's order.
        hints: rule text → a hint on the setting to change.
        short: rule text → its short name for day lines (the constraint kind or reason).
    """

    per_start: list[StartCauses]
    hints: dict[str, str]
    short: dict[str, str]


_ATTENDEE_HOURS = re.compile(
    r"(outside-working-hours-|closed-day-)(.+)-[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{4}"
    r"-[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{4}"
)
_ATTENDEE_TEXT = {
    "outside-working-hours-": ("outside ", "'s working hours"),
    "closed-day-": ("not a working day for ", ""),
}
"""An attendee's own closed time (decision 0053): the text around their calendar id."""


def _closed(blocker: str) -> str | None:
    attendee = _ATTENDEE_HOURS.fullmatch(blocker)
    if attendee is not None:  # the query's own hours have no owner between kind and bounds
        head, tail = _ATTENDEE_TEXT[attendee[1]]
        return f"{head}{attendee[2]}{tail}"
    return next((text for prefix, text in CLOSED_TIME if blocker.startswith(prefix)), None)


def _closed_order(text: str) -> tuple[int, int, str]:
    """Closed-time causes in :data:`CLOSED_TIME` order; within a kind, the query's own
    cause first, then each attendee's by text."""
    for index, (prefix, plain) in enumerate(CLOSED_TIME):
        if text == plain:
            return index, 0, text
        head, tail = _ATTENDEE_TEXT.get(prefix, ("", ""))
        if head and text.startswith(head) and text.endswith(tail):
            return index, 1, text
    return len(CLOSED_TIME), 0, text


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


def _short(reason: Tagged, payload: object) -> str:
    if reason.name == "HardConstraint" and isinstance(payload, dict):
        constraint = payload.get("constraint")
        kind = constraint.get("kind") if isinstance(constraint, dict) else None
        if isinstance(kind, str):
            return kind
    return reason.name


def _start_causes(
    start: Instant,
    reasons: Sequence[Tagged],
    *,
    groups: Mapping[str, str],
    describe: Callable[[Tagged], str],
    hint: Callable[[Tagged], str | None],
    found: RejectionCauses,
) -> StartCauses:
    """The causes of one rejected start, each once, in the order the reasons give them."""
    closed: list[str] = []
    overlaps: list[str] = []
    buffers: list[tuple[str, str]] = []
    rules: list[str] = []
    for reason in reasons:
        wire = reason.to_wire()
        payload = wire.get(reason.name) if isinstance(wire, dict) else None
        kind = payload.get("reason") if isinstance(payload, dict) else None
        blockers = _blockers(payload) if isinstance(payload, dict) else []
        if reason.name == "HardConstraint" and kind in {"Overlap", "InsufficientBuffer"}:
            assert isinstance(payload, dict)
            for blocker in blockers:
                shut = _closed(blocker)
                if shut is not None:
                    closed.append(shut)
                elif kind == "Overlap":
                    overlaps.append(groups.get(blocker, blocker))
                else:
                    buffers.append((groups.get(blocker, blocker), _buffer_text(payload)))
            if blockers:
                continue
        text = describe(reason)
        rules.append(text)
        found.short[text] = _short(reason, payload)
        tip = hint(reason)
        if tip is not None:
            found.hints[text] = tip
    inside = set(overlaps)
    return StartCauses(
        start,
        # Closed kinds keep the table's order: the first is the one the start is counted in.
        tuple(sorted(set(closed), key=_closed_order)),
        tuple(dict.fromkeys(overlaps)),
        # A start inside X is not counted again as too close to X.
        tuple(dict.fromkeys(b for b in buffers if b[0] not in inside)),
        tuple(dict.fromkeys(rules)),
    )


def group_rejections(
    result: PlanningResult,
    groups: Mapping[str, str],
    describe: Callable[[Tagged], str],
    hint: Callable[[Tagged], str | None],
) -> RejectionCauses:
    """The causes of each of ``result.rejections`` (module doc).

    ``groups`` maps a blocker id to the name it is counted under (default: the id);
    ``describe`` words any other reason; ``hint`` gives an optional hint for a reason.
    """
    found = RejectionCauses([], {}, {})
    for rejection in result.rejections:
        found.per_start.append(
            _start_causes(
                rejection.start,
                rejection.reasons,
                groups=groups,
                describe=describe,
                hint=hint,
                found=found,
            )
        )
    return found


def _local(instant: Instant, zone: ZoneInfo | None, pattern: str) -> str:
    moment = instant.to_datetime()
    if moment is None:
        return instant.format()
    return (moment.astimezone(zone) if zone is not None else moment).strftime(pattern)


def _day_number(instant: Instant, zone: ZoneInfo | None) -> int:
    """The proleptic Gregorian ordinal of ``instant``'s local date (UTC beyond datetime)."""
    moment = instant.to_datetime()
    if moment is None:
        return instant.ns // (86_400 * 1_000_000_000)
    return (moment.astimezone(zone) if zone is not None else moment).date().toordinal()


def _run_text(run: Sequence[Instant], zone: ZoneInfo | None) -> str:
    """One run with its date: ``10-05 08:00`` (one start), ``10-05 08:00–08:45`` (within a
    local day), or ``10-05 16:45–10-06 08:45 (65)`` (across days: both dates and the count
    of starts, since the times alone no longer say how long the run is)."""
    first = _local(run[0], zone, "%m-%d %H:%M")
    if len(run) == 1:
        return first
    if _day_number(run[0], zone) == _day_number(run[-1], zone):
        return f"{first}–{_local(run[-1], zone, '%H:%M')}"
    return f"{first}–{_local(run[-1], zone, '%m-%d %H:%M')} ({len(run)})"


def fold_spans(starts: Sequence[Instant], step_ns: int, zone: ZoneInfo | None) -> list[str]:
    """Starts as runs of consecutive grid positions, alike runs folded together.

    Runs with the same first and last local time that stay within one day, or that all
    cross exactly one midnight, are one item: ``09:00–09:45 on 3 days``,
    ``16:45–08:45 on 4 nights``. Any other run is shown alone with its date
    (:func:`_run_text`): ``10-05 08:00–08:45``, and for a run across days both dates and
    its count, ``10-05 16:45–10-07 08:45 (161)`` (Monday evening to Wednesday morning when
    Tuesday is closed). Items with most starts come first, then by their first start;
    ``starts`` must be ascending.
    """
    runs: list[list[Instant]] = []
    for start in starts:
        if runs and start.ns - runs[-1][-1].ns == step_ns:
            runs[-1].append(start)
        else:
            runs.append([start])
    alike: dict[tuple[str, str, int], list[list[Instant]]] = defaultdict(list)
    for run in runs:
        crossed = _day_number(run[-1], zone) - _day_number(run[0], zone)
        # Runs across two or more midnights are never folded: each keeps its dates.
        fold = crossed if crossed <= 1 else -run[0].ns - 1
        alike[_local(run[0], zone, "%H:%M"), _local(run[-1], zone, "%H:%M"), fold].append(run)
    ordered = sorted(alike.items(), key=lambda kv: (-sum(map(len, kv[1])), kv[1][0][0].ns))
    items: list[str] = []
    for (first, last, crossed), same in ordered:
        if len(same) == 1:
            items.append(_run_text(same[0], zone))
            continue
        times = f"{first}–{last}" if len(same[0]) > 1 else first
        items.append(f"{times} on {len(same)} {'nights' if crossed == 1 else 'days'}")
    return items


def _fit(items: Sequence[tuple[str, str]], room: int) -> str:
    """``(name, suffix)`` items joined by ``, `` within ``room`` characters, the rest as
    ``+N more``. The first item is always shown, its name cut with ``…`` to the room left
    (never below :data:`MIN_NAME` characters)."""
    shown: list[str] = []
    for index, (name, suffix) in enumerate(items):
        rest = len(items) - index - 1
        tail = f", +{rest} more" if rest else ""
        trial = ", ".join([*shown, name + suffix]) + tail
        if shown and len(trial) > room:
            break
        keep = max(room - len(tail) - len(suffix), MIN_NAME)
        shown.append((name if len(name) <= keep else name[: keep - 1] + "…") + suffix)
    hidden = len(items) - len(shown)
    return ", ".join([*shown, f"+{hidden} more"] if hidden else shown)


def _named(counts: Counter[str]) -> list[tuple[str, str]]:
    """``(name, " ×N")`` by most starts, then name."""
    ordered = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    return [(name, f" ×{n}") for name, n in ordered]


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def _line(head: str, parts: Sequence[tuple[str, list[tuple[str, str]]]]) -> str:
    """``head`` then each ``(text, names)`` part as ``text names…``, the names cut so the
    line stays near :data:`WIDTH` (whole when it is at most :data:`SLACK` longer)."""
    whole = "; ".join([head, *(f"{t} " + ", ".join(n + x for n, x in names) for t, names in parts)])
    if len(whole) <= WIDTH + SLACK:
        return whole
    room = WIDTH - len(head) - sum(len(text) + 3 for text, _ in parts)
    pieces: list[str] = []
    for index, (text, names) in enumerate(parts):
        listed = _fit(names, room // (len(parts) - index))
        room -= len(listed)
        pieces.append(f"{text} {listed}")
    return "; ".join([head, *pieces])


def _day_line(day: str, starts: Sequence[StartCauses], short: Mapping[str, str]) -> str:
    overlaps: Counter[str] = Counter()
    buffers: Counter[str] = Counter()
    rules: Counter[str] = Counter()
    counted = Counter[str]()
    for item in starts:
        if item.overlaps:
            counted["overlap"] += 1
            overlaps.update(item.overlaps)
        elif item.buffers:
            counted["buffer"] += 1
            buffers.update(group for group, _ in item.buffers)
        else:
            counted["rule"] += 1
            rules.update(list(dict.fromkeys(short.get(rule, rule) for rule in item.rules)))
    parts: list[tuple[str, list[tuple[str, str]]]] = []
    if counted["overlap"]:
        parts.append((f"{counted['overlap']} overlap", _named(overlaps)))
    if counted["buffer"]:
        parts.append((f"{counted['buffer']} in the buffer of", _named(buffers)))
    if counted["rule"]:
        parts.append((f"{counted['rule']} break", _named(rules)))
    return _line(f"  {day}: {_plural(len(starts), 'start')}", parts)


def print_rejections(
    causes: RejectionCauses,
    console: Console,
    *,
    where: str,
    zone: ZoneInfo | None,
    step_ns: int,
    explain: bool,
) -> None:
    """The summary, at most :data:`MAX_LINES` lines of about :data:`WIDTH` characters:

    * a header with the number of rejected starts and the zone of the times shown;
    * one line per closed-time kind present: its starts (counted in the first kind that
      rejects them) folded into spans (:func:`fold_spans`);
    * up to :data:`MAX_RULE_LINES` lines for other rules (most starts first): the rule,
      the starts outside closed time it rejects, their spans and any hint;
    * one line per local day (ascending) with its starts outside closed time, split into
      overlaps, else buffer rejections, else other rules, each with the names involved;
    * days past the budget folded into ``… N more days (K starts)``.

    With ``explain``, every rejected start follows with its causes. Lines are never
    wrapped by the console (``soft_wrap``).
    """
    total = len(causes.per_start)
    closed: dict[str, list[Instant]] = defaultdict(list)
    days: dict[str, list[StartCauses]] = defaultdict(list)
    ruled: dict[str, list[Instant]] = defaultdict(list)
    for item in sorted(causes.per_start, key=lambda s: s.start.ns):
        if item.closed:
            closed[item.closed[0]].append(item.start)
            continue
        days[_local(item.start, zone, "%Y-%m-%d %a %m-%d")].append(item)
        for rule in item.rules:
            ruled[rule].append(item.start)
    lines = [
        f"{_plural(total, 'rejected start')}, each counted once (times in {where}"
        f"{'' if explain else '; --explain lists every start'}):"
    ]
    for text in sorted(closed, key=_closed_order):
        head = f"  {text}: {_plural(len(closed[text]), 'start')}"
        spans = [(span, "") for span in fold_spans(closed[text], step_ns, zone)]
        lines.append(f"{head}: {_fit(spans, WIDTH - len(head) - 2)}")
    rules = sorted(ruled.items(), key=lambda kv: (-len(kv[1]), kv[0]))[:MAX_RULE_LINES]
    for text, starts in rules:
        tip = causes.hints.get(text)
        head = f"  {text}: {_plural(len(starts), 'start')}"
        listed = _fit([(span, "") for span in fold_spans(starts, step_ns, zone)], 40)
        lines.append(f"{head} ({listed})" + (f" — hint: {tip}" if tip is not None else ""))
    ordered = sorted(days.items())
    room = MAX_LINES - len(lines) - (0 if len(lines) + len(ordered) <= MAX_LINES else 1)
    shown = ordered[: max(room, 1)]
    lines.extend(_day_line(day[11:], starts, causes.short) for day, starts in shown)
    rest = ordered[len(shown) :]
    if rest:
        folded = sum(len(starts) for _, starts in rest)
        lines.append(f"  … {_plural(len(rest), 'more day')} ({_plural(folded, 'start')})")
    for line in lines:
        console.print(line, soft_wrap=True, markup=False)
    if explain:
        console.print("every rejected start:", soft_wrap=True)
        for item in causes.per_start:
            at = _local(item.start, zone, "%m-%d %H:%M")
            console.print(
                f"  {at} ({item.start.format()}): {'; '.join(item.texts)}",
                soft_wrap=True,
                markup=False,
            )
