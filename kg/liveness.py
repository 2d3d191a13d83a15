"""What of a served graph deleted documents take out, from the moment the delete commits.

A graph is rebuilt by a graph build, not by a delete, so the loaded graph can still hold a document
deleted since: its node, the entities only it mentioned and their links. A delete is often a privacy
request, and a deleted document must not keep steering rankings either, so one ``Liveness`` per corpus
version says what is gone, and every reader applies it:

- the views (kg.browse) and exports (kg.export.live_only) show nothing that only deleted chunks support;
- the traversal (kg.traversal.ppr_push) never seeds, enters or scores a gone node, and renormalises each
  row over the neighbours left, as a build without them would (kg.search.score);
- chunk scoring never ranks a gone chunk.

What stays until the next build: the weights of links between two nodes that both survive, where some
of the relations behind them came from deleted chunks (the arrays do not keep each edge's chunks), and
the entities' mention counts. Both shrink a link or a count; neither adds what was deleted.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from kgrag.core.store import CorpusState
from kgrag.kg.serving import LoadedGraph


@dataclass(frozen=True, slots=True)
class Liveness:
    """What of a loaded graph is still backed by stored chunks."""

    live_columns: np.ndarray
    """Per chunk column: the chunk still exists."""
    hidden: np.ndarray
    """Per node: a document node none of whose own chunks is left, or an entity only deleted chunks mention."""
    keep: np.ndarray
    """Per node: the share of its transition row that reaches nodes still shown (1 where none is hidden)."""
    degree: np.ndarray
    """Per node: its edges to nodes still shown, at least 1 (the push threshold's degree)."""
    hidden_count: int = 0
    """How many nodes are hidden (for the freshness status; counted once, not per query)."""

    def shows(self, node: int) -> bool:
        return not self.hidden[node]


def liveness(graph: LoadedGraph, gone_chunk_ids: np.ndarray) -> Liveness:
    """The graph's chunks that are not in ``gone_chunk_ids`` and the nodes nothing live supports any more.

    Only what the gone chunks touch is looked at: the nodes they mention or are homed in, then the matrix
    entries that point at a node now hidden. A delete of a few documents costs the few rows they reach
    (and one pass over the entries' columns), not a product of every matrix with the corpus."""
    live = ~np.isin(graph.all_chunk_ids(), gone_chunk_ids)
    gone_columns = np.flatnonzero(~live)
    touched = np.unique(np.concatenate([graph.entities_of_chunks(gone_columns),
                                        graph.homes_of_chunks(gone_columns)])).astype(np.int64)
    touched = touched[touched >= 0]  # -1: a chunk whose document has no node
    weight = live.astype(np.float64)
    home, mentions = graph.home_matrix()[touched], graph.mention_matrix()[touched]
    homed, mentioned = np.diff(home.indptr) > 0, np.diff(mentions.indptr) > 0
    home_live, mentioned_live = np.asarray(home @ weight).ravel() > 0, np.asarray(mentions @ weight).ravel() > 0
    hidden = np.zeros(graph.node_count, dtype=bool)
    hidden[touched] = np.where(homed, ~home_live, mentioned & ~mentioned_live)
    transition = graph.transition_matrix()
    into_hidden = np.flatnonzero(hidden[transition.indices])  # entries whose column is hidden
    rows = np.searchsorted(transition.indptr, into_hidden, side="right") - 1
    live_edges = np.diff(transition.indptr) - np.bincount(rows, minlength=graph.node_count)
    lost = np.bincount(rows, weights=np.asarray(transition.data)[into_hidden], minlength=graph.node_count)
    live_edges[hidden] = 0  # a hidden node keeps no row at all
    keep = np.where(live_edges > 0, 1.0 - lost, 0.0)  # 0: no row left (dangling)
    return Liveness(live_columns=live, hidden=hidden, keep=keep, degree=np.maximum(live_edges, 1),
                    hidden_count=int(hidden.sum()))


class _LatestLiveness:
    """The latest corpus version's Liveness for one loaded graph (a new build is a new graph, a new cache)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._version = -1
        self._live: Liveness | None = None

    def get(self, version: int, make: Callable[[], Liveness | None]) -> Liveness | None:
        with self._lock:
            if self._version != version:
                self._live, self._version = make(), version
            return self._live


GoneChunks = Callable[[np.ndarray, int], np.ndarray]
"""(an artifact's chunk ids, the corpus version it was built at) → those deleted since (core.store.Store
.gone_chunk_ids: the deletion log's few rows, not a listing of every chunk)."""


def built_at(graph: LoadedGraph) -> int:
    """The corpus version the graph's chunk columns were taken at: a delta's base, whose columns it keeps
    (a chunk deleted between the base and the delta is still among them)."""
    delta = graph.delta()
    return int(delta["base_version"]) if delta else graph.corpus_version


def current_liveness(graph: LoadedGraph, state: CorpusState, gone_chunk_ids: GoneChunks) -> Liveness | None:
    """What of ``graph`` is still stored at corpus ``state``: None while nothing of it is gone (no delete
    since the build: the corpus is as it was built, or only grew), else computed once per version (one query
    for the chunks deleted since), for the views and the traversal alike. Read the state before calling, so
    a delete that lands meanwhile is applied, never missed."""
    deletions = graph.deletions()  # a delta's graph keeps its base's: the base holds what was deleted
    if state.deletions == deletions or (deletions is None and state.version == graph.corpus_version):
        return None
    version = state.version

    def make() -> Liveness | None:
        live = liveness(graph, gone_chunk_ids(graph.all_chunk_ids(), built_at(graph)))
        return None if live.live_columns.all() else live

    return graph.derived("liveness", lambda _: _LatestLiveness()).get(version, make)
