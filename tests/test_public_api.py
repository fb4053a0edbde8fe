"""The package facades are the API: their ``__all__`` lists exactly the public names.

Every package of ``cerebri`` is a facade (docs/architecture.md): its ``__init__`` has a
docstring and an ``__all__``; every name in ``__all__`` resolves (also in the facades that
load on first use, ``cerebri.cli`` and ``cerebri.service``); no other public name is left
in the module; every class and function it exports has a docstring of its own.
"""

from __future__ import annotations
import __future__

import dataclasses
import importlib
import inspect
import pkgutil
import typing
from types import ModuleType

import pytest

import cerebri

# Alembic's script folders are packages by layout, not facades: nothing imports them by name.
NOT_FACADES = ("cerebri.execution.store.migrations",)
FACADES = [
    "cerebri",
    *(
        info.name
        for info in pkgutil.walk_packages(cerebri.__path__, "cerebri.")
        if info.ispkg and not info.name.startswith(NOT_FACADES)
    ),
]
_MISSING = object()


def _typing_import(attr: str, value: object) -> bool:
    """``TYPE_CHECKING``, ``Any``, ``annotations``...: names a facade imports only to write
    its own annotations, never part of the API."""
    return any(getattr(source, attr, _MISSING) is value for source in (typing, __future__))


def _public(module: ModuleType) -> set[str]:
    return {
        attr
        for attr, value in vars(module).items()
        if not attr.startswith("_")
        and not isinstance(value, ModuleType)
        and not _typing_import(attr, value)
    }


def _own_doc(value: object) -> str:
    if inspect.isclass(value):
        doc = value.__dict__.get("__doc__") or ""
        if dataclasses.is_dataclass(value) and doc.startswith(f"{value.__name__}("):
            return ""  # the signature dataclasses write when the class has no docstring
        return str(doc)
    return inspect.getdoc(value) or ""


def test_every_package_is_a_facade() -> None:
    assert {
        "cerebri",
        "cerebri.cpir",
        "cerebri.planner",
        "cerebri.temporal",
        "cerebri.ics",
        "cerebri.integrations",
        "cerebri.calendars",
        "cerebri.plans",
        "cerebri.proposals",
        "cerebri.execution",
        "cerebri.execution.store",
        "cerebri.execution.adapters",
        "cerebri.service",
        "cerebri.mcp",
        "cerebri.cli",
    } <= set(FACADES)


@pytest.mark.parametrize("name", FACADES)
def test_all_matches_public_names(name: str) -> None:
    module = importlib.import_module(name)
    assert (module.__doc__ or "").strip(), f"{name} has no docstring"
    exported = set(module.__all__)
    assert len(module.__all__) == len(exported), "__all__ lists a name twice"
    for attr in module.__all__:
        assert hasattr(module, attr)
    public = _public(module)
    if hasattr(module, "__version__"):
        public.add("__version__")
    if "__getattr__" in vars(module):  # loads names on first use: they need not be globals
        assert public <= exported
    else:
        assert sorted(module.__all__) == sorted(public)


@pytest.mark.parametrize("name", FACADES)
def test_exported_classes_and_functions_are_documented(name: str) -> None:
    module = importlib.import_module(name)
    undocumented = [
        attr
        for attr in module.__all__
        if (inspect.isclass(value := getattr(module, attr)) or inspect.isroutine(value))
        and not _own_doc(value).strip()
    ]
    assert undocumented == []


def test_errors_have_stable_codes() -> None:
    with pytest.raises(cerebri.ParseError) as caught:
        cerebri.plan("{")
    assert caught.value.code == "json.syntax"
    assert isinstance(caught.value, ValueError)
    assert caught.value.to_wire()["code"] == "json.syntax"
