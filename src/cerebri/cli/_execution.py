"""``cerebri submit`` and ``cerebri worker``: put a plan in the store, and carry plans out
(issue #12). Thin shells over :func:`cerebri.execution.submit` and
:func:`cerebri.execution.run_worker`; the other execution commands are in
:mod:`cerebri.cli._operations`. Options and errors: :mod:`cerebri.cli._execution_common`.
"""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Annotated, Any, Final

import typer
from rich.console import Console

from cerebri._json import JSONValue, compact
from cerebri.cli._app import EXIT_INPUT, app, printable, read_input
from cerebri.cli._caldav_logins import CredentialsOption, caldav_logins
from cerebri.cli._calendars import PasswordOption, UserOption
from cerebri.cli._durations import DURATION_FORMS, parse_duration
from cerebri.cli._execution_common import (
    JsonOption,
    emit,
    errors_to_exit,
    open_executor,
    print_problems,
    safe_text,
    typed_error,
)
from cerebri.cli._io import error_line
from cerebri.cli._itip_options import (
    NoServerSchedulesOption,
    OutboxOption,
    ServerSchedulesOption,
    SmtpFromOption,
    SmtpOption,
    SmtpStartTlsOption,
    SmtpUserOption,
    server_schedules_value,
)
from cerebri.cli._store import StoreOption
from cerebri.errors import CerebriError

if TYPE_CHECKING:
    from cerebri.execution import Claim, Executor, Submitted, WorkerReport
    from cerebri.execution.idleness import OutOfReach
    from cerebri.execution.outages import OutageEvent, OutageGuard

UNTIL_IDLE_LOOK_SECONDS = 0.5
"""With ``--until-idle``: seconds between the main thread's looks for an idle store, so a long
``--poll`` does not delay the exit."""

__all__ = [
    "EXIT_INVALID_DRAFT",
    "EXIT_WORKER_ERROR",
    "EXIT_WORKER_OUT_OF_REACH",
    "MAX_CONCURRENCY",
    "STORE_OUTAGE_LIMIT",
    "submit_command",
    "worker_command",
]

EXIT_INVALID_DRAFT: Final = 1
"""Exit status of ``submit`` and ``preview`` when the draft breaks a plan graph rule (it is
stored, or previewed, as a ``draft`` that never runs), as ``plan-graph validate``."""

MAX_CONCURRENCY: Final = 64
"""Most threads (steps run at once) one ``cerebri worker`` process runs; to go further, run
more worker processes on the same store."""

STORE_OUTAGE_LIMIT: Final = "60s"
"""Default of ``worker --store-outage-limit``: the library's
:data:`~cerebri.execution.outages.DEFAULT_OUTAGE_LIMIT_SECONDS` (written out here so the
CLI starts without importing the store)."""

EXIT_WORKER_ERROR: Final = EXIT_INPUT
"""Exit status of ``worker`` after any error: the store out of service past
``--store-outage-limit`` (``store.unavailable``, ``store.full``), an unexpected error that
stopped it, or steps that hit unexpected errors (``execution.step_errors``, after the
report). One ``error <code>: <message>`` line on stderr; never 0 after an error. A plan that
failed is not an error of the worker (decision 0047)."""

EXIT_WORKER_OUT_OF_REACH: Final = 3
"""Exit status of ``worker --until-idle`` when it stopped with steps left that it cannot
carry out: ``ready`` steps it passed on (no adapter for the capability, a calendar it was
not given: ``calendar.unknown_calendar``), which it would otherwise wait for for ever. One
line per step names it and why, then one ``error execution.out_of_reach`` line on stderr
(decision 0066)."""


# -- submit --------------------------------------------------------------------------------


@app.command("submit")
def submit_command(  # noqa: PLR0917 - typer maps every option to a parameter
    plan: Annotated[
        str | None,
        typer.Argument(
            metavar="PLAN",
            help="A plan draft (JSON file, or - for stdin). Without it, --goal KEY reuses the "
            "draft remembered for KEY.",
        ),
    ] = None,
    alternatives: Annotated[
        list[str] | None,
        typer.Option(
            "--alternative",
            metavar="PATH",
            help="A draft of another strategy, tried when the plan fails (repeatable; not "
            "with an envelope).",
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
        typer.Option(
            "--max-replans", metavar="INTEGER", help="New revisions allowed after failures."
        ),
    ] = None,
    artifact: Annotated[
        Path | None,
        typer.Option(
            "--artifact",
            metavar="PATH",
            readable=False,
            help="For an envelope: its artifact's bytes (a file).",
        ),
    ] = None,
    objects: Annotated[
        Path | None,
        typer.Option(
            "--objects",
            metavar="DIR",
            readable=False,
            help="For an envelope: the object store holding its artifact (as `propose`).",
        ),
    ] = None,
    store: StoreOption = None,
    as_json: JsonOption = False,
) -> None:
    """Validate a plan draft and store it; workers run it. An invalid draft is stored as a
    draft with its problems (listed) and never runs.

    A signed envelope (`cerebri propose`) is verified first (keys registered with
    `cerebri principals key`, artifact digest, validity, replay); a refused one stores
    nothing. The same envelope again answers with the plan it made the first time.

    Exit 0 when the plan is stored valid, 1 when the draft breaks a rule (stored, never
    runs), 2 when the input is not a draft or the store refuses (one `error` line on
    stderr)."""
    from cerebri.execution import (  # noqa: PLC0415 - fast CLI start
        DEFAULT_REQUESTER,
        ExecutionError,
        recall,
        submit,
    )
    from cerebri.execution.take_in import is_envelope  # noqa: PLC0415
    from cerebri.plans import DEFAULT_MAX_REPLANS  # noqa: PLC0415

    with errors_to_exit(as_json):
        executor = open_executor(store)
        if plan is not None:
            source: Any = read_input(plan)
            if is_envelope(source):
                _refuse_draft_options(alternatives=alternatives, goal=goal, sandbox=sandbox)
                done = _submit_envelope(
                    executor,
                    source,
                    artifact=artifact,
                    objects=objects,
                    principal=principal,
                    max_replans=max_replans,
                )
                _report(done, as_json)
                return
            _refuse_envelope_options(artifact=artifact, objects=objects)
        elif goal is not None:
            _refuse_envelope_options(artifact=artifact, objects=objects)
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
    _report(done, as_json)


def _report(done: Submitted, as_json: bool) -> None:
    from cerebri.plans import PlanStatus  # noqa: PLC0415 - fast CLI start

    if as_json:
        emit(done.to_wire())
    else:
        sys.stdout.write(
            f"plan {done.plan_id} (revision {done.revision}): {done.status.value}"
            f"{' (invalid: never runs)' if done.status is PlanStatus.DRAFT else ''}\n"
            f"intention: {done.intention_id}\n"
        )
        if done.envelope_digest is not None:
            again = " (this envelope was taken in before: nothing new stored)"
            sys.stdout.write(
                f"proposed by {done.author}, envelope {done.envelope_digest}"
                f"{again if done.replayed else ''}\n"
            )
        print_problems(done.validation.get("problems"))
    if done.status is PlanStatus.DRAFT:
        raise typer.Exit(EXIT_INVALID_DRAFT)


def _refuse_draft_options(
    *, alternatives: list[str] | None, goal: str | None, sandbox: str | None
) -> None:
    """``input.invalid_option`` for an option that only shapes a plain draft, given with an
    envelope: the signed envelope fixes what is proposed, so an alternative strategy, a goal
    to remember it under or a sandbox would be silently ignored (docs/decisions/0039). The
    first one given, in the order ``--alternative``, ``--goal``, ``--sandbox``, is named."""
    from cerebri.errors import CerebriError  # noqa: PLC0415 - fast CLI start

    given = [
        name
        for name, value in (
            ("--alternative", alternatives or None),
            ("--goal", goal),
            ("--sandbox", sandbox),
        )
        if value is not None
    ]
    if given:
        raise CerebriError(
            f"{given[0]} does not apply to a signed envelope: the envelope fixes what is "
            "proposed (only --as, --max-replans and --artifact/--objects go with it); submit "
            "a plan draft to use it",
            code="input.invalid_option",
        )


def _refuse_envelope_options(*, artifact: Path | None, objects: Path | None) -> None:
    """``input.invalid_option`` for ``--artifact``/``--objects`` with a plain draft: they
    only bring a signed envelope's artifact, and a draft has none."""
    from cerebri.errors import CerebriError  # noqa: PLC0415 - fast CLI start

    name = "--artifact" if artifact is not None else "--objects" if objects is not None else None
    if name is not None:
        raise CerebriError(
            f"{name} goes with a signed envelope (its artifact); this input is a plan draft",
            code="input.invalid_option",
        )


def _submit_envelope(
    executor: Executor,
    source: bytes,
    *,
    artifact: Path | None,
    objects: Path | None,
    principal: str | None,
    max_replans: int | None,
) -> Submitted:
    from cerebri.execution.take_in import take_in_envelope  # noqa: PLC0415 - fast CLI start
    from cerebri.plans import DEFAULT_MAX_REPLANS  # noqa: PLC0415

    return take_in_envelope(
        executor,
        source,
        artifact=None if artifact is None else partial(read_input, str(artifact)),
        objects=objects,
        submitted_by=principal,
        max_replans=DEFAULT_MAX_REPLANS if max_replans is None else max_replans,
    )


# -- worker --------------------------------------------------------------------------------


def calendars_option_value(pairs: list[str] | None) -> dict[str, Path]:
    """``--ics-calendar ID=PATH`` values as a mapping from calendar id to file.

    Refused up front with ``execution.invalid_argument`` (rather than by every step later):
    a value that is not ``ID=PATH``, an ID given twice, a PATH whose folder does not exist
    or is not a folder, and a PATH that exists but is not a regular file. The file itself
    may be missing: the first event created writes it."""
    from cerebri.execution import ExecutionError  # noqa: PLC0415

    found: dict[str, Path] = {}
    for pair in pairs or ():
        name, sep, text = pair.partition("=")
        if not sep or not name or not text:
            raise ExecutionError(
                f"--ics-calendar takes ID=PATH, not {pair!r}", code="execution.invalid_argument"
            )
        if name in found:
            raise ExecutionError(
                f"--ics-calendar names calendar {name!r} twice ({found[name]} and {text})",
                code="execution.invalid_argument",
            )
        path = Path(text)
        folder = path.parent
        problem = None
        if not folder.exists():
            problem = f"its folder {folder} does not exist"
        elif not folder.is_dir():
            problem = f"{folder} is not a folder"
        elif path.exists() and not path.is_file():
            problem = "it is not a regular file"
        if problem is not None:
            raise ExecutionError(
                f"--ics-calendar {name}={text}: {problem}", code="execution.invalid_argument"
            )
        found[name] = path
    return found


def caldav_calendars_option_value(
    pairs: list[str] | None, ics_pairs: list[str] | None = None
) -> dict[str, str]:
    """``--caldav-calendar ID=URL`` values as a mapping from calendar id to collection URL.

    Refused up front with ``execution.invalid_argument``: a value that is not ``ID=URL``, a
    URL that is not ``http(s)://``, an ID given twice or also given to ``--ics-calendar``
    (``ics_pairs``). The server is not asked here: the first step that uses the calendar
    reports what it says (``calendar.unknown_calendar``, ``adapter.unavailable``...)."""
    from cerebri.execution import ExecutionError  # noqa: PLC0415

    ics_ids = {pair.partition("=")[0] for pair in ics_pairs or ()}
    found: dict[str, str] = {}
    for pair in pairs or ():
        name, sep, url = pair.partition("=")
        problem = None
        if not sep or not name or not url:
            problem = "it is not ID=URL"
        elif not url.startswith(("http://", "https://")):
            problem = "the URL is not http:// or https://"
        elif name in found:
            problem = f"calendar {name!r} is named twice"
        elif name in ics_ids:
            problem = f"calendar {name!r} is also given to --ics-calendar"
        if problem is not None:
            # never echo a password written into the URL (user:password@host)
            shown = safe_text(f"{name}={url.partition('//')[0]}//{url.rpartition('@')[2]}")
            shown = shown if "//" in url else safe_text(pair)
            raise ExecutionError(
                f"--caldav-calendar {shown}: {problem}", code="execution.invalid_argument"
            )
        found[name] = url
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


def _say_outage(as_json: bool) -> Callable[[OutageEvent], None]:
    """One line on stderr when a store outage starts and when it ends (``--json``: the
    event as a JSON object)."""

    def say(event: OutageEvent) -> None:
        line = compact(event.to_wire()) if as_json else printable(event.to_text())
        sys.stderr.write(line + "\n")
        sys.stderr.flush()

    return say


def _unexpected(error: BaseException) -> CerebriError:
    """An error that stopped the worker, typed: a store outage as ``store.*``, anything
    else (a bug) as ``execution.internal_error`` naming its type."""
    from cerebri.execution import ExecutionError  # noqa: PLC0415 - fast CLI start

    typed = typed_error(error)
    if typed is not None:
        return typed
    return ExecutionError(
        f"the worker stopped on an unexpected error: {type(error).__name__}: {error}",
        code="execution.internal_error",
    )


def _outage_limit(text: str) -> float:
    """``--store-outage-limit`` in seconds: more than 0, at most one day
    (:data:`~cerebri.execution.outages.MAX_OUTAGE_LIMIT_SECONDS`), else
    ``input.invalid_option`` as every duration option (decision 0039)."""
    from cerebri.execution.outages import MAX_OUTAGE_LIMIT_SECONDS  # noqa: PLC0415

    return float(
        parse_duration(
            text,
            option="--store-outage-limit",
            above_minimum=True,
            maximum=MAX_OUTAGE_LIMIT_SECONDS,
        )
    )


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


@app.command("worker", short_help="Claim and run steps until stopped, then report what was done.")
def worker_command(  # noqa: PLR0917 - typer maps every option to a parameter
    concurrency: Annotated[
        int,
        typer.Option(
            "--concurrency",
            metavar="INTEGER",
            help=f"Steps run at once, each in a thread of this process: 1 to {MAX_CONCURRENCY}. "
            "To run more, start more workers on the same store.",
        ),
    ] = 1,
    lease: Annotated[
        str,
        typer.Option(
            "--lease",
            metavar="DURATION",
            help=f"Lease of a claim ({DURATION_FORMS}): 1s to 1d.",
        ),
    ] = "30s",
    until_idle: Annotated[
        bool,
        typer.Option(
            "--until-idle",
            help="Stop once no step is ready, waiting or executing that this worker can "
            "carry out (steps waiting for a person do not keep it running; a wait, a "
            "verification or a retry's backoff does). Steps it passed on (a calendar or "
            "capability it does not serve) end it with one line each and exit 3 "
            "(error execution.out_of_reach).",
        ),
    ] = False,
    poll: Annotated[
        str,
        typer.Option(
            "--poll",
            metavar="DURATION",
            help=f"Idle wait between looks ({DURATION_FORMS}): more than 0, at most 1m.",
        ),
    ] = "0.5s",
    outage_limit: Annotated[
        str,
        typer.Option(
            "--store-outage-limit",
            metavar="DURATION",
            help="How long to wait for a store that went away (reconnecting with backoff) "
            f"before exiting 2 with error store.unavailable or store.full ({DURATION_FORMS}): "
            "more than 0, at most 1 day. Default 60s.",
        ),
    ] = STORE_OUTAGE_LIMIT,
    ics_calendars: Annotated[
        list[str] | None,
        typer.Option(
            "--ics-calendar",
            metavar="ID=PATH",
            help="Carry out the calendar capabilities for calendar ID on this .ics file "
            "(repeatable).",
        ),
    ] = None,
    caldav_calendars: Annotated[
        list[str] | None,
        typer.Option(
            "--caldav-calendar",
            metavar="ID=URL",
            help="Carry out the calendar capabilities for calendar ID on this CalDAV "
            "collection (repeatable; each URL's login as for find-slot: "
            "--caldav-credentials, netrc, then --caldav-user/--caldav-password).",
        ),
    ] = None,
    caldav_user: UserOption = None,
    caldav_password: PasswordOption = None,
    caldav_credentials: CredentialsOption = None,
    outbox: OutboxOption = None,
    smtp: SmtpOption = None,
    smtp_starttls: SmtpStartTlsOption = False,
    smtp_from: SmtpFromOption = None,
    smtp_user: SmtpUserOption = None,
    server_schedules: ServerSchedulesOption = False,
    no_server_schedules: NoServerSchedulesOption = False,
    store: StoreOption = None,
    as_json: JsonOption = False,
) -> None:
    """Claim and run steps until stopped (SIGTERM or Ctrl-C: steps in flight finish first),
    then print what this worker did.

    A store that goes away (server restart, full disk) is waited for: one line on stderr
    when the outage starts and one when the store is back; past --store-outage-limit the
    worker exits 2 with one `error store.*` line. It exits 0 only when nothing went wrong;
    steps that hit unexpected errors make it exit 2 (`error execution.step_errors`) after
    the report. With --until-idle, each plan that failed while it ran gets one line
    `plan ID failed: REASON` after the report (a plan's failure does not change the exit
    status)."""
    from cerebri.cli._itip_worker import itip_adapters, smtp_settings  # noqa: PLC0415
    from cerebri.clock import SystemClock  # noqa: PLC0415 - fast CLI start
    from cerebri.execution import (  # noqa: PLC0415
        ExecutionError,
        WorkerReport,
        run_worker,
    )
    from cerebri.execution.adapters import default_adapters  # noqa: PLC0415
    from cerebri.execution.outages import OutageGuard  # noqa: PLC0415

    with errors_to_exit(as_json):
        lease_seconds = float(parse_duration(lease, option="--lease", minimum=1, maximum=86_400))
        poll_seconds = float(parse_duration(poll, option="--poll", above_minimum=True, maximum=60))
        if not 1 <= concurrency <= MAX_CONCURRENCY:
            raise ExecutionError(
                f"--concurrency is 1 to {MAX_CONCURRENCY} threads per worker process, not "
                f"{concurrency} (start more workers on the same store to run more)",
                code="execution.invalid_argument",
            )
        clock = SystemClock()
        dav_calendars = caldav_calendars_option_value(caldav_calendars, ics_calendars)
        delivery = server_schedules_value(server_schedules, no_server_schedules)
        adapters = default_adapters(
            clock,
            ics_calendars=calendars_option_value(ics_calendars),
            caldav_calendars=dav_calendars,
            caldav_logins=caldav_logins(
                caldav_credentials,
                caldav_user,
                caldav_password,
                list(dav_calendars.values()),
                url_options="--caldav-calendar",
            ),
            client_schedules=delivery is False,
        )
        adapters = itip_adapters(
            adapters,
            clock,
            outbox=outbox,
            smtp=smtp_settings(smtp, starttls=smtp_starttls, sender=smtp_from, user=smtp_user),
            server_schedules=delivery,
        )
        limit_seconds = _outage_limit(outage_limit)
        executor = open_executor(store, clock=clock, adapters=adapters)
        failed_before = _failed_plans(executor) if until_idle else {}
        stop = threading.Event()
        outages = OutageGuard(
            executor.now_ns, limit_seconds=limit_seconds, stop=stop, on_event=_say_outage(as_json)
        )
        outcome: dict[str, WorkerReport | Exception] = {}

        watch = _IdleWatch(executor, outages)

        def work() -> None:
            try:
                outcome["report"] = run_worker(
                    executor,
                    concurrency=concurrency,
                    lease_seconds=lease_seconds,
                    poll_seconds=poll_seconds,
                    stop=stop,
                    on_claim=watch.on_claim,
                    outages=outages,
                )
            except Exception as error:  # re-raised below, in the main thread
                outcome["error"] = error

        with _stopped_by_signals(stop):
            runner = threading.Thread(target=work, name="cerebri-worker-main")
            runner.start()
            try:
                while runner.is_alive():  # looks for idleness at least every 0.5 s
                    runner.join(min(poll_seconds, UNTIL_IDLE_LOOK_SECONDS))
                    if until_idle and not stop.is_set() and watch.idle():
                        stop.set()
            except BaseException as error:  # a bug, or Ctrl-C twice: let steps in flight end
                stop.set()
                runner.join()
                if isinstance(error, Exception):
                    raise _unexpected(error) from None
                raise
        failed = outcome.get("error")
        if isinstance(failed, Exception):
            raise _unexpected(failed) from None
    report = outcome["report"]
    assert isinstance(report, WorkerReport)
    _conclude(report, executor, failed_before if until_idle else None, as_json, watch.beyond)


class _IdleWatch:
    """``--until-idle``: whether the worker has nothing left that it can do (decision 0066),
    and the steps it passed on (``beyond``) when so. The worker's id comes from its first
    claim: a worker that claimed nothing passed nothing on."""

    def __init__(self, executor: Executor, outages: OutageGuard) -> None:
        self.executor = executor
        self.outages = outages
        self.progress = _progress()
        self.worker_id: str | None = None
        self.beyond: list[OutOfReach] = []

    def on_claim(self, held: Claim) -> None:
        self.worker_id = held.worker_id
        if self.progress is not None:
            self.progress(held)

    def idle(self) -> bool:
        """No step left that this worker may act on, and no store outage (an outage is
        never idleness, decision 0035)."""
        from cerebri.execution.idleness import idleness  # noqa: PLC0415

        look = partial(idleness, self.executor, self.worker_id)
        found = self.outages.attempt(look, wrote=_no, default=None)
        if found is None or found.reachable or self.outages.ongoing:
            return False
        self.beyond = list(found.out_of_reach)
        return True


def _conclude(
    report: WorkerReport,
    executor: Executor,
    failed_before: dict[str, str] | None,
    as_json: bool,
    beyond: list[OutOfReach],
) -> None:
    """Print the report, then (``failed_before``: the failed plans when an ``--until-idle``
    worker started; text output) one line per plan that failed while it ran; exit 2 after
    unexpected errors; exit 3 (:data:`EXIT_WORKER_OUT_OF_REACH`) when the worker stopped
    with ``beyond``: steps it passed on, that only another worker can carry out."""
    from cerebri.execution import ExecutionError  # noqa: PLC0415

    _print_report(report, as_json, beyond)
    if failed_before is not None and not as_json:
        _print_failed_plans(executor, failed_before)
    if report.errors:
        with errors_to_exit(as_json):
            raise ExecutionError(
                f"{report.errors} unexpected errors while running steps (each step is left "
                f"to its lease's expiry and a takeover); last: {report.last_error}",
                code="execution.step_errors",
            )
    if beyond:
        if not as_json:
            for step in beyond:
                sys.stdout.write(safe_text(step.to_text()) + "\n")
        error = ExecutionError(
            f"{len(beyond)} steps are out of this worker's reach (passed on for a worker "
            "that serves their capability or calendar); first: "
            f"{beyond[0].step_key} of plan {beyond[0].plan_id}: {beyond[0].code}",
            code="execution.out_of_reach",
        )
        line = compact(dict(error.to_wire())) + "\n" if as_json else error_line(error)
        sys.stderr.write(line)
        raise typer.Exit(EXIT_WORKER_OUT_OF_REACH)


def _failed_plans(executor: Executor) -> dict[str, str]:
    """The ``failed`` plans in the store: id to status reason."""
    from cerebri.execution import list_plans  # noqa: PLC0415

    return {
        str(plan["id"]): str(plan["status_reason"] or "")
        for plan in list_plans(executor, status="failed")
    }


def _print_failed_plans(executor: Executor, before: dict[str, str]) -> None:
    """``worker --until-idle``: the plans that failed while it ran (no strategy left, a
    budget spent, a step's error), one line each, so that ``0 errors`` (the worker's own)
    is never all a user sees of a failed plan (decision 0047). The exit status stays 0: a
    plan's failure is the world's answer, not the worker's."""
    failed = {k: v for k, v in _failed_plans(executor).items() if k not in before}
    for plan_id, reason in failed.items():
        sys.stdout.write(safe_text(f"plan {plan_id} failed: {reason}") + "\n")
    if failed:
        sys.stdout.write(
            f"{len(failed)} plans failed while this worker ran (cerebri plans show ID)\n"
        )


def _print_report(report: WorkerReport, as_json: bool, beyond: list[OutOfReach]) -> None:
    wire: dict[str, JSONValue] = {**report.to_wire(), "last_error": report.last_error}
    if beyond:
        wire["out_of_reach"] = [step.to_wire() for step in beyond]
    if as_json:
        emit(wire)
        return
    outages = f", {report.outages} store outages ridden out" if report.outages else ""
    passed = f" ({report.pass_ons} passed on)" if report.pass_ons else ""
    sys.stdout.write(
        f"worker {report.worker_id}: {report.claims} claims{passed}, {report.takeovers} "
        "takeovers, "
        f"{report.leases_lost} leases lost, {report.timers_fired} timers fired, "
        f"{report.errors} errors{outages}\n"
    )
    if report.last_error:
        sys.stdout.write(safe_text(f"last error: {report.last_error}") + "\n")


def _no(_result: object) -> bool:
    return False
