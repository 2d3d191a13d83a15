"""Dense retrieval against pgvector, and what each first-stage signal can find that the other cannot."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from kgrag.core.models import Embedder
from kgrag.core.runtime import Runtime
from kgrag.core.store import filters_sql
from kgrag.core.types import Filters
from kgrag.retrieval.base import Query
from kgrag.retrieval.bm25 import BM25Retriever
from kgrag.retrieval.dense import DenseRetriever, ann_sql, search_on

from tests.retrieval_corpus import (
    PARAPHRASE_DOC,
    PARAPHRASE_QUERY,
    RARE_TERM_DOC,
    RARE_TERM_QUERY,
    corpus_runtime,
    ingest,
    planted_loaded,
    source_of,
)


@pytest.fixture(scope="module")
def corpus_rt(pg_server: str, embedder: Embedder, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Runtime]:
    with corpus_runtime(pg_server, embedder, tmp_path_factory.mktemp("dense")) as rt:
        yield rt


def _dense(rt: Runtime) -> DenseRetriever:
    return DenseRetriever(rt.db, rt.checked_embedder, rt.settings.retrieval)


def _bm25(rt: Runtime) -> BM25Retriever:
    return BM25Retriever(rt.store, rt.settings.retrieval, rt.settings.index_dir)


def test_dense_matches_exact_cosine_search(corpus_rt: Runtime) -> None:
    """The HNSW answer (re-sorted after the relaxed scan) equals brute force on this corpus."""
    with corpus_rt.db.connection() as conn:
        rows = conn.execute("SELECT id, embedding FROM chunks ORDER BY id").fetchall()
    ids = np.array([r[0] for r in rows])
    matrix = np.stack([r[1].to_numpy() for r in rows])
    query = "vitamin D and bone health in older adults"
    vec = corpus_rt.embedder.encode_query(query)
    sims = matrix @ vec
    expected = ids[np.argsort(-sims)[:10]].tolist()

    result = _dense(corpus_rt).retrieve(Query(query, k=10))
    assert [h.chunk_id for h in result.hits] == expected
    assert [h.rank for h in result.hits] == list(range(1, 11))
    scores = [h.score for h in result.hits]
    assert scores == sorted(scores, reverse=True)
    np.testing.assert_allclose(scores, np.sort(sims)[::-1][:10], atol=1e-5)
    # The model's (here already done) load is timed apart, so a cold start never counts as embedding time.
    assert set(result.timings) == {"load", "embed", "search"}
    assert result.timings["embed"] > 0 and result.timings["search"] > 0 and result.timings["load"] >= 0


def test_paraphrase_is_found_by_dense_only(corpus_rt: Runtime) -> None:
    sources = source_of(corpus_rt)
    dense = _dense(corpus_rt).retrieve(Query(PARAPHRASE_QUERY, k=20)).hits
    bm25 = _bm25(corpus_rt).retrieve(Query(PARAPHRASE_QUERY, k=20)).hits
    assert sources[dense[0].chunk_id] == PARAPHRASE_DOC[0]
    assert PARAPHRASE_DOC[0] not in {sources[h.chunk_id] for h in bm25}


def test_rare_exact_term_is_found_by_bm25_only(corpus_rt: Runtime) -> None:
    sources = source_of(corpus_rt)
    bm25 = _bm25(corpus_rt).retrieve(Query(RARE_TERM_QUERY, k=20)).hits
    dense = _dense(corpus_rt).retrieve(Query(RARE_TERM_QUERY, k=20)).hits
    assert [sources[h.chunk_id] for h in bm25] == [RARE_TERM_DOC[0]]
    assert RARE_TERM_DOC[0] not in {sources[h.chunk_id] for h in dense[:5]}


def test_filters_are_applied_in_sql_and_k_rows_remain(corpus_rt: Runtime) -> None:
    dense = _dense(corpus_rt)
    sources = source_of(corpus_rt)
    query = PARAPHRASE_QUERY  # its nearest neighbours are planted: a scifact filter must skip them

    scifact = dense.retrieve(Query(query, Filters(metadata=(("corpus", "scifact"),)), k=20)).hits
    assert len(scifact) == 20
    assert all(sources[h.chunk_id].startswith("scifact/") for h in scifact)

    planted = dense.retrieve(Query(query, Filters(metadata=(("corpus", "planted"),)), k=20)).hits
    assert {sources[h.chunk_id] for h in planted} == {s for s in sources.values() if s.startswith("planted/")}

    by_source = dense.retrieve(Query(query, Filters(sources=(RARE_TERM_DOC[0],)), k=5)).hits
    assert [sources[h.chunk_id] for h in by_source] == [RARE_TERM_DOC[0]]

    doc_ids = tuple(sorted({r.document_id for r in corpus_rt.store.chunks(
        [h.chunk_id for h in scifact[:2]]).values()}))
    by_doc = dense.retrieve(Query(query, Filters(document_ids=doc_ids), k=50)).hits
    records = corpus_rt.store.chunks([h.chunk_id for h in by_doc])
    assert {r.document_id for r in records.values()} == set(doc_ids)
    with corpus_rt.db.connection() as conn:
        total = conn.execute("SELECT count(*) FROM chunks WHERE document_id = ANY(%s)", (list(doc_ids),)).fetchone()
    assert len(by_doc) == total[0]  # every chunk of those documents, not a truncated scan

    combined = dense.retrieve(Query(query, Filters(sources=(RARE_TERM_DOC[0],),
                                                   metadata=(("corpus", "scifact"),)), k=5)).hits
    assert combined == ()  # filters are ANDed


def test_iterative_scan_fills_k_under_a_selective_filter(runtime: Runtime) -> None:
    """On the HNSW index, a filter matching rows far from the query: a plain scan sees only the
    ef_search nearest and comes back short; the iterative scan keeps walking until k rows pass."""
    near = [(f"near/{i}", f"Cats {i}", f"A cat number {i} sleeps on a warm mat.") for i in range(70)]
    far = [(f"far/{i}", f"Ledger {i}", f"Quarterly tax ledger {i} for the shipping firm.") for i in range(6)]
    ingest(runtime, planted_loaded(near + far))
    vec = runtime.embedder.encode_query("a sleeping cat")
    wanted = Filters(sources=tuple(s for s, _, _ in far[:5]))
    _, params = filters_sql(wanted)

    def forced_index(conn: Any) -> None:
        conn.execute("SET LOCAL enable_sort = off")  # no sort-based plan: the ordering must come from HNSW
        plan = conn.execute("EXPLAIN " + ann_sql(wanted), [vec, *params, 5]).fetchall()
        assert any("chunks_embedding_hnsw" in row[0] for row in plan), plan

    with runtime.db.transaction() as conn:
        forced_index(conn)
        conn.execute("SET LOCAL hnsw.iterative_scan = off")
        plain = conn.execute(ann_sql(wanted), [vec, *params, 5]).fetchall()
    assert len(plain) < 5  # the problem the iterative scan solves

    with runtime.db.transaction() as conn:
        forced_index(conn)
        rows, exact = search_on(conn, vec, 5, wanted)
    assert not exact and len(rows) == 5
    assert {source_of(runtime)[cid] for cid, _ in rows} == {s for s, _, _ in far[:5]}
