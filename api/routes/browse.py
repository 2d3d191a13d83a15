"""Bounded graph views for the web UI (and anyone else): entity search, a neighbourhood, an overview.

The graph code is in kg/browse.py; these routes add the evidence text from the database and
never return more than kg.browse.MAX_VIEW entities, so the browser stays responsive on any corpus.
They hide what only deleted documents supported (kg.browse.Liveness) from the moment the delete
commits, though the loaded graph keeps it until the next build.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Annotated

from fastapi import APIRouter, FastAPI, Query, Request
from kgrag.api.deps import Authorized, Resources, ResourcesDep
from kgrag.api.openapi import COMMON, errors
from kgrag.api.schemas import EdgeOut, EntityList, EntityOut, EvidenceOut, GraphViewOut
from kgrag.core.errors import GraphMissingError
from kgrag.kg import browse
from kgrag.kg.holder import GraphHolder, graph_holder
from kgrag.kg.serving import LoadedGraph

log = logging.getLogger("kgrag.api")

router = APIRouter(prefix="/v1/graph", tags=["graph"], dependencies=[Authorized], responses=errors(*COMMON, 409))


def _holder(app: FastAPI, res: Resources) -> GraphHolder:
    """The runtime's holder, the one the query pipeline and the sync use (one copy of the graph in memory)."""
    return graph_holder(res.runtime)


def preload(app: FastAPI, res: Resources) -> None:
    """Load the graph file in the background at startup: at 30k entities that takes seconds, which
    would otherwise be the first Graph page's wait. A failure here is reported by the routes instead."""
    holder = _holder(app, res)
    if not holder.path.exists():
        return

    def load() -> None:
        try:
            holder.current()
        except Exception:
            log.warning("preloading the graph for browsing failed; the graph routes will report why", exc_info=True)

    threading.Thread(target=load, name="kgrag-graph-preload", daemon=True).start()


def _graph(request: Request, res: Resources) -> LoadedGraph:
    graph = _holder(request.app, res).current()
    if graph is None:
        raise GraphMissingError("no graph has been built yet",
                                fix="start a build with POST /v1/graph/build (or `kgrag graph build`), then reload")
    return graph


class _LiveCache:
    """The latest corpus version's Liveness for one loaded graph (a new build is a new graph, a new cache)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._version = -1
        self._live: browse.Liveness | None = None

    def get(self, version: int, make: Callable[[], browse.Liveness]) -> browse.Liveness:
        with self._lock:
            if self._live is None or self._version != version:
                self._live, self._version = make(), version
            return self._live


def _live(graph: LoadedGraph, res: Resources) -> browse.Liveness | None:
    """What of ``graph`` is still stored, for the views to hide the rest: None while the corpus is as the
    graph was built (nothing to hide), else computed once per corpus version (one query for the graph's
    chunk ids). The version is read first, so a delete that lands meanwhile is hidden, never missed."""
    store = res.runtime.store
    version = store.corpus_version()
    if version == graph.corpus_version:
        return None
    cache = graph.derived("browse-live", lambda _: _LiveCache())
    return cache.get(version, lambda: browse.liveness(graph, store.live_chunk_ids(graph.chunk_ids.tolist())))


def entity_out(e: browse.EntityView) -> EntityOut:
    return EntityOut(key=e.key, name=e.name, label=e.label, degree=e.degree, chunks=e.chunks, usefulness=e.usefulness)


ChunkTexts = Callable[[list[int]], dict[int, tuple[str, str, str]]]
"""Chunk ids → (title, source, text): GraphStore.chunk_texts, or anything that answers the same."""


def view_out(graph: LoadedGraph, view: browse.GraphView, chunk_texts: ChunkTexts,
             evidence_per_edge: int = browse.EVIDENCE_PER_EDGE) -> GraphViewOut:
    """A view with the sentences behind each of its evidence-carrying edges (also used by the HTML export)."""
    wanted = sorted({c for e in view.edges for c in e.evidence_chunks[:evidence_per_edge]})
    texts = chunk_texts(wanted) if wanted else {}
    names = {n.key: n.name for n in view.nodes}
    edges = []
    for e in view.edges:
        evidence = [EvidenceOut(chunk_id=c, title=texts[c][0], source=texts[c][1],
                                sentences=browse.evidence_sentences(texts[c][2], [names[e.source], names[e.target]]))
                    for c in e.evidence_chunks[:evidence_per_edge] if c in texts]
        edges.append(EdgeOut(source=e.source, target=e.target, label=e.label, weight=e.weight, evidence=evidence))
    return GraphViewOut(nodes=[entity_out(n) for n in view.nodes], edges=edges, center=view.center,
                        total_neighbours=view.total_neighbours, stats=browse.graph_stats(graph))


def _view_out(graph: LoadedGraph, view: browse.GraphView, res: Resources) -> GraphViewOut:
    from kgrag.kg.store import GraphStore

    return view_out(graph, view, GraphStore(res.runtime.db).chunk_texts)


@router.get("/entities", response_model=EntityList)
def search_entities(request: Request, res: ResourcesDep,
                    q: Annotated[str, Query(min_length=1, max_length=200, description="Part of a name or alias.")],
                    limit: Annotated[int, Query(ge=1, le=browse.MAX_VIEW)] = 20) -> EntityList:
    """Entities whose name contains ``q`` (exact and prefix matches first, then the most useful)."""
    graph = _graph(request, res)
    return EntityList(entities=[entity_out(e) for e in browse.search(graph, q, limit, _live(graph, res))])


@router.get("/neighbourhood", response_model=GraphViewOut, responses=errors(404))
def entity_neighbourhood(request: Request, res: ResourcesDep,
                         entity: Annotated[str, Query(min_length=1, max_length=500,
                                                      description="An entity key, name or alias.")],
                         limit: Annotated[int, Query(ge=1, le=browse.MAX_VIEW - 1)] = 40) -> GraphViewOut:
    """The entity, its strongest ``limit`` neighbours and the edges among them; each of its own edges
    carries the sentences that link the two."""
    graph = _graph(request, res)
    return _view_out(graph, browse.neighbourhood(graph, entity, limit, _live(graph, res)), res)


@router.get("/overview", response_model=GraphViewOut)
def graph_overview(request: Request, res: ResourcesDep,
                   limit: Annotated[int, Query(ge=1, le=browse.MAX_VIEW)] = 120) -> GraphViewOut:
    """The most useful entities (specific and connected, titles first; not the most frequent) and their edges."""
    graph = _graph(request, res)
    return _view_out(graph, browse.overview(graph, limit, _live(graph, res)), res)
