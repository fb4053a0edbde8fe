"""Human-readable free/busy tables (``cerebri freebusy``) and their JSON form."""

from __future__ import annotations

from zoneinfo import ZoneInfo

from rich.console import Console
from rich.table import Table

from cerebri._json import JSONValue
from cerebri.calendars import FreeBusyView, SlotAnswer
from cerebri.ics import BusyPeriod
from cerebri.temporal import Instant, Interval

__all__ = [
    "busy_label",
    "freebusy_wire",
    "render_freebusy",
    "render_slots",
    "series_label",
    "slots_wire",
]


def busy_label(period: BusyPeriod) -> str:
    """``summary (uid @ recurrence-id)``, or the UID alone."""
    where = period.uid + (f" @ {period.recurrence_id}" if period.recurrence_id else "")
    return f"{period.summary} ({where})" if period.summary else where


def series_label(period: BusyPeriod) -> str:
    """``summary (uid)``: every instance of a recurring event shares it, so the rejection
    summary counts a daily meeting as one cause."""
    return f"{period.summary} ({period.uid})" if period.summary else period.uid


def _pair(start: Instant, end: Instant, zone: ZoneInfo) -> dict[str, JSONValue]:
    def local(instant: Instant) -> str | None:
        moment = instant.to_datetime()
        return None if moment is None else moment.astimezone(zone).isoformat()

    return {
        "start": start.format(),
        "end": end.format(),
        "local_start": local(start),
        "local_end": local(end),
    }


def freebusy_wire(view: FreeBusyView, zone_name: str) -> dict[str, JSONValue]:
    """JSON form: window, zone, busy (with uid/recurrence_id/summary/source), free, unknown,
    unavailable, ``warnings`` (sorted :meth:`~cerebri.ics.CalendarWarning.to_wire` objects)
    and ``complete`` (``false`` when events were left out: the view may miss busy time)."""
    zone = ZoneInfo(zone_name)

    def spans(items: tuple[Interval, ...]) -> list[JSONValue]:
        return [_pair(Instant(i.start), Instant(i.end), zone) for i in items]

    return {
        "window": _pair(Instant(view.window.start), Instant(view.window.end), zone),
        "zone": zone_name,
        "busy": [
            {
                **_pair(p.start, p.end, zone),
                "uid": p.uid,
                "recurrence_id": p.recurrence_id,
                "summary": p.summary,
                "source": p.source,
                "kind": p.kind,
            }
            for p in view.busy
        ],
        "free": spans(view.free),
        "unknown": spans(view.unknown),
        "unavailable": spans(view.unavailable),
        "warnings": [dict(warning.to_wire()) for warning in view.warnings],
        "complete": view.complete,
    }


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


def slots_wire(answer: SlotAnswer) -> dict[str, JSONValue]:
    """The keys ``find-slot --json`` adds when it ranks beyond the planner: ``slots`` (one
    :meth:`~cerebri.calendars.answer.SlotDetail.to_wire` object per candidate, in the
    candidates' order) and ``below_min_attendance`` (feasible slots left out, by start)."""
    return {
        "slots": [detail.to_wire() for detail in answer.slots],
        "below_min_attendance": [detail.to_wire() for detail in answer.below_min_attendance],
    }


def render_slots(answer: SlotAnswer, zone_name: str, console: Console, *, top: int | None) -> None:
    """A table of what find-slot ranked each candidate by (same ``#`` as the candidates
    table): the daily-preference distance and which optional attendees are free, busy or
    unknown (their calendar does not describe the slot: not free)."""
    zone = ZoneInfo(zone_name)
    shown = answer.slots if top is None else answer.slots[:top]
    table = Table(title="Ranking: optional attendees first, then the daily preference")
    for column in ("#", f"local start ({zone_name})", "pref s", "optional free", "not free"):
        table.add_column(column, no_wrap=column.startswith(("#", "local")))
    for rank, detail in enumerate(shown, start=1):
        moment = detail.start.to_datetime()
        local = "-" if moment is None else moment.astimezone(zone).strftime("%a %Y-%m-%d %H:%M")
        distance = detail.preference_distance_seconds
        missing = [*detail.busy, *(f"{name} (unknown)" for name in detail.unknown)]
        table.add_row(
            str(rank),
            local,
            "-" if distance is None else str(distance),
            ", ".join(detail.free) or "-",
            ", ".join(missing) or "-",
        )
    console.print(table)
    console.print(
        "find-slot's order is this table's; the cost column above is the distance to the "
        "first choice, the request's one preferred start (docs/decisions/0026)"
    )
    if answer.below_min_attendance:
        console.print(
            f"{len(answer.below_min_attendance)} feasible start(s) left out by "
            "--min-attendance (too few attendees free)"
        )
