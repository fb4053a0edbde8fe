"""The Lab's find-slot page and the API docs in Chromium, with every non-loopback request
aborted (the server and fixtures of ``test_lab_browser``).

Screenshots go to the test's ``tmp_path``, to ``test-artifacts/`` at the repository root
(git-ignored) and, when ``CEREBRI_ARTIFACTS_DIR`` is set, there too.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo

import icalendar
import pytest

import cerebri
from cerebri.service.settings import EXAMPLES_DIR
from tests.service.test_find_slot_optional import BODY as OPTIONAL_BODY
from tests.service.test_find_slot_optional import CAROL
from tests.service.test_find_slot_optional import _brute_force as _ranked_brute_force
from tests.service.test_find_slot_route import ALICE, BOB, BODY, _brute_force
from tests.service.test_lab_browser import (
    TIMEOUT_MS,
    _screenshot,
    base_url,  # noqa: F401 - the app under uvicorn, reused
    browser,  # noqa: F401 - the Chromium fixture, reused
)

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

REPO = Path(__file__).resolve().parents[2]
LOOPBACK = {"127.0.0.1", "localhost", "::1", "[::1]"}


@pytest.fixture
def offline(browser: Browser) -> Iterator[tuple[Page, list[str]]]:  # noqa: F811 - the fixture
    """A page whose requests to any host but loopback are aborted (and listed)."""
    context = browser.new_context(viewport={"width": 1280, "height": 1100}, accept_downloads=True)
    context.set_default_timeout(TIMEOUT_MS)
    blocked: list[str] = []

    def loopback_only(route: Any) -> None:
        url = route.request.url
        if url.startswith(("data:", "blob:")) or urlsplit(url).hostname in LOOPBACK:
            route.continue_()
        else:
            blocked.append(url)
            route.abort()

    context.route("**/*", loopback_only)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        yield page, blocked
    finally:
        context.close()
    assert errors == [], f"JavaScript errors: {errors}"


def _keep(page: Page, tmp_path: Path, name: str) -> Path:
    shot = _screenshot(page, tmp_path, name)
    folder = REPO / "test-artifacts"
    folder.mkdir(exist_ok=True)
    shutil.copyfile(shot, folder / f"{name}.png")
    return shot


def _upload(page: Page, base: str, tmp_path: Path, named: list[tuple[str, str]]) -> None:
    """Open the page and upload ``named`` (file stem, iCalendar text) as .ics files."""
    page.goto(f"{base}/lab/find-slot.html")
    page.wait_for_selector("body[data-ready=true]")
    files = []
    for name, text in named:
        path = tmp_path / f"{name}.ics"
        path.write_text(text, encoding="utf-8", newline="")
        files.append(str(path))
    page.get_by_test_id("ics-files").set_input_files(files)
    page.wait_for_function(
        f"document.querySelectorAll('[data-testid=calendar-item]').length === {len(named)}"
    )


def _ask(page: Page, base: str, tmp_path: Path) -> None:
    """Open the page, upload alice.ics and bob.ics and ask BODY's question."""
    _upload(page, base, tmp_path, [("alice", ALICE), ("bob", BOB)])
    _find(page)


def _find(page: Page) -> None:
    """Ask BODY's question (45 minutes, 5-6 October, Berlin working hours) of the page."""
    page.get_by_test_id("duration").fill("45m")
    page.get_by_test_id("window-start").fill("2026-10-05T08:00")
    page.get_by_test_id("window-end").fill("2026-10-06T18:00")
    page.get_by_test_id("tz").fill("Europe/Berlin")
    page.get_by_test_id("working-hours").fill("09:00-17:00")
    page.get_by_test_id("working-days").fill("")
    page.get_by_test_id("top").fill("100")
    page.get_by_test_id("find-button").click()
    page.wait_for_function("document.body.dataset.answered !== undefined")
    error = page.get_by_test_id("error")
    assert error.is_hidden(), error.text_content()


def _local(moment: datetime, zone: str) -> str:
    return moment.astimezone(ZoneInfo(zone)).strftime("%Y-%m-%d %H:%M")


def test_upload_plan_and_switch_zones(
    offline: tuple[Page, list[str]],
    base_url: str,  # noqa: F811 - the fixture
    tmp_path: Path,
) -> None:
    page, blocked = offline
    _ask(page, base_url, tmp_path)
    items = page.get_by_test_id("calendar-item")
    assert [items.nth(i).get_attribute("data-id") for i in range(2)] == ["alice", "bob"]

    expected = _brute_force(BODY)
    rows = page.get_by_test_id("slot-row")
    assert rows.count() == len(expected)
    assert [r.get_attribute("data-start") for r in rows.all()] == [
        m.strftime("%Y-%m-%dT%H:%M:%SZ") for m in expected
    ]
    assert rows.first.get_by_test_id("slot-free").text_content() == "alice, bob"
    starts = page.get_by_test_id("slot-start")
    assert starts.all_text_contents() == [_local(m, "Europe/Berlin") for m in expected]
    assert page.get_by_test_id("busy-bar").count() == 4
    assert page.get_by_test_id("slot-bar").count() == len(expected)
    # every busy bar keeps its full label for hover, whether or not it fits
    titles = [b.get_attribute("title") or "" for b in page.get_by_test_id("busy-bar").all()]
    assert any(t.startswith("Standup and review: 2026-10-05 09:30") for t in titles)
    days = page.get_by_test_id("axis-day").all_text_contents()
    assert days == ["Tue 2026-10-06"]
    _keep(page, tmp_path, "find-slot-required")

    page.get_by_test_id("display-tz").select_option("Asia/Tokyo")
    assert starts.all_text_contents() == [_local(m, "Asia/Tokyo") for m in expected]
    assert page.get_by_test_id("axis-day").all_text_contents() == [
        "Tue 2026-10-06",
        "Wed 2026-10-07",
    ]
    page.get_by_test_id("display-tz").select_option("UTC")
    assert starts.first.text_content() == expected[0].strftime("%Y-%m-%d %H:%M")
    assert blocked == []


def test_download_the_first_slot(
    offline: tuple[Page, list[str]],
    base_url: str,  # noqa: F811 - the fixture
    tmp_path: Path,
) -> None:
    page, _ = offline
    _ask(page, base_url, tmp_path)
    page.get_by_test_id("event-title").fill("Design review")
    first = page.get_by_test_id("slot-row").first
    with page.expect_download() as caught:
        first.get_by_test_id("slot-download").click()
    download = caught.value
    assert download.suggested_filename == "slot-1.ics"
    target = tmp_path / "slot.ics"
    download.save_as(str(target))
    calendar = icalendar.Calendar.from_ical(target.read_bytes())
    (event,) = calendar.walk("VEVENT")
    start = event.decoded("DTSTART")
    assert start.astimezone(UTC) == _brute_force(BODY)[0]
    assert start.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ") == first.get_attribute("data-start")
    assert str(event.get("SUMMARY")) == "Design review"


def test_the_planner_lab_shows_dates_and_the_chosen_zone(
    offline: tuple[Page, list[str]],
    base_url: str,  # noqa: F811 - the fixture
) -> None:
    page, blocked = offline
    page.goto(f"{base_url}/lab/")
    page.wait_for_selector("body[data-ready=true]")
    assert page.get_by_test_id("nav-find-slot").get_attribute("href") == "find-slot.html"
    page.get_by_test_id("example-select").select_option("design-review")
    page.get_by_test_id("load-example").click()
    page.wait_for_function(
        "document.getElementById('request-input').value.includes('example-design-review')"
    )
    page.get_by_test_id("plan-button").click()
    page.wait_for_function("document.getElementById('status').textContent.startsWith('Planned')")
    example = json.loads((EXAMPLES_DIR / "design-review.json").read_text(encoding="utf-8"))
    best = cerebri.plan(example).candidates[0].start.to_datetime()
    assert best is not None
    berlin = best.astimezone(ZoneInfo("Europe/Berlin"))
    first = page.get_by_test_id("candidate-start").first
    assert first.text_content() == f"{best:%Y-%m-%d %H:%M} UTC"
    page.get_by_test_id("display-tz").select_option("Europe/Berlin")
    assert first.text_content() == f"{berlin:%Y-%m-%d %H:%M} Europe/Berlin"
    chosen = page.get_by_test_id("chosen-candidate").first
    assert f"{berlin:%Y-%m-%d %H:%M} Europe/Berlin" in (chosen.get_attribute("title") or "")
    assert page.get_by_test_id("timeline-days").text_content()
    assert blocked == []


@pytest.mark.parametrize(
    ("path", "rendered"),
    [
        ("/docs", ".opblock-summary-path[data-path='/v1/find-slot']"),
        ("/redoc", "h2:has-text('Ranked meeting slots over the calendars sent')"),
    ],
)
def test_api_docs_render_without_a_network(
    offline: tuple[Page, list[str]],
    base_url: str,  # noqa: F811 - the fixture
    path: str,
    rendered: str,
) -> None:
    page, blocked = offline
    page.goto(f"{base_url}{path}")
    heading = page.locator(rendered).first
    heading.wait_for(state="visible")
    assert heading.is_visible()
    assert page.get_by_text("Ranked meeting slots over the calendars sent").first.is_visible()
    assert blocked == [], f"the docs page tried to reach {blocked}"


def test_an_optional_attendee_ranks_the_slots(
    offline: tuple[Page, list[str]],
    base_url: str,  # noqa: F811 - the fixture
    tmp_path: Path,
) -> None:
    """Alice is required, Carol optional, preferred start 15:00: the first slot is the one
    nearest 15:00 where Carol is free too (not Monday 15:00, when she is away)."""
    page, blocked = offline
    _upload(page, base_url, tmp_path, [("alice", ALICE), ("carol", CAROL)])
    page.locator("[data-testid=calendar-item][data-id=carol]").get_by_test_id(
        "calendar-optional"
    ).check()
    assert page.get_by_test_id("prefer").is_hidden()
    page.get_by_test_id("prefer-kind").select_option("at")
    page.get_by_test_id("prefer").fill("15:00")
    _find(page)

    calendars = [{"id": "alice", "ics": ALICE}, {"id": "carol", "ics": CAROL, "optional": True}]
    body = {**OPTIONAL_BODY, "calendars": calendars, "prefer": "15:00"}
    expected, _ = _ranked_brute_force(body)
    alone, _ = _ranked_brute_force({**body, "calendars": calendars[:1]})
    assert expected[0]["free"] == ["carol"]
    assert alone[0]["start"] != expected[0]["start"]  # Carol changes the answer
    rows = page.get_by_test_id("slot-row")
    assert rows.count() == len(expected)
    assert [r.get_attribute("data-start") for r in rows.all()] == [
        m["start"].strftime("%Y-%m-%dT%H:%M:%SZ") for m in expected
    ]
    first = rows.first
    assert first.get_by_test_id("slot-free").text_content() == "alice, carol (optional)"
    busy_row = rows.nth([bool(m["busy"]) for m in expected].index(True))
    assert busy_row.get_by_test_id("slot-free").text_content() == "alice"
    assert busy_row.get_by_test_id("slot-not-free").text_content() == "carol (busy)"
    # Carol's row is drawn apart, with her own bars
    assert page.get_by_test_id("timeline-optional").count() == 1
    assert page.get_by_test_id("optional-busy-bar").count() == 2
    assert page.get_by_test_id("busy-bar").count() == 2
    _keep(page, tmp_path, "find-slot")

    with page.expect_download() as caught:
        first.get_by_test_id("slot-download").click()
    target = tmp_path / "slot.ics"
    caught.value.save_as(str(target))
    (event,) = icalendar.Calendar.from_ical(target.read_bytes()).walk("VEVENT")
    assert event.decoded("DTSTART").astimezone(UTC) == expected[0]["start"]
    assert blocked == []
