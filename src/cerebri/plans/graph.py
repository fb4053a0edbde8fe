"""The dependency graph of a draft: its integrity rules and a deterministic topological order.

Nodes are step keys; ``a`` depending on ``b`` is an edge ``a -> b`` ("a waits for b"). The
rules here are the first four of :func:`cerebri.plans.validate_draft` (plans.md section 3):

* ``draft.duplicate_key`` -- a key used by an earlier step, reported on the later step at
  ``/steps/<i>/key``;
* ``draft.unknown_dependency`` -- ``depends_on`` names no step, at ``/steps/<i>/depends_on/<j>``;
* ``draft.self_dependency`` -- a step depends on itself, at ``/steps/<i>/depends_on/<j>``;
* ``draft.cycle`` -- one problem per strongly connected component that holds a cycle (a set of
  steps that all wait for each other), naming one cycle of it found by
  :class:`graphlib.TopologicalSorter`, written in dependency direction and rotated to start
  at its smallest key (``a -> b -> c -> a``: ``a`` depends on ``b``...). The problem's
  ``step`` is that smallest key and its path ``/steps/<i>/depends_on`` of the first step with
  that key. Unknown and self dependencies are left out of cycle detection; steps sharing a
  key are one node. The named cycle depends only on the graph, not on the order of steps.

Findings are ``(position, problem)`` pairs; the position orders the report.
"""

from __future__ import annotations

import graphlib
import heapq
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Final

from cerebri._guard import arguments
from cerebri.plans.draft import PlanDraft
from cerebri.plans.parse import pointer
from cerebri.plans.report import DraftError, DraftProblem, draft_argument_error

__all__ = [
    "GRAPH_RULES",
    "Finding",
    "dependency_graph",
    "finding_order",
    "graph_findings",
    "topological_order",
]

GRAPH_RULES: Final = (
    "draft.duplicate_key",
    "draft.unknown_dependency",
    "draft.self_dependency",
    "draft.cycle",
)
"""The graph rules, in report order (the first rules of :func:`cerebri.plans.validate_draft`)."""

Finding = tuple[int, DraftProblem]
"""A problem with the draft position it is ordered by (``len(steps)`` for plan-level)."""

Graph = dict[str, tuple[str, ...]]
"""Step key -> the keys it depends on (known, other than itself, sorted, unique)."""


def _first_positions(draft: PlanDraft) -> dict[str, int]:
    positions: dict[str, int] = {}
    for i, step in enumerate(draft.steps):
        positions.setdefault(step.key, i)
    return positions


def dependency_graph(draft: PlanDraft) -> Graph:
    """The graph of ``draft``: every key, with the known keys it depends on (other than
    itself), sorted; steps sharing a key are merged into one node."""
    keys = {step.key for step in draft.steps}
    deps: dict[str, set[str]] = {key: set() for key in keys}
    for step in draft.steps:
        deps[step.key].update(d for d in step.depends_on if d in keys and d != step.key)
    return {key: tuple(sorted(deps[key])) for key in sorted(keys)}


def _key_findings(draft: PlanDraft) -> Iterator[Finding]:
    seen: set[str] = set()
    for i, step in enumerate(draft.steps):
        if step.key in seen:
            message = f"key {step.key!r} is already used by an earlier step"
            yield (
                i,
                DraftProblem(
                    "draft.duplicate_key", step.key, pointer(("steps", i, "key")), message
                ),
            )
        seen.add(step.key)


def _dependency_findings(draft: PlanDraft) -> Iterator[Finding]:
    keys = {step.key for step in draft.steps}
    for i, step in enumerate(draft.steps):
        for j, dep in enumerate(step.depends_on):
            path = pointer(("steps", i, "depends_on", j))
            if dep == step.key:
                message = f"step {dep!r} depends on itself"
                yield i, DraftProblem("draft.self_dependency", step.key, path, message)
            elif dep not in keys:
                message = f"depends_on names no step: {dep!r}"
                yield i, DraftProblem("draft.unknown_dependency", step.key, path, message)


def _components(graph: Graph) -> list[list[str]]:
    """Strongly connected components of ``graph`` (Tarjan, iterative, in sorted key order)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in graph:
        if root in index:
            continue
        work: list[tuple[str, int]] = [(root, 0)]
        while work:
            node, child = work.pop()
            if child == 0:
                index[node] = low[node] = len(index)
                stack.append(node)
                on_stack.add(node)
            if child < len(graph[node]):
                work.append((node, child + 1))
                succ = graph[node][child]
                if succ not in index:
                    work.append((succ, 0))
                elif succ in on_stack:
                    low[node] = min(low[node], index[succ])
                continue
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component: list[str] = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                found.append(sorted(component))
    return found


def _named_cycle(graph: Graph, component: list[str]) -> list[str]:
    """One cycle through ``component`` (a cyclic SCC), in dependency direction, starting and
    ending at its smallest key."""
    members = set(component)
    sorter: graphlib.TopologicalSorter[str] = graphlib.TopologicalSorter()
    for key in component:
        sorter.add(key, *(d for d in graph[key] if d in members))
    try:
        sorter.prepare()
    except graphlib.CycleError as exc:
        # graphlib lists predecessors first; reversed it reads "depends on".
        ring = list(reversed(exc.args[1]))[:-1]
        start = ring.index(min(ring))
        ring = ring[start:] + ring[:start]
        return [*ring, ring[0]]
    raise AssertionError(f"component {component} holds no cycle")  # pragma: no cover


_CYCLE_SHOWN = 12  # keys named in a cycle's message; longer cycles end in "…"


def _cycle_findings(draft: PlanDraft) -> Iterator[Finding]:
    graph = dependency_graph(draft)
    positions = _first_positions(draft)
    for component in _components(graph):
        if len(component) < 2:
            continue
        cycle = _named_cycle(graph, component)
        first = cycle[0]
        path = pointer(("steps", positions[first], "depends_on"))
        message = f"dependency cycle: {' -> '.join(cycle)}"
        if len(cycle) > _CYCLE_SHOWN:
            shown = " -> ".join(cycle[:_CYCLE_SHOWN])
            message = f"dependency cycle of {len(cycle) - 1} steps: {shown} -> …"
        yield positions[first], DraftProblem("draft.cycle", first, path, message)


def finding_order(rules: Sequence[str]) -> Callable[[Finding], tuple[int, int, str, str]]:
    """Sort key of findings: (position, rank of the code in ``rules``, path, message)."""

    def key(finding: Finding) -> tuple[int, int, str, str]:
        position, problem = finding
        return position, rules.index(problem.code), problem.path, problem.message

    return key


def graph_findings(draft: PlanDraft) -> list[Finding]:
    """The ``draft.duplicate_key``, ``draft.unknown_dependency``, ``draft.self_dependency``
    and ``draft.cycle`` problems of ``draft``, unordered."""
    return [
        *_key_findings(draft),
        *_dependency_findings(draft),
        *_cycle_findings(draft),
    ]


def _kahn(graph: Graph, positions: Mapping[str, int]) -> list[str]:
    waiting = {key: len(deps) for key, deps in graph.items()}
    dependants: dict[str, list[str]] = {key: [] for key in graph}
    for key, deps in graph.items():
        for dep in deps:
            dependants[dep].append(key)
    ready = [(positions[key], key) for key, count in waiting.items() if count == 0]
    heapq.heapify(ready)
    order: list[str] = []
    while ready:
        _, key = heapq.heappop(ready)
        order.append(key)
        for dependant in dependants[key]:
            waiting[dependant] -= 1
            if waiting[dependant] == 0:
                heapq.heappush(ready, (positions[dependant], dependant))
    return order


@arguments(draft_argument_error, draft=PlanDraft)
def topological_order(draft: PlanDraft) -> tuple[str, ...]:
    """The step keys of ``draft`` in an order where every step comes after the steps it
    depends on; among steps whose dependencies are all placed, the earliest in the draft
    comes first (so a draft already in dependency order keeps its order).

    Raises:
        DraftError: ``draft.duplicate_key``, ``draft.unknown_dependency``,
            ``draft.self_dependency`` or ``draft.cycle`` (the first such problem, in
            report order) when the graph is not a valid DAG.
    """
    findings = graph_findings(draft)
    if findings:
        _, first = min(findings, key=finding_order(GRAPH_RULES))
        raise DraftError(first.message, code=first.code, path=first.path)
    return tuple(_kahn(dependency_graph(draft), _first_positions(draft)))
