""".ics calendars a tool may read: named by the operator, or inside an allowed folder.

An agent names a calendar in ``ics`` / ``optional_ics`` by one of two spellings:

* a *name* the operator configured at start-up (``cerebri mcp --ics NAME=PATH``): the file
  is ``PATH``, the calendar id ``NAME``;
* with ``cerebri mcp --ics-root DIR``, a path relative to ``DIR`` (or absolute inside it):
  it is resolved with every symbolic link followed and must still lie inside ``DIR``
  (itself resolved), else ``mcp.path_not_allowed``.

With neither configured, no tool-given path is read: ``mcp.path_not_allowed``. A refusal
is decided before the file is opened, so it tells nothing about what exists outside.

Reading errors never quote the file: an ``ics.*``, ``input.unreadable`` or
``input.too_large`` error keeps its code, gets the argument's pointer (``/ics/0``) and a
generic message with the line number when known (docs/decisions/0033-mcp-tool-server.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from icalendar import Component

from cerebri._files import read_bounded
from cerebri.calendars.sources import MAX_CALENDAR_BYTES, calendar_id_for
from cerebri.errors import CerebriError
from cerebri.ics import CalendarError, parse_calendar

__all__ = ["PATH_NOT_ALLOWED", "read_calendars", "resolve_calendar"]

PATH_NOT_ALLOWED = "mcp.path_not_allowed"


def resolve_calendar(
    given: str, named: Mapping[str, Path], root: Path | None, pointer: str
) -> tuple[str, Path]:
    """The calendar id stem and file of the tool argument ``given`` (rules: the module
    docstring); ``pointer`` is the argument's JSON pointer.

    Raises:
        CerebriError: ``mcp.path_not_allowed`` at ``pointer``.
    """
    if given in named:
        return given, named[given]
    known = ", ".join(sorted(named)) or "none"
    if root is None:
        raise CerebriError(
            f"{given!r} is not a calendar this server was started with (configured: {known}); "
            "tool-given paths are read only inside a folder the operator allows "
            "(cerebri mcp --ics-root)",
            code=PATH_NOT_ALLOWED,
            path=pointer,
        )
    base = root.resolve()
    target = (base / given).resolve()  # an absolute ``given`` replaces ``base``
    if not target.is_relative_to(base):
        raise CerebriError(
            f"{given!r} is outside the folder this server may read calendars from "
            f"(configured names: {known})",
            code=PATH_NOT_ALLOWED,
            path=pointer,
        )
    return target.stem, target


def _unquoted(error: CerebriError, name: str, pointer: str) -> CerebriError:
    """``error``'s code at ``pointer`` with a message that quotes nothing of the file."""
    line = error.line if isinstance(error, CalendarError) else None
    where = f" (line {line})" if line is not None else ""
    reasons = {
        "input.unreadable": "cannot be read",
        "input.too_large": f"is larger than {MAX_CALENDAR_BYTES} bytes",
    }
    reason = reasons.get(error.code, f"is not a calendar cerebri can read: {error.code}")
    return CerebriError(f"calendar {name!r} {reason}{where}", code=error.code, path=pointer)


def read_calendars(
    given: Sequence[str],
    member: str,
    named: Mapping[str, Path],
    root: Path | None,
    taken: set[str],
    *,
    skip: bool,
) -> list[tuple[str, Component]]:
    """The calendars of the argument ``member`` (``ics``/``optional_ics``) in order, each
    with a calendar id unique among ``taken`` (which is updated).

    Raises:
        CerebriError: ``mcp.path_not_allowed``, ``input.unreadable``, ``input.too_large`` or
            an ``ics.*`` code, at ``/<member>/<index>``, quoting no file content.
    """
    resolved = [
        resolve_calendar(value, named, root, f"/{member}/{index}")
        for index, value in enumerate(given)
    ]
    loaded: list[tuple[str, Component]] = []
    for index, (stem, path) in enumerate(resolved):
        try:
            data = read_bounded(path, limit=MAX_CALENDAR_BYTES, what="calendar")
            calendar = parse_calendar(data, source=given[index], skip_invalid_events=skip)
        except CerebriError as error:
            raise _unquoted(error, given[index], f"/{member}/{index}") from None
        loaded.append((calendar_id_for(stem, taken), calendar))
    return loaded
