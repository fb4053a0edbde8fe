"""Every ``cerebri ... --help`` reads well in an 80-column terminal.

The command tree is walked from the typer app, so commands and options added later are
checked without editing this file.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
import typer
from typer.core import TyperArgument, TyperGroup, TyperOption
from typer.testing import CliRunner

from cerebri.cli import app
from cerebri.cli._app import DEFAULT_TOP
from cerebri.cli._help import METAVARS, metavar_words

WIDTH = 80
BOX = "│╭╮╰╯─"
TYPER_TYPES = re.compile(
    r"<(str|int|float|bool|path|datetime|\w+ range|list\[\w+\]|[\w-]+(\|[\w-]+)+)>"
)
"""How typer shows a type it was not given a metavar for: ``<str>``, ``<int range>``..."""


def _walk(
    command: typer.core.TyperCommand | TyperGroup, path: tuple[str, ...]
) -> Iterator[tuple[tuple[str, ...], typer.core.TyperCommand | TyperGroup]]:
    yield path, command
    if isinstance(command, TyperGroup):
        for name, sub in sorted(command.commands.items()):
            assert isinstance(sub, (typer.core.TyperCommand, TyperGroup))
            yield from _walk(sub, (*path, name))


ROOT = typer.main.get_command(app)
assert isinstance(ROOT, TyperGroup)
COMMANDS = dict(_walk(ROOT, ()))


def _help(path: tuple[str, ...], width: int) -> str:
    result = CliRunner().invoke(
        app, [*path, "--help"], env={"COLUMNS": str(width)}, terminal_width=width
    )
    assert result.exit_code == 0, result.output
    return result.output


def _tokens(text: str) -> list[str]:
    """Whitespace-separated words of a help screen, box drawing removed."""
    return text.translate({ord(ch): " " for ch in BOX}).split()


@pytest.mark.parametrize("path", sorted(COMMANDS), ids=lambda p: " ".join(p) or "cerebri")
def test_help_fits_80_columns_without_cutting_words(path: tuple[str, ...]) -> None:
    narrow = _help(path, WIDTH)
    for line in narrow.splitlines():
        assert len(line) <= WIDTH, line
    assert "…" not in narrow
    assert not TYPER_TYPES.search(narrow)
    # A word split at the line end or cut short would change the words: compare with a
    # rendering wide enough for no wrapping at all.
    assert _tokens(narrow) == _tokens(_help(path, 1000))


def test_cerebri_help_lists_each_command_on_one_line() -> None:
    text = _help((), WIDTH)
    panel = text[text.index("─ Commands ─") :].splitlines()[1:]
    rows = [line.strip("│ ") for line in panel if line.startswith("│")]
    assert len(rows) == len(ROOT.commands)
    assert {row.split()[0] for row in rows} == set(ROOT.commands)
    assert all(row.endswith(".") for row in rows)  # whole sentences, nothing cut


def _params() -> Iterator[tuple[str, TyperOption | TyperArgument]]:
    for path, command in COMMANDS.items():
        ctx = typer.Context(command, info_name="cerebri")
        help_option = command.get_help_option(ctx)
        for param in [*command.params, *([help_option] if help_option else [])]:
            assert isinstance(param, (TyperOption, TyperArgument))
            yield " ".join(("cerebri", *path, param.opts[0])), param


PARAMS = dict(_params())


@pytest.mark.parametrize("name", sorted(PARAMS))
def test_metavars_are_plain_words(name: str) -> None:
    param = PARAMS[name]
    ctx = typer.Context(typer.core.TyperCommand(name="x"), info_name="x")
    shown = param.display_type_rich(ctx)
    if isinstance(param, TyperOption) and param.is_flag:
        assert not shown  # flags take no value
        return
    assert param.metavar is not None
    if isinstance(param, TyperArgument):
        assert shown is None  # only the name, no type column
        assert re.fullmatch(r"[A-Z][A-Z_]*", param.metavar)
        return
    assert shown == param.metavar
    assert all(word in METAVARS for word in metavar_words(param.metavar)), param.metavar


def test_top_has_one_default_everywhere() -> None:
    tops = {name: p.default for name, p in PARAMS.items() if name.endswith(" --top")}
    assert {"cerebri plan --top", "cerebri find-slot --top"} <= set(tops)
    assert set(tops.values()) == {DEFAULT_TOP}


def test_a_flag_shows_no_metavar_and_a_value_option_its_word() -> None:
    text = _help(("find-slot",), WIDTH)
    json_line = next(line for line in text.splitlines() if "--json " in line)
    assert json_line.split()[1:3] == ["--json", "Print"]
    assert re.search(r"--tz +ZONE ", text)
    assert re.search(r"--ics +PATH ", text)
    assert re.search(r"--top +INTEGER ", text)
