"""`kgrag mcp`: the corpus as an MCP server for agents, over stdio or streamable HTTP (api/mcp_server.py).

The mcp SDK, FastAPI and uvicorn are imported only when it runs, so `kgrag --help` stays fast.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated

import typer
from kgrag.api.cli.common import WorkspaceOption, err_console, handle_errors, runtime
from kgrag.api.cli.serve import check_exposure, check_port_free

if TYPE_CHECKING:
    from kgrag.api.deps import Resources

DEFAULT_PORT = 8001
"""Beside `kgrag serve`'s 8000, so both can run on one machine with their defaults."""


class Transport(StrEnum):
    stdio = "stdio"
    http = "http"


@handle_errors
def mcp(
    transport: Annotated[Transport, typer.Option(
        "--transport", case_sensitive=False,
        help="stdio: the MCP host starts this command and talks over its stdin/stdout (no key: the process "
             "runs with your settings, like any kgrag command). http: streamable HTTP at http://HOST:PORT/mcp, "
             "checking keys exactly as the REST API does (stored keys and KGRAG_API__API_KEYS).")] = Transport.stdio,
    host: Annotated[str | None, typer.Option(help="With --transport http: interface to listen on "
                                             "(default api.host, 127.0.0.1).")] = None,
    port: Annotated[int, typer.Option(min=1, max=65535, help="With --transport http: port.")] = DEFAULT_PORT,
    allow_no_auth: Annotated[bool, typer.Option(
        "--allow-no-auth", help="With --transport http: listen beyond localhost with no API keys configured "
                                "(anyone can read the documents).")] = False,
    workspace: WorkspaceOption = None,
) -> None:
    """Serve the documents to AI agents over the Model Context Protocol (Claude Desktop, IDEs, agent frameworks).

    Tools: search (ranked passages with each signal's rank and the graph chain, as POST /v1/query), ask (a cited
    answer, or a refusal naming what the documents do not say), list_documents, get_document (its text and
    chunks) and graph_neighbourhood (an entity's links and the sentences behind them).

    Over stdio the MCP host starts `kgrag mcp` itself; put the settings it needs (KGRAG_HOME, or
    KGRAG_DATABASE__URL) in the host's `env` block. Over HTTP, keys work as on the REST API: make one with
    `kgrag keys create --workspace W --role reader` (or set KGRAG_API__API_KEYS) and clients send
    `Authorization: Bearer <key>`. The endpoint serves one workspace (--workspace); a key made for another
    workspace is refused, and every refusal is audited. With no key anywhere it listens only on localhost
    unless you pass --allow-no-auth.
    Client configuration examples are in docs/api.md.

    Example:  kgrag mcp                                  (stdio, for a host's mcpServers entry)
              kgrag mcp --transport http --port 8001     (http://127.0.0.1:8001/mcp)
    """
    if transport is Transport.stdio:
        _serve_stdio(workspace)
    else:
        _serve_http(host, port, allow_no_auth, workspace)


def _serve_stdio(workspace: str | None) -> None:
    from kgrag.api.deps import build_resources
    from kgrag.api.mcp_server import build_server

    with runtime(workspace=workspace) as rt:
        # stdout is the protocol's wire: nothing loading the models prints may reach it before the SDK
        # claims it (from then on it diverts stray writes to stderr itself).
        with contextlib.redirect_stdout(sys.stderr):
            res = build_resources(rt)
        try:
            err_console.print(f"kgrag MCP server on stdio; answers by {res.answerer.name}")
            build_server(res).run("stdio")
        finally:
            res.close()


def _serve_http(host: str | None, port: int, allow_no_auth: bool, workspace: str | None) -> None:
    import uvicorn
    from kgrag.api.cli.common import in_workspace, load_settings
    from kgrag.api.cli.serve import stored_keys
    from kgrag.api.deps import build_resources
    from kgrag.api.mcp_server import MCP_PATH, http_app
    from kgrag.core.runtime import Runtime

    settings = in_workspace(load_settings(), workspace)
    api = settings.api.model_copy(update={"host": host} if host else {})
    # Stored keys count as keys here, wherever it listens: the endpoint then checks them on every request.
    has_keys = bool(api.api_keys) or stored_keys(settings)
    check_exposure(api.host, has_keys, allow_no_auth, command="kgrag mcp --transport http",
                   risk="anyone could read the documents")
    check_port_free(api.host, port, command="kgrag mcp --transport http")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    rt = Runtime(settings)
    closed = threading.Lock()

    def close() -> None:
        """Once, from the app's shutdown (SIGTERM) or here when uvicorn returns or fails."""
        if closed.acquire(blocking=False):
            if res is not None:
                res.close()
            rt.close()  # stops the embedded PostgreSQL this process started

    res: Resources | None = None
    try:
        res = build_resources(rt)
        if not has_keys:
            err_console.print("[yellow]note:[/] no API keys exist; every request is allowed until one is made "
                              "(`kgrag keys create`)")
        err_console.print(f"MCP endpoint at http://{api.host}:{port}{MCP_PATH} (streamable HTTP)")
        uvicorn.run(http_app(res, host=api.host, on_shutdown=close), host=api.host, port=port,
                    log_level="warning", timeout_graceful_shutdown=api.shutdown_grace_s)
    finally:
        close()
