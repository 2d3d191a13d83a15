"""A delete leaves every signal's results the moment it commits, at the cost of the few ids it deleted:
the deletion log (core.store) records each delete's chunks under the corpus version that took them, the
BM25 retriever leaves them out of an index built before (no republish), the graph's liveness reads them
instead of listing every chunk it holds, and a published base prunes the rows no synced replica reads."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from kgrag.core.runtime import Runtime
from kgrag.core.settings import RetrievalSettings
from kgrag.kg.holder import load_graph
from kgrag.kg.liveness import current_liveness
from kgrag.retrieval.base import Query
from kgrag.retrieval.bm25 import BM25Retriever, tokenize
from kgrag.retrieval.maintenance import publish_bm25

from tests.kg_fixtures import build, ingest_folder, nlp_fixture  # noqa: F401  (the `nlp` fixture)
from tests.retrieval_corpus import ingest, planted_loaded

FILLER = [("f1", "Tides", "Tides follow the moon."), ("f2", "Bread", "Yeast makes bread rise."),
          ("f3", "Rust", "Iron oxidises in damp air."), ("f4", "Moss", "Moss grows on the north side."),
          ("f5", "Owls", "Owls hunt at night."), ("f6", "Salt", "Salt lowers the freezing point of water."),
          ("f7", "Bees", "Bees dance to share where flowers are."), ("f8", "Kelp", "Kelp forests shelter fish.")]
"""Okapi idf is zero for a term in over half the chunks: enough bystanders that "glacier" counts."""
GLACIERS = [("g1", "Glacier one", "Glaciers retreat in warm summers."),
            ("g2", "Glacier two", "A glacier carved this valley; glaciers move slowly."),
            ("g3", "Glacier three", "The glacier museum shows glacier ice, glacier maps and glacier tools."),
            ("g4", "Glacier four", "Glacier tourism grew.")]


def _chunk_ids(rt: Runtime, document_id: int) -> list[int]:
    return [c.id for c in rt.store.document_chunks(document_id)]


def _ranked(retriever: BM25Retriever, text: str, k: int) -> list[int]:
    return [h.chunk_id for h in retriever.retrieve(Query(text, k=k)).hits]


class _NoListing:
    """A store whose listing of live chunks fails: what must be answered from the log alone."""

    def __init__(self, store: Any) -> None:
        self._store = store

    def live_chunk_ids(self, chunk_ids: Any) -> set[int]:
        raise AssertionError("listed every chunk instead of reading the deletion log")

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)


def test_the_log_holds_each_deletes_chunks_under_its_version_and_a_base_prunes_it(runtime: Runtime) -> None:
    report = ingest(runtime, planted_loaded([*FILLER, *GLACIERS]))
    built = runtime.store.corpus_version()
    assert runtime.store.deleted_since(built).size == 0
    gone = _chunk_ids(runtime, report.document_ids["g1"])
    runtime.store.delete_document(report.document_ids["g1"])
    after_delete = runtime.store.corpus_version()
    replaced = _chunk_ids(runtime, report.document_ids["g2"])
    ingest(runtime, planted_loaded([("g2", "Glacier two", "Rewritten: the valley was carved by a river.")]),
           publish=False)
    assert sorted(runtime.store.deleted_since(built).tolist()) == sorted(gone + replaced)
    assert sorted(runtime.store.deleted_since(after_delete).tolist()) == sorted(replaced)
    chunk_ids = np.asarray(gone + replaced + _chunk_ids(runtime, report.document_ids["g3"]), dtype=np.int64)
    assert sorted(runtime.store.gone_chunk_ids(chunk_ids, built).tolist()) == sorted(gone + replaced)

    publish_bm25(runtime)  # the only published base is now past both deletes: their rows are read by nobody
    with runtime.db.connection() as conn:
        assert conn.execute("SELECT count(*) FROM deleted_chunks").fetchone()[0] == 0
    assert runtime.store.deleted_since(built) is None, "the log no longer reaches back there: callers list"
    assert sorted(runtime.store.gone_chunk_ids(chunk_ids, built).tolist()) == sorted(gone + replaced)


def test_bm25_leaves_out_a_deleted_documents_chunks_before_any_new_index_is_published(runtime: Runtime) -> None:
    ingest(runtime, planted_loaded([*FILLER, *GLACIERS]))
    retriever = BM25Retriever(runtime.store, runtime.settings.retrieval, runtime.settings.index_dir)
    index = retriever.current_index()
    assert index is not None
    before = _ranked(retriever, "glacier", 3)
    everything = [chunk_id for chunk_id, _ in index.search(tokenize("glacier"), 10)]
    assert len(before) == 3 and len(everything) == 4
    top = runtime.store.chunks([before[0]])[before[0]].document_id
    gone = set(_chunk_ids(runtime, top))

    runtime.store.delete_document(top)
    stale = retriever.retrieve(Query("glacier", k=3))
    assert retriever.current_index() is index, "no index was built or installed"
    assert [h.chunk_id for h in stale.hits] == [c for c in everything if c not in gone][:3], \
        "the index's own ranking less the deleted chunks, still k of them"
    assert "deleted since are already left out" in stale.status.reason

    # The log pruned past this index (a newer base published elsewhere): the hits are checked instead.
    runtime.store.forget_deletions_through(runtime.store.corpus_version())
    retriever = BM25Retriever(runtime.store, runtime.settings.retrieval, runtime.settings.index_dir)
    assert _ranked(retriever, "glacier", 3) == [c for c in everything if c not in gone][:3]


@pytest.mark.parametrize("pruned", [False, True])
def test_the_graphs_liveness_reads_the_log_not_every_chunk(runtime: Runtime, nlp: Any, pruned: bool) -> None:
    ingest_folder(runtime)
    build(runtime, nlp)
    graph = load_graph(runtime.settings.graph_path, document_edge_weight=runtime.settings.graph.document_edge_weight)
    document = next(d.id for d in runtime.store.list_documents() if d.title == "Miriam Okafor")
    gone = _chunk_ids(runtime, document)
    runtime.store.delete_document(document)
    state = runtime.store.corpus_state()
    if pruned:  # a replica whose graph is older than the log: it lists, and gets the same answer
        runtime.store.forget_deletions_through(state.version)
        live = current_liveness(graph, state, runtime.store.gone_chunk_ids)
    else:
        live = current_liveness(graph, state, _NoListing(runtime.store).gone_chunk_ids)
    assert live is not None
    assert sorted(graph.chunk_ids[~live.live_columns].tolist()) == sorted(gone)
    assert live.hidden[graph.document_node(document)] and live.hidden[graph.node_of("lisbon")]


def test_bm25_masks_deletes_in_its_base_and_its_delta(make_settings: Any, embedder: Any) -> None:
    settings = make_settings(retrieval=RetrievalSettings(bm25_delta_min_chunks=0, bm25_delta_max_share=1.0))
    with Runtime(settings, embedder=embedder) as rt:
        base_report = ingest(rt, planted_loaded([*FILLER, *GLACIERS[:2]]))
        delta_report = ingest(rt, planted_loaded(GLACIERS[2:]))
        retriever = BM25Retriever(rt.store, rt.settings.retrieval, rt.settings.index_dir)
        index = retriever.current_index()
        assert index is not None and index.delta is not None and index.delta.size
        everything = [chunk_id for chunk_id, _ in index.search(tokenize("glacier"), 10)]
        assert len(everything) == 4
        gone = set()
        for document_id in (base_report.document_ids["g1"], delta_report.document_ids["g3"]):
            gone |= set(_chunk_ids(rt, document_id))
            rt.store.delete_document(document_id)
        assert _ranked(retriever, "glacier", 5) == [c for c in everything if c not in gone]
        assert retriever.current_index() is index


def test_bm25_still_gives_k_when_the_log_was_pruned_and_deletes_took_more_than_its_margin(runtime: Runtime) -> None:
    """With no log to mask from, BM25 checks its best hits in SQL: 2k+20 of them, deeper while deletes took more."""
    moraines = [(f"m{i}", f"Moraine {i}", "Moraine " * (40 - i) + "ridges.") for i in range(30)]
    bystanders = [(f"b{i}", f"Note {i}", f"Note {i} is about something else entirely.") for i in range(40)]
    report = ingest(runtime, planted_loaded([*moraines, *bystanders]))
    retriever = BM25Retriever(runtime.store, runtime.settings.retrieval, runtime.settings.index_dir)
    index = retriever.current_index()
    assert index is not None
    everything = [chunk_id for chunk_id, _ in index.search(tokenize("moraine"), 100)]
    assert len(everything) == 30
    gone: set[int] = set()
    for name, _, _ in moraines[:25]:  # more than 2k+20 - k of the best, for k = 2
        gone |= set(_chunk_ids(runtime, report.document_ids[name]))
        runtime.store.delete_document(report.document_ids[name])
    runtime.store.forget_deletions_through(runtime.store.corpus_version())
    assert runtime.store.deleted_since(index.serving_version) is None
    assert _ranked(retriever, "moraine", 2) == [c for c in everything if c not in gone][:2]
    assert retriever.current_index() is index
