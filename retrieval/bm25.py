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

Freshness: the index records the corpus version (core.store) it was built from. A retrieve() that
finds the database ahead rebuilds a new, immutable index and swaps one reference; requests in
flight keep the object they started with, and nothing is mutated per request.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import threading
import time
import unicodedata
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from core.settings import RetrievalSettings
from core.store import Store, filters_sql
from core.types import Filters, Hit
from retrieval.base import Query, RetrievalResult, StageStatus

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

    @property
    def size(self) -> int:
        return len(self.chunk_ids)

    def matches(self, version: int, params: dict[str, Any]) -> bool:
        return self.corpus_version == version and self.params == params

    def search(self, tokens: Sequence[str], k: int, allowed_documents: np.ndarray | None = None,
               ) -> list[tuple[int, float]]:
        """(chunk id, score) best first; only chunks sharing a term with the query (score > 0).

        With a filter the whole score vector is masked before selection, so k results remain
        whenever k allowed chunks match at all. Ties go to the lower chunk id.
        """
        if self.scorer is None or not tokens or k <= 0:
            return []
        ids = self.scorer.get_tokens_ids(list(tokens))
        if not ids:
            return []
        scores = self.scorer.get_scores_from_ids(ids)
        if allowed_documents is not None:
            scores = np.where(np.isin(self.document_ids, allowed_documents), scores, 0.0)
        rows = np.flatnonzero(scores > 0)
        if len(rows) > k:
            kth = np.partition(scores[rows], len(rows) - k)[len(rows) - k]
            rows = rows[scores[rows] >= kth]
        order = np.lexsort((self.chunk_ids[rows], -scores[rows]))[:k]
        return [(int(self.chunk_ids[r]), float(scores[r])) for r in rows[order]]


def index_params(settings: RetrievalSettings) -> dict[str, Any]:
    return {"k1": settings.bm25_k1, "b": settings.bm25_b, "method": "atire", "idf_method": "robertson",
            "tokenizer": TOKENIZER_VERSION}


def build_index(store: Store, settings: RetrievalSettings) -> BM25Index:
    """Tokenise every chunk from Postgres. The version is read first: a write racing the scan only
    makes the index look older than it is, so the next query rebuilds rather than trusting it."""
    version = store.corpus_version()
    chunk_ids: list[int] = []
    document_ids: list[int] = []
    corpus: list[list[str]] = []
    for chunk in store.iter_chunks():
        chunk_ids.append(chunk.id)
        document_ids.append(chunk.document_id)
        corpus.append(tokenize(index_text(chunk.title, chunk.text)))
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
    return BM25Index(version, params, ids, docs, scorer)


# -- persistence ------------------------------------------------------------------------------------
_CURRENT = "CURRENT"
_META = "kgrag_meta.json"


def save_index(index: BM25Index, root: Path) -> BM25Index:
    """Write into a fresh folder, then point CURRENT at it with an atomic rename (readers in other
    processes never see a half-written index). Returns the index re-opened memory-mapped."""
    root.mkdir(parents=True, exist_ok=True)
    folder = root / f"v{index.corpus_version}-{uuid.uuid4().hex[:8]}"
    tmp = root / f".tmp-{folder.name}"
    tmp.mkdir()
    if index.scorer is not None:
        index.scorer.save(str(tmp), show_progress=False)
    np.save(tmp / "chunk_ids.npy", index.chunk_ids)
    np.save(tmp / "document_ids.npy", index.document_ids)
    meta = {"corpus_version": index.corpus_version, "params": index.params, "size": index.size,
            "empty": index.scorer is None, "built_at": time.time()}
    (tmp / _META).write_text(json.dumps(meta))
    tmp.rename(folder)
    pointer = root / f".{_CURRENT}.{uuid.uuid4().hex[:8]}"
    pointer.write_text(folder.name)
    os.replace(pointer, root / _CURRENT)
    _remove_older(root, keep=folder.name, version=index.corpus_version)
    loaded = load_index(root)
    return loaded if loaded is not None else index


def load_index(root: Path) -> BM25Index | None:
    """The index CURRENT points at, memory-mapped; None when there is none or it cannot be read."""
    try:
        folder = root / (root / _CURRENT).read_text().strip()
        meta = json.loads((folder / _META).read_text())
        chunk_ids = np.load(folder / "chunk_ids.npy", mmap_mode="r")
        document_ids = np.load(folder / "document_ids.npy", mmap_mode="r")
        scorer = None
        if not meta["empty"]:
            import bm25s

            scorer = bm25s.BM25.load(str(folder), mmap=True, show_progress=False)
    except (OSError, ValueError, KeyError):
        return None
    return BM25Index(int(meta["corpus_version"]), meta["params"], chunk_ids, document_ids, scorer, folder)


def _remove_older(root: Path, *, keep: str, version: int) -> None:
    """Drop folders of older versions. Another process still reading one keeps its mapping (POSIX)."""
    for entry in root.iterdir():
        if entry.name == keep or not entry.is_dir():
            continue
        match = re.match(r"v(\d+)-", entry.name)
        if match and int(match.group(1)) < version:
            shutil.rmtree(entry, ignore_errors=True)


def index_root(index_dir: Path) -> Path:
    return index_dir / SIGNAL


def drop_stale_indexes(root: Path, version: int) -> None:
    """Remove every index built before ``version``, the current one included: after a delete the old
    vocabulary (the deleted document's words) must not stay on disk until the next BM25 query.
    The next query rebuilds; a process that has one mapped keeps reading it (POSIX) until it swaps."""
    if not root.is_dir():
        return
    current = root / _CURRENT
    try:
        pointed = current.read_text().strip()
    except OSError:
        pointed = ""
    for entry in root.iterdir():
        match = re.match(r"v(\d+)-", entry.name)
        if entry.is_dir() and match and int(match.group(1)) < version:
            if entry.name == pointed:
                current.unlink(missing_ok=True)
            shutil.rmtree(entry, ignore_errors=True)


# -- the retriever ----------------------------------------------------------------------------------
class BM25Retriever:
    """Holds one reference to the current immutable index; swapping it is the only mutation."""

    name = SIGNAL

    def __init__(self, store: Store, settings: RetrievalSettings, index_dir: Path) -> None:
        self.store = store
        self.settings = settings
        self.root = index_root(index_dir)
        self._params = index_params(settings)
        self._index: BM25Index | None = None
        self._build_lock = threading.Lock()

    def warm(self) -> None:
        self.current_index()

    def current_index(self) -> BM25Index:
        """The index for the database's corpus version, rebuilt if the corpus changed since."""
        version = self.store.corpus_version()
        index = self._index
        if index is not None and index.matches(version, self._params):
            return index
        return self._refresh(version)

    def _refresh(self, version: int) -> BM25Index:
        with self._build_lock:
            index = self._index
            if index is not None and index.corpus_version >= version and index.params == self._params:
                return index  # another thread rebuilt it while we waited
            on_disk = load_index(self.root)
            if on_disk is not None and on_disk.matches(version, self._params):
                self._index = on_disk
                return on_disk
            fresh = save_index(build_index(self.store, self.settings), self.root)
            self._index = fresh
            return fresh

    def retrieve(self, query: Query) -> RetrievalResult:
        timings: dict[str, float] = {}
        t0 = time.perf_counter()
        index = self.current_index()
        t1 = time.perf_counter()
        timings["index"] = t1 - t0
        allowed = None if query.filters.empty else self._allowed_documents(query.filters)
        tokens = tokenize(query.text)
        ranked = index.search(tokens, query.k, allowed)
        timings["search"] = time.perf_counter() - t1
        hits = tuple(
            Hit(chunk_id=cid, signal=SIGNAL, rank=i, score=score) for i, (cid, score) in enumerate(ranked, 1)
        )
        explanation = {"query_tokens": tokens, "index_version": index.corpus_version, "indexed_chunks": index.size}
        return RetrievalResult(SIGNAL, hits, StageStatus.ran(), timings, explanation)

    def _allowed_documents(self, filters: Filters) -> np.ndarray:
        """Document ids passing the filters: the documents table is far smaller than the chunks."""
        where, params = filters_sql(replace(filters, document_ids=()))
        if filters.document_ids:
            where += " AND d.id = ANY(%s)"
            params.append(list(filters.document_ids))
        with self.store.db.connection() as conn:
            rows = conn.execute("SELECT d.id FROM documents d WHERE TRUE" + where, params).fetchall()
        return np.asarray([r[0] for r in rows], dtype=np.int64)
