"""``cerebri mcp`` refuses at start what its first tool call would refuse (exit 2, one line)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

CEREBRI = Path(sys.executable).parent / "cerebri"


def _start(*options: str) -> subprocess.CompletedProcess[str]:
    """Run the server with ``options`` and no client: a refusal ends it at once; a server
    that did start reads end-of-file on stdin and stops."""
    return subprocess.run(
        [str(CEREBRI), "mcp", *options],
        input="",
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.mark.parametrize(
    ("options", "code"),
    [
        (("--host", "0.0.0.0"), "input.invalid_option"),
        (("--port", "9999"), "input.invalid_option"),
        (("--allow-remote",), "input.invalid_option"),
        (("--author", "bogus"), "proposal."),
    ],
)
def test_options_are_checked_at_start(options: tuple[str, ...], code: str) -> None:
    done = _start(*options)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert code in lines[0]
    assert "Traceback" not in done.stderr


def test_a_missing_key_file_is_refused_at_start(tmp_path: Path) -> None:
    done = _start("--key", str(tmp_path / "absent.pem"), "--keyid", "k1")
    assert done.returncode == 2, done.stderr
    assert "absent.pem" in done.stderr
    assert "Traceback" not in done.stderr


def test_an_uninitialised_store_is_refused_at_start(tmp_path: Path) -> None:
    done = _start("--store", f"sqlite:///{tmp_path / 'none.db'}")
    assert done.returncode == 2, done.stderr
    assert "store.not_initialised" in done.stderr
    assert "Traceback" not in done.stderr


def test_good_options_start_and_stop_at_end_of_input() -> None:
    done = _start("--author", "agent:helper")
    assert done.returncode == 0, done.stderr
