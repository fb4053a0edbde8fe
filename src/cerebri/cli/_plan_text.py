"""What ``cerebri plan`` and ``validate`` write besides a table, without typer or rich:
the JSON answer on stdout and the notes, warnings and limit hint on stderr (decision 0027).

Shared by the typer commands (:mod:`cerebri.cli._planning`) and the light
``cerebri plan FILE`` path (:mod:`cerebri.cli._light`, decision 0045).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from cerebri._json import pretty
from cerebri.cpir import PlanningRequest, PlanningResult, Tagged
from cerebri.planner import issue_note, validation_warnings
from cerebri.planner.validate import limit_breaches

__all__ = ["limit_hint", "print_notes", "write_plan_json"]


def write_plan_json(request: PlanningRequest, result: PlanningResult, *, reference: bool) -> None:
    """The PlanningResult JSON on stdout; its notes on stderr and, when an admission limit
    was broken, the ``hint:`` line (``reference``: planned with the reference limits)."""
    sys.stdout.write(pretty(result.to_wire()))
    print_notes(request, result.validation.issues, warnings=False)
    if any(issue.name == "InputLimit" for issue in result.validation.issues):
        sys.stderr.write(f"hint: {limit_hint(request, reference=reference)}\n")


def limit_hint(request: PlanningRequest, *, reference: bool) -> str:
    """What to change when the request breaks an admission limit: ``--limits local`` when
    the request was checked against the reference limits and the local (find-slot) limits
    admit it, as for a ``find-slot --emit-request`` request."""
    if reference:
        from cerebri.calendars import FIND_SLOT_LIMITS  # noqa: PLC0415 - fast CLI start

        if not limit_breaches(request, FIND_SLOT_LIMITS):
            return (
                "the request is within the local limits (find-slot's, e.g. a find-slot "
                "--emit-request request); pass --limits local to plan it"
            )
    return "lower budget.max_candidates or shorten scope.time_range (fewer grid positions)"


def print_notes(request: PlanningRequest, issues: Sequence[Tagged], *, warnings: bool) -> None:
    """On stderr (stdout keeps the exact JSON): what a bare issue means
    (``note CODE at PATH: …``) and, with ``warnings``, rules that change no answer
    (``warning CODE at PATH: …``); decision 0027."""
    for issue in issues:
        note = issue_note(request, issue)
        if note is not None:
            sys.stderr.write(f"note {note.code} at {note.path}: {note.message}\n")
    if warnings:
        for warning in validation_warnings(request):
            sys.stderr.write(f"warning {warning.code} at {warning.path}: {warning.message}\n")
