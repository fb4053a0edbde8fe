"""MkDocs hook: the reference pages that are generated from cerebri itself at build time.

* ``<!-- cerebri:cli -->`` becomes the command-line reference, written by typer's own
  Markdown generator (the one behind ``typer MODULE utils docs``) from ``cerebri.cli.app``.
* ``<!-- cerebri:http -->`` becomes a table of the HTTP routes, and the file
  ``reference/openapi.json`` is added to the site: the OpenAPI document that
  ``cerebri.service.create_app`` serves at ``/openapi.json``, with the store routes.
* ``<!-- cerebri:decisions -->`` becomes the list of the decision records in
  ``docs/decisions/``, each linked (so a new record is listed without editing the index).
* ``<!-- cerebri:errors -->`` becomes the table of every error, warning and reason code that
  ``src/cerebri`` can produce (:func:`error_codes`), so a new code is listed without editing
  the page.

Nothing here reads the network or writes outside the site folder.
"""

from __future__ import annotations

import ast
import json
import re
import tempfile
from pathlib import Path
from typing import Any

import typer
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page
from typer.cli import get_docs_for_click

from cerebri.cli import app
from cerebri.clock import SystemClock, UuidIds
from cerebri.execution import Executor
from cerebri.execution.store import open_engine, parse_store_url
from cerebri.plans import builtin_registry
from cerebri.service import create_app
from cerebri.temporal import TemporalError

_OPENAPI_URI = "reference/openapi.json"
_DECISION = re.compile(r"decisions/(\d{4})-[^/]+\.md")
_state: dict[str, Any] = {}
_SRC = Path(__file__).resolve().parents[2] / "src" / "cerebri"
_CODE = re.compile(r"[a-z]+\.[a-z][a-z_]*")
_REASON = re.compile(r"([a-z]+\.[a-z][a-z_]*): ")  # a step reason: "grant.missing: ..."
# Dotted strings in src that are not codes: field paths, file names, module names.
_NOT_CODE_PREFIXES = ("context.", "intentions.", "plans.", "principals.", "steps.", "sandboxes.")
_NOT_CODES = frozenset(
    {"registry.json", "tzdata.zoneinfo", "cerebri.service", "store.outage_"}
    | {"budget.max_candidates"}
)


def _docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            first = node.body[0] if node.body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def error_codes(src: Path = _SRC) -> list[str]:
    """Every code cerebri can report, sorted: each string literal of ``src`` (docstrings
    aside) that is a dotted code (``cpir.unknown_field``) or starts a step reason
    (``"grant.missing: ..."``), each ``package_argument_error(PACKAGE)``'s
    ``PACKAGE.invalid_argument``, plus the ``temporal.*`` codes of :class:`TemporalError`;
    capability names (``calendar.freebusy``), field paths and file names are left out."""
    codes = {error.code for error in TemporalError}
    for path in sorted(src.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = _docstrings(tree)
        for found in ast.walk(tree):
            node = found
            if (  # package_argument_error("caldav") raises caldav.invalid_argument
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == "package_argument_error"
                and node.args
                and isinstance(node.args[0], ast.Constant)
            ):
                codes.add(f"{node.args[0].value}.invalid_argument")
            if isinstance(node, ast.JoinedStr) and node.values:
                node = node.values[0]
            if not isinstance(node, ast.Constant) or not isinstance(node.value, str):
                continue
            if id(node) in docstrings:
                continue
            if _CODE.fullmatch(node.value):
                codes.add(node.value)
            elif reason := _REASON.match(node.value):
                codes.add(reason.group(1))
    capabilities = set(builtin_registry().capabilities)
    return sorted(
        code
        for code in codes
        if code not in _NOT_CODES
        and code not in capabilities
        and not code.startswith(_NOT_CODE_PREFIXES)
    )


def _errors_markdown() -> str:
    groups: dict[str, list[str]] = {}
    for code in error_codes():
        groups.setdefault(code.split(".")[0], []).append(code)
    rows = ["| namespace | codes |", "| --- | --- |"]
    for namespace, codes in groups.items():
        rows.append(f"| `{namespace}` | {', '.join(f'`{code}`' for code in codes)} |")
    return "\n".join(rows)


def _cli_markdown() -> str:
    command = typer.main.get_command(app)
    text = get_docs_for_click(
        obj=command, ctx=typer.Context(command, info_name="cerebri"), name="cerebri"
    )
    # typer's first line is the page title ("# `cerebri`"); the page has its own.
    text = text.split("\n", 1)[1]
    # Help texts say DIR/<keyid>.pem: outside code spans, an angle bracket is text, not HTML.
    lines = []
    fenced = False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        if fenced or line.startswith("```"):
            lines.append(line)
            continue
        parts = line.split("`")
        parts[::2] = [part.replace("<", "&lt;") for part in parts[::2]]
        lines.append("`".join(parts))
    return "\n".join(lines)


def _openapi() -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="cerebri-docs-") as folder:
        # An engine connects on first use only; building the app's routes never does.
        engine = open_engine(parse_store_url(f"sqlite:///{Path(folder) / 'store.sqlite3'}"))
        try:
            executor = Executor(engine, SystemClock(), UuidIds())
            return create_app(executor=executor).openapi()
        finally:
            engine.dispose()


def _http_markdown(document: dict[str, Any]) -> str:
    rows = ["| method | path | what it does | statuses |", "| --- | --- | --- | --- |"]
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            # The first sentence of the route's own description; FastAPI's generated summary
            # ("Get Plans") says less.
            described = " ".join(operation.get("description", "").split())
            summary = described.split(". ")[0].rstrip(".") or operation.get("summary", "")
            summary = summary.replace("``", "`").replace("|", "\\|")
            statuses = ", ".join(sorted(operation.get("responses", {})))
            rows.append(f"| `{method.upper()}` | `{path}` | {summary} | {statuses} |")
    return "\n".join(rows)


def on_files(files: Files, config: MkDocsConfig) -> Files:
    document = _openapi()
    _state["openapi"] = document
    text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    files.append(File.generated(config, _OPENAPI_URI, content=text))
    _state["decisions"] = sorted(
        file.src_uri for file in files if _DECISION.fullmatch(file.src_uri)
    )
    return files


def _decisions_markdown(files: Files) -> str:
    rows = ["| record | decision |", "| --- | --- |"]
    for uri in _state["decisions"]:
        file = files.get_file_from_path(uri)
        assert file is not None
        content = file.content_string
        number = _DECISION.fullmatch(uri)
        assert number is not None
        title = (
            next(
                (
                    line.lstrip("# ").strip()
                    for line in content.splitlines()
                    if line.startswith("#")
                ),
                uri,
            )
            .removeprefix(number.group(1))
            .strip()
        )
        rows.append(f"| {number.group(1)} | [{title}]({Path(uri).name}) |")
    return "\n".join(rows)


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    if "<!-- cerebri:cli -->" in markdown:
        markdown = markdown.replace("<!-- cerebri:cli -->", _cli_markdown())
    if "<!-- cerebri:http -->" in markdown:
        markdown = markdown.replace("<!-- cerebri:http -->", _http_markdown(_state["openapi"]))
    if "<!-- cerebri:decisions -->" in markdown:
        markdown = markdown.replace("<!-- cerebri:decisions -->", _decisions_markdown(files))
    if "<!-- cerebri:errors -->" in markdown:
        markdown = markdown.replace("<!-- cerebri:errors -->", _errors_markdown())
    return markdown
