"""Ingestion: load → chunk → embed (batched across documents) → write (one transaction each).

Embedding runs before the write transaction, so transactions stay short and a model failure
never leaves a half-written document. A bad file is reported and the batch goes on.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from core.errors import ConfigError, DatabaseUnavailableError, IngestError, KgragError
from core.models import Embedder
from core.runtime import Runtime
from core.settings import ChunkingSettings, EmbeddingSettings, IngestSettings
from core.store import Store, WriteResult
from core.types import ChunkDraft, LoadedDocument
from ingest.chunking import Chunker
from ingest.loaders import discover, load_file

T = TypeVar("T")
log = logging.getLogger(__name__)


@dataclass(slots=True)
class IngestReport:
    added: list[str] = field(default_factory=list)
    replaced: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    """Links leading outside an ingested folder, with why and how to include them."""
    chunks_written: int = 0
    document_ids: dict[str, int] = field(default_factory=dict)
    stage_seconds: dict[str, float] = field(
        default_factory=lambda: {"parse": 0.0, "chunk": 0.0, "embed": 0.0, "write": 0.0}
    )

    def record(self, source: str, result: WriteResult) -> None:
        {"added": self.added, "replaced": self.replaced, "unchanged": self.unchanged}[result.outcome].append(source)
        self.document_ids[source] = result.document_id
        if result.outcome != "unchanged":
            self.chunks_written += result.chunk_count


Progress = Callable[[str], None]


def ingest_key(embedding_model: str, chunking: ChunkingSettings) -> str:
    """Identifies what turned bytes into chunks; a document stored under another key is re-chunked."""
    blob = json.dumps({"model": embedding_model, "size": chunking.size, "overlap": chunking.overlap}, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def _groups(items: Iterable[T], size: int) -> Iterator[list[T]]:
    group: list[T] = []
    for item in items:
        group.append(item)
        if len(group) >= size:
            yield group
            group = []
    if group:
        yield group


class Ingestor:
    def __init__(
        self, store: Store, embedder: Embedder, chunking: ChunkingSettings, embedding: EmbeddingSettings,
        limits: IngestSettings | None = None,
    ) -> None:
        # Room for [CLS] and [SEP]: a chunk at `size` tokens must still fit the model window whole.
        if chunking.size > embedder.max_tokens - 2:
            raise ConfigError(
                f"chunk size {chunking.size} tokens exceeds what {embedder.name} embeds "
                f"({embedder.max_tokens - 2} tokens); longer chunks would be silently truncated",
                fix=f"set KGRAG_CHUNKING__SIZE to at most {embedder.max_tokens - 2}",
            )
        self.store = store
        self.embedder = embedder
        self.max_file_bytes = (limits or IngestSettings()).max_file_bytes
        self.ingest_key = ingest_key(embedder.name, chunking)
        self.batch_size = embedding.batch_size
        self.chunker = Chunker(embedder.count_tokens, embedder.token_offsets, size=chunking.size,
                               overlap=chunking.overlap)

    @classmethod
    def from_runtime(cls, rt: Runtime) -> Ingestor:
        s = rt.settings
        return cls(rt.store, rt.checked_embedder(), s.chunking, s.embedding, s.ingest)

    def ingest_paths(self, paths: Sequence[Path], *, on_file: Progress | None = None,
                     on_total: Callable[[int], None] | None = None, follow_outside_links: bool = False
                     ) -> IngestReport:
        files, missing, skipped = discover(list(paths), follow_outside_links=follow_outside_links)
        report = IngestReport(failed=list(missing), skipped=skipped)
        if on_total:
            on_total(len(files))

        def loaded() -> Iterable[LoadedDocument | tuple[str, str]]:
            for path in files:
                t0 = time.perf_counter()
                try:
                    yield load_file(path, max_bytes=self.max_file_bytes)
                except IngestError as exc:
                    yield (str(path), str(exc))
                finally:
                    report.stage_seconds["parse"] += time.perf_counter() - t0

        self._ingest_stream(loaded(), report, on_file)
        return report

    def ingest_documents(self, docs: Iterable[LoadedDocument], *, on_file: Progress | None = None) -> IngestReport:
        report = IngestReport()
        self._ingest_stream(docs, report, on_file)
        return report

    def _ingest_stream(self, items: Iterable[LoadedDocument | tuple[str, str]], report: IngestReport,
                       on_file: Progress | None) -> None:
        for group in _groups(items, 256):
            docs = [it for it in group if not isinstance(it, tuple)]
            unchanged = self.store.unchanged_sources(docs, ingest_key=self.ingest_key)
            for item in group:
                if isinstance(item, tuple):
                    report.failed.append(item)
                elif item.source in unchanged:
                    report.record(item.source, WriteResult("unchanged", *unchanged[item.source]))
                else:
                    continue
                if on_file:
                    on_file(item[0] if isinstance(item, tuple) else item.source)
            self._chunk_and_write([d for d in docs if d.source not in unchanged], report, on_file)

    def _chunk_and_write(self, docs: list[LoadedDocument], report: IngestReport, on_file: Progress | None) -> None:
        batch: list[tuple[LoadedDocument, list[ChunkDraft]]] = []
        pending_chunks = 0
        for item in docs:
            t0 = time.perf_counter()
            try:
                drafts = self.chunker.chunk_pages(item.pages)
            except Exception as exc:  # a chunking bug must not sink the batch
                log.exception("chunking %s failed", item.source)
                report.failed.append((item.source, f"chunking failed ({type(exc).__name__}; see the log)"))
                continue
            finally:
                report.stage_seconds["chunk"] += time.perf_counter() - t0
            batch.append((item, drafts))
            pending_chunks += len(drafts)
            if pending_chunks >= self.batch_size * 4:
                self._flush(batch, report, on_file)
                batch, pending_chunks = [], 0
        if batch:
            self._flush(batch, report, on_file)

    def _flush(self, batch: list[tuple[LoadedDocument, list[ChunkDraft]]], report: IngestReport,
               on_file: Progress | None) -> None:
        """Embed the whole batch in one call (the model is fastest that way), then write per document."""
        texts = [d.text for _, drafts in batch for d in drafts]
        t0 = time.perf_counter()
        vectors = self.embedder.encode(texts, batch_size=self.batch_size)
        report.stage_seconds["embed"] += time.perf_counter() - t0
        offset = 0
        for doc, drafts in batch:
            vecs = vectors[offset : offset + len(drafts)]
            offset += len(drafts)
            t1 = time.perf_counter()
            try:
                report.record(doc.source, self.store.write_document(doc, drafts, vecs, ingest_key=self.ingest_key))
            except DatabaseUnavailableError:
                raise  # an outage, not a bad document: the caller reports it once (503), not per file
            except KgragError as exc:
                report.failed.append((doc.source, f"could not store it ({exc})"))
            except Exception as exc:
                # The driver's text (SQL, server paths) goes to the log; the report is shown to clients.
                log.exception("storing %s failed", doc.source)
                report.failed.append((doc.source, f"could not store it ({type(exc).__name__}; see the log)"))
            finally:
                report.stage_seconds["write"] += time.perf_counter() - t1
            if on_file:
                on_file(doc.source)
