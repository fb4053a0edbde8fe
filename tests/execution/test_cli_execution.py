"""The execution commands, on both back ends: the README walkthrough as real processes, then
each command's JSON, text and errors through typer's runner."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from cerebri.cli import app
from cerebri.cli._durations import parse_duration
from cerebri.clock import FakeClock, SequentialIds
from cerebri.errors import CerebriError
from cerebri.execution import ExecutionError, Executor, list_plans
from cerebri.execution import store as execution_store
from cerebri.temporal import Instant

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples" / "plans"
_SCRIPT = Path(sys.executable).with_name("cerebri")
CEREBRI = (
    [str(_SCRIPT)]
    if _SCRIPT.exists()
    else [sys.executable, "-c", "from cerebri.cli import main; main()"]
)
DEADLINE_SECONDS = 120

runner = CliRunner()

PLAN_FIELDS = {
    "id", "intention_id", "revision", "status", "status_reason", "origin", "strategy",
    "steps_done", "steps_total", "created_at", "updated_at",
}  # fmt: skip
APPROVAL_FIELDS = {
    "id", "plan_id", "step_id", "requester", "status", "status_reason", "decided_by",
    "request", "created_at", "expires_at", "decided_at", "consumed_at", "author",
    "subject_digest", "keyid", "signed",
}  # fmt: skip
STEP_FIELDS = {
    "id", "key", "position", "kind", "status", "status_reason", "attempts", "pass_ons",
    "max_attempts", "attempt_group", "lease_until", "next_run_at", "result", "observation", "error",
    "approval_id", "prediction_id", "attempt_history", "spec",
}  # fmt: skip
STUCK_FIELDS = {
    "kind", "id", "plan_id", "step_key", "status", "owner", "timeout", "stuck", "reason"
}  # fmt: skip
REPORT_FIELDS = {
    "worker_id", "claims", "takeovers", "pass_ons", "leases_lost", "timers_fired", "outages",
    "errors", "last_error",
}  # fmt: skip


def _cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CEREBRI, *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=DEADLINE_SECONDS,
        check=False,
    )


def _ok(env: dict[str, str], *args: str) -> str:
    done = _cli(env, *args)
    assert done.returncode == 0, (args, done.stdout, done.stderr)
    return done.stdout


def test_walkthrough_as_processes(store_url: str, tmp_path: Path) -> None:
    env = {**os.environ, "CEREBRI_STORE": store_url}
    calendar = tmp_path / "work.ics"
    assert "state: up to date" in _ok(env, "store", "init")
    check = json.loads(_ok(env, "submit", str(EXAMPLES / "status-check.json"), "--json"))
    assert (check["status"], check["revision"]) == ("validated", 1)
    meeting = json.loads(
        _ok(env, "submit", str(EXAMPLES / "meeting.json"), "--as", "principal:alice", "--json")
    )
    first = json.loads(
        _ok(env, "worker", "--until-idle", "--poll", "0.1s",
            "--ics-calendar", f"work={calendar}", "--json")
    )  # fmt: skip
    assert set(first) == REPORT_FIELDS
    # status-check: wait twice (parked, then due), summary; meeting: create asks for approval
    assert (first["claims"], first["errors"]) == (4, 0)
    [approval] = json.loads(_ok(env, "approvals", "list", "--json"))
    assert set(approval) == APPROVAL_FIELDS
    assert (approval["plan_id"], approval["status"]) == (meeting["plan_id"], "open")
    assert approval["requester"] == "principal:alice"
    assert approval["request"]["step"]["capability"] == "calendar.event.create"
    assert not calendar.exists() or "Design review" not in calendar.read_text(encoding="utf-8")
    decided = _ok(env, "approvals", "approve", approval["id"], "--as", "principal:bob")
    assert decided == f"approval {approval['id']}: approved by principal:bob\n"
    second = json.loads(
        _ok(env, "worker", "--until-idle", "--poll", "0.1s",
            "--ics-calendar", f"work={calendar}", "--json")
    )  # fmt: skip
    assert second["claims"] == 2  # create, then its verification
    assert "SUMMARY:Design review" in calendar.read_text(encoding="utf-8")
    shown = json.loads(_ok(env, "plans", "show", meeting["plan_id"], "--json"))
    assert set(shown) >= PLAN_FIELDS
    assert shown["status"] == "completed"
    assert [(s["key"], s["status"]) for s in shown["steps"]] == [
        ("create", "completed"),
        ("check", "completed"),
    ]
    assert all(set(s) == STEP_FIELDS for s in shown["steps"])
    assert [p["status"] for p in shown["predictions"]] == ["confirmed"]
    assert [a["status"] for a in shown["approvals"]] == ["approved"]
    listed = json.loads(_ok(env, "plans", "list", "--json"))
    assert [(p["id"], p["status"]) for p in listed] == [
        (check["plan_id"], "completed"),
        (meeting["plan_id"], "completed"),
    ]
    assert all(set(p) == PLAN_FIELDS for p in listed)
    assert json.loads(_ok(env, "stuck", "--json")) == []


def _run(*args: str) -> Any:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, (args, result.stdout, result.stderr)
    return result


def _json(*args: str) -> Any:
    return json.loads(_run(*args, "--json").stdout)


def _error(*args: str) -> dict[str, Any]:
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 2, (args, result.stdout)
    assert result.stdout == ""
    wire: dict[str, Any] = json.loads(result.stderr)
    assert set(wire) == {"code", "path", "message"}
    text = runner.invoke(app, list(args))
    assert text.exit_code == 2
    assert text.stderr.startswith(f"error {wire['code']}")
    assert text.stderr.count("\n") == 1
    return wire


@pytest.fixture
def initialised(store_url: str) -> str:
    execution_store.init(store_url)
    return store_url


def test_errors_have_codes(store_url: str, tmp_path: Path) -> None:
    assert _error("plans", "list", "--store", store_url)["code"] == "store.not_initialised"
    execution_store.init(store_url)
    s = ("--store", store_url)
    assert _error("plans", "show", "nope", *s)["code"] == "execution.not_found"
    assert _error("plans", "cancel", "nope", *s)["code"] == "execution.not_found"
    assert _error("approvals", "approve", "nope", "--as", "principal:b", *s)["code"] == (
        "execution.not_found"
    )
    assert _error("steps", "resolve", "nope", "--happened", "--as", "principal:x", *s)["code"] == (
        "execution.not_found"
    )
    assert _error("submit", *s)["code"] == "execution.invalid_argument"
    assert _error("submit", "--goal", "never", *s)["code"] == "execution.not_found"
    bad = tmp_path / "bad.json"
    bad.write_text('{"objective": "x"}', encoding="utf-8")
    assert _error("submit", str(bad), *s)["code"] == "draft.schema"
    lease = _error("worker", "--lease", "soon", "--until-idle", *s)
    assert lease["code"] == "input.invalid_option"  # every duration option's code (0039)
    assert lease["message"].startswith("--lease: cannot read duration 'soon'")
    assert _error("worker", "--lease", "0.5", "--until-idle", *s)["code"] == (
        "input.invalid_option"
    )
    assert _error("worker", "--ics-calendar", "work", "--until-idle", *s)["code"] == (
        "execution.invalid_argument"
    )
    assert _error("stuck", "--grace", "-1", *s)["code"] == "input.invalid_option"


def test_invalid_draft_is_stored_and_never_runs(initialised: str, tmp_path: Path) -> None:
    draft = json.loads((EXAMPLES / "status-check.json").read_text(encoding="utf-8"))
    draft["steps"][1]["depends_on"] = ["missing"]
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(draft), encoding="utf-8")
    done = runner.invoke(app, ["submit", str(path), "--store", initialised])
    assert done.exit_code == 1, done.stdout  # stored, but it never runs: as plan-graph validate
    first, *rest = done.stdout.splitlines()
    assert first.endswith(": draft (invalid: never runs)")
    [problem] = [line.split() for line in rest if line.startswith("draft.")]
    assert problem[:3] == ["draft.unknown_dependency", "summary", "/steps/1/depends_on/0"]
    assert " ".join(problem[3:]) == "depends_on names no step: 'missing'"
    wire = runner.invoke(app, ["submit", str(path), "--store", initialised, "--json"])
    assert wire.exit_code == 1
    answer = json.loads(wire.stdout)
    assert answer["status"] == "draft"
    assert [p["code"] for p in answer["validation"]["problems"]] == ["draft.unknown_dependency"]
    plans = _json("plans", "list", "--store", initialised)
    assert [(p["status"], p["steps_total"]) for p in plans] == [("draft", 0), ("draft", 0)]
    assert _json("plans", "list", "--status", "draft", "--store", initialised) == plans


def _quick_plan(tmp_path: Path) -> Path:
    path = tmp_path / "quick.json"
    path.write_text(
        json.dumps(
            {
                "objective": "summarise nothing",
                "origin": "operator",
                "strategy": "direct_action_verified",
                "steps": [
                    {"key": "sum", "kind": "internal", "internal": {"action": "summarise_findings"}}
                ],
            }
        ),
        encoding="utf-8",
    )
    return path


def test_submit_goal_reuses_the_remembered_plan(initialised: str, tmp_path: Path) -> None:
    s = ("--store", initialised)
    _json("submit", str(_quick_plan(tmp_path)), "--goal", "tidy", *s)
    assert _json("worker", "--until-idle", "--poll", "0.05", *s)["claims"] == 1
    again = _json("submit", "--goal", "tidy", "--as", "principal:dana", *s)
    assert again["status"] == "validated"
    _json("worker", "--until-idle", "--poll", "0.05", *s)
    shown = _json("plans", "show", again["plan_id"], *s)
    assert (shown["status"], shown["objective"], shown["requester"]) == (
        "completed",
        "summarise nothing",
        "principal:dana",
    )


def test_stuck_lists_a_blocked_step_and_sandbox_enable_frees_it(
    initialised: str, tmp_path: Path
) -> None:
    s = ("--store", initialised)
    calendar = ("--ics-calendar", f"work={tmp_path / 'work.ics'}")
    assert _run("sandbox", "disable", "trial", *s).stdout == "sandbox trial: disabled\n"
    plan = _json("submit", str(EXAMPLES / "meeting.json"), "--sandbox", "trial", *s)
    _json("worker", "--until-idle", "--poll", "0.05", *calendar, *s)
    entries = _json("stuck", *s)
    assert all(set(e) == STUCK_FIELDS for e in entries)
    [blocked] = [e for e in entries if e["stuck"]]
    assert (blocked["kind"], blocked["step_key"], blocked["status"]) == (
        "step",
        "create",
        "blocked",
    )
    assert (blocked["owner"], blocked["plan_id"]) == ("operator", plan["plan_id"])
    assert blocked["reason"].startswith("sandbox_disabled: sandbox trial is disabled")
    text = _run("stuck", *s).stdout
    row = next(line for line in text.splitlines() if blocked["id"] in line)
    assert row.startswith("STUCK") and "operator" in row and "sandbox_disabled" in row
    enabled = _json("sandbox", "enable", "trial", *s)
    assert (enabled["enabled"], enabled["steps_readied"]) == (True, 1)
    assert _json("sandbox", "list", *s) == [
        {k: enabled[k] for k in enabled if k != "steps_readied"}
    ]
    state = _error("steps", "resolve", blocked["id"], "--did-not-happen", "--as", "principal:o", *s)
    assert state["code"] == "execution.invalid_state"  # ready now, nothing to resolve


def test_approvals_reject_withdraw_and_cancel(initialised: str, tmp_path: Path) -> None:
    s = ("--store", initialised)
    calendar = ("--ics-calendar", f"work={tmp_path / 'work.ics'}")
    first = _json("submit", str(EXAMPLES / "meeting.json"), "--as", "principal:alice", *s)
    second = _json("submit", str(EXAMPLES / "meeting.json"), "--as", "principal:alice", *s)
    third = _json("submit", str(EXAMPLES / "meeting.json"), *s)
    _json("worker", "--until-idle", "--poll", "0.05", *calendar, *s)
    by_plan = {a["plan_id"]: a["id"] for a in _json("approvals", "list", *s)}
    assert set(by_plan) == {first["plan_id"], second["plan_id"], third["plan_id"]}
    assert _error("approvals", "approve", by_plan[first["plan_id"]], "--as", "principal:alice",
                  *s)["code"] == "approval.self_approval"  # fmt: skip
    rejected = _json("approvals", "reject", by_plan[first["plan_id"]], "--as", "principal:bob",
                     "--reason", "clashes", *s)  # fmt: skip
    assert (rejected["status"], rejected["status_reason"]) == ("rejected", "clashes")
    assert _error("approvals", "withdraw", by_plan[second["plan_id"]], "--as", "principal:bob",
                  *s)["code"] == "approval.not_requester"  # fmt: skip
    withdrawn = _json("approvals", "withdraw", by_plan[second["plan_id"]], "--as",
                      "principal:alice", *s)  # fmt: skip
    assert withdrawn["status"] == "withdrawn"
    cancelled = _json("plans", "cancel", third["plan_id"], "--as", "principal:ops", *s)
    assert (cancelled["status"], cancelled["status_reason"]) == (
        "abandoned",
        "cancelled by principal:ops",
    )
    statuses = {p["id"]: p["status"] for p in _json("plans", "list", *s)}
    assert statuses == {
        first["plan_id"]: "failed",  # rejected, and no alternative to replan with
        second["plan_id"]: "abandoned",
        third["plan_id"]: "abandoned",
    }
    assert _json("approvals", "list", *s) == []
    assert len(_json("approvals", "list", "--all", *s)) == 3
    assert _json("plans", "list", "--open", *s) == []
    assert _error("plans", "cancel", first["plan_id"], *s)["code"] == "execution.invalid_state"


def test_worker_stops_gracefully_on_sigterm(initialised: str) -> None:
    env = {**os.environ, "CEREBRI_STORE": initialised}
    plan = json.loads(_ok(env, "submit", str(EXAMPLES / "status-check.json"), "--json"))
    worker = subprocess.Popen(
        [*CEREBRI, "worker", "--poll", "0.1s", "--json"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + DEADLINE_SECONDS
        while True:  # a real process: poll the store with a deadline
            [row] = json.loads(_ok(env, "plans", "list", "--json"))
            if row["status"] == "completed" or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        assert (row["id"], row["status"]) == (plan["plan_id"], "completed")
        assert worker.poll() is None  # without --until-idle it keeps running
        worker.send_signal(signal.SIGTERM)
        out, err = worker.communicate(timeout=DEADLINE_SECONDS)
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait()
    assert worker.returncode == 0, err
    report = json.loads(out)
    assert (report["claims"], report["errors"]) == (3, 0)


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("30", 30.0), ("30s", 30.0), (" 2m ", 120.0), ("1h", 3600.0), ("500ms", 0.5), ("0.5s", 0.5)],
)
def test_durations(text: str, seconds: float) -> None:
    assert parse_duration(text, option="--poll") == seconds


@pytest.mark.parametrize("text", ["", "s", "-1", "1e3", "2 m", "1.s", "30sec"])
def test_durations_refused(text: str) -> None:
    with pytest.raises(CerebriError) as caught:
        parse_duration(text, option="--poll")
    assert caught.value.code == "input.invalid_option"
    assert caught.value.message.startswith("--poll: cannot read duration")


def test_preview_of_a_draft_file_and_of_a_stored_plan(store_url: str) -> None:
    from cerebri.execution import store

    store.init(store_url)
    meeting = str(EXAMPLES / "meeting.json")
    drafted = _json("preview", meeting)
    assert [(s["key"], s["allowed"], s["why"].split(":")[0]) for s in drafted["steps"]] == [
        ("create", True, "needs_approval"),
        ("check", True, "allowed"),
    ]
    submitted = _json("submit", meeting, "--store", store_url)
    stored = _json("preview", submitted["plan_id"], "--store", store_url)
    assert stored["plan"]["id"] == submitted["plan_id"]
    assert [s["status"] for s in stored["steps"]] == ["ready", "pending"]
    assert "allowed" in _run("preview", meeting).stdout  # the table's header
    assert _error("preview", "no-such-plan", "--store", store_url)["code"] == (
        "execution.not_found"
    )


# -- findings of a new user's trial ----------------------------------------------------------


def test_poll_zero_is_refused_with_the_range_it_breaks(initialised: str) -> None:
    refused = _error("worker", "--poll", "0", "--until-idle", "--store", initialised)
    assert refused["code"] == "input.invalid_option"
    assert refused["message"] == (
        "--poll: duration '0' is out of range; it takes more than 0s and at most 1m"
    )
    assert _error("worker", "--poll", "61", "--until-idle", "--store", initialised)["message"] == (
        "--poll: duration '61' is out of range; it takes more than 0s and at most 1m"
    )
    assert _json("worker", "--poll", "60", "--until-idle", "--store", initialised)["claims"] == 0


PLAN_STATUSES = (
    "draft, validated, waiting, executing, blocked, awaiting_approval, replanning, "
    "completed, failed, abandoned, superseded"
)


def test_plans_list_refuses_an_unknown_status(initialised: str) -> None:
    refused = _error("plans", "list", "--status", "bogus", "--store", initialised)
    assert refused["code"] == "execution.invalid_argument"
    assert refused["message"] == f"'bogus' is not a plan status; use one of {PLAN_STATUSES}"
    executor = Executor(
        execution_store.open_engine(execution_store.parse_store_url(initialised)),
        FakeClock(Instant.parse("2026-12-01T10:00:00Z")),
        SequentialIds(),
    )
    with pytest.raises(ExecutionError) as caught:  # the Python API refuses too
        list_plans(executor, status="Completed")
    assert caught.value.code == "execution.invalid_argument"
    for status in PLAN_STATUSES.split(", "):
        assert list_plans(executor, status=status) == []


def test_ics_calendars_are_checked_at_start(initialised: str, tmp_path: Path) -> None:
    a_file = tmp_path / "plain.txt"
    a_file.write_text("not a folder", encoding="utf-8")
    refused = {
        f"a={tmp_path / 'nonexistent' / 'x.ics'}": f"its folder {tmp_path / 'nonexistent'} "
        "does not exist",
        f"a={a_file / 'x.ics'}": f"{a_file} is not a folder",
        f"a={tmp_path}": "it is not a regular file",
    }
    for value, why in refused.items():
        for command in (
            ["worker", "--until-idle", "--store", initialised],
            ["preview", str(EXAMPLES / "meeting.json")],
        ):
            wire = _error(*command, "--ics-calendar", value)
            assert wire["code"] == "execution.invalid_argument"
            assert wire["message"] == f"--ics-calendar {value}: {why}"
    twice = ("--ics-calendar", "a=x.ics", "--ics-calendar", "a=y.ics")
    for command in (
        ["worker", "--until-idle", "--store", initialised],
        ["preview", str(EXAMPLES / "meeting.json")],
    ):
        wire = _error(*command, *twice)
        assert wire["code"] == "execution.invalid_argument"
        assert wire["message"] == "--ics-calendar names calendar 'a' twice (x.ics and y.ics)"
    # a file not written yet, in a folder that exists, is accepted: the first event makes it
    fresh = f"work={tmp_path / 'fresh.ics'}"
    report = _json("worker", "--until-idle", "--ics-calendar", fresh, "--store", initialised)
    assert (report["claims"], report["errors"]) == (0, 0)
    assert _json("preview", str(EXAMPLES / "meeting.json"), "--ics-calendar", fresh)["plan"][
        "valid"
    ]


def _help(command: str) -> str:
    """``command --help`` as one line of words, without rich's box drawing."""
    words = _run(command, "--help").stdout.split()
    return " ".join(w for w in words if w.strip("│╭╮╰╯─") and w != "│")


@pytest.mark.parametrize("concurrency", ["0", "65", "100000"])
def test_concurrency_is_capped_per_worker_process(initialised: str, concurrency: str) -> None:
    wire = _error("worker", "--concurrency", concurrency, "--until-idle", "--store", initialised)
    assert wire["code"] == "execution.invalid_argument"
    assert wire["message"] == (
        f"--concurrency is 1 to 64 threads per worker process, not {concurrency} (start more "
        "workers on the same store to run more)"
    )


def test_concurrency_64_runs_and_the_help_says_so(initialised: str, tmp_path: Path) -> None:
    _json("submit", str(_quick_plan(tmp_path)), "--store", initialised)
    report = _json("worker", "--concurrency", "64", "--until-idle", "--poll", "0.05",
                   "--store", initialised)  # fmt: skip
    assert (report["claims"], report["errors"]) == (1, 0)
    helped = _help("worker")
    assert "1 to 64" in helped
    assert "start more workers" in helped


def test_preview_of_an_invalid_draft_lists_its_problems_and_exits_1(tmp_path: Path) -> None:
    draft = json.loads((EXAMPLES / "meeting.json").read_text(encoding="utf-8"))
    draft["steps"][0]["capability"] = "calendar.event.nope"
    draft["steps"][1]["depends_on"] = ["create", "missing"]
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(draft), encoding="utf-8")
    shown = runner.invoke(app, ["preview", str(path)])
    assert shown.exit_code == 1, shown.stdout
    lines = shown.stdout.splitlines()
    assert lines[0] == "plan: (draft) draft (invalid: never runs)"
    at = lines.index("problems: 2")
    assert lines[at + 1].split() == ["code", "step", "path", "message"]
    rows = [line.rstrip().split(maxsplit=3) for line in lines[at + 2 :]]
    assert rows == [
        ["draft.unknown_capability", "create", "/steps/0/capability",
         "no capability 'calendar.event.nope' is registered"],
        ["draft.unknown_dependency", "check", "/steps/1/depends_on/1",
         "depends_on names no step: 'missing'"],
    ]  # fmt: skip
    wire = runner.invoke(app, ["preview", str(path), "--json"])
    assert wire.exit_code == 1
    answer = json.loads(wire.stdout)
    assert answer["plan"]["valid"] is False
    assert [(p["code"], p["step"]) for p in answer["plan"]["problems"]] == [
        ("draft.unknown_capability", "create"),
        ("draft.unknown_dependency", "check"),
    ]
    valid = runner.invoke(app, ["preview", str(EXAMPLES / "meeting.json")])
    assert valid.exit_code == 0
    assert "problems" not in valid.stdout
    assert runner.invoke(app, ["plan-graph", "validate", str(path)]).exit_code == 1  # consistent
    for command in ("preview", "submit"):
        helped = _help(command)
        assert "Exit 0 when" in helped
        assert "1 when" in helped


def test_the_plan_draft_reference_examples_are_valid() -> None:
    text = (REPO / "docs" / "plan-drafts.md").read_text(encoding="utf-8")
    blocks = [b.split("```", 1)[0] for b in text.split("```json\n")[1:]]
    kinds = set()
    for block in blocks:
        draft = json.loads(block)
        kinds |= {step["kind"] for step in draft["steps"]}
        validated = runner.invoke(app, ["plan-graph", "validate", "-"], input=block)
        assert (validated.exit_code, validated.stdout) == (0, "valid\n"), block
        previewed = runner.invoke(app, ["preview", "-", "--json"], input=block)
        assert previewed.exit_code == 0, previewed.stdout
        assert json.loads(previewed.stdout)["plan"]["valid"] is True
    assert kinds == {"capability", "request_capability", "verify", "wait", "monitor", "internal"}
    assert len(blocks) == 6
