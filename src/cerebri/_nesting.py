"""How deep a Python JSON-like value nests, found without recursion.

Python callers may hand cerebri decoded values (dicts, lists, tuples) instead of JSON text.
``json.dumps``, pydantic and most walkers recurse on them, so a value nested 100 000 levels
deep raises ``RecursionError``, and a dict that contains itself never ends. Public entry
points call :func:`too_deep_at` first: a depth-first walk with an explicit stack that never
goes below ``limit + 1`` levels, treats a container met again on its own path (a cycle) as
too deep, and remembers the height of every container it finished, so shared sub-values
are walked once (linear time). Callers turn the answer into their own typed error
(``json.too_deep``, ``proposal.canonical_json``...).

A value can also be shallow but astronomically large once written out: ``[x, x]`` nested 60
levels deep is 2**60 values in JSON text although it holds 61 lists. :func:`expanded_size`
counts the values the JSON text would hold, also in linear time, stopping at a cap.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator, Mapping
from itertools import compress
from typing import Any

__all__ = ["expanded_size", "plain_tree_size", "too_deep_at"]

_Children = Iterator[tuple[object, object]]


def _children(node: object) -> _Children | None:
    """An iterator over the (key, child) pairs of a mapping, list or tuple; ``None`` for
    anything else. Iterating, not copying, keeps a walk's memory proportional to its depth."""
    if isinstance(node, Mapping):
        return iter(node.items())
    if isinstance(node, list | tuple):
        return enumerate(node)
    return None


def _pointer(parts: list[object]) -> str:
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


class _Frame:
    __slots__ = ("best", "children", "key", "node")

    def __init__(self, node: object, children: _Children, key: object) -> None:
        self.node = node
        self.children = children
        self.key = key
        self.best = 0  # too_deep_at: greatest child height; expanded_size: running total


def too_deep_at(value: object, limit: int) -> str | None:
    """The RFC 6901 pointer of the first mapping, list or tuple nested deeper than
    ``limit`` levels (the outermost container is level 1) or lying on a cycle, or ``None``
    when ``value`` stays within ``limit``. Scalars are depth 0; keys that are not strings
    are written with ``str``.
    """
    root = _children(value)
    if root is None:
        return None
    if limit < 1:
        return ""
    heights: dict[int, int] = {}
    held: list[object] = []  # keeps every visited container alive, so ids stay unique
    frames = [_Frame(value, root, None)]
    active = {id(value)}
    while frames:
        frame = frames[-1]
        step = next(frame.children, None)
        if step is None:
            frames.pop()
            active.discard(id(frame.node))
            heights[id(frame.node)] = frame.best + 1
            held.append(frame.node)
            if frames:
                frames[-1].best = max(frames[-1].best, frame.best + 1)
            continue
        key, child = step
        grandchildren = _children(child)
        if grandchildren is None:
            continue
        depth = len(frames) + 1
        known = heights.get(id(child))
        if (
            id(child) in active
            or depth > limit
            or (known is not None and depth + known > limit + 1)
        ):
            return _pointer([f.key for f in frames[1:]] + [key])
        if known is not None:
            frame.best = max(frame.best, known)
            continue
        frames.append(_Frame(child, grandchildren, key))
        active.add(id(child))
    return None


def expanded_size(value: object, cap: int) -> int:
    """How many JSON values (containers and scalars) ``value`` holds once written out, with
    shared sub-values counted at every place they appear; counting stops early once the
    total exceeds ``cap`` (a number greater than ``cap`` is returned then).

    ``value`` must not contain itself (call :func:`too_deep_at` first).
    """
    sizes: dict[int, int] = {}
    held: list[object] = []
    frames = [_Frame(value, _children(value) or iter(()), None)]
    while frames:
        frame = frames[-1]
        step = next(frame.children, None)
        if step is None:
            frames.pop()
            size = frame.best + 1
            if size > cap:
                return size
            sizes[id(frame.node)] = size
            held.append(frame.node)
            if frames:
                frames[-1].best += size
            continue
        _, child = step
        grandchildren = _children(child)
        if grandchildren is None:
            frame.best += 1
        elif id(child) in sizes:
            frame.best += sizes[id(child)]
        else:
            frames.append(_Frame(child, grandchildren, None))
        if frame.best > cap:
            return frame.best
    return sizes.get(id(value), 1)


_BIG_INT = 10**64  # ints of at most 64 digits; longer ones take the exact walks
_INT_BITS = 212  # ints of at most 212 bits are below 2**212 < 10**64
_PLAIN_KINDS = frozenset({str, int, float, bool, type(None), dict, list})
_is_int = frozenset({int}).__contains__
_is_container = frozenset({dict, list}).__contains__


def _has_long_int(values: list[Any]) -> bool:
    """True when an exact ``int`` among ``values`` has more than 64 digits. One pass of
    ``int.bit_length``: ints of at most 212 bits are below 2**212 < 10**64; only when a
    longer one is present are the values compared with 10**64 itself."""
    ints = compress(values, map(_is_int, map(type, values)))
    if max(map(int.bit_length, ints), default=0) <= _INT_BITS:
        return False
    longest = max(map(abs, compress(values, map(_is_int, map(type, values)))))
    return bool(longest >= _BIG_INT)


def plain_tree_size(value: object, limit: int, cap: int) -> int | None:
    """:func:`expanded_size` of ``value`` when it is plain JSON data: exact ``dict`` (with
    exact ``str`` keys) and ``list`` containers nested at most ``limit`` levels, holding
    ``str``, ``int`` (at most 64 digits), ``float``, ``bool`` or
    ``None``, and at most ``cap`` values once written out (a value held at two places
    counts twice, as in :func:`expanded_size`).
    ``None`` for anything else, a cycle included (it is deeper than any limit): the caller
    then runs the exact walks (:func:`too_deep_at`, :func:`expanded_size`), which name what
    is wrong.

    It goes level by level, and every per-value step runs in C: the values of a whole level
    come from one ``gc.get_referents`` call, types are mapped and filtered with ``map`` and
    ``itertools.compress``. Work stops at ``cap`` values; memory is a pointer per value of
    the widest level and per container of the next (at most four times the JSON text).
    """
    if type(value) is not dict:
        return None
    level: list[Any] = [value]
    total = 1
    depth = 1
    while level:
        if depth > limit:
            return None
        width = sum(map(len, level))
        total += width
        if total > cap:
            return None
        values = gc.get_referents(*level)  # the values of str-keyed dicts, the list items
        if len(values) != width:
            # CPython visits a list's items and, in a dict whose keys are all exact
            # ``str`` (its compact "unicode" table), only the values; any other dict also
            # yields its keys. So a different count means a key that is not a ``str``
            # (or a dict that once held one), or another traversal: the exact walks decide.
            return None
        kinds = set(map(type, values))
        if not kinds <= _PLAIN_KINDS:
            return None
        if int in kinds and _has_long_int(values):
            return None
        level = list(compress(values, map(_is_container, map(type, values))))
        depth += 1
    return total
