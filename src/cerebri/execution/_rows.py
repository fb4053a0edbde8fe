"""Row helpers shared by the executor modules: canonical JSON in and out of text columns."""

from __future__ import annotations

import json
from typing import Any

from cerebri._json import JSONValue, canonical

__all__ = ["dumps", "loads"]


def dumps(value: JSONValue) -> str:
    """Canonical JSON text (sorted keys, no whitespace), as every JSON column stores it."""
    return canonical(value)


def loads(text: str | None) -> Any:
    """The JSON value of a column, ``None`` for SQL ``NULL``."""
    return None if text is None else json.loads(text)
