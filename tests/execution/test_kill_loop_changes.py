"""The kill loop over changes (issue #23): worker processes carrying out approved reschedules,
cancels and an update of events on a real Radicale, telling every attendee by iTIP over a
real SMTP server, are SIGKILLed at seeded points and restarted until every plan settles.
No event moves twice, no message is sent twice, nothing changes without an approval.

The world: alice organizes six events in her calendar, bob and carol attend each; bob's and
carol's calendars hold what keeps the rescheduled events from staying where they are. Six
change plans are made the way ``cerebri reschedule``/``cancel-event``/``update-event`` and
``plan-graph from-request`` make them (:func:`plan_event_change`, the planner's best
candidate, :func:`draft_from_action_plan`): reschedule one instance of a weekly series,
reschedule a single event, cancel one instance of another series, cancel a whole event,
update an event's title, place and length, and cancel one more event, whose plan is never
approved.

The loop: a worker process (:mod:`tests.execution._change_worker_proc`) dies at its N-th
kill point, N drawn from a seeded generator (``CEREBRI_KILL_LOOP_SEED`` replays a run; the
seed is printed); between runs the approver approves each approved plan's change once (bob,
never the requester alice), and the operator settles every send blocked for verification
the way decision 0052 says one may: the outbox record's ``sent`` is proof (and an unsure
operator, at random, runs it again anyway: it must be answered from the record, not sent),
``sending`` is settled by the mail server's log (the Message-ID there or not), no record is
"did not happen". Each restart's clock is one lease further on, so it takes over at once.

Read independently: the calendars with the ``caldav`` library (:class:`DavReader`) and
``recurring-ical-events``; the messages as the SMTP server received them (envelope,
Message-ID, the ``text/calendar`` part parsed with ``icalendar``); the outbox folder's files;
the store's rows and the workers' journal (written before each effect).
"""

from __future__ import annotations

import json
import os
import queue
import random
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

import icalendar
import pytest
from sqlalchemy import select

from cerebri import parse_request
from cerebri.calendars import FIND_SLOT_LIMITS
from cerebri.calendars.change_request import ChangeOperation
from cerebri.calendars.changes import ChangeScope
from cerebri.calendars.event_change import EventChangeAsk, plan_event_change
from cerebri.calendars.slot_search import SlotSearch
from cerebri.calendars.sources import load_sources, source_ids
from cerebri.execution import Executor, decide, list_approvals, resolve_step, submit
from cerebri.execution.adapters import Invocation
from cerebri.execution.adapters.fakes import journal_entries
from cerebri.execution.adapters.itip_delivery import ItipDelivery
from cerebri.execution.store import init, open_engine, parse_store_url
from cerebri.execution.store.schema import approvals, attempt_history, plans, steps
from cerebri.integrations.caldav_reader import caldav_reader
from cerebri.integrations.credentials import CalDAVLogins
from cerebri.planner import action_plan_for
from cerebri.plans import PlanDraft, PlanStatus, StepStatus, change_inputs, draft_from_action_plan
from cerebri.proposals.artifacts import target_zones
from cerebri.temporal import Instant
from tests._dav_reader import DavReader, StoredEvent
from tests._dav_servers import CalDavServer, on_radicale
from tests._radicale import RadicaleServer
from tests._smtp import ReceivedMail, SmtpRecorder
from tests.execution import _change_worker_proc as proc
from tests.execution._caldav_worker_proc import Killer

pytestmark = pytest.mark.processes

LEASE_SECONDS: Final = 10
MAX_RUNS: Final = 25
KILL_AFTER: Final = (2, 24)
"""The range of each run's kill point (the plans pass about 250 in all)."""
MAX_KILLS: Final = 40
"""Runs after this many kills are not killed: the loop ends in bounded time."""
DEFAULT_SEED: Final = 20261203
SEED_ENV: Final = "CEREBRI_KILL_LOOP_SEED"
SCRIPT: Final = Path(proc.__file__)
WORKER_TIMEOUT_SECONDS: Final = 120
REQUESTER: Final = "principal:alice"
APPROVER: Final = "principal:bob"
OPERATOR: Final = "principal:operator"
ALICE, BOB, CAROL = (f"mailto:{who}@kill.test" for who in ("alice", "bob", "carol"))
RECIPIENTS: Final = (BOB, CAROL)
"""Who is told of each change: every attendee but the organizer (RFC 5546 2.1)."""


def _vevent(uid: str, start: str, end: str, summary: str, sequence: int, *extra: str) -> str:
    """One VEVENT alice organizes, with alice, bob and carol required (times: iCalendar
    DATE-TIME text with its parameters, e.g. ``;TZID=Europe/Berlin:20310505T100000``)."""
    lines = [
        "BEGIN:VEVENT",
        f"UID:{uid}",
        "DTSTAMP:20310401T000000Z",
        f"DTSTART{start}",
        f"DTEND{end}",
        *extra,
        f"SUMMARY:{summary}",
        f"SEQUENCE:{sequence}",
        f"ORGANIZER;CN=Alice:{ALICE}",
        *(f"ATTENDEE;ROLE=REQ-PARTICIPANT;PARTSTAT=ACCEPTED:{who}" for who in (ALICE, BOB, CAROL)),
        "END:VEVENT",
    ]
    return "\r\n".join(lines)


def _calendar(*events: str) -> str:
    head = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//cerebri tests//kill loop changes//EN"
    return "\r\n".join((head, *events, "END:VCALENDAR")) + "\r\n"


def _busy(uid: str, start: str, end: str) -> str:
    return _calendar(
        f"BEGIN:VEVENT\r\nUID:{uid}\r\nDTSTAMP:20310401T000000Z\r\nDTSTART:{start}\r\n"
        f"DTEND:{end}\r\nSUMMARY:busy\r\nEND:VEVENT"
    )


BERLIN: Final = ";TZID=Europe/Berlin:"
# The week of Monday 2031-05-05 (Berlin is UTC+2 then).
EVENTS: Final = {
    "standup@kill.test": _vevent(
        "standup@kill.test", f"{BERLIN}20310505T100000", f"{BERLIN}20310505T103000",
        "Standup", 2, "RRULE:FREQ=WEEKLY;COUNT=4",
    ),
    "review@kill.test": _vevent(
        "review@kill.test", ":20310506T120000Z", ":20310506T130000Z", "Review", 0
    ),
    "retro@kill.test": _vevent(
        "retro@kill.test", f"{BERLIN}20310507T110000", f"{BERLIN}20310507T120000",
        "Retro", 1, "RRULE:FREQ=WEEKLY;COUNT=4",
    ),
    "offsite@kill.test": _vevent(
        "offsite@kill.test", ":20310508T070000Z", ":20310508T100000Z", "Offsite", 3
    ),
    "planning@kill.test": _vevent(
        "planning@kill.test", ":20310509T110000Z", ":20310509T120000Z", "Planning", 0
    ),
    "budget@kill.test": _vevent(
        "budget@kill.test", ":20310509T130000Z", ":20310509T140000Z", "Budget", 0
    ),
}  # fmt: skip
BUSY: Final = {  # what makes a reschedule necessary, and what it must avoid
    "carol": [
        ("carol-dentist", "20310512T080000Z", "20310512T083000Z"),  # the standup of 12 May
        ("carol-call", "20310506T120000Z", "20310506T130000Z"),  # the review
    ],
    "bob": [("bob-gym", "20310506T130000Z", "20310506T140000Z")],
}


def _at(text: str) -> Instant:
    return Instant.parse(text)


@dataclass(frozen=True)
class Change:
    """One change plan: its name, the ask, whether the approver approves it."""

    name: str
    ask: EventChangeAsk
    approved: bool = True


CHANGES: Final = (
    Change(
        "reschedule-instance",
        EventChangeAsk(
            ChangeOperation.RESCHEDULE, "standup@kill.test", scope=ChangeScope.INSTANCE,
            at=_at("2031-05-12T08:00:00Z"),
            window=(_at("2031-05-12T06:00:00Z"), _at("2031-05-12T16:00:00Z")),
            zone="Europe/Berlin",
        ),
    ),
    Change(
        "reschedule-event",
        EventChangeAsk(
            ChangeOperation.RESCHEDULE, "review@kill.test",
            window=(_at("2031-05-06T06:00:00Z"), _at("2031-05-06T16:00:00Z")),
        ),
    ),
    Change(
        "cancel-instance",
        EventChangeAsk(
            ChangeOperation.CANCEL, "retro@kill.test", scope=ChangeScope.INSTANCE,
            at=_at("2031-05-14T09:00:00Z"), zone="Europe/Berlin",
        ),
    ),
    Change("cancel-event", EventChangeAsk(ChangeOperation.CANCEL, "offsite@kill.test")),
    Change(
        "update",
        EventChangeAsk(
            ChangeOperation.UPDATE, "planning@kill.test", title="Planning (room 4)",
            location="Room 4", duration_seconds=5400,
        ),
    ),
    Change(
        "not-approved", EventChangeAsk(ChangeOperation.CANCEL, "budget@kill.test"), approved=False
    ),
)  # fmt: skip
READ_WINDOW: Final = (_at("2031-05-01T00:00:00Z"), _at("2031-06-15T00:00:00Z"))


@dataclass
class World:
    """The server, the people's calendars, the mail server, the folders."""

    dav: CalDavServer
    urls: dict[str, str]  # person -> calendar URL
    ids: dict[str, str]  # person -> calendar id (as find-slot names the URL)
    credentials: Path
    smtp: SmtpRecorder
    outbox: Path
    journal: Path
    store_url: str

    def reader(self, who: str) -> DavReader:
        return self.dav.reader(who, self.urls[who])

    def executor(self, offset: float) -> Executor:
        """An executor of the test process (submitting, deciding, settling: never killed)."""
        calendars = {self.ids[who]: url for who, url in self.urls.items()}
        return proc.build(
            self.store_url, calendars, credentials=self.credentials, outbox=self.outbox,
            smtp_port=self.smtp.port, journal=self.journal.with_suffix(".here"),
            offset_seconds=offset, killer=Killer(None),
        )  # fmt: skip


@pytest.fixture
def world(radicale: RadicaleServer, smtp_server: SmtpRecorder, tmp_path: Path) -> Iterator[World]:
    dav = on_radicale(radicale)
    people = ("alice", "bob", "carol")
    urls = {who: dav.new_calendar(who, "kill-changes") for who in people}
    ids = dict(zip(people, source_ids([urls[who] for who in people]), strict=True))
    for text in EVENTS.values():
        dav.reader("alice", urls["alice"]).seed(_calendar(text))
    for who, busy in BUSY.items():
        for uid, start, end in busy:
            dav.reader(who, urls[who]).seed(_busy(uid, start, end))
    store_url = f"sqlite:///{tmp_path / 'store.sqlite3'}"
    init(store_url)
    outbox = tmp_path / "outbox"
    yield World(
        dav, urls, ids, dav.write_credentials(tmp_path / "credentials.json"), smtp_server,
        outbox, tmp_path / "journal.jsonl", store_url,
    )  # fmt: skip


def _draft(world: World, change: Change) -> PlanDraft:
    """The plan graph of ``change``, as ``cerebri reschedule ... --emit-request`` then
    ``cerebri plan-graph from-request --limits local`` make it (the best candidate)."""
    logins = CalDAVLogins.load(
        credentials_file=world.credentials, username=None, password=None, environ={}, home=None
    )
    reader = caldav_reader(logins=logins, cache=False)

    def load(paths: Any, urls: Any, ids: Any) -> Any:
        return load_sources(list(paths), list(urls), READ_WINDOW, read_caldav=reader, ids=ids)

    people = [world.urls[who] for who in ("alice", "bob", "carol")]
    found = plan_event_change(change.ask, SlotSearch(caldav=people), load)
    request = parse_request(json.dumps(found.answer.request).encode())
    actions = action_plan_for(request, limits=FIND_SLOT_LIMITS)
    return draft_from_action_plan(
        actions, zones=target_zones(request, actions), **change_inputs(request, actions)
    )


class Zygote:
    """One ``_change_worker_proc --zygote`` process: it imports once and forks each worker;
    its output lines are read by a thread, so every wait has a deadline."""

    def __init__(self, stderr: Path) -> None:
        self._errors = stderr.open("w", encoding="utf-8")
        self.process = subprocess.Popen(
            [sys.executable, str(SCRIPT), "--zygote"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._errors,
            text=True,
        )
        self._lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self._lines.put(line.rstrip("\n"))

    def run(self, argv: list[str]) -> tuple[int, int, list[str]]:
        """Fork one worker with ``argv``: its pid, return code and output lines."""
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(argv) + "\n")
        self.process.stdin.flush()
        lines: list[str] = []
        while True:
            line = self._lines.get(timeout=WORKER_TIMEOUT_SECONDS)
            if line.startswith("exit "):
                _, pid, code = line.split()
                return int(pid), int(code), lines
            lines.append(line)

    def close(self) -> None:
        """End of input: the zygote exits (killed if it does not within the timeout)."""
        assert self.process.stdin is not None
        self.process.stdin.close()
        try:
            self.process.wait(timeout=WORKER_TIMEOUT_SECONDS)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=WORKER_TIMEOUT_SECONDS)
        self._errors.close()


@pytest.fixture
def zygote(world: World) -> Iterator[Zygote]:
    started = Zygote(world.journal.with_suffix(".stderr"))
    try:
        yield started
    finally:
        started.close()


class Loop:
    """The worker runs so far, and what the approver and the operator did between them."""

    def __init__(self, world: World, zygote: Zygote, rng: random.Random) -> None:
        self.world = world
        self.zygote = zygote
        self.rng = rng
        self.offset = 0.0
        self.kills = 0
        self.dead_pids: set[int] = set()
        self.log: list[str] = []
        self.approved: Counter[str] = Counter()  # plan id -> approvals given
        self.resolved: list[tuple[str, str, bool]] = []  # (step id, record state, happened)

    def run(self, kill_after: int | None) -> int:
        """One worker process until idle or killed; its return code."""
        world = self.world
        argv = [
            "--store", world.store_url, "--credentials", str(world.credentials),
            "--outbox", str(world.outbox), "--smtp-port", str(world.smtp.port),
            "--journal", str(world.journal), "--clock-offset", str(self.offset),
            "--lease", str(LEASE_SECONDS),
            *(f"--calendar={world.ids[who]}={url}" for who, url in world.urls.items()),
        ]  # fmt: skip
        if kill_after is not None:
            argv += ["--kill-after", str(kill_after)]
        began = time.monotonic()
        pid, code, lines = self.zygote.run(argv)
        self.offset += LEASE_SECONDS + 1  # the next worker is past every lease this one held
        points = [line for line in lines if line.startswith("point ")]
        self.log.append(
            f"pid {pid} kill_after={kill_after} rc={code} {points[-1:]} "
            f"{time.monotonic() - began:.1f}s"
        )
        if code == -signal.SIGKILL:
            self.kills += 1
            self.dead_pids.add(pid)
        else:
            assert code == 0, (code, lines[-30:])
        return code

    def approve(self, executor: Executor, withheld: set[str]) -> None:
        """The approver: every open request of a plan not ``withheld``, approved."""
        for asked in list_approvals(executor):
            plan_id = str(asked["plan_id"])
            if plan_id in withheld:
                continue
            decide(executor, str(asked["id"]), approve=True, by=APPROVER)
            self.approved[plan_id] += 1

    def settle(self, executor: Executor) -> None:
        """The operator: each step blocked for verification, settled by observation."""
        for row in _step_rows(self.world.store_url):
            reason = row.status_reason or ""
            if row.status != StepStatus.BLOCKED.value or not reason.startswith(
                "needs_verification"
            ):
                continue
            params = json.loads(row.spec)["params"]
            # the calendar writes are idempotent (a retry is a replay): only sends block
            assert json.loads(row.spec)["capability"] == "message.itip.send", row.key
            happened, how = self._observe(executor, params)
            resolve_step(executor, row.id, happened=happened, by=OPERATOR)
            self.resolved.append((row.id, how, happened))

    def _observe(self, executor: Executor, params: dict[str, Any]) -> tuple[bool, str]:
        """Whether the message of a blocked send left (decision 0052), and the record's
        state the operator found."""
        journaled = executor.adapters.get("message.itip.get")
        assert isinstance(journaled, proc.Journaled)
        delivery: ItipDelivery = journaled.inner
        key, recipient = str(params["idempotency_key"]), str(params["recipient"])
        ask = {"idempotency_key": key, "recipient": recipient}
        record = delivery.get(Invocation("message.itip.get", recipient, ask, "op", "op"))
        state = str(record["state"])
        if record["sent"]:  # the server's 250 is recorded: proof; an unsure operator re-runs
            return self.rng.random() < 0.5, state
        if state == "sending":  # only the mail server's log can tell
            accepted = record["message_id"] in {m.message["Message-ID"] for m in self.messages()}
            delivery.settle_send(key, recipient, accepted=accepted, by=OPERATOR)
            return accepted, state
        return False, state  # no record, or written and never handed to the server

    def messages(self) -> tuple[ReceivedMail, ...]:
        return self.world.smtp.messages()


def _step_rows(store_url: str) -> list[Any]:
    engine = open_engine(parse_store_url(store_url))
    try:
        with engine.connect() as connection:
            return list(connection.execute(select(steps)).all())
    finally:
        engine.dispose()


def _plan_statuses(store_url: str) -> dict[str, str]:
    engine = open_engine(parse_store_url(store_url))
    try:
        with engine.connect() as connection:
            rows = connection.execute(select(plans.c.id, plans.c.status)).all()
            return {r.id: r.status for r in rows}
    finally:
        engine.dispose()


def test_killed_workers_change_each_event_once_and_tell_each_attendee_once(
    world: World, zygote: Zygote
) -> None:
    seed = int(os.environ.get(SEED_ENV, DEFAULT_SEED))
    print(f"kill loop seed {seed} ({SEED_ENV} replays it)")
    rng = random.Random(seed)
    before = {
        (e.uid, e.recurrence_id): replace(e, etag=None) for e in world.reader("alice").events()
    }
    etags = {o.events()[0].uid: o.etag for o in world.reader("alice").objects()}
    here = world.executor(0)
    drafts = {c.name: _draft(world, c) for c in CHANGES}
    plan_of = {c.name: submit(here, drafts[c.name], requester=REQUESTER).plan_id for c in CHANGES}
    withheld = {plan_of[c.name] for c in CHANGES if not c.approved}
    loop = Loop(world, zygote, rng)

    for _ in range(MAX_RUNS):
        kill_after = rng.randint(*KILL_AFTER) if loop.kills < MAX_KILLS else None
        code = loop.run(kill_after)
        operator = world.executor(loop.offset)
        loop.approve(operator, withheld)
        loop.settle(operator)
        operator.engine.dispose()
        statuses = _plan_statuses(world.store_url)
        if code == 0 and all(
            statuses[plan_of[c.name]] == PlanStatus.COMPLETED.value for c in CHANGES if c.approved
        ):
            break
    else:
        stuck = [
            (r.key, r.status, r.status_reason, r.error)
            for r in _step_rows(world.store_url)
            if r.status != StepStatus.COMPLETED.value
        ]
        pytest.fail(f"seed {seed}: not settled after {MAX_RUNS} runs: {stuck} {loop.log}")
    # the plan nobody approved: rejected now; a last worker finds nothing left to do
    (asked,) = list_approvals(here)
    assert asked["plan_id"] == plan_of["not-approved"]
    decide(here, str(asked["id"]), approve=False, by=APPROVER, reason="not this week")
    assert loop.run(None) == 0
    print("\n".join(loop.log))
    assert loop.kills >= 5 and loop.resolved, (seed, loop.log)  # the loop did bite

    _assert_store(world, loop, plan_of, seed)
    changed = _assert_calendar(world, drafts, before, etags)
    _assert_messages(world, changed)
    sends = _assert_effects(world, loop, plan_of, seed)
    engine = open_engine(parse_store_url(world.store_url))
    with engine.connect() as connection:
        history = Counter(r.outcome for r in connection.execute(select(attempt_history)).all())
    engine.dispose()
    print(
        f"seed {seed}: {loop.kills} kills in {len(loop.log)} runs; sends settled by the "
        f"operator {Counter((how, happened) for _, how, happened in loop.resolved)}; "
        f"send invocations {sends}; effects begun in killed workers "
        f"{sum(1 for e in journal_entries(world.journal) if e['pid'] in loop.dead_pids)}; "
        f"attempts {dict(history)}"
    )


def _assert_store(world: World, loop: Loop, plan_of: dict[str, str], seed: int) -> None:
    """Every approved plan completed on its one approval; the other failed, unapproved."""
    statuses = _plan_statuses(world.store_url)
    assert len(statuses) == len(CHANGES), (seed, statuses)  # no replan, no new revision
    for change in CHANGES:
        plan_id = plan_of[change.name]
        wanted = PlanStatus.COMPLETED if change.approved else PlanStatus.FAILED
        assert statuses[plan_id] == wanted.value, (seed, change.name, statuses[plan_id])
    engine = open_engine(parse_store_url(world.store_url))
    with engine.connect() as connection:
        rows = connection.execute(select(approvals)).all()
    engine.dispose()
    decided = Counter((r.plan_id, r.status, r.decided_by) for r in rows)
    assert decided == Counter(
        {(plan_of[c.name], "approved" if c.approved else "rejected", APPROVER): 1 for c in CHANGES}
    ), (seed, decided)
    assert all(count == 1 for count in loop.approved.values()), loop.approved


@dataclass(frozen=True)
class Changed:
    """What a change left on alice's calendar, for the messages: UID, method, the
    RECURRENCE-ID the message names (None: the event), the SEQUENCE it carries."""

    uid: str
    method: str
    recurrence_id: datetime | None
    sequence: int


def _utc(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(UTC)


def _assert_calendar(
    world: World,
    drafts: dict[str, PlanDraft],
    before: dict[tuple[str, datetime | None], StoredEvent],
    etags: dict[str, str | None],
) -> dict[str, Changed]:
    """Alice's calendar, read with the caldav library: each event exactly as its change
    left it, SEQUENCE one up on what the change touched and nowhere else."""
    reader = world.reader("alice")
    objects = reader.objects()
    assert not any(o.has_method for o in objects)  # RFC 4791 4.1
    uids = Counter(o.events()[0].uid for o in objects)
    assert uids == Counter({uid: 1 for uid in EVENTS if uid != "offsite@kill.test"}), uids
    after = {(e.uid, e.recurrence_id): replace(e, etag=None) for e in reader.events()}
    key = {c.name: drafts[c.name].steps[0] for c in CHANGES}

    def new_range(name: str) -> tuple[datetime, datetime]:
        params = key[name].params
        return _utc(str(params["start"])), _utc(str(params["end"]))

    # one instance of the standup moved: an override at its original start, SEQUENCE 2 -> 3
    rid = datetime(2031, 5, 12, 8, tzinfo=UTC)
    master = ("standup@kill.test", None)
    assert after[master] == before[master]
    moved = after[("standup@kill.test", rid)]
    assert (moved.start, moved.end, moved.sequence) == (*new_range("reschedule-instance"), 3)
    assert new_range("reschedule-instance")[0] != rid
    # the review moved, 0 -> 1; bob and carol are both free then (read as them)
    review = after[("review@kill.test", None)]
    assert (review.start, review.end, review.sequence) == (*new_range("reschedule-event"), 1)
    for who in ("bob", "carol"):
        for busy in world.reader(who).events():
            assert not (busy.start < review.end and review.start < busy.end)  # type: ignore[operator]
    # one retro cancelled: EXDATE on the master, 1 -> 2, no override
    retro = after[("retro@kill.test", None)]
    assert retro.exdates == (datetime(2031, 5, 14, 9, tzinfo=UTC),)
    assert retro.sequence == before[("retro@kill.test", None)].sequence + 1 == 2
    assert [k for k in after if k[0] == "retro@kill.test"] == [("retro@kill.test", None)]
    # the offsite is gone; the planning updated 0 -> 1; the budget untouched, byte for byte
    planning = after[("planning@kill.test", None)]
    assert (planning.summary, planning.start, planning.end, planning.sequence) == (
        "Planning (room 4)",
        datetime(2031, 5, 9, 11, tzinfo=UTC),
        datetime(2031, 5, 9, 12, 30, tzinfo=UTC),
        1,
    )
    (planned,) = [o for o in objects if o.events()[0].uid == "planning@kill.test"]
    assert str(planned.calendar.walk("VEVENT")[0]["LOCATION"]) == "Room 4"
    budget = [o for o in objects if o.events()[0].uid == "budget@kill.test"]
    assert [o.etag for o in budget] == [etags["budget@kill.test"]]
    assert after[("budget@kill.test", None)] == before[("budget@kill.test", None)]
    # the instances, expanded by recurring-ical-events from what is stored
    window = (datetime(2031, 5, 1, tzinfo=UTC), datetime(2031, 6, 15, tzinfo=UTC))
    instances = Counter(i.uid for i in reader.instances_by_oracle(*window))
    assert instances == Counter(
        {"standup@kill.test": 4, "retro@kill.test": 3, "review@kill.test": 1,
         "planning@kill.test": 1, "budget@kill.test": 1}
    )  # fmt: skip
    return {
        "reschedule-instance": Changed("standup@kill.test", "REQUEST", rid, 3),
        "reschedule-event": Changed("review@kill.test", "REQUEST", None, 1),
        "cancel-instance": Changed(
            "retro@kill.test", "CANCEL", datetime(2031, 5, 14, 9, tzinfo=UTC), 2
        ),
        "cancel-event": Changed("offsite@kill.test", "CANCEL", None, 4),
        "update": Changed("planning@kill.test", "REQUEST", None, 1),
    }


def _assert_messages(world: World, changed: dict[str, Changed]) -> None:
    """The mail server received exactly one message per attendee per change, each with its
    own Message-ID, the change's method and SEQUENCE; the outbox holds one set of files
    per message, each record ``sent``."""
    received = world.smtp.messages()
    told: Counter[tuple[str, str, datetime | None, int, str]] = Counter()
    for mail in received:
        (recipient,) = mail.rcpt_tos
        (part,) = mail.calendar_parts
        calendar = icalendar.Calendar.from_ical(part.text)
        (event,) = calendar.walk("VEVENT")
        assert part.method == str(calendar["METHOD"])
        assert f"mailto:{recipient}" in {str(a).lower() for a in _list(event.get("ATTENDEE"))}
        rid = event.get("RECURRENCE-ID")
        told[
            (
                str(event["UID"]),
                part.method or "",
                None if rid is None else rid.dt.astimezone(UTC),
                int(event["SEQUENCE"]),
                f"mailto:{recipient}",
            )
        ] += 1
    assert told == Counter(
        {
            (c.uid, c.method, c.recurrence_id, c.sequence, who): 1
            for c in changed.values()
            for who in RECIPIENTS
        }
    ), told
    ids = [str(m.message["Message-ID"]) for m in received]
    assert len(set(ids)) == len(ids) == len(changed) * len(RECIPIENTS)
    outbox = sorted(p.name for p in world.outbox.iterdir() if p.suffix != ".lock")
    for suffix in (".ics", ".eml", ".json"):
        assert len([n for n in outbox if n.endswith(suffix)]) == len(ids), outbox
    records = [json.loads(p.read_text()) for p in world.outbox.glob("*.json")]
    assert {r["state"] for r in records} == {"sent"}
    assert sorted(r["message_id"] for r in records) == sorted(ids)


def _list(value: Any) -> list[Any]:
    return [] if value is None else value if isinstance(value, list) else [value]


def _assert_effects(world: World, loop: Loop, plan_of: dict[str, str], seed: int) -> Counter[int]:
    """The journal (written before each effect): no effect of the unapproved plan; each send
    invoked at most once per attempt group, a new group only for an operator's "did not
    happen"; the sends an operator re-ran although sent were answered from the record."""
    rows = _step_rows(world.store_url)
    of_plan = {r.id: r.plan_id for r in rows}
    effects = journal_entries(world.journal)
    assert not [
        e
        for e in effects
        if of_plan[str(e["origin"]).removeprefix("plan_step:")] == plan_of["not-approved"]
    ], seed
    invoked = Counter(str(e["origin"]).removeprefix("plan_step:") for e in effects)
    rerun = Counter(step_id for step_id, _, happened in loop.resolved if not happened)
    # a blocked send whose outbox had a record had reached the adapter (journaled); one
    # killed at "invoking" had not
    reached = Counter(step_id for step_id, how, _ in loop.resolved if how != "None")
    settled = {step_id for step_id, _, happened in loop.resolved if happened}
    sends = [r for r in rows if r.key.startswith("itip-") and r.plan_id != plan_of["not-approved"]]
    assert len(sends) == (len(CHANGES) - 1) * len(RECIPIENTS)
    for row in sends:
        assert row.idempotent is False
        assert row.attempt_group == 1 + rerun[row.id], (seed, row.key)
        # at most one effect per attempt group: a second only after "did not happen"
        assert 1 <= invoked[row.id] <= row.attempt_group, (seed, row.key, invoked[row.id])
        ran_last = 0 if row.id in settled else 1  # else the operator completed it
        assert invoked[row.id] == reached[row.id] + ran_last, (seed, row.key, invoked[row.id])
    engine = open_engine(parse_store_url(world.store_url))
    with engine.connect() as connection:
        history = connection.execute(select(attempt_history)).all()
    engine.dispose()
    ends = Counter((h.step_id, h.outcome) for h in history)
    for row in sends:  # the store: one attempt completed (none if the operator completed
        # it), none failed after acting; a takeover that adopted a killed worker's saved
        # outcome closes that attempt as completed and records none of its own (0066)
        done = [h.result for h in history if h.step_id == row.id and h.outcome == "completed"]
        assert len(done) == (0 if row.id in settled else 1), (seed, row.key)
        assert len(set(done)) <= 1, (seed, row.key, done)
        assert ends[(row.id, "failed")] == 0, (seed, row.key)
    for step_id, how, happened in loop.resolved:
        if how == "sent" and not happened:  # sent before; its re-run must not send again
            result = json.loads(next(r.result for r in rows if r.id == step_id))
            assert result["replayed"] is True, (seed, result)
    return Counter(invoked[r.id] for r in sends)
