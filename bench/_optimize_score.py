"""Timefold's score for any placement of a meeting-scheduling set, in plain Python.

Written from the Java definitions of ``MeetingSchedulingConstraintProvider`` and
``MeetingAssignment`` (TimefoldAI/timefold-solver-benchmarks), independently of cerebri's own
score recomputation, so that every peer of ``bench/optimize.py`` is scored by one judge.
Penalties are returned as non-negative numbers (Timefold prints them negated):

Hard
    room conflict (per unordered pair of meetings in one room, their overlap in grains);
    overtime (a meeting whose last grain index is not a grain: that index);
    required attendance conflict (per unordered pair of required attendances of one person,
    the overlap of their meetings); room capacity (required - room capacity when short;
    no room counts as capacity 0); start and end on the same day (1 when the last grain lies
    on another day than the first).
Medium
    required and preferred attendance conflict (per required attendance and preferred
    attendance of one person, the overlap of their meetings); preferred attendance conflict
    (per unordered pair of preferred attendances of one person, the overlap).
Soft
    as soon as possible (per meeting its last grain index); one grain break between
    consecutive meetings (100 per ordered pair where one's last grain index is the other's
    start - 1, by index alone: the last grain of a day and the first of the next count);
    overlapping meetings (10 x overlap per unordered pair); larger rooms first (per meeting
    and per room of larger capacity, the difference); room stability (1 per ordered pair of
    attendances of one person in two meetings, the left one starting strictly earlier, in
    different rooms, with ``right.start - left.duration - left.start <= 2``).

Overlaps are of half-open grain ranges ``[start, start + duration)``.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from itertools import combinations

from _timefold_data import TimefoldSet

__all__ = ["Placement", "TfScore", "score"]

# Timefold meeting id -> (starting grain index, room id or None).
Placement = dict[int, tuple[int, int | None]]


@dataclass(frozen=True, slots=True)
class TfScore:
    """Penalties per level (0 best); ``str`` prints Timefold's ``-Xhard/-Ymedium/-Zsoft``."""

    hard: int
    medium: int
    soft: int

    def __str__(self) -> str:
        return f"{-self.hard}hard/{-self.medium}medium/{-self.soft}soft"


def _overlap(a: tuple[int, int], b: tuple[int, int]) -> int:
    return max(0, min(a[1], b[1]) - max(a[0], b[0]))


def _per_meeting(data: TimefoldSet, placement: Placement) -> tuple[int, int]:
    """Overtime, same day, capacity (hard); as soon as possible, larger rooms first (soft)."""
    capacity = {r.id: r.capacity for r in data.rooms}
    day_of = {g.index: g.day for g in data.grains}
    hard = soft = 0
    for m in data.meetings:
        start, room = placement[m.id]
        last = start + m.duration - 1
        if last not in day_of:
            hard += last
        elif day_of[last] != day_of[start]:
            hard += 1
        have = capacity[room] if room is not None else 0
        hard += max(0, m.required_capacity - have)
        soft += last
        if room is not None:
            soft += sum(c - have for c in capacity.values() if c > have)
    return hard, soft


def _per_pair(data: TimefoldSet, placement: Placement) -> tuple[int, int]:
    """Room conflict (hard); overlapping meetings, consecutive meetings by index (soft)."""
    hard = soft = 0
    span = {m.id: (placement[m.id][0], placement[m.id][0] + m.duration) for m in data.meetings}
    for a, b in combinations(data.meetings, 2):
        shared = _overlap(span[a.id], span[b.id])
        if shared:
            soft += 10 * shared
            room = placement[a.id][1]
            if room is not None and room == placement[b.id][1]:
                hard += shared
    starts: dict[int, int] = defaultdict(int)
    for first, _ in span.values():
        starts[first] += 1
    for _, end in span.values():
        soft += 100 * starts.get(end, 0)
    return hard, soft


def _room_changes(data: TimefoldSet, placement: Placement, every: list[int]) -> int:
    duration = {m.id: m.duration for m in data.meetings}
    count = 0
    for left in every:
        for right in every:
            ls, lroom = placement[left]
            rs, rroom = placement[right]
            if (
                left != right
                and ls < rs
                and lroom is not None
                and lroom != rroom
                and rs - duration[left] - ls <= 2
            ):
                count += 1
    return count


def _per_person(data: TimefoldSet, placement: Placement) -> tuple[int, int, int]:
    """Required attendance conflict (hard); preferred conflicts (medium); room stability."""
    span = {m.id: (placement[m.id][0], placement[m.id][0] + m.duration) for m in data.meetings}
    required_of: dict[int, list[int]] = defaultdict(list)
    preferred_of: dict[int, list[int]] = defaultdict(list)
    for m in data.meetings:
        for p in m.required:
            required_of[p].append(m.id)
        for p in m.preferred:
            preferred_of[p].append(m.id)
    hard = medium = soft = 0
    for person in set(required_of) | set(preferred_of):
        req, pref = required_of[person], preferred_of[person]
        hard += sum(_overlap(span[x], span[y]) for x, y in combinations(req, 2))
        medium += sum(_overlap(span[x], span[y]) for x in req for y in pref)
        medium += sum(_overlap(span[x], span[y]) for x, y in combinations(pref, 2))
        soft += _room_changes(data, placement, req + pref)
    return hard, medium, soft


def score(data: TimefoldSet, placement: Placement) -> TfScore:
    """Timefold's score of ``placement`` (every meeting placed; ``KeyError`` otherwise)."""
    hard_1, soft_1 = _per_meeting(data, placement)
    hard_2, soft_2 = _per_pair(data, placement)
    hard_3, medium, soft_3 = _per_person(data, placement)
    return TfScore(hard_1 + hard_2 + hard_3, medium, soft_1 + soft_2 + soft_3)
