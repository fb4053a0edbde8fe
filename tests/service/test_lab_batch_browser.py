"""The Lab's week grid of an OPTIMIZE batch in a real browser (decision 0080): the shipped
``interview-week`` example is planned, and every meeting must stand in the column of its
local day and on the row of its local hour, in the request's zone, with the moved event's old
place outlined; the text table says the same.

The expected days and hours are computed here from the answer JSON (``cerebri.plan``) with
zoneinfo, not read from the page's own code. Fixtures (uvicorn app, Debian's chromium) as
``test_lab_browser.py``.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

import cerebri
from cerebri.service.settings import EXAMPLES_DIR
from tests.service.test_lab_browser import (  # noqa: F401 - fixtures
    _plan,
    _screenshot,
    base_url,
    browser,
    page,
)

# ruff: noqa: F811 - the test functions take the imported ``page`` fixture

if TYPE_CHECKING:
    from playwright.sync_api import Locator, Page


def _local(text: str, zone: ZoneInfo) -> datetime:
    return datetime.fromisoformat(text).astimezone(zone)


def _top(locator: Locator) -> float:
    box = locator.bounding_box()
    assert box is not None
    return float(box["y"])


def _expected() -> tuple[dict[str, Any], list[dict[str, Any]], ZoneInfo]:
    request = json.loads((EXAMPLES_DIR / "interview-week.json").read_text(encoding="utf-8"))
    objects = {o["id"]: o for o in request["context"]["objects"]}
    zone = ZoneInfo(objects[min(request["target_ids"])]["timezone"])  # the batch's day zone
    answer = cerebri.plan(json.dumps(request)).to_wire()
    return request, answer["batch"]["assignments"], zone


def _check_the_move(
    page: Page, request: dict[str, Any], assignments: list[dict[str, Any]], zone: ZoneInfo
) -> datetime:
    """The moved event: its old place outlined where it was, beside (not under) the meeting
    that took it, and its new place saying where it came from. Returns its old local start."""
    moved = [a for a in assignments if a["moved"]]
    assert [a["object_id"] for a in moved] == ["ann-bob-1on1"]
    knowledge = {o["id"]: o["time"]["value"]["knowledge"] for o in request["context"]["objects"]}
    was = _local(knowledge["ann-bob-1on1"]["data"]["start"], zone)
    ghost = page.locator('[data-testid="batch-ghost"][data-object-id="ann-bob-1on1"]')
    assert ghost.count() == 1
    assert ghost.locator("xpath=..").get_attribute("data-day") == was.date().isoformat()
    assert ghost.get_attribute("data-start-local") == f"{was:%H:%M}"
    note = page.locator('[data-testid="batch-item"][data-object-id="ann-bob-1on1"]')
    assert f"moved from {was:%a %Y-%m-%d %H:%M}" in (
        note.get_by_test_id("batch-moved-from").text_content() or ""
    )
    assert page.get_by_test_id("batch-ghost").count() == len(moved)
    # the old place is not hidden under the meeting that took it: side by side
    ghost_box = ghost.bounding_box()
    assert ghost_box is not None
    for other in page.locator('[data-testid="batch-item"]').all():
        box = other.bounding_box()
        assert box is not None
        apart = box["x"] >= ghost_box["x"] + ghost_box["width"] or (
            box["x"] + box["width"] <= ghost_box["x"]
        )
        below = box["y"] >= ghost_box["y"] + ghost_box["height"] - 1 or (
            box["y"] + box["height"] <= ghost_box["y"] + 1
        )
        assert apart or below, other.get_attribute("data-object-id")

    return was


def test_the_week_grid_places_every_meeting_and_marks_the_move(page: Page, tmp_path: Path) -> None:
    request, assignments, zone = _expected()
    page.get_by_test_id("example-select").select_option("interview-week")
    page.get_by_test_id("load-example").click()
    page.wait_for_function(
        "document.getElementById('request-input').value.includes('example-interview-week')"
    )
    _plan(page)

    status = page.get_by_test_id("batch-status")
    assert status.get_attribute("data-status") == "OPTIMAL"
    assert status.text_content() == "Status: proven optimal"
    items = page.get_by_test_id("batch-item")
    assert items.count() == len(assignments) == len(request["batch"]["meetings"])
    for assignment in assignments:
        start = _local(assignment["range"]["start"], zone)
        end = _local(assignment["range"]["end"], zone)
        item = page.locator(
            f'[data-testid="batch-item"][data-object-id="{assignment["object_id"]}"]'
        )
        column = item.locator("xpath=..")
        assert column.get_attribute("data-day") == start.date().isoformat()
        assert item.get_attribute("data-start-local") == f"{start:%H:%M}"
        assert item.get_attribute("data-end-local") == f"{end:%H:%M}"
        change = "new" if assignment["new"] else "moved" if assignment["moved"] else "kept"
        assert item.get_attribute("data-change") == change
        # drawn on its hour's row (every start of this example is on the hour)
        assert start.minute == 0
        row = page.locator(f'[data-testid="batch-hour"][data-hour="{start:%H}"]')
        assert abs(_top(item) - _top(row)) < 2
        # and in its day's column, under that day's heading
        head = page.locator(f'[data-testid="batch-day"][data-day="{start.date().isoformat()}"]')
        head_box, item_box = head.bounding_box(), item.bounding_box()
        assert head_box is not None and item_box is not None
        assert head_box["x"] <= item_box["x"] < head_box["x"] + head_box["width"]
        if assignment["room_id"] is not None:
            assert item.get_by_test_id("batch-room").text_content() == f" · {assignment['room_id']}"

    was = _check_the_move(page, request, assignments, zone)

    # the text alternative: one row per meeting, the moved one with where it was
    rows = page.get_by_test_id("batch-row")
    assert rows.count() == len(assignments)
    row = page.locator('[data-testid="batch-row"][data-object-id="ann-bob-1on1"]')
    assert row.get_attribute("data-change") == "moved"
    assert (row.get_by_test_id("batch-row-from").text_content() or "").startswith(
        f"{was:%a %Y-%m-%d %H:%M}"
    )
    assert "move ann-bob-1on1: amount 1, cost" in (row.text_content() or "")
    _screenshot(page, tmp_path, "lab-interview-week")


def test_a_single_meeting_request_shows_no_batch_grid(page: Page) -> None:
    page.get_by_test_id("example-select").select_option("design-review")
    page.get_by_test_id("load-example").click()
    page.wait_for_function(
        "document.getElementById('request-input').value.includes('example-design-review')"
    )
    _plan(page)
    assert page.locator("#batch-panel").is_hidden()
    assert page.get_by_test_id("batch-item").count() == 0


def test_an_infeasible_batch_lists_the_conflicting_rules(page: Page) -> None:
    from tests.optimize_wire.test_wire_answer import repair

    request = repair(0)
    answer = cerebri.plan(json.dumps(request)).to_wire()
    assert answer["batch"]["status"] == "INFEASIBLE"
    page.get_by_test_id("request-input").fill(json.dumps(request))
    _plan(page)
    status = page.get_by_test_id("batch-status")
    assert status.text_content() == "Status: proven infeasible; these rules conflict:"
    rules = page.get_by_test_id("batch-conflict-rule").all_text_contents()
    assert rules == [f"{r['kind']}: {', '.join(r['ids'])}" for r in answer["batch"]["conflict"]]
    assert rules
    assert page.get_by_test_id("batch-item").count() == 0
