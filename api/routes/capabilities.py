"""``GET /v1/capabilities`` and ``GET /v1/workspaces``: what this server accepts and which workspaces a key may
use, so a client (the web UI) need not hard-code them.

The upload formats are the ingest loaders' own list, and the retrieval defaults and limits are this
server's settings: the UI's file picker and its Ask options follow the server they talk to.
"""

from __future__ import annotations

from typing import get_args

from fastapi import APIRouter
from kgrag.api.deps import Authorized, PrincipalDep, ResourcesDep, TenancyDep
from kgrag.api.openapi import COMMON, errors
from kgrag.api.schemas import Signal
from kgrag.ingest.loaders import SUPPORTED_SUFFIXES
from pydantic import BaseModel, Field

router = APIRouter(prefix="/v1", tags=["health"], dependencies=[Authorized], responses=errors(*COMMON))


class CapabilitiesOut(BaseModel):
    upload_formats: dict[str, str] = Field(description="File extension → the MIME type it is stored as: every "
                                           "format `POST /v1/documents` ingests.")
    max_upload_bytes: int
    signals: list[str] = Field(description="Every retrieval signal a query may ask for.")
    default_signals: list[str] = Field(description="The signals a query runs when it names none (retrieval.signals).")
    default_top_k: int
    max_top_k: int
    rerank: bool = Field(description="Whether the reranker is configured (stages.rerank says whether it can run).")
    rerank_available: bool = Field(description="Whether a query's rerank stage can run: configured and its model "
                                   "loads (no cross-encoder weights ship with kgrag; offline they must be cached).")
    rerank_problem: str | None = Field(None, description="Why reranking cannot run, when it cannot; `kgrag doctor` "
                                       "gives the fix.")


@router.get("/capabilities", response_model=CapabilitiesOut)
def capabilities(res: ResourcesDep) -> CapabilitiesOut:
    """The formats uploads accept, and the query options with this server's defaults and limits."""
    s = res.settings
    reranker = res.pipeline.reranker
    problem = ("reranking is disabled (KGRAG_RERANK__ENABLED=false)" if reranker is None
               else reranker.unavailable_problem())
    return CapabilitiesOut(upload_formats=dict(SUPPORTED_SUFFIXES), max_upload_bytes=s.api.max_upload_bytes,
                           signals=list(get_args(Signal)), default_signals=list(s.retrieval.signals),
                           default_top_k=s.retrieval.top_k, max_top_k=s.api.max_top_k, rerank=s.rerank.enabled,
                           rerank_available=problem is None, rerank_problem=problem)


class WorkspacesOut(BaseModel):
    workspaces: list[str] = Field(description="The workspaces this key may use: its own for a stored key, every "
                                  "workspace for a KGRAG_API__API_KEYS key (or a server without keys).")
    current: str = Field(description="The workspace a request works in when it sends no X-Kgrag-Workspace header.")
    role: str = Field(description="The key's role: reader, writer or admin.")


@router.get("/workspaces", response_model=WorkspacesOut)
def workspaces(principal: PrincipalDep, tenancy: TenancyDep) -> WorkspacesOut:
    """The workspaces this key may use (never any other's name), for a client's workspace picker."""
    if principal.workspace is not None:
        return WorkspacesOut(workspaces=[principal.workspace], current=principal.workspace, role=principal.role)
    return WorkspacesOut(workspaces=tenancy.root.runtime.workspaces.names(), current=tenancy.root.workspace,
                         role=principal.role)
