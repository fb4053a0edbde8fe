"""The horizon's grains on a local wall clock, and the grains a person's ``hours`` open
(issue #24, decision 0070; the rules are in :mod:`cerebri.optimize.mapping`'s docstring).

Grain ``i`` starts at ``origin_ns + i * grain_ns`` (UTC nanoseconds). Local times come from
exact UTC arithmetic in an IANA zone, so a DST day simply has one hour more or less of grains.
"""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from cerebri.cpir import BatchHours
from cerebri.temporal.zones import zone

NS = 1_000_000_000
"""Nanoseconds in a second."""

GrainRow = tuple[str, int, int, int | None]
"""One grain on a local clock: ``(local date ISO text, weekday 0=Mon, start seconds of that
date, end seconds of that date or None when the grain ends on another date)``."""


class LocalGrid:
    """Per zone: each grain's local date and its local start/end seconds of that date."""

    def __init__(self, origin_ns: int, grain_ns: int, count: int) -> None:
        self._origin = origin_ns
        self._grain = grain_ns
        self._count = count
        self._cache: dict[str, tuple[GrainRow, ...]] = {}

    def _local(self, ns: int, tz: ZoneInfo) -> datetime:
        return datetime.fromtimestamp(ns // NS, UTC).astimezone(tz)

    def of(self, zone_name: str) -> tuple[GrainRow, ...]:
        """Per grain ``(local date, weekday 0=Mon, start seconds, end seconds or None)``.

        The end is read on the wall clock of the grain's last second, plus one second: so a
        grain that ends at a DST fall-back instant ends at ``02:00``/``03:00`` of the offset
        it ran in (not at the repeated hour's start), and one ending at midnight ends at
        ``24:00``. None when that last second is on another date."""
        cached = self._cache.get(zone_name)
        if cached is not None:
            return cached
        tz = zone(zone_name)
        rows: list[GrainRow] = []
        for index in range(self._count):
            start_ns = self._origin + index * self._grain
            start = self._local(start_ns, tz)
            last = self._local(start_ns + self._grain - NS, tz)
            start_s = start.hour * 3600 + start.minute * 60 + start.second
            end_s = last.hour * 3600 + last.minute * 60 + last.second + 1
            end_of = end_s if last.date() == start.date() else None
            rows.append((start.date().isoformat(), start.weekday(), start_s, end_of))
        result = tuple(rows)
        self._cache[zone_name] = result
        return result

    def open_grains(
        self, zone_name: str, hours: tuple[BatchHours, ...] | None
    ) -> frozenset[int] | None:
        """The grains inside ``hours`` in ``zone_name`` (None when ``hours`` is None: all open).

        A grain is open when ``start <= local start < end`` and ``start < local end <= end``
        for one entry of the hours of its start's local weekday."""
        if hours is None:
            return None
        rows = self.of(zone_name)
        spans: dict[int, list[tuple[int, int]]] = {}
        for entry in hours:
            span = (_clock_seconds(entry.start), _clock_seconds(entry.end))
            for day in entry.days:
                spans.setdefault(day.number, []).append(span)
        open_grains: set[int] = set()
        for index, (_, weekday, start, end) in enumerate(rows):
            if end is None:
                continue
            for low, high in spans.get(weekday, ()):
                if low <= start < high and low < end <= high:
                    open_grains.add(index)
                    break
        return frozenset(open_grains)


def _clock_seconds(text: str) -> int:
    """Seconds since local midnight of an ``HH:MM`` text (``24:00`` is 86 400)."""
    hours, minutes = text.split(":")
    return int(hours) * 3600 + int(minutes) * 60
