"""The README's Python snippets run as written, from the repository root."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def test_readme_python_snippets_run(monkeypatch: pytest.MonkeyPatch) -> None:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) >= 2
    monkeypatch.chdir(REPO)
    namespace: dict[str, object] = {}
    exec(compile("\n".join(blocks), "README.md", "exec"), namespace)
    assert "actions" in namespace  # the action-plan snippet reached its end
