"""The graph end to end on a real corpus and a real Postgres: build, serve, fuse, delete, rebuild, lock.

The corpus (tests/data/graph_corpus) is written so the answer to "Which school trained the founder
of Harlow Biotech?" sits in a chunk that shares no content word with the question (Miriam Okafor's
biography) while five distractor chunks about other founders and schools share many: only the
entity chain Harlow Biotech → Miriam Okafor can bring it up.
"""

from __future__ import annotations

import dataclasses
import gzip
import hashlib
import json
import mmap
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import kgrag.kg.build
import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from kgrag.core.errors import BuildLockedError
from kgrag.core.runtime import Runtime
from kgrag.core.types import Filters
from kgrag.ingest.loaders import load_text
from kgrag.ingest.pipeline import Ingestor
from kgrag.kg.arrays import folder_of as arrays_folder
from kgrag.kg.assemble import from_node_link
from kgrag.kg.build import build_graph
from kgrag.kg.documents import DocumentLayer, MentionLink, TitleDocument, TitleIndex
from kgrag.kg.extract import Mention, Relation
from kgrag.kg.graphfile import read_data, read_networkx, write_graph
from kgrag.kg.holder import load_graph
from kgrag.kg.serving import LoadedGraph
from kgrag.kg.store import GraphSnapshot, GraphStore
from kgrag.kg.tables import Lookup, Strings
from kgrag.retrieval.base import Query, Retriever
from kgrag.retrieval.bm25 import BM25Retriever
from kgrag.retrieval.dense import DenseRetriever
from kgrag.retrieval.fusion import reciprocal_rank_fusion
from kgrag.retrieval.graph import build_graph_retriever

from tests.kg_fixtures import build, ingest_folder, nlp_fixture  # noqa: F401  (the `nlp` fixture)

QUESTION = "Which school trained the founder of Harlow Biotech?"
TARGET_TITLE = "Miriam Okafor"


def _chunks_by_title(rt: Runtime) -> dict[str, int]:
    return {c.title: c.id for c in rt.store.iter_chunks()}


def _content_words(text: str) -> set[str]:
    from spacy.lang.en.stop_words import STOP_WORDS

    return {w for w in re.findall(r"[a-z]+", text.lower()) if w not in STOP_WORDS}


def _retrievers(rt: Runtime) -> dict[str, Retriever]:
    s = rt.settings
    return {
        "dense": DenseRetriever(rt.db, rt.checked_embedder, s.retrieval),
        "bm25": BM25Retriever(rt.store, s.retrieval, s.index_dir),
        "graph": build_graph_retriever(rt),
    }


def _rows(rt: Runtime) -> tuple[set[tuple[Any, ...]], set[tuple[Any, ...]]]:
    with rt.db.connection() as conn:
        mentions = set(conn.execute("SELECT entity_id, chunk_id, surface, label, count FROM kg_mentions").fetchall())
        relations = set(conn.execute("SELECT source_id, target_id, relation, chunk_id, weight FROM kg_relations"))
    return mentions, relations


def test_graph_brings_an_entity_linked_chunk_with_no_shared_word_into_the_fused_top5(
        runtime: Runtime, nlp: Any) -> None:
    ingest_folder(runtime)
    report = build(runtime, nlp)
    assert report.entities > 10 and report.relations > 10 and report.chunks_covered == 12
    target = _chunks_by_title(runtime)[TARGET_TITLE]
    target_text = runtime.store.chunks([target])[target].text
    assert not _content_words(QUESTION) & _content_words(target_text)

    results = {name: r.retrieve(Query(QUESTION, k=20)) for name, r in _retrievers(runtime).items()}
    assert all(r.status.state == "ran" for r in results.values()), {n: r.status for n, r in results.items()}
    graph = results["graph"]
    assert graph.explanation["linked_entities"][0]["name"] == "Harlow Biotech"
    graph_ranks = {h.chunk_id: h for h in graph.hits}
    assert graph_ranks[target].rank <= 3
    assert graph_ranks[target].explanation["path"] == ["Harlow Biotech", "Miriam Okafor"]
    assert target not in {h.chunk_id for h in results["bm25"].hits}  # nothing lexical to match

    k = runtime.settings.retrieval.rrf_k
    without = reciprocal_rank_fusion({s: results[s].hits for s in ("dense", "bm25")}, k=k)
    with_graph = reciprocal_rank_fusion({s: results[s].hits for s in ("dense", "bm25", "graph")}, k=k)
    assert target not in [h.chunk_id for h in without[:5]]
    assert target in [h.chunk_id for h in with_graph[:5]]


def test_every_graph_hit_cites_a_real_chunk_and_filters_are_honoured(runtime: Runtime, nlp: Any) -> None:
    ingest_folder(runtime)
    build(runtime, nlp)
    by_title = _chunks_by_title(runtime)
    retriever = build_graph_retriever(runtime)
    harlow_doc = runtime.store.chunks([by_title["Harlow Biotech"]])[by_title["Harlow Biotech"]].document_id
    hits = retriever.retrieve(Query(QUESTION, k=20)).hits
    assert set(runtime.store.chunks([h.chunk_id for h in hits])) == {h.chunk_id for h in hits}
    filtered = retriever.retrieve(Query(QUESTION, Filters(document_ids=(harlow_doc,)), k=20))
    assert [h.chunk_id for h in filtered.hits] == [by_title["Harlow Biotech"]]
    other = retriever.retrieve(Query(QUESTION, Filters(sources=("nowhere",)), k=20))
    assert other.hits == () and other.status.state == "ran"


def test_khop_traversal_is_the_configurable_alternative(make_settings: Any, embedder: Any, nlp: Any) -> None:
    settings = make_settings()
    rt = Runtime(settings.model_copy(update={"graph": settings.graph.model_copy(update={"traversal": "khop"})}),
                 embedder=embedder)
    try:
        ingest_folder(rt)
        build(rt, nlp)
        result = build_graph_retriever(rt).retrieve(Query(QUESTION, k=20))
        assert result.explanation["traversal"] == "khop"
        titles = [rt.store.chunks([h.chunk_id])[h.chunk_id].title for h in result.hits]
        assert titles[0] == "Harlow Biotech" and TARGET_TITLE in titles[:3]
    finally:
        rt.close()


def test_no_graph_file_is_reported_not_silently_absent(runtime: Runtime) -> None:
    result = build_graph_retriever(runtime).retrieve(Query(QUESTION))
    assert result.status.state == "skipped"
    assert "no graph has been built yet" in result.status.reason and "kgrag graph build" in result.status.reason
    assert str(runtime.settings.home) not in result.status.reason  # the reason reaches API clients


def test_delete_removes_exactly_the_documents_evidence(runtime: Runtime, nlp: Any) -> None:
    ingest_folder(runtime)
    build(runtime, nlp)
    target = _chunks_by_title(runtime)[TARGET_TITLE]
    mentions, relations = _rows(runtime)
    assert any(m[1] == target for m in mentions) and any(r[3] == target for r in relations)
    document_id = runtime.store.chunks([target])[target].document_id
    retriever = build_graph_retriever(runtime)
    runtime.store.delete_document(document_id)

    after_mentions, after_relations = _rows(runtime)
    with runtime.db.connection() as conn:
        keys = {r[0] for r in conn.execute("SELECT key FROM kg_entities").fetchall()}
    assert "lisbon" not in keys and "miriam okafor" in keys  # pruned by the delete itself, not the next build
    assert after_mentions == {m for m in mentions if m[1] != target}
    assert after_relations == {r for r in relations if r[3] != target}
    stale = retriever.retrieve(Query(QUESTION, k=20))  # the old file still serves, says so, cites no ghost
    assert "stale" in stale.status.reason and target not in {h.chunk_id for h in stale.hits}

    report = build(runtime, nlp)
    # Lisbon was only in that chunk: its entity went with the delete, so the build has none left to prune.
    assert report.chunks_processed == 0 and report.pruned_entities == 0
    g = read_networkx(runtime.settings.graph_path)
    assert "lisbon" not in g and "miriam okafor" in g  # still cited by the Harlow Biotech chunk
    assert all(c != target for _, chunks in g.nodes(data="chunks") for c, _ in chunks)
    fresh = retriever.retrieve(Query(QUESTION, k=20))  # reloaded the new file on its own
    assert fresh.status.reason == "" and fresh.explanation["graph_corpus_version"] == runtime.store.corpus_version()


def _same_graph(a: LoadedGraph, b: LoadedGraph) -> None:
    """Every field that serving reads, compared exactly (matrices by structure, dtype and values)."""
    for f in dataclasses.fields(LoadedGraph):
        x, y = getattr(a, f.name), getattr(b, f.name)
        if f.name in ("path", "signature", "link_vectors", "link_vectors_model"):
            continue  # the vectors are the build's, beside the file (tests/test_query_vector.py checks them)
        if sp.issparse(x):
            assert x.shape == y.shape and x.dtype == y.dtype, f.name
            for part in ("data", "indices", "indptr"):
                assert np.array_equal(getattr(x, part), getattr(y, part)), (f.name, part)
        elif isinstance(x, np.ndarray):
            assert x.dtype == y.dtype and np.array_equal(x, y), f.name
        elif isinstance(x, TitleIndex):
            assert _plain(x.documents) == _plain(y.documents) and _plain(x.targets) == _plain(y.targets)
            assert set(x.prefixes) == set(y.prefixes)  # type: ignore[call-overload]
        else:
            assert _plain(x) == _plain(y), f.name


def _plain(x: Any) -> Any:
    """Mapped tables (kg.tables) as the dicts and tuples a parse makes, to compare the two exactly."""
    if isinstance(x, Mapping):
        return {k: _plain(v) for k, v in x.items()}
    if isinstance(x, Sequence) and not isinstance(x, str):
        return tuple(_plain(v) for v in x)
    return x


def _mapped(array: Any) -> bool:
    """Backed by a memory-mapped file (scipy keeps a view of the np.memmap, not the memmap itself)."""
    while array is not None:
        if isinstance(array, mmap.mmap):
            return True
        array = getattr(array, "base", None)
    return False


def test_replicas_map_the_arrays_a_build_wrote_and_they_equal_the_parsed_file(runtime: Runtime, nlp: Any) -> None:
    ingest_folder(runtime)
    build(runtime, nlp)
    path = runtime.settings.graph_path
    weight = runtime.settings.graph.document_edge_weight
    mapped = load_graph(path, document_edge_weight=weight)
    assert _mapped(mapped.transition.data) and _mapped(mapped.chunk_ids), "served from the arrays, not a parse"
    assert isinstance(mapped.index, Lookup) and isinstance(mapped.names, Strings), "no object per node at load"
    parsed = from_node_link(read_data(path), path=path, signature=mapped.signature, document_edge_weight=weight)
    _same_graph(mapped, parsed)
    assert mapped.stats["documents"] > 0 and mapped.link_sentences and mapped.aliases

    # Other traversal weights than the build's: the arrays do not apply, the file is parsed.
    other = load_graph(path, document_edge_weight=weight + 1)
    assert not _mapped(other.transition.data)
    # Arrays from another file (a half-finished swap) are never used for this one.
    (arrays_folder(path) / "graph.json").write_text((arrays_folder(path) / "graph.json").read_text().replace(
        '"source_sha256":"', '"source_sha256":"0'))
    assert not _mapped(load_graph(path, document_edge_weight=weight).transition.data)


def _writer_rows() -> tuple[list[Mention], list[Relation], DocumentLayer]:
    """Rows with what the writer must get right: a key outside ASCII, a self-loop, several relations on one
    pair in both directions, an entity a title names, mention links both ways between documents, and
    enough of it to pass the writer's 1 MiB buffer; mentions in key order, relations in pair order."""
    def m(key: str, chunk: int, surface: str, label: str = "ORG", count: int = 1) -> Mention:
        return Mention(chunk_id=chunk, key=key, surface=surface, label=label, count=count)

    def r(source: str, target: str, label: str, chunk: int, weight: int) -> Relation:
        return Relation(source=source, target=target, relation=label, chunk_id=chunk, weight=weight)

    mentions = [m("ada lovelace", 1, "Ada Lovelace", "PERSON"), m("ada lovelace", 2, "Lovelace", "PERSON", 2),
                m("zurich", 2, "Zürich", "GPE"), m("zurich", 1, "Zurich", "GPE", 3), m("øresund", 3, "Øresund")]
    mentions += [m(f"e{n:04d}", 3 + n % 5, f"E{n:04d} " + "x" * 300) for n in range(3000)]
    relations = [r("zurich", "ada lovelace", "born in", 1, 2), r("ada lovelace", "zurich", "co-occurs", 1, 1),
                 r("ada lovelace", "zurich", "co-occurs", 2, 2), r("zurich", "zurich", "co-occurs", 1, 2),
                 r("ghost", "zurich", "co-occurs", 1, 1), r("øresund", "e0001", "co-occurs", 4, 1)]
    relations += [r("ada lovelace", f"e{n:04d}", "x" * 200, 3 + n % 5, 1) for n in range(3000)]
    mentions.sort(key=lambda x: x.key)
    relations.sort(key=lambda x: tuple(sorted((x.source, x.target))))
    titles = (TitleDocument(7, "Zürich", "zurich", ("zurich",)),
              TitleDocument(3, "Øresund Press", "øresund press", ("øresund press",)),
              TitleDocument(9, "Unread", "unread", ("unread",)))
    links = (MentionLink(1, 7, 3, "øresund press", 0.5, "Zürich «quoted» Øresund Press."),
             MentionLink(3, 3, 7, "zurich", 1.0, "Øresund Press in Zürich."),
             MentionLink(2, 7, 3, "øresund press", 0.25, "again"))
    return mentions, relations, DocumentLayer(titles, links, {"zurich": 2, "øresund press": 1})


def test_the_streamed_graph_file_is_networkx_node_link_encoding_of_its_graph(tmp_path: Path) -> None:
    mentions, relations, layer = _writer_rows()
    chunk_documents = [(1, 7), (2, 7)] + [(c, 3) for c in range(3, 8)]
    snapshot = GraphSnapshot(5, 0, iter(mentions), iter(relations), chunk_documents)
    written = write_graph(snapshot, {"format": "kgrag-graph/2"}, layer, tmp_path)
    data = written.path.read_bytes()
    assert hashlib.sha256(data).hexdigest() == written.sha256
    assert written.path.parent == tmp_path and written.path.name.endswith(".tmp")
    assert not list(tmp_path.glob("tmp*")), "the node spool is gone"
    g = nx.node_link_graph(json.loads(gzip.decompress(data)), edges="edges")
    # What NetworkX writes for the graph it reads back (its iteration order, its keys) is this very file.
    one_shot = json.dumps(nx.node_link_data(g, edges="edges"), sort_keys=True, separators=(",", ":"),
                          ensure_ascii=False).encode()
    assert data == gzip.compress(one_shot, compresslevel=6, mtime=0)
    entities = [n for n, kind in g.nodes(data="kind") if kind == "entity"]
    assert entities == sorted(entities) and entities[-1] == "øresund" and "ghost" not in g
    assert g.has_edge("zurich", "zurich") and g.has_edge("øresund", "e0001")
    pair = g.edges["ada lovelace", "zurich"]
    assert pair["weight"] == 5 and [(r["label"], r["source"], r["chunks"]) for r in pair["relations"]] == [
        ("born in", "zurich", [1]), ("co-occurs", "ada lovelace", [1, 2])]
    assert g.edges["doc:7", "zurich"]["kind"] == "titled" and "doc:9" not in g  # no chunk of its own
    link = g.edges["doc:3", "doc:7"]
    assert link["kind"] == "mentions-document" and len(link["relations"]) == 2 and link["weight"] == 1.0
    assert written.counts == {"entities": len(g), "edges": g.number_of_edges(), "documents": 2, "chunks": 7,
                              "document_links": 3, "relations": sum(len(r) for *_, r in g.edges(data="relations"))}
    assert g.graph["manifest"]["counts"] == written.counts
    assert abs(sum(p for _, p in g.nodes(data="pagerank")) - 1.0) < 1e-6


def test_the_writer_refuses_rows_out_of_order_and_leaves_no_file(tmp_path: Path) -> None:
    mentions, relations, layer = _writer_rows()
    shuffled = GraphSnapshot(1, 0, iter(mentions[::-1]), iter(relations), [(1, 7)])
    with pytest.raises(ValueError, match="key order"):
        write_graph(shuffled, {}, layer, tmp_path)
    unpaired = GraphSnapshot(1, 0, iter(mentions), iter(relations[::-1]), [(1, 7)])
    with pytest.raises(ValueError, match="pair order"):
        write_graph(unpaired, {}, layer, tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_rebuild_is_byte_identical_and_incremental_processes_only_new_chunks(runtime: Runtime, nlp: Any) -> None:
    ingest_folder(runtime)
    first = build(runtime, nlp)
    path = runtime.settings.graph_path
    original = path.read_bytes()
    assert build(runtime, nlp, rebuild=True).rebuilt
    assert path.read_bytes() == original

    ingestor = Ingestor(runtime.store, runtime.checked_embedder(), runtime.settings.chunking,
                        runtime.settings.embedding)
    added = ingestor.ingest_documents([load_text(
        "Greywater Observatory was built by Edith Calloway's nephew, Rowan Calloway, in 1931.",
        source="extra:observatory", title="Greywater Observatory")])
    incremental = build(runtime, nlp)
    assert incremental.chunks_processed == added.chunks_written == 1
    assert incremental.chunks_covered == first.chunks_covered + 1
    assert "greywater observatory" in read_networkx(path)
    after_incremental = path.read_bytes()
    build(runtime, nlp, rebuild=True)
    assert path.read_bytes() == after_incremental  # incremental and from-scratch agree byte for byte


def test_second_concurrent_build_is_refused(runtime: Runtime, nlp: Any) -> None:
    ingest_folder(runtime)
    with GraphStore(runtime.db).build_lock(), pytest.raises(BuildLockedError, match="another"):
        build(runtime, nlp)
    assert not runtime.settings.graph_path.exists()
    assert build(runtime, nlp).chunks_processed == 12  # the lock is released with its holder


def test_interrupted_build_keeps_the_old_file_and_the_next_build_finishes(
        runtime: Runtime, nlp: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    ingest_folder(runtime)
    build(runtime, nlp)
    path = runtime.settings.graph_path
    before = path.read_bytes()
    monkeypatch.setattr(kgrag.kg.build, "DOCUMENTS_BATCH_CHUNKS", 1)  # one document per transaction
    batches = 0

    def die_after_two(_n: int) -> None:
        nonlocal batches
        batches += 1
        if batches == 2:
            raise KeyboardInterrupt  # what Ctrl-C does mid-build; kill -9 stops even earlier

    store = GraphStore(runtime.db)
    with pytest.raises(KeyboardInterrupt):
        kgrag.kg.build.build_graph(store, runtime.settings.graph, path, nlp, rebuild=True, on_progress=die_after_two)
    assert path.read_bytes() == before
    assert store.counts()["processed_chunks"] == 2  # two whole batches committed, nothing half-written
    resumed = build(runtime, nlp)
    assert resumed.chunks_processed == 10
    assert path.read_bytes() == before


_KILLABLE_BUILD = """
import sys, time
import kgrag.kg.build
from kgrag.core.runtime import Runtime
from kgrag.core.settings import DatabaseSettings, GraphSettings, Settings
from kgrag.core.nlp import load_spacy
from kgrag.kg.store import GraphSnapshot, GraphStore

kgrag.kg.build.DOCUMENTS_BATCH_CHUNKS = 1
settings = Settings(_env_file=None, home=sys.argv[1], database=DatabaseSettings(url=sys.argv[2]),
                    graph=GraphSettings(processes=2))

def slow(_n):
    print("batch", flush=True)
    time.sleep(0.3)

with Runtime(settings) as rt:
    kgrag.kg.build.build_graph(GraphStore(rt.db), settings.graph, settings.graph_path,
                         load_spacy(settings.graph.spacy_model), rebuild=True, on_progress=slow)
"""


def _children(pid: int) -> set[int]:
    from pathlib import Path

    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.add(int(stat.parent.name))
    return found


def _alive(pid: int) -> bool:
    from pathlib import Path

    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_kill_9_during_a_build_leaves_the_old_file_and_releases_the_lock(runtime: Runtime, nlp: Any) -> None:
    import os
    import signal
    import subprocess
    import sys
    import time

    ingest_folder(runtime)
    build(runtime, nlp)
    path = runtime.settings.graph_path
    before = path.read_bytes()
    proc = subprocess.Popen(
        [sys.executable, "-c", _KILLABLE_BUILD, str(runtime.settings.home), str(runtime.settings.database.url)],
        stdout=subprocess.PIPE, text=True, env={**os.environ, "HF_HUB_OFFLINE": "1"},
    )
    try:
        assert proc.stdout is not None
        for _ in range(3):
            assert proc.stdout.readline().strip() == "batch"
        workers = _children(proc.pid)
        assert len(workers) >= 2  # the spaCy worker processes (plus multiprocessing's resource tracker)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    deadline = time.monotonic() + 10
    while any(_alive(w) for w in workers) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not any(_alive(w) for w in workers), "worker processes outlived the killed build"
    assert path.read_bytes() == before
    assert 3 <= GraphStore(runtime.db).counts()["processed_chunks"] < 12
    resumed = _build_when_unlocked(runtime, nlp)  # the dead build's lock goes with its connection
    assert 0 < resumed.chunks_processed <= 9
    assert path.read_bytes() == before


def _build_when_unlocked(rt: Runtime, nlp: Any, timeout: float = 20.0) -> Any:
    """Postgres ends a killed client's session a moment after the socket closes; then the lock is free."""
    import time

    deadline = time.monotonic() + timeout
    while True:
        try:
            return build(rt, nlp)
        except BuildLockedError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def test_a_build_with_two_spacy_processes_writes_the_same_file(runtime: Runtime, nlp: Any) -> None:
    ingest_folder(runtime)
    build(runtime, nlp)
    single = runtime.settings.graph_path.read_bytes()
    graph = runtime.settings.graph.model_copy(update={"processes": 2, "batch_size": 2})
    batches: list[int] = []
    stages: list[tuple[str, int]] = []
    report = build_graph(GraphStore(runtime.db), graph, runtime.settings.graph_path, nlp, rebuild=True,
                         batch_chunks=2, on_progress=batches.append,
                         on_stage=lambda name: stages.append((name, len(batches))))
    assert report.rebuilt and len(batches) > 4  # enough batches to keep both workers busy
    assert runtime.settings.graph_path.read_bytes() == single
    # The steps after extraction are announced in order, each once, and only after every batch.
    assert [name for name, _ in stages] == [
        "pruning orphan entities", "linking documents by title", "writing the graph file",
        "writing the serving arrays", "publishing"]
    assert {done for _, done in stages} == {len(batches)}
