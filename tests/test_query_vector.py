"""One question, one embedding: dense and the graph share the request's question vector, and link
sentences are embedded once per served graph (the graph stage's hop weighting then costs a dot product)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from kgrag.core.models import Embedder
from kgrag.core.runtime import Runtime
from kgrag.kg.build import build_graph
from kgrag.kg.holder import load_graph
from kgrag.kg.store import GraphStore
from kgrag.retrieval.base import Query, QueryVector
from kgrag.retrieval.graph import SentenceVectors, build_graph_retriever
from kgrag.retrieval.pipeline import build_pipeline

from tests.kg_fixtures import build, ingest_folder, nlp_fixture  # noqa: F401  (the `nlp` fixture)
from tests.retrieval_corpus import BEES_QUERY, PARAPHRASE_QUERY, corpus_runtime


class Counting:
    """The real embedder, counting the texts it is asked to encode."""

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder
        self.texts: list[str] = []

    def encode(self, texts: list[str]) -> np.ndarray:
        self.texts += texts
        return self.embedder.encode(texts)


def test_sentence_vectors_are_the_models_and_each_sentence_is_encoded_once(embedder: Embedder) -> None:
    memo, counting = SentenceVectors(size=3), Counting(embedder)
    first = memo.vectors(["His mother was Ermengarde.", "He married Teutberga."], counting.encode)
    np.testing.assert_allclose(first, embedder.encode(["His mother was Ermengarde.", "He married Teutberga."]),
                               atol=1e-5)
    again = memo.vectors(["He married Teutberga.", "His mother was Ermengarde."], counting.encode)
    np.testing.assert_array_equal(again, first[::-1])
    assert counting.texts == ["He married Teutberga.", "His mother was Ermengarde."]  # nothing encoded twice


def test_the_sentence_memo_is_bounded_and_forgets_the_least_recently_used(embedder: Embedder) -> None:
    memo, counting = SentenceVectors(size=2), Counting(embedder)
    memo.vectors(["a one", "b two"], counting.encode)
    memo.vectors(["a one"], counting.encode)  # a is now the most recent
    memo.vectors(["c three"], counting.encode)  # evicts b
    counting.texts.clear()
    memo.vectors(["a one", "b two", "c three"], counting.encode)
    assert counting.texts == ["b two"]


def test_a_question_vector_is_made_once_however_many_retrievers_ask_at_once() -> None:
    vector, calls, start = QueryVector(), [], threading.Barrier(8)

    def embed() -> np.ndarray:
        calls.append(1)
        return np.ones(3, dtype=np.float32)

    def ask() -> None:
        start.wait()
        assert vector.get(embed).tolist() == [1.0, 1.0, 1.0]

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert calls == [1]


@pytest.fixture(scope="module")
def corpus_rt(pg_server: str, embedder: Embedder, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Runtime]:
    with corpus_runtime(pg_server, embedder, tmp_path_factory.mktemp("qvec")) as rt:
        yield rt


def test_dense_searches_with_the_requests_shared_vector(corpus_rt: Runtime, embedder: Embedder) -> None:
    """A vector already made for this request is used as it is: dense does not embed the text again."""
    with build_pipeline(corpus_rt, signals=("dense",)) as pipe:
        dense = pipe.retrievers["dense"]
        own = dense.retrieve(Query(BEES_QUERY, k=10)).hits
        other = dense.retrieve(Query(PARAPHRASE_QUERY, k=10)).hits
        shared = QueryVector()
        shared.get(lambda: embedder.encode_query(PARAPHRASE_QUERY))
        given = dense.retrieve(Query(BEES_QUERY, k=10, vector=shared)).hits
    assert [h.chunk_id for h in own] != [h.chunk_id for h in other]
    assert [h.chunk_id for h in given] == [h.chunk_id for h in other]


def test_a_build_stores_each_link_sentences_vector_and_queries_then_embed_none(
        runtime: Runtime, nlp: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The build embeds every link sentence into the arrays (the model's own vectors, stamped with it), a
    query weighs its hops from them without a forward pass, and a rebuild embeds only what is new."""
    ingest_folder(runtime)
    embedder = runtime.embedder
    first = build(runtime, nlp)
    graph = load_graph(runtime.settings.graph_path, document_edge_weight=runtime.settings.graph.document_edge_weight)
    assert graph.link_vectors_model == embedder.stamp
    texts = sorted({graph.link_sentences[pair] for pair in graph.link_sentences} - {""})
    assert len(texts) >= 3, "the fixture corpus has documents that name each other"
    assert first.link_sentences_embedded == len(set(graph.link_sentences.values()))
    stored = np.stack([np.asarray(graph.link_vectors[t], dtype=np.float32) for t in texts])
    assert (np.sum(stored * embedder.encode(texts), axis=1) > 0.999).all()

    def sentences_embedded_by_queries() -> int:
        asked: list[str] = []
        real = embedder.encode_now
        embedder.encode_now = lambda batch, **kw: asked.extend(batch) or real(batch, **kw)  # type: ignore[method-assign]
        try:
            retriever = build_graph_retriever(runtime)
            for question in HOP_QUESTIONS:
                assert retriever.retrieve(Query(question, k=10)).hits, question
        finally:
            del embedder.encode_now
        return len(asked)

    assert sentences_embedded_by_queries() == 0
    # Vectors stamped by another model are never read: the same questions then embed their hops themselves
    # (which shows they had hops to weigh).
    monkeypatch.setattr(type(embedder), "stamp", property(lambda self: "another-model@0"))
    assert sentences_embedded_by_queries() > 0
    monkeypatch.undo()

    made: list[str] = []
    real_encode = embedder.encode
    monkeypatch.setattr(embedder, "encode", lambda batch, **kw: made.extend(batch) or real_encode(batch, **kw))
    again = build(runtime, nlp, rebuild=True)
    assert made == [] and again.link_sentences_embedded == 0, "a rebuild reads the previous build's vectors"
    # KGRAG_GRAPH__LINK_VECTORS=false: a build embeds nothing and stores no vectors.
    off = runtime.settings.graph.model_copy(update={"link_vectors": False})
    build_graph(GraphStore(runtime.db), off, runtime.settings.graph_path, nlp, rebuild=True, embedder=embedder)
    assert made == [] and load_graph(runtime.settings.graph_path, document_edge_weight=off.document_edge_weight
                                     ).link_vectors_model == ""


HOP_QUESTIONS = ("Where did the founder of Harlow Biotech grow up?",
                 "Which university did Miriam Okafor study at, and who did she meet there?")
