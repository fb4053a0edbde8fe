"""The Lab's approvals inbox and plan page in a real browser, over a governed store.

The app serving the store runs under uvicorn on 127.0.0.1 (as in ``test_lab_browser``);
Chromium signs the decision with WebCrypto Ed25519 over the PAE the server computes, so an
approval that the server accepts proves the page's PAE and signature match the Python ones.
A worker runs in the test's thread between page checks (the clock is a FakeClock), and the
plan page, which polls every 1.5 s, must show each change.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat

from cerebri.execution import list_approvals, show_approval, show_plan, submit, submit_envelope
from cerebri.proposals import canonical_json
from tests.execution._one_event import ONE_EVENT_DRAFT
from tests.service._store_world import World, build_world, keyid_of, token_of
from tests.service.test_lab_browser import (
    STARTUP_SECONDS,
    TIMEOUT_MS,
    _screenshot,
    browser,  # noqa: F401 - the Chromium fixture, reused
)

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

STEPS_DRAFT: dict[str, Any] = {
    "objective": "wait, then wait again",
    "origin": "operator",
    "strategy": "manual",
    "steps": [
        {"key": "first", "kind": "wait", "wait": {"seconds": 30}},
        {"key": "second", "kind": "wait", "wait": {"seconds": 30}, "depends_on": ["first"]},
    ],
}


@pytest.fixture
def world(tmp_path: Path) -> World:
    return build_world(f"sqlite:///{tmp_path / 'store.sqlite3'}")


@pytest.fixture
def base_url(world: World) -> Iterator[str]:
    """The world's app under uvicorn in a background thread, stopped after the test."""
    import uvicorn

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = uvicorn.Config(world.client.app, host="127.0.0.1", port=port, log_level="warning")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name="lab-store-uvicorn", daemon=True)
    thread.start()
    deadline = time.monotonic() + STARTUP_SECONDS
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            server.should_exit = True
            pytest.fail(f"uvicorn did not start on 127.0.0.1:{port} within {STARTUP_SECONDS} s")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


@pytest.fixture
def open_page(browser: Browser, base_url: str) -> Iterator[Any]:  # noqa: F811 - the fixture
    """Open a Lab page (``path`` under /lab/) with ``principal``'s token entered."""
    context = browser.new_context(viewport={"width": 1280, "height": 1000})
    context.set_default_timeout(TIMEOUT_MS)
    errors: list[str] = []

    def opened(path: str, principal: str) -> Page:
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(f"{base_url}/lab/{path}")
        page.wait_for_selector("body[data-ready=true]")
        page.get_by_test_id("token-input").fill(token_of(principal))
        page.get_by_test_id("token-save").click()
        return page

    try:
        yield opened
    finally:
        context.close()
    assert errors == [], f"JavaScript errors on the Lab page: {errors}"


def _asked(world: World) -> tuple[str, str]:
    """Alice's one-event plan, waiting for approval: (plan id, approval id)."""
    body = world.proposal(ONE_EVENT_DRAFT)
    submitted = submit_envelope(
        world.executor,
        canonical_json(body["envelope"]),
        artifact=canonical_json(body["artifact"]),
        submitted_by="principal:alice",
    )
    world.work()
    (approval,) = list_approvals(world.executor)
    return submitted.plan_id, str(approval["id"])


def _load_key(page: Page, world: World, principal: str) -> None:
    pem = world.keys[principal].private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption())
    page.get_by_test_id("keyid-input").fill(keyid_of(principal))
    page.get_by_test_id("key-input").fill(pem.decode("ascii"))
    page.get_by_test_id("key-load").click()
    page.wait_for_function(
        "document.getElementById('key-state').textContent.startsWith('Key ')"
        " || document.getElementById('key-state').className === 'bad-text'"
    )
    state = page.get_by_test_id("key-state").text_content() or ""
    assert state.startswith(f"Key {keyid_of(principal)} loaded"), state
    assert page.get_by_test_id("key-input").input_value() == ""  # the PEM left the form


def _decide_in_inbox(page: Page, button: str) -> None:
    item = page.get_by_test_id("approval-item")
    item.get_by_test_id(button).click()
    page.wait_for_function(
        "document.getElementById('decision-status').textContent.startsWith('Approval ')"
        " || document.querySelector('.bad-text') !== null"
    )
    failed = page.locator(".bad-text")
    assert failed.count() == 0, failed.first.text_content()


def test_approve_in_the_inbox(world: World, open_page: Any, tmp_path: Path) -> None:
    plan_id, approval_id = _asked(world)
    page = open_page("inbox.html", "principal:bob")
    item = page.get_by_test_id("approval-item")
    item.wait_for()
    assert item.count() == 1
    assert item.get_attribute("data-approval-id") == approval_id
    assert item.get_by_test_id("approval-step").text_content() == (
        "create: calendar.event.create → e1"
    )
    assert item.get_by_test_id("approval-calendar").text_content() == "work"
    assert item.get_by_test_id("approval-slot").text_content() == (
        "2026-12-02 10:00 UTC – 2026-12-02 11:00 UTC"
    )
    assert item.get_by_test_id("approval-requester").text_content() == "principal:alice"
    expires = show_approval(world.executor, approval_id)["expires_at"]
    assert str(item.get_by_test_id("approval-expires").text_content()).startswith(
        str(expires)[:10] + " " + str(expires)[11:16] + " UTC"
    )
    assert item.get_by_test_id("approval-timeline").count() == 1
    _load_key(page, world, "principal:bob")
    _screenshot(page, tmp_path, "lab-inbox")
    _decide_in_inbox(page, "approve-button")

    decided = show_approval(world.executor, approval_id)
    assert (decided["status"], decided["decided_by"]) == ("approved", "principal:bob")
    assert show_plan(world.executor, plan_id)["steps"][0]["status"] == "ready"
    page.get_by_test_id("inbox-empty").wait_for()


def test_reject_in_the_inbox(world: World, open_page: Any) -> None:
    plan_id, approval_id = _asked(world)
    page = open_page("inbox.html", "principal:erin")
    page.get_by_test_id("approval-item").wait_for()
    _load_key(page, world, "principal:erin")
    page.get_by_test_id("decision-reason").fill("not this week")
    _decide_in_inbox(page, "reject-button")

    decided = show_approval(world.executor, approval_id)
    assert (decided["status"], decided["decided_by"], decided["status_reason"]) == (
        "rejected",
        "principal:erin",
        "not this week",
    )
    assert show_plan(world.executor, plan_id)["steps"][0]["status"] == "failed"


def test_without_a_key_nothing_is_signed(world: World, open_page: Any) -> None:
    _, approval_id = _asked(world)
    page = open_page("inbox.html", "principal:bob")
    item = page.get_by_test_id("approval-item")
    item.get_by_test_id("approve-button").click()
    page.wait_for_function("document.querySelector('.bad-text') !== null")
    assert "load your signing key first" in (page.locator(".bad-text").text_content() or "")
    assert show_approval(world.executor, approval_id)["status"] == "open"


def _step_status(page: Page, key: str, status: str) -> None:
    page.wait_for_selector(
        f'[data-testid=step-node][data-step-key="{key}"] [data-status="{status}"]'
    )


def test_the_plan_page_follows_the_steps(world: World, open_page: Any, tmp_path: Path) -> None:
    submitted = submit(world.executor, STEPS_DRAFT, requester="principal:alice")
    page = open_page(f"plan.html?id={submitted.plan_id}", "principal:alice")
    page.wait_for_selector("body[data-loaded=true]")
    assert page.get_by_test_id("plan-objective").text_content() == "wait, then wait again"
    _step_status(page, "first", "ready")
    _step_status(page, "second", "pending")
    assert page.get_by_test_id("step-edge").count() == 1  # second depends on first

    world.work()  # first starts waiting its 30 s
    _step_status(page, "first", "waiting")
    world.clock.advance(30)
    world.work()  # first done; second waits
    _step_status(page, "first", "completed")
    _step_status(page, "second", "waiting")
    world.clock.advance(30)
    world.work()
    _step_status(page, "second", "completed")
    page.wait_for_selector('[data-testid=plan-status] [data-status="completed"]')
    assert page.get_by_test_id("plan-progress").text_content() == "2 / 2"
    assert page.get_by_test_id("observation-row").count() == 2
    assert page.get_by_test_id("cancel-plan").is_disabled()
    assert show_plan(world.executor, submitted.plan_id)["status"] == "completed"
    _screenshot(page, tmp_path, "lab-plan")
