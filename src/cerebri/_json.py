"""JSON value type and the two text forms cerebri writes.

* ``compact(value)``: no whitespace, keys in the order given, non-ASCII text as raw UTF-8
  (the byte form the CPIR admission limits and issue sorting are defined on,
  cpir-0.2.md section 12 and planner.md 2.3 step 15).
* ``canonical(value)``: like ``compact`` but with object keys sorted (used for content
  digests; see docs/decisions/0004-plan-identity.md).
"""

from __future__ import annotations

import json
from typing import TypeAlias

JSONValue: TypeAlias = bool | int | float | str | list["JSONValue"] | dict[str, "JSONValue"] | None

__all__ = ["JSONValue", "canonical", "compact", "pretty"]


def compact(value: JSONValue) -> str:
    """Serialise ``value`` without whitespace, keeping key order; NaN/Infinity raise ValueError."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def canonical(value: JSONValue) -> str:
    """Serialise ``value`` without whitespace and with object keys sorted by code point."""
    return json.dumps(
        value, separators=(",", ":"), ensure_ascii=False, allow_nan=False, sort_keys=True
    )


def pretty(value: JSONValue) -> str:
    """Two-space indented text with key order kept and a trailing newline (CLI output)."""
    return json.dumps(value, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
