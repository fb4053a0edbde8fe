"""The ``cerebri`` command line, in-process (typer's CliRunner) and as the installed script.

Contract (cerebri.cli): exit 0 for every planning answer, including refusals; exit 2 for input
that cannot be read or parsed, with exactly one stderr line
``error <code>[ at <path>]: <message>``.
"""

from __future__ import annotations

import copy
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from typer.testing import CliRunner, Result

import cerebri
from cerebri.cli import app

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "design-review.json"
ERROR_LINE = re.compile(
    r"error (?P<code>[a-z]+\.[a-z_]+)(?: at (?P<path>\(document root\)|/\S*))?: (?P<message>.+)\n"
)


def example_doc() -> dict[str, Any]:
    return json.loads(EXAMPLE.read_text(encoding="utf-8"))


def pretty(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False) + "\n"


def expected_plan_text() -> str:
    return pretty(cerebri.plan(cerebri.parse_request(EXAMPLE.read_bytes())).to_wire())


def expected_validate_text(source: str | bytes | dict[str, Any]) -> str:
    return pretty(cerebri.validate(cerebri.parse_request(source)).to_wire())


def run(*args: str, stdin: str | bytes | None = None) -> Result:
    return CliRunner().invoke(app, list(args), input=stdin)


def assert_one_error_line(stderr: str, code: str, path: str | None) -> None:
    assert stderr.count("\n") == 1, stderr
    match = ERROR_LINE.fullmatch(stderr)
    assert match is not None, stderr
    shown = "(document root)" if path == "" else path
    assert (match["code"], match["path"]) == (code, shown)


def write_json(folder: Path, name: str, doc: dict[str, Any]) -> Path:
    path = folder / name
    path.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    return path


# --------------------------------------------------------------------------- in-process


def test_plan_prints_the_result_json_byte_identically() -> None:
    expected = expected_plan_text()
    first = run("plan", str(EXAMPLE))
    second = run("plan", str(EXAMPLE))
    assert (first.exit_code, first.stderr) == (0, "")
    assert first.stdout_bytes == expected.encode("utf-8")
    assert second.stdout_bytes == first.stdout_bytes
    assert json.loads(first.stdout)["outcome"] == "Solution"


def test_plan_table_shows_ranked_candidates_and_rejections() -> None:
    wire = json.loads(expected_plan_text())
    starts = [candidate["start"] for candidate in wire["candidates"]]
    rejections = wire["conflicts"]["rejections"]
    assert len(starts) >= 2 and rejections
    result = run("plan", "--table", str(EXAMPLE))
    assert (result.exit_code, result.stderr) == (0, "")
    table = result.stdout
    # the table writes instants as "YYYY-MM-DD HH:MM:SSZ" (space instead of "T")
    shown = [start.replace("T", " ") for start in starts[:2]]
    assert shown[0] in table and shown[1] in table
    assert table.index(shown[0]) < table.index(shown[1])
    assert f"{len(rejections)} rejected" in table
    assert not table.lstrip().startswith("{")


def test_validate_prints_the_report() -> None:
    result = run("validate", str(EXAMPLE))
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout == expected_validate_text(EXAMPLE.read_bytes())
    assert json.loads(result.stdout) == {"state": "Valid", "issues": []}


def test_validate_and_plan_exit_zero_for_a_refusal(tmp_path: Path) -> None:
    doc = example_doc()
    doc["operation"] = "OPTIMIZE"  # without its batch member (decision 0070)
    path = write_json(tmp_path, "optimize.json", doc)
    validated = run("validate", str(path))
    assert (validated.exit_code, validated.stderr) == (0, "")
    assert json.loads(validated.stdout) == {
        "state": "InsufficientInformation",
        "issues": [{"BatchRequired": "OPTIMIZE"}],
    }
    planned = run("plan", str(path))
    assert (planned.exit_code, planned.stderr) == (0, "")
    wire = json.loads(planned.stdout)
    assert (wire["outcome"], wire["candidates"]) == ("InsufficientInformation", [])


def test_schema_accepts_the_example_and_rejects_an_extra_root_key() -> None:
    result = run("schema")
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout.endswith("}\n")
    schema = json.loads(result.stdout)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)

    doc = example_doc()
    assert list(validator.iter_errors(doc)) == []

    extra = copy.deepcopy(doc)
    extra["unexpected"] = 1
    errors = list(validator.iter_errors(extra))
    assert len(errors) == 1
    assert errors[0].validator == "additionalProperties"
    assert "unexpected" in errors[0].message

    wrong_case = copy.deepcopy(doc)
    wrong_case["operation"] = "create"
    assert [e.validator for e in validator.iter_errors(wrong_case)] == ["enum"]


def test_duplicate_key_is_exit_2_with_one_error_line(tmp_path: Path) -> None:
    path = tmp_path / "duplicate.json"
    text = EXAMPLE.read_text(encoding="utf-8")
    assert text.count('"trace_id": "example-trace",') == 1
    text = text.replace('"trace_id": "example-trace",', '"trace_id": "a", "trace_id": "b",')
    path.write_text(text, encoding="utf-8")
    for command in ("plan", "validate"):
        result = run(command, str(path))
        assert result.exit_code == 2
        assert result.stdout == ""
        assert result.stderr.startswith("error json.duplicate_key")
        assert_one_error_line(result.stderr, "json.duplicate_key", None)


def test_unknown_field_error_line_names_the_path(tmp_path: Path) -> None:
    doc = example_doc()
    doc["scope"]["unexpected"] = 1
    result = run("validate", str(write_json(tmp_path, "unknown.json", doc)))
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == "error cpir.unknown_field at /scope/unexpected: unknown field\n"


def test_missing_file_is_exit_2_with_a_typed_error(tmp_path: Path) -> None:
    missing = tmp_path / "does-not-exist.json"
    for command in ("plan", "validate"):
        result = run(command, str(missing))
        assert (result.exit_code, result.stdout) == (2, "")
        assert_one_error_line(result.stderr, "input.unreadable", None)
        assert str(missing) in result.stderr


@pytest.mark.parametrize("as_bytes", [False, True], ids=["text", "bytes"])
def test_stdin_dash(as_bytes: bool) -> None:
    data = EXAMPLE.read_bytes()
    stdin = data if as_bytes else data.decode("utf-8")
    planned = run("plan", "-", stdin=stdin)
    assert (planned.exit_code, planned.stderr) == (0, "")
    assert planned.stdout == expected_plan_text()
    validated = run("validate", "-", stdin=stdin)
    assert (validated.exit_code, validated.stdout) == (0, expected_validate_text(data))


def test_stdin_dash_with_bad_input_is_exit_2() -> None:
    result = run("plan", "-", stdin="[]")
    assert (result.exit_code, result.stdout) == (2, "")
    assert_one_error_line(result.stderr, "json.not_object", "")


# --------------------------------------------------------------------------- installed script


@pytest.fixture(scope="module")
def script() -> str:
    found = shutil.which("cerebri", path=str(Path(sys.executable).parent))
    if found is None:
        pytest.fail(f"console script 'cerebri' not found next to {sys.executable}")
    return found


def run_script(
    script: str, *args: str, stdin: bytes | None = None
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [script, *args], input=stdin, capture_output=True, timeout=120, check=False
    )


def test_script_plan_is_byte_identical_across_runs(script: str) -> None:
    expected = expected_plan_text().encode("utf-8")
    first = run_script(script, "plan", str(EXAMPLE))
    second = run_script(script, "plan", str(EXAMPLE))
    assert (first.returncode, first.stderr) == (0, b"")
    assert first.stdout == expected
    assert second.stdout == first.stdout


def test_script_reads_stdin(script: str) -> None:
    result = run_script(script, "plan", "-", stdin=EXAMPLE.read_bytes())
    assert (result.returncode, result.stderr) == (0, b"")
    assert result.stdout == expected_plan_text().encode("utf-8")


def test_script_bad_input_is_exit_2(script: str) -> None:
    result = run_script(script, "validate", "-", stdin=b'{"request_id": "a", "request_id": "b"}')
    assert (result.returncode, result.stdout) == (2, b"")
    stderr = result.stderr.decode("utf-8")
    assert stderr.startswith("error json.duplicate_key")
    assert_one_error_line(stderr, "json.duplicate_key", None)
