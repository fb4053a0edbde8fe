"""The package facades are the API: their ``__all__`` lists exactly the public names."""

from __future__ import annotations

import importlib

import pytest

FACADES = [
    "cerebri",
    "cerebri.cpir",
    "cerebri.planner",
    "cerebri.temporal",
    "cerebri.ics",
    "cerebri.integrations",
    "cerebri.calendars",
    "cerebri.plans",
    "cerebri.proposals",
    "cerebri.execution.store",
    "cerebri.execution.adapters",
]


@pytest.mark.parametrize("name", FACADES)
def test_all_matches_public_names(name: str) -> None:
    module = importlib.import_module(name)
    public = {
        attr
        for attr, value in vars(module).items()
        if not attr.startswith("_") and not isinstance(value, type(importlib))
    }
    if hasattr(module, "__version__"):
        public.add("__version__")
    assert sorted(module.__all__) == sorted(public)
    for attr in module.__all__:
        assert hasattr(module, attr)


def test_errors_have_stable_codes() -> None:
    import cerebri

    with pytest.raises(cerebri.ParseError) as caught:
        cerebri.plan("{")
    assert caught.value.code == "json.syntax"
    assert isinstance(caught.value, ValueError)
    assert caught.value.to_wire()["code"] == "json.syntax"
