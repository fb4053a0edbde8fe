"""``cerebri mcp``: a Model Context Protocol tool server over the planning kernel.

::

    settings = McpSettings(store="sqlite:///plans.db", key=Path("keys/bot.pem"), keyid="bot")
    run_stdio(settings)                         # one client on stdin/stdout
    run_http(settings, host="127.0.0.1", port=8765)   # streamable HTTP at /mcp
    server = build_server(settings)             # the SDK's low-level Server, for embedding

Tools (:mod:`cerebri.mcp.schemas`): ``validate_request``, ``plan``, ``find_slot``,
``freebusy``, ``draft_plan``, ``propose``, and with an execution store ``preview`` and
``plan_status``. None approves, rejects, grants or executes: an agent can propose and
watch, never approve. A refused call is an ``isError`` result with the stable cerebri
``code`` and the JSON ``path`` into the arguments (:mod:`cerebri.mcp.errors`); an answer
larger than ``summary_bytes`` is summarised and kept as the resource
``cerebri://results/<sha256>`` (:mod:`cerebri.mcp.results`).
docs/decisions/0033-mcp-tool-server.md records the choices.

The names below are loaded on first use (PEP 562 module ``__getattr__``, decision 0045):
``cerebri mcp`` answers ``initialize`` without importing the tools, their argument models
or the packages behind them.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from cerebri.mcp.results import RESULT_URI_PREFIX, ResultStore
    from cerebri.mcp.schemas import STORE_TOOLS, TOOLS, tool_list
    from cerebri.mcp.server import LOOPBACK_HOSTS, build_server, check_host, run_http, run_stdio
    from cerebri.mcp.settings import DEFAULT_SUMMARY_BYTES, McpSettings
    from cerebri.mcp.tools import check_configuration

__all__ = [
    "DEFAULT_SUMMARY_BYTES",
    "LOOPBACK_HOSTS",
    "RESULT_URI_PREFIX",
    "STORE_TOOLS",
    "TOOLS",
    "McpSettings",
    "ResultStore",
    "build_server",
    "check_configuration",
    "check_host",
    "run_http",
    "run_stdio",
    "tool_list",
]

_HOMES: Final = {
    "DEFAULT_SUMMARY_BYTES": "settings",
    "LOOPBACK_HOSTS": "server",
    "RESULT_URI_PREFIX": "results",
    "STORE_TOOLS": "schemas",
    "TOOLS": "schemas",
    "McpSettings": "settings",
    "ResultStore": "results",
    "build_server": "server",
    "check_configuration": "tools",
    "check_host": "server",
    "run_http": "server",
    "run_stdio": "server",
    "tool_list": "schemas",
}
"""Each public name -> the submodule that defines it."""


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"cerebri.mcp.{home}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
