"""Storable text: Unicode text every execution store back end can hold and UTF-8 can encode.

Two kinds of character make text unstorable (docs/decisions/0036):

* NUL (U+0000): PostgreSQL's ``text`` type cannot hold it (psycopg refuses it with
  ``DataError``), while SQLite stores it; refusing it everywhere keeps the answer the same
  on both back ends;
* a lone surrogate (U+D800 to U+DFFF): not a Unicode scalar value, so it has no UTF-8 form
  (RFC 3629 section 3). Python makes them from undecodable command-line bytes
  (``surrogateescape``) and from JSON escapes such as ``"\\ud800"``.

Text holding either is refused with :class:`~cerebri.errors.InvalidArgumentError` code
``input.invalid_text`` (:func:`invalid_text`); :func:`text_fault` says what is wrong with one
string, :func:`first_unstorable` finds the first such string in a JSON value.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Final

from cerebri.errors import InvalidArgumentError

__all__ = ["INVALID_TEXT", "first_unstorable", "invalid_text", "text_fault"]

INVALID_TEXT: Final = "input.invalid_text"
"""The code of every refusal of unstorable text."""

_UNSTORABLE: Final = re.compile("[\x00\ud800-\udfff]")


def text_fault(text: str) -> str | None:
    """``None`` when ``text`` is storable, else what is wrong with it, e.g. ``"a NUL
    character (U+0000) at offset 3"`` (offsets count code points from 0)."""
    found = _UNSTORABLE.search(text)
    if found is None:
        return None
    char = found.group()
    what = "a NUL character" if char == "\x00" else "a lone surrogate"
    return f"{what} (U+{ord(char):04X}) at offset {found.start()}"


def _escape(part: str | int) -> str:
    return str(part).replace("~", "~0").replace("/", "~1")


def first_unstorable(value: object, at: str = "") -> tuple[str, str] | None:
    """The first unstorable string in a JSON value (object member names included), depth
    first in document order: ``(pointer, fault)`` with ``pointer`` the RFC 6901 pointer of the
    string (or of the member whose *name* is unstorable) prefixed with ``at``; ``None`` when
    every string is storable. Iterative, so any nesting depth is walked without recursion."""
    stack: list[Iterator[tuple[str, object]]] = [iter([(at, value)])]
    while stack:
        step = next(stack[-1], None)
        if step is None:
            stack.pop()
            continue
        where, item = step
        if isinstance(item, str):
            fault = text_fault(item)
            if fault is not None:
                return where, fault
        elif isinstance(item, dict):
            for name in item:
                fault = text_fault(str(name))
                if fault is not None:
                    return f"{where}/{_escape(str(name))}", f"{fault} in a member name"
            stack.append(_members(where, item.items()))
        elif isinstance(item, list | tuple):
            stack.append(_members(where, enumerate(item)))
    return None


def _members(where: str, pairs: Iterable[tuple[str | int, object]]) -> Iterator[tuple[str, object]]:
    """``(pointer, value)`` of each member or item below the container at ``where``."""
    return ((f"{where}/{_escape(key)}", value) for key, value in pairs)


def invalid_text(what: str, fault: str, path: str | None = None) -> InvalidArgumentError:
    """The refusal of unstorable text: ``input.invalid_text``, message ``"<what> holds
    <fault>; ..."``, ``path`` the JSON pointer of the text when there is one."""
    return InvalidArgumentError(
        f"{what} holds {fault}; text with NUL characters or lone surrogates cannot be stored",
        code=INVALID_TEXT,
        path=path,
    )
