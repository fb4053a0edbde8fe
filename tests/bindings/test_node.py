"""The Node package (bindings/node/) under ``node --test``, run by pytest so ``make test`` and
its xdist workers run it.

The byte-identity check is split: here, each shipped example's HTTP body (``POST /v1/plan``,
``/v1/validate``, FastAPI's TestClient) is checked against the CLI (``cerebri plan FILE``:
the same document, pretty-printed) and the Python API; the Node tests then check that every
Node call returns exactly those HTTP bytes (decision 0032). Temporal and find-slot requests
are checked the same way, find-slot against HTTP and the Python API (its CLI answer is a
different document, decision 0029).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from cerebri._json import compact, pretty
from cerebri.calendars.find_slot_body import read_find_slot_body
from cerebri.calendars.wire import answer_wire, plan_slots
from cerebri.cli import app as cli_app
from cerebri.cpir.temporal_report import temporal_report
from cerebri.optimize import plan, validate
from cerebri.service import create_app

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "bindings" / "node"
EXAMPLES = REPO / "src" / "cerebri" / "service" / "examples"
CEREBRI = Path(sys.executable).parent / "cerebri"
JSON = {"Content-Type": "application/json"}

TEMPORAL: dict[str, Any] = {
    "horizon": {"start": "2026-03-27T00:00:00Z", "end": "2026-04-02T00:00:00Z"},
    "busy": [
        {
            "range": {"start": "2026-03-30T08:30:00Z", "end": "2026-03-30T09:30:00Z"},
            "buffers": {"before_seconds": 600, "after_seconds": 1800, "travel_seconds": 0},
        }
    ],
    "coverage": "Complete",
    "recurrences": [
        {
            "start_date": "2026-03-26",
            "local_time": "09:00:00",
            "timezone": "Europe/Berlin",
            "duration": 3600,
            "pattern": {"frequency": "DAILY", "every": 1},
            "gap_policy": "Reject",
            "fold_policy": "Reject",
        }
    ],
    "limits": {"max_occurrences": 20, "max_dates": 100},
}


def _ics(*events: tuple[str, str, str]) -> str:
    lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//cerebri tests//node//EN"]
    for uid, start, end in events:
        lines += ["BEGIN:VEVENT", f"UID:{uid}", "DTSTAMP:20260101T000000Z"]
        lines += [f"DTSTART:{start}", f"DTEND:{end}", "SUMMARY:Busy \u00e9t\u00e9", "END:VEVENT"]
    return "\r\n".join([*lines, "END:VCALENDAR"]) + "\r\n"


FIND_SLOT: dict[str, Any] = {
    "calendars": [
        {"id": "alice", "ics": _ics(("a1", "20261005T073000Z", "20261005T090000Z"))},
        {"id": "bob", "ics": _ics(("b1", "20261005T100000Z", "20261005T114500Z"))},
    ],
    "duration": "45m",
    "between": "2026-10-05T08:00/2026-10-06T18:00",
    "tz": "Europe/Berlin",
    "working_hours": "09:00-17:00",
    "granularity": "15m",
    "top": 20,
}


def _find_slot_api(body: bytes) -> str:
    ask = read_find_slot_body(body)
    answer, busy = plan_slots(ask)
    return compact(answer_wire(ask, answer, busy))


def _node(test_file: str, extra_env: dict[str, str] | None = None) -> None:
    node = shutil.which("node")
    assert node is not None, "Node 20 is needed for the bindings/node tests (node on PATH)"
    env = {**os.environ, "CEREBRI_BIN": str(CEREBRI), **(extra_env or {})}
    done = subprocess.run(
        [node, "--test", f"test/{test_file}"],
        cwd=PACKAGE,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-20000:] + done.stderr[-5000:]


def _cli(command: str, source: Path) -> bytes:
    """``cerebri COMMAND SOURCE``'s standard output, run in this process (the CLI's bytes)."""
    done = CliRunner().invoke(cli_app, [command, str(source)])
    assert done.exit_code == 0, done.output
    return done.stdout_bytes


def _case(tmp: Path, op: str, name: str, source: Path, body: bytes) -> dict[str, str]:
    expected = tmp / f"{op}-{name}.expected.json"
    expected.write_bytes(body)
    return {"op": op, "name": name, "input": str(source), "expected": str(expected)}


def test_node_answers_are_the_http_and_cli_bytes(tmp_path: Path) -> None:
    client = TestClient(create_app())
    cases: list[dict[str, str]] = []
    examples = sorted(EXAMPLES.glob("*.json"))
    assert len(examples) == 8
    for source in examples:
        text = source.read_bytes()
        for op, api in (("plan", plan), ("validate", validate)):
            http = client.post(f"/v1/{op}", content=text, headers=JSON)
            assert http.status_code == 200, http.text
            cli = _cli(op, source)
            # the CLI pretty-prints the same document; HTTP and the bridge write it compact
            assert cli == pretty(json.loads(http.content)).encode("utf-8")
            assert http.content == compact(json.loads(cli)).encode("utf-8")
            assert http.content == compact(api(text).to_wire()).encode("utf-8")
            cases.append(_case(tmp_path, op, source.stem, source, http.content))

    temporal_source = tmp_path / "temporal.json"
    temporal_source.write_text(json.dumps(TEMPORAL, indent=2), "utf-8")
    http = client.post("/v1/temporal", content=temporal_source.read_bytes(), headers=JSON)
    cli = _cli("temporal", temporal_source)
    assert http.content == compact(json.loads(cli)).encode("utf-8")
    assert http.content == compact(temporal_report(TEMPORAL).to_wire()).encode("utf-8")
    cases.append(_case(tmp_path, "temporal", "berlin-dst", temporal_source, http.content))

    slot_source = tmp_path / "find-slot.json"
    slot_source.write_text(json.dumps(FIND_SLOT, ensure_ascii=False), "utf-8")
    http = client.post("/v1/find-slot", content=slot_source.read_bytes(), headers=JSON)
    assert http.status_code == 200, http.text
    assert http.content == _find_slot_api(slot_source.read_bytes()).encode("utf-8")
    cases.append(_case(tmp_path, "find_slot", "two-calendars", slot_source, http.content))

    manifest = tmp_path / "manifest.json"
    manifest.write_text(json.dumps(cases), "utf-8")
    _node("identity.test.mjs", {"CEREBRI_NODE_EXPECTED": str(manifest)})


@pytest.mark.parametrize(
    "test_file", ["failures.test.mjs", "concurrency.test.mjs", "lifecycle.test.mjs"]
)
def test_node_limits_failures_and_concurrency(test_file: str) -> None:
    _node(test_file)


@pytest.mark.parametrize("name", ["design-review", "infeasible-workshop"])
def test_the_readme_example_plans_a_shipped_example(name: str, tmp_path: Path) -> None:
    """``bindings/node/examples/plan.mjs`` prints the PlanningResult of the Python API."""
    node = shutil.which("node")
    assert node is not None, "Node 20 is needed for the bindings/node tests (node on PATH)"
    source = EXAMPLES / f"{name}.json"
    env = {**os.environ, "CEREBRI_BIN": str(CEREBRI)}
    done = subprocess.run(
        [node, "examples/plan.mjs", str(source)],
        cwd=PACKAGE,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == plan(source.read_bytes()).to_wire()
    broken = tmp_path / "broken.json"
    broken.write_text("{", "utf-8")
    failed = subprocess.run(
        [node, "examples/plan.mjs", str(broken)],
        cwd=PACKAGE,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert failed.returncode == 1
    assert failed.stderr.startswith("error json.syntax")


def test_node_event_changes_are_the_http_and_cli_bytes(tmp_path: Path) -> None:
    """rescheduleEvent/cancelEvent/updateEvent (docs/decisions/0058): the HTTP body, which is
    the CLI's ``--json`` document plus its ``--emit-request`` request, through Node."""
    from tests.cli.test_cli_changes import ALICE_BUSY, BOB_BUSY, HEAD, SYNC, TAIL, WEEKLY
    from tests.cli.test_cli_changes import _busy_events as busy_events

    texts = {
        "alice": HEAD + SYNC + WEEKLY + busy_events("alice", ALICE_BUSY) + TAIL,
        "bob": HEAD + SYNC + WEEKLY + busy_events("bob", BOB_BUSY) + TAIL,
    }
    files = []
    for name, text in texts.items():
        (tmp_path / f"{name}.ics").write_text(text, newline="")
        files += ["--ics", str(tmp_path / f"{name}.ics")]
    calendars = [{"id": name, "ics": text} for name, text in texts.items()]
    berlin = ["--tz", "Europe/Berlin"]
    asks = [
        (
            "reschedule_event",
            "sync",
            {"uid": "sync@example.com", "between": "2026-10-05T08:00/2026-10-05T18:00"},
            ["reschedule", "sync@example.com", "--between", "2026-10-05T08:00/2026-10-05T18:00"],
        ),
        (
            "cancel_event",
            "weekly-instance",
            {"uid": "weekly@example.com", "instance": "2026-10-12T14:00"},
            ["cancel-event", "weekly@example.com", "--instance", "2026-10-12T14:00"],
        ),
        (
            "update_event",
            "sync-longer",
            {"uid": "sync@example.com", "duration": "90m", "title": "Long sync"},
            ["update-event", "sync@example.com", "--duration", "90m", "--title", "Long sync"],
        ),
    ]
    client = TestClient(create_app())
    cases = []
    for op, name, ask, command in asks:
        source = tmp_path / f"{op}.json"
        source.write_text(json.dumps({**ask, "calendars": calendars, "tz": "Europe/Berlin"}))
        route = "/v1/events/" + op.removesuffix("_event")
        http = client.post(route, content=source.read_bytes(), headers=JSON)
        assert http.status_code == 200, http.text
        document, request = (
            CliRunner().invoke(cli_app, [*command, *files, *berlin, flag])
            for flag in ("--json", "--emit-request")
        )
        assert document.exit_code == 0 and request.exit_code == 0, document.output
        whole = {**json.loads(document.stdout), "request": json.loads(request.stdout)}
        assert http.content == compact(whole).encode("utf-8")
        cases.append(_case(tmp_path, op, name, source, http.content))
    manifest = tmp_path / "changes.json"
    manifest.write_text(json.dumps(cases), "utf-8")
    _node("changes.test.mjs", {"CEREBRI_NODE_CHANGES": str(manifest)})


def test_node_optimize_is_the_cli_bytes(tmp_path: Path) -> None:
    """optimize (decision 0080): ``cerebri optimize --json``'s document, compacted, equals the
    ``POST /v1/optimize`` body; the Node test checks its calls return exactly those bytes."""
    from tests.optimize_wire.test_wire_answer import repair

    infeasible = tmp_path / "infeasible.json"
    infeasible.write_text(json.dumps(repair(0)), "utf-8")
    client = TestClient(create_app())
    cases = []
    for name, source in (
        ("interview-week", EXAMPLES / "interview-week.json"),
        ("infeasible", infeasible),
    ):
        done = CliRunner().invoke(cli_app, ["optimize", "--json", str(source)])
        assert done.exit_code == 0, done.output
        http = client.post("/v1/optimize", content=source.read_bytes(), headers=JSON)
        assert http.status_code == 200, http.text
        assert http.content == compact(json.loads(done.stdout)).encode("utf-8")
        expected = tmp_path / f"optimize-{name}.expected.json"
        expected.write_bytes(http.content)
        cases.append({"name": name, "input": str(source), "expected": str(expected)})
    manifest = tmp_path / "optimize.json"
    manifest.write_text(json.dumps(cases), "utf-8")
    _node("optimize.test.mjs", {"CEREBRI_NODE_OPTIMIZE": str(manifest)})
