"""``cerebri submit`` of the unsigned envelope ``propose`` hands out without a key: one typed
line and exit 2, never a traceback (docs/decisions/0033-mcp-tool-server.md)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.mcp_server.support import MEETING_DRAFT, live_server

CLI = str(Path(sys.executable).parent / "cerebri")


def _cerebri(*arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [CLI, *arguments], capture_output=True, text=True, timeout=120, check=False
    )


@pytest.mark.parametrize("source", ["objects", "artifact"])
def test_submitting_an_unsigned_envelope_is_one_typed_line(tmp_path: Path, source: str) -> None:
    with live_server("--at", "2026-10-01T00:00:00Z") as live:
        answer = live.ok(
            "propose", {"draft": json.loads(MEETING_DRAFT.read_text()), "expires_in": 86_400 * 365}
        )
    assert answer["signed"] is False
    envelope = tmp_path / "envelope.json"
    envelope.write_text(json.dumps(answer["envelope"]))
    url = f"sqlite:///{tmp_path / 'plans.db'}"
    assert _cerebri("store", "init", "--store", url).returncode == 0
    objects = tmp_path / "objects"
    objects.mkdir()
    artifact = tmp_path / "artifact.json"
    artifact.write_text("{}")
    where = ["--objects", str(objects)] if source == "objects" else ["--artifact", str(artifact)]
    done = _cerebri("submit", str(envelope), *where, "--store", url)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.startswith("error proposal.schema at /signature: the envelope is unsigned")
    assert "Traceback" not in done.stderr + done.stdout
