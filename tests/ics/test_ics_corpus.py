"""Every calendar file we can find, read with and without ``skip_invalid_events``.

The corpus: the shared conformance files (``CEREBRI_CONFORMANCE_DIR``/ics) and the test
calendars that ship inside the installed ``icalendar`` package (``icalendar/tests/calendars``,
many of them from bug reports: broken lines, odd producers, fuzzing finds). Each file must
end in one of three categories, never in a traceback:

* ``read``: parsed and expanded over 1970-2040 without a warning;
* ``warned``: parsed and expanded, with warnings (``ics.lenient``, ``ics.skipped_event``...);
* ``refused``: a :class:`~cerebri.errors.CerebriError` with a stable code.

The counts are printed (``pytest -s``) and recorded as ``record_property`` values.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from importlib.resources import files
from pathlib import Path

import pytest

from cerebri.errors import CerebriError
from cerebri.ics import busy_periods, calendar_incomplete, calendar_warnings, parse_calendar
from tests.ics.helpers import utc

WINDOW = (utc("1970-01-01 00:00"), utc("2040-01-01 00:00"))


def icalendar_corpus() -> list[Path]:
    folder = Path(str(files("icalendar") / "tests" / "calendars"))
    assert folder.is_dir(), (
        f"the installed icalendar wheel ships no test calendars at {folder}; "
        "the corpus test needs them (report it)"
    )
    return sorted(folder.glob("*.ics"))


def category(path: Path, *, skip: bool) -> str:
    """``read``, ``warned``, ``refused:<code>``; anything else is re-raised (a traceback)."""
    try:
        calendar = parse_calendar(path.read_bytes(), source=path.name, skip_invalid_events=skip)
        busy_periods(calendar, *WINDOW)
    except CerebriError as error:
        return f"refused:{error.code}"
    if calendar_incomplete(calendar):
        assert skip, f"{path.name}: incomplete without skip_invalid_events"
    return "warned" if calendar_warnings(calendar) else "read"


def survey(paths: list[Path], *, skip: bool) -> tuple[dict[str, str], list[str]]:
    found: dict[str, str] = {}
    tracebacks: list[str] = []
    for path in paths:
        try:
            found[path.name] = category(path, skip=skip)
        except Exception as exc:
            tracebacks.append(f"{path.name}: {type(exc).__name__}: {exc}")
    return found, tracebacks


def summary(label: str, found: dict[str, str]) -> str:
    counts = Counter("refused" if c.startswith("refused") else c for c in found.values())
    codes = Counter(c.removeprefix("refused:") for c in found.values() if c.startswith("refused"))
    return (
        f"{label}: {len(found)} files, read {counts['read']}, warned {counts['warned']}, "
        f"refused {counts['refused']} {dict(sorted(codes.items()))}"
    )


Recorder = Callable[[str, object], None]


@pytest.mark.parametrize("skip", [False, True], ids=["strict", "skip-invalid-events"])
def test_conformance_corpus_reads_every_file(
    conformance: Path, skip: bool, record_property: Recorder
) -> None:
    paths = sorted((conformance / "ics").glob("*.ics"))
    assert len(paths) >= 20  # the shared data holds 21 files today
    found, tracebacks = survey(paths, skip=skip)
    line = summary(f"conformance ({'skip' if skip else 'strict'})", found)
    print(line)
    record_property("corpus_summary", line)
    assert tracebacks == []
    assert {name for name, c in found.items() if c.startswith("refused")} == set()
    # One Thunderbird override carries DTEND and DURATION:PT0S: read, with a warning.
    assert found["recurring_events_changed_duration.ics"] == "warned"


@pytest.mark.parametrize("skip", [False, True], ids=["strict", "skip-invalid-events"])
def test_icalendar_corpus_has_no_tracebacks(skip: bool, record_property: Recorder) -> None:
    paths = icalendar_corpus()
    assert len(paths) >= 100  # icalendar 7.3 ships about 115
    found, tracebacks = survey(paths, skip=skip)
    line = summary(f"icalendar ({'skip' if skip else 'strict'})", found)
    print(line)
    record_property("corpus_summary", line)
    assert tracebacks == []
    read = sum(c in {"read", "warned"} for c in found.values())
    assert read >= len(paths) // 2  # most real files read
    # Files from icalendar bug reports that the leniencies of docs/decisions/0014 read:
    for name in (
        "issue_104_broken_calendar.ics",  # a lone "X" line
        "issue_165_missing_event.ics",  # BYDAY=MO, TU, WE
        "issue_168_input.ics",  # X-APPLE-RADIUS=49.9 without a colon
        "issue_350.ics",  # X-COMMENT after END:VCALENDAR
        "timezone_rdate.ics",  # SUMMARY=testevent without a colon
    ):
        assert found.get(name) == "warned", name
    if skip:
        # Unreadable events are left out: the file reads, incomplete.
        for name in ("issue_1081_invalid_start_valid_end.ics", "rfc_7529.ics", "parsing_error.ics"):
            assert found.get(name) == "warned", name
    else:
        assert found.get("rfc_7529.ics") == "refused:ics.unsupported"
        assert found.get("issue_1081_invalid_rrule_freq.ics") == "refused:ics.invalid_rrule"
        # The syntax of the whole file is broken: nothing to skip either way.
    assert found.get("timezone_same_start_and_offset.ics") == "refused:ics.syntax"


def test_skipping_never_reads_less() -> None:
    paths = icalendar_corpus()
    strict, _ = survey(paths, skip=False)
    lenient, _ = survey(paths, skip=True)
    for name, c in strict.items():
        if c in {"read", "warned"}:
            assert lenient[name] == c, name  # skipping changes nothing for readable files
    refused_strict = sum(c.startswith("refused") for c in strict.values())
    refused_skip = sum(c.startswith("refused") for c in lenient.values())
    assert refused_skip < refused_strict
