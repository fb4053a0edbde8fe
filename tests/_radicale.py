"""Starting a real Radicale CalDAV server for tests, shared by ``tests/integrations`` and
``tests/execution`` (their fixtures wrap :func:`serve`).

:func:`serve` starts ``python -m radicale`` from the running interpreter's environment on
``127.0.0.1`` and a free port, with its storage in a folder, waits (a bounded number of polls)
until it answers HTTP, and stops it and deletes the folder at the end, also when a test
failed. No configuration file is read (``--config`` with no paths), so the machine's
``/etc/radicale/config`` or ``~/.config/radicale/config`` cannot change the behaviour.
Nothing leaves the loopback interface.
"""

from __future__ import annotations

import http.client
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

_POLLS = 100
_POLL_SECONDS = 0.1


@dataclass(frozen=True)
class RadicaleServer:
    """A running Radicale: ``url`` is its root, ``http://127.0.0.1:<port>/``.

    ``username``/``password`` are the htpasswd account, ``None`` without authentication.
    """

    url: str
    port: int
    folder: Path
    username: str | None = None
    password: str | None = None


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago (bind to port 0, then release)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _answers(port: int) -> bool:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
    try:
        connection.request("OPTIONS", "/")
        connection.getresponse().read()
    except OSError:
        return False
    finally:
        connection.close()
    return True


def stop(process: subprocess.Popen[bytes]) -> None:
    """Terminate ``process`` (kill it after 10 s) and reap it."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


def wait_until_answering(
    process: subprocess.Popen[bytes], port: int, log_path: Path, name: str
) -> None:
    """Poll until the server answers HTTP; fail the session with its output if it never does."""
    for _ in range(_POLLS):
        if process.poll() is not None or _answers(port):
            break
        time.sleep(_POLL_SECONDS)  # waiting for another process to start, not moving time
    if process.poll() is not None or not _answers(port):
        stop(process)
        output = log_path.read_text(encoding="utf-8", errors="replace")
        pytest.fail(
            f"{name} did not answer on 127.0.0.1:{port} "
            f"(exit code {process.returncode}); its output:\n{output}"
        )


def serve(
    folder: Path, *options: str, username: str | None = None, password: str | None = None
) -> Iterator[RadicaleServer]:
    """Start Radicale with its storage below ``folder``; stop it and delete ``folder`` after."""
    port = free_port()
    log_path = folder / "radicale.log"
    command = [
        sys.executable,
        "-m",
        "radicale",
        "--config",
        "--server-hosts",
        f"127.0.0.1:{port}",
        "--storage-filesystem-folder",
        str(folder / "collections"),
        "--rights-type",
        "owner_only",
        "--logging-level",
        "warning",
        "--auth-delay",
        "0",
        *options,
    ]
    try:
        with log_path.open("wb") as log:
            process = subprocess.Popen(
                command, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT
            )
        try:
            wait_until_answering(process, port, log_path, "Radicale")
            yield RadicaleServer(f"http://127.0.0.1:{port}/", port, folder, username, password)
        finally:
            stop(process)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
