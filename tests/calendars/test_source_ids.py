"""Calendar ids of the sources named together: the shortest path suffix no other source
shares (issue 21 item 11, docs/decisions/0037). Expected ids are written out by hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from cerebri.calendars.sources import source_ids


def test_one_url_or_distinct_last_segments_keep_the_plain_segment() -> None:
    assert source_ids(["https://dav.example.org/alice/work/"]) == ["work"]
    assert source_ids(["https://dav/alice/work/", "https://dav/bob/home/"]) == ["work", "home"]
    assert source_ids([Path("/cal/alice.ics"), Path("/cal/bob.ics")]) == ["alice", "bob"]


def test_the_readme_example_gets_two_ids() -> None:
    urls = ["https://dav.example.org/alice/work/", "https://dav.example.org/bob/work/"]
    assert source_ids(urls) == ["alice.work", "bob.work"]
    assert source_ids(list(reversed(urls))) == ["bob.work", "alice.work"]  # order-free


def test_only_the_colliding_sources_get_longer_ids() -> None:
    urls = ["https://dav/alice/work/", "https://dav/bob/work/", "https://dav/bob/home/"]
    assert source_ids(urls) == ["alice.work", "bob.work", "home"]


def test_same_path_on_two_servers_takes_the_host_and_port() -> None:
    urls = ["https://a.example.org/dav/work/", "http://b.example.org:8080/dav/work"]
    assert source_ids(urls) == ["a.example.org.dav.work", "b.example.org-8080.dav.work"]


def test_files_with_one_stem_in_two_folders(tmp_path: Path) -> None:
    first, second = tmp_path / "a" / "work.ics", tmp_path / "b" / "work.ics"
    assert source_ids([first, second]) == ["a.work", "b.work"]


def test_a_relative_file_is_read_from_the_working_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "team").mkdir()
    ids = source_ids([Path("work.ics"), Path("team/work.ics")])
    assert ids == [f"{tmp_path.name}.work", "team.work"]


def test_a_file_and_a_url_share_one_namespace() -> None:
    assert source_ids([Path("/home/me/work.ics"), "https://dav/alice/work/"]) == [
        "me.work",
        "alice.work",
    ]


def test_unsafe_characters_and_the_same_source_twice() -> None:
    assert source_ids(["https://dav/alice/My%20Work/"]) == ["My-Work"]
    assert source_ids(["https://dav/a/work/", "https://dav/a/work/"]) == [
        "dav.a.work",
        "dav.a.work-2",
    ]
