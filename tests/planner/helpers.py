"""Builders for test requests based on the shipped example (no shared data needed)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "design-review.json"
DAY = "2026-10-05T"


def example() -> dict[str, Any]:
    """A fresh deep copy of examples/design-review.json."""
    loaded: dict[str, Any] = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    return copy.deepcopy(loaded)


def compact_size(document: Any) -> int:
    """UTF-8 byte length of the compact JSON text (keys in the given order)."""
    text = json.dumps(document, separators=(",", ":"), ensure_ascii=False)
    return len(text.encode("utf-8"))


def known_time(start: str, end: str, provenance: str = "INTEGRATION_FACT") -> dict[str, Any]:
    """An EvidenceField with a RESOLVED/KNOWN range."""
    return {
        "value": {
            "processing": "RESOLVED",
            "knowledge": {"state": "KNOWN", "data": {"start": start, "end": end}},
        },
        "provenance": provenance,
        "confidence": None,
        "evidence": [],
    }


def event(object_id: str, start: str, end: str, *, kind: str = "EVENT") -> dict[str, Any]:
    """An existing blocking object on the example's calendar."""
    kind_wire: dict[str, Any] = {"kind": kind}
    if kind == "TASK":
        kind_wire["details"] = {
            "splittable": False,
            "interruptible": False,
            "minimum_chunk": None,
            "preferred_chunk": None,
            "maximum_chunk_count": None,
        }
    return {
        "id": object_id,
        "revision": 1,
        "kind": kind_wire,
        "calendar_id": "work",
        "integration_id": "local-ics",
        "resource_ids": [],
        "time": known_time(start, end),
        "timezone": "Europe/Berlin",
        "semantics": None,
    }
