"""BM25 deltas on a real database: new chunks are searched beside the base at once, scored with the base's
statistics; deletes are never returned; compaction gives exactly a whole build; a second replica serves the
same delta; a small corpus keeps rebuilding whole."""

from __future__ import annotations

import json
import math
import time
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest
from kgrag.core.artifacts import BM25, BM25_DELTA
from kgrag.core.models import Embedder
from kgrag.core.runtime import Runtime
from kgrag.core.settings import ArtifactSettings, RetrievalSettings, Settings
from kgrag.retrieval.base import Query
from kgrag.retrieval.bm25 import BM25Retriever, build_index, compaction_due, index_text, tokenize
from kgrag.retrieval.maintenance import delete_document_everywhere, publish_bm25
from kgrag.retrieval.sync import ArtifactSync

from tests.retrieval_corpus import SCIFACT, ingest, scifact_loaded

BASE_DOCS, NEW_DOCS = 60, 8


@pytest.fixture
def delta_rt(make_settings: Callable[..., Settings], embedder: Embedder) -> Iterator[Runtime]:
    """A runtime whose BM25 takes deltas at any size (the default waits for 50,000 chunks)."""
    retrieval = RetrievalSettings(bm25_delta_min_chunks=0, bm25_delta_max_share=1.0)
    with Runtime(make_settings(retrieval=retrieval), embedder=embedder) as rt:
        yield rt


def _queries(n: int) -> list[str]:
    with (SCIFACT / "queries.jsonl").open(encoding="utf-8") as fh:
        return [json.loads(line)["text"] for _, line in zip(range(n), fh, strict=False)]


def _retriever(rt: Runtime, **kw: Any) -> BM25Retriever:
    return BM25Retriever(rt.store, rt.settings.retrieval, kw.get("index_dir", rt.settings.index_dir))


def _reference_scores(rt: Runtime, base_ids: set[int], tokens: list[str]) -> dict[int, float]:
    """Okapi BM25 (atire tf, Robertson idf floored at 0) of every chunk, with N, mean length and document
    frequencies taken from the base chunks only: what a delta chunk must score, written out by hand."""
    docs = {c.id: tokenize(index_text(c.title, c.text)) for c in rt.store.iter_chunks()}
    base = [docs[i] for i in sorted(base_ids)]
    n, mean = len(base), sum(len(d) for d in base) / len(base)
    df = Counter(t for d in base for t in set(d))
    k1, b = rt.settings.retrieval.bm25_k1, rt.settings.retrieval.bm25_b
    out = {}
    for chunk_id, doc in docs.items():
        tf = Counter(doc)
        score = 0.0
        for t in tokens:
            if tf[t]:
                idf = math.log(max((n - df[t] + 0.5) / (df[t] + 0.5), 1.0))
                score += idf * tf[t] * (k1 + 1) / (tf[t] + k1 * (1 - b + b * len(doc) / mean))
        out[chunk_id] = score
    return out


def test_new_chunks_are_searched_at_once_with_the_base_statistics(delta_rt: Runtime) -> None:
    ingest(delta_rt, scifact_loaded(BASE_DOCS))
    retriever = _retriever(delta_rt)
    base = retriever.sync()
    assert base is not None and base.delta is None
    base_ids = {int(i) for i in base.chunk_ids}
    published_base = delta_rt.artifacts.current(BM25, retriever.variant)

    ingest(delta_rt, scifact_loaded(NEW_DOCS, offset=BASE_DOCS))
    served = retriever.sync()
    assert served is not None and served.delta is not None
    assert delta_rt.artifacts.current(BM25, retriever.variant) == published_base, "the base was not rebuilt"
    assert served.serving_version == delta_rt.store.corpus_version() > served.corpus_version
    new_ids = {c.id for c in delta_rt.store.iter_chunks()} - base_ids
    assert {int(i) for i in served.delta.chunk_ids} == new_ids and served.chunks == len(base_ids) + len(new_ids)

    found_new = 0
    for text in _queries(30):
        result = retriever.retrieve(Query(text, k=10))
        assert result.status.reason == ""
        expected = _reference_scores(delta_rt, base_ids, tokenize(text))
        for hit in result.hits:
            assert hit.score == pytest.approx(expected[hit.chunk_id], rel=1e-4, abs=1e-5)
        ranked = sorted((s for s in expected.values() if s > 0), reverse=True)
        if len(ranked) > 10 and ranked[9] - ranked[10] > 1e-4:  # no near-tie at the cut
            assert {h.chunk_id for h in result.hits} == {c for c, s in expected.items() if s >= ranked[9]}
        assert [h.score for h in result.hits] == sorted((h.score for h in result.hits), reverse=True)
        found_new += sum(h.chunk_id in new_ids for h in result.hits)
    assert found_new > 0, "the queries reached the new chunks"
    assert result.explanation["delta_chunks"] == len(new_ids)


def test_compaction_gives_exactly_a_whole_build(delta_rt: Runtime) -> None:
    ingest(delta_rt, scifact_loaded(BASE_DOCS))
    ingest(delta_rt, scifact_loaded(NEW_DOCS, offset=BASE_DOCS))
    retriever = _retriever(delta_rt)
    assert retriever.sync().delta is not None
    compacted = publish_bm25(delta_rt, force=True)
    assert compacted.delta is None and delta_rt.artifacts.current(BM25_DELTA, retriever.variant) is None
    whole = build_index(delta_rt.store, delta_rt.settings.retrieval)
    served = retriever.sync()
    assert served is not None and served.delta is None and served.artifact == compacted.artifact
    for text in _queries(20):
        tokens = tokenize(text)
        assert served.search(tokens, 10) == whole.search(tokens, 10)


def test_a_deleted_document_is_never_returned_and_its_words_leave_at_compaction(delta_rt: Runtime) -> None:
    report = ingest(delta_rt, scifact_loaded(BASE_DOCS))
    retriever = _retriever(delta_rt)
    retriever.sync()
    source, doc_id = next(iter(report.document_ids.items()))
    title = next(d.title for d in scifact_loaded(BASE_DOCS) if d.source == source)
    gone = {c.id for c in delta_rt.store.document_chunks(doc_id)}
    assert gone & {h.chunk_id for h in retriever.retrieve(Query(title, k=5)).hits}
    base_sha = delta_rt.artifacts.current(BM25, retriever.variant).sha256

    delete_document_everywhere(delta_rt, doc_id)
    served = retriever.sync()
    assert served is not None and served.delta is not None and set(served.delta.dropped.tolist()) == gone
    assert not gone & {h.chunk_id for h in retriever.retrieve(Query(title, k=50)).hits}
    assert delta_rt.artifacts.current(BM25, retriever.variant).sha256 == base_sha, "a delta, not a rebuild"
    assert not compaction_due(delta_rt.artifacts, retriever.variant, delta_rt.settings.retrieval)

    hurried = delta_rt.settings.retrieval.model_copy(update={"bm25_compact_after": 0.01})
    time.sleep(0.05)
    assert compaction_due(delta_rt.artifacts, retriever.variant, hurried)
    replica = BM25Retriever(delta_rt.store, hurried, delta_rt.settings.index_dir)
    sync = ArtifactSync(delta_rt, replica, None, background_builds=True, listen=False)
    sync.sync_once(build=True)  # what a serving replica's background builder does on its next wake
    after = replica.current_index()
    assert after is not None and after.delta is None and after.artifact != base_sha
    assert not set(after.chunk_ids.tolist()) & gone, "the new base no longer holds the deleted chunks' words"
    assert delta_rt.artifacts.current(BM25_DELTA, retriever.variant) is None


def test_a_second_replica_serves_the_same_delta(delta_rt: Runtime, tmp_path: Any) -> None:
    ingest(delta_rt, scifact_loaded(BASE_DOCS))
    other = _retriever(delta_rt, index_dir=tmp_path / "replica-b")
    other.sync()
    ingest(delta_rt, scifact_loaded(NEW_DOCS, offset=BASE_DOCS))
    first = _retriever(delta_rt)
    served = other.sync()  # the replica's sync thread, woken by the delta's NOTIFY
    assert served is not None and served.delta is not None
    assert served.serving_version == delta_rt.store.corpus_version()
    for text in _queries(10):
        assert other.retrieve(Query(text, k=10)).hits == first.retrieve(Query(text, k=10)).hits


def test_a_delta_past_its_share_of_the_base_is_compacted(make_settings: Callable[..., Settings],
                                                         embedder: Embedder) -> None:
    retrieval = RetrievalSettings(bm25_delta_min_chunks=0, bm25_delta_max_share=0.01)
    with Runtime(make_settings(retrieval=retrieval), embedder=embedder) as rt:
        ingest(rt, scifact_loaded(BASE_DOCS))
        first = rt.artifacts.current(BM25, _retriever(rt).variant)
        ingest(rt, scifact_loaded(NEW_DOCS, offset=BASE_DOCS))
        index = _retriever(rt).sync()
        assert index is not None and index.delta is None and index.artifact != first.sha256
        assert index.corpus_version == rt.store.corpus_version()


def test_a_small_corpus_rebuilds_whole_by_default(runtime: Runtime) -> None:
    ingest(runtime, scifact_loaded(20))
    ingest(runtime, scifact_loaded(4, offset=20))
    retriever = _retriever(runtime)
    index = retriever.sync()
    assert index is not None and index.delta is None and index.corpus_version == runtime.store.corpus_version()
    assert runtime.artifacts.current(BM25_DELTA, retriever.variant) is None
    assert np.array_equal(np.sort(index.chunk_ids), np.array(sorted(c.id for c in runtime.store.iter_chunks())))


def test_doctor_names_the_delta_and_how_far_behind_the_corpus_it_is(delta_rt: Runtime) -> None:
    from kgrag.api.doctor import check_bm25_index

    ingest(delta_rt, scifact_loaded(BASE_DOCS))
    ingest(delta_rt, scifact_loaded(NEW_DOCS, offset=BASE_DOCS))
    check = check_bm25_index(delta_rt)
    assert check.ok and f"with a delta at corpus version {delta_rt.store.corpus_version()}" in check.detail
    ingest(delta_rt, scifact_loaded(1, offset=BASE_DOCS + NEW_DOCS), publish=False)
    behind = check_bm25_index(delta_rt)
    assert not behind.ok and "1 corpus change(s) behind" in behind.detail and "kgrag index build" in behind.fix


def test_the_artifacts_route_shows_the_delta_served_and_how_far_behind_each_signal_is(
        make_settings: Callable[..., Settings], embedder: Embedder) -> None:
    from tests.test_api_support import api_settings, client_for, wait_for_artifacts

    retrieval = RetrievalSettings(signals=("dense", "bm25"), bm25_delta_min_chunks=0, bm25_delta_max_share=1.0)
    settings = api_settings(make_settings, artifacts=ArtifactSettings(build_delay=0.0, background_builds=False))
    with client_for(settings.model_copy(update={"retrieval": retrieval}), embedder) as client:
        rt = client.app.state.resources.runtime
        ingest(rt, scifact_loaded(BASE_DOCS))
        ingest(rt, scifact_loaded(NEW_DOCS, offset=BASE_DOCS))
        served = wait_for_artifacts(client)["bm25"]
        assert served["behind"] == 0 and served["delta_version"] == served["corpus_version"] > served["base_version"]
        assert served["chunks"] == len(list(rt.store.iter_chunks())) and served["delta_chunks"] > 0
        assert served["retired_chunks"] == 0
        ingest(rt, scifact_loaded(2, offset=BASE_DOCS + NEW_DOCS), publish=False)  # no builder runs here
        assert client.get("/v1/artifacts").json()["bm25"]["behind"] == 2


def test_a_publisher_that_finds_the_delta_already_published_builds_nothing(
        delta_rt: Runtime, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two publishers after one upload (the CLI and a replica's background builder): the one that waited for
    the build lock installs the delta the other published, instead of reading the corpus again."""
    import kgrag.retrieval.bm25_freshness as freshness

    ingest(delta_rt, scifact_loaded(BASE_DOCS))
    ingest(delta_rt, scifact_loaded(NEW_DOCS, offset=BASE_DOCS))
    published = delta_rt.artifacts.current(BM25_DELTA, _retriever(delta_rt).variant)
    builds: list[int] = []
    real = freshness.build_delta
    monkeypatch.setattr(freshness, "build_delta", lambda *a, **kw: builds.append(1) or real(*a, **kw))
    again = publish_bm25(delta_rt)
    assert builds == [] and again.delta is not None and again.serving_version == delta_rt.store.corpus_version()
    assert delta_rt.artifacts.current(BM25_DELTA, _retriever(delta_rt).variant) == published
