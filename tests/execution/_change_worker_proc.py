"""A real worker process carrying out change plans (issue #23) on CalDAV calendars with iTIP
delivery by SMTP, killed at a chosen point (the kill loop over changes).

Run by path: ``python tests/execution/_change_worker_proc.py --store URL --calendar ID=URL
[--calendar ...] --credentials FILE --outbox DIR --smtp-port PORT --journal FILE
[--clock-offset SECONDS] [--kill-after N] [--lease SECONDS]``; or with ``--zygote`` alone,
which imports everything once and then forks one such worker per line of JSON argv on its
stdin (:func:`zygote`: a worker costs a fork, not seconds of imports, so the loop can kill
many).

It builds an :class:`~cerebri.execution.Executor` on the store with the built-in capability
registry (nothing relaxed: every write asks its approval, the messages act on the write's,
decision 0056), the wall clock shifted by ``--clock-offset`` seconds (each restart is one
lease further on, so it takes over at once) and random ids, and runs
:func:`~cerebri.execution.run_worker` until idle. Adapters: the calendar capabilities over
one :class:`CalDavCalendar` (each ``--calendar`` id with its collection URL, logins from the
credentials file, decision 0037) and ``message.itip.send``/``get`` over an
:class:`ItipDelivery` that reads events back through it, writes ``--outbox`` and sends to
the SMTP server on ``127.0.0.1:--smtp-port``.

Every effect (a calendar write, a send) is journaled before its adapter acts (``pid``
included), reads are not. ``--kill-after N`` SIGKILLs the process at its N-th kill point
(:class:`~tests.execution._caldav_worker_proc.Killer`): the runner boundaries of every step,
``during`` right after an effect's adapter returned (before the runner sees the result), and
``smtp_accepted`` right after the SMTP server accepted a message and before the outbox
record says ``sent`` (the record stays ``sending``: the uncertain send of decision 0052).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import traceback
from pathlib import Path
from typing import Any, Final

if __package__ in (None, ""):  # run by path: make ``tests`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from cerebri._json import JSONValue
from cerebri.clock import UuidIds
from cerebri.execution import Executor
from cerebri.execution.adapters import Adapters, CalDavCalendar, Invocation
from cerebri.execution.adapters import itip_delivery as itip_module
from cerebri.execution.adapters.fakes import RecordingAdapter
from cerebri.execution.adapters.ics_file import CALENDAR_CAPABILITIES
from cerebri.execution.adapters.itip_delivery import ITIP_CAPABILITIES, ItipDelivery, SmtpSettings
from cerebri.execution.store import open_engine, parse_store_url
from cerebri.integrations.credentials import CalDAVLogins
from tests.execution._caldav_worker_proc import (
    Killer,
    ShiftedClock,
    add_kill_options,
    run_until_idle,
)

SENDER: Final = "cerebri@kill.test"
"""The SMTP envelope sender (``MAIL FROM``) of every message."""
READS: Final = frozenset({"calendar.event.get", "calendar.freebusy", "message.itip.get"})


class Journaled:
    """Journals each effect before ``inner`` acts, then passes kill point ``during`` after
    it returned; reads go straight through."""

    def __init__(self, inner: Any, journal: Path, killer: Killer) -> None:
        self.inner = inner
        self.recorder = RecordingAdapter(journal)
        self.killer = killer

    def invoke(self, invocation: Invocation) -> dict[str, JSONValue]:
        if invocation.capability in READS:
            result: dict[str, JSONValue] = self.inner.invoke(invocation)
            return result
        self.recorder.invoke(invocation)
        result = self.inner.invoke(invocation)
        self.killer.point("during", invocation.origin)
        return result


def _kill_after_smtp(killer: Killer) -> None:
    """Make the iTIP sender pass kill point ``smtp_accepted`` once the server accepted a
    message, before the outbox record is updated (the sender's own ``send_email``)."""
    send_email = itip_module.send_email

    def sending(*args: Any, **kwargs: Any) -> Any:
        receipt = send_email(*args, **kwargs)
        killer.point("smtp_accepted", str(kwargs.get("recipient")))
        return receipt

    itip_module.send_email = sending  # type: ignore[assignment]


def build(
    store_url: str,
    calendars: dict[str, str],
    *,
    credentials: Path,
    outbox: Path,
    smtp_port: int,
    journal: Path,
    offset_seconds: float,
    killer: Killer,
) -> Executor:
    """The executor this process runs (also the test's own, for submitting and settling)."""
    clock = ShiftedClock(offset_seconds)
    logins = CalDAVLogins.load(
        credentials_file=credentials, username=None, password=None, environ={}, home=None
    )
    calendar = CalDavCalendar(calendars, clock, logins=logins, timeout_seconds=20)
    delivery = ItipDelivery(
        clock,
        outbox=outbox,
        read_resource=calendar.read_resource,
        smtp=SmtpSettings("127.0.0.1", smtp_port, sender=SENDER, timeout_seconds=20),
    )
    adapters = Adapters()
    for name in CALENDAR_CAPABILITIES:
        adapters = adapters.with_adapter(name, Journaled(calendar, journal, killer))
    for name in ITIP_CAPABILITIES:
        adapters = adapters.with_adapter(name, Journaled(delivery, journal, killer))
    engine = open_engine(parse_store_url(store_url))
    return Executor(engine, clock, UuidIds(), adapters=adapters)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="_change_worker_proc")
    parser.add_argument("--store", required=True)
    parser.add_argument("--calendar", action="append", required=True, metavar="ID=URL")
    parser.add_argument("--credentials", type=Path, required=True)
    parser.add_argument("--outbox", type=Path, required=True)
    parser.add_argument("--smtp-port", type=int, required=True)
    add_kill_options(parser)
    args = parser.parse_args(argv)
    killer = Killer(args.kill_after)
    _kill_after_smtp(killer)
    calendars = dict(item.split("=", 1) for item in args.calendar)
    executor = build(
        args.store,
        calendars,
        credentials=args.credentials,
        outbox=args.outbox,
        smtp_port=args.smtp_port,
        journal=args.journal,
        offset_seconds=args.clock_offset,
        killer=killer,
    )
    code = run_until_idle(executor, args, killer)
    print(f"pid {os.getpid()} done", flush=True)
    return code


def zygote() -> int:
    """Import once, then fork one worker per line of JSON argv read from stdin; after each
    child ends (or is killed), print ``exit <pid> <returncode>`` (``-9`` for SIGKILL). The
    children are real processes killed for real; only the imports are shared."""
    for line in sys.stdin:
        argv = json.loads(line)
        sys.stdout.flush()
        pid = os.fork()
        if pid == 0:  # the child: a worker process of its own, never back in this loop
            code = 2
            try:
                code = main(argv)
            except Exception:
                traceback.print_exc()
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(code)
        _, status = os.waitpid(pid, 0)
        print(f"exit {pid} {os.waitstatus_to_exitcode(status)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(zygote() if sys.argv[1:] == ["--zygote"] else main())
