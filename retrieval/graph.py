"""The graph signal: link the question to entities, spread over the graph, rank the chunks they cite.

The linking and traversal live in kg/; this module adapts them to the Retriever interface and adds
what a serving stage owes its caller: a status that says when the graph file is missing or stale,
filters honoured in SQL and deletions through kg.liveness (so every hit is a chunk that exists and is allowed), and an
explanation per hit (linked entities, the entity chain that led to it).
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
from kgrag.core.artifacts import ArtifactRefusedError
from kgrag.core.models import Embedder
from kgrag.core.runtime import Runtime
from kgrag.core.settings import GraphSettings
from kgrag.core.store import CorpusState, filters_sql
from kgrag.core.types import Hit
from kgrag.kg.holder import GraphHolder, graph_holder
from kgrag.kg.linking import TITLE, LinkedEntity, Linker
from kgrag.kg.liveness import GoneChunks, Liveness, current_liveness
from kgrag.kg.search import Similarity, explain, score, weigh_hops
from kgrag.kg.serving import LoadedGraph
from kgrag.kg.store import GraphStore
from kgrag.retrieval.base import Query, RetrievalResult, StageStatus

log = logging.getLogger(__name__)

SIGNAL = "graph"
OVERFETCH = 4
"""Candidates scored per wanted hit before the SQL check: room for filtered-out and deleted chunks."""


class GraphBuilds:
    """This process's background graph builder as a query sees it (retrieval.sync writes it, the graph stage
    reads it): a stale graph's reason then says whether it is being caught up, and by whom, instead of asking
    for a build that is already coming. Shared through the runtime (``graph_builds``) because the pipeline
    is made before the sync."""

    def __init__(self) -> None:
        self.background = False
        """A background builder runs in this process (a serving replica with artifacts.background_graph_builds)."""
        self.due_at: float | None = None
        """When (time.monotonic) the scheduled build starts; None: none scheduled."""
        self.building = False
        self.waiting = ""
        """Why a stale graph gets no background build (a large graph whose only change is a delete)."""
        self.last_error = ""
        self.builds = 0
        """Background builds this process has run (published or found nothing to do) since it started."""
        self.last_seconds: float | None = None

    def state(self) -> str:
        if not self.background:
            return "off"
        if self.building:
            return "building"
        if self.due_at is not None:
            return "scheduled"
        return "waiting" if self.waiting else "idle"

    def catching_up(self) -> str:
        """How a graph behind the corpus catches up, for the graph stage's reason and `GET /v1/artifacts`."""
        manual = "run `kgrag graph build` (or POST /v1/graph/build)"
        if not self.background:
            return manual
        if self.last_error:
            return (f"the last background graph build failed ({self.last_error}); it is retried on the next upload, "
                    f"or {manual}")
        if self.building:
            return "a background graph build is running and publishes it"
        if self.due_at is not None:
            wait = max(self.due_at - time.monotonic(), 0.0)
            return f"a background graph build starts in {wait:.0f} s, once uploads pause"
        if self.waiting:
            return self.waiting
        return "a serving replica's background builder publishes it"


def graph_builds(rt: Runtime) -> GraphBuilds:
    """The process's one GraphBuilds for this runtime (see the class)."""
    return rt.shared("graph_builds", GraphBuilds)


class GraphRetriever:
    """Shared by all requests: the holder swaps graphs atomically, the linker and stores are read-only."""

    name = SIGNAL

    def __init__(self, holder: GraphHolder, linker: Callable[[], Linker], graph_store: GraphStore,
                 corpus_state: Callable[[], CorpusState], gone_chunk_ids: GoneChunks,
                 settings: GraphSettings,
                 embedder: Callable[[], Embedder] | None = None, builds: GraphBuilds | None = None) -> None:
        """``embedder`` (the dense retriever's model) weighs each hop by its link sentence (kg.search.weigh_hops);
        without one, candidates keep the traversal's order. ``builds``: this process's background graph builder,
        named in the reason a stale graph gives."""
        self.holder = holder
        self.builds = builds or GraphBuilds()
        self._embedder = embedder
        self._linker = linker
        self.graph_store = graph_store
        self._corpus_state = corpus_state
        self._gone_chunk_ids = gone_chunk_ids
        self.settings = settings

    def retrieve(self, query: Query) -> RetrievalResult:
        timings: dict[str, float] = {}
        t0 = time.perf_counter()
        try:
            graph = self.holder.current()
        except ArtifactRefusedError as exc:
            # The file's location stays in the server's log; what the client needs is why and the fix.
            log.warning("%s", exc)
            return RetrievalResult(SIGNAL, (), StageStatus(
                "skipped", "the graph file was built against another database and is not served: run "
                           "`kgrag graph build` against this one (or POST /v1/graph/build)"), timings)
        timings["load"] = time.perf_counter() - t0
        if graph is None:
            # The file's location is the server's business (`kgrag doctor` shows it); the fix is the same anywhere.
            return RetrievalResult(SIGNAL, (), StageStatus(
                "skipped", "no graph has been built yet: run `kgrag graph build` (or POST /v1/graph/build)"), timings)
        state = self._corpus_state()
        live = current_liveness(graph, state, self._gone_chunk_ids)  # None unless a delete took something
        status = self._freshness(graph, state.version, live)
        t1 = time.perf_counter()
        linker = self._linker()  # spaCy loads on the first graph query: a one-off cost, not linking
        timings["load"] += time.perf_counter() - t1
        t1 = time.perf_counter()
        linked = linker.link(query.text, graph)
        if live is not None:  # a deleted document's title or an entity only it named is no anchor
            linked = [e for e in linked if live.shows(e.index)]
        t2 = time.perf_counter()
        timings["link"] = t2 - t1
        explanation: dict[str, Any] = {
            "linked_entities": [_linked_json(e) for e in linked], "traversal": self.settings.traversal,
            "graph_corpus_version": graph.corpus_version, "stale": bool(status.reason),
        }
        if delta := graph.delta():  # served as a base with a delta laid over it (kg.delta)
            explanation["graph_base_version"] = delta["base_version"]
            explanation["graph_delta_chunks"] = delta["chunks"]
        if not linked:
            reason = "no entity in the question matched the graph"
            if status.reason:
                reason = f"{reason}; {status.reason}"
            return RetrievalResult(SIGNAL, (), StageStatus("ran", reason), timings, explanation, weight=0.0)
        weight, basis = fusion_weight(linked, self.settings)
        explanation["fusion_weight"] = {"weight": round(weight, 4), "basis": basis}
        # A chunk deleted since the build never scores (``live``, from the deletion log), so the SQL check
        # is needed only for filters, stale graph or not; the pipeline re-fetches chunks anyway.
        check = not query.filters.empty
        hits, documents = self._hits(graph, linked, query, timings, check=check, live=live)
        timings["total"] = time.perf_counter() - t0
        lead, shared = lead_tiers(linked, self.settings)
        lead = strong_tiers(tiers_in_hits(lead, documents), hits, self.settings.lead_min_share)
        explanation["fusion_weight"]["leads"] = min(max(lead, default=0), len(hits))
        if shared:
            explanation["fusion_weight"]["shared_with_agreement"] = shared
        return RetrievalResult(SIGNAL, hits, status, timings, explanation, weight=weight, lead=lead,
                               lead_shared=shared)

    def _freshness(self, graph: LoadedGraph, current: int, live: Liveness | None) -> StageStatus:
        if graph.corpus_version == current:
            return StageStatus.ran()
        hidden = (f"; {live.hidden_count:,} nodes of documents deleted since are hidden from it"
                  if live is not None else "")
        return StageStatus("ran", f"graph is stale (built at corpus version {graph.corpus_version}, the corpus is "
                                  f"now at {current}{hidden}): a graph build is pending; {self.builds.catching_up()}")

    def _hits(self, graph: LoadedGraph, linked: list[LinkedEntity], query: Query,
              timings: dict[str, float], *, check: bool,
              live: Liveness | None) -> tuple[tuple[Hit, ...], list[int]]:
        """The ranked hits, and each hit's document node in the same order (a chunk of no document node: a key
        of its own)."""
        t0 = time.perf_counter()
        limit = max(query.k, 1) * OVERFETCH
        while True:
            scored = score(graph, linked, traversal=self.settings.traversal, damping=self.settings.ppr_damping,
                           hops=self.settings.hops, limit=limit, mention_share=self.settings.mention_share,
                           live=live)
            t1 = time.perf_counter()
            chunk_ids = graph.chunk_ids_at(scored.chunk_columns).tolist()
            allowed = self._allowed(chunk_ids, query) if check else None
            t2 = time.perf_counter()
            keep = [(col, cid, s) for col, cid, s in zip(scored.chunk_columns.tolist(), chunk_ids,
                                                          scored.chunk_scores.tolist(), strict=True)
                    if allowed is None or cid in allowed][: query.k]
            if len(keep) >= query.k or len(chunk_ids) < limit or limit >= graph.chunk_count:
                break
            limit = graph.chunk_count  # a narrow filter: look at every reached chunk once
        if self._embedder is not None and self.settings.hop_evidence_weight > 0:
            ids = {col: cid for col, cid, _ in keep}
            memo = self._sentence_vectors(graph)
            weighed = weigh_hops(graph, linked, [col for col, _, _ in keep], [s for _, _, s in keep],
                                 self._similarity(memo, query), weight=self.settings.hop_evidence_weight,
                                 limit=self.settings.hop_sentences, stored=memo.stored)
            keep = [(col, ids[col], s) for col, s in weighed]
        t3 = time.perf_counter()
        why = explain(graph, linked, scored, [col for col, _, _ in keep])
        hits = tuple(
            Hit(chunk_id=cid, signal=SIGNAL, rank=rank, score=s, explanation={
                "entities": list(why[col].entities), "path": list(why[col].path),
                "relations": list(why[col].relations), "evidence": list(why[col].evidence),
                "chain": chain_text(why[col].path, why[col].relations),
            })
            for rank, (col, cid, s) in enumerate(keep, 1)
        )
        timings.update({"traverse": t1 - t0, "filter": t2 - t1, "hops": t3 - t2, "explain": time.perf_counter() - t3})
        documents = [home if (home := graph.home_of_chunk(col)) >= 0 else -1 - col for col, _, _ in keep]
        return hits, documents


    def _sentence_vectors(self, graph: LoadedGraph) -> SentenceVectors:
        """The served graph's link-sentence vectors: those its build stored for this model, and a memo of
        any sentence a query had to embed itself (a graph built without them, or by another model)."""
        assert self._embedder is not None
        embedder = self._embedder()
        stamp = embedder.stamp
        return graph.derived(f"sentence_vectors:{stamp}", lambda g: SentenceVectors(
            SENTENCE_MEMO, stored=g.link_vectors_for(stamp)))

    def _similarity(self, memo: SentenceVectors, query: Query) -> Similarity:
        """Cosine similarity of link sentences to the question.

        The question's vector is the request's own (dense made it, or will reuse it: one forward pass per
        question, not two); a sentence's vector is the build's, or embedded once per served graph."""
        assert self._embedder is not None
        embedder = self._embedder()

        def similarity(sentences: Sequence[str]) -> np.ndarray:
            question = query.vector.get(lambda: embedder.encode_query(query.text))
            return memo.vectors(sentences, embedder.encode_now) @ question

        return similarity

    def _allowed(self, chunk_ids: list[int], query: Query) -> set[int]:
        where, params = filters_sql(query.filters)
        return self.graph_store.allowed_chunks(chunk_ids, where, params)


SENTENCE_MEMO = 20_000
"""Link-sentence vectors kept per served graph (384 floats each: about 30 MB)."""


class SentenceVectors:
    """Sentence → unit vector for one served graph and model: the build's stored vectors, then a bounded,
    thread-safe memo of the sentences queries embedded themselves.

    It lives in the graph's ``derived`` values, so a new build starts empty and no request's text is
    kept beyond what the graph itself holds (link sentences are graph data)."""

    def __init__(self, size: int, *, stored: Mapping[str, np.ndarray] | None = None) -> None:
        self._size = size
        self.stored: Mapping[str, np.ndarray] = stored if stored is not None else {}
        self._lock = threading.Lock()
        self._vectors: OrderedDict[str, np.ndarray] = OrderedDict()

    def vectors(self, sentences: Sequence[str], encode: Callable[[list[str]], np.ndarray]) -> np.ndarray:
        known = {s: np.asarray(v, dtype=np.float32) for s in sentences if (v := self.stored.get(s)) is not None}
        with self._lock:
            for s in sentences:
                if s not in known and (v := self._vectors.get(s)) is not None:
                    known[s] = v
                    self._vectors.move_to_end(s)
        missing = sorted({s for s in sentences if s not in known})
        if missing:
            made = encode(missing)
            made = made / np.maximum(np.linalg.norm(made, axis=1, keepdims=True), 1e-12)
            with self._lock:
                for s, v in zip(missing, made, strict=True):
                    known[s] = self._vectors[s] = v
                while len(self._vectors) > self._size:
                    self._vectors.popitem(last=False)
        return np.stack([known[s] for s in sentences])


MIN_TITLE_CONFIDENCE = 0.1
"""specificity² below this (a title some nine or more documents write as a plain phrase, e.g. "anxiety")
is no anchor: such a link weighs as an entity link."""


def fusion_weight(linked: list[LinkedEntity], settings: GraphSettings) -> tuple[float, str]:
    """How much the graph's list should count in fusion for this question, and why.

    A document title written in the question is a precise anchor, so the list weighs
    ``title_fusion_weight`` times the square of that link's specificity (times its case evidence):
    a rare title ("Lothair II", written by one document) weighs in full, a title that dozens of
    documents write as a plain word ("Anxiety") hardly at all. With only entity links (often common
    words or fuzzy matches of the small NER model) it weighs ``entity_fusion_weight`` times the best
    link's confidence, by default nothing: on SciFact any weight above zero lowered nDCG@10. A title
    link below ``MIN_TITLE_CONFIDENCE`` counts as an entity link. No dataset knowledge: the weight
    follows from what linked.
    """
    confidence = title_confidence(linked)
    if confidence >= MIN_TITLE_CONFIDENCE:
        return settings.title_fusion_weight * confidence, "title"
    return settings.entity_fusion_weight * min(1.0, max(e.score for e in linked)), "entities"


def title_confidence(linked: list[LinkedEntity]) -> float:
    """How precisely the question names a document: the best title link's score times its specificity²
    (at most 1; 0 without a title link)."""
    return min(1.0, max((e.score * e.specificity ** 2 for e in linked if e.how == TITLE), default=0.0))


def lead_tiers(linked: list[LinkedEntity], settings: GraphSettings) -> tuple[tuple[int, ...], int]:
    """The graph's leading tiers in the fused list (retrieval.fusion.lead_with), and how far it shares its
    first tier with what dense and BM25 agree on (0: not at all).

    A title at most two documents write (confidence ``lead_confidence``) leads alone: dense and BM25
    agreeing on a namesake are the failure the lead exists for. A title more documents write still
    leads, but is less sure of its second hop, so a passage both other lists rank in their first
    ``lead_shared_top`` joins its first tier (on the examples golden set the graph's second hit from
    such a title was a neighbour, and the others agreed on the answer). No title link: no lead.
    """
    confidence = title_confidence(linked)
    tiers = tuple(settings.lead_tiers)
    if not tiers or confidence < MIN_TITLE_CONFIDENCE:
        return (), 0
    if confidence >= settings.lead_confidence:
        return tiers, 0
    return (tiers, settings.lead_shared_top) if settings.lead_shared_top else ((), 0)


def tiers_in_hits(tiers: tuple[int, ...], documents: Sequence[int]) -> tuple[int, ...]:
    """Tiers counted in documents, as hit counts: tier n ends before the hit of the (n+1)-th document.

    The graph scores every chunk of a document it reached alike (home scoring), so its list runs in
    blocks of one document's chunks; counted in chunks, "the first 2" was often one long document
    twice and the chain's second document never led (on 2Wiki, a passage of five chunks)."""
    seen: set[int] = set()
    starts = [i for i, d in enumerate(documents) if not (d in seen or seen.add(d))]
    return tuple(starts[n] if n < len(starts) else len(documents) for n in tiers)


def strong_tiers(tiers: tuple[int, ...], hits: Sequence[Hit], min_share: float) -> tuple[int, ...]:
    """The tiers after the first, cut where the graph's scores fall below ``min_share`` of its best hit.

    The first hits of a chain from a named document are its two ends; what follows thins out, and a
    hit with a small share of the best one's relevance mass is no surer than dense's or BM25's first
    hits (on 2Wiki without titles, passages found by their opening subject, it pushed them out)."""
    if not tiers or not hits:
        return tiers
    best = hits[0].score
    strong = next((i for i, h in enumerate(hits) if h.score < min_share * best), len(hits))
    return (tiers[0], *(max(tiers[0], min(n, strong)) for n in tiers[1:]))


def chain_text(path: tuple[str, ...] | list[str], relations: tuple[str, ...] | list[str]) -> str:
    """'question → "Lothair II" → mentions "Ermengarde of Tours"': the chain as a person reads it."""
    if not path:
        return ""
    steps = [f'question → "{path[0]}"']
    steps += [f'{rel or "related to"} "{name}"' for rel, name in zip(relations, path[1:], strict=True)]
    return " → ".join(steps)


def _linked_json(e: LinkedEntity) -> dict[str, Any]:
    return {"name": e.name, "matched": e.matched, "how": e.how, "score": round(e.score, 4)}


class _LazyLinker:
    """spaCy loads on the first graph query, not when the pipeline is built (the CLI's --help stays fast)."""

    def __init__(self, settings: GraphSettings, nlp: Callable[[], Any]) -> None:
        self.settings = settings
        self._nlp = nlp
        self._lock = threading.Lock()
        self._linker: Linker | None = None

    def __call__(self) -> Linker:
        if self._linker is None:
            with self._lock:
                if self._linker is None:
                    self._linker = Linker(self._nlp(), labels=self.settings.entity_labels,
                                          fuzzy_threshold=self.settings.fuzzy_threshold)
        return self._linker


def build_graph_retriever(rt: Runtime) -> GraphRetriever:
    """The pipeline's factory hook: the runtime's graph holder and spaCy pipeline. A missing graph file
    is not an error here: retrieve() reports it."""
    settings = rt.settings
    return GraphRetriever(graph_holder(rt), _LazyLinker(settings.graph, rt.spacy),
                          GraphStore(rt.db), rt.store.corpus_state, rt.store.gone_chunk_ids, settings.graph,
                          embedder=rt.checked_embedder, builds=graph_builds(rt))
