"""``cerebri plan-graph``: validate, from-request, capabilities (exit codes 0/1/2)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

import cerebri
from cerebri.cli import app
from cerebri.planner import action_plan_for
from cerebri.plans import builtin_registry, draft_from_action_plan
from tests.planner.helpers import EXAMPLE

MODEL_DRAFTS = Path(__file__).parents[1] / "plans" / "model_drafts"
runner = CliRunner()


def _draft_file(tmp_path: Path) -> Path:
    result = runner.invoke(app, ["plan-graph", "from-request", str(EXAMPLE)])
    assert result.exit_code == 0, result.output
    path = tmp_path / "draft.json"
    path.write_text(result.stdout, encoding="utf-8")
    return path


def test_from_request_prints_the_direct_strategy_draft(tmp_path: Path) -> None:
    printed = json.loads(_draft_file(tmp_path).read_text(encoding="utf-8"))
    request = cerebri.parse_request(EXAMPLE.read_bytes())
    raw = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    zones = {
        o["id"]: o["timezone"] for o in raw["context"]["objects"] if o["id"] in raw["target_ids"]
    }
    assert zones  # the created event's zone rides along, for approvers (decision 0039)
    assert printed == draft_from_action_plan(action_plan_for(request), zones=zones).to_wire()
    assert printed["steps"][0]["params"]["timezone"] == next(iter(zones.values()))
    again = runner.invoke(
        app, ["plan-graph", "from-request", str(EXAMPLE), "--failed", "direct_action_verified"]
    )
    assert json.loads(again.stdout)["strategy"] == "read_only_diagnosis"


def test_validate_exit_codes(tmp_path: Path) -> None:
    draft = _draft_file(tmp_path)
    ok = runner.invoke(app, ["plan-graph", "validate", str(draft), "--json"])
    assert ok.exit_code == 0
    assert json.loads(ok.stdout) == {"valid": True, "problems": [], "ignored": []}
    locked = runner.invoke(
        app, ["plan-graph", "validate", str(draft), "--json", "--lock", "calendar.event.create"]
    )
    assert locked.exit_code == 1
    report = json.loads(locked.stdout)
    assert [(p["code"], p["step"]) for p in report["problems"]] == [
        ("draft.capability_locked", "create-0")
    ]
    table = runner.invoke(app, ["plan-graph", "validate", str(draft)])
    assert (table.exit_code, table.stdout.splitlines()[0]) == (0, "valid")


def test_model_drafts_are_stripped_only_with_model(tmp_path: Path) -> None:
    hostile = MODEL_DRAFTS / "claims_progress.json"
    strict = runner.invoke(app, ["plan-graph", "validate", str(hostile)])
    assert strict.exit_code == 2
    assert strict.stderr.startswith("error draft.schema at /steps/0/")
    assert "--model" in strict.stderr
    stripped = runner.invoke(app, ["plan-graph", "validate", str(hostile), "--model", "--json"])
    report = json.loads(stripped.stdout)
    assert "/steps/0/status" in report["ignored"]
    assert stripped.exit_code == (0 if report["valid"] else 1)


def test_unreadable_inputs_exit_2(tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text("{", encoding="utf-8")
    for args in (
        ["plan-graph", "validate", str(broken)],
        ["plan-graph", "validate", str(tmp_path / "missing.json")],
        ["plan-graph", "validate", "--lock", "calendar.event.delete", str(broken)],
        ["plan-graph", "from-request", str(broken)],
        ["plan-graph", "from-request", str(EXAMPLE), "--failed", "teleport"],
    ):
        result = runner.invoke(app, args)
        assert result.exit_code == 2, args
        assert result.stderr.startswith("error "), args


def test_from_request_refuses_analysis_only(tmp_path: Path) -> None:
    document = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    document["scope"]["max_mutations"] = 0
    path = tmp_path / "analysis.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    result = runner.invoke(app, ["plan-graph", "from-request", str(path)])
    assert result.exit_code == 2
    assert result.stderr.startswith("error plan.analysis_only")


def test_capabilities_lists_the_registry() -> None:
    result = runner.invoke(
        app, ["plan-graph", "capabilities", "--json", "--lock", "calendar.event.move"]
    )
    assert result.exit_code == 0
    assert json.loads(result.stdout) == builtin_registry().lock("calendar.event.move").to_wire()


def test_every_shape_problem_gets_an_error_line(tmp_path: Path) -> None:
    draft = {
        "objective": "x",
        "origin": "operator",
        "strategy": "s",
        "steps": [
            {"key": "a b", "kind": "wait", "wait": {"seconds": "1"}},
            {"key": "c", "kind": "wait", "wait": {"seconds": -3}},
        ],
    }
    path = tmp_path / "draft.json"
    path.write_text(json.dumps(draft), encoding="utf-8")
    result = runner.invoke(app, ["plan-graph", "validate", str(path)])
    assert result.exit_code == 2
    assert [line.split(":")[0] for line in result.stderr.splitlines()] == [
        "error draft.schema at /steps/0/key",
        "error draft.schema at /steps/0/wait/seconds",
        "error draft.schema at /steps/1/wait/seconds",
    ]
