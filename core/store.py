"""Documents and chunks in Postgres: the one place that writes or reads them.

Writes are one transaction per document, so a document is either fully stored or not at all,
and every write bumps the corpus version that derived indexes (BM25, graph) compare against.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from contextlib import closing, contextmanager
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import psycopg
from kgrag.core.db import Database
from kgrag.core.errors import NotFoundError
from kgrag.core.types import ChunkDraft, ChunkRecord, DocumentRecord, DocumentStatus, Filters, LoadedDocument
from pgvector import Vector
from psycopg.types.json import Jsonb

WriteOutcome = Literal["added", "replaced", "unchanged"]


@dataclass(frozen=True, slots=True)
class WriteResult:
    outcome: WriteOutcome
    document_id: int
    chunk_count: int


@dataclass(frozen=True, slots=True)
class CorpusState:
    """Where the corpus is: ``version`` moves with every change, ``deletions`` with every delete or replace,
    so an index built at the same count is known to hold no deleted chunk without listing any."""

    version: int
    deletions: int


def _bump_corpus_version(conn: Any, *, deleted: bool = False, deleted_chunks: Sequence[int] = ()) -> int:
    """Every corpus change: the notification reaches listening replicas when the change commits. A delete's
    chunks are logged under the version it takes, in the same transaction (the row lock on corpus_state
    orders writers, so versions follow commit order)."""
    row = conn.execute("UPDATE corpus_state SET version = version + 1, deletions = deletions + %s WHERE id = 1"
                       " RETURNING version", (int(deleted),)).fetchone()
    if deleted_chunks:
        conn.execute("INSERT INTO deleted_chunks (chunk_id, version) SELECT unnest(%s::bigint[]), %s"
                     " ON CONFLICT (chunk_id) DO NOTHING", (list(deleted_chunks), row[0]))
    conn.execute("SELECT pg_notify('kgrag_corpus', %s)", (str(row[0]),))
    return int(row[0])


def _chunk_ids_of(conn: Any, document_id: int) -> list[int]:
    return [int(r[0]) for r in conn.execute("SELECT id FROM chunks WHERE document_id = %s", (document_id,))]


_CHUNK_COPY_TYPES = ("int8", "int4", "int4", "text", "int4", "vector", "jsonb")
_EMPTY_JSON = Jsonb({})


def _vector_binary(vec: np.ndarray) -> Vector:
    """pgvector's binary form; float32 first, so a float64 array is not sent at double width by mistake."""
    return Vector(np.asarray(vec, dtype=np.float32))


def filters_sql(filters: Filters, *, doc_alias: str = "d", chunk_alias: str = "c") -> tuple[str, list[Any]]:
    """A WHERE fragment (starting with ' AND') and its parameters. Values only ever travel as parameters."""
    parts: list[str] = []
    params: list[Any] = []
    if filters.document_ids:
        parts.append(f"{chunk_alias}.document_id = ANY(%s)")
        params.append(list(filters.document_ids))
    if filters.sources:
        parts.append(f"{doc_alias}.source = ANY(%s)")
        params.append(list(filters.sources))
    for key, value in filters.metadata:
        parts.append(f"{doc_alias}.metadata ->> %s = %s")
        params.extend([key, value])
    return "".join(f" AND {p}" for p in parts), params


class Store:
    def __init__(self, db: Database) -> None:
        self.db = db

    # -- writes ---------------------------------------------------------------------------------
    def write_document(
        self, doc: LoadedDocument, chunks: Sequence[ChunkDraft], embeddings: np.ndarray, *, ingest_key: str = ""
    ) -> WriteResult:
        """Store a document and its chunks atomically, replacing an older version from the same source.

        An unchanged document (same source, content hash and ingest key) is a no-op.
        """
        if len(chunks) != len(embeddings):
            raise ValueError(f"{len(chunks)} chunks but {len(embeddings)} embeddings")
        with self.db.transaction() as conn:
            # Serialise writers of the same source (e.g. the same file uploaded twice at once).
            conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (doc.source,))
            existing = conn.execute(
                "SELECT id, content_hash, ingest_key, status FROM documents WHERE source = %s", (doc.source,)
            ).fetchone()
            if existing and existing[3] == "indexed" and (existing[1], existing[2]) == (doc.content_hash, ingest_key):
                count = conn.execute("SELECT count(*) FROM chunks WHERE document_id = %s", (existing[0],))
                return WriteResult("unchanged", int(existing[0]), int(count.fetchone()[0]))
            replaced = bool(existing) and existing[3] == "indexed"  # a pending or failed row held no chunks
            retired = _chunk_ids_of(conn, existing[0]) if replaced else []
            values = (doc.content_hash, ingest_key, doc.title, doc.mime_type, Jsonb(doc.metadata))
            if existing and not replaced:
                # The pending (or failed) row this ingest marked keeps its id: a first ingest numbered the
                # examples 13-24 because their pending rows had used 1-12 (issue 46). Same transaction as the
                # chunks, and that row held none, so a crash still leaves it pending for the next run.
                row = conn.execute(
                    "UPDATE documents SET content_hash = %s, ingest_key = %s, title = %s, mime_type = %s,"
                    " metadata = %s, status = 'indexed', status_reason = '', created_at = now(), updated_at = now()"
                    " WHERE id = %s RETURNING id", (*values, existing[0]),
                ).fetchone()
            else:  # new, or a new version of an indexed one: a new id (the old one's chunks and id retire)
                if existing:
                    conn.execute("DELETE FROM documents WHERE id = %s", (existing[0],))
                row = conn.execute(
                    "INSERT INTO documents (source, content_hash, ingest_key, title, mime_type, metadata)"
                    " VALUES (%s, %s, %s, %s, %s, %s) RETURNING id", (doc.source, *values),
                ).fetchone()
            doc_id = int(row[0])
            # Binary COPY: a vector travels as its float32 bytes, not 384 numbers formatted in Python.
            with conn.cursor() as cur, cur.copy(
                "COPY chunks (document_id, position, page, text, token_count, embedding, metadata)"
                " FROM STDIN (FORMAT BINARY)"
            ) as copy:
                copy.set_types(_CHUNK_COPY_TYPES)
                for chunk, vec in zip(chunks, embeddings, strict=True):
                    copy.write_row(
                        (doc_id, chunk.position, chunk.page, chunk.text, chunk.token_count,
                         _vector_binary(vec), _EMPTY_JSON)
                    )
            _bump_corpus_version(conn, deleted=replaced, deleted_chunks=retired)
        return WriteResult("replaced" if replaced else "added", doc_id, len(chunks))

    def mark_pending(self, docs: Sequence[LoadedDocument]) -> None:
        """Record documents about to be chunked and embedded. An indexed version keeps serving until it is
        replaced; a document left pending was never finished (the process stopped) and is retried next time."""
        if not docs:
            return
        with self.db.transaction() as conn, conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO documents (source, content_hash, title, mime_type, metadata, status)"
                " VALUES (%s, '', %s, %s, %s, 'pending')"
                " ON CONFLICT (source) DO UPDATE SET status = 'pending', status_reason = '', updated_at = now()"
                " WHERE documents.status = 'failed'",
                [(d.source, d.title, d.mime_type, Jsonb(d.metadata)) for d in docs],
            )

    def mark_failed(self, failures: Sequence[tuple[str, str, str, str]]) -> None:
        """(source, title, mime type, reason) of inputs that could not be ingested, remembered with why.

        A source with an indexed version keeps it (it is still served) and the reason says a newer one failed.
        """
        if not failures:
            return
        with self.db.transaction() as conn, conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO documents (source, content_hash, title, mime_type, status, status_reason)"
                " VALUES (%s, '', %s, %s, 'failed', %s)"
                " ON CONFLICT (source) DO UPDATE SET updated_at = now(),"
                "  status = CASE WHEN documents.status = 'indexed' THEN 'indexed' ELSE 'failed' END,"
                "  status_reason = CASE WHEN documents.status = 'indexed'"
                "   THEN 'a newer version could not be ingested (' || EXCLUDED.status_reason"
                "        || '); the previous version is still served'"
                "   ELSE EXCLUDED.status_reason END",
                [(source, title[:500], mime, reason) for source, title, mime, reason in failures],
            )

    def indexed_with_hashes(self, hashes: Sequence[str]) -> dict[str, tuple[int, str]]:
        """content hash → (document id, source) of an indexed document with those bytes (duplicate check)."""
        if not hashes:
            return {}
        with self.db.connection() as conn:
            rows = conn.execute(
                "SELECT DISTINCT ON (content_hash) content_hash, id, source FROM documents"
                " WHERE content_hash = ANY(%s) AND status = 'indexed' ORDER BY content_hash, id",
                (list(hashes),),
            ).fetchall()
        return {r[0]: (int(r[1]), r[2]) for r in rows}

    def delete_document(self, document_id: int) -> DocumentRecord:
        """Delete a document and everything derived from it (chunks, and by cascade graph evidence)."""
        with self.db.transaction() as conn:
            record = self._document(conn, document_id)
            # The graph's entities this document mentioned: those no other chunk mentions go with it,
            # now rather than at the next graph build, so no listing or export still names them.
            entity_ids = [r[0] for r in conn.execute(
                "SELECT DISTINCT m.entity_id FROM kg_mentions m JOIN chunks c ON c.id = m.chunk_id"
                " WHERE c.document_id = %s", (document_id,)).fetchall()]
            retired = _chunk_ids_of(conn, document_id)
            conn.execute("DELETE FROM documents WHERE id = %s", (document_id,))
            if entity_ids:
                conn.execute("DELETE FROM kg_entities e WHERE e.id = ANY(%s)"
                             " AND NOT EXISTS (SELECT 1 FROM kg_mentions m WHERE m.entity_id = e.id)", (entity_ids,))
            _bump_corpus_version(conn, deleted=True, deleted_chunks=retired)
        return record

    # -- reads ----------------------------------------------------------------------------------
    def unchanged_sources(self, docs: Sequence[LoadedDocument], *, ingest_key: str) -> dict[str, tuple[int, int]]:
        """Sources already stored with these bytes and this ingest key → (document id, chunk count).

        Lets ingestion skip chunking and embedding for them; write_document re-checks under its lock.
        """
        if not docs:
            return {}
        with self.db.connection() as conn:
            rows = conn.execute(
                "SELECT d.source, d.content_hash, d.id, (SELECT count(*) FROM chunks c WHERE c.document_id = d.id)"
                " FROM documents d WHERE d.source = ANY(%s) AND d.ingest_key = %s AND d.status = 'indexed'",
                ([d.source for d in docs], ingest_key),
            ).fetchall()
        hashes = {d.source: d.content_hash for d in docs}
        return {r[0]: (int(r[2]), int(r[3])) for r in rows if hashes.get(r[0]) == r[1]}

    def live_chunk_ids(self, chunk_ids: Sequence[int]) -> set[int]:
        """Which of these chunks still exist (derived files such as the graph may name deleted ones)."""
        if not chunk_ids:
            return set()
        with self.db.connection() as conn:
            rows = conn.execute("SELECT id FROM chunks WHERE id = ANY(%s)", (list(chunk_ids),)).fetchall()
        return {int(r[0]) for r in rows}

    def deleted_since(self, version: int) -> np.ndarray | None:
        """The chunk ids deleted (or replaced) after corpus ``version``, from the deletion log; None when the
        log does not reach back that far (pruned, or older than the log): the caller lists instead."""
        with self.db.connection() as conn:
            row = conn.execute(
                "SELECT (SELECT deletion_log_from FROM corpus_state WHERE id = 1),"
                " array(SELECT chunk_id FROM deleted_chunks WHERE version > %s)", (version,)).fetchone()
        if version < int(row[0]):
            return None
        return np.asarray(row[1], dtype=np.int64)

    def gone_chunk_ids(self, chunk_ids: np.ndarray, since_version: int) -> np.ndarray:
        """Which of ``chunk_ids`` (an artifact's, built at ``since_version``) are deleted now: from the log
        when it reaches back (rows deleted since; O(deletes)), else by listing which still exist."""
        deleted = self.deleted_since(since_version)
        if deleted is not None:
            return deleted[np.isin(deleted, chunk_ids)]
        live = np.fromiter(self.live_chunk_ids(chunk_ids.tolist()), dtype=np.int64)
        return chunk_ids[~np.isin(chunk_ids, live)]

    def forget_deletions_through(self, version: int) -> None:
        """Every artifact replicas install is built at ``version`` or later: older log rows are no longer
        read (a replica still on an older artifact lists instead, see deleted_since)."""
        with self.db.transaction() as conn:
            conn.execute("UPDATE corpus_state SET deletion_log_from = greatest(deletion_log_from, %s) WHERE id = 1",
                         (version,))
            conn.execute("DELETE FROM deleted_chunks WHERE version <= %s", (version,))

    def corpus_version(self) -> int:
        return self.corpus_state().version

    def corpus_state(self) -> CorpusState:
        with self.db.connection() as conn:
            row = conn.execute("SELECT version, deletions FROM corpus_state WHERE id = 1").fetchone()
        return CorpusState(int(row[0]), int(row[1]))

    def document(self, document_id: int) -> DocumentRecord:
        with self.db.connection() as conn:
            return self._document(conn, document_id)

    def _document(self, conn: Any, document_id: int) -> DocumentRecord:
        row = conn.execute(
            _DOCUMENT_SELECT + " WHERE d.id = %s",
            (document_id,),
        ).fetchone()
        if row is None:
            raise NotFoundError(f"no document with id {document_id}", fix="list them with `kgrag documents list`")
        return _document_record(row)

    def list_documents(self, *, limit: int = 1000, offset: int = 0,
                       status: DocumentStatus | None = None) -> list[DocumentRecord]:
        """Every document whatever its status (failed ones too, with why), or only those with ``status``."""
        where, params = (" WHERE d.status = %s", [status]) if status else ("", [])
        with self.db.connection() as conn:
            rows = conn.execute(
                _DOCUMENT_SELECT + where + " ORDER BY d.id LIMIT %s OFFSET %s", (*params, limit, offset),
            ).fetchall()
        return [_document_record(r) for r in rows]

    def is_empty(self) -> bool:
        """No chunk stored at all (pending or failed documents hold none): the fix is to ingest."""
        with self.db.connection() as conn:
            return not conn.execute("SELECT EXISTS (SELECT 1 FROM chunks)").fetchone()[0]

    def document_counts(self) -> dict[str, int]:
        """Documents per status ("indexed", "pending", "failed"), only those present."""
        with self.db.connection() as conn:
            rows = conn.execute("SELECT status, count(*) FROM documents GROUP BY status ORDER BY status").fetchall()
        return {str(status): int(n) for status, n in rows}

    def count_chunks(self) -> int:
        with self.db.connection() as conn:
            return int(conn.execute("SELECT count(*) FROM chunks").fetchone()[0])

    def chunks(self, chunk_ids: Sequence[int]) -> dict[int, ChunkRecord]:
        """Chunk records by id (missing ids are simply absent: a document may have been deleted)."""
        if not chunk_ids:
            return {}
        with self.db.connection() as conn:
            rows = conn.execute(
                _CHUNK_SELECT + " WHERE c.id = ANY(%s)", (list(chunk_ids),)
            ).fetchall()
        return {int(r[0]): _chunk_record(r) for r in rows}

    def document_openings(self, document_ids: Sequence[int], *, chars: int = 600) -> dict[int, str]:
        """The first ``chars`` characters of each document's first chunk: where its text says what it is about."""
        if not document_ids:
            return {}
        with self.db.connection() as conn:
            rows = conn.execute(
                "SELECT DISTINCT ON (document_id) document_id, left(text, %s) FROM chunks"
                " WHERE document_id = ANY(%s) ORDER BY document_id, position", (chars, list(document_ids))).fetchall()
        return {int(r[0]): r[1] for r in rows}

    def document_chunks(self, document_id: int, *, offset: int = 0, limit: int | None = None) -> list[ChunkRecord]:
        """The document's chunks in document order (a page of them with offset/limit); NotFoundError when
        there is no such document, so an empty list always means a document without chunks."""
        with self.db.connection() as conn:
            self._document(conn, document_id)
            rows = conn.execute(
                _CHUNK_SELECT + " WHERE c.document_id = %s ORDER BY c.position OFFSET %s LIMIT %s",
                (document_id, offset, limit),
            ).fetchall()
        return [_chunk_record(r) for r in rows]

    @contextmanager
    def chunk_snapshot(self, *, batch_size: int = 2000) -> Iterator[tuple[int, Iterator[tuple[int, int, str, str]]]]:
        """The corpus version and (chunk id, document id, title, text) of every chunk, both read in one
        REPEATABLE READ snapshot: an index built from it is exactly the version it records."""
        with self._snapshot() as (conn, version), closing(_index_rows(conn, "", (), batch_size)) as rows:
            yield version, rows

    @contextmanager
    def chunks_since(self, last_id: int, indexed: np.ndarray, *, batch_size: int = 2000
                     ) -> Iterator[tuple[int, np.ndarray, Iterator[tuple[int, int, str, str]]]]:
        """For a BM25 delta, in one REPEATABLE READ snapshot: the corpus version, the ids of the chunks up to
        ``last_id`` that still exist (sorted), and (chunk id, document id, title, text) of every chunk the base
        (``indexed``: its chunk ids, sorted) lacks.

        Those are the chunks after the base's last id, and any below it that the base never saw: ids are
        taken when a writer inserts, not when it commits, so an upload that commits after a faster one can
        hold lower ids than chunks already indexed."""
        with self._snapshot() as (conn, version):
            live = np.fromiter((r[0] for r in conn.execute(
                "SELECT id FROM chunks WHERE id <= %s ORDER BY id", (last_id,))), dtype=np.int64)
            late = np.setdiff1d(live, indexed, assume_unique=True)
            where, params = ((" WHERE c.id > %s OR c.id = ANY(%s)", (last_id, late.tolist())) if late.size
                             else (" WHERE c.id > %s", (last_id,)))
            with closing(_index_rows(conn, where, params, batch_size)) as rows:
                yield version, live, rows

    @contextmanager
    def _snapshot(self) -> Iterator[tuple[Any, int]]:
        """A connection in one REPEATABLE READ transaction, and the corpus version it sees."""
        with self.db.connection() as conn:
            conn.isolation_level = psycopg.IsolationLevel.REPEATABLE_READ
            try:
                with conn.transaction():
                    yield conn, int(conn.execute("SELECT version FROM corpus_state WHERE id = 1").fetchone()[0])
            finally:
                conn.isolation_level = None

    def iter_chunks(self, *, batch_size: int = 2000, after_id: int = 0) -> Iterator[ChunkRecord]:
        """All chunks in id order, streamed in batches (keyset pagination, no long-held cursor)."""
        last = after_id
        while True:
            with self.db.connection() as conn:
                rows = conn.execute(
                    _CHUNK_SELECT + " WHERE c.id > %s ORDER BY c.id LIMIT %s", (last, batch_size)
                ).fetchall()
            if not rows:
                return
            for r in rows:
                yield _chunk_record(r)
            last = int(rows[-1][0])


_DOCUMENT_SELECT = (
    "SELECT d.id, d.source, d.title, d.mime_type, d.content_hash, d.metadata,"
    " (SELECT count(*) FROM chunks c WHERE c.document_id = d.id), d.status, d.status_reason"
    " FROM documents d"
)

_CHUNK_SELECT = (
    "SELECT c.id, c.document_id, c.position, c.text, c.page, d.source, d.title, d.metadata"
    " FROM chunks c JOIN documents d ON d.id = c.document_id"
)


def _index_rows(conn: Any, where: str, params: Sequence[Any], batch_size: int
                ) -> Iterator[tuple[int, int, str, str]]:
    """(chunk id, document id, title, text) in id order from a server-side cursor: what BM25 indexes. Callers
    close it inside their transaction (``contextlib.closing``), so the cursor never outlives it."""
    with conn.cursor(name="kgrag_index_rows") as cur:
        cur.itersize = batch_size
        cur.execute("SELECT c.id, c.document_id, d.title, c.text FROM chunks c"
                    " JOIN documents d ON d.id = c.document_id" + where + " ORDER BY c.id", params)
        yield from ((int(r[0]), int(r[1]), r[2], r[3]) for r in cur)


def _chunk_record(r: Sequence[Any]) -> ChunkRecord:
    return ChunkRecord(
        id=int(r[0]), document_id=int(r[1]), position=int(r[2]), text=r[3], page=r[4],
        source=r[5], title=r[6], metadata=_as_dict(r[7]),
    )


def _document_record(r: Sequence[Any]) -> DocumentRecord:
    return DocumentRecord(
        id=int(r[0]), source=r[1], title=r[2], mime_type=r[3], content_hash=r[4],
        metadata=_as_dict(r[5]), chunk_count=int(r[6]), status=r[7], status_reason=r[8],
    )


def _as_dict(value: Any) -> dict[str, Any]:
    if isinstance(value, str):
        return json.loads(value)
    return dict(value or {})
