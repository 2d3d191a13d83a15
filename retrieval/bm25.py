"""The BM25 retriever: serves the index this replica holds (retrieval.bm25_index), never builds one on a
query's path, and says so when the corpus has moved past it (retrieval.bm25_freshness keeps it fresh).

The index's and its freshness' names are re-exported here, where callers have always found them.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np
from kgrag.core.artifacts import BM25, ArtifactStore
from kgrag.core.runtime import Runtime
from kgrag.core.settings import RetrievalSettings
from kgrag.core.store import Store, filters_sql
from kgrag.core.types import Filters, Hit
from kgrag.retrieval.base import Query, RetrievalResult, StageStatus
from kgrag.retrieval.bm25_freshness import (
    BUILD_LOCK_KEY,
    DeletedSince,
    attach_published_delta,
    compaction_due,
    install_published,
    live_hits,
    publish_index,
    published_delta,
    takes_deltas,
    try_publish_index,
)
from kgrag.retrieval.bm25_index import (
    MISSING_FIX,
    SIGNAL,
    TOKENIZER_VERSION,
    BM25Index,
    artifact_folder,
    build_index,
    delta_status,
    index_from_tokens,
    index_params,
    index_root,
    index_text,
    install,
    load_folder,
    load_index,
    load_installed,
    tokenize,
    variant,
    write_index_files,
)


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
        self._deleted_since = DeletedSince(store)

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
                held = install_published(self.artifacts, published, self.root)
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
            return live_hits(self.store, index, tokens, k, allowed)
        return index.search(tokens, k, allowed, deleted if deleted.size else None)

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


__all__ = ["BUILD_LOCK_KEY", "MISSING_FIX", "SIGNAL", "TOKENIZER_VERSION", "BM25Index", "BM25Retriever", "IndexBehind",
           "artifact_folder", "attach_published_delta", "build_index", "compaction_due", "delta_status",
           "index_behind", "index_from_tokens", "index_params", "index_root", "index_text", "install",
           "install_published", "load_folder", "load_index", "load_installed", "publish_index", "published_delta",
           "takes_deltas", "tokenize", "try_publish_index", "variant", "write_index_files"]
