"""The --table rendering: hints for refusals that come from settings, not the calendar."""

from __future__ import annotations

from typing import Any

from rich.console import Console

import cerebri
from cerebri.cli.render import render_result
from cerebri.planner.validate import limit_breaches
from tests.planner.helpers import DAY, example


def _render(document: dict[str, Any], top: int | None = None) -> str:
    request = cerebri.parse_request(document)
    console = Console(width=200, record=True, highlight=False)
    render_result(cerebri.plan(request), request, console, top=top)
    return console.export_text()


def _overlapping(document: dict[str, Any], blocker: str, reason: str) -> list[str]:
    """Rejected starts whose ``reason`` names ``blocker``, read from the result JSON."""
    wire = cerebri.plan(document).to_wire()
    return [
        r["start"]
        for r in wire["conflicts"]["rejections"]
        if any(
            x["HardConstraint"]["reason"] == reason
            and blocker in x["HardConstraint"]["evidence"]["blocking_objects"]
            for x in r["reasons"]
            if "HardConstraint" in x
        )
    ]


def test_one_day_is_one_line_with_its_kinds_counted_once() -> None:
    text = _render(example())
    wire = cerebri.plan(example()).to_wire()
    starts = [r["start"] for r in wire["conflicts"]["rejections"]]
    assert f"{len(starts)} rejected starts, each counted once" in text
    inside = {
        s
        for blocker in ("customer-call", "lunch", "planning", "standup")
        for s in _overlapping(example(), blocker, "Overlap")
    }
    near = {
        s
        for blocker in ("customer-call", "lunch", "planning", "standup")
        for s in _overlapping(example(), blocker, "InsufficientBuffer")
    } - inside
    call = _overlapping(example(), "customer-call", "Overlap")
    rest = len(starts) - len(inside) - len(near)
    # Starts are shown on their local day in the target's zone (Berlin, 2026-10-05: a Monday).
    assert (
        f"  Mon 10-05: {len(starts)} starts; {len(inside)} overlap customer-call ×{len(call)}"
        in text
    )
    assert f"; {len(near)} in the buffer of " in text
    assert f"; {rest} break LATEST_END ×{rest}" in text
    assert "2026-10-05 14:00" in text  # 12:00Z is 14:00 in Berlin


def test_top_limits_rows() -> None:
    text = _render(example(), top=1)
    assert "… 3 more candidate(s)" in text


def test_window_shorter_than_duration_is_explained() -> None:
    document = example()
    document["scope"]["time_range"] = {"start": f"{DAY}07:00:00Z", "end": f"{DAY}07:30:00Z"}
    assert "window is shorter than the duration" in _render(document)


def test_budget_stop_is_explained() -> None:
    document = example()
    document["budget"]["max_candidates"] = 3
    assert "raise it (or the granularity) to search the rest" in _render(document)


def test_input_limit_names_the_limit() -> None:
    document = example()
    document["budget"]["max_candidates"] = 4097
    request = cerebri.parse_request(document)
    breaches = limit_breaches(request)
    assert any(
        b.startswith("budget.max_candidates is 4097, more than max_candidates 4096")
        for b in breaches
    )
    assert "budget.max_candidates is 4097" in _render(document)


def test_moved_object_limit_has_a_hint() -> None:
    document = example()
    document["operation"] = "MOVE"
    document["context"]["objects"] = document["context"]["objects"][1:]
    document["target_ids"] = ["planning"]
    document["duration"]["value"]["knowledge"]["data"] = 3600
    document["constraints"] = []
    document["policy"]["snapshot"]["mutation"]["allowed_actions"] = ["MOVE_EVENT"]
    document["planning_capability"]["mutations"] = [
        {
            "object_id": "planning",
            "calendar_id": "work",
            "integration_id": "local-ics",
            "kind": "MOVE_EVENT",
        }
    ]
    text = _render(document)  # the example allows budget.max_moved_objects = 0
    assert "MovedObjectLimit" in text
    assert "budget.max_moved_objects is 0" in text
