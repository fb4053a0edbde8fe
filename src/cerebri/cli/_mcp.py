"""``cerebri mcp``: serve the planning tools to MCP clients (stdio, or streamable HTTP)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from cerebri.cli._app import app, fail
from cerebri.errors import CerebriError

__all__ = ["mcp_command"]


def _caldav_sources(values: list[str] | None) -> dict[str, str]:
    """``NAME=URL`` pairs; a malformed or repeated name is ``input.invalid_option``."""
    sources: dict[str, str] = {}
    for value in values or []:
        name, sep, url = value.partition("=")
        if not sep or not name or not url:
            raise CerebriError(f"--caldav {value!r}: write NAME=URL", code="input.invalid_option")
        if name in sources:
            raise CerebriError(f"--caldav: {name!r} is given twice", code="input.invalid_option")
        sources[name] = url
    return sources


@app.command("mcp", short_help="Serve the planning tools to MCP clients (agents).")
def mcp_command(  # noqa: PLR0917 - typer maps every option to a parameter
    http: Annotated[
        bool, typer.Option("--http", help="Serve streamable HTTP at /mcp instead of stdio.")
    ] = False,
    host: Annotated[str, typer.Option("--host", help="With --http: address.")] = "127.0.0.1",
    port: Annotated[
        int, typer.Option("--port", min=1, max=65535, help="With --http: TCP port.")
    ] = 8765,
    allow_remote: Annotated[
        bool, typer.Option("--allow-remote", help="Permit a non-loopback --host.")
    ] = False,
    caldav: Annotated[
        list[str] | None,
        typer.Option(
            "--caldav",
            metavar="NAME=URL",
            help="A CalDAV calendar the tools may read by NAME (repeatable); credentials from "
            "CEREBRI_CALDAV_USER and CEREBRI_CALDAV_PASSWORD.",
        ),
    ] = None,
    key: Annotated[
        Path | None,
        typer.Option("--key", readable=False, help="Sign proposals with this PKCS#8 PEM key."),
    ] = None,
    keyid: Annotated[str | None, typer.Option("--keyid", help="The key's id.")] = None,
    registry: Annotated[
        Path | None,
        typer.Option("--registry", readable=False, help="Key registry (default: beside --key)."),
    ] = None,
    author: Annotated[
        str | None,
        typer.Option(
            "--author",
            help="Proposals' author: principal:<id>, service:<id> or agent:<id> (an agent's "
            "submitted plans can never be approved by it).",
        ),
    ] = None,
    objects: Annotated[
        Path | None,
        typer.Option("--objects", readable=False, help="Store signed artifacts here."),
    ] = None,
    store: Annotated[
        str | None,
        typer.Option(
            "--store",
            metavar="URL",
            help="Execution store: enables preview, plan_status and propose's submit.",
        ),
    ] = None,
    summary_bytes: Annotated[
        int,
        typer.Option(
            "--summary-bytes",
            min=1,
            help="Answers longer than this (JSON bytes) are summarised; the full answer is "
            "a resource.",
        ),
    ] = 64 * 1024,
    at: Annotated[
        str | None,
        typer.Option("--at", help="RFC 3339 instant to use as now instead of the clock."),
    ] = None,
) -> None:
    """Serve validate_request, plan, find_slot, freebusy, draft_plan, propose (and with
    --store preview and plan_status) over MCP: stdio by default, or streamable HTTP on a
    loopback address with --http. No tool approves: an agent proposes, a human approves.
    Keys, authors, stores and CalDAV sources come from these options, never from a tool
    call."""
    from cerebri.mcp import McpSettings, check_host, run_http, run_stdio  # noqa: PLC0415
    from cerebri.temporal import Instant  # noqa: PLC0415

    try:
        if (key is None) != (keyid is None):
            raise CerebriError("--key and --keyid go together", code="input.invalid_option")
        if http:
            check_host(host, allow_remote=allow_remote)
        now = None
        if at is not None:
            try:
                now = Instant.parse(at)
            except ValueError as exc:
                raise CerebriError(f"--at: {exc}", code="input.invalid_option") from None
        settings = McpSettings(
            summary_bytes=summary_bytes,
            caldav=_caldav_sources(caldav),
            caldav_user=os.environ.get("CEREBRI_CALDAV_USER"),
            caldav_password=os.environ.get("CEREBRI_CALDAV_PASSWORD"),
            key=key,
            keyid=keyid,
            registry=registry,
            author=author,
            objects=objects,
            store=store,
            at=now,
        )
    except CerebriError as error:
        raise fail(error) from None
    if http:
        run_http(settings, host=host, port=port)
    else:
        run_stdio(settings)
