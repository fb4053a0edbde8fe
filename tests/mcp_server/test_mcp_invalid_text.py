"""``plan_status`` and ``preview`` refuse a plan id a store cannot hold, on both back ends.

A NUL character (U+0000) in ``plan_id`` was a ``psycopg.DataError`` (an ``internal.error``)
on PostgreSQL and ``execution.not_found`` on SQLite; a lone surrogate failed to encode on
both. Now it is the typed result ``input.invalid_text`` at ``/plan_id`` on both
(docs/decisions/0036), through a real ``cerebri mcp`` subprocess.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from cerebri.errors import CerebriError
from cerebri.execution.store import init
from cerebri.mcp.arguments import PlanStatusArgs, PreviewArgs
from cerebri.mcp.settings import McpSettings
from cerebri.mcp.tools import plan_status_tool, preview_tool
from cerebri.temporal import Instant
from tests.mcp_server.support import live_server

AT = "2026-10-01T00:00:00Z"


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    url: str = (
        f"sqlite:///{tmp_path / 'plans.db'}"
        if request.param == "sqlite"
        else request.getfixturevalue("postgres_url")
    )
    init(url)
    return url


def test_a_nul_in_plan_id_is_invalid_text(store: str) -> None:
    with live_server("--at", AT, "--store", store) as live:
        for tool in ("plan_status", "preview"):
            refused = live.error(tool, {"plan_id": "plan\x00-1"})
            assert (refused["code"], refused["path"]) == ("input.invalid_text", "/plan_id"), tool
            assert "NUL character (U+0000) at offset 4" in refused["message"], tool
        # a plain unknown id is still not found: only the NUL is refused
        assert live.error("plan_status", {"plan_id": "plan-1"})["code"] == "execution.not_found"


def test_a_lone_surrogate_in_plan_id_is_invalid_text(store: str) -> None:
    # JSON-RPC clients cannot send a lone surrogate as UTF-8, so the tools are called as the
    # server calls them, with the arguments its JSON parser makes of a "\ud800" escape.
    settings = McpSettings(store=store, at=Instant.parse(AT))
    for call in (
        lambda: plan_status_tool(PlanStatusArgs(plan_id="\ud800x"), settings),
        lambda: preview_tool(PreviewArgs(plan_id="\ud800x"), settings),
    ):
        with pytest.raises(CerebriError) as refused:
            call()
        assert (refused.value.code, refused.value.path) == ("input.invalid_text", "/plan_id")
        assert "lone surrogate (U+D800) at offset 0" in refused.value.message
