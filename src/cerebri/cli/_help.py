"""How ``cerebri ... --help`` reads: plain-word metavars and one-line command summaries.

:class:`HelpGroup` is the class of the root typer group. When typer has built the whole
command tree it walks every command once and tidies what the help screens show, so options
that commands add later follow the same rules without per-option edits:

* Every option value has a metavar from :data:`METAVARS` (``PATH``, ``TEXT``,
  ``DURATION``, ``INSTANT``...): an option's own ``metavar=`` wins, then the word for its
  option name in :data:`OPTION_METAVARS` (one option name means one kind of value in every
  command), then the word for its Python type (``Path`` -> ``PATH``, ``str`` -> ``TEXT``,
  ``int`` -> ``INTEGER``, ``float`` -> ``NUMBER``, an enum -> ``CHOICE`` with the choices
  added to the help). Flags (``--json``, ``--help``) show no metavar.
* Arguments are shown by name only (``FILE``, ``KEYID``): upper case, no type column.
* A command's one-line summary in its group's list is the first sentence of its help, and
  single line breaks inside a help paragraph are joined, so the terminal wraps whole words.

The help of every command must fit an 80-column terminal (tests/cli/test_cli_help.py checks it).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime
from enum import Enum
from pathlib import Path
from typing import Any, Final, get_args, get_origin

import typer
from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption

__all__ = ["METAVARS", "OPTION_METAVARS", "HelpGroup", "metavar_words", "tidy_command"]

METAVARS: Final = frozenset(
    {
        "CAPABILITY",
        "CHOICE",
        "DIR",
        "DURATION",
        "EMAIL",
        "ENVELOPE",
        "FILE",
        "FRACTION",
        "HOST",
        "HOURS",
        "ID",
        "INSTANT",
        "INTEGER",
        "INTERVAL",
        "KEY",
        "KEYID",
        "NAME",
        "NUMBER",
        "PATH",
        "PRINCIPAL",
        "ROLE",
        "SECONDS",
        "STATUS",
        "TEXT",
        "TIME",
        "TITLE",
        "URL",
        "WEEKDAYS",
        "ZONE",
    }
)
"""The words a metavar is made of (``ID=PATH`` joins two). Arguments may instead show their
own upper-case name (``OLD``, ``NEW``, ``PLAN``)."""

OPTION_METAVARS: Final = {
    "--at": "INSTANT",
    "--attendee": "EMAIL",
    "--busy": "INTERVAL",
    "--organizer": "EMAIL",
    "--pick": "INTEGER",
    "--author": "PRINCIPAL",
    "--between": "INTERVAL",
    "--buffer": "DURATION",
    "--caldav": "URL",
    "--caldav-password": "TEXT",
    "--caldav-user": "NAME",
    "--duration": "DURATION",
    "--granularity": "DURATION",
    "--host": "HOST",
    "--keyid": "KEYID",
    "--lock": "PATH",
    "--node-id": "ID",
    "--optional-caldav": "URL",
    "--prefer": "TIME",
    "--prefer-between": "HOURS",
    "--principal": "PRINCIPAL",
    "--query-id": "ID",
    "--room": "ID",
    "--token-env": "NAME",
    "--turn": "ID",
    "--tz": "ZONE",
    "--working-days": "WEEKDAYS",
    "--working-hours": "HOURS",
}
"""Metavars by option name, for options whose Python type (``str``) says too little."""

_TYPE_METAVARS: Final[dict[Any, str]] = {
    Path: "PATH",
    str: "TEXT",
    int: "INTEGER",
    float: "NUMBER",
    datetime: "INSTANT",
}


def _plain_ranges() -> None:
    """Stop typer printing a number range after the metavar (``INTEGER [0<=x<=100000]``),
    which widens the metavar column until the help column is too narrow for long words; the
    range goes into the help text instead (:func:`_with_range`). Called just before a help
    screen is drawn, so a command that prints no help never imports ``typer.rich_utils``
    (and Markdown, pygments...): fast CLI start."""
    import typer.rich_utils  # noqa: PLC0415 - fast CLI start

    typer.rich_utils.RANGE_STRING = ""


class _TidyCommand(TyperCommand):
    """A command whose help screen shows number ranges in the help text only."""

    def format_help(self, ctx: Any, formatter: Any) -> None:  # typer's vendored click types
        _plain_ranges()
        super().format_help(ctx, formatter)


class _TidyGroup(TyperGroup):
    """A group whose help screen shows number ranges in the help text only."""

    def format_help(self, ctx: Any, formatter: Any) -> None:  # typer's vendored click types
        _plain_ranges()
        super().format_help(ctx, formatter)


_SENTENCE_END: Final = re.compile(r"(?<=[a-z0-9)\]`'])\.(?=\s+[A-Z(`])")


class HelpGroup(_TidyGroup):
    """The root group: built by typer with every subcommand in place, then tidied once
    (see the module docstring)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        tidy_command(self, None)


def metavar_words(metavar: str) -> tuple[str, ...]:
    """The words of a metavar: ``"ID=PATH"`` -> ``("ID", "PATH")``, ``"TEXT"`` ->
    ``("TEXT",)``."""
    return tuple(metavar.split("="))


def tidy_command(
    command: typer.core.TyperCommand | TyperGroup, parent: typer.Context | None
) -> None:
    """Tidy ``command`` and, for a group, every command below it (in place).

    ``parent`` is the context of the enclosing group (``None`` for the root); it decides the
    names of the help option, which is created here so that it too shows no metavar."""
    ctx = typer.Context(command, parent=parent, info_name=command.name)
    command.help = _joined_paragraphs(command.help)
    if command.short_help is None and command.help:
        command.short_help = _first_sentence(command.help)
    help_option = command.get_help_option(ctx)
    for param in [*command.params, *([help_option] if help_option is not None else [])]:
        if isinstance(param, TyperOption):
            _tidy_option(param)
        elif isinstance(param, TyperArgument):
            _tidy_argument(param)
    if type(command) is TyperGroup:
        command.__class__ = _TidyGroup
    elif type(command) is TyperCommand:
        command.__class__ = _TidyCommand
    if isinstance(command, TyperGroup):
        for sub in command.commands.values():
            if isinstance(sub, (typer.core.TyperCommand, TyperGroup)):
                tidy_command(sub, ctx)


def _tidy_option(option: TyperOption) -> None:
    if option.is_flag or option.is_bool_flag:
        option.metavar = ""
        return
    option.help = _with_range(option.help, option.min, option.max)
    if option.metavar is not None:
        return
    named = next((OPTION_METAVARS[o] for o in option.opts if o in OPTION_METAVARS), None)
    if named is not None:
        option.metavar = named
        return
    annotation: Any = option.type_descriptor.annotation
    origin: object = get_origin(annotation)
    if origin is list:
        (annotation,) = get_args(annotation)
    choices = option.type_descriptor.choices
    if choices:
        option.metavar = "CHOICE"
        option.help = _with_choices(option.help, choices)
        return
    option.metavar = _TYPE_METAVARS.get(annotation, "TEXT")


def _with_range(help_text: str | None, low: float | None, high: float | None) -> str | None:
    if low is None and high is None:
        return help_text
    if high is None:
        bounds = f"At least {low}."
    elif low is None:
        bounds = f"At most {high}."
    else:
        bounds = f"From {low} to {high}."
    return f"{help_text or ''} {bounds}".strip()


def _with_choices(help_text: str | None, choices: Sequence[object]) -> str:
    names = ", ".join(str(c.value if isinstance(c, Enum) else c) for c in choices)
    return f"{help_text or ''} One of: {names}.".strip()


class _NamedArgument(TyperArgument):
    """An argument shown by its name only: no ``<str>`` type column."""

    def display_type_rich(self, ctx: typer.Context) -> str | None:  # type: ignore[override]
        return None


def _tidy_argument(argument: TyperArgument) -> None:
    if argument.metavar is None:
        argument.metavar = (argument.name or "VALUE").upper()
    argument.__class__ = _NamedArgument


def _joined_paragraphs(text: str | None) -> str | None:
    """``text`` with the single line breaks inside each paragraph turned into spaces
    (paragraphs that start with ``\\b`` keep their lines, as click and typer expect)."""
    if text is None:
        return None
    paragraphs = re.split(r"\n\s*\n", text.strip())
    return "\n\n".join(p if p.startswith("\b") else " ".join(p.split()) for p in paragraphs)


def _first_sentence(text: str) -> str:
    """The first sentence of the first paragraph, with its full stop."""
    first = text.split("\n\n", 1)[0]
    found = _SENTENCE_END.search(first)
    return first if found is None else first[: found.start()] + "."
