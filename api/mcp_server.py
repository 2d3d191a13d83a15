"""kgrag as an MCP server (`kgrag mcp`): agents search and ask the corpus over stdio or streamable HTTP.

Agents are how many users now reach a knowledge base, and MCP is how agent hosts (Claude Desktop,
IDEs, agent frameworks) plug tools in. The tools are a thin layer over api/service.py, the same
functions the REST routes call, so ``search`` returns exactly what ``POST /v1/query`` does with
``answer: false`` and ``ask`` exactly its cited answer or refusal. The resources (models, pool,
published indexes) are built once by ``build_resources``, as for `kgrag serve`, and passed in.

Keys: over HTTP a request is checked exactly as the REST API checks it (``KeyCheck``): once any key
exists, in ``api.api_keys`` or made by `kgrag keys create`, every request needs ``Authorization: Bearer
<key>``, a stored key only for its own workspace, and every refusal is audited. Over stdio there is no
key: the host starts the process itself, with the user's own settings and rights (like any `kgrag` command),
so whoever can start it can already read the database it is configured for.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import Annotated

import anyio.to_thread
from kgrag.api import service
from kgrag.api.deps import KeyCheck, Resources
from kgrag.api.problems import AuthError, problem_for, problem_response
from kgrag.api.schemas import (
    AskOut,
    DocumentDetail,
    DocumentList,
    FiltersIn,
    GraphViewOut,
    QueryRequest,
    QueryResponse,
    Signal,
)
from kgrag.core.access import ForbiddenError
from kgrag.core.errors import KgragError
from kgrag.core.types import DocumentStatus
from kgrag.kg import browse
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import Field, ValidationError
from starlette.applications import Starlette
from starlette.routing import Mount
from starlette.types import ASGIApp, Receive, Scope, Send

MCP_PATH = "/mcp"
INSTRUCTIONS = (
    "kgrag answers from the user's own documents (dense + BM25 + knowledge-graph retrieval). Use `ask` for a "
    "cited answer: it refuses, naming what is missing, when the documents do not say, so trust a refusal rather "
    "than guessing. Use `search` for the ranked passages and why each was found (each signal's rank, the graph "
    "chain). `list_documents` and `get_document` read what is stored; `graph_neighbourhood` shows an entity's "
    "links and the sentences behind them. Cite passages by their document title and source."
)
READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)

Question = Annotated[str, Field(min_length=1, description="The question, in plain words.")]
TopK = Annotated[int | None, Field(default=None, ge=1, description="Passages to retrieve (default: the server's "
                                   "retrieval.top_k, 5).")]
Signals = Annotated[list[Signal] | None, Field(default=None, description="A subset of dense, bm25, graph "
                                               "(default: the server's retrieval.signals).")]
Filters = Annotated[FiltersIn | None, Field(default=None, description="Only these documents: ids, sources, or "
                                            "exact metadata matches (ANDed).")]


@contextmanager
def tool_errors() -> Iterator[None]:
    """A KgragError becomes the message the agent reads, with its fix: the SDK shows an agent only
    ``ToolError`` text and hides any other exception behind "Error executing tool"."""
    try:
        yield
    except KgragError as exc:
        raise ToolError(f"{exc.message}; fix: {exc.fix}" if exc.fix else exc.message) from exc
    except ValidationError as exc:
        fields = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors())
        raise ToolError(f"invalid arguments: {fields}; fix: correct the named arguments") from exc


def _query(res: Resources, question: str, top_k: int | None, signals: list[Signal] | None,
           filters: FiltersIn | None, *, rerank: bool, answer: bool) -> QueryResponse:
    body = QueryRequest(question=question, top_k=top_k, signals=signals, filters=filters or FiltersIn(),
                        rerank=rerank, answer=answer)
    return service.run_query(body, res)


def build_server(res: Resources) -> MCPServer:
    """The MCP server with kgrag's tools over ``res`` (built and closed by the caller)."""
    server: MCPServer = MCPServer("kgrag", title="kgrag knowledge base", instructions=INSTRUCTIONS,
                                  version="0.1.0", log_level="WARNING")

    @server.tool(annotations=READ_ONLY)
    def search(question: Question, top_k: TopK = None, signals: Signals = None, filters: Filters = None,
               rerank: bool = True) -> QueryResponse:
        """The passages that best answer the question, ranked: each with its text, document, each signal's
        rank and score (dense, bm25, graph), the graph chain that led to it, and the confidence gate's verdict.
        The same result as the REST API's POST /v1/query with answer=false."""
        with tool_errors():
            return _query(res, question, top_k, signals, filters, rerank=rerank, answer=False)

    @server.tool(annotations=READ_ONLY)
    def ask(question: Question, top_k: TopK = None, signals: Signals = None, filters: Filters = None) -> AskOut:
        """A short answer from the documents with numbered citations [n] (each names its document and quotes
        the passage), or a refusal (answer.mode "refused") that names what the documents do not say."""
        with tool_errors():
            return AskOut.of(_query(res, question, top_k, signals, filters, rerank=True, answer=True))

    @server.tool(annotations=READ_ONLY)
    def list_documents(limit: Annotated[int, Field(ge=1, le=1000)] = 100,
                       offset: Annotated[int, Field(ge=0, le=2**63 - 1)] = 0,
                       status: DocumentStatus | None = None) -> DocumentList:
        """The stored documents with their ids, titles, sources, metadata, chunk counts and status
        (indexed: searchable; pending; failed, with why)."""
        with tool_errors():
            return service.list_documents(res, limit=limit, offset=offset, status=status)

    @server.tool(annotations=READ_ONLY)
    def get_document(document_id: Annotated[int, Field(ge=1, description="An id from list_documents, or a "
                                                       "hit's or citation's document_id.")],
                     include_text: bool = True, include_chunks: bool = True,
                     chunk_offset: Annotated[int, Field(ge=0)] = 0,
                     chunk_limit: Annotated[int, Field(ge=1, le=service.MAX_CHUNK_PAGE)] = 20) -> DocumentDetail:
        """One document: its record, its text (rebuilt from its chunks) and a page of its chunks (chunk_id,
        position, page, text) from chunk_offset on. The same as GET /v1/documents/{id}?include=text,chunks."""
        with tool_errors():
            return service.document_detail(res, document_id, text=include_text, chunks=include_chunks,
                                           chunk_offset=chunk_offset, chunk_limit=chunk_limit)

    @server.tool(annotations=READ_ONLY)
    def graph_neighbourhood(entity: Annotated[str, Field(min_length=1, max_length=500, description="An entity's "
                                                         "name, alias or key, e.g. \"Tomas Berg\".")],
                            limit: Annotated[int, Field(ge=1, le=browse.MAX_VIEW - 1)] = 40) -> GraphViewOut:
        """The entity in the knowledge graph, its strongest neighbours and the links among them; each of its
        own links carries the sentences that connect the two. Needs a built graph (`kgrag graph build`)."""
        with tool_errors():
            return service.neighbourhood(res, entity, limit)

    return server


class RequireKey:
    """Refuses every HTTP request the REST API would refuse, before the MCP transport reads it: the same
    ``KeyCheck`` (stored keys with their workspace and role, the KGRAG_API__API_KEYS keys, a revoked key
    refused on its next request), the same 401 and 403 problem documents, and each refusal in the audit
    log. The endpoint serves one workspace, ``res``'s: a key made for another workspace gets 403, as it
    would naming that workspace on the REST API. Every tool only reads, so a reader key is enough."""

    def __init__(self, app: ASGIApp, res: Resources, auth: KeyCheck) -> None:
        self.app = app
        self.workspace = res.workspace
        self.auth = auth

    def check(self, authorization: str | None, target: str) -> None:
        """Blocking (a key is looked up in the database): run on a worker thread."""
        try:
            principal = self.auth.principal(authorization)
        except AuthError as exc:
            self.auth.record_denial(exc, principal=None, authorization=authorization, workspace=self.workspace,
                                    target=target)
            raise
        try:
            if principal.workspace not in (None, self.workspace):
                raise ForbiddenError("this key is not valid for the workspace this MCP endpoint serves",
                                     fix=f"use a key made for workspace {self.workspace!r} (`kgrag keys create "
                                         f"--workspace {self.workspace} --role reader`), or start `kgrag mcp "
                                         "--workspace` with the key's own workspace")
            principal.require("reader", "read documents")
        except ForbiddenError as exc:
            self.auth.record_denial(exc, principal=principal, authorization=authorization,
                                    workspace=principal.workspace or self.workspace, target=target)
            raise

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            header = dict(scope.get("headers") or []).get(b"authorization")
            target = f"mcp {scope.get('method', '')} {scope.get('path', '')}"
            try:
                await anyio.to_thread.run_sync(self.check, header.decode("latin-1") if header is not None
                                               else None, target)
            except KgragError as exc:
                headers = {"WWW-Authenticate": 'Bearer realm="kgrag"'} if isinstance(exc, AuthError) else None
                response = problem_response(problem_for(exc, scope.get("path")), headers)
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


def http_app(res: Resources, *, host: str = "127.0.0.1", on_shutdown: Callable[[], None] | None = None) -> ASGIApp:
    """The streamable HTTP endpoint at /mcp. Stateless and answered as plain JSON: each request stands alone,
    so replicas behind a load balancer need no sticky sessions, and curl can call a tool. ``host`` is where
    it listens: on localhost the SDK also refuses other Host and Origin headers (DNS rebinding).

    ``on_shutdown`` runs in the app's lifespan, the one place sure to run on SIGTERM: uvicorn re-raises the
    signal once it has shut down, so code after ``uvicorn.run`` never runs then."""
    server = build_server(res)
    inner = server.streamable_http_app(streamable_http_path=MCP_PATH, stateless_http=True, json_response=True,
                                       host=host)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        try:
            async with server.session_manager.run():
                yield
        finally:
            if on_shutdown is not None:
                await anyio.to_thread.run_sync(on_shutdown)

    auth = KeyCheck(res.settings, res.runtime.database)
    return RequireKey(Starlette(routes=[Mount("/", app=inner)], lifespan=lifespan), res, auth)
