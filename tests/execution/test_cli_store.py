"""``cerebri store init|upgrade|status`` through the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cerebri.cli import app
from cerebri.execution import store

runner = CliRunner()


def test_init_then_status_json(store_url: str) -> None:
    done = runner.invoke(app, ["store", "init", "--store", store_url])
    assert done.exit_code == 0, done.output
    assert "revision: 0005\nhead: 0005\nstate: up to date\n" in done.stdout
    shown = runner.invoke(app, ["store", "status", "--store", store_url, "--json"])
    assert shown.exit_code == 0, shown.output
    wire = json.loads(shown.stdout)
    assert wire == {
        "url": store.redacted(store.parse_store_url(store_url)),
        "current_revision": "0005",
        "head_revision": "0005",
        "up_to_date": True,
    }


def test_upgrade_and_env_variable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    url = f"sqlite:///{tmp_path / 'env.sqlite3'}"
    monkeypatch.setenv("CEREBRI_STORE", url)
    before = runner.invoke(app, ["store", "status", "--json"])
    assert json.loads(before.stdout)["current_revision"] is None
    done = runner.invoke(app, ["store", "upgrade", "--json"])
    assert done.exit_code == 0, done.output
    assert json.loads(done.stdout)["url"] == url
    assert store.current_revision(url) == "0005"
    # --store wins over the variable
    other = tmp_path / "other.sqlite3"
    runner.invoke(app, ["store", "init", "--store", f"sqlite:///{other}"])
    assert other.is_file()


def test_errors_are_one_line_exit_2() -> None:
    result = runner.invoke(app, ["store", "status", "--store", "mysql://u@h/db"])
    assert result.exit_code == 2
    assert result.stderr.startswith("error store.invalid_url: unsupported store scheme 'mysql'")
    assert result.stderr.count("\n") == 1


def test_password_is_hidden() -> None:
    result = runner.invoke(app, ["store", "status", "--store", "postgresql://u:pw9@127.0.0.1:1/d"])
    assert result.exit_code == 2
    assert result.stderr.startswith("error store.unreachable:")
    assert "pw9" not in result.stderr


def test_default_url_is_in_the_platformdirs_data_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CEREBRI_STORE", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    expected = tmp_path / "xdg" / "cerebri" / "store.sqlite3"
    assert store.default_store_path() == expected
    assert store.resolve_store_url(None) == f"sqlite:///{expected}"
    assert store.resolve_store_url(None, {"CEREBRI_STORE": " postgresql://h/d "}) == (
        "postgresql://h/d"
    )
    done = runner.invoke(app, ["store", "init"])
    assert done.exit_code == 0, done.output
    assert expected.is_file()
    assert f"store: sqlite:///{expected}\n" in done.stdout
