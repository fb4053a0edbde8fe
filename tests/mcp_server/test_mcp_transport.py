"""Summaries with the full answer as a resource; the streamable HTTP transport; --host."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client

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


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def test_streamable_http_on_loopback() -> None:
    port = _free_port()
    cli = str(Path(sys.executable).parent / "cerebri")
    server = subprocess.Popen(
        [cli, "mcp", "--http", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:

        async def talk() -> tuple[list[str], object]:
            for _ in range(300):  # bounded: the server starts in a few seconds
                try:
                    async with Client(f"http://127.0.0.1:{port}/mcp") as client:
                        names = [t.name for t in (await client.list_tools()).tools]
                        result = await client.call_tool(
                            "validate_request", {"request": EXAMPLE.read_text()}
                        )
                        return names, result.structured_content
                except Exception:  # not listening yet
                    if server.poll() is not None:
                        raise
                    await anyio.sleep(0.1)
            raise AssertionError("the HTTP server never answered")

        names, answer = anyio.run(talk)
        assert "plan" in names
        assert answer == cerebri.validate(EXAMPLE.read_bytes()).to_wire()
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_a_non_loopback_host_is_refused_unless_allowed() -> None:
    cli = str(Path(sys.executable).parent / "cerebri")
    refused = subprocess.run(
        [cli, "mcp", "--http", "--host", "0.0.0.0"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert refused.returncode == 2
    assert refused.stderr.startswith("error input.invalid_option")
    from cerebri.mcp import check_host

    for host in ("127.0.0.1", "::1", "localhost", "127.0.0.2"):
        check_host(host, allow_remote=False)
    check_host("0.0.0.0", allow_remote=True)
    with pytest.raises(cerebri.CerebriError):
        check_host("192.0.2.1", allow_remote=False)
