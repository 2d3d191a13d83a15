"""A deleted document stops steering the graph's rankings the moment the delete commits, before any
rebuild (kg.liveness): on a real graph file, its node and the entities only it named neither seed, carry
nor receive relevance, and every other row spreads as it would in a graph built without them."""

from __future__ import annotations

from typing import Any

import numpy as np
from kgrag.api.doctor import check_graph_file
from kgrag.core.runtime import Runtime
from kgrag.ingest.loaders import load_text
from kgrag.ingest.pipeline import Ingestor
from kgrag.kg.holder import graph_holder, load_graph
from kgrag.kg.linking import TITLE
from kgrag.kg.liveness import current_liveness
from kgrag.kg.serving import LoadedGraph
from kgrag.kg.traversal import ppr_push, row_normalised
from kgrag.retrieval.base import Query
from kgrag.retrieval.graph import build_graph_retriever
from kgrag.retrieval.sync import ArtifactSync

from tests.kg_fixtures import build, ingest_folder, nlp_fixture  # noqa: F401  (the `nlp` fixture)

DELETED = "Miriam Okafor"
"""Her page is deleted; "miriam okafor" the entity stays (Harlow Biotech's page names her), "lisbon" goes
(only her page named it)."""


def _document_id(rt: Runtime, title: str) -> int:
    return next(d.id for d in rt.store.list_documents() if d.title == title)


def _graph(rt: Runtime) -> LoadedGraph:
    return load_graph(rt.settings.graph_path, document_edge_weight=rt.settings.graph.document_edge_weight)


def test_the_traversal_after_a_delete_is_the_traversal_of_the_graph_built_without_what_it_took(
        runtime: Runtime, nlp: Any) -> None:
    ingest_folder(runtime)
    build(runtime, nlp)
    graph = _graph(runtime)
    document = _document_id(runtime, DELETED)
    assert current_liveness(graph, runtime.store.corpus_state(), runtime.store.gone_chunk_ids) is None

    def listed(_ids: np.ndarray, _since: int) -> np.ndarray:
        raise AssertionError("no delete since the build: nothing to look up")

    # An upload moves the corpus version, not the delete count: the graph is known whole without a query.
    Ingestor(runtime.store, runtime.embedder, runtime.settings.chunking, runtime.settings.embedding).ingest_documents(
        [load_text("Brenmoor's canal museum opened in 2021.", source="museum.txt", title="Canal museum")])
    assert runtime.store.corpus_state().version > graph.corpus_version
    assert current_liveness(graph, runtime.store.corpus_state(), listed) is None
    runtime.store.delete_document(document)
    live = current_liveness(graph, runtime.store.corpus_state(), runtime.store.gone_chunk_ids)
    assert live is not None
    assert live.hidden[graph.document_node(document)] and live.hidden[graph.node_of("lisbon")]
    assert live.shows(graph.node_of("miriam okafor")) and live.shows(graph.node_of("harlow biotech"))

    # The graph without them, made the way a build makes it: hidden nodes' edges dropped, rows renormalised.
    adjacency = graph.adjacency.tocoo()
    kept = ~live.hidden[adjacency.row] & ~live.hidden[adjacency.col]
    pruned = row_normalised(graph.node_count, adjacency.row[kept], adjacency.col[kept], adjacency.data[kept])
    pruned_degree = np.maximum(np.diff(pruned.indptr), 1)
    np.testing.assert_array_equal(live.degree, pruned_degree)
    changed = 0
    for seed in np.flatnonzero(~live.hidden & (np.diff(graph.adjacency.indptr) > 0)).tolist():
        ids, values = np.array([seed]), np.array([1.0])
        got = dict(zip(*ppr_push(graph.transition, ids, values, damping=0.5, degree=live.degree,
                                 hidden=live.hidden, keep=live.keep), strict=True))
        want = dict(zip(*ppr_push(pruned, ids, values, damping=0.5, degree=pruned_degree), strict=True))
        assert got.keys() == want.keys(), seed
        assert max(abs(got[k] - want[k]) for k in want) < 1e-12, seed
        assert not any(live.hidden[k] for k in got)
        before = dict(zip(*ppr_push(graph.transition, ids, values, damping=0.5, degree=graph.degree), strict=True))
        changed += before.keys() != got.keys()
    assert changed, "the deleted page was on some seed's way: the check above compared something"


def test_a_deleted_page_is_no_anchor_and_no_hop_for_the_graph_retriever(runtime: Runtime, nlp: Any) -> None:
    ingest_folder(runtime)
    build(runtime, nlp)
    retriever = build_graph_retriever(runtime)
    question = Query("Where did Miriam Okafor spend her childhood?", k=10)
    before = retriever.retrieve(question)
    assert before.explanation["fusion_weight"]["basis"] == "title"  # her page's title anchors the question
    graph = _graph(runtime)
    document = _document_id(runtime, DELETED)
    node = graph.document_node(document)
    own = set(graph.chunk_ids[graph.home[node].indices].tolist())
    assert own & {h.chunk_id for h in before.hits}

    runtime.store.delete_document(document)
    after = retriever.retrieve(question)
    assert "stale" in after.status.reason  # the old graph still serves, and says so, and what it hides
    assert "nodes of documents deleted since are hidden" in after.status.reason
    status = ArtifactSync(runtime, None, graph_holder(runtime), background_builds=False, listen=False).status()
    assert status["graph"]["hidden_nodes"] >= 2  # her page's node and Lisbon's: GET /v1/artifacts
    assert "1 delete(s) since" in check_graph_file(runtime).detail  # kgrag doctor
    assert not own & {h.chunk_id for h in after.hits}
    # Her page's title anchors nothing any more: no title link, so the graph's list is not fused by title.
    assert all(e["how"] != TITLE for e in after.explanation["linked_entities"])
    assert after.explanation.get("fusion_weight", {}).get("basis") != "title"
    assert all("Lisbon" not in h.explanation["entities"] and DELETED not in h.explanation["path"][1:]
               for h in after.hits)
