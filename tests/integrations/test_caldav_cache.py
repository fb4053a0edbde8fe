"""The local CalDAV cache on Radicale and Xandikos: what each read downloads.

Each test makes its own calendar with three events on the server and reads it with
:func:`cerebri.integrations.fetch_calendars_with_report` into a cache in a temporary folder;
the :class:`~cerebri.integrations.CollectionFetch` report says which objects were
downloaded. Busy time is checked against values written by hand.
"""

from __future__ import annotations

import itertools
import os
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import caldav
import pytest

from cerebri.errors import CerebriError
from cerebri.ics import CalendarError, busy_periods, calendar_incomplete, warnings_of
from cerebri.integrations import (
    CalendarCache,
    CollectionFetch,
    FetchResult,
    fetch_calendars,
    fetch_calendars_with_report,
)
from tests.integrations.cases import BETWEEN, WINDOW
from tests.integrations.conftest import DavServer

_HEAD = "BEGIN:VCALENDAR\nVERSION:2.0\nPRODID:-//cerebri tests//cache//EN\n"


def _event(uid: str, start: str, end: str, summary: str = "Busy") -> str:
    return (
        f"{_HEAD}BEGIN:VEVENT\nUID:{uid}@cerebri.test\nDTSTAMP:20250101T000000Z\n"
        f"DTSTART:{start}\nDTEND:{end}\nSUMMARY:{summary}\nEND:VEVENT\nEND:VCALENDAR\n"
    )


A = _event("a", "20250325T090000Z", "20250325T100000Z")
B = _event("b", "20250326T090000Z", "20250326T100000Z")
C = _event("c", "20250327T090000Z", "20250327T100000Z")
B_MOVED = _event("b", "20250326T140000Z", "20250326T150000Z", "Moved")

BUSY_ABC = [
    ("2025-03-25T09:00:00Z", "2025-03-25T10:00:00Z"),
    ("2025-03-26T09:00:00Z", "2025-03-26T10:00:00Z"),
    ("2025-03-27T09:00:00Z", "2025-03-27T10:00:00Z"),
]

_names = itertools.count()


@dataclass
class Fresh:
    """A new calendar with events A, B and C, and a cache folder of its own."""

    server: DavServer
    collection: caldav.Calendar
    url: str
    objects: dict[str, caldav.CalendarObjectResource]
    cache: CalendarCache

    def read(self, **options: Any) -> FetchResult:
        options.setdefault("cache", self.cache)
        return fetch_calendars_with_report(
            self.url,
            *WINDOW,
            username=self.server.username,
            password=self.server.password,
            **options,
        )

    def object_url(self, name: str) -> str:
        return str(self.objects[name].url)


@pytest.fixture
def fresh(dav_server: DavServer, tmp_path: Path) -> Iterator[Fresh]:
    with caldav.DAVClient(
        dav_server.url, username=dav_server.username, password=dav_server.password, timeout=10
    ) as client:
        name = f"cache-{next(_names)}-{os.getpid()}"
        collection = client.principal().make_calendar(name=name, cal_id=name)
        objects = {key: collection.save_event(text) for key, text in (("a", A), ("b", B))}
        objects["c"] = collection.save_event(C)
        yield Fresh(
            dav_server, collection, str(collection.url), objects, CalendarCache(tmp_path / "c")
        )


def _spans(result: FetchResult) -> list[tuple[str, str]]:
    return [(p.start.format(), p.end.format()) for p in busy_periods(result.calendars, *WINDOW)]


def _only(result: FetchResult) -> CollectionFetch:
    (report,) = result.collections
    return report


def _same(urls: tuple[str, ...], expected: list[str]) -> bool:
    """Object URLs equal up to percent-encoding (servers spell ``@`` as ``%40`` or not)."""
    return sorted(unquote(url) for url in urls) == sorted(unquote(url) for url in expected)


@pytest.mark.parametrize("sync_collection", [True, False], ids=["sync-collection", "etag"])
def test_second_read_fetches_only_the_changed_object(fresh: Fresh, sync_collection: bool) -> None:
    method = "sync-collection" if sync_collection else "etag"
    first = fresh.read(sync_collection=sync_collection)
    report = _only(first)
    assert (report.method, report.full, report.cache, report.stored) == (method, True, "new", True)
    assert _same(report.fetched, [fresh.object_url(name) for name in "abc"])
    assert _spans(first) == BUSY_ABC

    again = _only(fresh.read(sync_collection=sync_collection))
    assert (again.fetched, again.removed, again.cache) == ((), (), "used")
    assert again.full is (not sync_collection)  # PROPFIND lists every member each time

    fresh.collection.save_event(B_MOVED)  # same UID: the server replaces object B
    changed = fresh.read(sync_collection=sync_collection)
    assert _same(_only(changed).fetched, [fresh.object_url("b")])
    assert _only(changed).method == method
    assert _spans(changed) == [
        ("2025-03-25T09:00:00Z", "2025-03-25T10:00:00Z"),
        ("2025-03-26T14:00:00Z", "2025-03-26T15:00:00Z"),
        ("2025-03-27T09:00:00Z", "2025-03-27T10:00:00Z"),
    ]

    fresh.objects["a"].delete()
    deleted = fresh.read(sync_collection=sync_collection)
    assert (_only(deleted).fetched, _same(_only(deleted).removed, [fresh.object_url("a")])) == (
        (),
        True,
    )
    assert _spans(deleted) == [
        ("2025-03-26T14:00:00Z", "2025-03-26T15:00:00Z"),
        ("2025-03-27T09:00:00Z", "2025-03-27T10:00:00Z"),
    ]
    # The cache alone now holds the server's state: a read without it agrees.
    assert _spans(fresh.read(cache=False)) == _spans(deleted)


def test_refused_sync_token_falls_back_to_a_full_listing(fresh: Fresh) -> None:
    fresh.read()
    user = fresh.server.username
    stored = fresh.cache.load(fresh.url, user)
    # A token the server never issued, stored through the cache (which keeps its digests).
    assert fresh.cache.save(
        fresh.url, user, stored, changed=[], removed=[], sync_token="http://invalid/sync/token"
    )
    fresh.collection.save_event(B_MOVED)
    report = _only(result := fresh.read())
    # RFC 6578 3.2: the server refuses the token; the REPORT without one lists every member
    # and only the one whose ETag differs from the stored one is downloaded.
    assert (report.method, report.full) == ("sync-collection", True)
    assert _same(report.fetched, [fresh.object_url("b")])
    assert ("2025-03-26T14:00:00Z", "2025-03-26T15:00:00Z") in _spans(result)


def test_corrupt_cache_file_is_discarded_and_rebuilt(fresh: Fresh) -> None:
    fresh.read()
    path = fresh.cache.path_for(fresh.url, fresh.server.username)
    path.write_bytes(b"this is not a database" * 100)
    rebuilt = fresh.read()
    assert (_only(rebuilt).cache, _only(rebuilt).stored) == ("discarded", True)
    assert _same(_only(rebuilt).fetched, [fresh.object_url(name) for name in "abc"])
    assert _spans(rebuilt) == BUSY_ABC
    assert (_only(fresh.read()).cache, _only(fresh.read()).fetched) == ("used", ())


@pytest.mark.parametrize("damage", ["edited-text", "garbled-text", "deleted-row"])
def test_cache_content_damage_is_found_and_the_calendar_read_again(
    fresh: Fresh, damage: str
) -> None:
    fresh.read()
    path = fresh.cache.path_for(fresh.url, fresh.server.username)
    key = unquote(urlsplit(fresh.object_url("a")).path)
    with sqlite3.connect(path) as connection:
        if damage == "deleted-row":
            connection.execute("DELETE FROM objects WHERE key = ?", (key,))
        elif damage == "garbled-text":
            connection.execute("UPDATE objects SET data = 'BEGIN:VCALENDAR' WHERE key = ?", (key,))
        else:  # still valid iCalendar, but A moved to 20:00
            connection.execute(
                "UPDATE objects SET data = replace(data, 'T090000Z', 'T200000Z') WHERE key = ?",
                (key,),
            )
    rebuilt = fresh.read()
    assert (_only(rebuilt).cache, _only(rebuilt).stored) == ("discarded", True)
    assert _same(_only(rebuilt).fetched, [fresh.object_url(name) for name in "abc"])
    assert _spans(rebuilt) == BUSY_ABC
    later = fresh.read()
    assert (_only(later).cache, _only(later).fetched, _spans(later)) == ("used", (), BUSY_ABC)


def test_truncated_cache_file_is_discarded_and_rebuilt(fresh: Fresh) -> None:
    fresh.read()
    path = fresh.cache.path_for(fresh.url, fresh.server.username)
    size = path.stat().st_size
    assert size > 4096
    with path.open("r+b") as handle:
        handle.truncate(size // 2)
    rebuilt = fresh.read()
    assert _only(rebuilt).cache == "discarded"
    assert _spans(rebuilt) == BUSY_ABC


def test_no_cache_writes_nothing(fresh: Fresh) -> None:
    result = fresh.read(cache=False)
    assert (_only(result).cache, _only(result).stored) == ("off", False)
    assert _spans(result) == BUSY_ABC
    assert not fresh.cache.directory.exists()


def test_default_cache_is_the_env_folder(fresh: Fresh, _private_cache: Path) -> None:
    result = fresh.read(cache=True)
    assert _only(result).stored
    assert [p.name for p in _private_cache.glob("*.sqlite3")] == [
        fresh.cache.path_for(fresh.url, fresh.server.username).name
    ]


def _script() -> str:
    found = shutil.which("cerebri", path=str(Path(sys.executable).parent))
    if found is None:
        pytest.fail(f"console script 'cerebri' not found next to {sys.executable}")
    return found


@pytest.mark.parametrize("command", ["freebusy", "find-slot"])
def test_cli_no_cache_writes_nothing_and_the_default_does(
    fresh: Fresh, tmp_path: Path, command: str
) -> None:
    folder = tmp_path / "cli-cache"
    extra = ["--duration", "30m"] if command == "find-slot" else []
    args = [
        _script(),
        command,
        "--between",
        BETWEEN,
        "--caldav",
        fresh.url,
        "--caldav-user",
        fresh.server.username,
        "--json",
        *extra,
    ]
    environment = {**os.environ, "CEREBRI_CACHE_DIR": str(folder)}
    for no_cache in (True, False):
        done = subprocess.run(
            [*args, "--no-cache"] if no_cache else args,
            capture_output=True,
            timeout=120,
            check=False,
            env=environment,
        )
        assert done.returncode == 0, done.stderr
        files = sorted(p.name for p in folder.glob("*.sqlite3")) if folder.exists() else []
        assert files == (
            []
            if no_cache
            else [f"{Path(fresh.cache.path_for(fresh.url, fresh.server.username)).name}"]
        )


_KILLED_WRITER = """
import os, signal, sys
from cerebri.integrations.cache import CalendarCache, CachedObject
cache = CalendarCache(sys.argv[1])
base = cache.load(sys.argv[2], sys.argv[3])
def changes():
    yield CachedObject("/x.ics", "http://x/x.ics", '"1"', "BEGIN:VCALENDAR")
    os.kill(os.getpid(), signal.SIGKILL)  # dies inside the write transaction
cache.save(sys.argv[2], sys.argv[3], base, changed=changes(), removed=list(base.objects),
           sync_token="new-token")
"""


def test_writer_killed_mid_refresh_leaves_the_previous_state(fresh: Fresh) -> None:
    fresh.read()
    user = fresh.server.username
    before = fresh.cache.load(fresh.url, user)
    assert len(before.objects) == 3
    done = subprocess.run(
        [sys.executable, "-c", _KILLED_WRITER, str(fresh.cache.directory), fresh.url, user],
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == -9, done.stderr
    after = fresh.cache.load(fresh.url, user)
    assert (after.objects, after.sync_token, after.generation) == (
        before.objects,
        before.sync_token,
        before.generation,
    )
    assert after.state == "used"
    result = fresh.read()
    assert (_only(result).fetched, _spans(result)) == ((), BUSY_ABC)


# --------------------------------------------------------------------------- bad objects

BAD = _event("bad", "20250325T120000Z", "20250325T110000Z", "Ends before it starts")


def test_invalid_object_keeps_its_ics_code_uid_and_url(fresh: Fresh) -> None:
    saved = fresh.collection.save_event(BAD)
    object_url = str(saved.url)
    with pytest.raises(CalendarError) as caught:
        fetch_calendars(fresh.url, *WINDOW, username=fresh.server.username, cache=False)
    assert caught.value.code == "ics.invalid_range"
    assert caught.value.uid == "bad@cerebri.test"
    assert caught.value.line is not None
    assert caught.value.source is not None
    assert _same((caught.value.source,), [object_url])

    from cerebri.integrations.caldav_reader import load_sources

    with pytest.raises(CerebriError) as through_sources:
        load_sources([], [fresh.url], WINDOW, caldav_username=fresh.server.username)
    assert through_sources.value.code == "ics.invalid_range"
    assert isinstance(through_sources.value, CalendarError)
    assert through_sources.value.source == caught.value.source


def test_invalid_object_is_skipped_on_request_and_the_answer_is_incomplete(fresh: Fresh) -> None:
    saved = fresh.collection.save_event(BAD)
    fetched = fetch_calendars(
        fresh.url, *WINDOW, username=fresh.server.username, cache=False, skip_invalid_events=True
    )
    spans = [(p.start.format(), p.end.format()) for p in busy_periods(fetched, *WINDOW)]
    assert spans == BUSY_ABC  # the three readable events stay busy
    found = warnings_of(fetched)
    assert [(w.code, w.uid) for w in found] == [("ics.skipped_event", "bad@cerebri.test")]
    assert found[0].source is not None and _same((found[0].source,), [str(saved.url)])
    assert any(calendar_incomplete(calendar) for calendar in fetched)

    from cerebri.calendars import freebusy
    from cerebri.integrations.caldav_reader import load_sources

    loaded = load_sources(
        [], [fresh.url], WINDOW, caldav_username=fresh.server.username, skip_invalid_events=True
    )
    view = freebusy([calendar for _, calendar in loaded], *WINDOW)
    assert view.complete is False
    assert [w.code for w in view.warnings] == ["ics.skipped_event"]


def test_unusable_cache_folder_still_reads_everything(fresh: Fresh, tmp_path: Path) -> None:
    blocker = tmp_path / "blocker"
    blocker.write_text("a file where the cache folder should be", encoding="utf-8")
    result = fresh.read(cache=CalendarCache(blocker / "cache"))
    assert (_only(result).cache, _only(result).stored) == ("unavailable", False)
    assert _same(_only(result).fetched, [fresh.object_url(name) for name in "abc"])
    assert _spans(result) == BUSY_ABC


def test_multiget_in_batches_fetches_every_object(
    fresh: Fresh, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("cerebri.integrations._sync.MULTIGET_BATCH", 2)  # 3 objects: 2 + 1
    result = fresh.read(cache=False)
    assert _same(_only(result).fetched, [fresh.object_url(name) for name in "abc"])
    assert _spans(result) == BUSY_ABC
