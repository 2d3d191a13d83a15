"""An upload that commits after a faster one, holding lower chunk ids, is not lost by the next delta.

Chunk ids come from a sequence when a writer inserts, not when it commits. Here upload A takes its ids and
waits before committing; upload B takes higher ones and commits; the BM25 base and the graph base are built
(they see B only); then A commits. A delta that took "the chunks above the base's last id" would never see
A until a whole rebuild, and say nothing. BM25 adds A to its delta (core.store.Store.chunks_since); the graph
sees chunks processed after its base below its last id and builds whole (kg.build._try_delta)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import kgrag.core.store as core_store
import pytest
from kgrag.core.models import Embedder
from kgrag.core.runtime import Runtime
from kgrag.core.settings import GraphSettings, RetrievalSettings, Settings
from kgrag.ingest.loaders import load_text
from kgrag.kg.holder import load_graph
from kgrag.retrieval.base import Query
from kgrag.retrieval.bm25 import BM25Retriever
from kgrag.retrieval.maintenance import publish_bm25

from tests.kg_fixtures import GRAPH_CORPUS, build, nlp_fixture  # noqa: F401  (the `nlp` fixture)
from tests.retrieval_corpus import ingest

LATE = "late-upload"


@pytest.fixture
def deltas_rt(make_settings: Callable[..., Settings], embedder: Embedder) -> Iterator[Runtime]:
    """BM25 and the graph take deltas at any size (the defaults wait for 50,000 chunks)."""
    settings = make_settings(retrieval=RetrievalSettings(bm25_delta_min_chunks=0, bm25_delta_max_share=1.0),
                             graph=GraphSettings(delta_min_chunks=0, delta_max_share=1.0))
    with Runtime(settings, embedder=embedder) as rt:
        yield rt


def _page(name: str) -> Any:
    path = GRAPH_CORPUS / name
    return load_text(path.read_text(encoding="utf-8"), source=str(Path("late") / name), title=path.stem)


def test_an_upload_committing_below_indexed_ids_reaches_bm25_and_the_graph(
        deltas_rt: Runtime, nlp: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    rt = deltas_rt
    ingest(rt, [_page("brenmoor.md"), _page("port_halden.md"), _page("nordlys_labs.md")])  # an older corpus
    real_bump = core_store._bump_corpus_version
    inserted, release = threading.Event(), threading.Event()

    def bump_late(conn: Any, **kw: Any) -> int:
        if threading.current_thread().name == LATE:  # A's chunks are inserted, its ids taken: hold the commit
            inserted.set()
            assert release.wait(60)
        return real_bump(conn, **kw)

    monkeypatch.setattr(core_store, "_bump_corpus_version", bump_late)
    late = threading.Thread(target=ingest, args=(rt, [_page("miriam_okafor.md")]), kwargs={"publish": False},
                            name=LATE)
    late.start()
    assert inserted.wait(60)
    early = ingest(rt, [_page("harlow_biotech.md")], publish=False)
    publish_bm25(rt, force=True)  # the bases: B is in them, A is not yet committed
    build(rt, nlp)
    release.set()
    late.join(60)
    a_doc = next(d for d in rt.store.list_documents() if d.title == "miriam_okafor")
    a_chunks = {c.id for c in rt.store.document_chunks(a_doc.id)}
    b_chunks = {c.id for d in early.document_ids.values() for c in rt.store.document_chunks(d)}
    assert max(a_chunks) < min(b_chunks), "the race this test stages: A holds lower ids than B, indexed first"
    monkeypatch.setattr(core_store, "_bump_corpus_version", real_bump)
    ingest(rt, [_page("edith_calloway.md")], publish=False)  # and an upload after it: the deltas are not empty

    index = publish_bm25(rt)
    assert index.delta is not None, "a delta, not a whole rebuild"
    assert a_chunks <= set(index.delta.chunk_ids.tolist())
    hits = BM25Retriever(rt.store, rt.settings.retrieval, rt.settings.index_dir).retrieve(Query("Miriam Okafor", k=5))
    assert {h.chunk_id for h in hits.hits} & a_chunks

    report = build(rt, nlp)
    assert report.delta_chunks == 0, "a delta over ids below its base's last would miss A: the build is whole"
    graph = load_graph(rt.settings.graph_path, document_edge_weight=rt.settings.graph.document_edge_weight)
    assert a_chunks <= set(graph.chunk_ids.tolist())
    assert graph.document_node(a_doc.id) is not None
