"""The query pipeline: retrievers in parallel → reciprocal rank fusion → cross-encoder rerank.

Built once per process (``build_pipeline``) and shared by every request: it owns the thread
pool and long-lived retrievers, and each run() keeps everything about its query in locals and
returns a fresh frozen result, so concurrent queries cannot see each other's state. Every
requested signal and the rerank stage get a status; a retriever that raises fails alone, and the
query goes on with the rest.

Optional LLM stages (retrieval.decompose, retrieval.hyde; retrieval/expand.py) add queries: each
runs through the same retrievers, and its lists ("dense@sub1", "bm25@hyde") join the fusion.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from kgrag.core.errors import InvalidInputError, KgragError, RetrievalFailedError
from kgrag.core.priority import QueryActivity
from kgrag.core.runtime import Runtime
from kgrag.core.settings import Settings
from kgrag.core.store import Store
from kgrag.core.types import ChunkRecord, Filters, Hit
from kgrag.kg.subjects import passage_subject, stand_in_title
from kgrag.retrieval.answer.base import TextModel
from kgrag.retrieval.base import Query, QueryVector, RetrievalResult, Retriever, StageStatus
from kgrag.retrieval.bm25 import BM25Retriever, index_behind
from kgrag.retrieval.dense import DenseRetriever
from kgrag.retrieval.expand import ExtraQuery, enabled_stages, require_llm, stage_queries
from kgrag.retrieval.fusion import FusedHit, agreed, keep_dense_evidence, lead_with, reciprocal_rank_fusion
from kgrag.retrieval.graph import build_graph_retriever
from kgrag.retrieval.rerank import Reranker, RerankerUnavailable
from kgrag.retrieval.results import RERANK, PassageHit, PipelineResult

log = logging.getLogger(__name__)

KNOWN_SIGNALS = ("dense", "bm25", "graph")
READ_ATTEMPTS = 5
"""Reads of the retrievers per query when writes keep landing between a read and the chunk fetch (see run)."""


class QueryPipeline:
    def __init__(
        self,
        store: Store,
        settings: Settings,
        retrievers: Mapping[str, Retriever],
        *,
        unavailable: Mapping[str, StageStatus] | None = None,
        reranker: Reranker | None = None,
        default_signals: Sequence[str] | None = None,
        max_workers: int = 8,
        llm: TextModel | None = None,
        executor: ThreadPoolExecutor | None = None,
        activity: QueryActivity | None = None,
    ) -> None:
        """``default_signals``: what a query gets when it names none (default settings.retrieval.signals).
        ``llm``: writes the extra queries of the enabled query stages (required when one is enabled).
        ``executor``: another pipeline's threads, to share (the pipelines of a process's workspaces: the
        threads that run the models are the process's, however many workspaces it serves); its owner
        shuts it down.
        ``activity``: where each run counts itself in flight, so ingestion in this process waits (core.priority)."""
        self.activity = activity or QueryActivity()
        self.stages = enabled_stages(settings)
        if self.stages and llm is None:
            raise ValueError(f"query stages {self.stages} need an llm (build_pipeline refuses with the fix)")
        self.llm = llm
        self.store = store
        self.default_signals = tuple(default_signals or settings.retrieval.signals)
        self.settings = settings
        self.retrievers = dict(retrievers)
        self.unavailable = dict(unavailable or {})
        self.reranker = reranker
        self._owns_executor = executor is None
        self._executor = executor or ThreadPoolExecutor(max_workers=max_workers, thread_name_prefix="kgrag-retrieve")

    @property
    def executor(self) -> ThreadPoolExecutor:
        return self._executor

    def warm(self) -> None:
        """Load what the first query would otherwise wait for (call it at API startup).

        A reranker that cannot be loaded is not an error here: its remembered reason is what
        every query's rerank status reports.
        """
        for retriever in self.retrievers.values():
            warm = getattr(retriever, "warm", None)
            if callable(warm):
                warm()
        if self.reranker is not None:
            with contextlib.suppress(RerankerUnavailable):
                self.reranker.load()

    def close(self) -> None:
        if self._owns_executor:
            self._executor.shutdown(wait=True)

    def __enter__(self) -> QueryPipeline:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def run(
        self,
        question: str,
        *,
        signals: Sequence[str] | None = None,
        top_k: int | None = None,
        filters: Filters | None = None,
        rerank: bool = True,
    ) -> PipelineResult:
        """``rerank=False`` skips the cross-encoder for this query (its status says so)."""
        with self.activity.query():
            return self._run(question, signals=signals, top_k=top_k, filters=filters, rerank=rerank)

    def _run(self, question: str, *, signals: Sequence[str] | None, top_k: int | None, filters: Filters | None,
             rerank: bool) -> PipelineResult:
        t0 = time.perf_counter()
        wanted = self._check(question, signals, top_k)
        top_k = top_k or self.settings.retrieval.top_k
        filters = filters or Filters()
        stage_futures = {stage: self._executor.submit(_timed_stage, stage, self.llm, question, self.settings)
                         for stage in self.stages if self.llm is not None}
        version = self._corpus_version()
        results = self._retrieve_all(question, wanted, filters)
        _raise_if_all_failed(results, database_down=not self.store.db.available)
        timings: dict[str, float] = {}
        stage_statuses: dict[str, StageStatus] = {}
        stage_explanations: dict[str, dict[str, Any]] = {}
        extra_queries: list[ExtraQuery] = []
        for stage, future in stage_futures.items():
            queries, status, elapsed = future.result()
            timings[stage] = elapsed
            stage_statuses[stage] = status
            stage_explanations[stage] = {"queries": {q.label: q.text for q in queries}}
            extra_queries.extend(queries)
        extra_results = self._retrieve_extra(extra_queries, wanted, filters)
        for attempt in range(1, READ_ATTEMPTS + 1):
            t1 = time.perf_counter()
            ranked = {s: r.hits for s, (r, _) in {**results, **extra_results}.items() if r.status.state == "ran"}
            weights = fusion_weights(self.settings.retrieval.weights,
                                     {s: r for s, (r, _) in {**results, **extra_results}.items() if s in ranked})
            fused = reciprocal_rank_fusion(ranked, k=self.settings.retrieval.rrf_k, weights=weights)
            tiers = leading_tiers(ranked, {s: r for s, (r, _) in results.items() if s in ranked})
            fused = keep_dense_evidence(lead_with(fused, tiers), ranked, tiers,
                                        first=self.settings.retrieval.keep_dense_first,
                                        agreed_top=self.settings.retrieval.keep_agreed_top,
                                        top=self.settings.retrieval.top_k)
            t2 = time.perf_counter()
            chunks = self.store.chunks([h.chunk_id for h in fused])
            live = [h for h in fused if h.chunk_id in chunks]  # deleted since the index was read
            t3 = time.perf_counter()
            if len(live) == len(fused) or attempt == READ_ATTEMPTS:
                break
            now = self._corpus_version()
            if now is None or now == version:
                break  # an index older than the corpus (the BM25 stage says so); reading again changes nothing
            # A write committed between the retrievers' reads and this fetch (a document replaced: its old
            # chunks gone, the new ones not yet seen): read again, so the query sees the new version.
            log.debug("corpus moved from version %s to %s during a query; reading again", version, now)
            version = now
            results = self._retrieve_all(question, wanted, filters)
            _raise_if_all_failed(results, database_down=not self.store.db.available)
            extra_results = self._retrieve_extra(extra_queries, wanted, filters)
        fused = live
        for signal, (result, elapsed) in {**results, **extra_results}.items():
            timings[signal] = elapsed
            timings.update({f"{signal}.{name}": secs for name, secs in result.timings.items()})
        final, rerank_status = self._rerank(question, fused, chunks, top_k, rerank, timings)
        t4 = time.perf_counter()
        timings.update({"fusion": t2 - t1, "fetch": t3 - t2, RERANK: t4 - t3, "total": t4 - t0})
        statuses = {s: r.status for s, (r, _) in results.items()}
        statuses.update(stage_statuses)
        statuses[RERANK] = rerank_status
        subjects = self._subjects([chunks[h.chunk_id] for h, _ in final])
        hits = tuple(_passage(i, h, chunks[h.chunk_id], score, subjects.get(chunks[h.chunk_id].document_id))
                     for i, (h, score) in enumerate(final, 1))
        explanations = {s: r.explanation for s, (r, _) in results.items() if r.explanation}
        explanations.update(stage_explanations)
        hit_counts = {s: len(r.hits) for s, (r, _) in {**results, **extra_results}.items()}
        empty = not hits and self.store.is_empty()
        return PipelineResult(question, wanted, hits, statuses, timings, explanations, hit_counts, tuple(ranked),
                              weights, corpus_empty=empty)

    def _subjects(self, chunks: Sequence[ChunkRecord]) -> dict[int, str]:
        """What each hit's document is called in prose. A document stored with no title of its own (the file
        name stands in) is named by the subject its text opens with, so an answer can still say whose "its"
        is; its first chunk is read for that when it is not among the hits."""
        untitled = {c.document_id: c for c in chunks if stand_in_title(c.title, c.source)}
        openings = {d: c.text for d, c in untitled.items() if c.position == 0}
        missing = [d for d in untitled if d not in openings]
        if missing:
            try:
                openings.update(self.store.document_openings(missing))
            except KgragError:
                log.warning("could not read the openings of %d untitled documents; answers use their file names",
                            len(missing))
        return {c.document_id: passage_subject(c.title, c.source, openings.get(c.document_id, ""))
                for c in chunks if c.document_id not in untitled or c.document_id in openings}

    def _corpus_version(self) -> int | None:
        """None when the database cannot say (an outage): the query goes on, reporting what it can."""
        try:
            return self.store.corpus_version()
        except KgragError:
            return None

    def _check(self, question: str, signals: Sequence[str] | None, top_k: int | None) -> tuple[str, ...]:
        if not question.strip():
            raise InvalidInputError("the question is empty", fix="ask something, e.g. kgrag query \"who founded X?\"")
        if top_k is not None and top_k < 1:
            raise InvalidInputError(f"top_k must be at least 1 (got {top_k})", fix="pass --top-k 5")
        wanted = tuple(dict.fromkeys(signals or self.default_signals))
        unknown = [s for s in wanted if s not in KNOWN_SIGNALS]
        if unknown or not wanted:
            raise InvalidInputError(f"unknown signals {unknown or '(none given)'}",
                                    fix=f"choose from {','.join(KNOWN_SIGNALS)}, e.g. --signals dense,bm25")
        return wanted

    def _retrieve_all(self, question: str, wanted: tuple[str, ...], filters: Filters
                      ) -> dict[str, tuple[RetrievalResult, float]]:
        futures: dict[str, Future[tuple[RetrievalResult, float]]] = {}
        out: dict[str, tuple[RetrievalResult, float]] = {}
        vector = QueryVector()  # this request's question embedding, made once for dense and the graph
        for signal in wanted:
            retriever = self.retrievers.get(signal)
            if retriever is None:
                status = self.unavailable.get(signal) or StageStatus(
                    "skipped", f"the {signal} retriever is not enabled in this pipeline")
                out[signal] = (RetrievalResult(signal, (), status), 0.0)
                continue
            query = Query(question, filters, self._candidates(signal), vector)
            futures[signal] = self._executor.submit(_timed_retrieve, signal, retriever, query)
        for signal, future in futures.items():
            out[signal] = future.result()
        return {s: out[s] for s in wanted}

    def _retrieve_extra(self, queries: Sequence[ExtraQuery], wanted: tuple[str, ...], filters: Filters
                        ) -> dict[str, tuple[RetrievalResult, float]]:
        """Every extra query through every available retriever, in parallel; a failure drops only its list."""
        vectors = {q.label: QueryVector() for q in queries}  # one embedding per extra query, as for the question
        futures = {
            f"{signal}@{q.label}": self._executor.submit(
                _timed_retrieve, signal, self.retrievers[signal],
                Query(q.text, filters, self._candidates(signal), vectors[q.label]))
            for q in queries for signal in wanted if signal in self.retrievers
        }
        return {name: future.result() for name, future in futures.items()}

    def _candidates(self, signal: str) -> int:
        r = self.settings.retrieval
        return {"dense": r.dense_candidates, "bm25": r.bm25_candidates}.get(signal, self.settings.graph.candidates)

    def _rerank(self, question: str, fused: list[FusedHit], chunks: Mapping[int, ChunkRecord], top_k: int,
                wanted: bool, timings: dict[str, float]) -> tuple[list[tuple[FusedHit, float | None]], StageStatus]:
        plain: list[tuple[FusedHit, float | None]] = [(h, None) for h in fused[:top_k]]
        if not wanted:
            return plain, StageStatus("skipped", "reranking turned off for this query (--no-rerank)")
        if self.reranker is None:
            return plain, StageStatus("skipped", "reranking is disabled (KGRAG_RERANK__ENABLED=false)")
        if not fused:
            return plain, StageStatus("skipped", "no candidates to rerank")
        pool = fused[: self.settings.rerank.candidates]
        t0 = time.perf_counter()
        with contextlib.suppress(RerankerUnavailable):  # score() reports it; the load is timed apart
            self.reranker.load()
        timings[f"{RERANK}.load"] = time.perf_counter() - t0
        outcome = self.reranker.score(question, [_rerank_text(chunks[h.chunk_id]) for h in pool])
        if outcome.status.state != "ran":
            return plain, outcome.status
        # Stable sort on the score alone: equal scores keep their fused order.
        order = sorted(range(len(pool)), key=lambda i: -outcome.scores[i])
        return [(pool[i], outcome.scores[i]) for i in order[:top_k]], outcome.status


def fusion_weights(configured: Mapping[str, float], results: Mapping[str, RetrievalResult]) -> dict[str, float]:
    """Each list's configured weight (its signal's, default 1; "graph@hyde" is a graph list), scaled by the
    confidence its retriever reported for this query."""
    return {s: configured.get(s.split("@", 1)[0], 1.0) * (1.0 if r.weight is None else r.weight)
            for s, r in results.items()}


def leading_tiers(ranked: Mapping[str, Sequence[Hit]], results: Mapping[str, RetrievalResult]) -> list[list[Hit]]:
    """The tiers lead_with puts first: each leading list's first hits by its ``lead``; a leader that is not
    sure (``lead_shared``) shares its first tier with what the other lists agree on."""
    tiers: list[list[Hit]] = []
    for signal, result in results.items():
        for depth, n in enumerate(result.lead):
            tier = list(result.hits[:n])
            if depth == 0 and result.lead_shared:
                tier += agreed(ranked, signal, result.lead_shared)
            tiers.append(tier)
    return tiers


def _timed_retrieve(signal: str, retriever: Retriever, query: Query) -> tuple[RetrievalResult, float]:
    """Runs on a pool thread: any exception becomes this signal's failed status, not the query's.

    The status reaches clients, so it carries only our own messages: a driver's or library's text
    (server paths, SQL, socket names) stays in the log."""
    t0 = time.perf_counter()
    try:
        result = retriever.retrieve(query)
    except KgragError as exc:
        log.warning("%s retriever failed: %s", signal, exc, exc_info=exc.__cause__ is not None)
        result = RetrievalResult(signal, (), StageStatus("failed", f"{signal} retriever failed: {exc}"))
    except Exception as exc:
        log.exception("%s retriever raised %s", signal, type(exc).__name__)
        result = RetrievalResult(signal, (), StageStatus(
            "failed", f"{signal} retriever failed unexpectedly ({type(exc).__name__}); the server log has the details"))
    return result, time.perf_counter() - t0


def _timed_stage(stage: str, llm: TextModel, question: str, settings: Settings
                 ) -> tuple[list[ExtraQuery], StageStatus, float]:
    """Runs on a pool thread: an LLM failure fails this stage alone; the question's own lists still count."""
    t0 = time.perf_counter()
    try:
        queries = stage_queries(stage, llm, question, settings)
        status = StageStatus.ran() if queries else StageStatus("ran", f"{llm.name} gave no {stage} queries")
    except Exception as exc:
        message = str(exc) if isinstance(exc, KgragError) else f"{type(exc).__name__}: {exc}"
        queries, status = [], StageStatus("failed", f"{stage} failed: {message}")
    return queries, status, time.perf_counter() - t0


def _raise_if_all_failed(results: Mapping[str, tuple[RetrievalResult, float]], *, database_down: bool) -> None:
    """Every retriever that tried failed: no evidence was looked at, so neither an answer nor a refusal."""
    statuses = {s: r.status for s, (r, _) in results.items()}
    tried = {s: st for s, st in statuses.items() if st.state != "skipped"}
    if not tried or any(st.state != "failed" for st in tried.values()):
        return
    outage = database_down
    raise RetrievalFailedError(
        f"every retriever failed ({', '.join(tried)})" + ("; the database is unavailable" if outage else ""),
        fix="retry shortly; if it persists, check `kgrag doctor` and the server log" if outage
        else "check `kgrag doctor` and the server log, or ask with other --signals",
        details={"stages": {s: {"state": st.state, "reason": st.reason} for s, st in statuses.items()}},
    )


def _rerank_text(chunk: ChunkRecord) -> str:
    """The title gives the cross-encoder the subject a mid-document chunk may never name."""
    return f"{chunk.title}\n{chunk.text}" if chunk.title else chunk.text


def _passage(rank: int, hit: FusedHit, chunk: ChunkRecord, rerank_score: float | None,
             subject: str | None) -> PassageHit:
    return PassageHit(
        rank=rank, chunk_id=chunk.id, document_id=chunk.document_id, text=chunk.text, source=chunk.source,
        title=chunk.title, page=chunk.page, fused_score=hit.score, ranks=dict(hit.ranks),
        scores=dict(hit.scores), rerank_score=rerank_score, explanations=dict(hit.explanations),
        position=chunk.position, subject=subject,
    )


# -- factory ----------------------------------------------------------------------------------------
def build_pipeline(rt: Runtime, *, signals: Sequence[str] | None = None, max_workers: int = 8,
                   builder: bool = False, executor: ThreadPoolExecutor | None = None) -> QueryPipeline:
    """Retrievers for ``signals`` (default: settings.retrieval.signals). Build only what queries
    will ask for: the graph retriever may load spaCy and a graph file.

    ``builder``: this process builds a missing or stale BM25 index itself before its first search (the
    CLI, eval runs). A serving replica leaves it off: its sync thread loads what builders publish, and
    the runtime's IndexBehind tells its background builder that the corpus moved past the index.
    """
    settings = rt.settings
    wanted = tuple(signals or settings.retrieval.signals)
    retrievers: dict[str, Retriever] = {}
    unavailable: dict[str, StageStatus] = {}
    if "dense" in wanted:
        retrievers["dense"] = DenseRetriever(rt.db, rt.checked_embedder, settings.retrieval)
    if "bm25" in wanted:
        retrievers["bm25"] = BM25Retriever(rt.store, settings.retrieval, settings.index_dir, rt.artifacts,
                                           on_stale=index_behind(rt).notice, build_missing=builder)
    if "graph" in wanted:
        graph, status = _graph_retriever(rt)
        if graph is not None:
            retrievers["graph"] = graph
        else:
            unavailable["graph"] = status
    # one cross-encoder per process, whatever the workspace: it holds no corpus
    reranker = (rt.model(("reranker", settings.rerank.model_dump_json(), settings.embedding.device),
                         lambda: Reranker(settings.rerank, device=settings.embedding.device))
                if settings.rerank.enabled else None)
    return QueryPipeline(rt.store, settings, retrievers, unavailable=unavailable, reranker=reranker,
                         default_signals=wanted, max_workers=max_workers, llm=require_llm(settings),
                         executor=executor, activity=rt.activity)


def _graph_retriever(rt: Runtime) -> tuple[Retriever | None, StageStatus]:
    """A graph retriever that cannot be built is a stage status, not a failed pipeline."""
    try:
        return build_graph_retriever(rt), StageStatus.ran()
    except KgragError as exc:
        return None, StageStatus("skipped", f"graph retriever unavailable: {exc}")
    except Exception as exc:
        log.exception("the graph retriever could not be built")
        return None, StageStatus("failed", f"graph retriever could not be built ({type(exc).__name__}); "
                                           "the server log has the details")
