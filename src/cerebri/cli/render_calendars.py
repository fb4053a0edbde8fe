"""Human-readable free/busy and slot tables (``cerebri freebusy``, ``cerebri find-slot``);
their JSON documents are :mod:`cerebri.calendars.wire`'s."""

from __future__ import annotations

from dataclasses import dataclass
from zoneinfo import ZoneInfo

from rich.console import Console
from rich.table import Table

from cerebri.calendars import FreeBusyView, SlotAnswer
from cerebri.ics import BusyPeriod
from cerebri.temporal import Instant

__all__ = [
    "SlotColumns",
    "busy_label",
    "render_freebusy",
    "render_local_times",
    "render_slots",
    "series_label",
    "slot_columns",
]


def busy_label(period: BusyPeriod) -> str:
    """``summary (uid @ recurrence-id)``, or the UID alone."""
    where = period.uid + (f" @ {period.recurrence_id}" if period.recurrence_id else "")
    return f"{period.summary} ({where})" if period.summary else where


def series_label(period: BusyPeriod) -> str:
    """``summary (uid)``: every instance of a recurring event shares it, so the rejection
    summary counts a daily meeting as one cause."""
    return f"{period.summary} ({period.uid})" if period.summary else period.uid


def render_freebusy(view: FreeBusyView, zone_name: str, console: Console) -> None:
    """Print busy, free and unknown time in UTC and in ``zone_name``."""
    zone = ZoneInfo(zone_name)

    def local(ns: int) -> str:
        moment = Instant(ns).to_datetime()
        return "-" if moment is None else moment.astimezone(zone).strftime("%Y-%m-%d %H:%M")

    def utc(ns: int) -> str:
        return Instant(ns).format().replace("T", " ")

    table = Table(title=f"Busy ({len(view.busy)})")
    for column in ("start (UTC)", "end (UTC)", f"local start ({zone_name})", "event"):
        table.add_column(column, no_wrap=column != "event")
    for period in view.busy:
        table.add_row(
            utc(period.start.ns), utc(period.end.ns), local(period.start.ns), busy_label(period)
        )
    console.print(table)
    sections = [("Free", view.free), ("Unknown (not observed)", view.unknown)]
    if view.unavailable:
        sections.append(("Unavailable (published availability)", view.unavailable))
    for title, items in sections:
        listing = Table(title=f"{title} ({len(items)})")
        for column in ("start (UTC)", "end (UTC)", f"local ({zone_name})"):
            listing.add_column(column, no_wrap=True)
        for item in items:
            listing.add_row(
                utc(item.start), utc(item.end), f"{local(item.start)} – {local(item.end)}"
            )
        console.print(listing)


@dataclass(frozen=True, slots=True)
class SlotColumns:
    """What find-slot ranked its candidates by, as columns for the candidates table.

    Attributes:
        ranked_by: what orders the rows, e.g. ``optional attendees free, then the daily
            preference, then the start``.
        headers: the column titles (``pref s``; ``optional free``, ``not free``).
        rows: one row of cells per :attr:`SlotAnswer.slots` entry, in the same order.
        legend: one line explaining the columns.
    """

    ranked_by: str
    headers: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    legend: str


def slot_columns(answer: SlotAnswer) -> SlotColumns:
    """The ranking inputs of ``answer.slots`` as table columns: the daily-preference
    distance in seconds when a preference was given, the optional attendees when there
    are some (docs/decisions/0026: free ones first, then the preference, then the start)."""
    preference = any(d.preference_distance_seconds is not None for d in answer.slots)
    optional = any(d.free or d.busy or d.unknown for d in answer.slots)
    optional = optional or any(d.busy or d.unknown for d in answer.below_min_attendance)
    keys = [
        *(["optional attendees free"] if optional else []),
        *(["the daily preference"] if preference else []),
        "the start",
    ]
    headers = [*(["pref s"] if preference else []), *(["optional free", "not free"] * optional)]
    rows: list[tuple[str, ...]] = []
    for detail in answer.slots:
        distance = detail.preference_distance_seconds
        missing = [*detail.busy, *(f"{name} (unknown)" for name in detail.unknown)]
        cells = ["-" if distance is None else str(distance)] if preference else []
        if optional:
            cells += [", ".join(detail.free) or "-", ", ".join(missing) or "-"]
        rows.append(tuple(cells))
    legend = [
        *(["pref = seconds from the nearest daily preferred time"] if preference else []),
        *(["unknown = the calendar does not describe the slot"] if optional else []),
        "shift = seconds an existing event moves",
    ]
    return SlotColumns(", then ".join(keys), tuple(headers), tuple(rows), "; ".join(legend))


def render_slots(answer: SlotAnswer, zone_name: str, console: Console, *, top: int | None) -> None:
    """What the candidates table (``render_result(..., ranking=slot_columns(answer))``)
    cannot show: how many feasible starts ``--min-attendance`` left out. ``zone_name`` and
    ``top`` are kept for callers; the ranking itself is in the candidates table."""
    del zone_name, top
    if answer.below_min_attendance:
        console.print(
            f"{len(answer.below_min_attendance)} feasible start(s) left out by "
            "--min-attendance (too few attendees free)"
        )


def render_local_times(answer: SlotAnswer, console: Console, *, top: int | None) -> None:
    """The candidates (same ranks and order as the candidates table) in each attendee's own
    zone (:attr:`SlotAnswer.zones`): one column per attendee, ``YYYY-MM-DD HH:MM-HH:MM``
    local with the UTC offset of the start (an end on another local day shows its date)."""
    candidates = answer.result.candidates
    shown = candidates if top is None else candidates[:top]
    table = Table(title="Local times (each attendee's zone)")
    table.add_column("#", justify="right")
    for name, zone_name in answer.zones:
        table.add_column(f"{name} ({zone_name})", no_wrap=True)
    for rank, candidate in enumerate(shown, start=1):
        placement = candidate.proposed.placements[0].range
        cells = [_local_span(placement.start, placement.end, zone) for _, zone in answer.zones]
        table.add_row(str(rank), *cells)
    console.print(table)


def _local_span(start: Instant, end: Instant, zone_name: str) -> str:
    zone = ZoneInfo(zone_name)
    first, last = start.to_datetime(), end.to_datetime()
    if first is None or last is None:
        return "-"
    first, last = first.astimezone(zone), last.astimezone(zone)
    closing = f"{last:%H:%M}" if last.date() == first.date() else f"{last:%Y-%m-%d %H:%M}"
    return f"{first:%a %Y-%m-%d %H:%M}-{closing} {first:%z}"
