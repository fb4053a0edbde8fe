"""Recurrence cases read over CalDAV equal the same text read as an .ics file, on each server.

Every case of :mod:`tests.integrations.cases` is uploaded to its own calendar collection on
Radicale and on Xandikos (``dav_server``), then read

* as an .ics file holding the same text (:func:`cerebri.calendars.sources.load_sources`),
* through :func:`cerebri.integrations.fetch_calendars` ten times in a row without the cache
  (Xandikos switches to an index that ignores overrides after five queries of a
  collection), and once more through the cache,
* through ``cerebri freebusy --json`` as a subprocess, for ``--caldav`` and for ``--ics``,

and every answer must equal the busy time written by hand in the case.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import caldav
import pytest
from icalendar import Component

from cerebri.calendars import freebusy
from cerebri.calendars.sources import load_sources
from cerebri.ics import BusyPeriod, busy_periods
from cerebri.integrations import fetch_calendars
from tests.integrations.cases import BETWEEN, CASES, WINDOW, Case, Span
from tests.integrations.conftest import DavServer

QUERIES = 10


@dataclass(frozen=True)
class Uploaded:
    """Every case on one server: its calendar URL, and an .ics file with the same text."""

    server: DavServer
    urls: dict[str, str]
    files: dict[str, Path]


@pytest.fixture(scope="module")
def uploaded(dav_server: DavServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Uploaded]:
    folder = tmp_path_factory.mktemp(f"cases-{dav_server.name}")
    urls: dict[str, str] = {}
    files: dict[str, Path] = {}
    with caldav.DAVClient(
        dav_server.url, username=dav_server.username, password=dav_server.password, timeout=10
    ) as client:
        principal = client.principal()
        for case in CASES:
            collection = principal.make_calendar(name=case.name, cal_id=f"case-{case.name}")
            collection.save_event(case.text)
            urls[case.name] = str(collection.url)
            files[case.name] = folder / f"case-{case.name}.ics"
            files[case.name].write_text(case.text, encoding="utf-8")
    yield Uploaded(dav_server, urls, files)


def _spans(periods: tuple[BusyPeriod, ...]) -> list[Span]:
    return [(p.start.format(), p.end.format()) for p in periods]


def _unsourced(periods: tuple[BusyPeriod, ...]) -> list[BusyPeriod]:
    return [dataclasses.replace(p, source="") for p in periods]


def _from_file(path: Path) -> list[Component]:
    return [calendar for _, calendar in load_sources([path], [], WINDOW)]


def _fetch(uploaded: Uploaded, case: Case, **options: Any) -> list[Component]:
    server = uploaded.server
    return list(
        fetch_calendars(
            uploaded.urls[case.name],
            *WINDOW,
            username=server.username,
            password=server.password,
            **options,
        )
    )


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_caldav_equals_ics_equals_hand_computed(uploaded: Uploaded, case: Case) -> None:
    from_file = _from_file(uploaded.files[case.name])
    for zone, expected in case.expected.items():
        assert _spans(busy_periods(from_file, *WINDOW, floating_zone=zone)) == expected
    answers = [_fetch(uploaded, case, cache=False) for _ in range(QUERIES)]
    answers.append(_fetch(uploaded, case))  # through the (test's own) cache
    for calendars in answers:
        for zone, expected in case.expected.items():
            via_caldav = busy_periods(calendars, *WINDOW, floating_zone=zone)
            assert _spans(via_caldav) == expected, zone
            via_file = busy_periods(from_file, *WINDOW, floating_zone=zone)
            assert _unsourced(via_caldav) == _unsourced(via_file)
            view = freebusy(calendars, *WINDOW, floating_zone=zone)
            assert _spans(view.busy) == expected
            assert view.unknown == ()


def test_caldav_source_is_the_object_url(uploaded: Uploaded) -> None:
    case = CASES[0]
    calendars = _fetch(uploaded, case, cache=False)
    sources = {p.source for p in busy_periods(calendars, *WINDOW)}
    assert len(sources) == 1
    (source,) = sources
    assert source.startswith(uploaded.urls[case.name])
    assert source.endswith(".ics")


@pytest.fixture(scope="module")
def script() -> str:
    found = shutil.which("cerebri", path=str(Path(sys.executable).parent))
    if found is None:
        pytest.fail(f"console script 'cerebri' not found next to {sys.executable}")
    return found


def _cli(script: str, cache_dir: Path, *args: str) -> dict[str, Any]:
    environment = {**os.environ, "CEREBRI_CACHE_DIR": str(cache_dir)}
    environment.pop("CEREBRI_CALDAV_PASSWORD", None)
    done = subprocess.run(
        [script, "freebusy", "--between", BETWEEN, "--tz", "UTC", "--json", *args],
        capture_output=True,
        timeout=120,
        check=False,
        env=environment,
    )
    assert done.returncode == 0, done.stderr.decode("utf-8", "replace")
    answer: dict[str, Any] = json.loads(done.stdout)
    return answer


def _by_uid(answer: dict[str, Any]) -> dict[str, list[Span]]:
    found: dict[str, list[Span]] = {}
    for item in answer["busy"]:
        found.setdefault(item["uid"], []).append((item["start"], item["end"]))
    return found


def test_cli_caldav_equals_cli_ics(uploaded: Uploaded, script: str, tmp_path: Path) -> None:
    server = uploaded.server
    caldav_args = [arg for case in CASES for arg in ("--caldav", uploaded.urls[case.name])]
    ics_args = [arg for case in CASES for arg in ("--ics", str(uploaded.files[case.name]))]
    user = ["--caldav-user", server.username, "--caldav-password", server.password]
    via_caldav = _cli(script, tmp_path / "cache", *caldav_args, *user)
    via_file = _cli(script, tmp_path / "cache", *ics_args)
    expected = {case.uid: sorted(case.expected["UTC"]) for case in CASES}
    expected = {uid: spans for uid, spans in expected.items() if spans}
    assert _by_uid(via_caldav) == expected
    assert _by_uid(via_file) == expected
    # A second run reads through the cache the first one wrote, with the same answer.
    assert _cli(script, tmp_path / "cache", *caldav_args, *user) == via_caldav
    assert all(item["source"].startswith(server.url) for item in via_caldav["busy"])
    for answer in (via_caldav, via_file):
        for item in answer["busy"]:
            del item["source"]
    assert via_caldav == via_file
