"""The store commands refuse ids a store cannot hold: one error line, exit 2, both back ends.

A command line cannot carry a NUL, but bytes that are not UTF-8 (``$'\\xff'``) reach Python
as lone surrogates (``surrogateescape``), which no store can encode: they used to end in a
``UnicodeEncodeError`` traceback. Now they are ``input.invalid_text`` (docs/decisions/0036).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from cerebri.execution.store import init

CEREBRI = str(Path(sys.executable).parent / "cerebri")
UNDECODABLE = b"plan-\xff"


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    url: str = (
        f"sqlite:///{tmp_path / 'plans.db'}"
        if request.param == "sqlite"
        else request.getfixturevalue("postgres_url")
    )
    init(url)
    return url


@pytest.mark.parametrize(
    "command",
    [
        [b"plans", b"show", UNDECODABLE],
        [b"plans", b"cancel", UNDECODABLE, b"--as", b"principal:alice"],
        [b"approvals", b"withdraw", UNDECODABLE, b"--as", b"principal:alice"],
        [b"approvals", b"reject", UNDECODABLE, b"--as", b"principal:bob"],
        [b"plans", b"cancel", b"plan-1", b"--as", b"principal:" + UNDECODABLE],
    ],
    ids=["plans-show", "plans-cancel", "approvals-withdraw", "approvals-reject", "as"],
)
def test_an_undecodable_id_is_invalid_text(store: str, command: list[bytes]) -> None:
    done = subprocess.run(
        [CEREBRI.encode(), *command, b"--store", store.encode()],
        capture_output=True,
        timeout=120,
        check=False,
    )
    stderr = done.stderr.decode("utf-8", "replace")
    assert done.returncode == 2, stderr
    assert stderr.startswith("error input.invalid_text"), stderr
    assert "lone surrogate (U+DCFF)" in stderr, stderr
    assert stderr.count("\n") == 1 and "Traceback" not in stderr, stderr
