"""Operating on the store: ``cerebri plans``, ``approvals``, ``stuck``, ``sandbox`` and
``steps`` (issue #12). Thin shells over :mod:`cerebri.execution`'s views and operations.
Options and errors: :mod:`cerebri.cli._execution_common`.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

from cerebri._json import JSONValue
from cerebri.cli._app import app
from cerebri.cli._change_text import change_lines, listed
from cerebri.cli._durations import DURATION_FORMS, parse_duration
from cerebri.cli._execution_common import (
    JsonOption,
    PrincipalOption,
    answer_on_store,
    emit,
    errors_to_exit,
    new_table,
    open_executor,
    print_table,
    safe_text,
    to_second,
)
from cerebri.cli._store import StoreOption

__all__ = ["approvals_app", "plans_app", "sandbox_app", "steps_app"]

plans_app = typer.Typer(no_args_is_help=True, help="Plans in the store: list, show, cancel.")
approvals_app = typer.Typer(
    no_args_is_help=True, help="Approval requests: list, show, approve, reject, withdraw."
)
sandbox_app = typer.Typer(no_args_is_help=True, help="Sandboxes: enable, disable, list.")
steps_app = typer.Typer(no_args_is_help=True, help="Steps that need a person: resolve.")
app.add_typer(plans_app, name="plans")
app.add_typer(approvals_app, name="approvals")
app.add_typer(sandbox_app, name="sandbox")
app.add_typer(steps_app, name="steps")


# -- plans ---------------------------------------------------------------------------------


@plans_app.command("list")
def plans_list(
    status: Annotated[
        str | None,
        typer.Option(
            "--status",
            metavar="STATUS",
            help="Only plans in this status: draft, validated, waiting, executing, blocked, "
            "awaiting_approval, replanning, completed, failed, abandoned or superseded.",
        ),
    ] = None,
    open_only: Annotated[
        bool, typer.Option("--open", help="Only plans that may still make progress.")
    ] = False,
    store: StoreOption = None,
    as_json: JsonOption = False,
) -> None:
    """Every plan revision, oldest first."""
    from cerebri.execution import list_plans  # noqa: PLC0415 - fast CLI start

    with errors_to_exit(as_json):
        rows = list_plans(open_executor(store), status=status, open_only=open_only)
    if as_json:
        emit(list(rows))
        return
    table = new_table("plan", "rev", "status", "strategy", "steps", "created", "reason")
    for r in rows:
        table.add_row(
            safe_text(r["id"]),
            safe_text(r["revision"]),
            safe_text(r["status"]),
            safe_text(r["strategy"]),
            f"{r['steps_done']}/{r['steps_total']}",
            to_second(r["created_at"]),
            safe_text(r["status_reason"]),
        )
    print_table(table)


def _attempts(step: dict[str, JSONValue]) -> str:
    """A step's attempts, ``N`` or ``N (M passed on)`` (decision 0075)."""
    passed = step.get("pass_ons")
    return f"{step['attempts']} ({passed} passed on)" if passed else str(step["attempts"])


@plans_app.command("show")
def plans_show(
    plan_id: Annotated[str, typer.Argument(metavar="ID", help="The plan's id.")],
    store: StoreOption = None,
    as_json: JsonOption = False,
) -> None:
    """One plan: its revisions, steps (status, attempts, result), predictions, approvals."""
    from cerebri.execution import show_plan  # noqa: PLC0415 - fast CLI start

    shown = answer_on_store(store, as_json, show_plan, plan_id)
    if shown is None:
        return  # printed as JSON
    out = sys.stdout
    out.write(
        safe_text(
            f"plan {shown['id']} (revision {shown['revision']}): {shown['status']}"
            + (f" ({shown['status_reason']})" if shown["status_reason"] else "")
        )
        + "\n"
    )
    out.write(safe_text(f"objective: {shown['objective']}") + "\n")
    out.write(
        f"strategy: {safe_text(shown['strategy'])}   requester: {safe_text(shown['requester'])}\n"
    )
    out.write(f"steps done: {shown['steps_done']}/{shown['steps_total']}\n")
    table = new_table("step", "kind", "status", "attempts", "due", "reason")
    steps = shown["steps"]
    for s in steps if isinstance(steps, list) else ():
        assert isinstance(s, dict)
        table.add_row(
            safe_text(s["key"]),
            safe_text(s["kind"]),
            safe_text(s["status"]),
            safe_text(_attempts(s)),
            to_second(s["next_run_at"]),
            safe_text(s["status_reason"]),
        )
    print_table(table)
    approvals = shown["approvals"]
    for a in approvals if isinstance(approvals, list) else ():
        assert isinstance(a, dict)
        out.write(
            safe_text(f"approval {a['id']}: {a['status']} (by {a['decided_by'] or '-'})") + "\n"
        )


@plans_app.command("cancel")
def plans_cancel(
    plan_id: Annotated[str, typer.Argument(metavar="ID", help="The plan's id.")],
    principal: Annotated[
        str,
        typer.Option("--as", metavar="PRINCIPAL", help="Who cancels (default principal:local)."),
    ] = "principal:local",
    reason: Annotated[str | None, typer.Option("--reason", help="Why.")] = None,
    store: StoreOption = None,
    as_json: JsonOption = False,
) -> None:
    """Abandon an open plan: open steps cancelled, open approvals withdrawn, no replanning."""
    from cerebri.execution import cancel_plan  # noqa: PLC0415 - fast CLI start

    done = answer_on_store(store, as_json, cancel_plan, plan_id, by=principal, reason=reason)
    if done is None:
        return  # printed as JSON
    sys.stdout.write(
        safe_text(f"plan {done['id']}: {done['status']} ({done['status_reason']})") + "\n"
    )


# -- approvals -----------------------------------------------------------------------------


def _approval_line(a: dict[str, JSONValue]) -> str:
    return safe_text(
        f"approval {a['id']}: {a['status']}"
        + (f" by {a['decided_by']}" if a["decided_by"] else "")
        + (f" ({a['status_reason']})" if a["status_reason"] else "")
    )


@approvals_app.command("list")
def approvals_list(
    show_all: Annotated[
        bool, typer.Option("--all", help="Every approval, not only the open ones.")
    ] = False,
    store: StoreOption = None,
    as_json: JsonOption = False,
) -> None:
    """Approval requests, oldest first: the open ones unless --all. An event's time is
    local in the zone its plan names (else UTC); `approvals show ID` tells the rest."""
    from cerebri.execution import list_approvals  # noqa: PLC0415 - fast CLI start
    from cerebri.execution.approval_detail import proposed_by_step  # noqa: PLC0415

    with errors_to_exit(as_json):
        executor = open_executor(store)
        rows = list_approvals(executor, status=None if show_all else "open")
    if as_json:
        emit(list(rows))
        return
    table = new_table(
        "approval", "status", "plan", "requester", "title", "when", "calendar", "asks for"
    )
    for a in rows:
        proposed = listed(proposed_by_step(executor, a["request"]) or {})
        table.add_row(
            safe_text(a["id"]),
            safe_text(a["status"]),
            safe_text(a["plan_id"]),
            safe_text(a["requester"]),
            safe_text(proposed.get("title") or _gate_title(a["request"])),
            safe_text(when_text(proposed)),
            safe_text(proposed.get("calendar_id")),
            safe_text(_asks(a["request"])),
        )
    print_table(table)


def _gate_title(request: JSONValue) -> str | None:
    """An approval gate's own title (what the batch or the owner approves), else None."""
    step = request.get("step") if isinstance(request, dict) else None
    if isinstance(step, dict) and isinstance(step.get("internal"), dict):
        title = step.get("title")
        return title if isinstance(title, str) else None
    return None


def _asks(request: JSONValue) -> str:
    """``create-0: calendar.event.create ev-1`` for a step, ``grant: <capability>``."""
    found = request if isinstance(request, dict) else {}
    step = found.get("step")
    if isinstance(step, dict):
        what = step.get("capability") or step.get("kind")
        return f"{step.get('key')}: {what} {step.get('target') or ''}".strip()
    return f"{found.get('kind')}: {found.get('capability')}"


@approvals_app.command("show")
def approvals_show(
    approval_id: Annotated[str, typer.Argument(metavar="ID", help="The approval's id.")],
    store: StoreOption = None,
    as_json: JsonOption = False,
) -> None:
    """One approval and what it asks for: the step's capability, the event's title,
    calendar and times (UTC and local), who proposed it (envelope author and digest), and
    when the request expires. Read this before `approvals approve`."""
    from cerebri.execution import describe_approval  # noqa: PLC0415 - fast CLI start

    shown = answer_on_store(store, as_json, describe_approval, approval_id)
    if shown is None:
        return  # printed as JSON
    sys.stdout.write("".join(safe_text(line) + "\n" for line in approval_lines(shown)))


def when_text(proposed: dict[str, JSONValue]) -> str:
    """``2026-10-05 09:00-09:30 Europe/Berlin``: the event's range, local in its zone (UTC
    when the step names none); the end's date is repeated when it is another day."""
    start, end = proposed.get("local_start"), proposed.get("local_end")
    where = proposed.get("timezone")
    if not (isinstance(start, str) and isinstance(end, str)):
        start, end, where = proposed.get("start"), proposed.get("end"), "UTC"
    if not (isinstance(start, str) and isinstance(end, str)):
        return ""
    begin, finish = start[:16].replace("T", " "), end[:16].replace("T", " ")
    if finish[:10] == begin[:10]:
        finish = finish[11:]
    return f"{begin}-{finish} {where}"


def approval_lines(shown: dict[str, JSONValue]) -> list[str]:
    """The lines of ``approvals show`` for :func:`cerebri.execution.describe_approval`'s
    ``shown``."""
    lines = [
        f"approval {shown['id']}: {shown['status']}"
        + (f" by {shown['decided_by']}" if shown["decided_by"] else "")
        + (f" ({shown['status_reason']})" if shown["status_reason"] else ""),
        f"requester: {shown['requester']}",
        f"plan: {shown['plan_id']} (revision {shown['plan_revision']})",
    ]
    proposed = shown.get("proposed")
    if isinstance(proposed, dict):
        tz = proposed.get("timezone")
        does = str(proposed.get("does") or "")
        summary = does.split(". ", 1)[0].rstrip(".") + "." if does else ""  # first sentence
        changed = change_lines(proposed)
        existing = bool(changed) and proposed.get("capability") != "calendar.event.create"
        covers = proposed.get("covers")
        if isinstance(covers, list):  # an approval gate (decisions 0076, 0083)
            lines += [f"step: {proposed['step_key']}", f"does: {does}", *_covered_lines(covers)]
            lines += _envelope_lines(shown)
            return lines
        lines += [
            f"step: {proposed['step_key']}",
            f"does: {proposed['capability']}" + (f": {summary}" if summary else ""),
            f"event: {proposed.get('object_id') or proposed.get('target') or '-'}",
        ]
        if not existing:  # a change shows before and after instead (decision 0056)
            lines.append(f"title: {proposed['title'] or '-'}")
            for edge in ("start", "end"):
                utc, local = proposed.get(edge), proposed.get(f"local_{edge}")
                also = f", {local} {tz}" if local else ", no local zone named"
                lines.append(f"{edge}: {utc} UTC{also}" if utc else f"{edge}: -")
        calendar = proposed.get("calendar_id")
        lines.append(f"calendar: {calendar or '-'}")
        if changed:
            lines += changed
        elif proposed.get("capability") == "calendar.event.create":
            lines.append(
                "attendees: none invited (the step writes the event into calendar "
                f"{calendar or '-'} only)"
            )
    else:
        lines.append(f"asks for: {_asks(shown['request'])}")
    return lines + _envelope_lines(shown)


def _covered_lines(covers: list[JSONValue]) -> list[str]:
    """One line per write an approval gate covers: a create with its title, UTC range,
    attendees and room; a move from its range as read (when known) to the new one."""
    lines = [f"covers: {len(covers)} write(s), all written only after every approval"]
    for row in covers:
        c: dict[str, Any] = row if isinstance(row, dict) else {}
        span = f"{c.get('start') or '-'} - {c.get('end') or '-'} UTC"
        if c.get("kind") == "create":
            people = ", ".join(str(a) for a in c.get("attendees") or []) or "none invited"
            room = c.get("room_calendar_id") or "no room"
            lines.append(
                f'  create {c.get("uid")} "{c.get("title") or "-"}" {span} in calendar '
                f"{c.get('calendar_id')}; attendees: {people}; room: {room}"
            )
        else:
            was = (
                f"{c['from_start']} - {c['from_end']} UTC"
                if c.get("from_start") and c.get("from_end")
                else "its current time"
            )
            lines.append(
                f"  {c.get('kind')} {c.get('uid')} in calendar {c.get('calendar_id')}: "
                f"from {was} to {span}"
            )
    return lines


def _envelope_lines(shown: dict[str, JSONValue]) -> list[str]:
    lines: list[str] = []
    if shown.get("envelope_digest"):
        lines.append(
            f"proposed by: {shown['author']} (envelope {shown['envelope_digest']}, valid "
            f"until {to_second(shown['envelope_expires_at'])})"
        )
    else:
        lines.append("proposed by: - (submitted as a plain draft, not a signed envelope)")
    lines.append(f"expires: {to_second(shown['expires_at'])}")
    return lines


KeyOption = Annotated[
    Path | None,
    typer.Option(
        "--key",
        metavar="PATH",
        readable=False,
        help="Your PKCS#8 PEM private key: signs the decision (needed once the store has "
        "principals).",
    ),
]
KeyidOption = Annotated[
    str | None,
    typer.Option("--keyid", metavar="KEYID", help="The key's id (default: the PEM file's name)."),
]


def _decide(
    approval_id: str,
    principal: str,
    reason: str | None,
    *,
    approve: bool,
    key: Path | None,
    keyid: str | None,
    store: str | None,
    as_json: bool,
) -> None:
    from cerebri.execution import decide, decision_payload  # noqa: PLC0415 - fast CLI start
    from cerebri.proposals import (  # noqa: PLC0415
        APPROVAL_PAYLOAD_TYPE,
        load_private_key,
        sign,
    )

    with errors_to_exit(as_json):
        executor = open_executor(store)
        signature = None
        if key is not None:
            keyid = keyid or key.stem
            payload = decision_payload(
                executor, approval_id, decision="approve" if approve else "reject", by=principal
            )
            signature = sign(APPROVAL_PAYLOAD_TYPE, payload, load_private_key(key), keyid).sig
        done = decide(
            executor,
            approval_id,
            approve=approve,
            by=principal,
            reason=reason,
            keyid=keyid if key is not None else None,
            signature=signature,
        )
    if as_json:
        emit(done)
        return
    sys.stdout.write(_approval_line(done) + "\n")


def _decision_command(approve: bool, help_text: str) -> Callable[..., None]:
    """The ``approvals approve`` or ``approvals reject`` command: the same options, one
    decision (:func:`_decide`)."""

    def command(  # noqa: PLR0917 - typer maps every option to a parameter
        approval_id: Annotated[str, typer.Argument(metavar="ID", help="The approval's id.")],
        principal: PrincipalOption,
        reason: Annotated[str | None, typer.Option("--reason", help="Why.")] = None,
        key: KeyOption = None,
        keyid: KeyidOption = None,
        store: StoreOption = None,
        as_json: JsonOption = False,
    ) -> None:
        _decide(
            approval_id,
            principal,
            reason,
            approve=approve,
            key=key,
            keyid=keyid,
            store=store,
            as_json=as_json,
        )

    command.__doc__ = help_text
    command.__name__ = command.__qualname__ = f"approvals_{'approve' if approve else 'reject'}"
    return command


approvals_approve = approvals_app.command("approve")(
    _decision_command(
        True, "Approve an open request (never as its requester or the author of its proposal)."
    )
)
approvals_reject = approvals_app.command("reject")(
    _decision_command(
        False, "Reject an open request: its step fails and the plan replans when it can."
    )
)


@approvals_app.command("withdraw")
def approvals_withdraw(
    approval_id: Annotated[str, typer.Argument(metavar="ID", help="The approval's id.")],
    principal: PrincipalOption,
    store: StoreOption = None,
    as_json: JsonOption = False,
) -> None:
    """The requester takes its own open request back; the plan is abandoned."""
    from cerebri.execution import withdraw  # noqa: PLC0415 - fast CLI start

    done = answer_on_store(store, as_json, withdraw, approval_id, by=principal)
    if done is None:
        return  # printed as JSON
    sys.stdout.write(_approval_line(done) + "\n")


# -- stuck, sandboxes, steps ---------------------------------------------------------------


@app.command("stuck", short_help="Unfinished work: who should move it, and whether it is stuck.")
def stuck_command(
    grace: Annotated[
        str,
        typer.Option(
            "--grace",
            metavar="DURATION",
            help=f"How long overdue counts as stuck ({DURATION_FORMS}; whole seconds).",
        ),
    ] = "60s",
    store: StoreOption = None,
    as_json: JsonOption = False,
) -> None:
    """Everything not finished, who should move it, its timeout, and whether it is stuck."""
    from cerebri.execution import stuck  # noqa: PLC0415 - fast CLI start

    with errors_to_exit(as_json):
        seconds = parse_duration(grace, option="--grace", whole=True)
        rows = stuck(open_executor(store), grace_seconds=int(seconds))
    if as_json:
        emit(list(rows))
        return
    table = new_table("stuck", "kind", "id", "step", "status", "owner", "timeout", "reason")
    for r in rows:
        table.add_row(
            "STUCK" if r["stuck"] else "",
            safe_text(r["kind"]),
            safe_text(r["id"]),
            safe_text(r["step_key"]),
            safe_text(r["status"]),
            safe_text(r["owner"]),
            to_second(r["timeout"]),
            safe_text(r["reason"]),
        )
    print_table(table)


def _set_sandbox(
    name: str, enabled: bool, reason: str | None, store: str | None, as_json: bool
) -> None:
    from cerebri.execution import set_sandbox  # noqa: PLC0415 - fast CLI start

    done = answer_on_store(store, as_json, set_sandbox, name, enabled, reason)
    if done is None:
        return  # printed as JSON
    state = "enabled" if done["enabled"] else "disabled"
    readied = f"; {done['steps_readied']} steps ready again" if done["steps_readied"] else ""
    sys.stdout.write(safe_text(f"sandbox {done['name']}: {state}{readied}") + "\n")


@sandbox_app.command("enable")
def sandbox_enable(
    name: Annotated[str, typer.Argument(metavar="NAME")],
    reason: Annotated[str | None, typer.Option("--reason", help="Why.")] = None,
    store: StoreOption = None,
    as_json: JsonOption = False,
) -> None:
    """Create or enable a sandbox; its steps blocked by the sandbox run again."""
    _set_sandbox(name, True, reason, store, as_json)


@sandbox_app.command("disable")
def sandbox_disable(
    name: Annotated[str, typer.Argument(metavar="NAME")],
    reason: Annotated[str | None, typer.Option("--reason", help="Why.")] = None,
    store: StoreOption = None,
    as_json: JsonOption = False,
) -> None:
    """Disable a sandbox (created if new): no plan in it acts until it is enabled."""
    _set_sandbox(name, False, reason, store, as_json)


@sandbox_app.command("list")
def sandbox_list(store: StoreOption = None, as_json: JsonOption = False) -> None:
    """Every sandbox by name."""
    from cerebri.execution import list_sandboxes  # noqa: PLC0415 - fast CLI start

    with errors_to_exit(as_json):
        rows = list_sandboxes(open_executor(store))
    if as_json:
        emit(list(rows))
        return
    for r in rows:
        state = "enabled" if r["enabled"] else "disabled"
        sys.stdout.write(safe_text(f"{r['name']}: {state}") + "\n")


@steps_app.command("resolve")
def steps_resolve(
    step_id: Annotated[str, typer.Argument(metavar="STEP", help="The blocked step's id.")],
    happened: Annotated[
        bool,
        typer.Option(
            "--happened/--did-not-happen",
            help="Whether the step's effect happened (then it completes) or not (it runs "
            "again with a new idempotency key).",
        ),
    ],
    principal: PrincipalOption,
    store: StoreOption = None,
    as_json: JsonOption = False,
) -> None:
    """Settle a step blocked with needs_verification, after looking at the world."""
    from cerebri.execution import resolve_step  # noqa: PLC0415 - fast CLI start

    done = answer_on_store(store, as_json, resolve_step, step_id, happened=happened, by=principal)
    if done is None:
        return  # printed as JSON
    sys.stdout.write(
        safe_text(f"step {done['key']} ({done['id']}): {done['status']} ({done['status_reason']})")
        + "\n"
    )
