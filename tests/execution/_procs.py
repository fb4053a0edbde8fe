"""Shared helpers of the process tests: start :mod:`tests.execution._worker_proc`, read rows."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any, Final

from sqlalchemy import Engine, select

from cerebri.execution.store.schema import attempt_history, attempts, steps

WORKER_SCRIPT: Final = Path(__file__).with_name("_worker_proc.py")
PROCESS_TIMEOUT_SECONDS: Final = 120


def worker_command(
    store_url: str,
    ics: Path,
    journal: Path,
    *,
    kill_at: str | None = None,
    kill_step: str | None = None,
    lease_seconds: float = 30,
    concurrency: int = 1,
    lose_answers: bool = False,
    lock_timeout: float | None = None,
) -> list[str]:
    """The command line of one worker process (run by path: it imports only ``cerebri``)."""
    command = [
        sys.executable,
        str(WORKER_SCRIPT),
        "--store",
        store_url,
        "--ics",
        str(ics),
        "--journal",
        str(journal),
        "--lease",
        str(lease_seconds),
        "--concurrency",
        str(concurrency),
    ]
    if lose_answers:
        command.append("--lose-answers")
    if lock_timeout is not None:
        command += ["--lock-timeout", str(lock_timeout)]
    if kill_at is not None:
        command += ["--kill-at", kill_at, "--kill-step", str(kill_step)]
    return command


def run_worker_process(command: list[str]) -> subprocess.CompletedProcess[str]:
    """Run one worker process to its end (exit or death), output captured."""
    return subprocess.run(
        command, capture_output=True, text=True, timeout=PROCESS_TIMEOUT_SECONDS, check=False
    )


def step_rows(engine: Engine) -> dict[str, Any]:
    """Step rows by step id."""
    with engine.connect() as connection:
        return {r.id: r for r in connection.execute(select(steps)).all()}


def history_rows(engine: Engine) -> list[Any]:
    """Every ``attempt_history`` row, by (step id, attempt number)."""
    with engine.connect() as connection:
        history = attempt_history.c
        query = select(attempt_history).order_by(history.step_id, history.number)
        return list(connection.execute(query).all())


def open_attempts(engine: Engine) -> list[Any]:
    """Attempt rows still open (no worker closed them)."""
    with engine.connect() as connection:
        return list(connection.execute(select(attempts)).all())
