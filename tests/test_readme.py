"""The Python snippets of the README and of the user guide run as written, from the repository
root: the README's tour, then docs/guide/python.md and docs/guide/proposals.md in one namespace
(the proposals page reuses the names the Python page defines)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
PAGES = ("README.md", "docs/guide/python.md", "docs/guide/proposals.md")


def test_readme_python_snippets_run(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    namespace: dict[str, object] = {}
    total = 0
    for page in PAGES:
        text = (REPO / page).read_text(encoding="utf-8")
        blocks = re.findall(r"```python\n(.*?)```", text, re.S)
        assert len(blocks) >= 1, page
        total += len(blocks)
        exec(compile("\n".join(blocks), page, "exec"), namespace)
    assert total >= 5
    assert "actions" in namespace  # the action-plan snippet reached its end
    assert "report" in namespace and "envelope" in namespace  # so did the signing snippet
