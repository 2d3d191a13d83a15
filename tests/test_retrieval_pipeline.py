"""The query pipeline on the real store: fusion, statuses, timings, failure isolation, concurrency."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from kgrag.core.errors import InvalidInputError, KgragError, RetrievalFailedError
from kgrag.core.models import Embedder
from kgrag.core.runtime import Runtime
from kgrag.core.types import Filters
from kgrag.retrieval import pipeline as pipeline_module
from kgrag.retrieval.base import Query, RetrievalResult
from kgrag.retrieval.bm25 import load_index
from kgrag.retrieval.pipeline import QueryPipeline, build_pipeline
from kgrag.retrieval.results import PipelineResult

from tests.retrieval_corpus import (
    BEES_QUERY,
    PARAPHRASE_DOC,
    PARAPHRASE_QUERY,
    RARE_TERM_DOC,
    RARE_TERM_QUERY,
    SCIFACT,
    corpus_runtime,
)


@pytest.fixture(scope="module")
def corpus_rt(pg_server: str, embedder: Embedder, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Runtime]:
    with corpus_runtime(pg_server, embedder, tmp_path_factory.mktemp("pipeline")) as rt:
        yield rt


@pytest.fixture(scope="module")
def pipe(corpus_rt: Runtime) -> Iterator[QueryPipeline]:
    with build_pipeline(corpus_rt, signals=("dense", "bm25")) as p:
        yield p


class Exploding:
    """A retriever that always raises: the pipeline must carry on without it."""

    name = "graph"

    def retrieve(self, query: Query) -> RetrievalResult:
        raise RuntimeError("graph file is corrupt")


def test_fusion_lifts_a_chunk_that_both_signals_rank(pipe: QueryPipeline) -> None:
    dense = pipe.retrievers["dense"].retrieve(Query(BEES_QUERY, k=20)).hits
    bm25 = pipe.retrievers["bm25"].retrieve(Query(BEES_QUERY, k=20)).hits
    fused = pipe.run(BEES_QUERY, rerank=False, top_k=20).hits
    position = {h.chunk_id: h.rank for h in fused}
    d_rank = {h.chunk_id: h.rank for h in dense}
    b_rank = {h.chunk_id: h.rank for h in bm25}
    # A chunk both lists rank ends above a chunk that one list ranked better than either of its ranks.
    lifts = [(c, v) for c in set(d_rank) & set(b_rank) for v in set(d_rank) ^ set(b_rank)
             if {**d_rank, **b_rank}[v] < min(d_rank[c], b_rank[c]) and c in position
             and position[c] < position.get(v, 10**9)]
    assert lifts
    for hit in fused:  # every fused hit keeps each signal's rank and score
        assert hit.ranks == {s: r[hit.chunk_id] for s, r in (("dense", d_rank), ("bm25", b_rank))
                             if hit.chunk_id in r}
    assert fused[0].ranks.keys() == {"dense", "bm25"}


def test_result_carries_passages_statuses_and_timings(pipe: QueryPipeline) -> None:
    result = pipe.run(PARAPHRASE_QUERY, rerank=False)
    assert result.signals == ("dense", "bm25")
    assert len(result.hits) == 5 and [h.rank for h in result.hits] == [1, 2, 3, 4, 5]
    top = result.hits[0]
    assert top.source == PARAPHRASE_DOC[0] and top.title == PARAPHRASE_DOC[1] and top.text == PARAPHRASE_DOC[2]
    assert top.page is None and top.document_id > 0 and top.rerank_score is None
    assert top.ranks == {"dense": 1} and top.fused_score == pytest.approx(1 / 61)
    assert top.scores["dense"] > 0.3
    assert set(result.statuses) == {"dense", "bm25", "rerank"}
    assert result.statuses["dense"].state == result.statuses["bm25"].state == "ran"
    for stage in ("dense", "dense.embed", "dense.search", "bm25", "bm25.search", "fusion", "rerank", "total"):
        assert result.timings[stage] >= 0, stage
    assert result.timings["total"] >= result.timings["dense"]


def test_signals_are_selectable_per_query(pipe: QueryPipeline) -> None:
    result = pipe.run(RARE_TERM_QUERY, signals=["bm25"], rerank=False)
    assert set(result.statuses) == {"bm25", "rerank"}
    assert [h.source for h in result.hits] == [RARE_TERM_DOC[0]]
    assert "dense" not in result.timings
    graph = pipe.run(RARE_TERM_QUERY, signals=["graph", "bm25"], rerank=False)
    assert graph.statuses["graph"].state == "skipped"
    assert "not enabled" in graph.statuses["graph"].reason
    assert [h.source for h in graph.hits] == [RARE_TERM_DOC[0]]


def test_filters_reach_every_retriever(pipe: QueryPipeline) -> None:
    result = pipe.run(BEES_QUERY, filters=Filters(metadata=(("corpus", "scifact"),)), rerank=False, top_k=10)
    assert len(result.hits) == 10
    assert all(h.source.startswith("scifact/") for h in result.hits)
    assert any("bm25" in h.ranks for h in result.hits) and any("dense" in h.ranks for h in result.hits)


def test_a_failing_retriever_does_not_sink_the_query(corpus_rt: Runtime, pipe: QueryPipeline) -> None:
    with QueryPipeline(corpus_rt.store, corpus_rt.settings,
                       {"dense": pipe.retrievers["dense"], "graph": Exploding()}) as broken:
        result = broken.run(PARAPHRASE_QUERY, rerank=False)
    assert result.statuses["graph"].state == "failed"
    reason = result.statuses["graph"].reason
    assert reason == "graph retriever failed unexpectedly (RuntimeError); the server log has the details"
    assert "corrupt" not in reason, "an exception's own text (paths, driver messages) stays in the server log"
    assert result.statuses["dense"].state == "ran"
    assert result.hits[0].source == PARAPHRASE_DOC[0]
    assert f"graph failed: {reason}" in result.warnings


def test_every_retriever_failing_is_an_error_not_a_refusal(corpus_rt: Runtime) -> None:
    with QueryPipeline(corpus_rt.store, corpus_rt.settings, {"graph": Exploding(), "bm25": Exploding()}) as broken, \
            pytest.raises(RetrievalFailedError) as err:
        broken.run(PARAPHRASE_QUERY, signals=["graph", "bm25"], rerank=False)
    assert err.value.status_code == 503
    assert set(err.value.details["stages"]) == {"graph", "bm25"}
    assert "every retriever failed (graph, bm25)" in err.value.message and err.value.fix


def test_graph_signal_is_skipped_with_a_reason_when_it_cannot_be_built(
    corpus_rt: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    def unavailable(rt: Runtime) -> None:
        raise KgragError("the spaCy model is not installed", fix="install it")

    monkeypatch.setattr(pipeline_module, "build_graph_retriever", unavailable)
    with build_pipeline(corpus_rt, signals=("bm25", "graph")) as p:
        result = p.run(RARE_TERM_QUERY, signals=("bm25", "graph"), rerank=False)
    assert result.statuses["graph"].state == "skipped"
    assert "the spaCy model is not installed" in result.statuses["graph"].reason
    assert [h.source for h in result.hits] == [RARE_TERM_DOC[0]]


def test_graph_signal_reports_its_own_status_without_a_graph(corpus_rt: Runtime) -> None:
    with build_pipeline(corpus_rt) as p:
        result = p.run(RARE_TERM_QUERY, rerank=False)
    assert result.signals == ("dense", "bm25", "graph")
    assert result.statuses["graph"].state != "ran" and result.statuses["graph"].reason
    assert RARE_TERM_DOC[0] in [h.source for h in result.hits[:2]]  # BM25's first ties dense's first


def test_warm_builds_the_bm25_index_before_the_first_query(corpus_rt: Runtime, tmp_path: Path) -> None:
    settings = corpus_rt.settings.model_copy(update={"home": tmp_path / "home"})
    with Runtime(settings, embedder=corpus_rt.embedder) as rt, build_pipeline(rt, signals=("bm25",)) as p:
        assert load_index(settings.index_dir / "bm25") is None
        p.warm()
        index = load_index(settings.index_dir / "bm25")
        assert index is not None and index.corpus_version == rt.store.corpus_version()


def test_invalid_requests_are_refused(pipe: QueryPipeline) -> None:
    with pytest.raises(InvalidInputError, match="unknown signals"):
        pipe.run("q", signals=["sparse"])
    with pytest.raises(InvalidInputError, match="empty"):
        pipe.run("   ")
    with pytest.raises(InvalidInputError, match="top_k"):
        pipe.run("q", top_k=0)


def _fingerprint(result: PipelineResult) -> tuple[object, ...]:
    return (tuple((h.chunk_id, h.fused_score, tuple(sorted(h.ranks.items()))) for h in result.hits),
            tuple((s, st.state) for s, st in result.statuses.items()))


def test_64_overlapping_queries_each_get_what_they_get_alone(pipe: QueryPipeline) -> None:
    with (SCIFACT / "queries.jsonl").open(encoding="utf-8") as fh:
        texts = [json.loads(line)["text"] for _, line in zip(range(60), fh, strict=False)]
    texts += [BEES_QUERY, PARAPHRASE_QUERY, RARE_TERM_QUERY, "heart failure ejection fraction"]
    signal_sets = (("dense", "bm25"), ("dense",), ("bm25",), ("bm25", "dense"))
    requests = [dict(question=t, signals=signal_sets[i % 4], top_k=3 + i % 5, rerank=False,
                     filters=Filters(metadata=(("corpus", "scifact"),)) if i % 7 == 0 else None)
                for i, t in enumerate(texts)]
    alone = [_fingerprint(pipe.run(**r)) for r in requests]  # type: ignore[arg-type]
    assert len(set(alone)) == 64  # distinct answers, so a mix-up could not go unnoticed

    together: list[tuple[object, ...] | None] = [None] * 64
    barrier = threading.Barrier(64)

    def ask(i: int) -> None:
        barrier.wait()
        together[i] = _fingerprint(pipe.run(**requests[i]))  # type: ignore[arg-type]

    threads = [threading.Thread(target=ask, args=(i,)) for i in range(64)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert together == alone
