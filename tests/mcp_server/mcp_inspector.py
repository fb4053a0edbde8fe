"""The official MCP Inspector's command line, from npm at a pinned version, installed once.

``python -m tests.mcp_server.mcp_inspector`` (``make mcp-inspector-deps``, run by ``make unit``)
installs ``@modelcontextprotocol/inspector@`` :data:`VERSION` with the machine's npm into
:func:`folder` (``<venv>/mcp-inspector-<version>``, or ``$CEREBRI_MCP_INSPECTOR_DIR``) unless
it is there already; the test calls :func:`install` too, so a plain ``pytest`` run installs it
the first time. An exclusive lock on ``<folder>/.lock`` lets parallel test workers share one
install. Install scripts are not run (the package needs none to run its CLI).

Version 2.12.0 declares Node.js 22.19 or later; its CLI mode runs on the Node.js 20 of this
project's machines (docs/decisions/0038-mcp-error-results.md).
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

__all__ = ["PACKAGE", "VERSION", "binary", "folder", "install", "installed"]

VERSION = "2.12.0"
PACKAGE = "@modelcontextprotocol/inspector"
NPM_OPTIONS = ("--no-audit", "--no-fund", "--ignore-scripts", "--loglevel", "error")
INSTALL_TIMEOUT = 900
"""Seconds an ``npm install`` may take (about 20 s on an idle machine here)."""


def folder() -> Path:
    """Where the Inspector is installed: ``$CEREBRI_MCP_INSPECTOR_DIR`` or beside the
    interpreter's environment (the project's ``.venv``)."""
    chosen = os.environ.get("CEREBRI_MCP_INSPECTOR_DIR")
    return Path(chosen) if chosen else Path(sys.prefix) / f"mcp-inspector-{VERSION}"


def binary(where: Path) -> Path:
    """The ``mcp-inspector`` command of an install in ``where``."""
    return where / "node_modules" / ".bin" / "mcp-inspector"


def installed(where: Path) -> bool:
    """Whether ``where`` holds the Inspector at :data:`VERSION`."""
    manifest = where / "node_modules" / PACKAGE / "package.json"
    try:
        version = json.loads(manifest.read_text(encoding="utf-8")).get("version")
    except (OSError, ValueError):
        return False
    return version == VERSION and binary(where).exists()


def install(where: Path | None = None) -> Path:
    """Install the Inspector into ``where`` (default :func:`folder`) unless it is there;
    returns its ``mcp-inspector`` command.

    Raises:
        FileNotFoundError: npm is not on ``PATH``.
        subprocess.CalledProcessError: npm failed (its output is in the exception).
    """
    where = where or folder()
    where.mkdir(parents=True, exist_ok=True)
    with (where / ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not installed(where):
            npm = shutil.which("npm")
            if npm is None:
                raise FileNotFoundError("npm is not on PATH")
            subprocess.run(
                [npm, "install", "--prefix", str(where), *NPM_OPTIONS, f"{PACKAGE}@{VERSION}"],
                check=True,
                capture_output=True,
                text=True,
                timeout=INSTALL_TIMEOUT,
            )
    return binary(where)


if __name__ == "__main__":
    print(install())
