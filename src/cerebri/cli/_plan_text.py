"""What ``cerebri plan`` and ``validate`` write besides a table, without typer or rich:
the JSON answer on stdout and the notes, warnings and limit hint on stderr (decision 0027).

Shared by the typer commands (:mod:`cerebri.cli._planning`) and the light
``cerebri plan FILE`` path (:mod:`cerebri.cli._light`, decision 0045).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from cerebri._json import pretty
from cerebri.cpir import Operation, PlanningRequest, PlanningResult, Tagged
from cerebri.optimize import MAX_GRAINS, MAX_MEETINGS, OPTIMIZE_LIMITS
from cerebri.planner import PlannerLimits, issue_note, validation_warnings
from cerebri.planner.validate import limit_breaches

__all__ = [
    "admission_breaches",
    "limit_hint",
    "optimize_breaches",
    "optimize_fixes",
    "print_notes",
    "write_plan_json",
]

_MIB = 1024 * 1024


def write_plan_json(
    request: PlanningRequest, result: PlanningResult, *, reference: bool, warnings: bool = False
) -> None:
    """The PlanningResult JSON on stdout; its notes (with ``warnings``, the request's
    validation warnings too) on stderr and, when an admission limit was broken, the
    ``hint:`` line (``reference``: planned with the reference limits)."""
    sys.stdout.write(pretty(result.to_wire()))
    print_notes(request, result.validation.issues, warnings=warnings)
    if any(issue.name == "InputLimit" for issue in result.validation.issues):
        sys.stderr.write(f"hint: {limit_hint(request, reference=reference)}\n")


def optimize_breaches(request: PlanningRequest) -> list[str]:
    """Every admission limit of an ``OPTIMIZE`` request it breaks (decision 0070; the wire
    issue is a bare ``InputLimit``), with the measured value and the cap, e.g.
    ``"batch.meetings is 2000, more than 1024 meetings"``: at most
    :data:`~cerebri.optimize.MAX_MEETINGS` meetings and targets,
    :data:`~cerebri.optimize.MAX_GRAINS` grains (``scope.time_range`` length /
    ``granularity``), and :data:`~cerebri.optimize.OPTIMIZE_LIMITS` (4 MiB of compact JSON;
    4096 objects, facts, constraints, ``budget.max_candidates``). ``--limits`` does not
    apply to ``OPTIMIZE``."""
    limits = OPTIMIZE_LIMITS
    checks: list[tuple[str, int, str, int | None]] = [
        ("request size (compact JSON)", request.canonical_size, "bytes", limits.max_request_bytes),
        ("context.objects", len(request.context.objects), "objects", limits.max_objects),
        ("context.facts", len(request.context.facts), "facts", limits.max_facts),
        ("constraints", len(request.constraints), "constraints", limits.max_constraints),
        (
            "budget.max_candidates (unused by the optimiser)",
            request.budget.max_candidates,
            "",
            limits.max_candidates,
        ),
        ("target_ids", len(request.target_ids), "targets", MAX_MEETINGS),
    ]
    if request.batch is not None:
        checks.append(("batch.meetings", len(request.batch.meetings), "meetings", MAX_MEETINGS))
    horizon = request.scope.time_range
    grains = (horizon.end.ns - horizon.start.ns) // (request.granularity * 1_000_000_000)
    checks.append(
        (
            f"scope.time_range / granularity ({request.granularity} s)",
            grains,
            "grains",
            MAX_GRAINS,
        )
    )
    lines: list[str] = []
    for what, value, unit, cap in checks:
        if cap is None or value <= cap:
            continue
        if unit == "bytes":
            lines.append(f"{what} is {value} bytes, more than {cap // _MIB} MiB ({cap} bytes)")
        else:
            lines.append(f"{what} is {value}, more than {cap} {unit}".rstrip())
    return lines


def admission_breaches(request: PlanningRequest, limits: PlannerLimits) -> list[str]:
    """The admission limits the request breaks: :func:`optimize_breaches` for ``OPTIMIZE``
    (``limits`` does not apply to it), else
    :func:`cerebri.planner.validate.limit_breaches` under ``limits``."""
    if request.operation is Operation.OPTIMIZE:
        return optimize_breaches(request)
    return limit_breaches(request, limits)


def optimize_fixes(breaches: list[str]) -> str:
    """What to change for the :func:`optimize_breaches` ``breaches``, one clause each kind,
    joined by ``"; "``."""
    fixes: list[str] = []
    if any(b.startswith(("batch.meetings", "target_ids")) for b in breaches):
        fixes.append(f"split the batch into requests of at most {MAX_MEETINGS} meetings")
    if any(b.startswith("scope.time_range") for b in breaches):
        fixes.append(
            f"shorten scope.time_range or use a coarser granularity (at most {MAX_GRAINS} grains)"
        )
    if any(b.startswith(("request size", "context.", "constraints")) for b in breaches):
        fixes.append(
            "leave out the context objects (and their facts and constraints) no meeting's "
            "people or rooms use, or split the batch"
        )
    if any(b.startswith("budget.max_candidates") for b in breaches):
        fixes.append(f"set budget.max_candidates to at most {OPTIMIZE_LIMITS.max_candidates}")
    return "; ".join(fixes) if fixes else "see docs/reference/limits.md"


def _optimize_hint(request: PlanningRequest) -> str:
    breaches = optimize_breaches(request)
    found = "; ".join(breaches) if breaches else "no limit named here is broken"
    return (
        f"OPTIMIZE has its own admission limits (--limits does not apply; "
        f"docs/reference/limits.md): {found}. To fix: {optimize_fixes(breaches)}"
    )


def limit_hint(request: PlanningRequest, *, reference: bool) -> str:
    """What to change when the request breaks an admission limit. ``OPTIMIZE``: the limits
    of the batch optimiser it breaks (:func:`optimize_breaches`) and what to change.
    Otherwise ``--limits local`` when the request was checked against the reference limits
    and the local (find-slot) limits admit it, as for a ``find-slot --emit-request``
    request."""
    if request.operation is Operation.OPTIMIZE:
        return _optimize_hint(request)
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
