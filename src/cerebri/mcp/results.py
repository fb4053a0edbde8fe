"""Large answers: a short summary in the tool result, the full answer as an MCP resource.

An answer whose JSON text (the CLI's ``--json`` bytes, :func:`cerebri._json.pretty`) is longer
than the server's ``summary_bytes`` is kept in memory under
``cerebri://results/<sha256 hex of those bytes>`` and the tool returns a summary instead::

    {"summarised": true, "resource": "cerebri://results/<hex>", "bytes": 123456,
     "counts": {"candidates": 812, "rejections": 40, ...},
     "outcome": …, "assessment": …, "candidates": [first SUMMARY_ITEMS], ...}

The summary keeps every top-level scalar member, the first :data:`SUMMARY_ITEMS` items of
every top-level array (``counts`` gives each array's full length) and drops the large
diagnostic objects listed in :data:`DROPPED` (their sizes are in ``counts`` too where they
are arrays inside). ``resources/read`` of the URI returns the full text, byte-identical to
the CLI's ``--json`` output. At most :data:`MAX_KEPT` answers and :data:`MAX_KEPT_BYTES` of
their text are held; the oldest is forgotten first (a read of a forgotten URI is
``mcp.unknown_resource``). One answer longer than :data:`MAX_RESULT_BYTES` is refused
(``mcp.result_too_large``) rather than kept.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from cerebri._json import JSONValue, pretty
from cerebri.errors import CerebriError

__all__ = [
    "DROPPED",
    "MAX_KEPT",
    "MAX_KEPT_BYTES",
    "MAX_RESULT_BYTES",
    "RESULT_URI_PREFIX",
    "SUMMARY_ITEMS",
    "SUMMARY_SCHEMA",
    "ResultStore",
]

RESULT_URI_PREFIX = "cerebri://results/"
SUMMARY_ITEMS = 5
"""How many items of each top-level array a summary keeps."""
MAX_KEPT = 64
"""How many full answers the server holds for ``resources/read``."""
MAX_KEPT_BYTES = 64 * 1024 * 1024
"""How many bytes (UTF-8 JSON text) of full answers the server holds, 64 MiB."""
MAX_RESULT_BYTES = 16 * 1024 * 1024
"""The longest answer (UTF-8 JSON text) a tool returns or keeps, 16 MiB."""
DROPPED = ("validation", "compilation", "dependency_graph", "conflicts")
"""Top-level members a summary leaves out (read them from the resource)."""

SUMMARY_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "A summary of an answer too large to return whole; the full answer is the "
    "resource named by 'resource' (resources/read).",
    "required": ["summarised", "resource", "bytes", "counts"],
    "properties": {
        "summarised": {"const": True},
        "resource": {"type": "string", "pattern": "^cerebri://results/[0-9a-f]{64}$"},
        "bytes": {"type": "integer", "minimum": 0, "description": "Length of the full text."},
        "counts": {"type": "object", "additionalProperties": {"type": "integer", "minimum": 0}},
    },
}


def _counts(document: dict[str, JSONValue]) -> dict[str, JSONValue]:
    counts: dict[str, JSONValue] = {}
    for key, value in document.items():
        if isinstance(value, list):
            counts[key] = len(value)
    conflicts = document.get("conflicts")
    if isinstance(conflicts, dict) and isinstance(conflicts.get("rejections"), list):
        counts["rejections"] = len(conflicts["rejections"])  # type: ignore[arg-type]
    validation = document.get("validation")
    if isinstance(validation, dict) and isinstance(validation.get("issues"), list):
        counts["issues"] = len(validation["issues"])  # type: ignore[arg-type]
    return counts


def summarise(document: dict[str, JSONValue], uri: str, size: int) -> dict[str, JSONValue]:
    """The summary of ``document`` (rules: the module docstring)."""
    summary: dict[str, JSONValue] = {
        "summarised": True,
        "resource": uri,
        "bytes": size,
        "counts": _counts(document),
    }
    for key, value in document.items():
        if key in DROPPED or key in summary:
            continue
        summary[key] = value[:SUMMARY_ITEMS] if isinstance(value, list) else value
    return summary


@dataclass
class ResultStore:
    """Full answers by URI, at most :data:`MAX_KEPT` of them and ``max_kept_bytes`` of text
    together, oldest forgotten first.

    ``limit`` is the largest answer (bytes of its JSON text) returned whole;
    ``max_result_bytes`` the largest answer at all.
    """

    limit: int
    max_kept_bytes: int = MAX_KEPT_BYTES
    max_result_bytes: int = MAX_RESULT_BYTES
    _kept: OrderedDict[str, str] = field(default_factory=OrderedDict)
    _sizes: dict[str, int] = field(default_factory=dict)

    def answer(self, document: dict[str, JSONValue]) -> dict[str, JSONValue]:
        """``document`` itself when its text fits :attr:`limit`, else its summary (the text
        is then kept for :meth:`read`).

        Raises:
            CerebriError: ``mcp.result_too_large``, the text is longer than
                :attr:`max_result_bytes` (nothing is kept).
        """
        text = pretty(document)
        size = len(text.encode("utf-8"))
        if size > self.max_result_bytes:
            raise CerebriError(
                f"the answer is {size} bytes of JSON, more than this server returns or keeps "
                f"({self.max_result_bytes}); narrow the window (between), coarsen the "
                "granularity, or ask for fewer candidates (max_candidates)",
                code="mcp.result_too_large",
            )
        if size <= self.limit:
            return document
        uri = RESULT_URI_PREFIX + hashlib.sha256(text.encode("utf-8")).hexdigest()
        self._kept[uri] = text
        self._sizes[uri] = size
        self._kept.move_to_end(uri)
        while len(self._kept) > MAX_KEPT or sum(self._sizes.values()) > self.max_kept_bytes:
            forgotten, _ = self._kept.popitem(last=False)
            del self._sizes[forgotten]
        return summarise(document, uri, size)

    def kept_bytes(self) -> int:
        """Bytes of text held (UTF-8)."""
        return sum(self._sizes.values())

    def read(self, uri: str) -> str:
        """The full text kept under ``uri``.

        Raises:
            CerebriError: ``mcp.unknown_resource`` when no answer is kept under ``uri``.
        """
        try:
            return self._kept[uri]
        except KeyError:
            raise CerebriError(
                f"no answer is kept under {uri!r} (unknown, or forgotten after {MAX_KEPT} "
                f"newer ones or {self.max_kept_bytes} bytes of newer answers)",
                code="mcp.unknown_resource",
            ) from None

    def uris(self) -> list[str]:
        """The URIs held, oldest first."""
        return list(self._kept)
