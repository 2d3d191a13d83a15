"""`kgrag serve`: the REST API under uvicorn (FastAPI and uvicorn are imported only when it runs)."""

from __future__ import annotations

import ipaddress
import socket
from typing import Annotated

import typer
from kgrag.api.cli.common import err_console, handle_errors, in_workspace, load_settings
from kgrag.core.errors import ConfigError
from kgrag.core.settings import Settings


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_port_free(host: str, port: int, command: str = "kgrag serve") -> None:
    """Refuse a taken port with the fix. uvicorn would say so only after the "web UI at" line was printed, so
    the user opened a URL served by whatever else holds the port."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds: TIME_WAIT is no conflict
        try:
            probe.bind((host, port))
        except OSError as exc:
            raise ConfigError(
                f"cannot listen on {host}:{port}: {exc.strerror or exc} (another server, perhaps another "
                f"{command}, holds it)",
                fix=f"stop that server, or pick another port: {command} --port {port + 1}",
            ) from exc


def check_exposure(host: str, has_keys: bool, allow_no_auth: bool, *, command: str,
                   risk: str = "anyone could upload and delete documents") -> None:
    """A server with no keys listens only on localhost unless the user says otherwise: `kgrag serve` and
    `kgrag mcp --transport http` refuse the same way."""
    if not has_keys and not _is_loopback(host) and not allow_no_auth:
        raise ConfigError(
            f"refusing to listen on {host} with no API keys: {risk}",
            fix=f"set KGRAG_API__API_KEYS='[\"<key>\"]', listen on 127.0.0.1, or pass --allow-no-auth to {command}",
        )


def stored_keys(settings: Settings) -> bool:
    """Whether `kgrag keys create` has made a key that is still active: then every request needs one."""
    from kgrag.core.access import Keys
    from kgrag.core.runtime import Runtime

    with Runtime(settings) as rt:
        return Keys(rt.database).any_active()


@handle_errors
def serve(
    host: Annotated[str | None, typer.Option(help="Interface to listen on (default api.host, 127.0.0.1).")] = None,
    port: Annotated[int | None, typer.Option(min=1, max=65535, help="Port (default api.port, 8000).")] = None,
    log_level: Annotated[str, typer.Option(help="uvicorn log level: critical, error, warning, info, debug.")] = "info",
    allow_no_auth: Annotated[bool, typer.Option(
        "--allow-no-auth", help="Listen beyond localhost with no API keys configured (anyone can write).")] = False,
    workspace: Annotated[str | None, typer.Option(
        "--workspace", "-w", metavar="NAME",
        help="The workspace requests use when neither their key nor the X-Kgrag-Workspace header names one "
             "(KGRAG_WORKSPACE, default: default). Keys made by `kgrag keys create` always use their own.")] = None,
) -> None:
    """Serve the web UI and the REST API: queries with cited answers, document upload, graph builds.

    Open http://HOST:PORT/ in a browser for the UI (Ask, Documents, Graph); chat clients that speak
    OpenAI's API can use http://HOST:PORT/v1 as their base URL (model "kgrag").

    Set KGRAG_API__API_KEYS='["a-long-random-key"]' to require `Authorization: Bearer <key>` on every
    /v1 route (these are admin keys of every workspace), or make keys scoped to one workspace and role with
    `kgrag keys create`. With no keys the server listens only on localhost, unless you pass --allow-no-auth.

    Answers come from Gemini when GEMINI_API_KEY (or Vertex AI settings) is set, from an OpenAI-compatible
    server (Ollama, vLLM, llama.cpp) when KGRAG_ANSWER__OPENAI_MODEL and KGRAG_ANSWER__OPENAI_BASE_URL are,
    otherwise from the offline extractive answerer. Routes are described at http://HOST:PORT/docs (see
    docs/api.md).

    Replicas: run as many as you like against one database (KGRAG_DATABASE__URL), each with its own
    KGRAG_HOME, behind a load balancer; they share the published BM25 index, graph and jobs through
    the database (docs/deploy.md). GET /v1/artifacts shows what each one serves.

    Example:  kgrag serve --port 8080
    """
    import uvicorn
    from kgrag.api.app import create_app
    from kgrag.core.memory import cap_malloc_arenas

    settings = in_workspace(load_settings(), workspace)
    cap_malloc_arenas(settings.api.malloc_arena_max)  # before uvicorn and the models start their threads
    api = settings.api.model_copy(update={k: v for k, v in (("host", host), ("port", port)) if v is not None})
    has_keys = bool(api.api_keys) or (not _is_loopback(api.host) and stored_keys(settings))
    check_exposure(api.host, has_keys, allow_no_auth, command="kgrag serve")
    check_port_free(api.host, api.port)  # before announcing a URL that another process answers
    if not has_keys:
        err_console.print("[yellow]note:[/] no API keys configured; every request is allowed (until "
                          "`kgrag keys create` makes one)")
    err_console.print(f"web UI at http://{api.host}:{api.port}/ · API docs at http://{api.host}:{api.port}/docs")
    settings = settings.model_copy(update={"api": api})
    uvicorn.run(create_app(settings), host=api.host, port=api.port, log_level=log_level, access_log=True,
                timeout_graceful_shutdown=api.shutdown_grace_s)
