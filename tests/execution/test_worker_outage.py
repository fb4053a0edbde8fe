"""Store outages with real processes (decision 0035): a ``cerebri worker`` rides out a
PostgreSQL restart and finishes its plans; it exits 2 with one ``error store.*`` line when
the store stays away past ``--store-outage-limit`` or the SQLite disk is full; the
store-writing commands answer a full disk with ``error store.full`` and exit 2."""

from __future__ import annotations

import json
import os
import queue
import sqlite3
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import psycopg
import pytest
from typer.testing import CliRunner

from cerebri.cli import app
from cerebri.cli._durations import parse_duration
from cerebri.cli._execution import STORE_OUTAGE_LIMIT
from cerebri.execution.outages import DEFAULT_OUTAGE_LIMIT_SECONDS
from tests.execution._pg_server import PgServer, start_server
from tests.execution.test_cli_execution import CEREBRI, EXAMPLES

DEADLINE_SECONDS = 240
runner = CliRunner()
WAIT_SECONDS = 3
"""The wait step of the test plans: the worker is between steps, parked, when the store
goes away, and claims again after it."""


def _slow_plan(folder: Path) -> Path:
    draft = json.loads((EXAMPLES / "status-check.json").read_text(encoding="utf-8"))
    draft["steps"][0]["wait"]["seconds"] = WAIT_SECONDS
    path = folder / "slow.json"
    path.write_text(json.dumps(draft), encoding="utf-8")
    return path


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


class _Worker:
    """``cerebri worker`` as a process whose stderr lines are read as they come."""

    def __init__(self, env: dict[str, str], *options: str) -> None:
        self.process = subprocess.Popen(
            [*CEREBRI, "worker", "--until-idle", "--poll", "0.1s", "--lease", "1s", *options],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        self.seen: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.lines.put(line)

    def wait_for_line(self, start: str) -> str:
        deadline = time.monotonic() + DEADLINE_SECONDS
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=1)
            except queue.Empty:
                assert self.process.poll() is None or not self.lines.empty(), self.seen
                continue
            self.seen.append(line)
            if line.startswith(start):
                return line
        raise AssertionError(f"no line starting {start!r} in {self.seen}")

    def finish(self) -> tuple[int, str, list[str]]:
        """Exit status, stdout, every stderr line."""
        try:
            out = self.process.stdout.read() if self.process.stdout else ""
            code = self.process.wait(timeout=DEADLINE_SECONDS)
        finally:
            if self.process.poll() is None:
                self.process.kill()
                self.process.wait()
        self._reader.join(timeout=DEADLINE_SECONDS)
        while not self.lines.empty():
            self.seen.append(self.lines.get())
        return code, out, self.seen

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


def _wait_until(ask: Callable[[], bool], what: str, worker: _Worker) -> None:
    deadline = time.monotonic() + DEADLINE_SECONDS
    while time.monotonic() < deadline:
        if ask():
            return
        assert worker.process.poll() is None, f"the worker ended before {what}: {worker.finish()}"
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def _pg_claimed(server: PgServer) -> bool:
    with psycopg.connect(server.url.replace("+psycopg", ""), autocommit=True) as connection:
        row = connection.execute("SELECT count(*) FROM steps WHERE attempts > 0").fetchone()
    return bool(row and row[0])


@pytest.fixture
def pg_server() -> Iterator[PgServer]:
    """A PostgreSQL server of this test alone, which it may stop and start."""
    server = start_server()
    try:
        yield server
    finally:
        server.remove()


def _statuses(env: dict[str, str]) -> list[str]:
    return [p["status"] for p in json.loads(_ok(env, "plans", "list", "--json"))]


def test_a_worker_rides_out_a_postgresql_restart(pg_server: PgServer, tmp_path: Path) -> None:
    env = {**os.environ, "CEREBRI_STORE": pg_server.url}
    _ok(env, "store", "init")
    plan = _slow_plan(tmp_path)
    for _ in range(3):
        _ok(env, "submit", str(plan))
    worker = _Worker(env, "--store-outage-limit", "120s")
    try:
        _wait_until(lambda: _pg_claimed(pg_server), "a first claim", worker)
        pg_server.stop()
        started = worker.wait_for_line("store outage: ")
        time.sleep(1)  # the worker keeps retrying meanwhile
        assert worker.process.poll() is None  # --until-idle: an outage is not idleness
        pg_server.start()
        code, out, lines = worker.finish()
    finally:
        worker.kill()
    assert started.startswith("store outage: the store is unavailable: ")
    assert started.endswith("; retrying for up to 120 s\n")
    assert lines[0] == started
    assert len([line for line in lines if line.startswith("store outage: ")]) == 1
    assert len([line for line in lines if line.startswith("store back after ")]) == 1
    assert not [line for line in lines if line.startswith(("error", "Traceback"))], lines
    assert code == 0, (out, lines)
    assert out.startswith("worker worker:")
    assert ", 0 errors, 1 store outages ridden out\n" in out
    assert _statuses(env) == ["completed"] * 3


def test_a_store_down_past_the_limit_ends_the_worker_with_one_error_line(
    pg_server: PgServer, tmp_path: Path
) -> None:
    env = {**os.environ, "CEREBRI_STORE": pg_server.url}
    _ok(env, "store", "init")
    _ok(env, "submit", str(_slow_plan(tmp_path)))
    worker = _Worker(env, "--store-outage-limit", "2s")
    try:
        _wait_until(lambda: _pg_claimed(pg_server), "a first claim", worker)
        pg_server.stop()
        code, out, lines = worker.finish()
    finally:
        worker.kill()
    assert code == 2, lines
    assert out == ""
    assert len(lines) == 2, lines
    assert lines[0].startswith("store outage: the store is unavailable: ")
    assert lines[1].startswith("error store.unavailable: the store is unavailable: ")
    assert lines[1].endswith("the outage limit is 2 s)\n")


@pytest.fixture
def small_disk() -> Iterator[Path]:
    """A 2 MiB tmpfs (root only): a disk the test can fill. A user's run without root skips
    with the reason; CI runs as root, so there a missing mount is a failure."""
    under_ci = os.environ.get("CI", "").strip().lower() in {"true", "1", "yes"}
    if os.geteuid() != 0:
        (pytest.fail if under_ci else pytest.skip)("mounting a small tmpfs needs root")
    folder = Path(tempfile.mkdtemp(prefix="cerebri-small-disk-"))
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(folder)],
        capture_output=True,
        check=False,
    )
    if mounted.returncode != 0:
        folder.rmdir()
        (pytest.fail if under_ci else pytest.skip)(f"cannot mount a tmpfs here: {mounted.stderr!r}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)
        folder.rmdir()


def _fill(folder: Path) -> None:
    """Write zeros into ``folder/filler`` until the disk is full."""
    descriptor = os.open(folder / "filler", os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        while True:
            os.write(descriptor, b"\0" * 4096)
    except OSError as error:
        assert error.errno == 28  # ENOSPC
    finally:
        os.close(descriptor)


def test_a_worker_on_a_full_sqlite_disk_exits_2_with_store_full(
    small_disk: Path, tmp_path: Path
) -> None:
    database = small_disk / "store.sqlite3"
    env = {**os.environ, "CEREBRI_STORE": f"sqlite:///{database}"}
    _ok(env, "store", "init")
    for _ in range(2):
        _ok(env, "submit", str(_slow_plan(tmp_path)))
    worker = _Worker(env, "--store-outage-limit", "3s")

    def claimed() -> bool:
        with sqlite3.connect(database) as connection:
            return bool(connection.execute("SELECT count(*) FROM steps WHERE attempts > 0")
                        .fetchone()[0])  # fmt: skip

    try:
        _wait_until(claimed, "a first claim", worker)
        _fill(small_disk)
        code, out, lines = worker.finish()
    finally:
        worker.kill()
    assert code == 2, lines
    assert out == ""
    assert (
        lines[0]
        == "store outage: the store is full: database or disk is full; retrying for up to 3 s\n"
    )
    errors = [line for line in lines if line.startswith("error ")]
    assert len(errors) == 1 and lines[-1] == errors[0], lines
    assert errors[0].startswith("error store.full: the store is full: database or disk is full")
    assert not [line for line in lines if "Traceback" in line]


def test_store_writes_on_a_full_disk_are_store_full_exit_2(
    small_disk: Path, tmp_path: Path
) -> None:
    database = small_disk / "store.sqlite3"
    env = {**os.environ, "CEREBRI_STORE": f"sqlite:///{database}"}
    calendar = tmp_path / "work.ics"
    _ok(env, "store", "init")
    _ok(env, "submit", str(EXAMPLES / "meeting.json"), "--as", "principal:alice")
    _ok(env, "worker", "--until-idle", "--poll", "0.1s", "--ics-calendar", f"work={calendar}")
    [approval] = json.loads(_ok(env, "approvals", "list", "--json"))
    keep = sqlite3.connect(database)  # another user of the store: its WAL stays in place
    try:
        keep.execute("SELECT count(*) FROM plans").fetchall()
        _fill(small_disk)
        commands = [
            ("submit", str(_slow_plan(tmp_path))),
            ("approvals", "approve", approval["id"], "--as", "principal:bob"),
            ("principals", "add", "principal:carol", "--role", "approver"),
        ]
        for command in commands:
            done = _cli(env, *command)
            assert (done.returncode, done.stdout) == (2, ""), (command, done.stderr)
            assert done.stderr == "error store.full: the store is full: database or disk is full\n"
            as_json = _cli(env, *command, "--json")
            assert as_json.returncode == 2
            assert json.loads(as_json.stderr) == {
                "code": "store.full",
                "path": None,
                "message": "the store is full: database or disk is full",
            }
    finally:
        keep.close()
    fresh = _cli(env, "store", "init", "--store", f"sqlite:///{small_disk / 'new.sqlite3'}")
    assert fresh.returncode == 2
    assert fresh.stderr.count("\n") == 1
    assert fresh.stderr.startswith(("error store.full: ", "error store.unreachable: "))


@pytest.mark.parametrize("limit", ["0", "0s", "2d", "86401"])
def test_the_outage_limit_is_checked_at_start(tmp_path: Path, limit: str) -> None:
    store = f"sqlite:///{tmp_path / 'store.sqlite3'}"
    _ok(dict(os.environ), "store", "init", "--store", store)
    done = runner.invoke(app, ["worker", "--store", store, "--store-outage-limit", limit])
    assert done.exit_code == 2
    assert done.stderr.startswith("error input.invalid_option: --store-outage-limit: ")
    assert done.stderr.count("\n") == 1


def test_the_outage_limit_default_is_the_library_s_and_help_names_its_unit() -> None:
    assert parse_duration(STORE_OUTAGE_LIMIT, option="-") == DEFAULT_OUTAGE_LIMIT_SECONDS == 60
    shown = runner.invoke(app, ["worker", "--help"], env={"COLUMNS": "200"})
    assert "--store-outage-limit" in shown.stdout
    assert "DURATION" in shown.stdout
    assert "Default 60s." in shown.stdout


def test_a_step_error_makes_the_worker_exit_2_after_its_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from cerebri.execution import worker as worker_module

    store = f"sqlite:///{tmp_path / 'store.sqlite3'}"
    _ok(dict(os.environ), "store", "init", "--store", store)
    _ok(dict(os.environ), "submit", str(EXAMPLES / "status-check.json"), "--store", store)
    real = worker_module.run_claim
    calls: list[str] = []

    def broken_once(*args: object) -> None:  # a bug in the first step's run, then none
        calls.append("run")
        if len(calls) == 1:
            raise RuntimeError("boom")
        real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(worker_module, "run_claim", broken_once)
    done = runner.invoke(
        app, ["worker", "--store", store, "--until-idle", "--poll", "0.1s", "--lease", "1s"]
    )
    assert done.exit_code == 2
    assert ", 1 errors\nlast error: RuntimeError: boom\n" in done.stdout
    assert done.stderr == (
        "error execution.step_errors: 1 unexpected errors while running steps (each step is "
        "left to its lease's expiry and a takeover); last: RuntimeError: boom\n"
    )
    [plan] = json.loads(_ok(dict(os.environ), "plans", "list", "--json", "--store", store))
    assert plan["status"] == "completed"  # the takeover ran the step again
