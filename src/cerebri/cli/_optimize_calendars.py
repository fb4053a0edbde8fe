"""``cerebri optimize BATCH --ics-calendar ID=FILE ...``: a batch file over real calendars
(decision 0081). The request is built by :func:`cerebri.calendars.batch_request.batch_request`;
this module reads the files and checks the options."""

from __future__ import annotations

from pathlib import Path

from cerebri.calendars.batch_file import CalendarBatch
from cerebri.calendars.batch_request import BatchFromCalendars, batch_request
from cerebri.calendars.sources import load_sources
from cerebri.cli._io import read_input
from cerebri.cpir.parse import parse_model
from cerebri.errors import CerebriError

__all__ = ["calendars_request", "check_calendar_options"]


def _invalid(message: str) -> CerebriError:
    return CerebriError(message, code="input.invalid_option")


def check_calendar_options(
    pairs: list[str] | None, movable: list[str] | None, *, emit_request: bool, as_json: bool
) -> dict[str, Path]:
    """``--ics-calendar`` values as calendar id -> file, refusing (``input.invalid_option``)
    a value that is not ``ID=FILE``, an id given twice, ``--movable`` or ``--emit-request``
    without any calendar, and ``--emit-request`` with ``--json``."""
    found: dict[str, Path] = {}
    for pair in pairs or ():
        name, sep, text = pair.partition("=")
        if not sep or not name or not text:
            raise _invalid(f"--ics-calendar takes ID=FILE, not {pair!r}")
        if name in found:
            raise _invalid(f"--ics-calendar names calendar {name!r} twice")
        found[name] = Path(text)
    if not found and (movable or emit_request):
        raise _invalid(
            "--movable and --emit-request read calendars: pass --ics-calendar ID=FILE "
            "(FILE is then a batch file)"
        )
    if emit_request and as_json:
        raise _invalid("--json and --emit-request print different documents; pass one of them")
    return found


def calendars_request(
    file: str, calendars: dict[str, Path], movable: list[str] | None
) -> BatchFromCalendars:
    """The batch file ``file`` (or ``-``) over ``calendars``, as the ``OPTIMIZE`` request.

    Raises the batch file's parse errors (``cpir.*``), the files' input errors
    (``input.unreadable``, ``input.too_large``), ``ics.*`` and ``calendars.invalid_argument``.
    """
    spec = parse_model(CalendarBatch, read_input(file))
    window = (spec.window.start, spec.window.end)
    loaded = load_sources(list(calendars.values()), [], window, ids=list(calendars))
    return batch_request(spec, loaded, movable=tuple(movable or ()))
