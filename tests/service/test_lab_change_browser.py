"""The Lab's event change in Chromium, end to end over a governed store (decision 0059): pick
an event on the find-slot timeline, find it a new time (or cancel it, or edit its title and
length: decision 0068), propose it (the envelope signed in the browser with the proposer's
key), and the approver's inbox shows before and after, the title and the attendees.

The worker runs in the test's thread over the real .ics file adapter (its precondition reads
the event back), so the approval is the one the store asks for. Expected times are computed
here: the event is 10:00-11:00 UTC on 8 December, nothing else is busy between 09:00 and
12:00 that day, and the planner ranks the same day first, by the smallest shift (15 minutes:
09:45 and 10:15), the earlier first; the attendees' local times come from zoneinfo.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

import pytest
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat

from cerebri.execution import grant, list_approvals
from cerebri.execution.adapters.ics_file import IcsFileCalendar
from tests.service._store_world import World, build_world, keyid_of, token_of
from tests.service.test_lab_approvals_browser import base_url  # noqa: F401 - uvicorn fixture
from tests.service.test_lab_browser import (
    TIMEOUT_MS,
    _screenshot,
    browser,  # noqa: F401 - the Chromium fixture
)
from tests.service.test_lab_routes import TEXTS

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Locator, Page

NEW_START = "2026-12-08T09:45:00Z"
ZONES = {"alice": "America/New_York", "bob": "Europe/Berlin"}


@pytest.fixture
def world(tmp_path: Path) -> World:
    """The store world with alice's and bob's .ics files served by the file adapter, and
    alice allowed to move, cancel and update events and send the messages (a governed store
    needs grants)."""
    built = build_world(f"sqlite:///{tmp_path / 'store.sqlite3'}")
    files = {}
    for name, text in TEXTS.items():
        files[name] = tmp_path / f"{name}.ics"
        files[name].write_text(text, newline="")
    calendar = IcsFileCalendar(files, built.clock)
    adapters = built.executor.adapters
    for capability in (
        "calendar.event.move",
        "calendar.event.cancel",
        "calendar.event.update",
        "calendar.event.get",
        "calendar.freebusy",
    ):
        adapters = adapters.with_adapter(capability, calendar)
    built.executor = dataclasses.replace(built.executor, adapters=adapters)
    built.client.app.state.executor = built.executor
    for capability in (
        "calendar.event.move",
        "calendar.event.cancel",
        "calendar.event.update",
        "message.itip.send",
    ):
        grant(built.executor, "principal:alice", capability, calendar="*")
    return built


@pytest.fixture
def page_of(browser: Browser, base_url: str) -> Iterator[Callable[[str], Page]]:  # noqa: F811
    """A new Lab page at ``path``, every JavaScript error collected and refused at the end."""
    context = browser.new_context(viewport={"width": 1280, "height": 1400})
    context.set_default_timeout(TIMEOUT_MS)
    errors: list[str] = []

    def opened(path: str) -> Page:
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(f"{base_url}/lab/{path}")
        page.wait_for_selector("body[data-ready=true]")
        return page

    try:
        yield opened
    finally:
        context.close()
    assert errors == [], f"JavaScript errors on the Lab page: {errors}"


def _pem(world: World, principal: str) -> str:
    key = world.keys[principal]
    return key.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption()).decode("ascii")


def _local(instant: str, zone: str) -> str:
    moment = datetime.fromisoformat(instant.replace("Z", "+00:00")).astimezone(ZoneInfo(zone))
    return moment.strftime("%Y-%m-%d %H:%M")


def _reschedule_and_propose(page: Page, world: World, tmp_path: Path) -> None:
    files = [str(tmp_path / f"{name}.ics") for name in TEXTS]
    page.get_by_test_id("ics-files").set_input_files(files)
    page.wait_for_function("document.querySelectorAll('[data-testid=calendar-item]').length === 2")
    page.get_by_test_id("window-start").fill("2026-12-08T00:00")
    page.get_by_test_id("window-end").fill("2026-12-10T00:00")
    page.get_by_test_id("tz").fill("UTC")
    page.get_by_test_id("working-hours").fill("09:00-17:00")
    page.get_by_test_id("working-days").fill("")
    page.get_by_test_id("hours").fill("; ".join(f"{k}=@{v}" for k, v in ZONES.items()))
    page.get_by_test_id("find-button").click()
    # the answer knows the zones the hours declare: the earliest free half hour, 09:00 UTC
    # (the stand-up ends at 08:15, the review starts at 10:00), in each attendee's zone
    first_slot = page.get_by_test_id("slot-row").first
    assert first_slot.get_attribute("data-start") == "2026-12-08T09:00:00Z"
    assert first_slot.get_by_test_id("slot-local-times").text_content() == " · ".join(
        f"{who} {_local('2026-12-08T09:00:00Z', zone)[11:]}" for who, zone in ZONES.items()
    )
    bar = page.locator(
        '#timeline .bar.pickable[data-uid="review@example.com"][data-calendar=alice]'
    )
    bar.click()
    # the title is markup-looking text: shown as text, never parsed into elements
    assert page.get_by_test_id("picked-title").text_content() == "<b>Review</b>"
    assert page.locator("#picked b").count() == 0
    page.get_by_test_id("change-find").click()
    page.wait_for_function("document.body.dataset.changed !== undefined")
    assert page.get_by_test_id("change-error").is_hidden(), page.get_by_test_id(
        "change-error"
    ).text_content()
    first = page.get_by_test_id("change-candidate").first
    assert first.get_attribute("data-start") == NEW_START
    assert first.get_by_test_id("candidate-reason").text_content() == "same day, 15 min earlier"
    end = "2026-12-08T10:45:00Z"
    for who, zone in ZONES.items():
        shown = first.locator(f"li[data-who={who}]").text_content() or ""
        assert shown.startswith(f"{who}: {_local(NEW_START, zone)} – {_local(end, zone)[11:]}")
    page.locator("#propose-who summary").click()
    page.get_by_test_id("token-input").fill(token_of("principal:alice"))
    page.get_by_test_id("token-save").click()
    page.get_by_test_id("keyid-input").fill(keyid_of("principal:alice"))
    page.get_by_test_id("key-input").fill(_pem(world, "principal:alice"))
    page.get_by_test_id("key-load").click()
    page.wait_for_function("document.getElementById('key-state').textContent.startsWith('Key ')")
    first.get_by_test_id("change-propose").click()
    page.wait_for_function("document.body.dataset.proposed !== undefined")
    assert page.get_by_test_id("change-error").is_hidden(), page.get_by_test_id(
        "change-error"
    ).text_content()
    assert page.get_by_test_id("proposed-plan").get_attribute("data-plan-id")


def _pick_review(page: Page, tmp_path: Path) -> None:
    """Load both calendars, show the timeline and pick alice's review."""
    files = [str(tmp_path / f"{name}.ics") for name in TEXTS]
    page.get_by_test_id("ics-files").set_input_files(files)
    page.wait_for_function("document.querySelectorAll('[data-testid=calendar-item]').length === 2")
    page.get_by_test_id("window-start").fill("2026-12-08T00:00")
    page.get_by_test_id("window-end").fill("2026-12-10T00:00")
    page.get_by_test_id("tz").fill("UTC")
    page.get_by_test_id("working-hours").fill("09:00-17:00")
    page.get_by_test_id("working-days").fill("")
    page.get_by_test_id("find-button").click()
    page.locator(
        '#timeline .bar.pickable[data-uid="review@example.com"][data-calendar=alice]'
    ).click()
    assert page.get_by_test_id("picked-title").text_content() == "<b>Review</b>"


def _sign_in(page: Page, world: World) -> None:
    page.locator("#propose-who summary").click()
    page.get_by_test_id("token-input").fill(token_of("principal:alice"))
    page.get_by_test_id("token-save").click()
    page.get_by_test_id("keyid-input").fill(keyid_of("principal:alice"))
    page.get_by_test_id("key-input").fill(_pem(world, "principal:alice"))
    page.get_by_test_id("key-load").click()
    page.wait_for_function("document.getElementById('key-state').textContent.startsWith('Key ')")


def _propose_first(page: Page) -> None:
    page.get_by_test_id("change-propose").first.click()
    page.wait_for_function("document.body.dataset.proposed !== undefined")
    assert page.get_by_test_id("change-error").is_hidden(), page.get_by_test_id(
        "change-error"
    ).text_content()
    assert page.get_by_test_id("proposed-plan").get_attribute("data-plan-id")


def _approver_card(page_of: Callable[[str], Page], world: World) -> Page:
    """bob's inbox after the worker ran the proposed plan up to its approval."""
    world.work()
    (approval,) = list_approvals(world.executor)
    assert approval["requester"] == "principal:alice"
    inbox = page_of("inbox.html")
    inbox.get_by_test_id("token-input").fill(token_of("principal:bob"))
    inbox.get_by_test_id("token-save").click()
    inbox.get_by_test_id("approval-change").wait_for()
    return inbox


def _recipients(change: Locator) -> list[str | None]:
    found = change.get_by_test_id("change-recipient")
    return [found.nth(i).text_content() for i in range(found.count())]


def test_cancel_propose_and_the_inbox_shows_the_removal(
    world: World, page_of: Callable[[str], Page], tmp_path: Path
) -> None:
    """Cancel the picked review: one row, where the event is now, says it is removed; its
    Propose sends the signed proposal, and the approver sees a cancel, "removed from the
    calendar", and one CANCEL to bob at SEQUENCE 1 (the stored 0 + 1, RFC 5546 2.1.4)."""
    page = page_of("find-slot.html")
    _pick_review(page, tmp_path)
    _sign_in(page, world)
    page.get_by_test_id("change-cancel").click()
    page.wait_for_function("document.body.dataset.changed !== undefined")
    assert page.get_by_test_id("change-error").is_hidden(), page.get_by_test_id(
        "change-error"
    ).text_content()
    rows = page.get_by_test_id("change-candidate")
    assert rows.count() == 1  # the one way to cancel: where the event is now
    assert rows.first.get_attribute("data-start") == "2026-12-08T10:00:00Z"
    assert rows.first.get_by_test_id("candidate-reason").text_content() == (
        "removed from the calendars"
    )
    _propose_first(page)
    _screenshot(page, tmp_path, "lab-cancel")

    inbox = _approver_card(page_of, world)
    change = inbox.get_by_test_id("approval-change")
    assert change.get_attribute("data-kind") == "cancel"
    assert (change.get_by_test_id("change-before").text_content() or "").startswith(
        "2026-12-08 10:00 UTC – 2026-12-08 11:00 UTC"
    )
    assert change.get_by_test_id("change-after").text_content() == "removed from the calendar"
    assert change.get_by_test_id("change-title").text_content() == "<b>Review</b>"
    assert change.locator("b").count() == 0
    assert _recipients(change) == ["CANCEL → mailto:bob@example.com (SEQUENCE 1)"]
    _screenshot(inbox, tmp_path, "lab-cancel-inbox")


def test_update_propose_and_the_inbox_shows_the_new_title(
    world: World, page_of: Callable[[str], Page], tmp_path: Path
) -> None:
    """Edit the picked review's title and length (30 minutes longer fits: nothing else is
    busy until 12:00): the candidate keeps its start, and the approver sees the title
    before and after, the new end, and one REQUEST to bob at SEQUENCE 1."""
    page = page_of("find-slot.html")
    _pick_review(page, tmp_path)
    _sign_in(page, world)
    page.get_by_test_id("edit-title").fill("Design review")
    page.get_by_test_id("edit-duration").fill("1h30m")
    page.get_by_test_id("change-edit").click()
    page.wait_for_function("document.body.dataset.changed !== undefined")
    assert page.get_by_test_id("change-error").is_hidden(), page.get_by_test_id(
        "change-error"
    ).text_content()
    first = page.get_by_test_id("change-candidate").first
    assert first.get_attribute("data-start") == "2026-12-08T10:00:00Z"
    assert first.get_by_test_id("candidate-reason").text_content() == "the new length fits"
    _propose_first(page)
    _screenshot(page, tmp_path, "lab-update")

    inbox = _approver_card(page_of, world)
    change = inbox.get_by_test_id("approval-change")
    assert change.get_attribute("data-kind") == "update"
    title = change.get_by_test_id("change-title")
    assert title.locator(".was").text_content() == "<b>Review</b>"
    assert title.text_content() == "<b>Review</b> → Design review"
    assert (change.get_by_test_id("change-after").text_content() or "").startswith(
        "2026-12-08 10:00 UTC – 2026-12-08 11:30 UTC"
    )
    assert _recipients(change) == ["REQUEST → mailto:bob@example.com (SEQUENCE 1)"]
    _screenshot(inbox, tmp_path, "lab-update-inbox")


def test_reschedule_propose_and_the_inbox_shows_before_and_after(
    world: World,
    page_of: Callable[[str], Page],
    tmp_path: Path,
) -> None:
    page = page_of("find-slot.html")
    _reschedule_and_propose(page, world, tmp_path)
    _screenshot(page, tmp_path, "lab-change")
    page.locator("#change-panel").screenshot(path=str(tmp_path / "lab-change-panel.png"))
    world.work()
    (approval,) = list_approvals(world.executor)
    assert approval["requester"] == "principal:alice"

    inbox = page_of("inbox.html")
    inbox.get_by_test_id("token-input").fill(token_of("principal:bob"))
    inbox.get_by_test_id("token-save").click()
    change = inbox.get_by_test_id("approval-change")
    assert change.get_attribute("data-kind") == "reschedule"
    assert (change.get_by_test_id("change-before").text_content() or "").startswith(
        "2026-12-08 10:00 UTC – 2026-12-08 11:00 UTC"
    )
    assert (change.get_by_test_id("change-after").text_content() or "").startswith(
        "2026-12-08 09:45 UTC – 2026-12-08 10:45 UTC"
    )
    assert change.get_by_test_id("change-title").text_content() == "<b>Review</b>"
    assert change.locator("b").count() == 0
    attendees = change.get_by_test_id("change-attendee")
    assert [attendees.nth(i).get_attribute("data-status") for i in range(attendees.count())] == [
        "kept",
        "kept",
    ]
    assert (attendees.nth(1).text_content() or "").startswith("mailto:bob@example.com")
    recipients = change.get_by_test_id("change-recipient")
    assert [recipients.nth(i).text_content() for i in range(recipients.count())] == [
        "REQUEST → mailto:bob@example.com (SEQUENCE 1)"
    ]
    _screenshot(inbox, tmp_path, "lab-change-inbox")
    inbox.get_by_test_id("approval-item").screenshot(path=str(tmp_path / "lab-change-card.png"))
