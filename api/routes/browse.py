"""Bounded graph views for the web UI (and anyone else): entity search, a neighbourhood, an overview.

The graph code is in kg/browse.py and the views' wire form in api/service.py (MCP's
``graph_neighbourhood`` is the same view); these routes add the HTTP parameters. They never return
more than kg.browse.MAX_VIEW entities, so the browser stays responsive on any corpus, and they hide
what only deleted documents supported (kg.liveness.Liveness) from the moment the delete commits,
though the loaded graph keeps it until the next build.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from kgrag.api import service
from kgrag.api.deps import Authorized, ResourcesDep
from kgrag.api.openapi import COMMON, errors
from kgrag.api.schemas import EntityList, GraphViewOut
from kgrag.kg import browse

router = APIRouter(prefix="/v1/graph", tags=["graph"], dependencies=[Authorized], responses=errors(*COMMON, 409))


@router.get("/entities", response_model=EntityList)
def search_entities(res: ResourcesDep,
                    q: Annotated[str, Query(min_length=1, max_length=200, description="Part of a name or alias.")],
                    limit: Annotated[int, Query(ge=1, le=browse.MAX_VIEW)] = 20) -> EntityList:
    """Entities whose name contains ``q`` (exact and prefix matches first, then the most useful)."""
    return EntityList(entities=service.search_entities(res, q, limit))


@router.get("/neighbourhood", response_model=GraphViewOut, responses=errors(404))
def entity_neighbourhood(res: ResourcesDep,
                         entity: Annotated[str, Query(min_length=1, max_length=500,
                                                      description="An entity key, name or alias.")],
                         limit: Annotated[int, Query(ge=1, le=browse.MAX_VIEW - 1)] = 40) -> GraphViewOut:
    """The entity, its strongest ``limit`` neighbours and the edges among them; each of its own edges
    carries the sentences that link the two."""
    return service.neighbourhood(res, entity, limit)


@router.get("/overview", response_model=GraphViewOut)
def graph_overview(res: ResourcesDep,
                   limit: Annotated[int, Query(ge=1, le=browse.MAX_VIEW)] = 120) -> GraphViewOut:
    """The most useful entities (specific and connected, titles first; not the most frequent) and their edges."""
    return service.overview(res, limit)
