"""BM25 deltas: the chunks written since a base index was built, scored as the base would score them.

At a million chunks a whole BM25 build takes minutes, so a corpus that large takes its changes as a
delta beside the base, the way Lucene adds segments: a small index over the chunks added since the
base (their ids are above the base's last one; a replaced document's new version is such a chunk),
and the base rows whose chunks are gone (deleted, or replaced by a newer version). A query searches
both, drops the gone rows and merges by score. A background build folds the delta into a new base
(compaction) once it grows past a share of the base, or once a delete's words have stayed in the base
long enough (``retrieval.bm25_compact_after``).

Scores stay comparable because the delta is scored with the base's corpus statistics: its document
count, mean length and each term's document frequency. A base chunk's score is exactly what it was;
a delta chunk's is what it would be had it been in the corpus the base was built from (a term new to
the corpus gets the idf of a term in no base chunk). A full build of the same corpus differs only by
those statistics: they move by the delta's share of the corpus, which compaction bounds.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.sparse as sp

if TYPE_CHECKING:
    from kgrag.core.store import Store
    from kgrag.retrieval.bm25_index import BM25Index

DELTA_META = "kgrag_delta.json"


@dataclass(frozen=True, slots=True)
class BaseStatistics:
    """What scoring a new chunk as the base would needs: taken from the base's own score matrix."""

    documents: int
    mean_length: float
    k1: float
    b: float

    def idf(self, document_frequency: np.ndarray) -> np.ndarray:
        """Robertson idf floored at 0, as bm25s computes it for the base (``idf_method="robertson"``)."""
        inner = (self.documents - document_frequency + 0.5) / (document_frequency + 0.5)
        return np.log(np.maximum(inner, 1.0))


@dataclass(frozen=True, slots=True)
class BM25Delta:
    """One immutable delta: its chunks' scores per term, and the base rows it retires."""

    base_artifact: str
    """The sha256 of the base it was built against: a replica attaches it only to that base."""
    corpus_version: int
    chunk_ids: np.ndarray
    document_ids: np.ndarray
    terms: dict[str, int]
    scores: sp.csc_matrix
    """Chunks × terms, each entry the chunk's BM25 score for the term under the base's statistics."""
    dropped: np.ndarray
    """Base chunk ids (sorted) no longer in the corpus: never returned, though their words stay in the base
    until compaction."""

    @property
    def size(self) -> int:
        return len(self.chunk_ids)

    def search(self, tokens: Sequence[str], k: int, allowed_documents: np.ndarray | None,
               hidden_chunks: np.ndarray | None = None) -> list[tuple[int, float]]:
        """(chunk id, score) of the delta's chunks, best first; repeated query terms count again, as in bm25s.
        ``hidden_chunks`` (chunk ids deleted since) are masked before selection, so k others remain."""
        columns = [self.terms[t] for t in tokens if t in self.terms]
        if not columns or not self.size or k <= 0:
            return []
        counts = Counter(columns)
        picked = self.scores[:, list(counts)]
        scores = np.asarray(picked @ np.array(list(counts.values()), dtype=np.float64)).ravel()
        masked = None if hidden_chunks is None else np.flatnonzero(np.isin(self.chunk_ids, hidden_chunks))
        return top_hits(scores, self.chunk_ids, self.document_ids, k, allowed_documents, masked)


def top_hits(scores: np.ndarray, chunk_ids: np.ndarray, document_ids: np.ndarray, k: int,
             allowed_documents: np.ndarray | None, masked_rows: np.ndarray | None = None) -> list[tuple[int, float]]:
    """(chunk id, score) of the best ``k`` rows scoring above 0, ties to the lower chunk id, for a base and a
    delta alike. Rows outside ``allowed_documents`` and ``masked_rows`` (a base's retired rows) are zeroed
    before selection, so k results remain whenever k others match."""
    if allowed_documents is not None:
        scores = np.where(np.isin(document_ids, allowed_documents), scores, 0.0)
    if masked_rows is not None and masked_rows.size:
        scores = scores.copy()
        scores[masked_rows] = 0.0
    rows = np.flatnonzero(scores > 0)
    if len(rows) > k:
        kth = np.partition(scores[rows], len(rows) - k)[len(rows) - k]
        rows = rows[scores[rows] >= kth]
    order = np.lexsort((chunk_ids[rows], -scores[rows]))[:k]
    return [(int(chunk_ids[r]), float(scores[r])) for r in rows[order]]


def base_statistics(index: BM25Index) -> BaseStatistics | None:
    """The base's statistics, or None for an index written before they were recorded (it is rebuilt)."""
    if index.scorer is None or index.mean_length is None:
        return None
    return BaseStatistics(index.size, index.mean_length, float(index.params["k1"]), float(index.params["b"]))


def base_document_frequency(index: BM25Index, terms: Sequence[str]) -> np.ndarray:
    """Each term's document frequency in the base: its column's entries in the score matrix (bm25s keeps a
    zero-scored entry for a term in over half the chunks, so the count is exact)."""
    vocab = index.scorer.vocab_dict
    indptr = np.asarray(index.scorer.scores["indptr"])
    out = np.zeros(len(terms), dtype=np.float64)
    for i, term in enumerate(terms):
        column = vocab.get(term)
        if column is not None and column + 1 < len(indptr):
            out[i] = indptr[column + 1] - indptr[column]
    return out


def build_delta(store: Store, base: BM25Index, tokenize: Any, index_text: Any) -> BM25Delta | None:
    """The delta from ``base`` to the corpus now, read in one snapshot; None when the base has no statistics."""
    stats = base_statistics(base)
    if stats is None:
        return None
    last = int(base.chunk_ids[-1]) if base.size else 0
    with store.chunks_since(last, np.asarray(base.chunk_ids, dtype=np.int64)) as (version, live_base_ids, added):
        chunk_ids, document_ids, corpus = [], [], []
        for chunk_id, document_id, title, text in added:
            chunk_ids.append(chunk_id)
            document_ids.append(document_id)
            corpus.append(tokenize(index_text(title, text)))
    dropped = np.setdiff1d(np.asarray(base.chunk_ids, dtype=np.int64), live_base_ids, assume_unique=True)
    return delta_from_tokens(corpus, chunk_ids, document_ids, base=base, stats=stats, version=version,
                             dropped=dropped)


def delta_from_tokens(corpus: Sequence[list[str]], chunk_ids: Sequence[int], document_ids: Sequence[int], *,
                      base: BM25Index, stats: BaseStatistics, version: int, dropped: np.ndarray) -> BM25Delta:
    """Score each new chunk's terms with the base's idf and mean length (bm25s's atire term component)."""
    terms: dict[str, int] = {}
    rows: list[int] = []
    cols: list[int] = []
    tfs: list[int] = []
    lengths = np.array([len(doc) for doc in corpus], dtype=np.float64)
    for row, doc in enumerate(corpus):
        for term, tf in Counter(doc).items():
            rows.append(row)
            cols.append(terms.setdefault(term, len(terms)))
            tfs.append(tf)
    idf = stats.idf(base_document_frequency(base, list(terms)))
    row_ids, col_ids, tf = np.asarray(rows, dtype=np.int64), np.asarray(cols, dtype=np.int64), np.asarray(tfs, float)
    k1, b = stats.k1, stats.b
    component = tf * (k1 + 1) / (tf + k1 * (1 - b + b * lengths[row_ids] / stats.mean_length))
    scores = sp.csc_matrix((idf[col_ids] * component, (row_ids, col_ids)), shape=(len(corpus), len(terms)))
    return BM25Delta(base.artifact, version, np.asarray(chunk_ids, dtype=np.int64),
                     np.asarray(document_ids, dtype=np.int64), terms, scores, np.asarray(dropped, dtype=np.int64))


# -- files ------------------------------------------------------------------------------------------
def write_delta_files(delta: BM25Delta, folder: Path, *, database_id: str) -> None:
    folder.mkdir(parents=True)
    np.save(folder / "chunk_ids.npy", delta.chunk_ids)
    np.save(folder / "document_ids.npy", delta.document_ids)
    np.save(folder / "dropped.npy", delta.dropped)
    sp.save_npz(folder / "scores.npz", delta.scores)
    (folder / "terms.json").write_text(json.dumps(delta.terms, ensure_ascii=False))
    meta = {"base_artifact": delta.base_artifact, "corpus_version": delta.corpus_version, "size": delta.size,
            "dropped": int(delta.dropped.size), "database_id": database_id}
    (folder / DELTA_META).write_text(json.dumps(meta, sort_keys=True))


def load_delta(folder: Path) -> BM25Delta:
    """A delta folder (raises OSError/ValueError/KeyError when it cannot be read)."""
    meta = json.loads((folder / DELTA_META).read_text())
    return BM25Delta(meta["base_artifact"], int(meta["corpus_version"]), np.load(folder / "chunk_ids.npy"),
                     np.load(folder / "document_ids.npy"), json.loads((folder / "terms.json").read_text()),
                     sp.load_npz(folder / "scores.npz").tocsc(), np.load(folder / "dropped.npy"))
