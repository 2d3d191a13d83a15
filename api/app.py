"""The FastAPI application: ``create_app()`` wires settings, resources, routes and error mapping.

Resources (runtime, pipeline, answerer, ingestor, jobs) are created once in the lifespan and kept
on ``app.state``; routes receive them through the dependencies in api/deps.py. Tests pass their
own Runtime (with the session's embedder) and settings.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi.concurrency import run_in_threadpool
from fastapi.middleware.cors import CORSMiddleware
from kgrag.api import openapi, problems
from kgrag.api.deps import WORKSPACE_HEADER, Tenancy, build_resources
from kgrag.api.problems import RequestTooLargeError, problem, problem_response
from kgrag.api.routes import browse as routes_browse
from kgrag.api.routes import capabilities as routes_capabilities
from kgrag.api.routes import chat as routes_chat
from kgrag.api.routes import documents as routes_documents
from kgrag.api.routes import graph as routes_graph
from kgrag.api.routes import health as routes_health
from kgrag.api.routes import query as routes_query
from kgrag.api.routes import ui as routes_ui
from kgrag.api.service import preload_graph
from kgrag.core.runtime import Runtime
from kgrag.core.settings import Settings
from starlette.types import ASGIApp, Message, Receive, Scope, Send

log = logging.getLogger("kgrag.api")

BODY_SLACK = 1024 * 1024
"""Room above api.max_upload_bytes for multipart framing and form fields."""


UPLOAD_ROUTE = ("POST", "/v1/documents")
"""The one route whose body is a document, held to api.max_upload_bytes; every other body to api.max_request_bytes."""


class BodyLimitMiddleware:
    """Refuses bodies over the limit before they are read whole, whether or not Content-Length is sent.

    One mechanism for every route: the document upload may carry a document, any other body (a query, a
    chat conversation) only a request. The 413 names the setting that raises the limit it hit."""

    def __init__(self, app: ASGIApp, upload_limit: int, request_limit: int) -> None:
        self.app = app
        self.upload_limit = upload_limit
        self.request_limit = request_limit

    def _limit(self, scope: Scope) -> tuple[int, str, str]:
        if (scope.get("method"), scope.get("path", "").rstrip("/")) == UPLOAD_ROUTE:
            return self.upload_limit, "a smaller document", "KGRAG_API__MAX_UPLOAD_BYTES"
        return self.request_limit, "a smaller request", "KGRAG_API__MAX_REQUEST_BYTES"

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit, smaller, setting = self._limit(scope)
        fix = f"send {smaller}, or raise {setting}"
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            body = problem(413, f"the request body is {int(declared)} bytes, over the limit of {limit}",
                           fix=fix, kind="request-too-large", instance=scope.get("path"), limit=limit,
                           setting=setting)
            await problem_response(body, path=scope.get("path"))(scope, receive, send)
            return
        seen = 0
        refused: dict[str, object] | None = None

        async def limited() -> Message:
            nonlocal seen, refused
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    refused = problem(413, f"the request body is over the limit of {limit} bytes", fix=fix,
                                      kind="request-too-large", instance=scope.get("path"), limit=limit,
                                      setting=setting)
                    raise RequestTooLargeError(str(refused["detail"]), fix=fix,
                                               details={"limit": limit, "setting": setting})
            return message

        async def answer(message: Message) -> None:
            # FastAPI turns any error while it reads a JSON body into 400 "error parsing the body": once the
            # limit is hit, the response is the 413 whatever the route made of the error.
            if refused is None:
                await send(message)
            elif message["type"] == "http.response.start":
                response = problem_response(refused, path=scope.get("path"))
                await send({"type": "http.response.start", "status": 413, "headers": response.raw_headers})
                await send({"type": "http.response.body", "body": response.body})

        await self.app(scope, limited, answer)


def create_app(settings: Settings | None = None, runtime: Runtime | None = None) -> FastAPI:
    """``runtime`` given: the app uses it and leaves closing it to the caller; otherwise it owns one."""
    if settings is None:
        settings = runtime.settings if runtime is not None else Settings()
    if runtime is not None and runtime.settings is not settings:
        raise ValueError("create_app: pass the runtime's own settings (or none), not a second Settings")
    owned_runtime = runtime is None

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        rt = runtime if runtime is not None else Runtime(settings)
        try:
            resources = await run_in_threadpool(build_resources, rt)
        except BaseException:
            if owned_runtime:
                rt.close()
            raise
        app.state.resources = resources
        app.state.tenancy = tenancy = Tenancy(resources)
        await run_in_threadpool(tenancy.auth.stored_keys_exist)  # known before the first request, outage or not
        preload_graph(resources)
        try:
            yield
        finally:
            tenancy.close()
            if owned_runtime:
                rt.close()

    app = FastAPI(
        title="kgrag", version="0.1.0", lifespan=lifespan, docs_url=None, redoc_url=None,
        description="Knowledge-graph-augmented RAG: hybrid retrieval, cited answers, document and graph management.",
    )
    app.state.settings = settings
    problems.install(app)
    openapi.install(app, settings)
    for module in (routes_health, routes_capabilities, routes_query, routes_chat, routes_documents, routes_graph,
                   routes_browse):
        app.include_router(module.router)
    routes_ui.install(app)
    app.add_middleware(BodyLimitMiddleware, upload_limit=settings.api.max_upload_bytes + BODY_SLACK,
                       request_limit=settings.api.max_request_bytes)
    if settings.api.cors_origins:
        app.add_middleware(CORSMiddleware, allow_origins=list(settings.api.cors_origins),
                           allow_methods=["GET", "POST", "DELETE"],
                           allow_headers=["Authorization", "Content-Type", WORKSPACE_HEADER])
    return app

