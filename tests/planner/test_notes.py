"""Notes beside the fixed ValidationReport: redundant NO_OVERLAP, HorizonMismatch explained."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

import cerebri
from cerebri.cli import app
from cerebri.planner import issue_note, validation_warnings
from tests.planner.helpers import example

NO_OVERLAP = {"object_id": "design-review", "rule": {"kind": "NO_OVERLAP"}, "evidence": []}


def _with_horizon(start: str, end: str) -> dict[str, Any]:
    document = example()
    document["context"]["temporal"] = {
        "horizon": {"start": start, "end": end},
        "coverage": "Complete",
        "limits": {"max_dates": 64, "max_occurrences": 32},
        "series": [],
    }
    return document


def _write(tmp_path: Path, document: dict[str, Any]) -> str:
    path = tmp_path / "request.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    return str(path)


def test_no_overlap_on_the_target_is_a_redundant_warning(tmp_path: Path) -> None:
    document = example()
    document["constraints"].insert(1, NO_OVERLAP)
    warnings = validation_warnings(cerebri.parse_request(document))
    assert [(w.code, w.path) for w in warnings] == [("constraint.redundant", "/constraints/1")]
    run = CliRunner().invoke(app, ["validate", _write(tmp_path, document)])
    assert run.exit_code == 0
    # stdout keeps the exact report: a warning is not an issue and leaves the state Valid.
    assert json.loads(run.stdout) == cerebri.validate(document).to_wire()
    assert json.loads(run.stdout)["state"] == "Valid"
    assert run.stderr.startswith("warning constraint.redundant at /constraints/1: ")
    assert "'design-review' is redundant" in run.stderr


def test_no_overlap_elsewhere_and_no_constraint_give_no_warning(tmp_path: Path) -> None:
    document = example()
    assert validation_warnings(cerebri.parse_request(document)) == ()
    document["constraints"].append({**NO_OVERLAP, "object_id": "lunch"})
    assert validation_warnings(cerebri.parse_request(document)) == ()
    run = CliRunner().invoke(app, ["validate", _write(tmp_path, document)])
    assert (run.exit_code, run.stderr) == (0, "")


def test_horizon_mismatch_names_both_ranges_paths_and_fix(tmp_path: Path) -> None:
    document = _with_horizon("2026-10-05T06:00:00Z", "2026-10-05T12:00:00Z")
    scope = document["scope"]["time_range"]
    request = cerebri.parse_request(document)
    report = cerebri.validate(request)
    assert [i.to_wire() for i in report.issues] == [{"Compilation": "HorizonMismatch"}]
    note = issue_note(request, report.issues[0])
    assert note is not None
    assert (note.code, note.path) == ("compilation.horizon_mismatch", "/context/temporal/horizon")
    for part in (
        "context.temporal.horizon (/context/temporal/horizon) is "
        "2026-10-05T06:00:00Z/2026-10-05T12:00:00Z",
        f"scope.time_range (/scope/time_range) is {scope['start']}/{scope['end']}",
        "set both",
    ):
        assert part in note.message
    path = _write(tmp_path, document)
    for command in (["validate", path], ["plan", path]):
        run = CliRunner().invoke(app, command)
        assert run.exit_code == 0
        assert run.stderr == f"note {note.code} at {note.path}: {note.message}\n"
    table = CliRunner().invoke(app, ["plan", "--table", path])
    assert note.message in table.stdout


def test_equal_horizon_has_no_note(tmp_path: Path) -> None:
    scope = example()["scope"]["time_range"]
    document = _with_horizon(scope["start"], scope["end"])
    request = cerebri.parse_request(document)
    assert cerebri.validate(request).issues == ()
    run = CliRunner().invoke(app, ["plan", _write(tmp_path, document)])
    assert (run.exit_code, run.stderr) == (0, "")
