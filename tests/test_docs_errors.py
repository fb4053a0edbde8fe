"""The errors page lists every code: the docs hook scans src/cerebri for them at build time
(docs/hooks/cerebri_docs.py ``error_codes``), and the page's hand-written table names only
codes that exist."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parent.parent
PAGE = REPO / "docs" / "reference" / "errors.md"


def _hook() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "cerebri_docs", REPO / "docs" / "hooks" / "cerebri_docs.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_scan_finds_codes_of_every_kind() -> None:
    codes = set(_hook().error_codes())
    expected = {
        "cerebri.error",  # a class attribute
        "input.invalid_option",  # a code= keyword
        "input.missing",
        "ics.syntax",  # a Literal list
        "caldav.unreachable",
        "caldav.invalid_argument",  # package_argument_error("caldav")
        "calendars.no_calendar",
        "credentials.insecure",
        "grant.missing",  # a step reason "grant.missing: ..."
        "proposal.unsigned",
        "calendar.slot_taken",
        "calendar.unauthorized",
        "approval.agent_cannot_approve",
        "approval.bad_signature",
        "approval.wrong_key",
        "approval.signature_required",
        "auth.unauthorized",
        "mcp.unknown_tool",
        "http.body_timeout",
        "serve.invalid_option",
        "constraint.redundant",
        "store.not_initialised",
        "temporal.nonexistent_local_time",  # TemporalError
        "proposal.key_registry",  # a module constant
    }
    assert expected <= codes
    # Capability names, field paths and file names are not codes.
    assert not codes & {"calendar.freebusy", "service.status", "budget.max_candidates"}
    assert all(re.fullmatch(r"[a-z]+\.[a-z][a-z_]*", code) for code in codes)


def test_the_page_lists_every_code_and_names_only_real_ones() -> None:
    text = PAGE.read_text(encoding="utf-8")
    assert "<!-- cerebri:errors -->" in text
    generated = _hook()._errors_markdown()
    codes = set(_hook().error_codes())
    for code in codes:
        assert f"`{code}`" in generated
    named = {  # cerebri.ics and the like are module names
        code
        for code in re.findall(r"`([a-z]+\.[a-z][a-z_]*)`", text)
        if not code.startswith("cerebri.")
    }
    assert named <= codes, sorted(named - codes)
