"""Imports point down the pipeline (design.md sections 1-2), checked on the source text.

Every ``import``/``from ... import`` in a module counts, also inside functions and under
``TYPE_CHECKING``: a layer that needs a higher one only for a type still depends on it.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

import cerebri

SRC = Path(cerebri.__file__).parent
SHELL = ("execution", "integrations", "service", "cli", "mcp")
CORE = ("cpir", "temporal", "planner", "plans", "proposals")
ABOVE_TEMPORAL = ("cpir", "planner", "plans", "proposals", *SHELL)


def _modules(package: str) -> list[Path]:
    return sorted((SRC / package).rglob("*.py"))


def _imports(path: Path) -> Iterator[str]:
    """Absolute names of the cerebri modules ``path`` imports (relative imports resolved)."""
    parts = ("cerebri", *path.relative_to(SRC).with_suffix("").parts)
    package = parts[:-1]  # the package a relative import starts from
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = ".".join(package[: len(package) - node.level + 1])
                module = f"{base}.{node.module}" if node.module else base
            else:
                module = node.module or ""
            yield module
            yield from (f"{module}.{alias.name}" for alias in node.names)


def _in(name: str, packages: tuple[str, ...]) -> bool:
    return any(name == f"cerebri.{p}" or name.startswith(f"cerebri.{p}.") for p in packages)


@pytest.mark.parametrize("path", _modules("temporal"), ids=lambda p: p.name)
def test_temporal_imports_no_higher_layer(path: Path) -> None:
    upward = sorted(name for name in _imports(path) if _in(name, ABOVE_TEMPORAL))
    assert upward == []


@pytest.mark.parametrize(
    "path", [p for c in CORE for p in _modules(c)], ids=lambda p: str(p.relative_to(SRC))
)
def test_core_imports_no_shell(path: Path) -> None:
    assert sorted(name for name in _imports(path) if _in(name, SHELL)) == []


def test_the_checks_see_imports() -> None:
    names = set(_imports(SRC / "temporal" / "report.py"))
    assert "cerebri.temporal.recurrence.expand" in names
    cpir_parse = set(_imports(SRC / "cpir" / "temporal_report.py"))
    assert "cerebri.cpir.parse.parse_model" in cpir_parse
    assert _in("cerebri.cpir.enums", ABOVE_TEMPORAL)
    assert not _in("cerebri.cpirx", ABOVE_TEMPORAL)
