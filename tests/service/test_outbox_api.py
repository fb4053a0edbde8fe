"""``POST /v1/outbox/resolve``: an operator settles an interrupted iTIP send over HTTP
(decision 0075), then the step with ``steps resolve`` (:func:`cerebri.execution.resolve_step`).

The send is interrupted for real: a plan's ``message.itip.send`` step meets a mail server
that drops the connection in the middle of the content
(:func:`tests.execution._itip_smtp.dropping_server`), so its outbox record says ``sending``
and the step is blocked ``needs_verification``. The re-run's mail server is a real aiosmtpd
that records what it accepts. Every outbox is a temporary folder.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from jsonschema import Draft202012Validator

from cerebri.clock import FakeClock, SequentialIds
from cerebri.execution import (
    Executor,
    add_principal,
    issue_token,
    resolve_step,
    show_plan,
    submit,
)
from cerebri.execution.store import init, open_engine, parse_store_url
from cerebri.service import ServiceSettings, create_app
from tests.execution._itip_smtp import dropping_server, smtp_server
from tests.execution.test_itip_delivery import (
    NOW,
    Store,
    _draft,
    _get,
    _invoke,
    _params,
    _send_step,
)
from tests.execution.test_itip_delivery import World as Itip
from tests.execution.test_itip_delivery import _serve as serve_adapter
from tests.execution.test_itip_delivery import _stored as stored_event
from tests.service._store_world import auth, token_of

CAROL, ALICE = "principal:carol", "principal:alice"  # an operator, a requester
ROUTE = "/v1/outbox/resolve"
KEY, BOB = _params()["idempotency_key"], _params()["recipient"]


class Flow:
    """A store whose plan's send was interrupted, the outbox, and a client of the service."""

    def __init__(self, folder: Path, store: Store, outbox: Path | None) -> None:
        self.itip = Itip(folder)
        self.store = store
        self.params = _params()
        stored_event(self.itip.calendar, sequence=2)
        with dropping_server() as (port, got):
            serve_adapter(store, self.itip.adapter(port))
            draft = _draft(_send_step(self.params, "itip-bob", verified=False))
            self.plan_id = submit(store.executor, draft).plan_id
            store.run()
            assert store.approve_all() == 1
            store.run()
        assert got and got[0]  # the content had begun to flow when the server dropped it
        # principals only now: the store was ungoverned while the plan ran
        for principal, roles in ((CAROL, ["operator"]), (ALICE, ["requester"])):
            add_principal(store.executor, principal, roles=roles)
            issue_token(store.executor, principal, secret=token_of(principal))
        settings = ServiceSettings(outbox=outbox if outbox is not None else self.itip.outbox)
        self.app = create_app(settings, executor=store.executor)
        self.client = TestClient(self.app)

    def step(self) -> dict[str, Any]:
        return self.store.steps(self.plan_id)["itip-bob"]

    def resolve(self, happened: object, by: str = CAROL, **body: Any) -> Any:
        sent = {"key": KEY, "recipient": BOB, "happened": happened, **body}
        return self.client.post(ROUTE, json=sent, headers=auth(by))

    def schema(self, status: int) -> Draft202012Validator:
        document = self.client.get("/openapi.json").json()
        answer = document["paths"][ROUTE]["post"]["responses"][str(status)]
        [media] = answer["content"].values()
        return Draft202012Validator({**media["schema"], "components": document["components"]})


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    url = f"sqlite:///{tmp_path / 'store.sqlite3'}"
    init(url)
    engine = open_engine(parse_store_url(url))
    try:
        yield Store(Executor(engine, FakeClock(NOW), SequentialIds("t")))
    finally:
        engine.dispose()


@pytest.fixture
def flow(tmp_path: Path, store: Store) -> Flow:
    return Flow(tmp_path, store, None)


def _problem(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/problem+json"
    body: dict[str, Any] = response.json()
    assert (body["status"], body["code"]) == (status, code), body
    return body


def test_the_interrupted_send_blocks_its_step(flow: Flow) -> None:
    step = flow.step()
    assert step["status"] == "blocked"
    assert step["status_reason"].startswith("needs_verification")
    assert _get(flow.itip.adapter(), flow.params)["state"] == "sending"


def test_happened_records_it_sent_and_the_step_settles(flow: Flow) -> None:
    answer = flow.resolve(True)
    assert answer.status_code == 200, answer.text
    seen = answer.json()
    flow.schema(200).validate(seen)
    assert (seen["idempotency_key"], seen["recipient"]) == (KEY, "bob@example.com")
    assert (seen["state"], seen["sent"], seen["done"], seen["intact"]) == ("sent", True, True, True)
    record = json.loads(next(flow.itip.outbox.glob("*.json")).read_text())
    assert record["smtp"] == {"reply": None, "confirmed_by": CAROL}  # who said so
    assert record["sent_at"] == str(NOW)  # the executor's clock
    # the same word again changes nothing; the other word is refused: the record knows
    again = flow.resolve(True)
    assert (again.status_code, again.json()) == (200, seen)
    refused = _problem(flow.resolve(False), 409, "itip.not_uncertain")
    assert "not uncertain" in refused["detail"]
    # the operator then settles the step: it happened
    step = resolve_step(flow.store.executor, str(flow.step()["id"]), happened=True, by=CAROL)
    assert (step["status"], step["result"]) == (
        "completed",
        {"resolved_by": CAROL, "happened": True},
    )
    assert show_plan(flow.store.executor, flow.plan_id)["status"] == "completed"


def test_did_not_happen_records_it_written_and_the_rerun_sends_it_once(flow: Flow) -> None:
    answer = flow.resolve(False)
    assert answer.status_code == 200, answer.text
    seen = answer.json()
    flow.schema(200).validate(seen)
    assert (seen["state"], seen["sent"], seen["done"]) == ("written", False, False)
    _problem(flow.resolve(True), 409, "itip.not_uncertain")  # DATA never began, it says
    before = flow.step()
    step = resolve_step(flow.store.executor, str(before["id"]), happened=False, by=CAROL)
    assert (step["status"], step["attempt_group"]) == ("ready", before["attempt_group"] + 1)
    # The store is governed now (the operator's principal), so its worker would act only on
    # a signed plan: the re-run's send is made with the adapter, as the worker makes it.
    with smtp_server() as (port, mailbox):
        sent = _invoke(flow.itip.adapter(port), flow.params)
    assert (sent["replayed"], sent["sent"]) == (False, True)
    assert [r.rcpt_tos for r in mailbox.received] == [("bob@example.com",)]
    assert sent["message_id"] == seen["message_id"]  # the stored message, the same id
    assert _get(flow.itip.adapter(), flow.params)["state"] == "sent"


def test_refusals(flow: Flow) -> None:
    # a requester may not: 403, and the record is untouched
    _problem(flow.resolve(True, by=ALICE), 403, "auth.forbidden")
    assert _get(flow.itip.adapter(), flow.params)["state"] == "sending"
    # no token, an unknown token
    assert flow.client.post(ROUTE, json={}).status_code == 401
    bad = flow.client.post(ROUTE, json={}, headers={"Authorization": "Bearer nobody-0123456789"})
    _problem(bad, 401, "auth.unauthorized")
    # a recipient the outbox holds nothing for
    missing = flow.resolve(True, recipient="mailto:carol@example.net")
    flow.schema(404).validate(_problem(missing, 404, "itip.not_recorded"))
    # bodies of another shape
    assert _problem(flow.resolve("yes"), 422, "http.invalid_body")["path"] == "/happened"
    assert _problem(flow.resolve(True, extra=1), 422, "http.invalid_body")["path"] == "/extra"
    assert _problem(flow.resolve(True, key=""), 422, "http.invalid_body")["path"] == "/key"
    nul = _problem(flow.resolve(True, recipient="a\x00b"), 422, "input.invalid_text")
    assert nul["path"] == "/recipient"
    assert _get(flow.itip.adapter(), flow.params)["state"] == "sending"


def test_an_empty_outbox_folder_holds_no_record(tmp_path: Path, store: Store) -> None:
    """The route reads the folder it was given, not the workers' by chance."""
    elsewhere = tmp_path / "elsewhere"
    flow = Flow(tmp_path, store, elsewhere)
    _problem(flow.resolve(True), 404, "itip.not_recorded")
    assert _get(flow.itip.adapter(), flow.params)["state"] == "sending"


def test_without_an_outbox_the_route_says_so(tmp_path: Path, store: Store) -> None:
    flow = Flow(tmp_path, store, None)
    client = TestClient(create_app(ServiceSettings(), executor=store.executor))
    body = {"key": KEY, "recipient": BOB, "happened": True}
    _problem(client.post(ROUTE, json=body, headers=auth(ALICE)), 403, "auth.forbidden")
    answer = client.post(ROUTE, json=body, headers=auth(CAROL))
    problem = _problem(answer, 409, "outbox.not_configured")
    assert "--outbox" in problem["detail"]
    assert _get(flow.itip.adapter(), flow.params)["state"] == "sending"
    operation = client.get("/openapi.json").json()["paths"][ROUTE]["post"]
    assert "outbox.not_configured" in operation["responses"]["409"]["description"]
    assert operation["requestBody"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/OutboxResolveRequest"
    }


def test_no_route_without_a_store() -> None:
    answer = TestClient(create_app(ServiceSettings(outbox=Path("/nonexistent")))).post(
        ROUTE, json={"key": KEY, "recipient": BOB, "happened": True}
    )
    _problem(answer, 404, "http.not_found")


@pytest.mark.parametrize("how", ["option", "env", "none"])
def test_serve_passes_the_outbox_on(
    how: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``cerebri serve --outbox DIR`` / ``CEREBRI_OUTBOX`` reach the service (no server is
    started: the function that would start it records what it was given)."""
    from typer.testing import CliRunner

    import cerebri.service
    from cerebri.cli import app

    given: dict[str, Any] = {}
    monkeypatch.setattr(cerebri.service, "serve", lambda *a, **kw: given.update(kw))
    monkeypatch.setenv("CEREBRI_STORE", "")  # no explicit store
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))  # no embedded store either
    monkeypatch.delenv("CEREBRI_OUTBOX", raising=False)
    args = ["serve", "--port", "0"]
    if how == "option":
        args += ["--outbox", str(tmp_path / "box")]
    elif how == "env":
        monkeypatch.setenv("CEREBRI_OUTBOX", str(tmp_path / "env-box"))
    done = CliRunner().invoke(app, args)
    assert done.exit_code == 0, done.output
    expected = {"option": tmp_path / "box", "env": tmp_path / "env-box", "none": None}[how]
    assert given["outbox"] == expected
