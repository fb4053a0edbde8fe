"""Dependency graph over request objects (planner.md section 4).

Every object of a request is a node; every ``DEPENDENCY_ORDER`` constraint placed on object
``D`` with value ``P`` contributes the edge ``P -> D`` ("P comes before D").
:func:`build_dependency_graph` turns those inputs into a :class:`DependencyGraph` as follows:

1. Admission limit. If the object id list (counted as given, duplicates included) is longer
   than ``max_objects`` (256), or the request carries more than ``max_constraints`` (1024)
   constraints of any kind, nothing is analysed: nodes, edges and order are empty and the
   only issue is :class:`GraphInputLimit`.
2. ``nodes`` holds each distinct id once, sorted; ``edges`` holds each distinct edge once,
   sorted by ``(predecessor, dependent)``. Ids are compared as plain Python strings.
3. Walking the sorted edges, an edge whose predecessor or dependent is not a node is reported
   as :class:`MissingReference` and left out of the traversal; the rest form the graph.
4. A node is cyclic when a non-empty path leads from it back to itself (a self loop counts).
   Cyclic nodes are exactly the members of strongly connected components that have more than
   one node or carry a self loop. Visiting nodes in sorted order, the first cyclic node of each
   component reports one :class:`Cycle`: its members are the component (sorted) and its edges
   are the graph edges running inside the component, in edge order. A node that is merely
   downstream of a cycle is not a member.
5. ``order`` is filled only when there is no issue at all. It is Kahn's algorithm that always
   releases the smallest ready id, which yields the lexicographically smallest topological
   order. With any issue ``order`` is empty.
6. Issues are listed missing references first (edge order), then cycles (scan order).

Components are found with an iterative Tarjan search, so the work is ``O(V + E)`` (plus the
sorting) and the Python recursion limit never matters, whatever limits a caller picks.
The graph says nothing about execution order and grants no permission.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TypeAlias

from cerebri._guard import arguments, invalid_argument, items_of
from cerebri._json import JSONValue

__all__ = [
    "DEFAULT_MAX_CONSTRAINTS",
    "DEFAULT_MAX_OBJECTS",
    "Cycle",
    "DependencyGraph",
    "DependencyIssue",
    "Edge",
    "GraphInputLimit",
    "MissingReference",
    "build_dependency_graph",
]

DEFAULT_MAX_OBJECTS = 256
"""Largest object id list (duplicates included) the graph builder analyses."""

DEFAULT_MAX_CONSTRAINTS = 1024
"""Largest number of constraints, of every kind, the graph builder analyses."""


@dataclass(frozen=True, slots=True, order=True)
class Edge:
    """``predecessor`` must come before ``dependent``; edges sort by that pair.

    Wire form: ``{"predecessor": id, "dependent": id}``.
    """

    predecessor: str
    dependent: str

    def to_wire(self) -> dict[str, JSONValue]:
        """``{"predecessor": …, "dependent": …}`` with the keys in that order."""
        return {"predecessor": self.predecessor, "dependent": self.dependent}


@dataclass(frozen=True, slots=True)
class GraphInputLimit:
    """Too many objects or constraints to analyse. Wire form: the string ``"InputLimit"``."""

    def to_wire(self) -> JSONValue:
        """The JSON string ``"InputLimit"``."""
        return "InputLimit"


@dataclass(frozen=True, slots=True)
class MissingReference:
    """An edge with an endpoint that is not an object id.

    Wire form: ``{"MissingReference": {"predecessor": id, "dependent": id}}``.
    """

    edge: Edge

    def to_wire(self) -> JSONValue:
        """One-key object wrapping the edge's wire form."""
        return {"MissingReference": self.edge.to_wire()}


@dataclass(frozen=True, slots=True)
class Cycle:
    """One strongly connected component that contains a cycle.

    ``members`` are the component's ids, sorted; ``edges`` are the graph edges with both
    endpoints among the members, in graph edge order (so never empty).
    Wire form: ``{"Cycle": {"members": [id, …], "edges": [edge, …]}}``.
    """

    members: tuple[str, ...]
    edges: tuple[Edge, ...]

    def to_wire(self) -> JSONValue:
        """One-key object holding ``members`` then ``edges``."""
        return {
            "Cycle": {
                "members": list(self.members),
                "edges": [edge.to_wire() for edge in self.edges],
            }
        }


DependencyIssue: TypeAlias = GraphInputLimit | MissingReference | Cycle
"""Any problem the graph builder reports (wrapped as ``{"Dependency": …}`` in validation)."""


@dataclass(frozen=True)
class DependencyGraph:
    """Result of :func:`build_dependency_graph`.

    Attributes:
        nodes: distinct object ids, sorted (empty after an input limit).
        edges: distinct edges sorted by ``(predecessor, dependent)``, including edges that
            were reported as missing references (empty after an input limit).
        order: smallest-id-first topological order of ``nodes``; empty whenever ``issues``
            is non-empty.
        issues: ``(GraphInputLimit(),)`` alone, or missing references (edge order) followed
            by cycles (ordered by their smallest member).
    """

    nodes: tuple[str, ...]
    edges: tuple[Edge, ...]
    order: tuple[str, ...]
    issues: tuple[DependencyIssue, ...]

    def to_wire(self) -> dict[str, JSONValue]:
        """``{"nodes": […], "edges": […], "order": […], "issues": […]}`` in that key order."""
        return {
            "nodes": list(self.nodes),
            "edges": [edge.to_wire() for edge in self.edges],
            "order": list(self.order),
            "issues": [issue.to_wire() for issue in self.issues],
        }


@arguments(
    invalid_argument,
    object_ids=Iterable,
    edges=Iterable,
    constraint_count=int,
    max_objects=int,
    max_constraints=int,
)
def build_dependency_graph(
    object_ids: Iterable[str],
    edges: Iterable[Edge],
    *,
    constraint_count: int,
    max_objects: int = DEFAULT_MAX_OBJECTS,
    max_constraints: int = DEFAULT_MAX_CONSTRAINTS,
) -> DependencyGraph:
    """Build the dependency graph of planner.md section 4.

    Args:
        object_ids: every object id of the request, in any order; duplicates are allowed
            and count towards ``max_objects``.
        edges: one ``Edge(P, D)`` per ``DEPENDENCY_ORDER`` constraint; duplicates and any
            order are allowed.
        constraint_count: number of constraints of all kinds in the request.
        max_objects: more object ids than this gives ``issues == (GraphInputLimit(),)``.
        max_constraints: a ``constraint_count`` above this gives the same.

    Raises:
        InvalidArgumentError: ``input.invalid_argument``, an id that is not a ``str``, an
            edge that is not an :class:`Edge`, or a count that is not an ``int``.

    Returns:
        The graph; see :class:`DependencyGraph` for the shape. Runs in ``O((V + E) log(V + E))``
        time without recursion.
    """
    id_list = list(items_of(object_ids, str, invalid_argument, "build_dependency_graph object_ids"))
    edge_list = list(items_of(edges, Edge, invalid_argument, "build_dependency_graph edges"))
    if len(id_list) > max_objects or constraint_count > max_constraints:
        return DependencyGraph(nodes=(), edges=(), order=(), issues=(GraphInputLimit(),))

    nodes = tuple(sorted(set(id_list)))
    if not edge_list:
        # No edges: no missing reference, no cycle, and the smallest topological order is
        # the ascending order of the ids (what Kahn's algorithm below gives too).
        return DependencyGraph(nodes=nodes, edges=(), order=nodes, issues=())
    graph_edges = tuple(sorted(set(edge_list)))
    position = {node: i for i, node in enumerate(nodes)}

    successors, self_loop, missing = _adjacency(position, graph_edges)
    issues: list[DependencyIssue] = [
        *missing,
        *_cycles(nodes, position, graph_edges, successors, self_loop),
    ]

    order: tuple[str, ...] = ()
    if not issues:
        order = tuple(nodes[i] for i in _smallest_topological_order(successors))
    return DependencyGraph(nodes=nodes, edges=graph_edges, order=order, issues=tuple(issues))


def _adjacency(
    position: dict[str, int], graph_edges: tuple[Edge, ...]
) -> tuple[list[list[int]], list[bool], list[MissingReference]]:
    """The successor lists of the vertices (edge order), which vertex has an edge to itself,
    and one :class:`MissingReference` per edge naming an unknown id (edge order)."""
    missing: list[MissingReference] = []
    successors: list[list[int]] = [[] for _ in position]
    self_loop = [False] * len(position)
    for edge in graph_edges:
        src = position.get(edge.predecessor)
        dst = position.get(edge.dependent)
        if src is None or dst is None:
            missing.append(MissingReference(edge))
            continue
        successors[src].append(dst)
        if src == dst:
            self_loop[src] = True
    return successors, self_loop, missing


def _cycles(
    nodes: tuple[str, ...],
    position: dict[str, int],
    graph_edges: tuple[Edge, ...],
    successors: list[list[int]],
    self_loop: list[bool],
) -> list[Cycle]:
    """One :class:`Cycle` per strongly connected component with two or more members or a
    self loop, in the order of its smallest member; members ascending, edges in edge order."""
    component = _strongly_connected_components(successors)
    members: dict[int, list[str]] = {}
    for i, node in enumerate(nodes):  # ascending ids, so every member list comes out sorted
        members.setdefault(component[i], []).append(node)
    inner_edges: dict[int, list[Edge]] = {}
    for edge in graph_edges:  # edge order
        src = position.get(edge.predecessor)
        dst = position.get(edge.dependent)
        if src is not None and dst is not None and component[src] == component[dst]:
            inner_edges.setdefault(component[src], []).append(edge)

    cycles: list[Cycle] = []
    reported: set[int] = set()
    for i in range(len(nodes)):
        comp = component[i]
        if comp in reported or not (len(members[comp]) > 1 or self_loop[i]):
            continue
        reported.add(comp)
        cycles.append(Cycle(members=tuple(members[comp]), edges=tuple(inner_edges[comp])))
    return cycles


def _strongly_connected_components(successors: list[list[int]]) -> list[int]:
    """Component number of every vertex ``0..n-1`` (iterative Tarjan, ``O(V + E)``)."""
    count = len(successors)
    unvisited = -1
    index = [unvisited] * count
    low = [0] * count
    next_child = [0] * count
    on_stack = [False] * count
    stack: list[int] = []
    component = [unvisited] * count
    counter = 0
    components = 0

    for root in range(count):
        if index[root] != unvisited:
            continue
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack[root] = True
        path = [root]
        while path:
            vertex = path[-1]
            children = successors[vertex]
            if next_child[vertex] < len(children):
                child = children[next_child[vertex]]
                next_child[vertex] += 1
                if index[child] == unvisited:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack[child] = True
                    path.append(child)
                elif on_stack[child] and index[child] < low[vertex]:
                    low[vertex] = index[child]
                continue
            path.pop()
            if low[vertex] == index[vertex]:
                while True:
                    member = stack.pop()
                    on_stack[member] = False
                    component[member] = components
                    if member == vertex:
                        break
                components += 1
            if path:
                parent = path[-1]
                low[parent] = min(low[parent], low[vertex])
    return component


def _smallest_topological_order(successors: list[list[int]]) -> list[int]:
    """Kahn's algorithm releasing the smallest ready vertex first (input must be acyclic).

    Vertex numbers follow the sorted node ids, so the smallest number is the smallest id.
    """
    indegree = [0] * len(successors)
    for children in successors:
        for child in children:
            indegree[child] += 1
    ready = [vertex for vertex, degree in enumerate(indegree) if degree == 0]
    heapq.heapify(ready)
    order: list[int] = []
    while ready:
        vertex = heapq.heappop(ready)
        order.append(vertex)
        for child in successors[vertex]:
            indegree[child] -= 1
            if indegree[child] == 0:
                heapq.heappush(ready, child)
    return order
