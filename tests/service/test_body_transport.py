"""Request bodies that never finish, and clients that hang up mid-body (decision 0017).

In-process: ``read_json_body`` over a hand-driven ASGI ``receive``. Out of process: raw
sockets against a real ``cerebri serve --port 0`` whose stderr is captured.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import pytest
from starlette.requests import Request

from cerebri.cli._serve import BODY_TIMEOUT_SECONDS as CLI_DEFAULT
from cerebri.service import ServiceSettings, SettingsError
from cerebri.service.body import ClientGone, read_json_body
from cerebri.service.problems import ServiceError
from cerebri.service.settings import BODY_TIMEOUT_SECONDS

CLI = [sys.executable, "-c", "from cerebri.cli import main; main()", "serve"]
HEAD = (
    b"POST /v1/plan HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
    b"Content-Length: 1000\r\n\r\n"
)


def test_default_timeout_is_ten_seconds_everywhere() -> None:
    assert BODY_TIMEOUT_SECONDS == CLI_DEFAULT == 10.0
    assert ServiceSettings().body_timeout_seconds == 10.0
    with pytest.raises(ValueError, match="0 < t"):
        ServiceSettings(body_timeout_seconds=0)


@pytest.mark.parametrize("seconds", [0.0, -1.0, 3600.5, 1e308, math.inf, -math.inf, math.nan])
def test_a_timeout_that_is_off_or_absurd_is_refused(seconds: float) -> None:
    with pytest.raises(SettingsError) as caught:
        ServiceSettings(body_timeout_seconds=seconds)
    assert caught.value.code == "serve.invalid_option"
    assert ServiceSettings(body_timeout_seconds=3600.0).body_timeout_seconds == 3600.0


@pytest.mark.parametrize("text", ["inf", "1e308", "nan", "0", "3601"])
def test_cli_refuses_the_timeout_before_listening(text: str) -> None:
    done = subprocess.run(
        [*CLI, "--port", "0", "--body-timeout", text],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("error input.invalid_option: --body-timeout: "), done.stderr
    assert "CEREBRI_LISTEN_ADDR" not in done.stdout


def _request(messages: list[dict[str, Any]]) -> Request:
    """A request whose body is ``messages``, then a receive that never returns."""
    queue = list(messages)

    async def receive() -> dict[str, Any]:
        if queue:
            return queue.pop(0)
        await asyncio.Event().wait()  # the client sends nothing more
        raise AssertionError("unreachable")

    scope = {
        "type": "http",
        "method": "POST",
        "path": "/v1/plan",
        "headers": [(b"content-type", b"application/json"), (b"content-length", b"1000")],
        "client": ("127.0.0.1", 5555),
        "query_string": b"",
    }
    return Request(scope, receive)


def test_an_unfinished_body_is_408_after_the_timeout() -> None:
    request = _request([{"type": "http.request", "body": b"0123456789", "more_body": True}])
    started = time.monotonic()
    with pytest.raises(ServiceError) as caught:
        asyncio.run(read_json_body(request, 262_144, timeout=0.05))
    assert time.monotonic() - started < 5
    assert (caught.value.status, caught.value.code) == (408, "http.body_timeout")
    assert "10 bytes arrived" in caught.value.detail


def test_a_hang_up_is_one_log_line(caplog: pytest.LogCaptureFixture) -> None:
    request = _request(
        [
            {"type": "http.request", "body": b"0123456789", "more_body": True},
            {"type": "http.disconnect"},
        ]
    )
    with caplog.at_level(logging.WARNING, logger="cerebri.service"), pytest.raises(ClientGone):
        asyncio.run(read_json_body(request, 262_144, timeout=5))
    assert [r.getMessage() for r in caplog.records] == [
        "client 127.0.0.1:5555 disconnected after 10 of 1000 body bytes: POST /v1/plan"
    ]
    assert all(r.exc_info is None for r in caplog.records)


def test_a_complete_body_within_the_timeout_is_read() -> None:
    request = _request(
        [
            {"type": "http.request", "body": b'{"a":', "more_body": True},
            {"type": "http.request", "body": b"1}", "more_body": False},
        ]
    )
    assert asyncio.run(read_json_body(request, 262_144, timeout=5)) == b'{"a":1}'


# --- a real server -------------------------------------------------------------------------


@pytest.fixture
def server() -> Iterator[tuple[str, int, subprocess.Popen[str]]]:
    """``cerebri serve --port 0 --body-timeout 1``: (host, port, process)."""
    env = {k: v for k, v in os.environ.items() if k != "CEREBRI_API_TOKEN"}
    process = subprocess.Popen(
        [*CLI, "--port", "0", "--body-timeout", "1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert process.stdout is not None
    line = process.stdout.readline()  # printed once the socket listens
    assert line.startswith("CEREBRI_LISTEN_ADDR="), line
    host, port = line.strip().split("=", 1)[1].rsplit(":", 1)
    try:
        yield host, int(port), process
    finally:
        process.kill()
        process.wait(timeout=10)


def _stderr(process: subprocess.Popen[str]) -> str:
    process.terminate()
    try:
        _, err = process.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        _, err = process.communicate(timeout=10)
    return err


def _receive_all(sock: socket.socket) -> bytes:
    chunks = []
    while chunk := sock.recv(65536):
        chunks.append(chunk)
    return b"".join(chunks)


def test_hang_up_mid_body_is_one_line_without_traceback(
    server: tuple[str, int, subprocess.Popen[str]],
) -> None:
    host, port, process = server
    for _ in range(3):
        with socket.create_connection((host, port), timeout=10) as sock:
            sock.sendall(HEAD + b"0123456789")
            time.sleep(0.2)  # let the server start reading the body before the hang-up
    with socket.create_connection((host, port), timeout=10) as sock:  # still serving
        sock.sendall(b"GET /health HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n")
        assert _receive_all(sock).startswith(b"HTTP/1.1 200 ")
    err = _stderr(process)
    assert "Traceback" not in err
    assert "ClientDisconnect" not in err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 3, err
    for line in lines:
        assert line.startswith("client 127.0.0.1:"), line
        assert line.endswith(" disconnected after 10 of 1000 body bytes: POST /v1/plan"), line


def test_unfinished_body_gets_408_within_the_timeout(
    server: tuple[str, int, subprocess.Popen[str]],
) -> None:
    host, port, process = server
    with socket.create_connection((host, port), timeout=15) as sock:
        sock.sendall(HEAD + b"0123456789")
        started = time.monotonic()
        answer = _receive_all(sock)  # the server answers, then closes the connection
        elapsed = time.monotonic() - started
    assert 0.5 < elapsed < 8, elapsed
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 408 ")
    assert b"connection: close" in head.lower()
    assert b"content-type: application/problem+json" in head.lower()
    problem = json.loads(body)
    assert (problem["status"], problem["code"]) == (408, "http.body_timeout")
    assert "Traceback" not in _stderr(process)


# --------------------------------------------------------------- request heads (0017)


def test_a_silent_connection_is_closed_after_the_timeout(
    server: tuple[str, int, subprocess.Popen[str]],
) -> None:
    host, port, process = server
    with socket.create_connection((host, port), timeout=15) as sock:
        started = time.monotonic()
        assert _receive_all(sock) == b""  # closed by the server, no reply
        elapsed = time.monotonic() - started
    assert 0.5 < elapsed < 8, elapsed
    err = _stderr(process)
    assert "Traceback" not in err
    assert "no complete request head within 1 s" in err


def test_a_head_sent_one_byte_at_a_time_is_cut_off(
    server: tuple[str, int, subprocess.Popen[str]],
) -> None:
    host, port, process = server
    head = b"POST /v1/plan HTTP/1.1\r\nHost: test\r\nX-Slow: " + b"a" * 200
    with socket.create_connection((host, port), timeout=15) as sock:
        started = time.monotonic()
        closed_after = None
        for byte in head:  # every byte restarts uvicorn's own keep-alive timer
            try:
                sock.sendall(bytes([byte]))
            except OSError:
                closed_after = time.monotonic() - started
                break
            sock.settimeout(0.1)
            try:
                if sock.recv(1) == b"":
                    closed_after = time.monotonic() - started
                    break
            except TimeoutError:
                pass
        assert closed_after is not None, "the slow head was never cut off"
    assert 0.5 < closed_after < 8, closed_after
    assert "Traceback" not in _stderr(process)


def test_a_request_within_the_timeout_is_answered_and_others_are_not_blocked(
    server: tuple[str, int, subprocess.Popen[str]],
) -> None:
    host, port, process = server
    idle = [socket.create_connection((host, port), timeout=15) for _ in range(20)]
    try:
        with socket.create_connection((host, port), timeout=15) as sock:
            sock.sendall(b"GET /health HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n")
            assert _receive_all(sock).startswith(b"HTTP/1.1 200 ")
    finally:
        for sock in idle:
            sock.close()
    assert "Traceback" not in _stderr(process)


def test_after_413_a_stalled_body_is_closed_within_the_timeout(
    server: tuple[str, int, subprocess.Popen[str]],
) -> None:
    host, port, process = server
    head = (
        b"POST /v1/plan HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
        b"Content-Length: 10000000\r\n\r\n"
    )
    with socket.create_connection((host, port), timeout=15) as sock:
        sock.sendall(head + b" " * 300_000)  # over the 262 144-byte limit, then silence
        started = time.monotonic()
        answer = _receive_all(sock)
        elapsed = time.monotonic() - started
    # The rest of the body is read (and dropped) so the client sees the 413 rather than a
    # reset; a client that stops sending is closed after the read timeout, not held.
    assert answer.startswith(b"HTTP/1.1 413 ")
    assert elapsed < 8, elapsed
    assert "Traceback" not in _stderr(process)
