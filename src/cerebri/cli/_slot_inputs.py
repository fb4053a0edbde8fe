"""find-slot's checks on the calendars it is given, before any is read.

* The same calendar named twice (``--ics bob.ics --ics bob.ics``, or a required file again
  as ``--optional-ics``, or one CalDAV URL twice) would count one person as two attendees
  and change ``--min-attendance``: refused, ``input.invalid_option`` naming both options.
* ``--ics-out`` naming one of the input files would replace that calendar with the
  invitation: refused the same way, before anything is written.
* ``--emit-request`` cannot carry optional attendees or ``--min-attendance`` (CPIR has no
  form for them, docs/decisions/0026): :func:`replay_note` says what a replay gives.

Files are the same when :func:`os.path.samefile` says so (hard links, ``./a.ics`` and
``a.ics``, symbolic links), else when their resolved paths are equal. URLs are the same when
they are equal after lower-casing the scheme and host and dropping a trailing ``/``.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from cerebri.errors import CerebriError

__all__ = ["refuse_output_over_input", "refuse_repeated_calendars", "replay_note"]


def _same_file(first: Path, second: Path) -> bool:
    try:
        return os.path.samefile(first, second)
    except (OSError, ValueError):
        try:
            return first.resolve() == second.resolve()
        except (OSError, RuntimeError, ValueError):
            return False


def _url_key(url: str) -> str:
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return url.strip()
    path = parts.path.rstrip("/")
    return urlunsplit((parts.scheme.lower(), parts.netloc.lower(), path, parts.query, ""))


def refuse_repeated_calendars(
    files: Sequence[tuple[str, Path]], urls: Sequence[tuple[str, str]]
) -> None:
    """``input.invalid_option`` when two ``(option, file)`` entries of ``files`` are the same
    file, or two ``(option, url)`` entries of ``urls`` the same URL (module doc); the message
    names both options and values, first in the order given."""
    for index, (option, path) in enumerate(files):
        for other_option, other_path in files[index + 1 :]:
            if _same_file(path, other_path):
                _twice(option, str(path), other_option, str(other_path))
    keys = [_url_key(url) for _, url in urls]
    for index, (option, url) in enumerate(urls):
        for offset, (other_option, other) in enumerate(urls[index + 1 :], start=index + 1):
            if keys[index] == keys[offset]:
                _twice(option, url, other_option, other)


def _twice(option: str, value: str, other_option: str, other: str) -> None:
    raise CerebriError(
        f"{option} {value} and {other_option} {other} name the same calendar; give each "
        "calendar once (a calendar given twice would count as two attendees)",
        code="input.invalid_option",
    )


def refuse_output_over_input(out: Path | None, files: Sequence[tuple[str, Path]]) -> None:
    """``input.invalid_option`` when ``--ics-out`` ``out`` is one of the input ``files``
    (``(option, path)`` pairs): writing it would replace that calendar."""
    if out is None or str(out) == "-":
        return
    for option, path in files:
        if _same_file(out, path):
            raise CerebriError(
                f"--ics-out {out} is the {option} calendar {path}; writing it would replace "
                "that calendar: choose another file",
                code="input.invalid_option",
            )


def replay_note(
    *, optional: bool, min_attendance: bool, left_out: int, first_choice: bool
) -> str | None:
    """The stderr note of ``--emit-request`` when the request cannot carry optional
    attendees (``optional``) or ``--min-attendance`` (``min_attendance``), else None.
    ``left_out`` counts the slots ``--min-attendance`` removed; ``first_choice`` whether
    find-slot found any slot."""
    lost = [
        name
        for name, given in (
            ("optional attendees (--optional-ics/--optional-caldav)", optional),
            ("--min-attendance", min_attendance),
        )
        if given
    ]
    if not lost or not (first_choice or min_attendance):
        return None  # nothing found and nothing filtered: a replay finds nothing either
    if first_choice:
        gives = "the same first choice, but lists its candidates by distance to that start"
        gives += (
            f", including the {left_out} slot(s) --min-attendance left out"
            if min_attendance
            else ", not ranked by optional attendees"
        )
    else:
        gives = f"the {left_out} slot(s) --min-attendance left out as candidates"
    return (
        f"note: the request cannot carry {' and '.join(lost)} (CPIR has no field for "
        f"them); `cerebri plan --limits local` of it gives {gives}"
    )
