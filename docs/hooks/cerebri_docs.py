"""MkDocs hook: the reference pages that are generated from cerebri itself at build time.

* ``<!-- cerebri:cli -->`` becomes the command-line reference, written by typer's own
  Markdown generator (the one behind ``typer MODULE utils docs``) from ``cerebri.cli.app``.
* ``<!-- cerebri:http -->`` becomes a table of the HTTP routes, and the file
  ``reference/openapi.json`` is added to the site: the OpenAPI document that
  ``cerebri.service.create_app`` serves at ``/openapi.json``, with the store routes.
* ``<!-- cerebri:decisions -->`` becomes the list of the decision records in
  ``docs/decisions/``, each linked (so a new record is listed without editing the index).

Nothing here reads the network or writes outside the site folder.
"""

from __future__ import annotations

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
from cerebri.service import create_app

_OPENAPI_URI = "reference/openapi.json"
_DECISION = re.compile(r"decisions/(\d{4})-[^/]+\.md")
_state: dict[str, Any] = {}


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
    return markdown
