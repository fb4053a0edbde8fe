"""Summaries with the full answer as a resource; the streamable HTTP transport; --host."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

import cerebri
from cerebri._json import pretty
from tests.mcp_server.support import EXAMPLE, live_server


def test_a_large_answer_is_summarised_and_readable_as_a_resource() -> None:
    expected = cerebri.plan(EXAMPLE.read_bytes()).to_wire()
    with live_server("--summary-bytes", "200") as live:
        summary = live.ok("plan", {"request": json.loads(EXAMPLE.read_text())})
        assert summary["summarised"] is True
        assert summary["counts"]["candidates"] == len(expected["candidates"])
        assert summary["candidates"] == expected["candidates"][:5]
        assert summary["outcome"] == expected["outcome"]
        assert "validation" not in summary
        full = live.read(summary["resource"])
        assert full == pretty(expected)  # the CLI's --json bytes
        assert summary["bytes"] == len(full.encode("utf-8"))
        with pytest.raises(Exception, match="no answer is kept"):
            live.read("cerebri://results/" + "0" * 64)


def _start(*options: str, env: dict[str, str] | None = None) -> tuple[subprocess.Popen[str], str]:
    """``cerebri mcp --http --port 0 OPTIONS`` and the address it printed it listens on."""
    cli = str(Path(sys.executable).parent / "cerebri")
    server = subprocess.Popen(
        [cli, "mcp", "--http", "--port", "0", *options],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **(env or {})},
    )
    assert server.stdout is not None
    line = server.stdout.readline()  # printed once the socket listens
    assert line.startswith("CEREBRI_LISTEN_ADDR=127.0.0.1:"), line
    return server, line.strip().removeprefix("CEREBRI_LISTEN_ADDR=")


def _stop(server: subprocess.Popen[str]) -> None:
    server.terminate()
    server.wait(timeout=30)
    for stream in (server.stdout, server.stderr):
        if stream is not None:
            stream.close()


def test_streamable_http_on_an_ephemeral_loopback_port() -> None:
    server, address = _start()
    try:

        async def talk() -> tuple[list[str], object]:
            async with Client(f"http://{address}/mcp") as client:
                names = [t.name for t in (await client.list_tools()).tools]
                result = await client.call_tool(
                    "validate_request", {"request": EXAMPLE.read_text()}
                )
                return names, result.structured_content

        names, answer = anyio.run(talk)
        assert int(address.rsplit(":", 1)[1]) > 0
        assert "plan" in names
        assert answer == cerebri.validate(EXAMPLE.read_bytes()).to_wire()
    finally:
        _stop(server)


def _status_without_token(address: str, headers: dict[str, str]) -> int:
    request = urllib.request.Request(
        f"http://{address}/mcp",
        data=b"{}",
        headers={"Content-Type": "application/json", **headers},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return int(response.status)
    except urllib.error.HTTPError as error:
        return error.code


def test_a_configured_token_is_required_on_every_request() -> None:
    token = "t0ken-" + "x" * 20
    server, address = _start("--token-env", "MCP_TEST_TOKEN", env={"MCP_TEST_TOKEN": token})
    try:
        assert _status_without_token(address, {}) == 401
        assert _status_without_token(address, {"Authorization": "Bearer wrong"}) == 401

        async def talk() -> list[str]:
            headers = {"Authorization": f"Bearer {token}"}
            async with httpx2.AsyncClient(headers=headers) as http:
                transport = streamable_http_client(f"http://{address}/mcp", http_client=http)
                async with Client(transport) as client:
                    return [t.name for t in (await client.list_tools()).tools]

        assert "plan" in anyio.run(talk)
    finally:
        _stop(server)


def _refused(*arguments: str, env: dict[str, str] | None = None) -> str:
    cli = str(Path(sys.executable).parent / "cerebri")
    done = subprocess.run(
        [cli, "mcp", *arguments],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, **(env or {})},
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1, done.stderr
    return done.stderr


def test_a_non_loopback_host_needs_allow_remote_and_a_token() -> None:
    quiet = {"CEREBRI_MCP_TOKEN": ""}
    assert _refused("--http", "--host", "0.0.0.0", env=quiet).startswith(
        "error input.invalid_option"
    )
    no_token = _refused("--http", "--host", "0.0.0.0", "--allow-remote", env=quiet)
    assert no_token.startswith("error input.invalid_option")
    assert "token" in no_token
    from cerebri.mcp import check_host

    for host in ("127.0.0.1", "::1", "localhost", "127.0.0.2"):
        check_host(host, allow_remote=False)
    check_host("0.0.0.0", allow_remote=True, token="secret")
    for allow in (False, True):
        with pytest.raises(cerebri.CerebriError):
            check_host("192.0.2.1", allow_remote=allow)


def _example_lasting(seconds: int) -> dict[str, object]:
    request: dict[str, Any] = json.loads(EXAMPLE.read_text())
    request["duration"]["value"]["knowledge"]["data"] = seconds
    return request


def test_kept_answers_are_capped_by_bytes_oldest_forgotten_first() -> None:
    first, second = _example_lasting(2700), _example_lasting(1800)
    sizes = [len(pretty(cerebri.plan(json.dumps(r)).to_wire()).encode()) for r in (first, second)]
    cap = max(sizes) + 1  # room for either answer, never for both
    with live_server("--summary-bytes", "200", "--kept-bytes", str(cap)) as live:
        one = live.ok("plan", {"request": first})
        assert live.read(one["resource"]) == pretty(cerebri.plan(json.dumps(first)).to_wire())
        two = live.ok("plan", {"request": second})
        assert two["resource"] != one["resource"]
        assert live.read(two["resource"]) == pretty(cerebri.plan(json.dumps(second)).to_wire())
        with pytest.raises(Exception, match="no answer is kept"):
            live.read(one["resource"])


def test_an_answer_beyond_the_result_limit_is_refused_with_a_hint() -> None:
    size = len(pretty(cerebri.plan(EXAMPLE.read_bytes()).to_wire()).encode())
    with live_server("--max-result-bytes", str(size - 1)) as live:
        wire = live.error("plan", {"request": json.loads(EXAMPLE.read_text())})
        assert wire["code"] == "mcp.result_too_large"
        assert str(size) in wire["message"]
        assert "granularity" in wire["message"]
    with live_server("--max-result-bytes", str(size)) as live:
        assert live.ok("plan", {"request": EXAMPLE.read_text()})["outcome"]
