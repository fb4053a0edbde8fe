"""An operator settles a message whose outbox record says ``sending`` (decision 0062):
``ItipDelivery.settle_send`` after reading the mail server's log.

The record is left ``sending`` by a real connection dropped in the middle of the content
(:func:`tests.execution._itip_smtp.dropping_server`); the mail server of the re-run is a real
aiosmtpd that records what it accepts.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from cerebri.execution.adapters import AdapterError
from tests.execution._itip_smtp import dropping_server, smtp_server
from tests.execution.test_itip_delivery import World, _get, _invoke, _params, _stored

OPERATOR = "principal:operator"
KEY, BOB = _params()["idempotency_key"], _params()["recipient"]


@pytest.fixture
def world(tmp_path: Path) -> World:
    return World(tmp_path)


def _left_sending(world: World) -> None:
    _stored(world.calendar, sequence=2)
    with dropping_server() as (port, _got), pytest.raises(AdapterError) as lost:
        _invoke(world.adapter(port), _params())
    assert lost.value.code == "itip.smtp_interrupted"


def test_accepted_makes_the_record_sent_and_a_rerun_sends_nothing(world: World) -> None:
    _left_sending(world)
    with smtp_server() as (port, mailbox):
        adapter = world.adapter(port)
        seen = adapter.settle_send(KEY, BOB, accepted=True, by=OPERATOR)
        assert (seen["state"], seen["sent"], seen["done"]) == ("sent", True, True)
        again = _invoke(adapter, _params())
        assert (again["replayed"], again["sent"], again["smtp_reply"]) == (True, True, None)
        assert mailbox.received == []  # the operator's word stands for the server's 250
        # settling it again the same way changes nothing; the other way is refused
        assert adapter.settle_send(KEY, BOB, accepted=True, by=OPERATOR) == seen
        with pytest.raises(AdapterError) as refused:
            adapter.settle_send(KEY, BOB, accepted=False, by=OPERATOR)
    assert refused.value.code == "itip.not_uncertain"


def test_not_accepted_makes_it_written_and_the_rerun_sends_it_once(world: World) -> None:
    _left_sending(world)
    with smtp_server() as (port, mailbox):
        adapter = world.adapter(port)
        seen = adapter.settle_send(KEY, BOB, accepted=False, by=OPERATOR)
        assert (seen["state"], seen["done"]) == ("written", False)
        with pytest.raises(AdapterError) as refused:
            adapter.settle_send(KEY, BOB, accepted=True, by=OPERATOR)  # DATA never began
        assert refused.value.code == "itip.not_uncertain"
        sent = _invoke(adapter, _params())
        assert (sent["replayed"], sent["sent"]) == (False, True)
        assert [r.rcpt_tos for r in mailbox.received] == [("bob@example.com",)]
        assert sent["message_id"] == seen["message_id"]  # the stored message, the same id
    assert _get(adapter, _params())["done"] is True


def test_nothing_recorded_cannot_be_settled(world: World) -> None:
    with pytest.raises(AdapterError) as missing:
        world.adapter(25).settle_send(KEY, BOB, accepted=True, by=OPERATOR)
    assert missing.value.code == "itip.not_recorded"
    with pytest.raises(AdapterError) as wrong:
        world.adapter(25).settle_send(KEY, BOB, accepted="yes", by=OPERATOR)  # type: ignore[arg-type]
    assert wrong.value.code == "adapter.invalid_argument"


def test_outbox_resolve_on_the_command_line(world: World) -> None:
    """Decision 0066: ``cerebri outbox resolve KEY RECIPIENT --happened/--did-not-happen``
    is ``settle_send`` for an operator; its errors keep their codes (exit 2)."""
    from typer.testing import CliRunner

    from cerebri.cli import app

    _left_sending(world)
    outbox = str(world.outbox)  # the folder the worker used
    args = ["outbox", "resolve", KEY, BOB, "--outbox", outbox, "--as", OPERATOR]
    runner = CliRunner()
    done = runner.invoke(app, [*args, "--did-not-happen"])
    assert done.exit_code == 0, done.output
    assert (
        done.stdout
        == f"message {KEY} to {BOB}: written (sent again by the next send), by {OPERATOR}\n"
    )
    refused = runner.invoke(app, [*args, "--happened", "--json"])
    assert refused.exit_code == 2
    assert '"code":"itip.not_uncertain"' in refused.stderr.replace(" ", "")
    with smtp_server() as (port, mailbox):
        sent = _invoke(world.adapter(port), _params())
    assert (sent["replayed"], sent["sent"]) == (False, True)
    assert [r.rcpt_tos for r in mailbox.received] == [("bob@example.com",)]
    missing = runner.invoke(app, ["outbox", "resolve", KEY, "mailto:carol@example.com",
                                  "--outbox", outbox, "--as", OPERATOR, "--happened"])  # fmt: skip
    assert (missing.exit_code, missing.stderr.split(":")[0]) == (2, "error itip.not_recorded")
