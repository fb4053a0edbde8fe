"""``message.itip.send`` and ``message.itip.get`` (decision 0052): iTIP messages built at act
time, written to the outbox and sent to a real SMTP server (aiosmtpd) started by the test.

Expected values come from the stored event read back with icalendar and from the params,
never from the adapter's own answer; what the server received is parsed back with the
stdlib ``email`` package and icalendar. Plans run through a real store (SQLite) with a fake
clock: approvals, retries after backoff, a worker killed after the send, and the operator's
re-run, all by the executor's own rules.
"""

from __future__ import annotations

import email
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email import policy
from email.message import EmailMessage
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from icalendar import Calendar, Event

from cerebri.calendars.itip import Attendee, stored_object
from cerebri.clock import FakeClock, SequentialIds
from cerebri.execution import (
    Executor,
    decide,
    list_approvals,
    resolve_step,
    run_claim,
    run_worker,
    show_plan,
    submit,
)
from cerebri.execution.adapters import AdapterError, Adapters, Invocation, NoopAdapter
from cerebri.execution.adapters._imip import imip_email
from cerebri.execution.adapters.defaults import _ByCalendar
from cerebri.execution.adapters.itip_delivery import (
    ItipDelivery,
    SmtpSettings,
    with_itip_delivery,
)
from cerebri.execution.claims import claim
from cerebri.execution.store import init, open_engine, parse_store_url
from cerebri.temporal import Instant
from tests.execution._itip_smtp import dropping_server, free_port, smtp_server

NOW = Instant.parse("2026-12-01T10:00:00Z")
ORGANIZER = "mailto:olga@example.com"
SENDER = "cerebri@example.org"
UID = "weekly-sync-1"
BERLIN = ZoneInfo("Europe/Berlin")
PEOPLE: list[dict[str, Any]] = [
    {"address": "mailto:bob@example.com", "name": "Bob Brown", "required": True},
    {"address": "mailto:carol@example.net", "name": None, "required": False},
]
SEND, GET = "message.itip.send", "message.itip.get"


def _stored(path: Path, *, sequence: int) -> bytes:
    """The organizer's stored event after a move (no METHOD), written to ``path``."""
    event = Event()
    event.add("UID", UID)
    event.add("SUMMARY", "Weekly sync")
    event.add("LOCATION", "Room 4")
    event.add("DTSTART", datetime(2026, 12, 3, 15, 0, tzinfo=BERLIN))
    event.add("DTEND", datetime(2026, 12, 3, 16, 0, tzinfo=BERLIN))
    event.add("X-CEREBRI-IDEMPOTENCY-KEY", "plan-1:1:move-0:0")  # as the adapters write it
    people = [Attendee(p["address"], required=p["required"]) for p in PEOPLE]
    data = stored_object(
        event, organizer=ORGANIZER, attendees=people, sequence=sequence, dtstamp=NOW
    )
    path.write_bytes(data)
    return data


def _params(recipient: str = "mailto:bob@example.com", **changes: Any) -> dict[str, Any]:
    return {
        "calendar_id": "work",
        "uid": UID,
        "recurrence_id": None,
        "method": "REQUEST",
        "sequence": 2,
        "recipient": recipient,
        "organizer": ORGANIZER,
        "attendees": PEOPLE,
        "idempotency_key": f"change-1:itip:{recipient}",
        **changes,
    }


@dataclass
class World:
    """The organizer's calendar file, the outbox and an adapter over them."""

    folder: Path
    clock: FakeClock = field(default_factory=lambda: FakeClock(NOW))
    sleeps: list[float] = field(default_factory=list)

    @property
    def calendar(self) -> Path:
        return self.folder / "work.ics"

    @property
    def outbox(self) -> Path:
        return self.folder / "outbox"

    def read(self, calendar_id: str, uid: str) -> Calendar | None:
        assert calendar_id == "work"
        if not self.calendar.exists():
            return None
        found = Calendar.from_ical(self.calendar.read_bytes())
        return found if any(str(e.get("UID")) == uid for e in found.walk("VEVENT")) else None

    def adapter(self, port: int | None = None, **options: Any) -> ItipDelivery:
        smtp = None if port is None else SmtpSettings("127.0.0.1", port, sender=SENDER)
        return ItipDelivery(
            self.clock,
            outbox=self.outbox,
            read_resource=options.pop("read_resource", self.read),
            smtp=options.pop("smtp", smtp),
            sleep=self.sleeps.append,
            **options,
        )

    def files(self, suffix: str) -> list[Path]:
        return sorted(self.outbox.glob(f"*{suffix}")) if self.outbox.exists() else []


@pytest.fixture
def world(tmp_path: Path) -> World:
    return World(tmp_path)


def _invoke(adapter: ItipDelivery, params: dict[str, Any], capability: str = SEND) -> Any:
    return adapter.invoke(
        Invocation(capability, params["recipient"], params, "plan_step:s", "p:1:s:0")
    )


def _get(adapter: ItipDelivery, params: dict[str, Any]) -> Any:
    keys = {"idempotency_key": params["idempotency_key"], "recipient": params["recipient"]}
    return _invoke(adapter, keys, GET)


def _mail(raw: bytes) -> tuple[EmailMessage, bytes, str]:
    """The e-mail, the bytes of its one ``text/calendar`` part and that part's method."""
    mail = email.message_from_bytes(raw, policy=policy.default)
    assert isinstance(mail, EmailMessage)
    parts = [p for p in mail.walk() if p.get_content_type() == "text/calendar"]
    assert len(parts) == 1
    payload = parts[0].get_payload(decode=True)
    assert isinstance(payload, bytes)
    return mail, payload, str(parts[0].get_param("method"))


def _event(data: bytes) -> tuple[Calendar, Event]:
    calendar = Calendar.from_ical(data)
    [event] = calendar.walk("VEVENT")
    assert isinstance(event, Event)
    return calendar, event


def _attendees(event: Event) -> dict[str, str]:
    found = event.get("ATTENDEE")
    people = found if isinstance(found, list) else [found]
    return {str(p): str(p.params["ROLE"]) for p in people}


# -- a plan through the store ----------------------------------------------------------


@dataclass
class Store:
    executor: Executor

    def run(self) -> None:
        report = run_worker(self.executor, until_idle=True, poll_seconds=0.01)
        assert report.errors == 0, report.last_error

    def approve_all(self) -> int:
        asked = list_approvals(self.executor)
        for request in asked:
            decide(self.executor, str(request["id"]), approve=True, by="principal:approver")
        return len(asked)

    def steps(self, plan_id: str) -> dict[str, dict[str, Any]]:
        found = show_plan(self.executor, plan_id)["steps"]
        assert isinstance(found, list)
        return {str(s["key"]): s for s in found if isinstance(s, dict)}


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    url = f"sqlite:///{tmp_path / 'store.sqlite3'}"
    init(url)
    engine = open_engine(parse_store_url(url))
    try:
        yield Store(Executor(engine, FakeClock(NOW), SequentialIds("t")))
    finally:
        engine.dispose()


def _serve(store: Store, adapter: ItipDelivery) -> None:
    store.executor = Executor(
        store.executor.engine,
        adapter._clock,
        store.executor.ids,
        adapters=Adapters().with_adapter(SEND, adapter).with_adapter(GET, adapter),
    )


def _send_step(params: dict[str, Any], key: str, *, verified: bool) -> list[dict[str, Any]]:
    step: dict[str, Any] = {
        "key": key,
        "kind": "capability",
        "capability": SEND,
        "target": params["recipient"],
        "params": params,
        # a send on its own asks a person (in a change plan the change's approval covers
        # it, decision 0056)
        "require_approval": True,
    }
    if not verified:
        return [step]
    step["expectation"] = {"description": "sent", "confidence": 0.9, "within_seconds": 60}
    check = {
        "capability": GET,
        "target": params["recipient"],
        "params": {"idempotency_key": params["idempotency_key"], "recipient": params["recipient"]},
        "path": "done",
        "op": "eq",
        "value": True,
    }
    verify = {
        "key": f"{key}-verified",
        "kind": "verify",
        "depends_on": [key],
        "verify": {"of": key, "check": check, "within_seconds": 60, "interval_seconds": 10},
    }
    return [step, verify]


def _draft(*steps: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "objective": "tell the attendees that the weekly sync moved",
        "origin": "operator",
        "strategy": "direct_action_verified",
        "steps": [s for group in steps for s in group],
    }


def test_a_request_reaches_each_attendee_once_and_is_verified(world: World, store: Store) -> None:
    stored = _stored(world.calendar, sequence=2)
    with smtp_server() as (port, mailbox):
        _serve(store, world.adapter(port))
        bob, carol = _params(), _params("mailto:carol@example.net")
        plan = submit(
            store.executor,
            _draft(
                _send_step(bob, "itip-bob", verified=True),
                _send_step(carol, "itip-carol", verified=True),
            ),
        ).plan_id
        store.run()
        assert mailbox.received == []  # nothing before a person approves
        assert store.approve_all() == 2
        store.run()
    steps = store.steps(plan)
    assert {k: s["status"] for k, s in steps.items()} == dict.fromkeys(steps, "completed")
    assert show_plan(store.executor, plan)["status"] == "completed"
    assert world.calendar.read_bytes() == stored  # the stored object is untouched...
    assert b"METHOD" not in stored  # ...and carries no METHOD (RFC 4791 4.1)
    _, expected = _event(stored)

    got = sorted(mailbox.received, key=lambda r: r.rcpt_tos)
    assert [(r.mail_from, r.rcpt_tos) for r in got] == [
        (SENDER, ("bob@example.com",)),
        (SENDER, ("carol@example.net",)),
    ]
    assert len(world.files(".ics")) == len(world.files(".eml")) == 2
    for received, params in zip(got, (bob, carol), strict=True):
        mail, ics, method = _mail(received.data)
        assert (method, mail["To"], mail["From"]) == (
            "REQUEST",
            params["recipient"].removeprefix("mailto:"),
            "olga@example.com",
        )
        assert mail["Sender"] == SENDER
        assert mail["Subject"] == "Updated invitation: Weekly sync"
        result = steps["itip-bob" if "bob" in params["recipient"] else "itip-carol"]["result"]
        outbox = world.outbox / result["file"]
        assert outbox.read_bytes() == ics  # the outbox holds what was sent
        eml = email.message_from_bytes(outbox.with_suffix(".eml").read_bytes())
        assert eml["Message-ID"] == mail["Message-ID"] == result["message_id"]
        calendar, event = _event(ics)
        assert str(calendar["METHOD"]) == "REQUEST"
        for name in ("UID", "SUMMARY", "LOCATION"):
            assert str(event[name]) == str(expected[name])
        assert event.decoded("DTSTART") == expected.decoded("DTSTART")
        assert event.decoded("DTEND") == expected.decoded("DTEND")
        assert int(event["SEQUENCE"]) == int(expected["SEQUENCE"]) == 2
        assert event.decoded("DTSTAMP") == datetime(2026, 12, 1, 10, 0, tzinfo=UTC)
        assert str(event["ORGANIZER"]) == ORGANIZER
        assert "X-CEREBRI-IDEMPOTENCY-KEY" in expected and "X-CEREBRI-IDEMPOTENCY-KEY" not in event
        assert _attendees(event) == {
            "mailto:bob@example.com": "REQ-PARTICIPANT",
            "mailto:carol@example.net": "OPT-PARTICIPANT",
        }
        assert result["sent"] is True and result["replayed"] is False


def test_a_cancel_is_built_from_the_params_alone(world: World) -> None:
    with smtp_server() as (port, mailbox):
        adapter = world.adapter(port, read_resource=None)  # no calendar needed
        one = _params(
            method="CANCEL", recurrence_id="2026-12-10T14:00:00Z", sequence=3, title="Weekly sync"
        )
        future = _params(
            "mailto:carol@example.net",
            method="CANCEL",
            recurrence_id="2026-12-17T14:00:00Z",
            range="THISANDFUTURE",
            sequence=3,
        )
        for params in (one, future):
            assert _invoke(adapter, params)["sent"] is True
    bob, carol = sorted(mailbox.received, key=lambda r: r.rcpt_tos)
    mail, ics, method = _mail(bob.data)
    assert (method, mail["Subject"]) == ("CANCEL", "Cancelled: Weekly sync")
    calendar, event = _event(ics)
    assert str(calendar["METHOD"]) == "CANCEL"
    assert (str(event["UID"]), str(event["STATUS"]), int(event["SEQUENCE"])) == (
        UID,
        "CANCELLED",
        3,
    )
    assert event.decoded("RECURRENCE-ID") == datetime(2026, 12, 10, 14, 0, tzinfo=UTC)
    assert "RANGE" not in event["RECURRENCE-ID"].params
    assert set(_attendees(event)) == {p["address"] for p in PEOPLE}
    _, _, method = _mail(carol.data)
    _, event = _event(_mail(carol.data)[1])
    assert method == "CANCEL" and carol.rcpt_tos == ("carol@example.net",)
    assert event["RECURRENCE-ID"].params["RANGE"] == "THISANDFUTURE"
    assert event.decoded("RECURRENCE-ID") == datetime(2026, 12, 17, 14, 0, tzinfo=UTC)


def test_a_request_whose_event_moved_on_is_refused_before_anything(world: World) -> None:
    _stored(world.calendar, sequence=3)  # someone changed it after the plan was made
    with smtp_server() as (port, mailbox), pytest.raises(AdapterError) as refused:
        _invoke(world.adapter(port), _params(sequence=2))
    assert refused.value.code == "itip.sequence_moved"
    assert (refused.value.before_effect, refused.value.retryable) == (True, False)
    assert mailbox.received == [] and world.files(".ics") == []
    world.calendar.unlink()
    with pytest.raises(AdapterError) as gone:
        _invoke(world.adapter(), _params())
    assert gone.value.code == "calendar.not_found" and gone.value.before_effect


def test_smtp_down_is_a_typed_refusal_and_the_step_is_sent_once_when_it_is_back(
    world: World, store: Store
) -> None:
    _stored(world.calendar, sequence=2)
    port = free_port()  # nothing listens there yet
    adapter = world.adapter(port)
    _serve(store, adapter)
    params = _params()
    plan = submit(store.executor, _draft(_send_step(params, "itip-bob", verified=False))).plan_id
    store.run()
    store.approve_all()
    store.run()
    step = store.steps(plan)["itip-bob"]
    assert step["status"] == "ready"
    assert step["status_reason"].endswith("after itip.smtp_unreachable (refused before any effect)")
    failed = [h["error"]["code"] for h in step["attempt_history"] if h["outcome"] == "failed"]
    assert failed == ["itip.smtp_unreachable"]
    assert world.sleeps == [0.5, 1.0]  # three tries inside the call, before giving up
    seen = _get(adapter, params)
    assert (seen["exists"], seen["state"], seen["sent"], seen["done"]) == (
        True,
        "written",
        False,
        False,
    )
    with smtp_server(port=port) as (_, mailbox):
        store.executor.clock.advance(5)  # type: ignore[attr-defined]
        store.run()
    assert store.steps(plan)["itip-bob"]["status"] == "completed"
    assert [r.rcpt_tos for r in mailbox.received] == [("bob@example.com",)]
    assert _get(adapter, params)["done"] is True


class Killed(BaseException):
    """The worker dies (raised from the executor's hook)."""


def test_a_worker_killed_after_the_send_never_sends_twice(world: World, store: Store) -> None:
    _stored(world.calendar, sequence=2)
    params = _params()
    with smtp_server() as (port, mailbox):
        adapter = world.adapter(port)
        _serve(store, adapter)
        plan = submit(
            store.executor, _draft(_send_step(params, "itip-bob", verified=False))
        ).plan_id
        store.run()
        store.approve_all()
        held = claim(store.executor, "worker-a", 30)
        assert held is not None and held.key == "itip-bob"

        def die(boundary: str, _claim: object) -> None:
            if boundary == "invoked":  # the message went out, nothing recorded yet
                raise Killed

        with pytest.raises(Killed):
            run_claim(store.executor, held, die)
        assert len(mailbox.received) == 1
        store.executor.clock.advance(31)  # type: ignore[attr-defined]
        store.run()  # the takeover: may have acted, so never re-run on its own
        step = store.steps(plan)["itip-bob"]
        assert step["status"] == "blocked"
        assert step["status_reason"].startswith("needs_verification")
        seen = _get(adapter, params)  # what the operator looks at
        assert (seen["sent"], seen["done"], seen["intact"]) == (True, True, True)
        # an operator who says "it did not happen" re-arms it: the outbox record stops it
        resolve_step(store.executor, str(step["id"]), happened=False, by="principal:ops")
        store.run()
    step = store.steps(plan)["itip-bob"]
    assert step["status"] == "completed"
    assert step["result"]["replayed"] is True and step["result"]["sent"] is True
    assert len(mailbox.received) == 1
    assert len(world.files(".ics")) == 1
    world.files(".eml")[0].write_bytes(b"damaged")  # a damaged copy is not a reason to resend
    assert _invoke(adapter, params)["replayed"] is True
    assert len(mailbox.received) == 1
    assert _get(adapter, params)["intact"] is False


def test_refused_recipients(world: World) -> None:
    _stored(world.calendar, sequence=2)
    with smtp_server() as (port, mailbox):
        adapter = world.adapter(port)
        mailbox.rcpt_replies.append("451 4.7.1 try again later")
        assert _invoke(adapter, _params())["sent"] is True  # retried inside the call
        assert world.sleeps == [0.5] and mailbox.rcpt_seen == 2
        mailbox.rcpt_replies.append("550 5.1.1 no such user")
        carol = _params("mailto:carol@example.net")
        with pytest.raises(AdapterError) as refused:
            _invoke(adapter, carol)
        assert [r.rcpt_tos for r in mailbox.received] == [("bob@example.com",)]
    assert refused.value.code == "itip.smtp_refused"
    assert (refused.value.retryable, refused.value.before_effect) == (False, True)
    assert "nothing was sent" in refused.value.message
    assert _get(adapter, carol)["state"] == "written"


def test_a_connection_lost_during_the_content_may_have_sent(world: World) -> None:
    _stored(world.calendar, sequence=2)
    with dropping_server() as (port, got):
        adapter = world.adapter(port)
        with pytest.raises(AdapterError) as lost:
            _invoke(adapter, _params())
    assert got and got[0]  # content had begun to flow
    assert lost.value.code == "itip.smtp_interrupted"
    assert (lost.value.retryable, lost.value.before_effect) == (True, False)
    assert "may have been sent" in lost.value.message
    seen = _get(adapter, _params())
    assert (seen["state"], seen["sent"], seen["done"]) == ("sending", False, False)


def test_outbox_only_and_a_server_that_schedules(world: World) -> None:
    _stored(world.calendar, sequence=2)
    local = world.adapter()
    first = _invoke(local, _params())
    assert (first["delivery"], first["sent"], first["message_id"]) == ("outbox", False, None)
    assert world.files(".eml") == [] and len(world.files(".ics")) == 1
    ics = world.files(".ics")[0].read_bytes()
    assert _get(local, _params())["done"] is True
    world.clock.advance(60)
    again = _invoke(local, _params())  # the same key again: answered from the record
    assert again["replayed"] is True and again["digest"] == first["digest"]
    assert world.files(".ics")[0].read_bytes() == ics
    carol = _params("mailto:carol@example.net")
    served = _invoke(world.adapter(server_schedules=True), carol)
    assert (served["delivery"], served["sent"]) == ("server", False)
    assert _get(local, carol)["done"] is True


def test_a_detected_scheduling_server_takes_its_calendars_messages_only(world: World) -> None:
    """Detection (decision 0068): with SMTP configured and no operator's word, a message
    whose calendar's server schedules its organizer is recorded for the server (no e-mail,
    no Message-ID) and the SMTP server receives nothing; the probe is asked with the
    calendar id and the organizer's ``mailto:`` address. The operator's ``False`` never
    asks and sends by SMTP."""
    _stored(world.calendar, sequence=2)
    asked: list[tuple[str, str]] = []

    def probe(calendar_id: str, organizer: str) -> bool:
        asked.append((calendar_id, organizer))
        return True

    with smtp_server() as (port, mailbox):
        detected = world.adapter(port, server_schedules=None, schedules=probe)
        left = _invoke(detected, _params())
        assert (left["delivery"], left["sent"], left["message_id"]) == ("server", False, None)
        assert asked == [("work", f"mailto:{ORGANIZER.removeprefix('mailto:').lower()}")]
        assert world.files(".eml") == [] and mailbox.received == []
        assert _get(detected, _params())["done"] is True

        forced = world.adapter(port, server_schedules=False, schedules=probe)
        carol = _params("mailto:carol@example.net")
        sent = _invoke(forced, carol)
        assert (sent["delivery"], sent["sent"]) == ("smtp", True)
        assert len(asked) == 1  # the operator's word: no probe
        assert [r.rcpt_tos for r in mailbox.received] == [("carol@example.net",)]


def test_misused_keys_and_recipients(world: World) -> None:
    _stored(world.calendar, sequence=2)
    adapter = world.adapter()
    _invoke(adapter, _params())
    with pytest.raises(AdapterError) as reused:
        _invoke(adapter, _params(method="CANCEL"))
    assert reused.value.code == "itip.key_reused" and reused.value.before_effect
    for stranger in ("mailto:eve@example.com", ORGANIZER):
        with pytest.raises(AdapterError) as outsider:
            _invoke(adapter, _params(stranger))
        assert outsider.value.code == "itip.not_an_attendee"
    absent = _get(adapter, _params("mailto:eve@example.com"))
    assert (absent["exists"], absent["done"], absent["digest"]) == (False, False, None)


def test_smtp_login(world: World) -> None:
    _stored(world.calendar, sequence=2)
    with smtp_server(login=("olga", "s3cret")) as (port, mailbox):
        good = SmtpSettings("127.0.0.1", port, username="olga", password="s3cret")
        assert _invoke(world.adapter(smtp=good), _params())["sent"] is True
        bad = SmtpSettings("127.0.0.1", port, username="olga", password="wrong")
        with pytest.raises(AdapterError) as refused:
            _invoke(world.adapter(smtp=bad), _params("mailto:carol@example.net"))
    assert refused.value.code == "itip.smtp_unauthorized"
    assert (refused.value.retryable, refused.value.before_effect) == (False, True)
    assert [(r.mail_from, r.rcpt_tos) for r in mailbox.received] == [
        ("olga@example.com", ("bob@example.com",))
    ]


def test_the_email_bytes_depend_only_on_their_inputs() -> None:
    calendar = b"BEGIN:VCALENDAR\r\nMETHOD:REQUEST\r\nEND:VCALENDAR\r\n"
    args: dict[str, Any] = {
        "method": "REQUEST",
        "recipient": "mailto:bob@example.com",
        "organizer": ORGANIZER,
        "sender": None,
        "subject": "Invitation: Weekly sync",
        "summary": "Weekly sync\n",
        "idempotency_key": "k1",
        "date": datetime(2026, 12, 1, 10, 0, tzinfo=UTC),
    }
    first, second = imip_email(calendar, **args), imip_email(calendar, **args)
    assert first == second  # no random MIME boundary
    mail, payload, method = _mail(first)
    assert (payload, method, mail["Sender"]) == (calendar, "REQUEST", None)
    other = imip_email(calendar, **{**args, "recipient": "mailto:carol@example.net"})
    assert email.message_from_bytes(other)["Message-ID"] != mail["Message-ID"]


class _Calendar:
    """A stand-in calendar adapter with the ``read_resource`` of contract C3."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.asked: list[tuple[str, str]] = []

    def invoke(self, invocation: Invocation) -> Any:
        raise AssertionError("not called")

    def read_resource(self, calendar_id: str, uid: str) -> Calendar | None:
        self.asked.append((calendar_id, uid))
        return self.world.read(calendar_id, uid)


def test_the_worker_wiring_reads_through_the_calendar_adapter(world: World) -> None:
    _stored(world.calendar, sequence=2)
    calendar = _Calendar(world)
    table = with_itip_delivery(
        Adapters().with_adapter("calendar.event.get", calendar), world.clock, outbox=world.outbox
    )
    sender = table.get(SEND)
    assert isinstance(sender, ItipDelivery) and table.get(GET) is sender
    assert _invoke(sender, _params())["delivery"] == "outbox"
    assert calendar.asked == [("work", UID)]
    routed = _ByCalendar({"work": calendar, "home": NoopAdapter()})
    assert routed.read_resource("work", UID) is not None
    with pytest.raises(AdapterError) as unreadable:  # an adapter without read_resource
        routed.read_resource("home", UID)
    assert unreadable.value.code == "calendar.unsupported"
    with pytest.raises(AdapterError) as unknown:
        routed.read_resource("elsewhere", UID)
    assert unknown.value.code == "calendar.unknown_calendar"
    bare = with_itip_delivery(Adapters(), world.clock, outbox=world.outbox).get(SEND)
    assert isinstance(bare, ItipDelivery)
    with pytest.raises(AdapterError) as passed_on:  # no calendar here: another worker's
        _invoke(bare, _params("mailto:carol@example.net"))
    assert passed_on.value.code == "calendar.unknown_calendar"
    assert _invoke(bare, _params("mailto:carol@example.net", method="CANCEL"))["method"] == (
        "CANCEL"
    )
