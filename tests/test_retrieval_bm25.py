"""BM25: tokenisation, parity with rank-bm25's BM25Okapi on real SciFact passages, filters, the
published and memory-mapped index, and what a query does when the corpus has moved past it."""

from __future__ import annotations

import json
import shutil
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from kgrag.core.models import Embedder
from kgrag.core.runtime import Runtime
from kgrag.core.types import Filters
from kgrag.retrieval.base import Query
from kgrag.retrieval.bm25 import BM25Index, BM25Retriever, index_text, install, load_index, load_installed, tokenize
from kgrag.retrieval.maintenance import delete_document_everywhere, publish_bm25

from tests.retrieval_corpus import RARE_TERM_DOC, SCIFACT, corpus_runtime, ingest, planted_loaded, source_of


@pytest.fixture(scope="module")
def corpus_rt(pg_server: str, embedder: Embedder, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Runtime]:
    with corpus_runtime(pg_server, embedder, tmp_path_factory.mktemp("bm25")) as rt:
        yield rt


# Okapi idf is zero for a term in over half the chunks, so tiny corpora need a few bystanders.
FILLER = [("f1", "Tides", "Tides follow the moon."), ("f2", "Bread", "Yeast makes bread rise."),
          ("f3", "Rust", "Iron oxidises in damp air.")]


def _retriever(rt: Runtime) -> BM25Retriever:
    return BM25Retriever(rt.store, rt.settings.retrieval, rt.settings.index_dir)


# -- tokenisation -----------------------------------------------------------------------------------
def test_tokenize_lowercases_drops_stopwords_and_stems() -> None:
    assert tokenize("The Studies ARE running in Mice") == ["studi", "run", "mice"]


def test_tokenize_keeps_cjk_as_unigrams_and_bigrams() -> None:
    tokens = tokenize("東京大学")
    assert tokens == ["東", "京", "大", "学", "東京", "京大", "大学"]
    mixed = tokenize("Tokyo 東京 and ภาษา")
    assert "tokyo" in mixed and "東京" in mixed and "ภา" in mixed and "and" not in mixed


def test_tokenize_splits_codes_on_punctuation() -> None:
    assert tokenize("VXQ-88217, IL-6") == ["vxq", "88217", "il", "6"]


# -- parity with rank-bm25 --------------------------------------------------------------------------
def _test_queries(n: int) -> list[str]:
    with (SCIFACT / "queries.jsonl").open(encoding="utf-8") as fh:
        return [json.loads(line)["text"] for _, line in zip(range(n), fh, strict=False)]


def test_scores_and_ranking_match_bm25okapi(corpus_rt: Runtime) -> None:
    from rank_bm25 import BM25Okapi

    chunks = list(corpus_rt.store.iter_chunks())
    corpus = [tokenize(index_text(c.title, c.text)) for c in chunks]
    ids = np.array([c.id for c in chunks])
    s = corpus_rt.settings.retrieval
    reference = BM25Okapi(corpus, k1=s.bm25_k1, b=s.bm25_b)
    half = len(corpus) / 2
    retriever = _retriever(corpus_rt)
    compared = 0
    for text in [*_test_queries(40), "heart failure ejection fraction"]:
        tokens = tokenize(text)
        # Terms in over half the chunks are where the two floor idf differently (see retrieval/bm25_index.py).
        if any(sum(t in doc for doc in corpus) > half for t in set(tokens)):
            continue
        expected = reference.get_scores(tokens)
        order = np.lexsort((ids, -expected))
        order = order[expected[order] > 0][:10]
        got = retriever.retrieve(Query(text, k=10)).hits
        assert [h.chunk_id for h in got] == ids[order].tolist(), text
        np.testing.assert_allclose([h.score for h in got], expected[order], rtol=1e-4)
        compared += 1
    assert compared >= 30


# -- filters ----------------------------------------------------------------------------------------
def test_filters_restrict_bm25_and_still_fill_k(corpus_rt: Runtime) -> None:
    retriever = _retriever(corpus_rt)
    sources = source_of(corpus_rt)
    query = "heart failure patients therapy"
    unfiltered = retriever.retrieve(Query(query, k=10)).hits
    assert sources[unfiltered[0].chunk_id] == RARE_TERM_DOC[0]

    only_scifact = retriever.retrieve(Query(query, Filters(metadata=(("corpus", "scifact"),)), k=10)).hits
    assert len(only_scifact) == 10
    assert all(sources[h.chunk_id].startswith("scifact/") for h in only_scifact)

    by_source = retriever.retrieve(Query(query, Filters(sources=(RARE_TERM_DOC[0],)), k=10)).hits
    assert [sources[h.chunk_id] for h in by_source] == [RARE_TERM_DOC[0]]

    doc_id = corpus_rt.store.chunks([only_scifact[3].chunk_id])[only_scifact[3].chunk_id].document_id
    by_doc = retriever.retrieve(Query(query, Filters(document_ids=(doc_id,)), k=10)).hits
    records = corpus_rt.store.chunks([h.chunk_id for h in by_doc])
    assert by_doc and {r.document_id for r in records.values()} == {doc_id}


def test_query_without_known_terms_returns_nothing(corpus_rt: Runtime) -> None:
    result = _retriever(corpus_rt).retrieve(Query("the of and", k=5))
    assert result.hits == () and result.status.state == "ran"


# -- persistence, publishing and freshness ----------------------------------------------------------
def test_index_is_published_installed_and_loaded_memory_mapped(runtime: Runtime) -> None:
    ingest(runtime, planted_loaded([RARE_TERM_DOC]))
    first = _retriever(runtime).current_index()
    assert first is not None and first.path is not None and first.path.parent == runtime.settings.index_dir / "bm25"
    published = runtime.artifacts.current("bm25", _retriever(runtime).variant)
    assert published is not None and first.artifact == published.sha256
    assert first.database_id == runtime.artifacts.database_id()

    again = _retriever(runtime).current_index()  # a new process: installs the same folder, does not rebuild
    assert again is not None and again.path == first.path
    assert isinstance(again.scorer.scores["data"], np.memmap)
    assert isinstance(again.chunk_ids, np.memmap)
    assert again.corpus_version == runtime.store.corpus_version()


def test_a_query_never_builds_it_serves_the_old_index_and_says_it_is_stale(runtime: Runtime) -> None:
    woken: list[int] = []
    retriever = BM25Retriever(runtime.store, runtime.settings.retrieval, runtime.settings.index_dir,
                              on_stale=lambda: woken.append(1))
    ingest(runtime, planted_loaded([*FILLER, ("a", "Alpha", "Glaciers retreat in warm summers.")]))
    old = retriever.current_index()
    assert old is not None and retriever.retrieve(Query("glacier", k=5)).hits
    assert not woken, "a fresh index wakes nobody"

    report = ingest(runtime, planted_loaded([("b", "Beta", "Zebrafish regenerate heart tissue.")]), publish=False)
    stale = retriever.retrieve(Query("zebrafish glacier", k=5))
    assert [h.chunk_id for h in stale.hits] == [h.chunk_id for h in retriever.retrieve(Query("glacier", k=5)).hits]
    assert "corpus version" in stale.status.reason and "kgrag index build" in stale.status.reason
    assert woken, "a stale index wakes the background builder"
    assert retriever.current_index() is old, "nothing was built on the query's path"
    assert runtime.artifacts.current("bm25", retriever.variant).corpus_version == old.corpus_version

    publish_bm25(runtime)
    new = retriever.sync()
    assert new is not None and new is not old and new.corpus_version > old.corpus_version
    assert len(retriever.retrieve(Query("zebrafish", k=5)).hits) == 1
    assert old.size == 4 and new.size == 5  # the old snapshot was never mutated
    assert retriever.retrieve(Query("zebrafish", k=5)).status.reason == ""

    delete_document_everywhere(runtime, report.document_ids["b"])
    assert retriever.sync().size == 4
    assert retriever.retrieve(Query("zebrafish", k=5)).hits == ()
    folders = [p for p in (runtime.settings.index_dir / "bm25").iterdir() if p.is_dir()]
    assert len(folders) == 1  # older versions are cleaned up here
    with runtime.db.connection() as conn:
        kept = conn.execute("SELECT count(*) FROM kgrag_artifacts WHERE kind = 'bm25'").fetchone()[0]
    assert kept == 1, "and in the database: a deleted document's words leave with it"


def test_concurrent_publishers_build_once_and_queries_never_wait_for_them(runtime: Runtime) -> None:
    ingest(runtime, planted_loaded([*FILLER, ("a", "Alpha", "Glaciers retreat in warm summers.")]))
    retriever = _retriever(runtime)
    retriever.current_index()
    ingest(runtime, planted_loaded([("b", "Beta", "Zebrafish regenerate heart tissue.")]), publish=False)
    barrier = threading.Barrier(6)
    published: list[str] = []
    results: list[tuple[int, ...]] = []

    def publisher() -> None:
        barrier.wait()
        published.append(publish_bm25(runtime).artifact)

    def query() -> None:
        barrier.wait()
        results.append(tuple(h.chunk_id for h in retriever.retrieve(Query("zebrafish glacier", k=5)).hits))

    threads = [threading.Thread(target=publisher) for _ in range(3)] + [threading.Thread(target=query)
                                                                       for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(published)) == 1, "one build; the publishers that waited installed it"
    with runtime.db.connection() as conn:
        assert conn.execute("SELECT count(*) FROM kgrag_artifacts WHERE kind = 'bm25'").fetchone()[0] == 1
    assert len(results) == 3 and all(len(r) == 1 for r in results), "queries served the old index meanwhile"
    retriever.sync()
    assert len(retriever.retrieve(Query("zebrafish glacier", k=5)).hits) == 2


def test_cjk_document_is_found_by_a_two_character_query(runtime: Runtime) -> None:
    ingest(runtime, planted_loaded([
        *FILLER, ("zh", "東京の研究", "東京大学の研究者は新しい触媒を開発した。"),
        ("en", "Catalysts", "Researchers developed a new catalyst in Osaka."),
    ]))
    hits = _retriever(runtime).retrieve(Query("触媒", k=5)).hits
    assert [source_of(runtime)[h.chunk_id] for h in hits] == ["zh"]


def test_nothing_published_is_a_skipped_stage_with_the_fix(runtime: Runtime) -> None:
    result = _retriever(runtime).retrieve(Query("anything", k=5))
    assert result.hits == () and result.status.state == "skipped"
    assert "no BM25 index has been published" in result.status.reason and "kgrag index build" in result.status.reason


def test_empty_corpus_gives_no_hits_and_a_loadable_index(runtime: Runtime) -> None:
    publish_bm25(runtime)
    assert _retriever(runtime).retrieve(Query("anything", k=5)).hits == ()
    index = load_index(runtime.settings.index_dir / "bm25")
    assert index is not None and index.size == 0


@dataclass(frozen=True)
class _AroundADelete:
    root: Path
    older: Path
    """The index folder before the delete: swept from the home by the delete's install."""
    newer: BM25Index
    kept: Path
    """A copy of ``older`` made before the delete: what a replica's sync thread had downloaded."""


def _around_a_delete(runtime: Runtime, tmp_path: Path, source: str) -> _AroundADelete:
    """An index published, a document ingested and then deleted: the delete published and installed a newer one."""
    ingest(runtime, planted_loaded([RARE_TERM_DOC]))
    root = runtime.settings.index_dir / "bm25"
    older = load_index(root)
    assert older is not None and older.path is not None
    kept = tmp_path / "kept" / older.path.name
    shutil.copytree(older.path, kept)
    doc_id = next(iter(ingest(runtime, planted_loaded([(source, "Harbours", "Tide gauges in Brenmoor Bay.")]))
                       .document_ids.values()))
    delete_document_everywhere(runtime, doc_id)
    newer = load_index(root)
    assert newer is not None and newer.path is not None and newer.corpus_version > older.corpus_version
    return _AroundADelete(root, older.path, newer, kept)


def test_a_late_install_of_an_older_index_never_replaces_the_one_a_delete_installed(
        runtime: Runtime, tmp_path: Path) -> None:
    """The DELETE 500 (issue 28): a replica's sync thread, still installing the index published before a
    delete, pointed CURRENT back at it and removed the delete's new folder just before the delete loaded
    it. The older index also holds the deleted document's words: it must not come back."""
    d = _around_a_delete(runtime, tmp_path, "late/2")
    shutil.copytree(d.kept, d.older)  # the late install, now
    current = install(d.root, d.older)
    after = load_index(d.root)
    assert after is not None and after.path == d.newer.path and after.corpus_version == d.newer.corpus_version
    assert not d.older.exists(), "the older index, with the deleted words, is gone from the home"
    assert current == d.newer.path, "the caller loads the index that stayed current"


def test_an_install_of_the_version_before_keeps_a_newer_folder_that_is_not_current_yet(
        runtime: Runtime, tmp_path: Path) -> None:
    """The DELETE 500 seen in CI: the delete's publish had renamed its new index in, but not yet pointed
    CURRENT at it, when the sync thread installed the version before and swept every other folder; the
    delete then pointed CURRENT at a folder that was gone."""
    d = _around_a_delete(runtime, tmp_path, "late/3")
    assert d.newer.path is not None
    shutil.copytree(d.kept, d.older)  # CURRENT still names the version before: the delete has not installed yet
    (d.root / "CURRENT").write_text(d.older.name)
    assert install(d.root, d.older) == d.older  # the sync thread's install of the version before
    assert d.newer.path.exists(), "the delete's folder, newer and about to be installed, is kept"
    assert install(d.root, d.newer.path) == d.newer.path  # the delete's install
    assert not d.older.exists()


def test_a_late_install_of_a_folder_a_newer_install_already_swept_keeps_the_newer_one(
        runtime: Runtime, tmp_path: Path) -> None:
    """The DELETE 500 of stop 40's CI: the sync thread had downloaded the version before, the delete's
    install then swept that folder, and the sync thread's install, unable to read the swept folder's
    version, pointed CURRENT at it and swept the delete's folder just before the delete loaded it."""
    d = _around_a_delete(runtime, tmp_path, "late/4")
    assert d.newer.path is not None
    assert not d.older.exists(), "the delete's install swept the version before"
    current = install(d.root, d.older)  # the sync thread's install, late, of the folder now gone
    assert current == d.newer.path
    assert (d.root / "CURRENT").read_text().strip() == d.newer.path.name
    assert load_installed(d.root, current).corpus_version == d.newer.corpus_version


def test_loading_an_installed_folder_a_newer_install_swept_loads_the_newer_one(
        runtime: Runtime, tmp_path: Path) -> None:
    """Between a publish's install and its load, a newer install may sweep the folder; the request that
    published it serves the newer index instead of failing."""
    d = _around_a_delete(runtime, tmp_path, "late/5")
    loaded = load_installed(d.root, d.older, artifact="stale")
    assert loaded.path == d.newer.path and loaded.corpus_version == d.newer.corpus_version
    assert loaded.artifact == "", "the digest named belongs to the swept folder, not the one loaded"
