"""Planning a change in an .ics file a worker would not write warns
``ics.too_large_to_write`` (decision 0066): a plan reads calendars up to 256 MiB, the
execution adapter changes files of at most 16 MiB, one named constant."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cerebri.calendars import event_change
from cerebri.calendars.sources import MAX_CALENDAR_BYTES, MAX_WRITABLE_ICS_BYTES
from cerebri.execution.adapters import ics_file
from tests.cli.test_cli_changes import _ics, files, run

__all__ = ["files"]


def test_the_adapter_writes_what_the_shared_constant_says() -> None:
    assert ics_file.MAX_CALENDAR_BYTES == MAX_WRITABLE_ICS_BYTES == 16 * 1024 * 1024
    assert MAX_CALENDAR_BYTES == 256 * 1024 * 1024  # what planning reads


def test_a_change_in_a_file_too_large_to_write_is_warned(
    files: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    size = files["alice"].stat().st_size
    quiet = run("cancel-event", "sync@example.com", *_ics(files), "--json")
    assert quiet.exit_code == 0, quiet.output
    assert "ics.too_large_to_write" not in quiet.output
    monkeypatch.setattr(event_change, "MAX_WRITABLE_ICS_BYTES", size - 1)
    answer = run("cancel-event", "sync@example.com", *_ics(files), "--json")
    assert answer.exit_code == 0, answer.output
    [warning] = [
        w for w in json.loads(answer.stdout)["warnings"] if w["code"] == "ics.too_large_to_write"
    ]
    assert warning["source"] == str(files["alice"])  # the organizer's, not bob's
    assert warning["message"].startswith(f"{size} bytes: a worker changes .ics files of at most")
    text = run("cancel-event", "sync@example.com", *_ics(files))
    assert f"ics.too_large_to_write ({files['alice']}" not in text.stdout
    assert "ics.too_large_to_write" in text.stderr
