"""``cerebri preview PLAN``: what the executor would decide for each step, without acting.

PLAN is a draft file (``-`` for standard input), previewed as if submitted now without a
store, or the id of a plan in the store, previewed in its current state. Nothing is invoked
and nothing is written (plans.md section 6, "Preview").
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from cerebri._json import JSONValue
from cerebri.cli._app import app, read_input
from cerebri.cli._execution import EXIT_INVALID_DRAFT, calendars_option_value
from cerebri.cli._execution_common import (
    JsonOption,
    emit,
    errors_to_exit,
    new_table,
    open_executor,
    print_problems,
    print_table,
    safe_text,
)
from cerebri.cli._store import StoreOption

__all__ = ["preview_command"]


@app.command("preview", short_help="What the executor would decide for each step of PLAN, and why.")
def preview_command(
    plan: Annotated[str, typer.Argument(metavar="PLAN", help="A draft file, -, or a plan id.")],
    ics_calendars: Annotated[
        list[str] | None,
        typer.Option(
            "--ics-calendar",
            metavar="ID=PATH",
            help="Preview with a worker that has these .ics calendars (repeatable); without "
            "any, adapters are not checked.",
        ),
    ] = None,
    store: StoreOption = None,
    as_json: JsonOption = False,
) -> None:
    """What the executor would decide for each step of PLAN: allowed or not, and why; an
    invalid draft's problems are listed under the steps.

    Exit 0 when the plan is valid, 1 when it breaks a plan graph rule (it would be stored as
    a draft that never runs), 2 when PLAN is not a draft or not a stored plan (one `error`
    line on stderr)."""
    from cerebri.clock import SystemClock  # noqa: PLC0415 - fast CLI start
    from cerebri.execution import preview_draft, preview_plan  # noqa: PLC0415
    from cerebri.execution.adapters import default_adapters  # noqa: PLC0415

    with errors_to_exit(as_json):
        calendars = calendars_option_value(ics_calendars)
        adapters = default_adapters(SystemClock(), ics_calendars=calendars) if calendars else None
        if plan == "-" or Path(plan).is_file():
            answer = preview_draft(read_input(plan), adapters=adapters)
        else:
            answer = preview_plan(open_executor(store), plan, adapters=adapters)
    head = answer["plan"]
    assert isinstance(head, dict)
    if as_json:
        emit(answer)
    else:
        _print_answer(head, answer["steps"])
    if not head["valid"]:
        raise typer.Exit(EXIT_INVALID_DRAFT)


def _print_answer(head: dict[str, JSONValue], steps: JSONValue) -> None:
    """The plan line, the budget line, one row per step, then the problems, if any."""
    budget = head["budget"]
    assert isinstance(budget, dict)
    sys.stdout.write(
        f"plan: {safe_text(head.get('id', '(draft)'))} {safe_text(head['status'])}"
        f"{'' if head['valid'] else ' (invalid: never runs)'}\n"
        f"invocations: {budget['used']} used, at least {budget['minimum_needed']} needed, "
        f"limit {budget['max_capability_invocations']}\n"
    )
    table = new_table("step", "kind", "allowed", "why")
    assert isinstance(steps, list)
    for step in steps:
        assert isinstance(step, dict)
        row: list[JSONValue] = [step["key"], step["kind"], "yes" if step["allowed"] else "no"]
        table.add_row(*(safe_text(v) for v in row), safe_text(step["why"]))
    print_table(table)
    print_problems(head.get("problems"))
