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


def test_rejections_are_grouped_with_folded_ranges() -> None:
    text = _render(example())
    assert "30 rejected start(s)" in text
    # Starts are shown in the target's zone: 08:30-09:45Z is 10:30-11:45 in Berlin.
    assert "6 × NO_OVERLAP on design-review: Overlap, blocked by customer-call: 10:30-11:45" in text
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
