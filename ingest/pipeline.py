"""Ingestion: load → chunk → embed (batched across documents) → write (one transaction each).

Embedding runs before the write transaction, so transactions stay short and a model failure
never leaves a half-written document. A bad file is reported and the batch goes on.

With the ``ray`` executor (``kgrag ingest --executor ray``) the embedding step runs on Ray actors,
each loading the same model once; batches come back in order and this process writes them as before.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
from kgrag.core.errors import ConfigError, DatabaseError, IngestError, KgragError
from kgrag.core.executor import RayWorker, in_order, ray_session, start_actors, stop_actors
from kgrag.core.models import Embedder, load_embedder
from kgrag.core.priority import QueryActivity
from kgrag.core.runtime import Runtime
from kgrag.core.sandbox import Sandbox
from kgrag.core.settings import ChunkingSettings, EmbeddingSettings, ExecutorSettings, IngestSettings
from kgrag.core.store import Store, WriteResult
from kgrag.core.text import SURROGATE_FIX, clean_line, clean_value, surrogate_char, surrogate_problem
from kgrag.core.types import ChunkDraft, LoadedDocument
from kgrag.ingest.chunking import Chunker
from kgrag.ingest.loaders import PARSER_MODULES, SUPPORTED_SUFFIXES, discover, load_bytes, read_file

T = TypeVar("T")
log = logging.getLogger(__name__)


@dataclass(slots=True)
class IngestReport:
    added: list[str] = field(default_factory=list)
    replaced: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)
    duplicates: list[tuple[str, str]] = field(default_factory=list)
    """(source, the source already holding the same bytes): not stored again unless asked."""
    skipped: list[tuple[str, str]] = field(default_factory=list)
    """(path, why) of what a folder held but was not ingested: a type kgrag does not read, or a link
    leading outside the folder (with how to include it)."""
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
Batch = list[tuple[LoadedDocument, list[ChunkDraft]]]


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
        limits: IngestSettings | None = None, *, allow_duplicates: bool = False,
        executor: ExecutorSettings | None = None, sandbox: Sandbox | None = None,
        activity: QueryActivity | None = None,
    ) -> None:
        """``allow_duplicates``: store a document even when another source holds the same bytes.
        ``sandbox``: where files are parsed (None: in this process; the server and the CLI pass the runtime's).
        ``executor``: kind ``ray`` embeds on Ray actors that load ``embedding.model`` themselves, so
        it must name the model of ``embedder`` (which still counts tokens for chunking here).
        ``activity``: the process's queries in flight, which the embedding step waits for (core.priority)."""
        # Room for [CLS] and [SEP]: a chunk at `size` tokens must still fit the model window whole.
        if chunking.size > embedder.max_tokens - 2:
            raise ConfigError(
                f"chunk size {chunking.size} tokens exceeds what {embedder.name} embeds "
                f"({embedder.max_tokens - 2} tokens); longer chunks would be silently truncated",
                fix=f"set KGRAG_CHUNKING__SIZE to at most {embedder.max_tokens - 2}",
            )
        self.store = store
        self.allow_duplicates = allow_duplicates
        self.embedder = embedder
        self.limits = limits or IngestSettings()
        self.max_file_bytes = self.limits.max_file_bytes
        self.sandbox = sandbox
        self.activity = activity
        self.ingest_key = ingest_key(embedder.name, chunking)
        self.batch_size = embedding.batch_size
        self.embedding = embedding
        self.executor = executor or ExecutorSettings()
        self._ray: tuple[Any, list[Any]] | None = None
        """(ray, embedding actors) while an ingest call runs with the ray executor."""
        self.chunker = Chunker(embedder.count_tokens, embedder.token_offsets, size=chunking.size,
                               overlap=chunking.overlap)

    @classmethod
    def from_runtime(cls, rt: Runtime, *, allow_duplicates: bool = False,
                     executor: ExecutorSettings | None = None) -> Ingestor:
        """``executor`` overrides the settings' (the CLI's --executor)."""
        s = rt.settings
        return cls(rt.store, rt.checked_embedder(bulk=True), s.chunking, s.embedding, s.ingest,
                   allow_duplicates=allow_duplicates, executor=executor or s.executor,
                   sandbox=rt.parser_sandbox(PARSER_MODULES), activity=rt.activity)

    def parse(self, data: bytes, *, source: str, suffix: str, default_title: str) -> LoadedDocument:
        """A file's bytes as a document, parsed in the sandbox when there is one. Every failure is an
        IngestError for this file alone: a parser's own exception (lxml's XMLSyntaxError, a bug) included."""
        try:
            if self.sandbox is None:
                return load_bytes(data, source=source, suffix=suffix, default_title=default_title, limits=self.limits)
            return self.sandbox.run(load_bytes, data, source=source, suffix=suffix, default_title=default_title,
                                    limits=self.limits, label=source)
        except KgragError:
            raise
        except Exception as exc:
            log.exception("parsing %s failed", source)
            raise IngestError(f"{source} could not be parsed ({type(exc).__name__})",
                              fix="check the file opens in its usual program; re-save or convert it") from exc

    @staticmethod
    def nothing_to_read(paths: Sequence[Path], *, follow_outside_links: bool = False) -> IngestReport | None:
        """The whole report when ``paths`` hold no file to read (missing paths, other types only), else None.

        Lets the CLI answer `kgrag ingest /nonexistent` without loading the embedding model or a database."""
        files, missing, skipped = discover(list(paths), follow_outside_links=follow_outside_links)
        return None if files else IngestReport(failed=list(missing), skipped=skipped)

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
                    data, source = read_file(path, max_bytes=self.max_file_bytes)
                    yield self.parse(data, source=source, suffix=path.suffix, default_title=path.stem)
                except KgragError as exc:
                    yield (str(path.resolve()), str(exc))
                finally:
                    report.stage_seconds["parse"] += time.perf_counter() - t0

        with self._embedding_workers():
            self._ingest_stream(loaded(), report, on_file)
        return report

    def ingest_documents(self, docs: Iterable[LoadedDocument], *, on_file: Progress | None = None,
                         allow_duplicates: bool | None = None) -> IngestReport:
        """``allow_duplicates`` overrides the ingestor's setting for this call (one shared API ingestor)."""
        report = IngestReport()
        with self._embedding_workers():
            self._ingest_stream(docs, report, on_file, allow_duplicates)
        return report

    @contextmanager
    def _embedding_workers(self) -> Iterator[None]:
        """With the ray executor: one session and one set of embedding actors for the whole call."""
        if self.executor.kind != "ray" or self._ray is not None:
            yield
            return
        with ray_session(self.executor) as ray:
            actors = start_actors(ray, RayEmbedder, self.embedding)
            self._ray = (ray, actors)
            try:
                yield
            finally:
                self._ray = None
                stop_actors(ray, actors)

    def _ingest_stream(self, items: Iterable[LoadedDocument | tuple[str, str]], report: IngestReport,
                       on_file: Progress | None, allow_duplicates: bool | None = None) -> None:
        duplicates_ok = self.allow_duplicates if allow_duplicates is None else allow_duplicates
        accepted: dict[str, str] = {}  # content hash → source, for duplicates within this run
        for group in _groups(items, 256):
            group = [it if isinstance(it, tuple) else _as_stored(it, self.limits.max_metadata_bytes) for it in group]
            docs = [it for it in group if not isinstance(it, tuple)]
            unchanged = self.store.unchanged_sources(docs, ingest_key=self.ingest_key)
            stored = {} if duplicates_ok else self.store.indexed_with_hashes(
                [d.content_hash for d in docs if d.source not in unchanged])
            to_write: list[LoadedDocument] = []
            failed_before = len(report.failed)
            for item in group:
                if isinstance(item, tuple):
                    report.failed.append(item)
                elif item.source in unchanged:
                    report.record(item.source, WriteResult("unchanged", *unchanged[item.source]))
                    accepted.setdefault(item.content_hash, item.source)
                elif not duplicates_ok and (twin := _twin(item, stored, accepted)) is not None:
                    report.duplicates.append((item.source, twin))
                else:
                    accepted.setdefault(item.content_hash, item.source)
                    to_write.append(item)
                    continue
                if on_file:
                    on_file(item[0] if isinstance(item, tuple) else item.source)
            self.store.mark_failed([_failure(src, why) for src, why in report.failed[failed_before:]])
            self.store.mark_pending(to_write)
            failed_before = len(report.failed)
            self._chunk_and_write(to_write, report, on_file)
            self.store.mark_failed([_failure(src, why) for src, why in report.failed[failed_before:]])


    def _chunk_and_write(self, docs: list[LoadedDocument], report: IngestReport, on_file: Progress | None) -> None:
        embedded = iter(self._embedded(self._batches(docs, report)))
        while True:
            t0, chunk_before = time.perf_counter(), report.stage_seconds["chunk"]
            try:
                batch, vectors = next(embedded)
            except StopIteration:
                break
            finally:  # what next() spent, less the chunking it ran to fill the batch
                report.stage_seconds["embed"] += (
                    time.perf_counter() - t0 - (report.stage_seconds["chunk"] - chunk_before))
            self._write(batch, vectors, report, on_file)

    def _batches(self, docs: list[LoadedDocument], report: IngestReport) -> Iterator[Batch]:
        """Chunked documents, grouped so one embedding call covers several (the model is fastest that way)."""
        batch: Batch = []
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
                yield batch
                batch, pending_chunks = [], 0
        if batch:
            yield batch

    def _embedded(self, batches: Iterable[Batch]) -> Iterator[tuple[Batch, np.ndarray]]:
        """Each batch with its chunks' vectors, in order: here, or on the Ray actors.

        On Ray a batch is cut into pieces of whole model calls (multiples of the encode step), so each
        text is padded with the same neighbours as here and the vectors differ at most in the last bits.
        """
        if self._ray is None:
            for batch in batches:
                yield batch, self.embedder.encode(_texts(batch), batch_size=self.batch_size, defer_to=self.activity,
                                                  defer_s=self.limits.yield_to_queries_s)
            return
        ray, actors = self._ray
        step = max(1, min(self.batch_size, self.embedding.yield_every))
        piece = step * max(1, self.batch_size // step)

        def submit(next_actor: Callable[[], Any], batch: Batch) -> list[Any]:
            texts = _texts(batch)
            return [next_actor().encode.remote(texts[i : i + piece], self.batch_size)
                    for i in range(0, len(texts), piece)]

        for batch, parts in in_order(ray, actors, batches, submit):
            yield batch, (np.concatenate(parts) if parts else np.zeros((0, self.embedder.dim), dtype=np.float32))

    def _write(self, batch: Batch, vectors: np.ndarray, report: IngestReport, on_file: Progress | None) -> None:
        """One transaction per document, so a bad one fails alone."""
        offset = 0
        for doc, drafts in batch:
            vecs = vectors[offset : offset + len(drafts)]
            offset += len(drafts)
            t1 = time.perf_counter()
            try:
                report.record(doc.source, self.store.write_document(doc, drafts, vecs, ingest_key=self.ingest_key))
            except DatabaseError:
                # An outage, or every pooled connection busy: not a bad document. The caller reports it once
                # (503, to retry), not as a failure of this file; its row stays pending, retried next time.
                raise
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


class RayEmbedder(RayWorker):
    """A Ray actor holding the embedding model, resolved exactly as here (``load_embedder``), loaded once."""

    def __init__(self, settings: EmbeddingSettings) -> None:
        self._embedder = load_embedder(settings)

    def encode(self, texts: list[str], batch_size: int) -> np.ndarray:
        return self._embedder.encode(texts, batch_size=batch_size)


class _Unstorable(Exception):
    """Why a document cannot be stored, found while cleaning it."""


def storable(doc: LoadedDocument, max_metadata_bytes: int) -> LoadedDocument | str:
    """The document as it may be stored, or why it cannot be. Every document passes here, whoever made it (a
    loader, an upload, an eval corpus), so this is the one place its title becomes one clean line and its
    metadata strings lose controls and invisible formatting characters (core.text): a bidi override in a
    heading, a front-matter value or a CSV header would otherwise reach every listing. Refused: a lone
    surrogate (no encoder takes it), NaN or Infinity (jsonb does not), metadata over ``max_metadata_bytes``
    (it is returned with the document in every listing). Checked per document before the batch's one
    pending-row statement, which one such value failed whole (a folder stored nothing)."""
    bad = surrogate_char(doc.title)
    if bad is not None:
        return f"{doc.source}: its title holds {surrogate_problem(bad)}: {SURROGATE_FIX}"
    try:
        metadata = _clean_metadata(doc.metadata, "metadata")
        text = json.dumps(metadata, default=str, allow_nan=False, ensure_ascii=False)
    except _Unstorable as exc:
        return f"{doc.source}: {exc}"
    except RecursionError:
        return f"{doc.source}: its metadata is nested too deeply to store: flatten it"
    except ValueError:
        return f"{doc.source}: its metadata holds NaN or Infinity, which cannot be stored: quote the value"
    size = len(text.encode())
    if size > max_metadata_bytes:
        return (f"{doc.source}: its metadata is {size} bytes as JSON, over the limit of {max_metadata_bytes}: move "
                "long values into the text, or raise KGRAG_INGEST__MAX_METADATA_BYTES")
    assert isinstance(metadata, dict)
    return replace(doc, title=clean_line(doc.title) or doc.source, metadata=metadata)


def _clean_metadata(value: object, where: str) -> object:
    if isinstance(value, str):
        if (bad := surrogate_char(value)) is not None:
            raise _Unstorable(f"its {where} holds {surrogate_problem(bad)}: {SURROGATE_FIX}")
        return clean_value(value)
    if isinstance(value, dict):
        out: dict[str, object] = {}
        for key, item in value.items():
            name = str(key)
            if (bad := surrogate_char(name)) is not None:
                raise _Unstorable(f"a metadata key holds {surrogate_problem(bad)}: {SURROGATE_FIX}")
            out[clean_value(name)] = _clean_metadata(item, f"metadata value of {name[:40]!r}")
        return out
    if isinstance(value, list | tuple):
        return [_clean_metadata(item, where) for item in value]
    return value


def _as_stored(doc: LoadedDocument, max_metadata_bytes: int) -> LoadedDocument | tuple[str, str]:
    cleaned = storable(doc, max_metadata_bytes)
    return (doc.source, cleaned) if isinstance(cleaned, str) else cleaned


def _texts(batch: Batch) -> list[str]:
    return [d.text for _, drafts in batch for d in drafts]


def _failure(source: str, reason: str) -> tuple[str, str, str, str]:
    """(source, title, mime type, reason) for the store's failed row: the name is all a failed file offers."""
    name = source.rsplit("/", 1)[-1] or source
    suffix = "." + name.rsplit(".", 1)[-1].lower() if "." in name else ""
    return source, name, SUPPORTED_SUFFIXES.get(suffix, "application/octet-stream"), reason


def _twin(doc: LoadedDocument, stored: dict[str, tuple[int, str]], accepted: dict[str, str]) -> str | None:
    """Another source already holding these bytes (stored, or accepted earlier in this run)."""
    if doc.content_hash in stored and stored[doc.content_hash][1] != doc.source:
        return stored[doc.content_hash][1]
    twin = accepted.get(doc.content_hash)
    return twin if twin is not None and twin != doc.source else None
