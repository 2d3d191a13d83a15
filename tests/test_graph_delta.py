"""A graph delta (kg.delta) serves what a whole build of the same corpus serves: ingest A and build, add B as a
delta, and the graph laid over the base equals, node for node and edge for edge, the graph a whole build of
A+B makes; the graph retriever's rankings are the same. On the real spaCy build of the graph corpus."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from kgrag.api.doctor import check_graph_file
from kgrag.core.artifacts import GRAPH, GRAPH_DELTA
from kgrag.core.models import Embedder
from kgrag.core.runtime import Runtime
from kgrag.core.settings import GraphSettings
from kgrag.kg.build import build_graph
from kgrag.kg.delta import Overlay
from kgrag.kg.graphfile import read_networkx
from kgrag.kg.holder import delta_folder, graph_holder, load_graph, read_served_networkx
from kgrag.kg.serving import LoadedGraph
from kgrag.kg.store import GraphStore
from kgrag.retrieval.base import Query
from kgrag.retrieval.graph import build_graph_retriever
from kgrag.retrieval.sync import ArtifactSync

from tests.kg_fixtures import GRAPH_CORPUS, build, ingest_folder, nlp_fixture  # noqa: F401  (the `nlp` fixture)

ADDED = ("miriam_okafor.md", "edith_calloway.md", "kestrel_technical_school.md")
"""Added as the delta: pages whose titles older pages write ("Miriam Okafor" in Harlow Biotech's), and that
write older pages' titles (her page names Port Halden and Aldermere University)."""
QUESTIONS = (
    "Where did Miriam Okafor spend her childhood?",
    "Which university holds the papers of Edith Calloway?",
    "Who founded the company that Miriam Okafor worked for?",
    "What did the founder of Quillon Robotics study at Kestrel Technical School?",
    "Which town is Harlow Biotech based in?",
    "Who was Tomas Rheinholt?",
    "Where was the Brenmoor built?",
    "Who founded Quillon Robotics?",
)


SHARING = {
    "brenmoor_ship.md": "# Brenmoor (ship)\n\nThe Brenmoor was a cargo ship built at Port Halden in 1931 for the "
                        "Halden Line. She carried timber to Brenmoor until she was scrapped.\n",
    "quillon.md": "# Quillon\n\nQuillon is a surname. Jonas Quillon founded Quillon Robotics after studying at "
                  "Kestrel Technical School.\n",
}
"""Added as a second delta: titles that share aliases with older pages' ("brenmoor"; "quillon", a prefix of
"quillon robotics"), so older chunks' links and alias frequencies change, not only new ones."""
LINKED_BOTH_WAYS = {
    "aa_ostvik_yard.md": "# Ostvik Yard\n\nThe Ostvik Yard is a shipyard on the river Vell. It built cargo ships "
                         "for the Halden Line.\n",
    "zz_halden_line.md": "# Halden Line\n\nThe Halden Line was a shipping company whose ships came from the Ostvik "
                         "Yard. Its largest ship was the Brenmoor.\n",
}
"""In the base: two pages that write each other's titles, where the later one also writes "Brenmoor", an alias
the second delta's ship shares. The delta must scan the earlier page again too: their link holds both
directions, and the earlier page's comes first."""


def _split(tmp_path: Path) -> tuple[Path, Path, Path]:
    first, added, sharing = tmp_path / "a", tmp_path / "b", tmp_path / "c"
    for folder in (first, added, sharing):
        folder.mkdir()
    for page in GRAPH_CORPUS.iterdir():
        shutil.copy(page, (added if page.name in ADDED else first) / page.name)
    for name, text in SHARING.items():
        (sharing / name).write_text(text)
    for name, text in LINKED_BOTH_WAYS.items():
        (first / name).write_text(text)
    return first, added, sharing


def _rows(graph: LoadedGraph, matrix: Any) -> dict[str, set[int]]:
    return {graph.keys[i]: set(graph.chunk_ids[matrix.indices[matrix.indptr[i]:matrix.indptr[i + 1]]].tolist())
            for i in range(graph.node_count)}


def _edges(graph: LoadedGraph) -> dict[tuple[str, str], tuple[float, str]]:
    coo = graph.adjacency.tocoo()
    return {(graph.keys[a], graph.keys[b]): (float(w), graph.edge_label(a, b))
            for a, b, w in zip(coo.row.tolist(), coo.col.tolist(), coo.data.tolist(), strict=True)}


def _by_key(graph: LoadedGraph, mapping: Any) -> dict[str, tuple[str, ...]]:
    return {k: tuple(sorted(graph.keys[i] for i in v)) for k, v in mapping.items()}


def _rankings(rt: Runtime) -> list[list[tuple[int, float]]]:
    retriever = build_graph_retriever(rt)
    return [[(h.chunk_id, h.score) for h in retriever.retrieve(Query(q, k=10)).hits] for q in QUESTIONS]


def _same_rankings(got: list[list[tuple[int, float]]], want: list[list[tuple[int, float]]]) -> None:
    """The same chunks in the same order; scores equal but for the link sentences' vectors, which a delta embeds
    in other batches than a whole build (MiniLM's output moves by ~1e-4 with the batch, then float16)."""
    assert [[c for c, _ in hits] for hits in got] == [[c for c, _ in hits] for hits in want]
    for hits, wanted in zip(got, want, strict=True):
        assert [s for _, s in hits] == pytest.approx([s for _, s in wanted], abs=1e-5)


@pytest.fixture
def delta_runtime(make_settings: Any, embedder: Embedder) -> Any:
    rt = Runtime(make_settings(graph=GraphSettings(delta_min_chunks=0, delta_max_share=1.0)), embedder=embedder)
    yield rt
    rt.close()


def test_a_delta_serves_what_a_whole_build_of_the_same_corpus_serves(
        delta_runtime: Runtime, nlp: Any, tmp_path: Path, make_settings: Any, embedder: Embedder) -> None:
    rt = delta_runtime
    first, added, sharing = _split(tmp_path)
    ingest_folder(rt, first)
    assert build(rt, nlp).delta_chunks == 0  # nothing to lay a delta over: a whole build
    base_artifact = rt.artifacts.current(GRAPH)
    assert base_artifact is not None
    ingested = ingest_folder(rt, added)
    report = build(rt, nlp)
    assert report.delta_chunks == ingested.chunks_written > 0
    published = rt.artifacts.current(GRAPH_DELTA)
    assert published is not None and published.manifest["base_artifact"] == base_artifact.sha256
    assert rt.artifacts.current(GRAPH) == base_artifact  # the base is untouched
    laid = graph_holder(rt).current()
    assert laid is not None and laid.manifest["delta"]["chunks"] == ingested.chunks_written
    assert laid.corpus_version == rt.store.corpus_version()
    # Older pages that write her name now link to her page: found through the words index, not a scan.
    okafor = laid.document_node(ingested.document_ids[str(added / "miriam_okafor.md")])
    new_chunk_ids = set(laid.chunk_ids[-report.delta_chunks:].tolist())
    assert set(laid.chunk_ids[laid.chunk_columns_of_entity(okafor)].tolist()) - new_chunk_ids

    # One freshness status: the query's graph stage and GET /v1/artifacts name the base and the delta served.
    explanation = build_graph_retriever(rt).retrieve(Query(QUESTIONS[0], k=10)).explanation
    assert explanation["graph_delta_chunks"] == report.delta_chunks
    assert explanation["graph_base_version"] == int(base_artifact.corpus_version) < explanation["graph_corpus_version"]
    assert "with a delta at corpus version" in check_graph_file(rt).detail and check_graph_file(rt).ok  # doctor
    status = ArtifactSync(rt, None, graph_holder(rt), background_builds=False, listen=False).status()["graph"]
    assert (status["base_version"], status["delta_version"], status["delta_chunks"]) == (
        base_artifact.corpus_version, laid.corpus_version, report.delta_chunks)

    # A second replica (its own data home, the same database) installs the base and the delta and answers alike.
    with Runtime(make_settings(home=tmp_path / "replica"), embedder=embedder) as replica:
        ArtifactSync(replica, None, graph_holder(replica), background_builds=False, listen=False).sync_once()
        served = graph_holder(replica).current()
        assert served is not None and served.manifest.get("delta") == laid.manifest["delta"]
        _same_rankings(_rankings(replica), _rankings(rt))

    # Deltas are cumulative: the next one holds every addition since the base, and replaces the first.
    more = ingest_folder(rt, sharing)
    assert build(rt, nlp).delta_chunks == ingested.chunks_written + more.chunks_written
    assert rt.artifacts.current(GRAPH) == base_artifact
    laid = graph_holder(rt).current()
    assert laid is not None and laid.manifest["delta"]["chunks"] == ingested.chunks_written + more.chunks_written
    delta_rankings = _rankings(rt)

    served_nx = read_served_networkx(rt.settings.graph_path)  # what exports and `graph stats` read

    build_graph(GraphStore(rt.db), rt.settings.graph, rt.settings.graph_path, nlp, full=True, embedder=rt.embedder)
    assert rt.artifacts.current(GRAPH_DELTA) is None and not delta_folder(rt.settings.graph_path).exists()
    whole = load_graph(rt.settings.graph_path, document_edge_weight=rt.settings.graph.document_edge_weight)
    assert "delta" not in whole.manifest
    whole_nx = read_networkx(rt.settings.graph_path)
    assert served_nx.graph["manifest"]["delta"]["chunks"] == laid.manifest["delta"]["chunks"]
    assert {n: (d.get("kind"), d.get("name"), d.get("label")) for n, d in served_nx.nodes(data=True)} == {
        n: (d.get("kind"), d.get("name"), d.get("label")) for n, d in whole_nx.nodes(data=True)}
    assert {frozenset((a, b)): d["kind"] for a, b, d in served_nx.edges(data=True)} == {
        frozenset((a, b)): d["kind"] for a, b, d in whole_nx.edges(data=True)}

    assert sorted(laid.keys) == sorted(whole.keys)
    assert {k: (laid.names[laid.index[k]], laid.labels[laid.index[k]]) for k in laid.keys} == {
        k: (whole.names[whole.index[k]], whole.labels[whole.index[k]]) for k in whole.keys}
    assert _rows(laid, laid.entity_chunks) == _rows(whole, whole.entity_chunks)
    assert _rows(laid, laid.home) == _rows(whole, whole.home)
    laid_edges, whole_edges = _edges(laid), _edges(whole)
    assert laid_edges.keys() == whole_edges.keys()
    for pair, (weight, label) in whole_edges.items():
        assert laid_edges[pair][1] == label, pair
        assert laid_edges[pair][0] == pytest.approx(weight, rel=1e-6), pair
    assert _by_key(laid, laid.aliases) == _by_key(whole, whole.aliases)
    assert {a: laid.titles.resolve(a) for a in whole.titles.targets} == {
        a: whole.titles.resolve(a) for a in whole.titles.targets}
    assert {a: laid.alias_df[a] for a in whole.alias_df} == dict(whole.alias_df)
    for pair in whole_edges:
        a, b = whole.index[pair[0]], whole.index[pair[1]]
        assert laid.sentence_between(laid.index[pair[0]], laid.index[pair[1]]) == whole.sentence_between(a, b)
    np.testing.assert_allclose(np.sort(laid.transition.data), np.sort(whole.transition.data), rtol=1e-12)
    _same_rankings(delta_rankings, _rankings(rt))
    assert any(delta_rankings), "the questions reached the graph: the comparison compared something"


def test_a_delete_leaves_the_published_graph_at_the_first_build_after_compact_after(
        delta_runtime: Runtime, nlp: Any, tmp_path: Path) -> None:
    rt = delta_runtime
    first, added, _sharing = _split(tmp_path)
    documents = ingest_folder(rt, first).document_ids
    build(rt, nlp)
    base_artifact = rt.artifacts.current(GRAPH)
    gone = documents[str(first / "harlow_biotech.md")]
    own = {c.id for c in rt.store.document_chunks(gone)}
    question = Query("Which town is Harlow Biotech based in?", k=10)
    assert own & {h.chunk_id for h in build_graph_retriever(rt).retrieve(question).hits}
    rt.store.delete_document(gone)
    ingest_folder(rt, added)
    assert build(rt, nlp).delta_chunks > 0  # additions with a delete since the base: still a delta, for now
    delta = rt.artifacts.current(GRAPH_DELTA)
    assert delta is not None and delta.manifest["deleting_since"] is not None
    laid = graph_holder(rt).current()
    assert laid is not None and laid.document_node(gone) is not None  # the base still holds it ...
    assert not own & {h.chunk_id for h in build_graph_retriever(rt).retrieve(question).hits}  # ... never ranks it

    expired = rt.settings.graph.model_copy(update={"compact_after": 0.0})
    report = build_graph(GraphStore(rt.db), expired, rt.settings.graph_path, nlp, embedder=rt.embedder)
    assert report.delta_chunks == 0 and rt.artifacts.current(GRAPH_DELTA) is None
    assert rt.artifacts.current(GRAPH) != base_artifact
    whole = graph_holder(rt).current()
    assert whole is not None and gone not in whole.document_index and "delta" not in whole.manifest


def test_an_overlay_reads_as_the_mapping_it_stands_for() -> None:
    base = {"a": 1, "b": 2, "c": 3}
    laid = Overlay(base, {"b": 20, "d": 4}, removed=["c", "x"])
    assert dict(laid) == {"a": 1, "b": 20, "d": 4} and len(laid) == 3 and bool(laid)
    assert "c" not in laid and laid.get("c") is None and laid["b"] == 20
    assert not Overlay({"c": 3}, {}, removed=["c"]) and len(Overlay({}, {}, removed=["x"])) == 0


def test_a_replaced_page_is_named_by_its_new_version_alone_as_in_a_whole_build(
        delta_runtime: Runtime, nlp: Any, tmp_path: Path) -> None:
    """A replaced document is a delete and an add: the delta takes the old version out of the title index, so
    the pages that write its title link to the new version with a whole build's weight, not half of it."""
    rt = delta_runtime
    first, added, _sharing = _split(tmp_path)
    old = ingest_folder(rt, first).document_ids[str(first / "brenmoor.md")]
    build(rt, nlp)
    page = first / "brenmoor.md"
    page.write_text(page.read_text() + "\nBrenmoor opened a ferry terminal in 2024.\n")
    ingest_folder(rt, first)  # the edited page replaces its older version
    ingest_folder(rt, added)
    assert build(rt, nlp).delta_chunks > 0
    new = next(d.id for d in rt.store.list_documents() if d.title == "Brenmoor")
    assert new != old
    laid = graph_holder(rt).current()
    assert laid is not None and laid.titles.resolve("brenmoor") == (new,)

    build_graph(GraphStore(rt.db), rt.settings.graph, rt.settings.graph_path, nlp, full=True, embedder=rt.embedder)
    whole = load_graph(rt.settings.graph_path, document_edge_weight=rt.settings.graph.document_edge_weight)
    assert {a: laid.titles.resolve(a) for a in whole.titles.targets} == {
        a: whole.titles.resolve(a) for a in whole.titles.targets}
    assert {a: laid.alias_df[a] for a in whole.alias_df} == dict(whole.alias_df)
    documents = {pair: w for pair, w in _edges(whole).items() if all(k.startswith("doc:") for k in pair)}
    assert any(f"doc:{new}" in pair for pair in documents), "older pages write its title: links were compared"
    laid_edges = _edges(laid)
    for pair, (weight, _label) in documents.items():
        assert laid_edges[pair][0] == pytest.approx(weight, rel=1e-6), pair
