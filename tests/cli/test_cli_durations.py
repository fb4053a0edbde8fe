"""Every duration option of every command reads the same forms with the same refusals
(issue 21 item 15, docs/decisions/0039).

The options are found by walking the typer app (as tests/cli/test_cli_help.py does): every
option whose metavar is ``DURATION``. Each is given a bad form on its real command, with
the command's other required values filled in, and must answer one line, exit 2, code
``input.invalid_option`` and the same message but for the option's name; ``2d`` and ``90``
are read by every one of them (at most refused by the option's own range).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from decimal import Decimal

import pytest
import typer
from typer.core import TyperArgument, TyperGroup, TyperOption
from typer.testing import CliRunner

from cerebri.cli import app
from cerebri.cli._durations import DURATION_FORMS, parse_duration
from cerebri.errors import CerebriError

ROOT = typer.main.get_command(app)
MISSING = "/nonexistent-cerebri-test"
STORE = f"sqlite:///{MISSING}/store.sqlite3"
FILLERS = {
    "--between": "2026-10-05T08:00/2026-10-05T18:00",
    "--duration": "30m",
    "--key": f"{MISSING}/key.pem",
    "--ics": f"{MISSING}/a.ics",
    "--store": STORE,
}
"""Values for the other options of a command: valid where the command checks them before
its durations, else naming nothing that exists, so an accepted duration ends in another
error and never in a server, a worker or a written file."""


def _walk(
    command: typer.core.TyperCommand | TyperGroup, path: tuple[str, ...]
) -> Iterator[tuple[tuple[str, ...], typer.core.TyperCommand]]:
    if isinstance(command, TyperGroup):
        for name, sub in sorted(command.commands.items()):
            assert isinstance(sub, (typer.core.TyperCommand, TyperGroup))
            yield from _walk(sub, (*path, name))
    else:
        yield path, command


def _duration_options() -> dict[tuple[tuple[str, ...], str], typer.core.TyperCommand]:
    assert isinstance(ROOT, TyperGroup)
    return {
        (path, param.opts[0]): command
        for path, command in _walk(ROOT, ())
        for param in command.params
        if isinstance(param, TyperOption) and param.metavar == "DURATION"
    }


OPTIONS = _duration_options()
IDS = [" ".join((*path, option)) for path, option in OPTIONS]


def _invoke(path: tuple[str, ...], option: str, value: str) -> tuple[int, str]:
    command = OPTIONS[path, option]
    args: list[str] = [*path]
    for param in command.params:
        name = param.opts[0]
        if isinstance(param, TyperArgument) and param.required:
            args.append(f"{MISSING}/input.json")
        elif name != option and (param.required or name in ("--store", "--ics")):
            args += [name, FILLERS.get(name, "x")]
    args += [option, value]
    result = CliRunner().invoke(app, args, env={"CEREBRI_STORE": STORE})
    return result.exit_code, result.stderr


def test_the_duration_options_are_found() -> None:
    assert {" ".join((*p, o)) for p, o in OPTIONS} == {
        "find-slot --duration",
        "find-slot --granularity",
        "find-slot --buffer",
        "request new --duration",
        "request new --granularity",
        "request new --buffer",
        "reschedule --duration",
        "reschedule --granularity",
        "reschedule --buffer",
        "update-event --duration",
        "propose --expires-in",
        "serve --body-timeout",
        "stuck --grace",
        "worker --lease",
        "worker --poll",
        "worker --store-outage-limit",
    }
    # an option named like a duration that is not declared one would escape this test
    named = re.compile(
        r"--(.*-)?(duration|granularity|buffer|lease|poll|grace|timeout|expires.*|limit)"
    )
    assert isinstance(ROOT, TyperGroup)
    for path, command in _walk(ROOT, ()):
        for param in command.params:
            if isinstance(param, TyperOption) and named.fullmatch(param.opts[0]):
                assert param.metavar == "DURATION", (path, param.opts[0])


@pytest.mark.parametrize(("path", "option"), list(OPTIONS), ids=IDS)
def test_help_states_the_unit_and_the_forms(path: tuple[str, ...], option: str) -> None:
    param = next(p for p in OPTIONS[path, option].params if p.opts[0] == option)
    assert isinstance(param, TyperOption)
    assert DURATION_FORMS in (param.help or "")  # "seconds, or e.g. 30s, 10m, 1h30m, 2d"


BAD_FORMS = ["soon", "-5", "5 m", "1h1h", "30m1h", "1e3", "2x", "m", "1.s", "P1M", "P1Y", "1y"]


@pytest.mark.parametrize("bad", BAD_FORMS)
def test_every_option_refuses_a_bad_form_the_same_way(bad: str) -> None:
    answers = {}
    for path, option in OPTIONS:
        code, stderr = _invoke(path, option, bad)
        assert code == 2, (path, option, stderr)
        assert stderr.count("\n") == 1, stderr
        prefix = f"error input.invalid_option: {option}: "
        assert stderr.startswith(prefix), stderr
        answers[path, option] = stderr.removeprefix(prefix)
    assert len(set(answers.values())) == 1, answers
    (reason,) = set(answers.values())
    if bad.upper() in ("P1M", "P1Y"):
        assert "uses years or months" in reason
    else:
        assert reason == (
            f"cannot read duration {bad!r}; write e.g. 90 (seconds), 30s, 10m, 1h30m, 2d or "
            "PT1H30M\n"
        )


RANGES = {
    "--lease": "at most 1d",
    "--poll": "at most 1m",
    "--body-timeout": "at most 1h",
    "--store-outage-limit": "at most 1d",
}
"""Options whose own range is shorter than two days."""


@pytest.mark.parametrize("good", ["2d", "90"])
@pytest.mark.parametrize(("path", "option"), list(OPTIONS), ids=IDS)
def test_every_option_reads_2d_and_90(path: tuple[str, ...], option: str, good: str) -> None:
    code, stderr = _invoke(path, option, good)
    assert code in (0, 2), stderr
    assert "Usage:" not in stderr  # the command ran: its error, if any, is a typed line
    assert stderr.count("\n") <= 1, stderr
    assert "cannot read duration" not in stderr, stderr
    refused = f"error input.invalid_option: {option}: "
    if stderr.startswith(refused):  # read, and over the option's own range
        limit = RANGES[option]
        assert stderr == (
            f"{refused}duration {good!r} is out of range; it takes "
            f"{'at least 1s' if option == '--lease' else 'more than 0s'} and {limit}\n"
        )
        assert good == "2d" or option == "--poll"  # 90 s exceeds only --poll's minute


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("90", Decimal(90)),
        ("2d", Decimal(172_800)),
        ("7d", Decimal(604_800)),
        ("604800", Decimal(604_800)),
        ("30s", Decimal(30)),
        ("10m", Decimal(600)),
        ("2h", Decimal(7_200)),
        ("1h30m", Decimal(5_400)),
        ("1d2h3m4s", Decimal(93_784)),
        (" 2M ", Decimal(120)),
        ("500ms", Decimal("0.5")),
        ("0.5s", Decimal("0.5")),
        ("1.5h", Decimal(5_400)),
        ("PT1H30M", Decimal(5_400)),
        ("P1W", Decimal(604_800)),
        ("PT0.25S", Decimal("0.25")),
    ],
)
def test_the_forms_and_their_seconds(text: str, seconds: Decimal) -> None:
    assert parse_duration(text, option="--x") == seconds


def test_the_issue_examples_are_now_taken() -> None:
    assert parse_duration("7d", option="--expires-in", minimum=1, whole=True) == 604_800
    assert parse_duration("1d", option="--lease", minimum=1, maximum=86_400) == 86_400


@pytest.mark.parametrize(
    ("text", "rule", "message"),
    [
        ("0", {"above_minimum": True}, "it takes more than 0s"),
        ("1.5", {"whole": True}, "it takes whole seconds, at least 0s"),
        ("2d", {"maximum": 86_400}, "it takes at least 0s and at most 1d"),
        ("0.5", {"minimum": 1}, "it takes at least 1s"),
    ],
)
def test_a_value_out_of_the_options_range(text: str, rule: dict[str, int], message: str) -> None:
    with pytest.raises(CerebriError) as caught:
        parse_duration(text, option="--x", **rule)  # type: ignore[arg-type]
    assert caught.value.code == "input.invalid_option"
    assert caught.value.message == f"--x: duration {text!r} is out of range; {message}"
