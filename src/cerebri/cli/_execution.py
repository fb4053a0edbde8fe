"""The execution commands: ``submit``, ``worker``, ``plans``, ``approvals``, ``stuck``,
``sandbox`` and ``steps`` (issue #12). Each is a thin shell over :mod:`cerebri.execution`.

Every command takes ``--store URL`` (else ``CEREBRI_STORE``, else the embedded SQLite file,
as ``cerebri store``) and ``--json``. The store must be initialised (``cerebri store init``).
Errors exit 2 with the error on stderr: ``error <code> at <path>: <message>``, or with
``--json`` the object ``{"code", "path", "message"}``.
"""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from cerebri._json import JSONValue, compact, pretty
from cerebri.cli._app import EXIT_INPUT, app, fail, printable, read_input, table_console
from cerebri.cli._durations import parse_duration
from cerebri.cli._store import StoreOption
from cerebri.errors import CerebriError

if TYPE_CHECKING:
    from cerebri.clock import Clock
    from cerebri.execution import Claim, Executor
    from cerebri.execution.adapters import Adapters

__all__ = ["approvals_app", "plans_app", "sandbox_app", "steps_app"]

JsonOption = Annotated[bool, typer.Option("--json", help="Print the answer as JSON.")]
PrincipalOption = Annotated[
    str, typer.Option("--as", metavar="PRINCIPAL", help="Who decides, e.g. principal:alice.")
]

plans_app = typer.Typer(no_args_is_help=True, help="Plans in the store: list, show, cancel.")
approvals_app = typer.Typer(
    no_args_is_help=True, help="Approval requests: list, approve, reject, withdraw."
)
sandbox_app = typer.Typer(no_args_is_help=True, help="Sandboxes: enable, disable, list.")
steps_app = typer.Typer(no_args_is_help=True, help="Steps that need a person: resolve.")
app.add_typer(plans_app, name="plans")
app.add_typer(approvals_app, name="approvals")
app.add_typer(sandbox_app, name="sandbox")
app.add_typer(steps_app, name="steps")


# -- shared --------------------------------------------------------------------------------


@contextmanager
def _errors(as_json: bool) -> Iterator[None]:
    """Turn a :class:`CerebriError` into exit 2 and its description on stderr."""
    try:
        yield
    except CerebriError as error:
        if not as_json:
            raise fail(error) from None
        sys.stderr.write(compact(dict(error.to_wire())) + "\n")
        raise typer.Exit(EXIT_INPUT) from None


def _executor(
    store: str | None, *, clock: Clock | None = None, adapters: Adapters | None = None
) -> Executor:
    """An executor on the store (checked to be initialised and up to date), with the system
    clock and random UUIDs."""
    from cerebri.clock import SystemClock, UuidIds  # noqa: PLC0415 - fast CLI start
    from cerebri.execution import Executor  # noqa: PLC0415
    from cerebri.execution import store as execution_store  # noqa: PLC0415
    from cerebri.execution.adapters import Adapters  # noqa: PLC0415

    url = execution_store.resolve_store_url(store)
    state = execution_store.status(url)
    if not state.up_to_date:
        raise execution_store.StoreError(
            f"the store {state.url} is at revision {state.current or '(none)'}, not "
            f"{state.head}: run `cerebri store init` (or `cerebri store upgrade`) first",
            code="store.not_initialised",
        )
    engine = execution_store.open_engine(execution_store.parse_store_url(url))
    return Executor(engine, clock or SystemClock(), UuidIds(), adapters=adapters or Adapters())


def _emit(value: JSONValue) -> None:
    sys.stdout.write(pretty(value))


def _text(value: Any) -> str:
    return "-" if value is None else printable(str(value))


def _table(*columns: str) -> Table:
    """A borderless table; ids and instants never wrap (they are copied into commands)."""
    table = Table(box=None, pad_edge=False, header_style="bold")
    for name in columns:
        whole = name in _WHOLE_COLUMNS
        table.add_column(name, no_wrap=whole, overflow="ignore" if whole else "fold")
    return table


_WHOLE_COLUMNS = frozenset({"plan", "approval", "id", "created", "expires", "timeout", "due"})


def _print(table: Table) -> None:
    """Print ``table`` on stdout: the terminal's width, else 240 columns so ids fit."""
    console = table_console()
    if not console.is_terminal:
        console = Console(highlight=False, markup=False, emoji=False, width=240)
    console.print(table)


def _second(text: JSONValue) -> str:
    """An RFC 3339 instant cut to the second (``2026-12-01T10:00:00Z``), for tables."""
    if not isinstance(text, str):
        return "-"
    return text.split(".", 1)[0].removesuffix("Z") + "Z"


# -- submit --------------------------------------------------------------------------------


@app.command("submit")
def submit_command(  # noqa: PLR0917 - typer maps every option to a parameter
    plan: Annotated[
        str | None,
        typer.Argument(
            metavar="[PLAN.json]",
            help="A plan draft (JSON file, or - for stdin). Without it, --goal KEY reuses the "
            "draft remembered for KEY.",
        ),
    ] = None,
    alternatives: Annotated[
        list[str] | None,
        typer.Option(
            "--alternative",
            metavar="ALT.json",
            help="A draft of another strategy, tried when the plan fails (repeatable).",
        ),
    ] = None,
    goal: Annotated[
        str | None,
        typer.Option("--goal", metavar="KEY", help="What the plan is for; remembered under KEY."),
    ] = None,
    sandbox: Annotated[
        str | None, typer.Option("--sandbox", metavar="NAME", help="Run inside this sandbox.")
    ] = None,
    principal: Annotated[
        str | None,
        typer.Option("--as", metavar="PRINCIPAL", help="The requester (default principal:local)."),
    ] = None,
    max_replans: Annotated[
        int | None,
        typer.Option("--max-replans", metavar="N", help="New revisions allowed after failures."),
    ] = None,
    store: StoreOption = None,
    as_json: JsonOption = False,
) -> None:
    """Validate a plan draft and store it; workers run it. An invalid draft is stored as a
    draft with its problems and never runs."""
    from cerebri.execution import (  # noqa: PLC0415 - fast CLI start
        DEFAULT_REQUESTER,
        ExecutionError,
        recall,
        submit,
    )
    from cerebri.plans import DEFAULT_MAX_REPLANS  # noqa: PLC0415

    with _errors(as_json):
        executor = _executor(store)
        if plan is not None:
            source: Any = read_input(plan)
        elif goal is not None:
            source = recall(executor, goal)
            if source is None:
                raise ExecutionError(
                    f"no plan was remembered for goal {goal!r}: give a PLAN.json",
                    code="execution.not_found",
                )
        else:
            raise ExecutionError(
                "give a PLAN.json, or --goal KEY to reuse a remembered plan",
                code="execution.invalid_argument",
            )
        done = submit(
            executor,
            source,
            requester=principal or DEFAULT_REQUESTER,
            goal_key=goal,
            alternatives=[read_input(a) for a in alternatives or ()],
            sandbox=sandbox,
            max_replans=DEFAULT_MAX_REPLANS if max_replans is None else max_replans,
        )
    if as_json:
        _emit(done.to_wire())
        return
    sys.stdout.write(
        f"plan {done.plan_id} (revision {done.revision}): {done.status.value}\n"
        f"intention: {done.intention_id}\n"
    )
    problems = done.validation.get("problems")
    for problem in problems if isinstance(problems, list) else ():
        if isinstance(problem, dict):
            where = f" (step {problem['step']})" if problem.get("step") else ""
            sys.stdout.write(_text(f"  {problem['code']}{where}: {problem['message']}") + "\n")


# -- worker --------------------------------------------------------------------------------


def _calendars(pairs: list[str] | None) -> dict[str, Path]:
    from cerebri.execution import ExecutionError  # noqa: PLC0415

    found: dict[str, Path] = {}
    for pair in pairs or ():
        name, sep, path = pair.partition("=")
        if not sep or not name or not path:
            raise ExecutionError(
                f"--ics-calendar takes ID=PATH, not {pair!r}", code="execution.invalid_argument"
            )
        found[name] = Path(path)
    return found


@contextmanager
def _stopped_by_signals(stop: threading.Event) -> Iterator[None]:
    """SIGTERM and SIGINT set ``stop`` (steps in flight finish) while the block runs."""

    def handler(_signum: int, _frame: FrameType | None) -> None:
        stop.set()

    previous = {sig: signal.signal(sig, handler) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        yield
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


def _progress() -> Callable[[Claim], None] | None:
    """On a terminal: a line on stderr per claimed step. Elsewhere: nothing."""
    console = Console(stderr=True, highlight=False, markup=False, emoji=False)
    if not console.is_terminal:
        return None

    def claimed(held: Claim) -> None:
        note = " (takeover)" if held.takeover else ""
        console.print(
            printable(f"claimed {held.key} ({held.kind}) of plan {held.plan_id}{note}"),
            style="dim",
        )

    return claimed


@app.command("worker")
def worker_command(  # noqa: PLR0917 - typer maps every option to a parameter
    concurrency: Annotated[
        int, typer.Option("--concurrency", metavar="N", help="Steps run at once.")
    ] = 1,
    lease: Annotated[
        str, typer.Option("--lease", metavar="DURATION", help="Lease of a claim: 30, 30s, 2m.")
    ] = "30s",
    until_idle: Annotated[
        bool,
        typer.Option(
            "--until-idle",
            help="Stop once no step is ready, waiting or executing (steps waiting for a "
            "person do not keep it running; a wait or a verification does).",
        ),
    ] = False,
    poll: Annotated[
        str, typer.Option("--poll", metavar="DURATION", help="Idle wait between looks: 0.5s.")
    ] = "0.5s",
    ics_calendars: Annotated[
        list[str] | None,
        typer.Option(
            "--ics-calendar",
            metavar="ID=PATH",
            help="Carry out the calendar capabilities for calendar ID on this .ics file "
            "(repeatable).",
        ),
    ] = None,
    store: StoreOption = None,
    as_json: JsonOption = False,
) -> None:
    """Claim and run steps until stopped (SIGTERM or Ctrl-C: steps in flight finish first),
    then print what this worker did."""
    from cerebri.clock import SystemClock  # noqa: PLC0415 - fast CLI start
    from cerebri.execution import WorkerReport, run_worker, scheduled_steps  # noqa: PLC0415
    from cerebri.execution.adapters import default_adapters  # noqa: PLC0415

    with _errors(as_json):
        lease_seconds = parse_duration(lease, option="--lease")
        poll_seconds = parse_duration(poll, option="--poll")
        clock = SystemClock()
        adapters = default_adapters(clock, ics_calendars=_calendars(ics_calendars))
        executor = _executor(store, clock=clock, adapters=adapters)
        stop = threading.Event()
        outcome: dict[str, WorkerReport | CerebriError] = {}

        def work() -> None:
            try:
                outcome["report"] = run_worker(
                    executor,
                    concurrency=concurrency,
                    lease_seconds=lease_seconds,
                    poll_seconds=poll_seconds,
                    stop=stop,
                    on_claim=_progress(),
                )
            except CerebriError as error:
                outcome["error"] = error

        with _stopped_by_signals(stop):
            runner = threading.Thread(target=work, name="cerebri-worker-main")
            runner.start()
            while runner.is_alive():
                runner.join(poll_seconds)
                if until_idle and not stop.is_set() and scheduled_steps(executor) == 0:
                    stop.set()
        failed = outcome.get("error")
        if isinstance(failed, CerebriError):
            raise failed
    report = outcome["report"]
    assert isinstance(report, WorkerReport)
    wire: dict[str, JSONValue] = {**report.to_wire(), "last_error": report.last_error}
    if as_json:
        _emit(wire)
        return
    sys.stdout.write(
        f"worker {report.worker_id}: {report.claims} claims, {report.takeovers} takeovers, "
        f"{report.leases_lost} leases lost, {report.timers_fired} timers fired, "
        f"{report.errors} errors\n"
    )
    if report.last_error:
        sys.stdout.write(_text(f"last error: {report.last_error}") + "\n")


# -- plans ---------------------------------------------------------------------------------


@plans_app.command("list")
def plans_list(
    status: Annotated[
        str | None, typer.Option("--status", help="Only plans in this status.")
    ] = None,
    open_only: Annotated[
        bool, typer.Option("--open", help="Only plans that may still make progress.")
    ] = False,
    store: StoreOption = None,
    as_json: JsonOption = False,
) -> None:
    """Every plan revision, oldest first."""
    from cerebri.execution import list_plans  # noqa: PLC0415 - fast CLI start

    with _errors(as_json):
        rows = list_plans(_executor(store), status=status, open_only=open_only)
    if as_json:
        _emit(list(rows))
        return
    table = _table("plan", "rev", "status", "strategy", "steps", "created", "reason")
    for r in rows:
        table.add_row(
            _text(r["id"]),
            _text(r["revision"]),
            _text(r["status"]),
            _text(r["strategy"]),
            f"{r['steps_done']}/{r['steps_total']}",
            _second(r["created_at"]),
            _text(r["status_reason"]),
        )
    _print(table)


@plans_app.command("show")
def plans_show(
    plan_id: Annotated[str, typer.Argument(metavar="ID", help="The plan's id.")],
    store: StoreOption = None,
    as_json: JsonOption = False,
) -> None:
    """One plan: its revisions, steps (status, attempts, result), predictions, approvals."""
    from cerebri.execution import show_plan  # noqa: PLC0415 - fast CLI start

    with _errors(as_json):
        shown = show_plan(_executor(store), plan_id)
    if as_json:
        _emit(shown)
        return
    out = sys.stdout
    out.write(
        _text(
            f"plan {shown['id']} (revision {shown['revision']}): {shown['status']}"
            + (f" ({shown['status_reason']})" if shown["status_reason"] else "")
        )
        + "\n"
    )
    out.write(_text(f"objective: {shown['objective']}") + "\n")
    out.write(f"strategy: {_text(shown['strategy'])}   requester: {_text(shown['requester'])}\n")
    out.write(f"steps done: {shown['steps_done']}/{shown['steps_total']}\n")
    table = _table("step", "kind", "status", "attempts", "due", "reason")
    steps = shown["steps"]
    for s in steps if isinstance(steps, list) else ():
        assert isinstance(s, dict)
        table.add_row(
            _text(s["key"]),
            _text(s["kind"]),
            _text(s["status"]),
            _text(s["attempts"]),
            _second(s["next_run_at"]),
            _text(s["status_reason"]),
        )
    _print(table)
    approvals = shown["approvals"]
    for a in approvals if isinstance(approvals, list) else ():
        assert isinstance(a, dict)
        out.write(_text(f"approval {a['id']}: {a['status']} (by {a['decided_by'] or '-'})") + "\n")


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

    with _errors(as_json):
        done = cancel_plan(_executor(store), plan_id, by=principal, reason=reason)
    if as_json:
        _emit(done)
        return
    sys.stdout.write(_text(f"plan {done['id']}: {done['status']} ({done['status_reason']})") + "\n")


# -- approvals -----------------------------------------------------------------------------


def _approval_line(a: dict[str, JSONValue]) -> str:
    return _text(
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
    """Approval requests, oldest first: the open ones unless --all."""
    from cerebri.execution import list_approvals  # noqa: PLC0415 - fast CLI start

    with _errors(as_json):
        rows = list_approvals(_executor(store), status=None if show_all else "open")
    if as_json:
        _emit(list(rows))
        return
    table = _table("approval", "status", "plan", "requester", "expires", "asks for")
    for a in rows:
        request = a["request"] if isinstance(a["request"], dict) else {}
        step = request.get("step")
        if isinstance(step, dict):
            what = step.get("capability") or step.get("kind")
            asks = f"{step.get('key')}: {what} {step.get('target') or ''}"
        else:
            asks = f"{request.get('kind')}: {request.get('capability')}"
        table.add_row(
            _text(a["id"]),
            _text(a["status"]),
            _text(a["plan_id"]),
            _text(a["requester"]),
            _second(a["expires_at"]),
            _text(asks.strip()),
        )
    _print(table)


def _decide(
    approval_id: str,
    principal: str,
    reason: str | None,
    *,
    approve: bool,
    store: str | None,
    as_json: bool,
) -> None:
    from cerebri.execution import decide  # noqa: PLC0415 - fast CLI start

    with _errors(as_json):
        done = decide(_executor(store), approval_id, approve=approve, by=principal, reason=reason)
    if as_json:
        _emit(done)
        return
    sys.stdout.write(_approval_line(done) + "\n")


@approvals_app.command("approve")
def approvals_approve(
    approval_id: Annotated[str, typer.Argument(metavar="ID", help="The approval's id.")],
    principal: PrincipalOption,
    reason: Annotated[str | None, typer.Option("--reason", help="Why.")] = None,
    store: StoreOption = None,
    as_json: JsonOption = False,
) -> None:
    """Approve an open request (not as the principal that submitted the plan)."""
    _decide(approval_id, principal, reason, approve=True, store=store, as_json=as_json)


@approvals_app.command("reject")
def approvals_reject(
    approval_id: Annotated[str, typer.Argument(metavar="ID", help="The approval's id.")],
    principal: PrincipalOption,
    reason: Annotated[str | None, typer.Option("--reason", help="Why.")] = None,
    store: StoreOption = None,
    as_json: JsonOption = False,
) -> None:
    """Reject an open request: its step fails and the plan replans when it can."""
    _decide(approval_id, principal, reason, approve=False, store=store, as_json=as_json)


@approvals_app.command("withdraw")
def approvals_withdraw(
    approval_id: Annotated[str, typer.Argument(metavar="ID", help="The approval's id.")],
    principal: PrincipalOption,
    store: StoreOption = None,
    as_json: JsonOption = False,
) -> None:
    """The requester takes its own open request back; the plan is abandoned."""
    from cerebri.execution import withdraw  # noqa: PLC0415 - fast CLI start

    with _errors(as_json):
        done = withdraw(_executor(store), approval_id, by=principal)
    if as_json:
        _emit(done)
        return
    sys.stdout.write(_approval_line(done) + "\n")


# -- stuck, sandboxes, steps ---------------------------------------------------------------


@app.command("stuck")
def stuck_command(
    grace: Annotated[
        str,
        typer.Option("--grace", metavar="DURATION", help="How long overdue counts as stuck: 60s."),
    ] = "60s",
    store: StoreOption = None,
    as_json: JsonOption = False,
) -> None:
    """Everything not finished, who should move it, its timeout, and whether it is stuck."""
    from cerebri.execution import stuck  # noqa: PLC0415 - fast CLI start

    with _errors(as_json):
        seconds = parse_duration(grace, option="--grace")
        rows = stuck(_executor(store), grace_seconds=int(seconds))
    if as_json:
        _emit(list(rows))
        return
    table = _table("stuck", "kind", "id", "step", "status", "owner", "timeout", "reason")
    for r in rows:
        table.add_row(
            "STUCK" if r["stuck"] else "",
            _text(r["kind"]),
            _text(r["id"]),
            _text(r["step_key"]),
            _text(r["status"]),
            _text(r["owner"]),
            _second(r["timeout"]),
            _text(r["reason"]),
        )
    _print(table)


def _set_sandbox(
    name: str, enabled: bool, reason: str | None, store: str | None, as_json: bool
) -> None:
    from cerebri.execution import set_sandbox  # noqa: PLC0415 - fast CLI start

    with _errors(as_json):
        done = set_sandbox(_executor(store), name, enabled, reason)
    if as_json:
        _emit(done)
        return
    state = "enabled" if done["enabled"] else "disabled"
    readied = f"; {done['steps_readied']} steps ready again" if done["steps_readied"] else ""
    sys.stdout.write(_text(f"sandbox {done['name']}: {state}{readied}") + "\n")


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

    with _errors(as_json):
        rows = list_sandboxes(_executor(store))
    if as_json:
        _emit(list(rows))
        return
    for r in rows:
        state = "enabled" if r["enabled"] else "disabled"
        sys.stdout.write(_text(f"{r['name']}: {state}") + "\n")


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

    with _errors(as_json):
        done = resolve_step(_executor(store), step_id, happened=happened, by=principal)
    if as_json:
        _emit(done)
        return
    sys.stdout.write(
        _text(f"step {done['key']} ({done['id']}): {done['status']} ({done['status_reason']})")
        + "\n"
    )
