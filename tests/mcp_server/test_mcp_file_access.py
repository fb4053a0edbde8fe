"""Which .ics files the tools may read (``--ics NAME=PATH``, ``--ics-root DIR``) and that a
reading error quotes nothing of the file (docs/decisions/0033-mcp-tool-server.md)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from cerebri.calendars import freebusy
from cerebri.calendars.options import parse_window
from cerebri.calendars.wire import freebusy_wire
from cerebri.ics import parse_calendar
from tests.mcp_server.support import Live, live_server

BETWEEN = "2026-10-05T08:00/2026-10-05T12:00"
SECRET = "TOPSECRET-a1b2c3d4e5f6"


def _calendar(uid: str, start: str, end: str) -> str:
    return "\r\n".join([
        "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//test//mcp//EN", "BEGIN:VEVENT",
        f"UID:{uid}", "DTSTAMP:20260101T000000Z", f"DTSTART:{start}", f"DTEND:{end}",
        "END:VEVENT", "END:VCALENDAR", "",
    ])  # fmt: skip


def confined_bad_text() -> str:
    """A calendar whose DTSTART cannot be read and carries what must never reach the agent."""
    text = _calendar("x", "20261005T090000Z", "20261005T093000Z")
    return text.replace("DTSTART:20261005T090000Z", f"DTSTART:{SECRET}")


@dataclass
class Files:
    root: Path
    inside: Path
    outside: Path
    link: Path
    bad: Path


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> Files:
    base = tmp_path_factory.mktemp("access")
    root = base / "root"
    root.mkdir()
    inside = root / "alice.ics"
    inside.write_text(_calendar("standup", "20261005T090000Z", "20261005T093000Z"))
    outside = base / "private.ics"
    outside.write_text(_calendar("secret", "20261005T100000Z", "20261005T110000Z"))
    link = root / "sneaky.ics"
    link.symlink_to(outside)
    bad = root / "bad.ics"
    bad.write_text(confined_bad_text())
    environ = root / "environ"
    environ.write_bytes(f"HOME=/root\0API_KEY={SECRET}\0".encode())
    return Files(root, inside, outside, link, bad)


@pytest.fixture(scope="module")
def confined(files: Files) -> Iterator[Live]:
    options = ("--ics-root", str(files.root), "--ics", f"boss={files.outside}")
    with live_server(*options) as connected:
        yield connected


def _expected_freebusy(path: Path, source: str) -> object:
    start, end = parse_window(BETWEEN, "UTC")
    view = freebusy([parse_calendar(path.read_bytes(), source=source)], start, end)
    return freebusy_wire(view, "UTC")


def test_without_ics_options_no_path_is_read(files: Files) -> None:
    with live_server() as bare:
        for tool, extra in (("freebusy", {}), ("find_slot", {"duration": "30m"})):
            for given in (str(files.inside), "/proc/self/environ", "/nonexistent/x.ics"):
                wire = bare.error(tool, {"ics": [given], "between": BETWEEN, **extra})
                assert (wire["code"], wire["path"]) == ("mcp.path_not_allowed", "/ics/0")
        # the same refusal whether the file exists or not: nothing is learnt
        messages = {
            bare.error("freebusy", {"ics": [p], "between": BETWEEN})["message"].replace(p, "P")
            for p in (str(files.inside), "/nonexistent/x.ics")
        }
        assert len(messages) == 1


def test_a_named_calendar_and_a_path_inside_the_root_are_read(confined: Live, files: Files) -> None:
    by_name = confined.ok("freebusy", {"ics": ["boss"], "between": BETWEEN})
    assert by_name == _expected_freebusy(files.outside, "boss")
    assert by_name["busy"][0]["start"] == "2026-10-05T10:00:00Z"
    relative = confined.ok("freebusy", {"ics": ["alice.ics"], "between": BETWEEN})
    absolute = confined.ok("freebusy", {"ics": [str(files.inside)], "between": BETWEEN})
    assert relative == _expected_freebusy(files.inside, "alice.ics")
    assert absolute == _expected_freebusy(files.inside, str(files.inside))


@pytest.mark.parametrize(
    "given",
    ["/proc/self/environ", "../private.ics", "sneaky.ics", "/etc/passwd", "sub/../../x.ics"],
)
def test_paths_outside_the_root_are_refused(confined: Live, given: str) -> None:
    wire = confined.error("freebusy", {"ics": ["alice.ics", given], "between": BETWEEN})
    assert (wire["code"], wire["path"]) == ("mcp.path_not_allowed", "/ics/1")


def test_optional_calendars_obey_the_same_rule(confined: Live) -> None:
    arguments = {"ics": ["boss"], "between": BETWEEN, "duration": "30m"}
    wire = confined.error("find_slot", {**arguments, "optional_ics": ["../private.ics"]})
    assert (wire["code"], wire["path"]) == ("mcp.path_not_allowed", "/optional_ics/0")


def test_a_reading_error_keeps_its_code_and_line_but_quotes_nothing(confined: Live) -> None:
    wire = confined.error("freebusy", {"ics": ["alice.ics", "bad.ics"], "between": BETWEEN})
    assert (wire["code"], wire["path"]) == ("ics.syntax", "/ics/1")
    assert SECRET not in wire["message"]
    assert SECRET[:8] not in wire["message"]
    lines = confined_bad_text().split("\r\n")
    assert f"(line {lines.index(f'DTSTART:{SECRET}') + 1})" in wire["message"]
    environ = confined.error("freebusy", {"ics": ["environ"], "between": BETWEEN})
    assert (environ["code"], environ["path"]) == ("ics.syntax", "/ics/0")
    assert SECRET[:8] not in environ["message"]
    assert "HOME" not in environ["message"]
    assert "line 1" in environ["message"]
    missing = confined.error("freebusy", {"ics": ["gone.ics"], "between": BETWEEN})
    assert (missing["code"], missing["path"]) == ("input.unreadable", "/ics/0")
    folder = confined.error("freebusy", {"ics": ["."], "between": BETWEEN})
    assert (folder["code"], folder["path"]) == ("input.unreadable", "/ics/0")
