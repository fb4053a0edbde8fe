"""A greedy first placement of a large batch, in plain Python (decision 0078).

Meetings are taken one at a time in a fixed order: an ``after`` dependency first (a meeting
comes after every meeting it follows), otherwise the most constrained first: by the grains
of other meetings sharing a required attendee (or, in a second run, by duration x
attendees; the better of the two placements is kept), then fewest starts left by its window
and its required attendees' hours and busy grains, largest capacity needed, longest, id.
Each takes the start and room that meet every hard rule against the meetings placed before
it (required attendees and rooms never double-booked, hours, busy grains, capacity,
``after`` and its gap, ``not_same_day_as``, travel on the same day; the starts are the
prepared ``fits``, so a meeting never crosses a day boundary or a closed hour such as
lunch) at the lowest cost:
first the optional attendance it loses (medium), then an estimate of the soft terms it adds
(``early``, ``preference``, ``larger_rooms_first``, ``overlap_any`` and ``back_to_back_any``
against the placed meetings, exact; ``back_to_back`` per shared person, ``room_stability``
left out), then the earliest start and the first room in id order; then at most
:data:`PASSES` passes move each meeting to its cheapest place given all the others. A
meeting with no start and room left stays unplaced (the caller repairs it).

No randomness and no CP-SAT: the same batch gives the same placement.
"""

from __future__ import annotations

import heapq
from collections import defaultdict

from cerebri.optimize._explain import score_placement
from cerebri.optimize._prepare import Prepared, free_starts, open_starts

__all__ = ["PASSES", "Board", "construct", "starts_of"]

#: at most this many improvement passes after the greedy one
PASSES = 2


def starts_of(prep: Prepared, i: int) -> tuple[int, ...]:
    """Meeting ``i``'s starts allowed by its window and its required attendees' hours and
    busy grains (sorted)."""
    meeting = prep.meetings[i]
    starts = set(prep.fits[i])
    if meeting.allowed_starts is not None:
        starts &= meeting.allowed_starts
    for person_id in meeting.required:
        person = prep.people[person_id]
        starts &= open_starts(starts, meeting.duration, person.open_grains)
        starts &= free_starts(starts, meeting.duration, person.busy_grains)
    return tuple(sorted(starts))


def _mask(start: int, duration: int) -> int:
    return ((1 << duration) - 1) << start


class Board:
    """Who and what is taken where, for a partial placement (grain bit masks and counts)."""

    def __init__(self, prep: Prepared) -> None:
        self.prep = prep
        n = prep.n_grains
        self.required: dict[str, int] = defaultdict(int)  # person -> mask (required there)
        self.rooms: dict[str, int] = defaultdict(int)  # room -> mask
        self.attends: dict[str, list[int]] = defaultdict(lambda: [0] * n)  # any attendance
        self.optional: dict[str, list[int]] = defaultdict(lambda: [0] * n)  # optional only
        self.load = [0] * (n + 1)  # meetings on each grain
        self.starts = [0] * (n + 1)  # meetings starting at each grain
        self.ends = [0] * (n + 1)  # meetings whose first grain after is this one
        self.placed: dict[int, tuple[int, str | None]] = {}
        # i -> [(j, gap)]: j must start at or after i's end + gap; symmetric not_same_day
        self.followers: dict[int, list[tuple[int, int]]] = defaultdict(list)
        self.apart: dict[int, set[int]] = defaultdict(set)
        for j, meeting in enumerate(prep.meetings):
            for after in meeting.after:
                self.followers[prep.position[after.meeting_id]].append((j, after.gap))
            for other in meeting.not_same_day_as:
                self.apart[j].add(prep.position[other])
                self.apart[prep.position[other]].add(j)
        self.of_person: dict[str, list[int]] = defaultdict(list)  # person -> placed meetings
        self.room_open: dict[str, int] = {}
        for room_id, room in prep.rooms.items():
            allowed = (1 << n) - 1 if room.open_grains is None else _bits(room.open_grains)
            self.room_open[room_id] = allowed & ~_bits(room.busy_grains)

    def put(self, i: int, start: int, room: str | None) -> None:
        """Place meeting ``i`` at ``start`` in ``room``."""
        self.placed[i] = (start, room)
        self._count(i, start, room, 1)
        meeting = self.prep.meetings[i]
        for person in (*meeting.required, *meeting.optional):
            self.of_person[person].append(i)

    def take_back(self, i: int) -> None:
        """Remove placed meeting ``i``."""
        start, room = self.placed.pop(i)
        self._count(i, start, room, -1)
        meeting = self.prep.meetings[i]
        for person in (*meeting.required, *meeting.optional):
            self.of_person[person].remove(i)

    def _count(self, i: int, start: int, room: str | None, sign: int) -> None:
        meeting = self.prep.meetings[i]
        mask = _mask(start, meeting.duration)
        for person in meeting.required:  # required grains never overlap: masks add exactly
            self.required[person] += sign * mask
        if room is not None:
            self.rooms[room] += sign * mask
        for g in range(start, start + meeting.duration):
            self.load[g] += sign
            for person in meeting.required:
                self.attends[person][g] += sign
            for person in meeting.optional:
                self.attends[person][g] += sign
                self.optional[person][g] += sign
        self.starts[start] += sign
        self.ends[start + meeting.duration] += sign

    def room_free(self, room_id: str, mask: int) -> bool:
        """Whether ``room_id`` is open and free on every grain of ``mask``."""
        return not self.rooms[room_id] & mask and self.room_open[room_id] & mask == mask

    def hard_ok(self, i: int, start: int) -> bool:
        """Whether ``start`` meets the people, order and travel rules against the placed
        meetings (rooms are checked apart)."""
        prep, meeting = self.prep, self.prep.meetings[i]
        mask = _mask(start, meeting.duration)
        if any(self.required[p] & mask for p in meeting.required):
            return False
        for after in meeting.after:
            j = prep.position[after.meeting_id]
            if j in self.placed and start < self.placed[j][0] + prep.meetings[j].duration + (
                after.gap
            ):
                return False
        for j, gap in self.followers.get(i, ()):
            if j in self.placed and self.placed[j][0] < start + meeting.duration + gap:
                return False
        day = prep.day[start]
        for j in self.apart.get(i, ()):
            if j in self.placed and prep.day[self.placed[j][0]] == day:
                return False
        return not prep.travel or self._travel_ok(i, start)

    def _travel_ok(self, i: int, start: int) -> bool:
        prep, meeting = self.prep, self.prep.meetings[i]
        for person in meeting.required:
            for j in self.of_person[person]:
                s_j = self.placed[j][0]
                if person not in prep.meetings[j].required or prep.day[s_j] != prep.day[start]:
                    continue
                gap = prep.travel_grains(i, j)
                d_j = prep.meetings[j].duration
                if gap and not (start + meeting.duration + gap <= s_j or s_j + d_j + gap <= start):
                    return False
        return True

    def cost(self, i: int, start: int) -> tuple[int, int]:
        """(medium, soft estimate) that placing ``i`` at ``start`` adds (rooms apart)."""
        return self._medium(i, start), self._soft(i, start)

    def _medium(self, i: int, start: int) -> int:
        prep, meeting = self.prep, self.prep.meetings[i]
        grains = range(start, start + meeting.duration)
        medium = 0
        for person in meeting.optional:
            counts = self.attends.get(person)
            if counts is not None:
                medium += sum(counts[g] for g in grains)
            busy = prep.away[person]
            if busy:
                medium += sum(1 for g in grains if g in busy)
        for person in meeting.required:
            counts = self.optional.get(person)
            if counts is not None:
                medium += sum(counts[g] for g in grains)
        return medium

    def _soft(self, i: int, start: int) -> int:
        prep, meeting, w = self.prep, self.prep.meetings[i], self.prep.problem.weights
        end = start + meeting.duration
        soft = w.early * (end - 1) if meeting.current_start is None else 0
        if meeting.preferred_start is not None:
            soft += w.preference * abs(start - meeting.preferred_start)
        if w.overlap_any:
            soft += w.overlap_any * sum(self.load[g] for g in range(start, end))
        touching = 0
        if start in prep.continues:
            touching += self.ends[start]
        if end in prep.continues:
            touching += self.starts[end]
        soft += w.back_to_back_any * touching
        if w.back_to_back:
            for person in (*meeting.required, *meeting.optional):
                for j in self.of_person.get(person, ()):
                    s_j = self.placed[j][0]
                    e_j = s_j + prep.meetings[j].duration
                    if (e_j == start and start in prep.continues) or (
                        s_j == end and end in prep.continues
                    ):
                        soft += w.back_to_back
        return soft


def _bits(grains: frozenset[int]) -> int:
    out = 0
    for g in grains:
        out |= 1 << g
    return out


def _order(prep: Prepared, domains: list[tuple[int, ...]], by_area: bool) -> list[int]:
    """A placing order that never puts a meeting before one it follows (``after``): most
    constrained first, by the grains of other meetings sharing a required attendee, or
    (``by_area``) by duration x attendees."""
    n = len(prep.meetings)
    users: dict[str, list[int]] = defaultdict(list)
    for i, meeting in enumerate(prep.meetings):
        for person in meeting.required:
            users[person].append(i)
    # grains of other meetings sharing a required person: the ones it must avoid
    clash = [0] * n
    for i, meeting in enumerate(prep.meetings):
        others = {j for p in meeting.required for j in users[p] if j != i}
        clash[i] = sum(prep.meetings[j].duration for j in others)

    def key(i: int) -> tuple[int, int, int, int, int]:
        m = prep.meetings[i]
        first = m.duration * len(prep.attendees[i]) if by_area else clash[i]
        return (-first, len(domains[i]), -prep.need[i], -m.duration, i)

    waiting = [0] * n
    followers: dict[int, list[int]] = defaultdict(list)
    for i, meeting in enumerate(prep.meetings):
        for after in {a.meeting_id for a in meeting.after}:
            waiting[i] += 1
            followers[prep.position[after]].append(i)
    ready = [key(i) for i in range(n) if waiting[i] == 0]
    heapq.heapify(ready)
    out: list[int] = []
    while ready:
        i = heapq.heappop(ready)[-1]
        out.append(i)
        for j in followers[i]:
            waiting[j] -= 1
            if waiting[j] == 0:
                heapq.heappush(ready, key(j))
    done = set(out)  # a cycle of ``after`` links: the rest in key order (they stay unplaced)
    out.extend(sorted((i for i in range(n) if i not in done), key=key))
    return out


def _room_cost(prep: Prepared, room_id: str) -> int:
    capacity = prep.rooms[room_id].capacity
    larger = sum(max(0, prep.rooms[r].capacity - capacity) for r in prep.room_ids)
    return prep.problem.weights.larger_rooms_first * larger


def _rooms(prep: Prepared, i: int) -> list[tuple[int, str]]:
    return sorted(
        (_room_cost(prep, r), r)
        for r in prep.candidate_rooms[i]
        if prep.rooms[r].capacity >= prep.need[i]
    )


def _best(
    board: Board, i: int, domain: tuple[int, ...], rooms: list[tuple[int, str]]
) -> tuple[int, int, int, str | None] | None:
    """The cheapest ``(medium, soft, start, room)`` for meeting ``i`` on ``board``."""
    prep, meeting = board.prep, board.prep.meetings[i]
    if meeting.needs_room and not rooms:
        return None
    cheapest_room = rooms[0][0] if rooms else 0
    best: tuple[int, int, int] | None = None  # (medium, soft, start)
    best_room: str | None = None
    for start in domain:
        early = 0 if meeting.current_start is not None else start + meeting.duration - 1
        floor = prep.problem.weights.early * early + cheapest_room
        if best is not None and best[0] == 0 and floor >= best[1]:
            break  # every later start costs at least this much more
        mask = _mask(start, meeting.duration)
        room: str | None = None
        room_cost = 0
        if meeting.needs_room:
            found = next(((c, r) for c, r in rooms if board.room_free(r, mask)), None)
            if found is None:
                continue
            room_cost, room = found
        if not board.hard_ok(i, start):
            continue
        medium, soft = board.cost(i, start)
        candidate = (medium, soft + room_cost, start)
        if best is None or candidate < best:
            best, best_room = candidate, room
    return None if best is None else (*best, best_room)


def construct(prep: Prepared) -> Board:
    """The greedy placement (module docstring) in two orders, the better one kept: fewer
    meetings left out, then the lower ``(medium, soft)`` of the whole placement, then the
    first order. Meetings left out are missing from :attr:`Board.placed`."""
    n = len(prep.meetings)
    domains = [starts_of(prep, i) for i in range(n)]
    rooms = [_rooms(prep, i) for i in range(n)]
    best: tuple[tuple[int, int, int], Board] | None = None
    for by_area in (False, True):
        board = _greedy(prep, domains, rooms, _order(prep, domains, by_area))
        rank = (n - len(board.placed), 0, 0)
        if len(board.placed) == n:
            placement = {prep.meetings[i].id: place for i, place in board.placed.items()}
            score, _ = score_placement(prep, placement)
            rank = (0, score.medium, score.soft)
        if best is None or rank < best[0]:
            best = (rank, board)
    assert best is not None
    return best[1]


def _greedy(
    prep: Prepared,
    domains: list[tuple[int, ...]],
    rooms: list[list[tuple[int, str]]],
    order: list[int],
) -> Board:
    """Place in ``order``, then :data:`PASSES` passes that move each placed meeting (in the
    same order) to its cheapest place given all the others, while a pass changes something."""
    board = Board(prep)
    for i in order:
        found = _best(board, i, domains[i], rooms[i])
        if found is not None:
            board.put(i, found[2], found[3])
    for _ in range(PASSES):
        changed = False
        for i in order:
            if i not in board.placed:
                continue
            start, room = board.placed[i]
            board.take_back(i)
            found = _best(board, i, domains[i], rooms[i])
            assert found is not None  # its own place is still free
            if (found[2], found[3]) != (start, room):
                changed = True
            board.put(i, found[2], found[3])
        if not changed:
            break
    return board
