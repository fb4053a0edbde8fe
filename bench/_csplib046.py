"""CSPLib problem 046 (meeting scheduling with travel times): instances, known outcomes, an
independent checker and the conversion to the optimiser's batch model (issue #24, decision 0072).

The data is read, never copied, from ``$CEREBRI_OPTIMIZE_DIR/csplib-prob046`` (default
``../shared/optimize`` beside the repository): ``data/instances.md`` (27 instances) and
``results/results.md`` (for each, a published solution or "infeasible").

The problem (``specification.md``): meetings ``0..n-1`` take one time slot each out of
``DomainSize`` slots ``0..DomainSize-1``; each agent attends a list of meetings. Two meetings
``i`` and ``j`` with an agent in common are in conflict when
``|t_i - t_j| - duration < distance[i][j]`` (duration = 1 slot), i.e. the later one must
start at least ``1 + distance[i][j]`` slots after the earlier one. The slots are one linear
range: the formula takes the plain difference of slot numbers, nothing wraps around.

:func:`violations` (the checker) is written from that definition alone and uses no cerebri
code, so it can judge the solver's answers. :func:`to_problem` is the conversion.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from cerebri.optimize import BatchProblem, Grain, Meeting, Person, SolverBudget, Travel, Weights

__all__ = [
    "DURATION",
    "Instance",
    "Known",
    "data_dir",
    "meeting_id",
    "parse_instances",
    "parse_results",
    "search",
    "to_problem",
    "violations",
]

REPO = Path(__file__).resolve().parent.parent
DURATION = 1  # every meeting lasts one slot (the specification's simplifying assumption)
SLOT_SECONDS = 3_600  # the grid's grain; the specification says "time-units (say, hours)"
EPOCH = 1_796_000_400  # an arbitrary UTC instant for slot 0 (only the grain indices matter)


def data_dir() -> Path:
    """The problem's folder: ``$CEREBRI_OPTIMIZE_DIR/csplib-prob046`` (may not exist)."""
    configured = os.environ.get("CEREBRI_OPTIMIZE_DIR")
    root = Path(configured) if configured else REPO.parent / "shared" / "optimize"
    return root / "csplib-prob046"


@dataclass(frozen=True, slots=True)
class Instance:
    """One instance: ``number`` (1-based, as published), ``meetings`` (count), ``agents``:
    per agent the meeting numbers it attends, ``domain`` (slots), ``distance[i][j]`` (slots
    of travel between meetings ``i`` and ``j``), and the generator's stated ``per_agent``,
    ``min_distance`` and ``max_distance``."""

    number: int
    meetings: int
    agents: tuple[tuple[int, ...], ...]
    domain: int
    distance: tuple[tuple[int, ...], ...]
    per_agent: int
    min_distance: int
    max_distance: int


@dataclass(frozen=True, slots=True)
class Known:
    """The published outcome of one instance: ``times`` (meeting -> slot) for a satisfiable
    one, ``None`` for one published as infeasible."""

    number: int
    times: Mapping[int, int] | None

    @property
    def satisfiable(self) -> bool:
        """Whether the instance is published as satisfiable."""
        return self.times is not None


_HEADING = re.compile(r"^\s*(?:\*\*|__)Instance #(\d+)(?:\*\*|__)\s*$", re.MULTILINE)
_FIELD = re.compile(r"^\s*(\w+)\s*=\s*(\d+)\s*$")
_AGENT = re.compile(r"^\s*Agents \((\d+)\):\s*([\d\s]*)$")
_ROW = re.compile(r"^\s*(\d+)\s*:\s*([\d\s]+)$")
_SCHEDULED = re.compile(r"^\s*Meeting (\d+) scheduled at time (\d+)\s*$")


def _sections(text: str) -> list[tuple[int, str]]:
    heads = list(_HEADING.finditer(text))
    ends = [h.start() for h in heads[1:]] + [len(text)]
    return [(int(h.group(1)), text[h.end() : end]) for h, end in zip(heads, ends, strict=True)]


def _instance(number: int, body: str) -> Instance:
    fields: dict[str, int] = {}
    agents: dict[int, tuple[int, ...]] = {}
    rows: dict[int, tuple[int, ...]] = {}
    in_matrix = False
    for line in body.splitlines():
        if line.strip().startswith("Between Meetings Distance"):
            in_matrix = True
        elif (field := _FIELD.match(line)) is not None:
            fields[field.group(1)] = int(field.group(2))
        elif (agent := _AGENT.match(line)) is not None:
            agents[int(agent.group(1))] = tuple(int(m) for m in agent.group(2).split())
        elif in_matrix and (row := _ROW.match(line)) is not None:
            rows[int(row.group(1))] = tuple(int(d) for d in row.group(2).split())
    n = fields["NumberOfMeetings"]
    where = f"instance {number}"
    if sorted(agents) != list(range(fields["NumberOfAgents"])):
        raise ValueError(f"{where}: agents {sorted(agents)}, expected {fields['NumberOfAgents']}")
    if sorted(rows) != list(range(n)) or any(len(r) != n for r in rows.values()):
        raise ValueError(f"{where}: the distance matrix is not {n} x {n}")
    distance = tuple(rows[i] for i in range(n))
    for i in range(n):
        for j in range(n):
            if distance[i][j] != distance[j][i] or (distance[i][j] == 0) != (i == j):
                raise ValueError(f"{where}: distance[{i}][{j}] is not a symmetric travel time")
    for a, attended in agents.items():
        if len(set(attended)) != len(attended) or not all(0 <= m < n for m in attended):
            raise ValueError(f"{where}: agent {a} attends {attended}")
    return Instance(
        number=number,
        meetings=n,
        agents=tuple(agents[a] for a in range(len(agents))),
        domain=fields["DomainSize"],
        distance=distance,
        per_agent=fields["NumberOfMeetingPerAgent"],
        min_distance=fields["MinDisTimeBetweenMeetings"],
        max_distance=fields["MaxDisTimeBetweenMeetings"],
    )


def parse_instances(text: str) -> tuple[Instance, ...]:
    """Every instance of ``data/instances.md``, in published order.

    Raises ``ValueError`` when an instance is inconsistent (agent count, a non-square or
    asymmetric distance matrix, a meeting number out of range)."""
    return tuple(_instance(number, body) for number, body in _sections(text))


def parse_results(text: str) -> dict[int, Known]:
    """The published outcome of every instance of ``results/results.md``, by number.

    Raises ``ValueError`` for a section that is neither a solution nor "infeasible"."""
    known: dict[int, Known] = {}
    for number, body in _sections(text):
        if "is infeasible" in body:
            known[number] = Known(number, None)
        elif "is satisfiable" in body:
            times = {}
            for line in body.splitlines():
                if (hit := _SCHEDULED.match(line)) is not None:
                    times[int(hit.group(1))] = int(hit.group(2))
            known[number] = Known(number, times)
        else:
            raise ValueError(f"instance {number}: no outcome in the results")
    return known


def violations(instance: Instance, times: Mapping[int, int]) -> list[str]:
    """What is wrong with ``times`` (meeting -> slot) for ``instance``; empty when it is a
    solution. Checked from the specification alone: every meeting has a slot in
    ``0..DomainSize-1``; for every agent and every two of its meetings ``i``, ``j``,
    ``|t_i - t_j| - 1 >= distance[i][j]``."""
    found = []
    for m in range(instance.meetings):
        t = times.get(m)
        if t is None or not 0 <= t < instance.domain:
            found.append(f"meeting {m} at {t}, outside 0..{instance.domain - 1}")
    if set(times) - set(range(instance.meetings)):
        found.append(f"unknown meetings {sorted(set(times) - set(range(instance.meetings)))}")
    if found:
        return found
    for a, attended in enumerate(instance.agents):
        for x, i in enumerate(attended):
            for j in attended[x + 1 :]:
                if abs(times[i] - times[j]) - DURATION < instance.distance[i][j]:
                    found.append(
                        f"agent {a}: meetings {i} at {times[i]} and {j} at {times[j]} "
                        f"need {instance.distance[i][j]} slots of travel"
                    )
    return found


def search(
    domain: int, gaps: Mapping[tuple[int, int], int], meetings: Iterable[int]
) -> dict[int, int] | None:
    """A slot in ``0..domain-1`` for each of ``meetings`` such that for every pair ``(i, j)``
    of ``gaps``, ``|t_i - t_j| - 1 >= gaps[i, j]``, or ``None`` when there is none (proven
    by exhausting the search). Plain backtracking with forward checking, the meeting with the
    fewest slots left first; independent of cerebri, to confirm a conflicting set."""
    neighbours: dict[int, dict[int, int]] = {m: {} for m in meetings}
    for (i, j), gap in gaps.items():
        neighbours.setdefault(i, {})[j] = gap
        neighbours.setdefault(j, {})[i] = gap
    slots = {m: set(range(domain)) for m in neighbours}
    times: dict[int, int] = {}

    def place() -> bool:
        if len(times) == len(slots):
            return True
        m = min((x for x in slots if x not in times), key=lambda x: (len(slots[x]), x))
        for t in sorted(slots[m]):
            removed: list[tuple[int, set[int]]] = []
            dead = False
            for other, gap in neighbours[m].items():
                if other in times:
                    continue
                gone = {u for u in slots[other] if abs(t - u) - DURATION < gap}
                if gone:
                    slots[other] -= gone
                    removed.append((other, gone))
                if not slots[other]:
                    dead = True
                    break
            times[m] = t
            if not dead and place():
                return True
            del times[m]
            for other, gone in removed:
                slots[other] |= gone
        return False

    return dict(times) if place() else None


def meeting_id(m: int) -> str:
    """The batch model's id of meeting ``m`` (zero-padded so id order is number order); also
    its location."""
    return f"m{m:02d}"


def to_problem(instance: Instance, budget: SolverBudget) -> BatchProblem:
    """``instance`` as a batch problem: ``DomainSize`` grains of one day (slot ``k`` = grain
    ``k``), one person per agent, one meeting of one grain per meeting (its agents required,
    its location itself) and a travel time for every two meetings an agent shares, equal to
    their distance (the model's travel rule, start >= the other's end + travel, is the
    arrival-time constraint). Every soft weight is 0: a pure satisfaction problem."""
    grains = tuple(Grain(k, EPOCH + k * SLOT_SECONDS, "day") for k in range(instance.domain))
    attendees: list[list[str]] = [[] for _ in range(instance.meetings)]
    pairs: set[tuple[int, int]] = set()
    for a, attended in enumerate(instance.agents):
        for m in attended:
            attendees[m].append(f"a{a:02d}")
        pairs.update((min(i, j), max(i, j)) for i in attended for j in attended if i != j)
    meetings = tuple(
        Meeting(meeting_id(m), DURATION, required=tuple(attendees[m]), location=meeting_id(m))
        for m in range(instance.meetings)
    )
    travel = tuple(
        Travel(meeting_id(i), meeting_id(j), instance.distance[i][j]) for i, j in sorted(pairs)
    )
    people = sorted({p for names in attendees for p in names})
    return BatchProblem(
        grain_seconds=SLOT_SECONDS,
        grains=grains,
        meetings=meetings,
        people=tuple(Person(p) for p in people),
        travel=travel,
        weights=Weights(
            early=0,
            preference=0,
            back_to_back=0,
            back_to_back_any=0,
            overlap_any=0,
            move=0,
            room_stability=0,
            larger_rooms_first=0,
        ),
        budget=budget,
    )
