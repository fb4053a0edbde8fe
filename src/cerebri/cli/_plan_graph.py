"""``cerebri plan-graph``: validate drafts, build them from requests, list capabilities.

Exit codes of ``plan-graph validate``: 0 valid, 1 the draft breaks a rule (the report says
which), 2 input that cannot be read as a draft (``json.*``, ``draft.schema``).
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from cerebri._json import pretty
from cerebri.cli._app import (
    LimitSet,
    LimitsOption,
    app,
    fail,
    limits_for,
    printable,
    read_input,
    table_console,
)
from cerebri.cpir import PlanningRequest, parse_request
from cerebri.errors import CerebriError
from cerebri.planner import ActionPlan, PlanError, action_plan_for
from cerebri.plans import (
    CapabilityRegistry,
    DraftError,
    DraftReport,
    Strategy,
    builtin_registry,
    change_inputs,
    draft_from_action_plan,
    parse_draft,
    parse_model_draft,
    validate_draft,
)
from cerebri.proposals import created_titles, target_zones

__all__ = [
    "actions_for",
    "capabilities",
    "from_request",
    "limits_hint",
    "plan_graph_app",
    "validate",
]

EXIT_INVALID = 1

plan_graph_app = typer.Typer(
    no_args_is_help=True,
    help="Plan graphs: validate a draft, build one from a request, list capabilities.",
    short_help="Plan graphs: validate, build from a request, capabilities.",
)
app.add_typer(plan_graph_app, name="plan-graph")

LockOption = Annotated[
    list[str] | None,
    typer.Option("--lock", help="Lock this capability first (repeatable): drafts using it fail."),
]


def _registry(lock: list[str] | None) -> CapabilityRegistry:
    registry = builtin_registry()
    for name in lock or []:
        registry = registry.lock(name)
    return registry


def _print_report(report: DraftReport, console: Console) -> None:
    console.print("valid" if report.valid else f"invalid: {len(report.problems)} problem(s)")
    if report.problems:
        table = Table("code", "step", "path", "message")
        for problem in report.problems:
            table.add_row(
                problem.code,
                printable(problem.step or "-"),
                printable(problem.path),
                printable(problem.message),
            )
        console.print(table)
    for pointer in report.ignored:
        console.print(f"ignored {printable(pointer)}")


@plan_graph_app.command()
def validate(
    file: Annotated[str, typer.Argument(metavar="DRAFT", help="Plan draft JSON file, or -.")],
    model: Annotated[
        bool,
        typer.Option(
            "--model",
            help="The draft was proposed by a language model: drop and list fields that "
            "could carry authority instead of refusing unknown members.",
        ),
    ] = False,
    lock: LockOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
) -> None:
    """Check a plan draft against the plan graph rules and the capability registry (unique
    keys, known dependencies, no cycle, registered unlocked capabilities, params that match
    their schema, read-only checks, verifications of expectations, budgets).

    Exit 0 when valid, 1 when a rule is broken, 2 when the file is not a draft (then one
    `error` line per shape problem on stderr)."""
    try:
        registry = _registry(lock)
        data = read_input(file)
        if model:
            report = parse_model_draft(data, registry).report
        else:
            report = validate_draft(parse_draft(data), registry)
    except DraftError as error:
        # every shape problem, one `error <code> at <path>: <message>` line each
        stop = fail(error)
        for problem in error.problems[1:]:
            fail(DraftError(problem.message, code=problem.code, path=problem.path))
        raise stop from None
    except CerebriError as error:
        raise fail(error) from None
    if as_json:
        sys.stdout.write(pretty(report.to_wire()))
    else:
        _print_report(report, table_console())
    if not report.valid:
        raise typer.Exit(EXIT_INVALID)


def limits_hint(error: PlanError, limits: LimitSet) -> PlanError:
    """``error``, saying that ``--limits local`` (find-slot's) may admit a request the
    reference limits refused."""
    if limits is LimitSet.REFERENCE and "InputLimit" in error.message:
        return PlanError(
            f"{error.message}; a request from `find-slot --emit-request` needs --limits local",
            code=error.code,
            wire=error.wire,
        )
    return error


def actions_for(request: PlanningRequest, rank: int, limits: LimitSet) -> ActionPlan:
    """:func:`~cerebri.planner.action_plan_for` under ``--limits`` (:func:`limits_hint`)."""
    try:
        return action_plan_for(request, rank=rank, limits=limits_for(limits))
    except PlanError as error:
        raise limits_hint(error, limits) from None


@plan_graph_app.command("from-request")
def from_request(
    file: Annotated[str, typer.Argument(metavar="REQUEST", help="CPIR request JSON file, or -.")],
    candidate: Annotated[
        int, typer.Option("--candidate", min=1, help="Ranked candidate to carry out (1 = best).")
    ] = 1,
    failed: Annotated[
        list[str] | None,
        typer.Option("--failed", help="A strategy that already failed (repeatable)."),
    ] = None,
    limits: LimitsOption = LimitSet.REFERENCE,
    title: Annotated[
        str | None,
        typer.Option(
            "--title", help="Title of the event(s) a CREATE makes (a CPIR request carries none)."
        ),
    ] = None,
) -> None:
    """Plan a CPIR request and print the plan graph draft that would carry out a candidate
    (direct action verified by observation, or the next strategy when --failed says so)."""
    try:
        known = {s.value for s in Strategy}
        for name in failed or []:
            if name not in known:
                raise CerebriError(
                    f"--failed {name!r} is not a strategy; use one of {', '.join(sorted(known))}",
                    code="input.invalid_option",
                )
        request = parse_request(read_input(file))
        actions = actions_for(request, candidate, limits)
        draft = draft_from_action_plan(
            actions,
            failed=failed or (),
            titles=created_titles(actions, title),
            zones=target_zones(request, actions),
            **change_inputs(request, actions),
        )
    except CerebriError as error:
        raise fail(error) from None
    sys.stdout.write(pretty(draft.to_wire()))


@plan_graph_app.command()
def capabilities(
    lock: LockOption = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the declarations as JSON.")
    ] = False,
) -> None:
    """List the registered capabilities (name, read-only, idempotent, risk, target rule)."""
    try:
        registry = _registry(lock)
    except CerebriError as error:
        raise fail(error) from None
    if as_json:
        sys.stdout.write(pretty(registry.to_wire()))
        return
    table = Table("name", "read-only", "idempotent", "risk", "target", "locked", "description")
    for name in sorted(registry.capabilities):
        cap = registry.capabilities[name]
        target = cap.target_rule.value + (
            f" = params.{cap.target_param}" if cap.target_param else ""
        )
        table.add_row(
            name,
            "yes" if cap.read_only else "no",
            "yes" if cap.idempotent else "no",
            cap.risk.value,
            target,
            "yes" if registry.is_locked(name) else "no",
            cap.description,
        )
    table_console().print(table)
