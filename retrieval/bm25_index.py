"""Okapi BM25 over the stored chunks, served by bm25s from a memory-mapped index on disk: the index itself.

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

An index records the corpus version (core.store) it was built from and the database it was built
against. This module tokenizes, builds, searches, writes, loads and installs one; keeping it fresh
(publishing, deltas, deletions since) is retrieval.bm25_freshness, and serving it retrieval.bm25.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import threading
import unicodedata
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
from kgrag.core.artifacts import (
    Artifact,
)
from kgrag.core.settings import RetrievalSettings
from kgrag.core.store import Store
from kgrag.retrieval.bm25_delta import BM25Delta, top_hits

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
    mine = read_meta(folder)
    held = _current_folder(root)
    if held is not None and held != folder and (mine is None or _newer(held, mine)):
        folder, mine = held, read_meta(held)
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


def read_meta(folder: Path) -> dict[str, Any] | None:
    try:
        return json.loads((folder / _META).read_text())
    except (OSError, ValueError):
        return None


def _newer(held: Path, meta: dict[str, Any]) -> bool:
    """``held`` is an index of the same database as ``meta``'s at a later corpus version."""
    other = read_meta(held)
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


def delta_status(index: BM25Index) -> dict[str, Any]:
    """The delta a BM25 index serves beside its base ({} without one): for stages, /v1/artifacts and doctor."""
    if index.delta is None:
        return {}
    return {"delta_version": index.delta.corpus_version, "delta_chunks": index.delta.size,
            "retired_chunks": int(index.delta.dropped.size)}


def index_root(index_dir: Path) -> Path:
    return index_dir / SIGNAL
