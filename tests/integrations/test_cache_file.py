"""The cache file on its own (no server): location, trust, concurrency."""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
import stat
import threading
from pathlib import Path

import pytest

from cerebri.integrations import CACHE_DIR_ENV, CalendarCache
from cerebri.integrations.cache import CachedCalendar, CachedObject

URL = "http://dav.example/alice/work/"
USER = "alice"


def _item(name: str, etag: str = '"1"') -> CachedObject:
    return CachedObject(f"/alice/work/{name}.ics", f"{URL}{name}.ics", etag, f"TEXT {name}")


def _fill(cache: CalendarCache, *names: str, token: str = "t1") -> CachedCalendar:
    base = cache.load(URL, USER)
    assert cache.save(
        URL, USER, base, changed=[_item(n) for n in names], removed=[], sync_token=token
    )
    return cache.load(URL, USER)


def test_user_cache_follows_the_env_variable_then_xdg(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(CACHE_DIR_ENV, str(tmp_path / "mine"))
    assert CalendarCache.user().directory == tmp_path / "mine"
    monkeypatch.setenv(CACHE_DIR_ENV, "")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert CalendarCache.user().directory == tmp_path / "xdg" / "cerebri" / "caldav"


def test_file_name_hides_url_and_user_and_separates_them(tmp_path: Path) -> None:
    cache = CalendarCache(tmp_path)
    name = cache.path_for(URL, USER).name
    assert "alice" not in name and "dav.example" not in name
    assert name.endswith(".sqlite3")
    others = {
        cache.path_for(URL, "bob"),
        cache.path_for(URL, None),
        cache.path_for(URL + "x", USER),
    }
    assert cache.path_for(URL, USER) not in others
    assert len(others) == 3


def test_round_trip_and_private_file(tmp_path: Path) -> None:
    cache = CalendarCache(tmp_path / "cache")
    assert cache.load(URL, USER) == CachedCalendar(state="new")
    stored = _fill(cache, "a", "b")
    assert stored.state == "used"
    assert (stored.sync_token, stored.generation) == ("t1", 1)
    assert dict(stored.objects) == {item.key: item for item in (_item("a"), _item("b"))}
    assert cache.save(
        URL,
        USER,
        stored,
        changed=[_item("b", '"2"')],
        removed=["/alice/work/a.ics"],
        sync_token=None,
    )
    after = cache.load(URL, USER)
    assert dict(after.objects) == {"/alice/work/b.ics": _item("b", '"2"')}
    assert (after.sync_token, after.generation) == (None, 2)
    mode = stat.S_IMODE(cache.path_for(URL, USER).stat().st_mode)
    assert mode & 0o077 == 0
    assert stat.S_IMODE(cache.directory.stat().st_mode) & 0o077 == 0


def test_a_stale_base_writes_nothing(tmp_path: Path) -> None:
    cache = CalendarCache(tmp_path)
    first = _fill(cache, "a")
    assert cache.save(URL, USER, first, changed=[_item("b")], removed=[], sync_token="t2")
    # A second refresh that started from `first` lost the race: it must not write.
    assert not cache.save(URL, USER, first, changed=[_item("c")], removed=[], sync_token="t3")
    now = cache.load(URL, USER)
    assert (sorted(now.objects), now.sync_token) == (
        ["/alice/work/a.ics", "/alice/work/b.ics"],
        "t2",
    )


def test_a_file_of_another_calendar_is_not_trusted(tmp_path: Path) -> None:
    cache = CalendarCache(tmp_path)
    _fill(cache, "a")
    shutil.copy(cache.path_for(URL, USER), cache.path_for(URL, "mallory"))
    found = cache.load(URL, "mallory")
    assert (found.state, dict(found.objects)) == ("discarded", {})


@pytest.mark.parametrize(
    "damage",
    [
        "UPDATE objects SET data = 'TEXT x' WHERE key = '/alice/work/a.ics'",
        "DELETE FROM objects WHERE key = '/alice/work/a.ics'",
        "UPDATE objects SET etag = '\"2\"' WHERE key = '/alice/work/b.ics'",
        "UPDATE meta SET value = 'other-token' WHERE key = 'sync_token'",
        "INSERT INTO objects SELECT '/alice/work/z.ics', url, etag, data, digest FROM objects"
        " WHERE key = '/alice/work/a.ics'",
        "UPDATE objects SET data = 'TEXT x', digest = '"
        + hashlib.sha256(b"TEXT x").hexdigest()
        + "' WHERE key = '/alice/work/a.ics'",
    ],
    ids=["text", "deleted-row", "etag", "token", "added-row", "text-and-its-digest"],
)
def test_a_file_whose_content_does_not_match_its_digests_is_discarded(
    tmp_path: Path, damage: str
) -> None:
    cache = CalendarCache(tmp_path)
    stored = _fill(cache, "a", "b")
    assert (stored.state, len(stored.objects)) == ("used", 2)
    with sqlite3.connect(cache.path_for(URL, USER)) as connection:
        connection.execute(damage)
    found = cache.load(URL, USER)
    assert (found.state, dict(found.objects), found.sync_token) == ("discarded", {}, None)
    # The damaged file is gone: the next write starts a new, trusted one.
    assert cache.save(URL, USER, found, changed=[_item("a")], removed=[], sync_token="t9")
    again = cache.load(URL, USER)
    assert (again.state, sorted(again.objects), again.sync_token) == (
        "used",
        ["/alice/work/a.ics"],
        "t9",
    )


def test_an_unusable_folder_is_unavailable_not_an_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder", encoding="utf-8")
    cache = CalendarCache(blocker / "cache")
    base = cache.load(URL, USER)
    assert base.state == "unavailable"
    assert not cache.save(URL, USER, base, changed=[_item("a")], removed=[], sync_token="t")


def test_concurrent_readers_see_whole_refreshes(tmp_path: Path) -> None:
    cache = CalendarCache(tmp_path)
    _fill(cache, "a", token="t0")
    seen: list[tuple[int, tuple[str, ...], str | None]] = []
    failures: list[BaseException] = []

    def writer() -> None:
        for round_ in range(30):
            base = cache.load(URL, USER)
            names = ("a",) if round_ % 2 else ("a", "b", "c")
            removed = [key for key in base.objects if key.rsplit("/", 1)[1][0] not in names]
            cache.save(
                URL,
                USER,
                base,
                changed=[_item(n) for n in names],
                removed=removed,
                sync_token=f"t{len(names)}",
            )

    def reader() -> None:
        try:
            for _ in range(30):
                state = cache.load(URL, USER)
                seen.append((state.generation, tuple(sorted(state.objects)), state.sync_token))
        except BaseException as exc:  # reported by the assertion below
            failures.append(exc)

    threads = [threading.Thread(target=writer)] + [
        threading.Thread(target=reader) for _ in range(3)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert failures == []
    assert len(seen) == 90
    for _generation, keys, token in seen:
        # Every state read is one whole refresh: one object with token t1 or t0, or three
        # with token t3; never a mix.
        assert (len(keys), token) in {(1, "t1"), (1, "t0"), (3, "t3")}


def test_cache_argument_must_be_a_cache_or_a_bool() -> None:
    from cerebri.integrations import fetch_calendars
    from cerebri.temporal import Instant

    start, end = Instant.parse("2025-03-24T00:00:00Z"), Instant.parse("2025-03-25T00:00:00Z")
    with pytest.raises(TypeError):
        fetch_calendars("http://127.0.0.1:9/", start, end, cache="yes")  # type: ignore[arg-type]
