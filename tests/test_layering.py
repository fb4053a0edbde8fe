"""Imports point down the pipeline (docs/architecture.md, docs/decisions/0041).

The rule lives in one place: the import-linter contracts in ``pyproject.toml``
(``[tool.importlinter]``), which ``make lint`` runs as ``lint-imports``. These tests run the
same contracts, check that they place every package and top module and list no exception,
and check that the import graph they are judged on sees the imports that matter (also those
inside functions and under ``TYPE_CHECKING``: a layer that needs a higher one only for a type
still depends on it).
"""

from __future__ import annotations

import pkgutil
import textwrap
from pathlib import Path
from typing import Any

import grimp
import pytest
from importlinter.api import read_configuration
from importlinter.cli import lint_imports

import cerebri

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = str(ROOT / "pyproject.toml")


def _contracts() -> dict[str, dict[str, Any]]:
    options = read_configuration(PYPROJECT)["contracts_options"]
    return {contract["id"]: contract for contract in options}


def _layers() -> list[set[str]]:
    """The layers of the ``layers`` contract, highest first, as sets of module names."""
    contract = _contracts()["layers"]
    (container,) = contract["containers"]
    return [
        {f"{container}.{name.strip()}" for name in layer.replace(":", "|").split("|")}
        for layer in contract["layers"]
    ]


def _graph() -> grimp.ImportGraph:
    return grimp.build_graph("cerebri", cache_dir=None)


def test_the_import_contracts_hold() -> None:
    assert lint_imports(config_filename=PYPROJECT, no_cache=True, no_logo=True) == 0


def test_the_contracts_list_no_exceptions() -> None:
    contracts = _contracts()
    assert set(contracts) == {"layers", "facade", "acyclic"}
    for contract in contracts.values():
        assert "ignore_imports" not in contract
        assert "exhaustive_ignores" not in contract


def test_every_package_and_top_module_has_a_layer() -> None:
    assert _contracts()["layers"]["exhaustive"] == "True"
    children = {f"cerebri.{info.name}" for info in pkgutil.iter_modules(cerebri.__path__)}
    placed = [name for layer in _layers() for name in layer]
    assert sorted(placed) == sorted(children)
    assert {"cerebri.ics", "cerebri.calendars", "cerebri.mcp"} <= children


def test_the_pipeline_order() -> None:
    order = [name for layer in _layers() for name in sorted(layer)]
    pipeline = ["cli", "service", "execution", "integrations", "proposals", "plans"]
    pipeline += ["calendars", "planner", "cpir", "temporal", "errors"]
    positions = [order.index(f"cerebri.{name}") for name in pipeline]
    assert positions == sorted(positions)
    shells = {"cerebri.service", "cerebri.mcp", "cerebri.bridge"}
    assert shells in _layers()
    assert {"cerebri.ics", "cerebri.cpir"} in _layers()


def test_the_checks_see_imports() -> None:
    graph = _graph()
    assert graph.direct_import_exists(
        importer="cerebri.temporal.report", imported="cerebri.temporal.recurrence"
    )
    assert graph.direct_import_exists(
        importer="cerebri.cpir.temporal_report", imported="cerebri.cpir.parse"
    )
    layers = _layers()
    before = graph.find_illegal_dependencies_for_layers(layers=layers)
    graph.add_import(importer="cerebri.temporal.report", imported="cerebri.cpir.enums")
    after = graph.find_illegal_dependencies_for_layers(layers=layers)
    added = {(d.importer, d.imported) for d in after - before}
    assert added == {("cerebri.temporal", "cerebri.cpir")}


def test_the_checks_see_lazy_and_type_only_imports(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = tmp_path / "layering_probe"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "low.py").write_text(
        textwrap.dedent(
            """
            from typing import TYPE_CHECKING

            if TYPE_CHECKING:
                from layering_probe.typed import Shape


            def later() -> None:
                from layering_probe import lazy
            """
        )
    )
    (package / "typed.py").write_text("Shape = int\n")
    (package / "lazy.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    graph = grimp.build_graph("layering_probe", cache_dir=None)
    imported = graph.find_modules_directly_imported_by("layering_probe.low")
    assert imported == {"layering_probe.typed", "layering_probe.lazy"}
