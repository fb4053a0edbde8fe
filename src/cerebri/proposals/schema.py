"""JSON Schema (draft 2020-12) of envelope v2, generated from the model plus the rules.

The conditional rule's ``if`` itself requires ``candidate`` and ``candidate.artifact/type``:
an ``if`` made of ``properties``/``const`` alone is true for an instance that lacks those
members, and would then impose ``then`` on documents it says nothing about (proposals.md
section 1). ``expires-at`` after ``proposed-at`` cannot be said in JSON Schema; only the model
checks it. Instants must match :data:`~cerebri.proposals.envelope.INSTANT_PATTERN` (RFC 3339
UTC, four-digit year).
"""

from __future__ import annotations

from typing import Any

from cerebri.proposals.envelope import INSTANT_PATTERN, ArtifactType, Envelope, ExecutorMode

__all__ = ["envelope_json_schema"]

DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema"


def envelope_json_schema() -> dict[str, Any]:
    """A fresh dict holding the envelope v2 JSON Schema (draft 2020-12)."""
    schema = Envelope.model_json_schema(by_alias=True)
    properties = schema["properties"]
    properties["target"] = {"$ref": "#/$defs/Target"}
    for name in ("proposed-at", "expires-at"):
        properties[name] = {"type": "string", "format": "date-time", "pattern": INSTANT_PATTERN}
    schema["$schema"] = DRAFT_2020_12
    schema["if"] = {
        "required": ["candidate"],
        "properties": {
            "candidate": {
                "required": ["artifact/type"],
                "properties": {"artifact/type": {"const": ArtifactType.TASK_EXPERIMENT.value}},
            }
        },
    }
    schema["then"] = {
        "required": ["target"],
        "properties": {
            "executor": {
                "properties": {"mode": {"const": ExecutorMode.DETERMINISTIC_HOST_COMPILER.value}}
            }
        },
    }
    return schema
