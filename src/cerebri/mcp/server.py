"""The MCP server: tools and result resources over stdio or streamable HTTP.

:func:`build_server` wires the official SDK's low-level :class:`mcp.server.lowlevel.Server`:
``tools/list`` (:mod:`cerebri.mcp.schemas`), ``tools/call`` (arguments checked by the tool's
model, then run; every refusal an ``isError`` result, :mod:`cerebri.mcp.errors`),
``resources/list`` and ``resources/read`` (the full text of summarised answers,
:mod:`cerebri.mcp.results`). :func:`run_stdio` serves one client on standard input/output;
:func:`run_http` serves streamable HTTP at ``http://HOST:PORT/mcp``.

Tools run in a worker thread (planning is CPU work; the event loop keeps answering pings).

Fast start (decision 0045): building and starting the server imports the SDK and nothing of
the tools. The tool list (:mod:`cerebri.mcp.schemas`: argument models, JSON Schemas) is made
at the first ``tools/list`` or ``tools/call``, and a tool's implementation module (with the
calendars, proposals and plans packages it needs) at its first call, so ``initialize`` is
answered without them.
"""

from __future__ import annotations

import importlib
import ipaddress
import sys
from collections.abc import Callable
from typing import Any, Final, TextIO

from pydantic import BaseModel, ValidationError

from cerebri import __version__
from cerebri._collector import collector_paused

# The SDK builds its protocol models (several protocol versions) at import: the cyclic
# collector is paused meanwhile, as for cerebri's own import (decision 0045; about 10 %).
with collector_paused(promote_after=0):
    import anyio
    import mcp_types as types
    from mcp.server.lowlevel import Server
    from mcp.server.stdio import stdio_server
    from mcp.shared.exceptions import MCPError
    from mcp_types.jsonrpc import INVALID_PARAMS

from cerebri._json import JSONValue, compact
from cerebri.errors import CerebriError
from cerebri.mcp.errors import INTERNAL_ERROR, argument_error, check_values, error_result
from cerebri.mcp.results import RESULT_URI_PREFIX, ResultStore
from cerebri.mcp.settings import McpSettings

__all__ = ["LOOPBACK_HOSTS", "build_server", "check_host", "run_http", "run_stdio"]

Handler = Callable[[Any, McpSettings], dict[str, JSONValue]]

_HANDLERS: Final = {
    "validate_request": ("cerebri.mcp.tools", "validate_tool"),
    "plan": ("cerebri.mcp.tools", "plan_tool"),
    "optimize_batch": ("cerebri.mcp.tools", "optimize_batch_tool"),
    "find_slot": ("cerebri.mcp.calendar_tools", "find_slot_tool"),
    "freebusy": ("cerebri.mcp.calendar_tools", "freebusy_tool"),
    "draft_plan": ("cerebri.mcp.tools", "draft_plan_tool"),
    "propose": ("cerebri.mcp.tools", "propose_tool"),
    "reschedule_event": ("cerebri.mcp.event_change_tools", "reschedule_event_tool"),
    "cancel_event": ("cerebri.mcp.event_change_tools", "cancel_event_tool"),
    "update_event": ("cerebri.mcp.event_change_tools", "update_event_tool"),
    "preview": ("cerebri.mcp.tools", "preview_tool"),
    "plan_status": ("cerebri.mcp.tools", "plan_status_tool"),
}
"""Tool name -> (module, function) of its implementation, imported at the tool's first call."""


def _handler(name: str) -> Handler:
    """The implementation of tool ``name`` (its module imported on first use)."""
    module, function = _HANDLERS[name]
    handler: Handler = getattr(importlib.import_module(module), function)
    return handler


LOOPBACK_HOSTS = ("127.0.0.1", "::1", "localhost")


def check_host(host: str, *, allow_remote: bool, token: str | None = None) -> None:
    """Refuse a non-loopback ``host`` unless ``allow_remote`` and a bearer ``token`` (the
    tools read local calendars; every remote request must then carry the token).

    Raises:
        CerebriError: ``input.invalid_option``.
    """
    if host == "localhost":
        return
    try:
        loopback = ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = False
    if loopback:
        return
    if not allow_remote:
        raise CerebriError(
            f"--host {host!r} is not a loopback address; the tools read local calendars and "
            "keys, so pass --allow-remote (and a token) to serve other hosts on purpose",
            code="input.invalid_option",
        )
    if not token:
        raise CerebriError(
            f"--host {host!r} is not a loopback address: --allow-remote needs a bearer token "
            "in the --token-env variable (CEREBRI_MCP_TOKEN by default)",
            code="input.invalid_option",
        )


def _call(
    name: str, arguments: dict[str, Any] | None, settings: McpSettings, results: ResultStore
) -> types.CallToolResult:
    """Run tool ``name``; every failure is an ``isError`` result, never an exception."""
    from cerebri.mcp.schemas import STORE_TOOLS, TOOLS  # noqa: PLC0415 - fast start

    specs = {spec.name: spec for spec in TOOLS + (STORE_TOOLS if settings.store else ())}
    spec = specs.get(name)
    if spec is None:
        return error_result(
            CerebriError(
                f"no tool {name!r}; the tools are {', '.join(specs)}",
                code="mcp.unknown_tool",
            )
        )
    try:
        check_values(arguments or {})
        try:
            args: BaseModel = spec.arguments.model_validate(arguments or {})
        except ValidationError as exc:
            raise argument_error(exc) from None
        document = results.answer(_handler(name)(args, settings))
    except CerebriError as error:
        return error_result(error)
    except Exception:  # a bug: the agent learns that much, never the traceback
        return error_result(CerebriError("the tool failed unexpectedly", code=INTERNAL_ERROR))
    return types.CallToolResult(
        content=[types.TextContent(text=compact(document))],
        structured_content=document,
    )


def build_server(settings: McpSettings) -> Server[Any]:
    """The low-level MCP server for ``settings`` (one :class:`ResultStore` per server)."""
    results = ResultStore(
        settings.summary_bytes,
        max_kept_bytes=settings.kept_bytes,
        max_result_bytes=settings.max_result_bytes,
    )
    tools: list[types.Tool] = []  # made at the first tools/list (fast start)

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        if not tools:
            from cerebri.mcp.schemas import tool_list  # noqa: PLC0415 - fast start

            tools.extend(tool_list(with_store=settings.store is not None))
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        return await anyio.to_thread.run_sync(
            _call, params.name, params.arguments, settings, results
        )

    async def list_resources(ctx: Any, params: Any) -> types.ListResourcesResult:
        return types.ListResourcesResult(
            resources=[
                types.Resource(
                    uri=uri,
                    name=uri.removeprefix(RESULT_URI_PREFIX),
                    mime_type="application/json",
                )
                for uri in results.uris()
            ]
        )

    async def read_resource(
        ctx: Any, params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        try:
            text = results.read(str(params.uri))
        except CerebriError as error:  # a protocol error: the request named no resource
            raise MCPError(INVALID_PARAMS, error.message, error.to_wire()) from None
        return types.ReadResourceResult(
            contents=[
                types.TextResourceContents(
                    uri=str(params.uri), mime_type="application/json", text=text
                )
            ]
        )

    return Server(
        "cerebri",
        version=__version__,
        instructions="Deterministic calendar planning: validate and plan CPIR requests, find "
        "slots in calendars, read model drafts, propose (never approve).",
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_read_resource=read_resource,
    )


def run_stdio(settings: McpSettings) -> None:
    """Serve one client over standard input and output until it closes."""
    server = build_server(settings)

    async def main() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(main)


def run_http(
    settings: McpSettings,
    *,
    host: str,
    port: int,
    allow_remote: bool = False,
    token: str | None = None,
    out: TextIO | None = None,
) -> None:
    """Serve streamable HTTP at ``http://host:port/mcp`` (uvicorn) until interrupted.

    The socket is bound first (port 0: any free port) and ``CEREBRI_LISTEN_ADDR=<ip>:<port>``
    printed to ``out`` (standard output), as ``cerebri serve`` does. With a ``token`` every
    request needs ``Authorization: Bearer <token>`` (:mod:`cerebri._http`; 401
    otherwise); a non-loopback host needs ``allow_remote`` and a token.

    Raises:
        CerebriError: ``input.invalid_option`` (:func:`check_host`); ``serve.bind_failed``.
    """
    import uvicorn  # noqa: PLC0415 - HTTP only

    from cerebri._http import BearerTokenMiddleware, bind  # noqa: PLC0415 - HTTP only

    check_host(host, allow_remote=allow_remote, token=token)
    sock = bind(host, port, allow_remote=allow_remote, token=token)
    try:
        ip, real_port = sock.getsockname()[:2]
        shown = f"[{ip}]" if ":" in ip else ip
        stream = out or sys.stdout
        stream.write(f"CEREBRI_LISTEN_ADDR={shown}:{real_port}\n")
        stream.flush()
        app: Any = build_server(settings).streamable_http_app(host=host)
        if token:
            app = BearerTokenMiddleware(app, token)
        config = uvicorn.Config(app, log_level="warning", lifespan="on")
        uvicorn.Server(config).run(sockets=[sock])
    finally:
        sock.close()
