"""The base class of every CPIR wire record."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class WireModel(BaseModel):
    """A frozen, strict pydantic model that rejects unknown keys (cpir-0.2.md 1.2).

    Records are validated from JSON text (``model_validate_json``), where strict mode still
    accepts strings for enums and arrays for tuples. Change a record by copying it:
    ``record.model_copy(update={...})``.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)
