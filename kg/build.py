"""`kgrag graph build`: extract what is new, store it per batch, then write the graph file.

Offline and incremental: only chunks without a processed mark are parsed (all of them after
``rebuild`` or a change of extraction parameters). One build runs at a time per database, enforced
by a Postgres advisory lock, and the result is published to the database and the file replaced
atomically at the very end, so a build that dies leaves the previous graph serving (on every
replica) and its committed batches for the next build to keep.
"""

from __future__ import annotations

import json
import shutil
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from kgrag.core.artifacts import GRAPH, GRAPH_DELTA, ArtifactStore, forget_published_deletions
from kgrag.core.models import Embedder
from kgrag.core.settings import ExecutorSettings, GraphSettings
from kgrag.core.store import Store
from kgrag.kg import arrays as serving_arrays
from kgrag.kg.assemble import Assembler
from kgrag.kg.delta import GraphDelta, build_delta, words, write_delta
from kgrag.kg.documents import document_layer
from kgrag.kg.graphfile import (
    FORMAT,
    GRAPH_FILE,
    WrittenGraph,
    installed_artifact,
    move_atomic,
    write_graph,
    write_sidecar,
)
from kgrag.kg.holder import install_arrays, install_delta_folder, load_graph, local_delta, remove_delta
from kgrag.kg.nlp import model_id
from kgrag.kg.parallel import extract_in_order, extract_with_ray, worker_count
from kgrag.kg.serving import LoadedGraph
from kgrag.kg.store import GraphStore

EXTRACTOR_VERSION = 2
"""Bump when extraction logic changes what it finds: stored rows from an older extractor are redone. 2: a
stand-in title (the source or file name) no longer names a title entity."""
LINK_VECTOR_BATCH = 4096
"""Link sentences per ``encode`` call: bounds the float32 copy the model returns."""
DOCUMENTS_BATCH_CHUNKS = 256
"""Chunks per write transaction (whole documents, so aliases resolve within one)."""


@dataclass(frozen=True, slots=True)
class BuildReport:
    rebuilt: bool
    chunks_processed: int
    entities: int
    relations: int
    edges: int
    chunks_covered: int
    pruned_entities: int
    corpus_version: int
    file_bytes: int
    link_sentences_embedded: int
    """Link sentences new since the last build, embedded into the arrays (the rest were reused)."""
    seconds: float
    path: Path
    delta_chunks: int = 0
    """Chunks published as a delta over the base (kg.delta); 0 for a whole build."""


def extraction_params(settings: GraphSettings, nlp: Any) -> dict[str, Any]:
    """What changes the extracted rows; stamped on the manifest and compared before an incremental build."""
    return {
        "extractor": EXTRACTOR_VERSION,
        "spacy_model": settings.spacy_model,
        "spacy_model_version": model_id(nlp),
        "entity_labels": sorted(settings.entity_labels),
        "extraction": settings.extraction,
    }


def build_graph(
    store: GraphStore, settings: GraphSettings, path: Path, nlp: Any, *, rebuild: bool = False,
    on_total: Callable[[int], None] | None = None, on_progress: Callable[[int], None] | None = None,
    batch_chunks: int | None = None, executor: ExecutorSettings | None = None,
    artifacts: ArtifactStore | None = None, on_stage: Callable[[str], None] | None = None,
    embedder: Embedder | None = None, full: bool = False,
) -> BuildReport:
    """Run one build; raises BuildLockedError when another is running.

    ``nlp`` is used in this process; worker processes (``settings.processes``) load
    ``settings.spacy_model`` themselves, so the two must name the same model. With a ``ray``
    ``executor`` the extraction runs on Ray actors instead; this process still writes every batch.

    The file is published to the database (core.artifacts) before it is written here: every replica
    then installs the same bytes, and a build killed before the publish commits leaves every replica,
    this data home included, on the previous graph.

    ``on_stage`` is told when each step after extraction begins: on a large corpus they take minutes
    with no chunk count to show (the CLI shows the name; bench/scale.py times each and samples memory).

    ``embedder`` (the dense model) embeds every link sentence new since the last build into the arrays, so
    weighing a query's hops (kg.search.weigh_hops) reads vectors instead of running the model; without
    one, queries embed the few sentences they weigh themselves.

    A graph of at least ``settings.delta_min_chunks`` chunks takes what was added since it as a delta
    (kg.delta), published beside it, until the delta passes ``settings.delta_max_share`` of it; then, and
    with ``full`` or ``rebuild``, the build is whole, and it retires the delta.
    """
    stage = on_stage or (lambda _name: None)
    artifacts = artifacts or ArtifactStore(store.db)
    t0 = time.perf_counter()
    params = extraction_params(settings, nlp)
    with store.build_lock():
        rebuilt = _settle_params(store, params, rebuild)
        _remove_leftovers(path)
        processed = _extract_pending(store, settings, nlp, on_total=on_total, on_progress=on_progress,
                                     batch_chunks=batch_chunks, executor=executor)
        stage("pruning orphan entities")
        pruned = store.prune_orphans()
        if not (rebuilt or full):
            delta = _try_delta(store, settings, path, artifacts, embedder, stage)
            if delta is not None:
                return _delta_report(store, delta, path, processed, pruned, time.perf_counter() - t0)
        assembler = Assembler(settings.document_edge_weight)  # the serving arrays, from the same records
        written, manifest = _write_graph_file(store, settings, path, params, artifacts, assembler, stage)
        counts = written.counts
        arrays = path.parent / f".arrays-{uuid.uuid4().hex[:8]}"
        try:
            file_bytes = written.path.stat().st_size
            stage("writing the serving arrays")
            serving = assembler.finish({**manifest, "counts": counts}, path=path, signature=(0, 0, 0))
            del assembler
            embedded = _save_arrays(serving, settings, embedder, path, arrays, written.sha256, stage)
            del serving
            stage("publishing")
            _publish_whole(store, path, written, arrays, artifacts, params, manifest["corpus_version"])
        finally:
            shutil.rmtree(arrays, ignore_errors=True)
            written.path.unlink(missing_ok=True)
    return BuildReport(
        rebuilt=rebuilt, chunks_processed=processed, entities=counts["entities"], relations=counts["relations"],
        edges=counts["edges"], chunks_covered=counts["chunks"], pruned_entities=pruned,
        corpus_version=manifest["corpus_version"], file_bytes=file_bytes, link_sentences_embedded=embedded,
        seconds=time.perf_counter() - t0, path=path,
    )


def _settle_params(store: GraphStore, params: dict[str, Any], rebuild: bool) -> bool:
    """Whether every stored row is extracted again: asked to, or the extraction parameters changed."""
    params_json = json.dumps(params, sort_keys=True)
    stored = store.stored_params()
    rebuilt = rebuild or (stored is not None and stored != params_json)
    if rebuilt:
        store.reset(params_json)
    elif stored is None:
        store.record_params(params_json)
    return rebuilt


def _remove_leftovers(path: Path) -> None:
    """The arrays folder and temporary file of a build that was killed."""
    for leftover in path.parent.glob(".arrays-*"):
        shutil.rmtree(leftover, ignore_errors=True)
    for leftover in path.parent.glob(f".{GRAPH_FILE}.*.tmp"):
        leftover.unlink(missing_ok=True)


def _extract_pending(store: GraphStore, settings: GraphSettings, nlp: Any, *,
                     on_total: Callable[[int], None] | None, on_progress: Callable[[int], None] | None,
                     batch_chunks: int | None, executor: ExecutorSettings | None) -> int:
    """Extract the chunks without a processed mark, whole documents per batch, and store each batch as it comes;
    the number of chunks processed."""
    pending = store.pending_documents()
    if on_total:
        on_total(sum(n for _, n in pending))
    batches = list(_batches(pending, batch_chunks or DOCUMENTS_BATCH_CHUNKS))
    # Starting workers costs seconds (each loads the model), so one batch is parsed here.
    workers = min(worker_count(settings.processes), len(batches))
    chunk_batches = (chunks for ids in batches if (chunks := store.pending_chunks(ids)))
    processed = 0
    on_ray = executor is not None and executor.kind == "ray" and bool(batches)
    extracted = (extract_with_ray(settings, executor, chunk_batches) if on_ray
                 else extract_in_order(settings, chunk_batches, workers=workers, nlp=nlp))
    for chunks, extraction in extracted:
        processed += store.write(extraction)
        if on_progress:
            on_progress(len(chunks))
    return processed


def _write_graph_file(store: GraphStore, settings: GraphSettings, path: Path, params: dict[str, Any],
                      artifacts: ArtifactStore, assembler: Assembler, stage: Callable[[str], None]
                      ) -> tuple[WrittenGraph, dict[str, Any]]:
    """Link documents by title, then stream the stored rows into a temporary graph file (and ``assembler``);
    the written file and its manifest."""
    if store.processed_chunk_count() >= settings.delta_min_chunks:
        # once per chunk (later deltas find a new title's writers by it): minutes the first time on a large corpus
        store.fill_words(words, on_progress=_tenths(stage, "indexing chunk words for deltas"))
    stage("linking documents by title")
    layer = document_layer(store.document_heads(), store.iter_chunk_texts())
    stage("writing the graph file")
    path.parent.mkdir(parents=True, exist_ok=True)
    with store.snapshot() as snapshot:  # its rows stream into the file, never held whole
        manifest = {"format": FORMAT, "corpus_version": snapshot.corpus_version, "deletions": snapshot.deletions,
                    "processed_seq": snapshot.processed_seq,
                    "params": params, "database_id": artifacts.database_id()}
        written = write_graph(snapshot, manifest, layer, path.parent, sink=assembler)
    return written, manifest


def _save_arrays(serving: LoadedGraph, settings: GraphSettings, embedder: Embedder | None, path: Path,
                 arrays: Path, source_sha256: str, stage: Callable[[str], None]) -> int:
    """Write the serving arrays (with the link sentences' vectors when there is a model) to ``arrays``; how many
    sentences were embedded."""
    vectors, embedded = None, 0
    if embedder is not None and settings.link_vectors:
        vectors, embedded = link_vectors(serving, embedder, serving_arrays.folder_of(path), stage)
    serving_arrays.save(serving, arrays, source_sha256=source_sha256,
                        document_edge_weight=settings.document_edge_weight, link_vectors=vectors)
    return embedded


def _publish_whole(store: GraphStore, path: Path, written: WrittenGraph, arrays: Path, artifacts: ArtifactStore,
                   params: dict[str, Any], corpus_version: int) -> None:
    """Publish the file and its arrays to every replica, then install them here, unless a newer build published
    first; a whole build retires the delta it folds in."""
    files: dict[str, bytes | Path] = {GRAPH_FILE: written.path}
    files.update({serving_arrays.PREFIX + f.name: f for f in sorted(arrays.iterdir())})
    artifact = artifacts.publish(GRAPH, "", corpus_version, files, {"params": params, "counts": written.counts})
    if artifact.corpus_version == corpus_version:
        artifacts.retire(GRAPH_DELTA)  # folded into this base (compaction)
        forget_published_deletions(Store(store.db), artifacts)
        install_arrays(arrays, path)
        move_atomic(written.path, path)
        write_sidecar(path, artifact.id, artifact.sha256)
        remove_delta(path)


def _try_delta(store: GraphStore, settings: GraphSettings, path: Path, artifacts: ArtifactStore,
               embedder: Embedder | None, stage: Callable[[str], None]) -> GraphDelta | None:
    """Publish the delta from the published base this home holds, when the graph takes deltas and the additions
    are within ``delta_max_share`` of it; None when the build must be whole."""
    published = artifacts.current(GRAPH)
    if published is None or installed_artifact(path) != published.sha256:
        return None
    base = load_graph(path, document_edge_weight=settings.document_edge_weight)
    if base.chunk_count < settings.delta_min_chunks:
        return None
    last, processed_seq = base.last_chunk_id, base.processed_seq()
    if processed_seq is None or store.processed_out_of_order(processed_seq, last):
        return None  # a base from before the order was kept, or an upload that committed below its last id
    previous = artifacts.current(GRAPH_DELTA)
    since = (previous.manifest.get("deleting_since") if previous is not None
             and previous.manifest.get("base_artifact") == published.sha256 else None)
    if since is not None and time.time() - float(since) >= settings.compact_after:
        return None  # a deleted document's words have stayed in the base long enough: compact
    stage("finding what the added documents change")
    delta = build_delta(store, base, published.sha256, embedder=embedder if settings.link_vectors else None,
                        previous=local_delta(path))
    if not 0 < delta.size <= settings.delta_max_share * base.chunk_count:
        return None  # nothing added (a delete: the whole build drops its words), or too much for a delta
    if delta.deletions != base.deletions():  # the base holds deleted documents: start the clock
        since = since if since is not None else time.time()
        if time.time() - float(since) >= settings.compact_after:
            return None
    stage("publishing the delta")
    folder = path.parent / f".delta-{uuid.uuid4().hex[:8]}"
    try:
        write_delta(delta, folder)
        files: dict[str, bytes | Path] = {f.name: f for f in sorted(folder.iterdir())}
        artifact = artifacts.publish(GRAPH_DELTA, "", delta.corpus_version, files, {
            "base_artifact": published.sha256, "base_version": base.corpus_version, "chunks": delta.size,
            "deleting_since": since})
        if artifact.corpus_version == delta.corpus_version:
            install_delta_folder(folder, path, artifact.sha256)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return delta


def _tenths(stage: Callable[[str], None], name: str, suffix: str = "") -> Callable[[int, int], None]:
    """A progress callback that names the stage again each tenth of the way."""
    told = [-1]

    def progress(done: int, total: int) -> None:
        if (tenth := 10 * done // max(total, 1)) > told[0]:
            stage(f"{name}: {done:,} of {total:,}{suffix}")
            told[0] = tenth

    return progress


def _delta_report(store: GraphStore, delta: GraphDelta, path: Path, processed: int, pruned: int,
                  seconds: float) -> BuildReport:
    counts = store.counts()
    return BuildReport(
        rebuilt=False, chunks_processed=processed, entities=counts["entities"], relations=counts["relations"],
        edges=len(delta.edges), chunks_covered=counts["processed_chunks"], pruned_entities=pruned,
        corpus_version=delta.corpus_version, file_bytes=0, link_sentences_embedded=len(delta.link_vectors),
        seconds=seconds, path=path, delta_chunks=delta.size)


def link_vectors(graph: LoadedGraph, embedder: Embedder, previous: Path,
                 stage: Callable[[str], None]) -> tuple[serving_arrays.LinkVectors, int]:
    """Every link sentence's vector, and how many were embedded now: from the previous build's arrays at
    ``previous`` where the same model made them, else embedded now (about one sentence for every two
    chunks on a titled corpus)."""
    texts = serving_arrays.link_texts(graph)
    stored = serving_arrays.stored_link_vectors(previous, embedder.stamp)
    vectors = np.zeros((len(texts), embedder.dim), dtype=np.float16)
    missing: list[int] = []
    for i, text in enumerate(texts):
        known = stored.get(text)
        if known is None:
            missing.append(i)
        else:
            vectors[i] = known
    progress = _tenths(stage, "embedding link sentences", f" new ({len(texts):,} in all)")  # minutes on a large corpus
    for start in range(0, len(missing), LINK_VECTOR_BATCH):
        progress(start, len(missing))
        rows = missing[start:start + LINK_VECTOR_BATCH]
        vectors[rows] = embedder.encode([texts[i] for i in rows], step=serving_arrays.LINK_VECTOR_STEP)
    return serving_arrays.LinkVectors(embedder.stamp, vectors), len(missing)


def _batches(pending: list[tuple[int, int]], max_chunks: int) -> Iterator[list[int]]:
    batch: list[int] = []
    size = 0
    for document_id, count in pending:
        if batch and size + count > max_chunks:
            yield batch
            batch, size = [], 0
        batch.append(document_id)
        size += count
    if batch:
        yield batch
