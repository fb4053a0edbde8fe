"""``cerebri.bridge.serve``: the framing of decision 0032, driven through in-memory streams.

Expected answers come from the Python API serialised with ``compact``; refusals carry the
codes the CLI reports for the same input."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from cerebri._json import compact
from cerebri.bridge import DEFAULT_MAX_FIND_SLOT_BYTES, MAX_HEADER_BYTES, serve
from cerebri.planner import plan, validate
from cerebri.service import create_app
from cerebri.service.settings import ServiceSettings

EXAMPLE = (
    Path(__file__).resolve().parents[2] / "src" / "cerebri" / "service" / "examples"
) / "dependency-chain.json"


def frame(ident: Any, op: str, body: bytes) -> bytes:
    return json.dumps({"id": ident, "op": op, "length": len(body)}).encode() + b"\n" + body


def run(data: bytes, **limits: int) -> tuple[int, list[bytes]]:
    out = io.BytesIO()
    status = serve(io.BytesIO(data), out, **limits)
    return status, out.getvalue().split(b"\n")[:-1]


def test_answers_are_the_api_bytes_in_order() -> None:
    text = EXAMPLE.read_bytes()
    status, lines = run(frame(1, "plan", text) + frame("two", "validate", text))
    assert status == 0
    assert json.loads(lines[0]) == {"id": 1, "ok": True, "length": len(lines[1])}
    assert lines[1] == compact(plan(text).to_wire()).encode()
    assert json.loads(lines[2]) == {"id": "two", "ok": True, "length": len(lines[3])}
    assert lines[3] == compact(validate(text).to_wire()).encode()
    assert len(lines) == 4


def test_refusals_keep_the_session_going() -> None:
    text = EXAMPLE.read_bytes()
    data = (
        frame(1, "plan", b'{"a": 1, "a": 2}')
        + frame(2, "dance", b"{}")
        + frame(3, "plan", b" " * (len(text) + 1))
        + frame(4, "plan", text)
    )
    status, lines = run(data, max_input_bytes=len(text), max_output_bytes=100)
    assert status == 0
    codes = [json.loads(line)["error"]["code"] for line in lines]
    assert codes == [
        "json.duplicate_key",
        "bridge.unknown_operation",
        "input.too_large",
        "bridge.output_too_large",
    ]
    assert [json.loads(line)["id"] for line in lines] == [1, 2, 3, 4]


def test_find_slot_refusals_carry_the_route_code_and_path() -> None:
    client = TestClient(create_app())
    for body in (b'{"calendars": [], "duration": 5}', b'{"calendars": [{"id": "a"}]}', b"[1]"):
        status, lines = run(frame(1, "find_slot", body))
        assert status == 0
        error = json.loads(lines[0])["error"]
        problem = client.post(
            "/v1/find-slot", content=body, headers={"Content-Type": "application/json"}
        ).json()
        assert (error["code"], error["path"]) == (problem["code"], problem["path"])


def test_find_slot_has_its_own_limit_as_the_http_route() -> None:
    # a body between the two limits: refused for plan, read (and judged) for find_slot
    body = b'{"calendars": []}' + b" " * 600
    status, lines = run(
        frame(1, "plan", body) + frame(2, "find_slot", body),
        max_input_bytes=500,
        max_find_slot_bytes=len(body),
    )
    assert status == 0
    errors = [json.loads(line)["error"] for line in lines]
    assert errors[0]["code"] == "input.too_large"
    assert errors[1]["code"] != "input.too_large"
    status, lines = run(frame(3, "find_slot", body + b" "), max_find_slot_bytes=len(body))
    assert json.loads(lines[0])["error"]["code"] == "input.too_large"
    # the default is the HTTP route's (ServiceSettings.max_find_slot_bytes)
    assert ServiceSettings().max_find_slot_bytes == DEFAULT_MAX_FIND_SLOT_BYTES


def test_broken_framing_ends_the_session() -> None:
    for data in (
        b"not json\n",
        b'{"id": 1, "op": "plan"}\n',
        b'{"id": true, "op": "plan", "length": 0}\n',
        b'{"id": 1, "op": "plan", "length": -1}\n',
        b'{"id": 1, "op": "plan", "length": 50}\n{}',
        b'{"id": 1, "op": "plan", "length": 5000}\n{}',
        b"{" + b" " * MAX_HEADER_BYTES + b"}\n",
    ):
        status, lines = run(data, max_input_bytes=1000)
        assert status == 2, data
        assert json.loads(lines[-1])["ok"] is False
        assert json.loads(lines[-1])["error"]["code"] in {
            "bridge.invalid_request",
            "input.too_large",
        }


def test_the_command_speaks_the_protocol() -> None:
    text = EXAMPLE.read_bytes()
    done = subprocess.run(
        [str(Path(sys.executable).parent / "cerebri"), "bridge"],
        input=frame(7, "validate", text),
        capture_output=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0
    head, body = done.stdout.split(b"\n")[:2]
    assert json.loads(head) == {"id": 7, "ok": True, "length": len(body)}
    assert body == compact(validate(text).to_wire()).encode()
    assert done.stdout.endswith(b"\n") and done.stderr == b""


def test_optimize_answers_the_optimize_route_with_its_own_limit() -> None:
    """``optimize`` (decision 0080): the ``POST /v1/optimize`` body, a 4 MiB limit of its own
    (a request padded past 256 KiB is answered, as by the route), another operation refused
    at ``/operation``; ``plan`` of the same request answers it too, as ``POST /v1/plan``."""
    week = EXAMPLE.with_name("interview-week.json").read_bytes()
    padded = week + b" " * (300 * 1024)
    client = TestClient(create_app())
    route = client.post(
        "/v1/optimize", content=padded, headers={"content-type": "application/json"}
    )
    assert route.status_code == 200, route.text
    status, lines = run(
        frame(1, "optimize", padded)
        + frame(2, "plan", week)
        + frame(3, "optimize", EXAMPLE.read_bytes())
        + frame(4, "plan", padded)
    )
    assert status == 0
    assert json.loads(lines[0]) == {"id": 1, "ok": True, "length": len(route.content)}
    assert lines[1] == route.content
    assert lines[3] == route.content
    refused = json.loads(lines[4])["error"]
    assert (refused["code"], refused["path"]) == ("input.invalid_argument", "/operation")
    assert json.loads(lines[5])["error"]["code"] == "input.too_large"
