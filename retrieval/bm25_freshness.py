"""Keeping the BM25 index fresh: publishing it for every replica, the delta beside it, and the deletions since.

Builders (ingestion from the CLI, deletions, `kgrag index build`, a serving replica's background builder)
publish an index through core.artifacts; replicas download and swap it. Past ``bm25_delta_min_chunks`` a
change is published as a delta against the base (retrieval/bm25_delta.py) until it outgrows
``bm25_delta_max_share`` or has retired chunks for ``bm25_compact_after`` seconds; then the build is whole.
An index behind the corpus still serves, with the chunks deleted since masked (the deletion log).
"""

from __future__ import annotations

import shutil
import threading
import time
import uuid
from collections.abc import Sequence
from pathlib import Path

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
from kgrag.core.settings import RetrievalSettings
from kgrag.core.store import Store
from kgrag.retrieval.bm25_delta import BM25Delta, build_delta, load_delta, write_delta_files
from kgrag.retrieval.bm25_index import (
    MISSING_FIX,
    BM25Index,
    artifact_folder,
    build_index,
    index_params,
    index_text,
    install,
    load_installed,
    read_meta,
    tokenize,
    variant,
    write_index_files,
)

BUILD_LOCK_KEY = 0x6B67726167_02  # "kgrag" + 2: BM25 builds, one at a time per database


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
            return install_published(artifacts, published, root)
        base = attach_published_delta(artifacts, install_published(artifacts, published, root), root, kind_variant)
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
            return install_published(artifacts, artifact, root)
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


def install_published(artifacts: ArtifactStore, artifact: Artifact, root: Path) -> BM25Index:
    folder = artifacts.download(artifact, artifact_folder(root, artifact))
    meta = read_meta(folder)  # None: a newer install swept it since; install keeps that one
    if meta is not None:
        check_database({"database_id": meta.get("database_id", "")}, artifacts.database_id(),
                       "the published BM25 index", fix=MISSING_FIX)
    current = install(root, folder)
    return load_installed(root, current, artifact=artifact.sha256 if current == folder else "")


# -- deletions since an index -------------------------------------------------------------------------
class DeletedSince:
    """The chunks deleted since an index was built, from the deletion log (Store.deleted_since), read once per
    corpus version and shared by the requests of one retriever; None when the log was pruned past the index."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._lock = threading.Lock()
        self._read: tuple[tuple[int, int], np.ndarray | None] | None = None
        """(index version, corpus version) → the chunks deleted between them."""

    def __call__(self, index: BM25Index, current: int) -> np.ndarray | None:
        key = (index.serving_version, current)
        with self._lock:
            if self._read is not None and self._read[0] == key:
                return self._read[1]
        deleted = self._store.deleted_since(index.serving_version)
        with self._lock:
            self._read = (key, deleted)
        return deleted


def live_hits(store: Store, index: BM25Index, tokens: Sequence[str], k: int,
              allowed: np.ndarray | None) -> list[tuple[int, float]]:
    """The index's best k that still exist, checked in SQL: deeper each round while deletes took more than
    the margin, until k remain or the index has no more hits (when the deletion log no longer reaches back)."""
    depth = 2 * k + 20
    while True:
        ranked = index.search(tokens, depth, allowed)
        live = store.live_chunk_ids([chunk_id for chunk_id, _ in ranked])
        kept = [hit for hit in ranked if hit[0] in live]
        if len(kept) >= k or len(ranked) < depth:
            return kept[:k]
        depth *= 4
