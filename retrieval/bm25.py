"""Okapi BM25 over the stored chunks, served by bm25s from a memory-mapped index on disk.

What is indexed: each chunk's document title followed by its text. A chunk in the middle of a
document rarely repeats the subject named in the title, and without it a query naming that
subject would miss every chunk but the first.

Scoring matches rank-bm25's ``BM25Okapi`` formula: bm25s ``method="atire"`` gives the
``tf·(k1+1) / (tf + k1·(1-b+b·dl/avgdl))`` term component and ``idf_method="robertson"`` gives
``ln((N-df+0.5)/(df+0.5))``. The one difference is a term found in more than half of the chunks:
BM25Okapi floors its negative idf at ``0.25 × mean idf``, bm25s at 0 (the term stops counting).
Stopwords are removed first, so such terms are rare and rankings agree (tests/test_retrieval_bm25.py).
The same rule means a corpus of one or two chunks gives BM25 almost nothing to score (every term is
in "over half"); dense retrieval carries such tiny corpora.

Freshness: an index records the corpus version (core.store) it was built from and the database it
was built against. Builders (ingestion from the CLI, deletions, `kgrag index build`, a serving
replica's background builder) publish it through core.artifacts; replicas download and swap it. A
query never builds: it serves the index it holds and says so when the corpus has moved past it.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import threading
import time
import unicodedata
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
from kgrag.core.artifacts import (
    BM25,
    BM25_DELTA,
    Artifact,
    ArtifactStore,
    check_database,
    forget_published_deletions,
)
from kgrag.core.db import advisory_lock
from kgrag.core.runtime import Runtime
from kgrag.core.settings import RetrievalSettings
from kgrag.core.store import Store, filters_sql
from kgrag.core.types import Filters, Hit
from kgrag.retrieval.base import Query, RetrievalResult, StageStatus
from kgrag.retrieval.bm25_delta import BM25Delta, build_delta, load_delta, top_hits, write_delta_files

SIGNAL = "bm25"
TOKENIZER_VERSION = "v1-nfkc-casefold-lucene_en_stop-snowball_en-cjk_uni_bi"
"""Part of the index's identity: change it whenever tokenize() changes, so old indexes are rebuilt."""

# Scripts written without spaces between words: each character becomes a token, plus each pair
# of neighbours, so a query of one character still matches and longer ones match in order.
_NO_SPACE_SCRIPTS = (
    "\u0e00-\u0e7f"  # Thai
    "\u0e80-\u0eff"  # Lao
    "\u1000-\u109f"  # Myanmar
    "\u1780-\u17ff"  # Khmer
    "\u3040-\u30ff"  # Hiragana, Katakana
    "\u3400-\u4dbf"  # CJK Extension A
    "\u4e00-\u9fff"  # CJK Unified Ideographs
    "\uf900-\ufaff"  # CJK Compatibility Ideographs
    "\U00020000-\U0002ebef"  # CJK Extensions B-F
)
_TOKEN = re.compile(rf"(?P<run>[{_NO_SPACE_SCRIPTS}]+)|(?P<word>[^\W_{_NO_SPACE_SCRIPTS}]+)")


def _english_stopwords() -> frozenset[str]:
    from bm25s.stopwords import STOPWORDS_EN

    return frozenset(STOPWORDS_EN)


_STOPWORDS = _english_stopwords()
_local = threading.local()


def _stemmer() -> Any:
    """One Snowball stemmer per thread: PyStemmer objects keep a cache that is not thread-safe."""
    stemmer = getattr(_local, "stemmer", None)
    if stemmer is None:
        import Stemmer

        stemmer = _local.stemmer = Stemmer.Stemmer("english")
    return stemmer


def tokenize(text: str) -> list[str]:
    """Casefolded words without English stopwords, Snowball-stemmed; unigrams+bigrams for CJK/Thai runs.

    Token order does not matter to BM25, so words are stemmed in one call at the end.
    """
    words: list[str] = []
    grams: list[str] = []
    for match in _TOKEN.finditer(unicodedata.normalize("NFKC", text).casefold()):
        word = match.group("word")
        if word is None:
            run = match.group("run")
            grams.extend(run)
            grams.extend(run[i : i + 2] for i in range(len(run) - 1))
        elif word not in _STOPWORDS:
            words.append(word)
    return (_stemmer().stemWords(words) if words else []) + grams


def index_text(title: str, text: str) -> str:
    return f"{title}\n{text}"


@dataclass(frozen=True, slots=True)
class BM25Index:
    """An immutable snapshot: the bm25s scorer plus, per indexed row, its chunk and document id."""

    corpus_version: int
    params: dict[str, Any]
    chunk_ids: np.ndarray
    document_ids: np.ndarray
    scorer: Any  # bm25s.BM25, or None for an empty corpus
    path: Path | None = None
    database_id: str = ""
    artifact: str = ""
    """The published artifact's digest ('' when unknown: not yet published, or read back by load_index):
    what replicas compare to swap."""
    mean_length: float | None = None
    """Mean tokens per chunk: with the score matrix, the statistics a delta is scored with (None for an
    index written before they were recorded: it takes no delta and is rebuilt whole)."""
    delta: BM25Delta | None = None
    """The changes since this base (retrieval/bm25_delta.py), searched beside it."""
    retired_rows: np.ndarray | None = None
    """The base rows of the delta's retired chunks (found once, when the delta is attached)."""

    @property
    def size(self) -> int:
        return len(self.chunk_ids)

    @property
    def serving_version(self) -> int:
        """The corpus version this index answers for: its delta's when it has one."""
        return self.delta.corpus_version if self.delta is not None else self.corpus_version

    @property
    def chunks(self) -> int:
        """Chunks searched: the base's, less those its delta retires, plus the delta's."""
        if self.delta is None:
            return self.size
        return self.size - int(self.delta.dropped.size) + self.delta.size

    def with_delta(self, delta: BM25Delta | None) -> BM25Index:
        rows = None if delta is None else np.flatnonzero(np.isin(self.chunk_ids, delta.dropped))
        return replace(self, delta=delta, retired_rows=rows)

    def search(self, tokens: Sequence[str], k: int, allowed_documents: np.ndarray | None = None,
               hidden_chunks: np.ndarray | None = None) -> list[tuple[int, float]]:
        """(chunk id, score) best first; only chunks sharing a term with the query (score > 0).

        With a filter the whole score vector is masked before selection, so k results remain
        whenever k allowed chunks match at all. Ties go to the lower chunk id. With a delta, the base's
        retired rows are masked the same way and the delta's best k join by score. ``hidden_chunks`` (chunk ids
        deleted since the index was built: retrieval.bm25.BM25Retriever) are masked too.
        """
        ranked = self._search_base(tokens, k, allowed_documents, hidden_chunks)
        if self.delta is None:
            return ranked
        merged = ranked + self.delta.search(tokens, k, allowed_documents, hidden_chunks)
        return sorted(merged, key=lambda hit: (-hit[1], hit[0]))[:k]

    def _search_base(self, tokens: Sequence[str], k: int, allowed_documents: np.ndarray | None,
                     hidden_chunks: np.ndarray | None) -> list[tuple[int, float]]:
        if self.scorer is None or not tokens or k <= 0:
            return []
        ids = self.scorer.get_tokens_ids(list(tokens))
        if not ids:
            return []
        scores = self.scorer.get_scores_from_ids(ids)
        masked = self.retired_rows
        if hidden_chunks is not None and hidden_chunks.size:  # rows by binary search: the base is in id order
            pos = np.minimum(np.searchsorted(self.chunk_ids, hidden_chunks), self.size - 1)  # a scorer: size > 0
            rows = pos[np.asarray(self.chunk_ids)[pos] == hidden_chunks]
            masked = rows if masked is None else np.concatenate([masked, rows])
        return top_hits(scores, self.chunk_ids, self.document_ids, k, allowed_documents, masked)


def index_params(settings: RetrievalSettings) -> dict[str, Any]:
    return {"k1": settings.bm25_k1, "b": settings.bm25_b, "method": "atire", "idf_method": "robertson",
            "tokenizer": TOKENIZER_VERSION}


def build_index(store: Store, settings: RetrievalSettings) -> BM25Index:
    """Tokenise every chunk from Postgres in one REPEATABLE READ snapshot, so the version recorded is
    exactly the corpus indexed (a write racing the scan belongs to the next build)."""
    chunk_ids: list[int] = []
    document_ids: list[int] = []
    corpus: list[list[str]] = []
    with store.chunk_snapshot() as (version, chunks):
        for chunk_id, document_id, title, text in chunks:
            chunk_ids.append(chunk_id)
            document_ids.append(document_id)
            corpus.append(tokenize(index_text(title, text)))
    return index_from_tokens(corpus, chunk_ids, document_ids, version=version, settings=settings)


def index_from_tokens(corpus: Sequence[list[str]], chunk_ids: Sequence[int], document_ids: Sequence[int], *,
                      version: int, settings: RetrievalSettings) -> BM25Index:
    params = index_params(settings)
    ids = np.asarray(chunk_ids, dtype=np.int64)
    docs = np.asarray(document_ids, dtype=np.int64)
    if not corpus:
        return BM25Index(version, params, ids, docs, None)
    import bm25s

    scorer = bm25s.BM25(k1=settings.bm25_k1, b=settings.bm25_b, method="atire", idf_method="robertson")
    scorer.index(list(corpus), show_progress=False)
    mean_length = float(np.mean([len(doc) for doc in corpus]))  # bm25s's own avgdl, kept for deltas
    return BM25Index(version, params, ids, docs, scorer, mean_length=mean_length)


# -- persistence ------------------------------------------------------------------------------------
_CURRENT = "CURRENT"
_META = "kgrag_meta.json"
BUILD_LOCK_KEY = 0x6B67726167_02  # "kgrag" + 2: BM25 builds, one at a time per database
MISSING_FIX = ("run `kgrag index build` (ingesting from the CLI publishes it too; a serving replica builds it in the "
               "background)")


def variant(params: dict[str, Any]) -> str:
    """Replicas configured with other BM25 parameters need their own index: the artifact's variant."""
    return hashlib.sha256(json.dumps(params, sort_keys=True).encode()).hexdigest()[:12]


def write_index_files(index: BM25Index, folder: Path, *, database_id: str) -> None:
    folder.mkdir(parents=True)
    if index.scorer is not None:
        index.scorer.save(str(folder), show_progress=False)
    np.save(folder / "chunk_ids.npy", index.chunk_ids)
    np.save(folder / "document_ids.npy", index.document_ids)
    meta = {"corpus_version": index.corpus_version, "params": index.params, "size": index.size,
            "empty": index.scorer is None, "database_id": database_id, "mean_length": index.mean_length}
    (folder / _META).write_text(json.dumps(meta, sort_keys=True))


def load_folder(folder: Path, *, artifact: str = "") -> BM25Index:
    """An index folder, memory-mapped (raises OSError/ValueError/KeyError when it cannot be read)."""
    meta = json.loads((folder / _META).read_text())
    chunk_ids = np.load(folder / "chunk_ids.npy", mmap_mode="r")
    document_ids = np.load(folder / "document_ids.npy", mmap_mode="r")
    scorer = None
    if not meta["empty"]:
        import bm25s

        scorer = bm25s.BM25.load(str(folder), mmap=True, show_progress=False)
    return BM25Index(int(meta["corpus_version"]), meta["params"], chunk_ids, document_ids, scorer, folder,
                     database_id=meta.get("database_id", ""), artifact=artifact, mean_length=meta.get("mean_length"))


def load_index(root: Path) -> BM25Index | None:
    """The index this data home installed last (CURRENT), memory-mapped; None when there is none."""
    try:
        folder = root / (root / _CURRENT).read_text().strip()
        return load_folder(folder)  # which artifact it came from is not recorded inside it
    except (OSError, ValueError, KeyError):
        return None


def artifact_folder(root: Path, artifact: Artifact) -> Path:
    return root / f"a{artifact.id}-{artifact.sha256[:16]}"


def install(root: Path, folder: Path) -> Path:
    """Point CURRENT at ``folder`` (atomic rename) and delete every other index folder here: older
    versions may hold a deleted document's words. A process still reading one keeps its mapping (POSIX).

    Never backwards: when CURRENT already names a newer index of the same database (a delete published
    and installed one while the sync thread was still installing the version before), that one stays and
    ``folder`` is deleted instead; otherwise a late install would serve the deleted words again and pull
    the folder from under the delete that is about to load it. A ``folder`` that is already gone was swept
    by such a newer install, so the same holds. For the same reason a newer folder not yet current
    survives (its own install deletes the older ones). Returns the folder now current.
    """
    mine = _read_meta(folder)
    held = _current_folder(root)
    if held is not None and held != folder and (mine is None or _newer(held, mine)):
        folder, mine = held, _read_meta(held)
    else:
        pointer = root / f".{_CURRENT}.{uuid.uuid4().hex[:8]}"
        pointer.write_text(folder.name)
        os.replace(pointer, root / _CURRENT)
    if mine is None:
        return folder  # nothing to compare the others against: sweeping blind could remove the newest
    for entry in root.iterdir():
        # A newer folder is kept: a delete's publish renames its index in before installing it, and a sync
        # thread installing the version before must not pull it from under that install. Dot folders are
        # downloads and deltas in flight.
        if entry.is_dir() and entry.name != folder.name and not entry.name.startswith(".") \
                and not _newer(entry, mine):
            shutil.rmtree(entry, ignore_errors=True)
    return folder


def _current_folder(root: Path) -> Path | None:
    try:
        return root / (root / _CURRENT).read_text().strip()
    except OSError:
        return None


def _read_meta(folder: Path) -> dict[str, Any] | None:
    try:
        return json.loads((folder / _META).read_text())
    except (OSError, ValueError):
        return None


def _newer(held: Path, meta: dict[str, Any]) -> bool:
    """``held`` is an index of the same database as ``meta``'s at a later corpus version."""
    other = _read_meta(held)
    return (other is not None and other.get("database_id") == meta.get("database_id")
            and int(other["corpus_version"]) > int(meta["corpus_version"]))


def load_installed(root: Path, folder: Path, *, artifact: str = "") -> BM25Index:
    """Load the folder ``install`` returned; when a newer install swept it meanwhile, load what is current
    now (the newer one), a few times over rather than fail the request that published it."""
    for _ in range(3):
        try:
            return load_folder(folder, artifact=artifact)
        except FileNotFoundError:
            held = _current_folder(root)
            if held is None or held == folder:
                raise
            folder, artifact = held, ""
    return load_folder(folder, artifact=artifact)


def publish_index(store: Store, settings: RetrievalSettings, artifacts: ArtifactStore, root: Path, *,
                  force: bool = False) -> BM25Index:
    """Build the index from Postgres and publish it for every replica; returns it loaded from this home.

    One build at a time per database (an advisory lock): a builder that waited finds the index
    already published at the corpus version and only installs it. ``force`` rebuilds regardless
    (after a delete, so the old vocabulary leaves the database too).
    """
    with advisory_lock(store.db, BUILD_LOCK_KEY):
        return _publish_locked(store, settings, artifacts, root, force=force)


def try_publish_index(store: Store, settings: RetrievalSettings, artifacts: ArtifactStore, root: Path, *,
                      force: bool = False) -> BM25Index | None:
    """``publish_index``, or None at once when another builder holds the lock (its publish reaches every
    replica anyway): what a serving replica's background builder calls, so it never queues behind one."""
    with advisory_lock(store.db, BUILD_LOCK_KEY, wait=False) as got:
        return _publish_locked(store, settings, artifacts, root, force=force) if got else None


def _publish_locked(store: Store, settings: RetrievalSettings, artifacts: ArtifactStore, root: Path, *,
                    force: bool) -> BM25Index:
    params = index_params(settings)
    kind_variant = variant(params)
    root.mkdir(parents=True, exist_ok=True)
    published = artifacts.current(BM25, kind_variant)
    if not force and published is not None:
        now = store.corpus_version()
        if published.corpus_version == now:
            return _install_published(artifacts, published, root)
        base = attach_published_delta(artifacts, _install_published(artifacts, published, root), root, kind_variant)
        if base.serving_version == now:
            return base  # another builder published the delta for this version while we waited for the lock
        if takes_deltas(base, settings):
            indexed = _publish_delta(store, base, artifacts, root, kind_variant, settings)
            if indexed is not None:
                return indexed
    index = build_index(store, settings)
    tmp = root / f".tmp-build-{uuid.uuid4().hex[:8]}"
    try:
        write_index_files(index, tmp, database_id=artifacts.database_id())
        files = {p.name: p for p in sorted(tmp.iterdir()) if p.is_file()}
        artifact = artifacts.publish(BM25, kind_variant, index.corpus_version, files, {
            "params": params, "size": index.size, "built_at": time.time()})
        if artifact.corpus_version != index.corpus_version:  # a newer one won the race
            return _install_published(artifacts, artifact, root)
        artifacts.retire(BM25_DELTA, kind_variant)  # folded into this base
        forget_published_deletions(store, artifacts)
        folder = artifact_folder(root, artifact)
        try:
            tmp.rename(folder)
        except OSError:  # the sync thread, woken by this very publish, downloaded it there first
            if not folder.is_dir():
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    current = install(root, folder)
    return load_installed(root, current, artifact=artifact.sha256 if current == folder else "")


def takes_deltas(base: BM25Index, settings: RetrievalSettings) -> bool:
    """A base large enough that a whole rebuild costs minutes, with the statistics a delta is scored with."""
    return base.size >= settings.bm25_delta_min_chunks and base.mean_length is not None and bool(base.artifact)


def published_delta(artifacts: ArtifactStore, kind_variant: str, base_artifact: str) -> Artifact | None:
    """The current delta when it was built against this base (digest); one of an earlier base is ignored."""
    delta = artifacts.current(BM25_DELTA, kind_variant)
    if delta is None or not base_artifact or delta.manifest.get("base_artifact") != base_artifact:
        return None
    return delta


def compaction_due(artifacts: ArtifactStore, kind_variant: str, settings: RetrievalSettings) -> bool:
    """The published delta has retired chunks (deleted or replaced) for ``bm25_compact_after`` seconds: their
    words are still in the published base, so a background builder folds the delta in."""
    base = artifacts.current(BM25, kind_variant)
    delta = published_delta(artifacts, kind_variant, base.sha256) if base is not None else None
    if delta is None:
        return False
    since = delta.manifest.get("retiring_since")
    return since is not None and time.time() - float(since) >= settings.bm25_compact_after


def _publish_delta(store: Store, base: BM25Index, artifacts: ArtifactStore, root: Path, kind_variant: str,
                   settings: RetrievalSettings) -> BM25Index | None:
    """Build and publish the delta from ``base`` to the corpus now; None when it has outgrown the base
    (the caller compacts: a whole build)."""
    delta = build_delta(store, base, tokenize, index_text)
    if delta is None or delta.size + delta.dropped.size > settings.bm25_delta_max_share * base.size:
        return None
    retiring_since = None
    if delta.dropped.size:  # the clock for compaction starts at the first retired chunk of this base
        before = published_delta(artifacts, kind_variant, base.artifact)
        carried = before.manifest.get("retiring_since") if before is not None else None
        retiring_since = carried if carried is not None else time.time()
    tmp = root / f".tmp-delta-{uuid.uuid4().hex[:8]}"
    try:
        write_delta_files(delta, tmp, database_id=artifacts.database_id())
        files = {p.name: p for p in sorted(tmp.iterdir()) if p.is_file()}
        artifact = artifacts.publish(BM25_DELTA, kind_variant, delta.corpus_version, files, {
            "base_artifact": base.artifact, "size": delta.size, "dropped": int(delta.dropped.size),
            "retiring_since": retiring_since})
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if artifact.manifest.get("base_artifact") != base.artifact:
        return base  # a compaction raced this delta and won: the next sync installs its base
    return base.with_delta(delta if artifact.corpus_version == delta.corpus_version else
                           _download_delta(artifacts, artifact, root))


def _download_delta(artifacts: ArtifactStore, artifact: Artifact, root: Path) -> BM25Delta:
    """Read a published delta into memory (its folder is removed again: a delta is small and fully loaded)."""
    folder = root / f".delta-{artifact.id}-{uuid.uuid4().hex[:8]}"
    try:
        return load_delta(artifacts.download(artifact, folder))
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def attach_published_delta(artifacts: ArtifactStore, base: BM25Index, root: Path, kind_variant: str) -> BM25Index:
    """``base`` with the published delta built against it, when there is one newer than what it holds."""
    published = published_delta(artifacts, kind_variant, base.artifact)
    if published is None:
        return base
    if base.delta is not None and base.delta.corpus_version >= published.corpus_version:
        return base
    return base.with_delta(_download_delta(artifacts, published, root))


def _install_published(artifacts: ArtifactStore, artifact: Artifact, root: Path) -> BM25Index:
    folder = artifacts.download(artifact, artifact_folder(root, artifact))
    meta = _read_meta(folder)  # None: a newer install swept it since; install keeps that one
    if meta is not None:
        check_database({"database_id": meta.get("database_id", "")}, artifacts.database_id(),
                       "the published BM25 index", fix=MISSING_FIX)
    current = install(root, folder)
    return load_installed(root, current, artifact=artifact.sha256 if current == folder else "")


def delta_status(index: BM25Index) -> dict[str, Any]:
    """The delta a BM25 index serves beside its base ({} without one): for stages, /v1/artifacts and doctor."""
    if index.delta is None:
        return {}
    return {"delta_version": index.delta.corpus_version, "delta_chunks": index.delta.size,
            "retired_chunks": int(index.delta.dropped.size)}


def index_root(index_dir: Path) -> Path:
    return index_dir / SIGNAL


# -- the retriever ----------------------------------------------------------------------------------
class IndexBehind:
    """Since when queries have seen the index behind the corpus: the retriever notices, the artifact sync
    (kgrag.retrieval.sync) builds when no builder catches up. Made before both, so neither is patched
    into the other after construction."""

    def __init__(self) -> None:
        self.since: float | None = None

    def notice(self) -> None:
        if self.since is None:
            self.since = time.monotonic()

    def clear(self) -> None:
        self.since = None


def index_behind(rt: Runtime) -> IndexBehind:
    """The runtime's one notice, shared by its BM25 retriever and its artifact sync."""
    return rt.shared("bm25_index_behind", IndexBehind)


class BM25Retriever:
    """Serves the published index; never builds one on a query's path.

    Holds one reference to the current immutable index; ``sync()`` (the replica's sync thread, a
    CLI before its first query) installs a newly published version and swaps it, and requests in
    flight keep the object they started with. An index behind the corpus is still served, with a
    reason in the stage status, while a builder publishes the next one.
    """

    name = SIGNAL

    def __init__(self, store: Store, settings: RetrievalSettings, index_dir: Path,
                 artifacts: ArtifactStore | None = None, *, on_stale: Callable[[], None] | None = None,
                 build_missing: bool = False) -> None:
        self.store = store
        self.settings = settings
        self.root = index_root(index_dir)
        self.artifacts = artifacts or ArtifactStore(store.db)
        self._on_stale = on_stale
        self.build_missing = build_missing
        """A process that is its own builder (the CLI, an eval run): a missing or stale index is built and
        published when this retriever is first used, before it searches. Serving replicas leave it False."""
        self._params = index_params(settings)
        self.variant = variant(self._params)
        self._index: BM25Index | None = None
        self._synced = False
        self._sync_lock = threading.Lock()
        self._deleted_lock = threading.Lock()
        self._deleted: tuple[tuple[int, int], np.ndarray | None] | None = None
        """(index version, corpus version) → the chunks deleted between them: corpus state, shared by requests."""

    def warm(self) -> None:
        self.sync()

    def sync(self, *, build_missing: bool | None = None) -> BM25Index | None:
        """Install the published index if it is not the one held. With ``build_missing`` (default: the
        retriever's own setting; a CLI or an eval run is its own builder) a missing or stale index is
        built and published first."""
        if build_missing is None:
            build_missing = self.build_missing
        with self._sync_lock:
            self._synced = True
            published = self.artifacts.current(BM25, self.variant)
            held = self._index
            if published is not None and (held is None or held.artifact != published.sha256):
                held = _install_published(self.artifacts, published, self.root)
            if held is not None:
                held = attach_published_delta(self.artifacts, held, self.root, self.variant)
            if build_missing and (held is None or held.serving_version != self.store.corpus_version()):
                held = publish_index(self.store, self.settings, self.artifacts, self.root)
            self._index = held
            return held

    def current_index(self) -> BM25Index | None:
        if self._index is None and not self._synced:
            self.sync()  # first use without warm()
        return self._index

    def retrieve(self, query: Query) -> RetrievalResult:
        timings: dict[str, float] = {}
        t0 = time.perf_counter()
        index = self.current_index()
        t1 = time.perf_counter()
        timings["index"] = t1 - t0
        if index is None:
            return RetrievalResult(SIGNAL, (), StageStatus("skipped", self._missing_reason()), timings)
        current = self.store.corpus_version()
        status = self._freshness(index, current)
        allowed = None if query.filters.empty else self._allowed_documents(query.filters)
        tokens = tokenize(query.text)
        ranked = (index.search(tokens, query.k, allowed) if index.serving_version == current
                  else self._search_live(index, tokens, query.k, allowed, current))
        timings["search"] = time.perf_counter() - t1
        hits = tuple(
            Hit(chunk_id=cid, signal=SIGNAL, rank=i, score=score) for i, (cid, score) in enumerate(ranked, 1)
        )
        explanation = {"query_tokens": tokens, "index_version": index.corpus_version, "indexed_chunks": index.chunks,
                       "artifact": index.artifact[:16], **delta_status(index)}
        return RetrievalResult(SIGNAL, hits, status, timings, explanation)

    def _search_live(self, index: BM25Index, tokens: Sequence[str], k: int, allowed: np.ndarray | None,
                     current: int) -> list[tuple[int, float]]:
        """An index behind the corpus still holds the chunks deleted since it was built: they leave its
        results the moment the delete commits, not when the next index is published (a delete is often a
        privacy request). They are masked before selection, so k others remain and the ranking is the index's own."""
        deleted = self._deleted_since(index, current)
        if deleted is None:  # the log was pruned past this index (a newer one is published): check the hits
            return self._live_hits(index, tokens, k, allowed)
        return index.search(tokens, k, allowed, deleted if deleted.size else None)

    def _live_hits(self, index: BM25Index, tokens: Sequence[str], k: int,
                   allowed: np.ndarray | None) -> list[tuple[int, float]]:
        """The index's best k that still exist, checked in SQL: deeper each round while deletes took more than
        the margin, until k remain or the index has no more hits."""
        depth = 2 * k + 20
        while True:
            ranked = index.search(tokens, depth, allowed)
            live = self.store.live_chunk_ids([chunk_id for chunk_id, _ in ranked])
            kept = [hit for hit in ranked if hit[0] in live]
            if len(kept) >= k or len(ranked) < depth:
                return kept[:k]
            depth *= 4

    def _deleted_since(self, index: BM25Index, current: int) -> np.ndarray | None:
        """The deletion log's rows since the index, read once per corpus version (Store.deleted_since)."""
        key = (index.serving_version, current)
        with self._deleted_lock:
            if self._deleted is not None and self._deleted[0] == key:
                return self._deleted[1]
        deleted = self.store.deleted_since(index.serving_version)
        with self._deleted_lock:
            self._deleted = (key, deleted)
        return deleted

    def _freshness(self, index: BM25Index, current: int) -> StageStatus:
        if index.serving_version == current:
            return StageStatus.ran()
        if self._on_stale is not None:
            self._on_stale()
        return StageStatus("ran", f"the BM25 index is at corpus version {index.serving_version}, the corpus at "
                                  f"{current}: chunks added since are not searched by BM25 until the next index is "
                                  f"published (those deleted since are already left out; {MISSING_FIX})")

    def _missing_reason(self) -> str:
        local = load_index(self.root)
        if local is not None and local.database_id != self.artifacts.database_id():
            origin = f"another database (id {local.database_id})" if local.database_id else "an unknown database"
            return (f"the BM25 index in this data home was built against {origin}, not this one: it is not served; "
                    f"{MISSING_FIX}")
        return f"no BM25 index has been published for this database yet: {MISSING_FIX}"
    def _allowed_documents(self, filters: Filters) -> np.ndarray:
        """Document ids passing the filters: the documents table is far smaller than the chunks."""
        where, params = filters_sql(replace(filters, document_ids=()))
        if filters.document_ids:
            where += " AND d.id = ANY(%s)"
            params.append(list(filters.document_ids))
        with self.store.db.connection() as conn:
            rows = conn.execute("SELECT d.id FROM documents d WHERE TRUE" + where, params).fetchall()
        return np.asarray([r[0] for r in rows], dtype=np.int64)
