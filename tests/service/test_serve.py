"""``cerebri serve`` as a subprocess: listen line, /health, refusal of non-loopback hosts."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

CLI = [sys.executable, "-c", "from cerebri.cli import main; main()", "serve"]


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "CEREBRI_API_TOKEN"}
    return {**env, **extra}


def _listen_line(process: subprocess.Popen[str], timeout: float = 20.0) -> str:
    assert process.stdout is not None
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if line.startswith("CEREBRI_LISTEN_ADDR="):
            return line.strip().split("=", 1)[1]
        if not line and process.poll() is not None:
            break
    pytest.fail("no CEREBRI_LISTEN_ADDR line")


def test_serve_on_port_zero(tmp_path: Path) -> None:
    process = subprocess.Popen(
        [*CLI, "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(),
    )
    try:
        address = _listen_line(process)
        host, port = address.rsplit(":", 1)
        assert host == "127.0.0.1"
        assert int(port) > 0
        with urllib.request.urlopen(f"http://{address}/health", timeout=10) as response:
            assert response.status == 200
            assert json.loads(response.read())["status"] == "ok"
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


def test_serve_with_token_requires_it() -> None:
    process = subprocess.Popen(
        [*CLI, "--port", "0", "--token-env", "CEREBRI_TEST_TOKEN"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(CEREBRI_TEST_TOKEN="t0ken"),
    )
    try:
        address = _listen_line(process)
        request = urllib.request.Request(f"http://{address}/health")
        with pytest.raises(urllib.error.HTTPError) as denied:
            urllib.request.urlopen(request, timeout=10)
        assert denied.value.code == 401
        request.add_header("Authorization", "Bearer t0ken")
        with urllib.request.urlopen(request, timeout=10) as response:
            assert response.status == 200
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.mark.parametrize(
    ("args", "env"),
    [
        (["--host", "0.0.0.0"], {}),
        (["--host", "0.0.0.0", "--allow-remote"], {}),
        (["--host", "0.0.0.0"], {"CEREBRI_API_TOKEN": "x"}),
    ],
)
def test_non_loopback_is_refused(args: list[str], env: dict[str, str]) -> None:
    done = subprocess.run(
        [*CLI, *args, "--port", "0"],
        capture_output=True,
        text=True,
        env=_env(**env),
        timeout=30,
        check=False,
    )
    assert done.returncode == 2
    assert "CEREBRI_LISTEN_ADDR=" not in done.stdout
    assert done.stderr.startswith("error serve.requires_loopback")
    assert "requires loopback" in done.stderr
