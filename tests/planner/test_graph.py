"""Tests for the dependency graph (planner.md section 4; oracle from section 10)."""

from __future__ import annotations

import dataclasses
import itertools
import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cerebri.planner.graph import (
    Cycle,
    DependencyGraph,
    DependencyIssue,
    Edge,
    GraphInputLimit,
    MissingReference,
    build_dependency_graph,
)
from tests.strategies import dependency_graphs

# --------------------------------------------------------------------------------------
# Helpers and the independent oracle
# --------------------------------------------------------------------------------------


def edges_of(*pairs: str) -> list[Edge]:
    """``edges_of("ab", "bc")`` -> ``[Edge("a", "b"), Edge("b", "c")]`` (one-letter ids)."""
    return [Edge(pair[0], pair[1]) for pair in pairs]


def build(ids: list[str], edges: list[Edge], constraints: int | None = None) -> DependencyGraph:
    count = len(edges) if constraints is None else constraints
    return build_dependency_graph(ids, edges, constraint_count=count)


def as_json(graph: DependencyGraph) -> str:
    return json.dumps(graph.to_wire(), separators=(",", ":"))


def oracle(ids: list[str], edges: list[Edge]) -> DependencyGraph:
    """Reference answer computed the slow, obvious way (no limit check).

    Cycles come from a Floyd–Warshall transitive closure; the order is the first valid
    permutation of the sorted nodes, which is the lexicographically smallest one.
    """
    nodes = sorted(set(ids))
    all_edges = sorted(set(edges), key=lambda e: (e.predecessor, e.dependent))
    node_set = set(nodes)
    missing = [e for e in all_edges if e.predecessor not in node_set or e.dependent not in node_set]
    usable = [e for e in all_edges if e not in missing]

    reach = {(p, q): False for p in nodes for q in nodes}
    for e in usable:
        reach[e.predecessor, e.dependent] = True
    for k in nodes:
        for i in nodes:
            if reach[i, k]:
                for j in nodes:
                    if reach[k, j]:
                        reach[i, j] = True

    issues: list[DependencyIssue] = [MissingReference(e) for e in missing]
    seen: set[str] = set()
    for node in nodes:
        if node in seen or not reach[node, node]:
            continue
        members = [q for q in nodes if reach[node, q] and reach[q, node]]
        seen.update(members)
        inside = [e for e in usable if e.predecessor in members and e.dependent in members]
        issues.append(Cycle(tuple(members), tuple(inside)))

    order: tuple[str, ...] = ()
    if not issues:
        for perm in itertools.permutations(nodes):
            place = {node: i for i, node in enumerate(perm)}
            if all(place[e.predecessor] < place[e.dependent] for e in usable):
                order = perm
                break
        else:  # pragma: no cover - an acyclic graph always has a topological order
            raise AssertionError("acyclic graph without topological order")
    return DependencyGraph(tuple(nodes), tuple(all_edges), order, tuple(issues))


# --------------------------------------------------------------------------------------
# Value types and wire forms
# --------------------------------------------------------------------------------------


def test_edge_wire_and_ordering() -> None:
    edge = Edge("p", "d")
    assert list(edge.to_wire()) == ["predecessor", "dependent"]
    assert edge.to_wire() == {"predecessor": "p", "dependent": "d"}
    assert sorted([Edge("b", "a"), Edge("a", "c"), Edge("a", "b")]) == edges_of("ab", "ac", "ba")
    with pytest.raises(dataclasses.FrozenInstanceError):
        edge.predecessor = "q"  # type: ignore[misc]


def test_issue_wire_forms() -> None:
    assert GraphInputLimit().to_wire() == "InputLimit"
    assert MissingReference(Edge("missing", "new-event")).to_wire() == {
        "MissingReference": {"predecessor": "missing", "dependent": "new-event"}
    }
    cycle = Cycle(("busy", "new-event"), (Edge("busy", "new-event"), Edge("new-event", "busy")))
    assert json.dumps(cycle.to_wire(), separators=(",", ":")) == (
        '{"Cycle":{"members":["busy","new-event"],"edges":['
        '{"predecessor":"busy","dependent":"new-event"},'
        '{"predecessor":"new-event","dependent":"busy"}]}}'
    )


def test_graph_wire_key_order() -> None:
    graph = build(["b", "a"], edges_of("ab"))
    wire = graph.to_wire()
    assert list(wire) == ["nodes", "edges", "order", "issues"]
    assert as_json(graph) == (
        '{"nodes":["a","b"],"edges":[{"predecessor":"a","dependent":"b"}],'
        '"order":["a","b"],"issues":[]}'
    )


# --------------------------------------------------------------------------------------
# Upstream examples (planner.md section 4)
# --------------------------------------------------------------------------------------


def test_chain_orders_by_dependency() -> None:
    graph = build(["d", "c", "b", "a"], edges_of("cd", "ab", "bc"))
    assert graph.order == ("a", "b", "c", "d")
    assert graph.issues == ()
    assert graph.edges == tuple(edges_of("ab", "bc", "cd"))


def test_no_edges_orders_by_id() -> None:
    graph = build(["c", "a", "d", "b"], [])
    assert graph.nodes == ("a", "b", "c", "d")
    assert graph.edges == ()
    assert graph.order == ("a", "b", "c", "d")
    assert graph.issues == ()


def test_diamond() -> None:
    graph = build(["a", "b", "c", "d"], edges_of("ab", "ac", "bd", "cd"))
    assert graph.order == ("a", "b", "c", "d")
    assert graph.issues == ()


def test_smallest_ready_id_wins_over_discovery_order() -> None:
    # "c" is ready from the start but "b" only after "a"; still a < b < c.
    graph = build(["a", "b", "c", "d"], edges_of("ab", "db"))
    assert graph.order == ("a", "c", "d", "b")


def test_self_loop_is_a_cycle() -> None:
    graph = build(["a"], edges_of("aa"))
    assert graph.issues == (Cycle(("a",), (Edge("a", "a"),)),)
    assert graph.order == ()
    assert as_json(graph) == (
        '{"nodes":["a"],"edges":[{"predecessor":"a","dependent":"a"}],"order":[],'
        '"issues":[{"Cycle":{"members":["a"],"edges":[{"predecessor":"a","dependent":"a"}]}}]}'
    )


def test_two_node_cycle() -> None:
    graph = build(["b", "a"], edges_of("ba", "ab"))
    assert graph.issues == (Cycle(("a", "b"), tuple(edges_of("ab", "ba"))),)
    assert graph.order == ()


def test_disjoint_two_cycles_give_two_issues() -> None:
    graph = build(["a", "b", "c", "d"], edges_of("dc", "cd", "ba", "ab"))
    assert graph.issues == (
        Cycle(("a", "b"), tuple(edges_of("ab", "ba"))),
        Cycle(("c", "d"), tuple(edges_of("cd", "dc"))),
    )


def test_downstream_of_cycle_is_not_a_member() -> None:
    graph = build(["a", "b", "c", "d"], edges_of("ab", "ba", "bc", "cd"))
    assert graph.issues == (Cycle(("a", "b"), tuple(edges_of("ab", "ba"))),)


def test_cycle_edges_exclude_edges_leaving_the_component() -> None:
    graph = build(["a", "b", "c"], edges_of("ab", "bc", "ca", "ac", "bb"))
    (issue,) = graph.issues
    assert issue == Cycle(("a", "b", "c"), tuple(edges_of("ab", "ac", "bb", "bc", "ca")))


def test_ring_of_256_nodes_is_one_cycle() -> None:
    ids = [f"n{i:03d}" for i in range(256)]
    ring = [Edge(ids[i], ids[(i + 1) % 256]) for i in range(256)]
    graph = build(ids, ring)
    assert len(graph.issues) == 1
    issue = graph.issues[0]
    assert isinstance(issue, Cycle)
    assert issue.members == tuple(ids)
    assert issue.edges == tuple(sorted(ring))
    assert graph.order == ()


def test_missing_reference_blocks_order() -> None:
    graph = build(["new-event"], [Edge("missing", "new-event")])
    assert graph.nodes == ("new-event",)
    assert graph.edges == (Edge("missing", "new-event"),)
    assert graph.issues == (MissingReference(Edge("missing", "new-event")),)
    assert graph.order == ()
    assert as_json(graph) == (
        '{"nodes":["new-event"],"edges":[{"predecessor":"missing","dependent":"new-event"}],'
        '"order":[],"issues":[{"MissingReference":'
        '{"predecessor":"missing","dependent":"new-event"}}]}'
    )


def test_missing_references_precede_cycles_in_edge_order() -> None:
    graph = build(["b", "c"], [*edges_of("cb", "bc"), Edge("z", "b"), Edge("b", "a")])
    assert graph.issues == (
        MissingReference(Edge("b", "a")),
        MissingReference(Edge("z", "b")),
        Cycle(("b", "c"), tuple(edges_of("bc", "cb"))),
    )


# --------------------------------------------------------------------------------------
# Admission limits
# --------------------------------------------------------------------------------------

LIMITED = '{"nodes":[],"edges":[],"order":[],"issues":["InputLimit"]}'


def test_257_objects_hit_the_limit() -> None:
    ids = [f"o{i}" for i in range(257)]
    graph = build(ids, [])
    assert graph == DependencyGraph((), (), (), (GraphInputLimit(),))
    assert as_json(graph) == LIMITED
    assert build(ids[:256], []).issues == ()


def test_duplicate_ids_count_towards_the_limit() -> None:
    assert as_json(build(["a", "b"] * 128 + ["a"], [])) == LIMITED
    assert build(["a", "b"] * 128, []).nodes == ("a", "b")


def test_1025_constraints_hit_the_limit() -> None:
    assert as_json(build(["a", "b"], edges_of("ab"), constraints=1025)) == LIMITED
    assert build(["a", "b"], edges_of("ab"), constraints=1024).order == ("a", "b")


def test_limits_are_configurable() -> None:
    graph = build_dependency_graph(["a", "b", "c"], [], constraint_count=0, max_objects=2)
    assert graph.issues == (GraphInputLimit(),)
    graph = build_dependency_graph(["a"], [], constraint_count=3, max_constraints=2)
    assert graph.issues == (GraphInputLimit(),)


def test_large_graphs_need_no_recursion() -> None:
    count = 20_000
    ids = [f"n{i:05d}" for i in range(count)]
    chain = [Edge(ids[i], ids[i + 1]) for i in range(count - 1)]
    kwargs = {"constraint_count": count, "max_objects": count, "max_constraints": count}
    graph = build_dependency_graph(reversed(ids), chain, **kwargs)
    assert graph.order == tuple(ids)
    ring = [*chain, Edge(ids[-1], ids[0])]
    graph = build_dependency_graph(ids, ring, **kwargs)
    assert [len(issue.members) for issue in graph.issues if isinstance(issue, Cycle)] == [count]


def test_accepts_one_shot_iterables() -> None:
    graph = build_dependency_graph(iter(["b", "a"]), iter(edges_of("ba")), constraint_count=1)
    assert graph.order == ("b", "a")


# --------------------------------------------------------------------------------------
# Oracle comparisons (planner.md section 10, "Graph oracle")
# --------------------------------------------------------------------------------------

THREE = ["a", "b", "c"]
ALL_THREE_NODE_EDGES = [Edge(p, d) for p in THREE for d in THREE]


@pytest.mark.parametrize("mask", range(2 ** len(ALL_THREE_NODE_EDGES)))
def test_every_three_node_graph_matches_oracle(mask: int) -> None:
    edges = [e for bit, e in enumerate(ALL_THREE_NODE_EDGES) if mask >> bit & 1]
    assert build(THREE, edges) == oracle(THREE, edges)


@pytest.mark.parametrize("seed", range(256))
def test_seeded_random_graphs_match_oracle(seed: int) -> None:
    rng = random.Random(seed)
    ids = [f"v{i}" for i in rng.sample(range(10), rng.randint(0, 6))]
    edges = [Edge(rng.choice(ids), rng.choice(ids)) for _ in range(rng.randint(0, 9)) if ids]
    if ids and seed % 4 == 0:
        edges.append(Edge("ghost", rng.choice(ids)))
    graph = build(ids, edges)
    assert graph == oracle(ids, edges)
    if seed % 4 == 0 and ids:
        assert graph.order == ()


@settings(max_examples=400, deadline=None)
@given(dependency_graphs())
def test_matches_oracle(graph_input: tuple[list[str], list[Edge]]) -> None:
    ids, edges = graph_input
    graph = build(ids, edges)
    assert graph == oracle(ids, edges)
    if any(isinstance(issue, MissingReference) for issue in graph.issues):
        assert graph.order == ()


@settings(max_examples=200, deadline=None)
@given(dependency_graphs(with_missing=False))
def test_acyclic_order_respects_every_edge(graph_input: tuple[list[str], list[Edge]]) -> None:
    ids, edges = graph_input
    graph = build(ids, edges)
    if graph.issues:
        assert graph.order == ()
        assert all(isinstance(issue, Cycle) for issue in graph.issues)
        return
    assert sorted(graph.order) == list(graph.nodes)
    place = {node: i for i, node in enumerate(graph.order)}
    assert all(place[e.predecessor] < place[e.dependent] for e in graph.edges)


@settings(max_examples=300, deadline=None)
@given(dependency_graphs(), st.data())
def test_invariant_under_shuffling_and_duplicates(
    graph_input: tuple[list[str], list[Edge]], data: st.DataObject
) -> None:
    ids, edges = graph_input
    extra_ids = data.draw(st.lists(st.sampled_from(ids))) if ids else []
    extra_edges = data.draw(st.lists(st.sampled_from(edges))) if edges else []
    noisy_ids = data.draw(st.permutations(ids + extra_ids))
    noisy_edges = data.draw(st.permutations(edges + extra_edges))
    assert build(noisy_ids, noisy_edges, constraints=len(edges)) == build(ids, edges)


@settings(max_examples=200, deadline=None)
@given(dependency_graphs())
def test_cycles_partition_cyclic_nodes(graph_input: tuple[list[str], list[Edge]]) -> None:
    ids, edges = graph_input
    graph = build(ids, edges)
    cycles = [issue for issue in graph.issues if isinstance(issue, Cycle)]
    members = [m for cycle in cycles for m in cycle.members]
    assert len(members) == len(set(members))
    assert [cycle.members[0] for cycle in cycles] == sorted(c.members[0] for c in cycles)
    for cycle in cycles:
        assert list(cycle.members) == sorted(cycle.members)
        assert cycle.edges
        assert list(cycle.edges) == [
            e
            for e in graph.edges
            if e.predecessor in cycle.members and e.dependent in cycle.members
        ]
