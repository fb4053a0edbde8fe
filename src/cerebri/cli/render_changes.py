"""The text answer of ``cerebri reschedule``, ``cancel-event`` and ``update-event``
(docs/decisions/0055): the event before the change, the candidates table with reasons and
the rejected starts (the find-slot renderer, busy time labelled by its events), and the
event after: each reschedule candidate with its disruption class (contract C1: 0 same local
date, 1 same local time of day, 2 otherwise) and signed shift, an update's new range, length,
title and place, or "cancelled". With ``--hours``, the candidates also in each attendee's
local time (find-slot's "Local times" table, docs/decisions/0053). A whole-series or
this-and-future reschedule also says how far ahead every moved instance was checked and
which starts a later instance left out, each with the first instance in the way (decision
0063). Input text is made printable."""

from __future__ import annotations

import sys

from cerebri.calendars import FIND_SLOT_LIMITS
from cerebri.calendars.change_request import ChangeOperation
from cerebri.calendars.event_change import EventChangeFound, disruption
from cerebri.cli._app import printable, table_console
from cerebri.cli.render import render_result
from cerebri.cli.render_calendars import busy_label, render_local_times, series_label
from cerebri.cpir import RankedCandidate, parse_request
from cerebri.ics import object_id
from cerebri.temporal import Instant, zone

__all__ = ["render_change"]


def _local(instant: Instant, tz: str) -> str:
    moment = instant.to_datetime()
    return "?" if moment is None else f"{moment.astimezone(zone(tz)):%a %Y-%m-%d %H:%M}"


def _current(found: EventChangeFound) -> str:
    """The event as a rejection names it: ``TITLE at its current start, <local> <zone> =
    <UTC> UTC``."""
    view, tz = found.event, found.query.zone
    moment = view.start.to_datetime()
    utc = "?" if moment is None else f"{moment:%Y-%m-%d %H:%M}"
    title = view.title or "(no title)"
    return f"{title} at its current start, {_local(view.start, tz)} {tz} = {utc} UTC"


def _shift(seconds: int) -> str:
    sign = "-" if seconds < 0 else "+"
    minutes = abs(seconds) // 60
    days, rest = divmod(minutes, 1440)
    hours, mins = divmod(rest, 60)
    parts = [f"{days}d" if days else "", f"{hours}h" if hours else "", f"{mins}m" if mins else ""]
    return sign + ("".join(parts) or "0m")


def _print_before(found: EventChangeFound) -> None:
    """The event as it is now (before the change)."""
    view, tz = found.event, found.query.zone
    title = view.title or "(no title)"
    recurrence = found.change["recurrence_id"]
    where = f" instance {recurrence}" if isinstance(recurrence, str) else ""
    # A one-off event has no series to choose a scope of (decision 0050's scopes are for
    # recurring events): it is named a single event.
    scope = f"scope {found.scope.value}" if view.recurring else "single event"
    lines = [
        f"event: {title} ({view.uid}){where}, {scope}, calendar "
        f"{found.target.calendar_id}, SEQUENCE {view.sequence}",
        f"  before: {_local(view.start, tz)} - {_local(view.end, tz)} ({tz})",
    ]
    sys.stdout.write("".join(printable(line) + "\n" for line in lines))


def _disruption(candidate: RankedCandidate, before: Instant, tz: str) -> tuple[int, int]:
    """``(class, signed shift in seconds)``: the class the planner's ``Disruption``
    explanation gives (contract C1), else :func:`disruption` (an UPDATE has none); the sign
    says earlier (-) or later (+)."""
    level, shift = disruption(before, candidate.start, tz)
    explanation = candidate.to_wire()["explanation"]
    for part in explanation if isinstance(explanation, list) else []:
        reason = part.get("reason") if isinstance(part, dict) else None
        said = reason.get("Disruption") if isinstance(reason, dict) else None
        named = said.get("class") if isinstance(said, dict) else None
        if isinstance(named, int):
            level = named
    return level, shift


def _after_update(found: EventChangeFound, candidate: RankedCandidate) -> str:
    """An update's one candidate: the range with its new length, title and place."""
    tz, change = found.query.zone, found.change
    placement = candidate.proposed.placements[0].range
    minutes = (placement.end - placement.start) // 60_000_000_000
    edits = [f"{minutes} min"]
    edits += [f"{key} {change[key]!r}" for key in ("title", "location") if change[key] is not None]
    return printable(
        f"  after: {_local(placement.start, tz)} - {_local(placement.end, tz)} "
        f"({', '.join(edits)}; approval required)"
    )


def _print_after(found: EventChangeFound, top: int) -> None:
    """Each candidate (the event after the change) with its disruption (contract C1)."""
    view, tz = found.event, found.query.zone
    operation = found.answer.request["operation"]
    candidates = found.answer.result.candidates
    lines: list[str] = []
    if not candidates:
        lines.append("  after: no candidate: the change is refused (rejections above)")
    elif operation == ChangeOperation.CANCEL.value:
        lines.append("  after: cancelled (approval required)")
    elif operation == ChangeOperation.UPDATE.value:
        lines.append(_after_update(found, candidates[0]))
    for rank, candidate in enumerate(candidates[: top or None], start=1):
        if operation != ChangeOperation.RESCHEDULE.value:
            break
        placement = candidate.proposed.placements[0].range
        level, shift = _disruption(candidate, view.start, tz)
        lines.append(
            f"  after #{rank}: {_local(placement.start, tz)} - {_local(placement.end, tz)} "
            f"(disruption class {level}, shift {_shift(shift)})"
        )
    sys.stdout.write("".join(line + "\n" for line in lines))


def _print_series_check(found: EventChangeFound, top: int) -> None:
    """The series check (decision 0063): its horizon and the starts it left out."""
    check = found.series_check
    if check is None:
        return
    days = check.horizon_seconds // 86_400
    lines = [
        f"  series: every moved instance checked up to {days} days after its new start "
        f"(busy time read until {check.until.format()}); "
        f"{len(check.rejected)} start(s) left out for a later instance"
    ]
    lines += [f"    {printable(r.message())}" for r in check.rejected[: top or None]]
    if top and len(check.rejected) > top:
        lines.append(f"    ... and {len(check.rejected) - top} more (--json lists them all)")
    if check.rejected and check.request_ranks:
        lines.append(
            "    the emitted request does not carry this check: propose its candidate "
            f"{check.request_ranks[0]} (--candidate {check.request_ranks[0]}) for #1 above"
        )
    sys.stdout.write("".join(line + "\n" for line in lines))


def render_change(found: EventChangeFound, *, top: int, explain: bool) -> None:
    """The text answer (module doc): the event before, the candidates table with reasons
    and the rejected starts (:func:`~cerebri.cli.render.render_result`), the event after."""
    answer = found.answer
    parsed = parse_request(answer.request)
    labels = {o.id: o.id for o in parsed.context.objects}
    title = found.event.title or found.event.uid
    labels[found.target.object_id] = f"{title} (the event)"
    groups: dict[str, str] = {}
    for _, periods in found.busy:
        for period in periods:
            labels[object_id(period)] = busy_label(period)
            groups[object_id(period)] = series_label(period)
    _print_before(found)
    render_result(
        answer.result,
        parsed,
        table_console(),
        top=top or None,
        limits=FIND_SLOT_LIMITS,
        labels=labels,
        budget_option="--max-candidates",
        groups=groups,
        explain=explain,
        limit_hint="shorten the window (--between) or use a coarser --granularity",
        events={found.target.object_id: printable(_current(found))},
    )
    if answer.zones:
        render_local_times(answer, table_console(), top=top or None)
    _print_after(found, top)
    _print_series_check(found, top)
