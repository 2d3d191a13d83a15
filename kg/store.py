"""The graph's rows in Postgres (the source of truth): entities, mentions, relations, processed chunks.

Each extraction batch is written in one transaction together with its processed marks, so a build
killed at any point leaves whole batches behind and the next build carries on from there.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from kgrag.core.db import Database
from kgrag.core.errors import BuildLockedError
from kgrag.kg.extract import ChunkText, Extraction, Mention, Relation
from kgrag.kg.subjects import stand_in_title

BUILD_LOCK_KEY = 0x6B67726167_01  # "kgrag" + 1: the graph build
PARAMS_META_KEY = "graph_params"


@dataclass(frozen=True, slots=True)
class GraphSnapshot:
    """Everything the graph file is made of, read in one consistent snapshot.

    ``mentions`` and ``relations`` may be streams (GraphStore.snapshot): iterate each once."""

    corpus_version: int
    deletions: int
    """core.store.CorpusState.deletions at the snapshot (kg.liveness)."""
    mentions: Iterable[Mention]
    relations: Iterable[Relation]
    chunk_documents: list[tuple[int, int]]
    processed_seq: int = 0
    """The last kg_processed_chunks.seq the snapshot holds: a delta checks what was processed after it."""


@dataclass(frozen=True, slots=True)
class DeltaRows:
    """What a graph delta (kg.delta) is made of, read in one consistent snapshot: the chunks processed since
    a base, and every row of each entity and entity pair they touch (a touched node or edge is written
    whole, as a full build would write it)."""

    corpus_version: int
    deletions: int
    chunk_documents: list[tuple[int, int]]
    """(chunk id, document id) of each processed chunk above the base's last, by id."""
    mentions: list[Mention]
    """Every mention of each entity the new chunks mention, by key."""
    relations: list[Relation]
    """Every relation between each pair of entities the new chunks relate, by pair."""


WORDS_BATCH = 2000
"""Chunks per words write (GraphStore.fill_words)."""


class GraphStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    @contextmanager
    def build_lock(self) -> Iterator[None]:
        """A session advisory lock held for the whole build: across processes and hosts, and released by
        Postgres itself when a killed build's connection drops."""
        key = self.db.lock_key(BUILD_LOCK_KEY)  # per workspace: another team's build never blocks this one
        with self.db.connection() as conn:
            conn.autocommit = True
            try:
                got = conn.execute("SELECT pg_try_advisory_lock(%s)", (key,)).fetchone()[0]
                if not got:
                    raise BuildLockedError(
                        "another `kgrag graph build` is running against this database",
                        fix="wait for it to finish (its graph file will include your documents' chunks, or run "
                        "the build again afterwards to pick up the rest)",
                    )
                try:
                    yield
                finally:
                    conn.execute("SELECT pg_advisory_unlock(%s)", (key,))
            finally:
                conn.autocommit = False

    # -- parameters ---------------------------------------------------------------------------------
    def stored_params(self) -> str | None:
        with self.db.connection() as conn:
            row = conn.execute("SELECT value FROM kgrag_meta WHERE key = %s", (PARAMS_META_KEY,)).fetchone()
        return row[0] if row else None

    def reset(self, params: str) -> None:
        """Forget all extraction (for --rebuild or new parameters); the graph file stays until replaced.

        TRUNCATE, not DELETE: it drops the rows at once instead of checking foreign keys row by row, and
        it is transactional, so a build that dies before the commit keeps the old rows. Only builds (under
        the build lock) read these tables; queries read the graph file.
        """
        with self.db.transaction() as conn:
            conn.execute("TRUNCATE kg_processed_chunks, kg_relations, kg_mentions, kg_entities")
            # the processing order starts again too, so a rebuild writes the same graph file, byte for byte
            conn.execute("SELECT setval(pg_get_serial_sequence('kg_processed_chunks', 'seq'), 1, false)")
            _set_params(conn, params)

    def record_params(self, params: str) -> None:
        with self.db.transaction() as conn:
            _set_params(conn, params)

    # -- work to do ---------------------------------------------------------------------------------
    def pending_documents(self) -> list[tuple[int, int]]:
        """(document id, unprocessed chunk count) for every document with unprocessed chunks."""
        with self.db.connection() as conn:
            rows = conn.execute(
                "SELECT c.document_id, count(*) FROM chunks c"
                " WHERE NOT EXISTS (SELECT 1 FROM kg_processed_chunks p WHERE p.chunk_id = c.id)"
                " GROUP BY c.document_id ORDER BY c.document_id"
            ).fetchall()
        return [(int(d), int(n)) for d, n in rows]

    def pending_chunks(self, document_ids: Sequence[int]) -> list[ChunkText]:
        """The chunks extraction has still to read, with their document's title: blank where the store holds
        the source or file name in its place, which named an entity ("jonas_meier", "wiki:381") that views
        listed beside the document and that no prose ever writes."""
        with self.db.connection() as conn:
            rows = conn.execute(
                "SELECT c.id, c.document_id, c.text, d.title, d.source FROM chunks c"
                " JOIN documents d ON d.id = c.document_id WHERE c.document_id = ANY(%s)"
                " AND NOT EXISTS (SELECT 1 FROM kg_processed_chunks p WHERE p.chunk_id = c.id)"
                " ORDER BY c.document_id, c.position",
                (list(document_ids),),
            ).fetchall()
        return [ChunkText(int(r[0]), int(r[1]), r[2], "" if stand_in_title(r[3], r[4]) else r[3]) for r in rows]

    # -- writes -------------------------------------------------------------------------------------
    def write(self, extraction: Extraction) -> int:
        """Store one batch and mark its chunks processed, atomically. Returns the chunks written.

        Chunks deleted since they were read are skipped (their rows would cite nothing); the
        KEY SHARE lock keeps the rest from being deleted until the batch commits.
        """
        with self.db.transaction() as conn:
            alive = {int(r[0]) for r in conn.execute(
                "SELECT id FROM chunks WHERE id = ANY(%s) FOR KEY SHARE", (list(extraction.chunk_ids),)
            ).fetchall()}
            # Idempotent per batch: a batch retried after its commit (a lost reply, a re-run task) replaces
            # its own rows instead of hitting the primary keys or doubling counts.
            conn.execute("DELETE FROM kg_mentions WHERE chunk_id = ANY(%s)", (sorted(alive),))
            conn.execute("DELETE FROM kg_relations WHERE chunk_id = ANY(%s)", (sorted(alive),))
            mentions = [m for m in extraction.mentions if m.chunk_id in alive]
            relations = [r for r in extraction.relations if r.chunk_id in alive]
            ids = _entity_ids(conn, sorted({m.key for m in mentions}))
            with conn.cursor() as cur, cur.copy(
                "COPY kg_mentions (entity_id, chunk_id, surface, label, count) FROM STDIN"
            ) as copy:
                for m in mentions:
                    copy.write_row((ids[m.key], m.chunk_id, m.surface, m.label, m.count))
            with conn.cursor() as cur, cur.copy(
                "COPY kg_relations (source_id, target_id, relation, chunk_id, weight) FROM STDIN"
            ) as copy:
                for r in relations:
                    copy.write_row((ids[r.source], ids[r.target], r.relation, r.chunk_id, r.weight))
            conn.execute(
                "INSERT INTO kg_processed_chunks (chunk_id) SELECT unnest(%s::bigint[]) ON CONFLICT DO NOTHING",
                (sorted(alive),),
            )
        return len(alive)

    def prune_orphans(self) -> int:
        """Entities whose every mention went with deleted documents: nothing cites them any more."""
        with self.db.transaction() as conn:
            cur = conn.execute(
                "DELETE FROM kg_entities e WHERE NOT EXISTS (SELECT 1 FROM kg_mentions m WHERE m.entity_id = e.id)"
            )
            return cur.rowcount

    # -- reads --------------------------------------------------------------------------------------
    @contextmanager
    def snapshot(self, *, batch_size: int = 20_000) -> Iterator[GraphSnapshot]:
        """All mentions and relations with the corpus version they belong to (one REPEATABLE READ view).

        Mentions and relations stream from server-side cursors while the block is open: a million-chunk
        corpus has tens of millions of rows. Mentions come by entity key, relations by their (lesser,
        greater) pair of keys, both in code point order (COLLATE "C", whatever the database's own
        collation): the order Python sorts strings in, so kg.graphfile.write_graph can write the graph
        as the rows arrive."""
        with self._consistent_read() as (conn, version, deletions):
            chunk_documents = [(int(r[0]), int(r[1])) for r in conn.execute(
                "SELECT c.id, c.document_id FROM chunks c JOIN kg_processed_chunks p ON p.chunk_id = c.id"
                " ORDER BY c.id"
            ).fetchall()]
            processed_seq = int(conn.execute("SELECT coalesce(max(seq), 0) FROM kg_processed_chunks").fetchone()[0])
            yield GraphSnapshot(version, deletions, _mentions(conn, batch_size), _relations(conn, batch_size),
                                chunk_documents, processed_seq)

    @contextmanager
    def _consistent_read(self) -> Iterator[tuple[Any, int, int]]:
        """One REPEATABLE READ transaction, and the corpus version and delete count it sees."""
        with self.db.connection() as conn:
            conn.isolation_level = _repeatable_read()
            try:
                with conn.transaction():
                    version, deletions = conn.execute(
                        "SELECT version, deletions FROM corpus_state WHERE id = 1").fetchone()
                    yield conn, int(version), int(deletions)
            finally:
                conn.isolation_level = None

    def document_heads(self, document_ids: Sequence[int] | None = None) -> list[tuple[int, str, str, str, int]]:
        """(document id, title, source, opening text, documents with the same title) of every document with
        processed chunks (of those in ``document_ids`` when given): the documents the graph covers, with what
        is needed to name one whose title cannot (kg.subjects). The title count, case and outer spaces aside,
        is over the whole corpus: six documents titled "Staff profile" share a generic title."""
        key = "lower(btrim(coalesce(%s.title, '')))"
        only = "" if document_ids is None else " AND d.id = ANY(%s)"
        among = "" if document_ids is None else (f" WHERE {key % 'o'} IN (SELECT {key % 'n'} FROM documents n"
                                                 " WHERE n.id = ANY(%s))")
        with self.db.connection() as conn:
            rows = conn.execute(
                f"WITH shared AS (SELECT {key % 'o'} AS k, count(*) AS n FROM documents o{among} GROUP BY 1)"
                " SELECT d.id, d.title, d.source, (SELECT left(c.text, 600) FROM chunks c WHERE c.document_id = d.id"
                f" ORDER BY c.position LIMIT 1), s.n FROM documents d JOIN shared s ON s.k = {key % 'd'}"
                " WHERE EXISTS (SELECT 1 FROM chunks c JOIN kg_processed_chunks p ON p.chunk_id = c.id"
                " WHERE c.document_id = d.id)" + only + " ORDER BY d.id",
                () if document_ids is None else (list(document_ids), list(document_ids))
            ).fetchall()
        return [(int(r[0]), r[1] or "", r[2] or "", r[3] or "", int(r[4])) for r in rows]

    def iter_chunk_texts(self, *, batch_size: int = 5000) -> Iterator[tuple[int, int, str]]:
        """(chunk id, document id, text) of every processed chunk, streamed by a server-side cursor so the
        mention scan never holds the corpus's text in memory at once."""
        with self.db.connection() as conn, conn.transaction(), conn.cursor(name="kg_chunk_texts") as cur:
            cur.itersize = batch_size
            cur.execute(
                "SELECT c.id, c.document_id, c.text FROM chunks c JOIN kg_processed_chunks p ON p.chunk_id = c.id"
                " ORDER BY c.id"
            )
            for r in cur:
                yield int(r[0]), int(r[1]), r[2]

    def delta_rows(self, after_chunk: int) -> DeltaRows:
        """The rows a delta from a base whose last chunk is ``after_chunk`` needs (chunk ids only grow, so the
        chunks added since the base are exactly those above it)."""
        with self._consistent_read() as (conn, version, deletions):
            chunk_documents = [(int(r[0]), int(r[1])) for r in conn.execute(
                "SELECT c.id, c.document_id FROM chunks c JOIN kg_processed_chunks p ON p.chunk_id = c.id"
                " WHERE c.id > %s ORDER BY c.id", (after_chunk,)).fetchall()]
            mentions = [Mention(key=r[0], chunk_id=int(r[1]), surface=r[2], label=r[3], count=int(r[4]))
                        for r in conn.execute(
                # LATERAL: one index lookup per touched entity, never a pass over every mention
                "SELECT e.key, m.chunk_id, m.surface, m.label, m.count"
                " FROM (SELECT DISTINCT entity_id FROM kg_mentions WHERE chunk_id > %s) t"
                " JOIN LATERAL (SELECT * FROM kg_mentions m WHERE m.entity_id = t.entity_id) m ON true"
                " JOIN kg_entities e ON e.id = m.entity_id"
                ' ORDER BY e.key COLLATE "C", m.chunk_id', (after_chunk,)).fetchall()]
            pairs = ("SELECT DISTINCT least(source_id, target_id) AS a, greatest(source_id, target_id) AS b"
                     " FROM kg_relations WHERE chunk_id > %s")
            relations = [Relation(r[0], r[1], r[2], int(r[3]), int(r[4])) for r in conn.execute(
                "SELECT s.key, t.key, r.relation, r.chunk_id, r.weight"
                f" FROM ({pairs}) p JOIN LATERAL (SELECT * FROM kg_relations r WHERE (r.source_id = p.a"
                " AND r.target_id = p.b) OR (r.source_id = p.b AND r.target_id = p.a)) r ON true"
                " JOIN kg_entities s ON s.id = r.source_id JOIN kg_entities t ON t.id = r.target_id"
                ' ORDER BY least(s.key COLLATE "C", t.key COLLATE "C"),'
                ' greatest(s.key COLLATE "C", t.key COLLATE "C"), r.chunk_id', (after_chunk,)).fetchall()]
        return DeltaRows(version, deletions, chunk_documents, mentions, relations)

    def stored_documents(self, document_ids: Sequence[int]) -> set[int]:
        """Which of these documents are still stored."""
        if not document_ids:
            return set()
        with self.db.connection() as conn:
            rows = conn.execute("SELECT id FROM documents WHERE id = ANY(%s)", (list(document_ids),)).fetchall()
        return {int(r[0]) for r in rows}

    def texts_of_documents(self, document_ids: Sequence[int]) -> list[tuple[int, int, str]]:
        """(chunk id, document id, text) of these documents' processed chunks, by chunk id."""
        if not document_ids:
            return []
        with self.db.connection() as conn:
            rows = conn.execute(
                "SELECT c.id, c.document_id, c.text FROM chunks c JOIN kg_processed_chunks p ON p.chunk_id = c.id"
                " WHERE c.document_id = ANY(%s) ORDER BY c.id", (sorted(document_ids),)).fetchall()
        return [(int(r[0]), int(r[1]), r[2]) for r in rows]

    def documents_writing(self, phrases: Sequence[str], *, up_to_chunk: int) -> set[int]:
        """The documents with a processed chunk at or below ``up_to_chunk`` that holds every word of one of the
        ``phrases`` (folded keys, words split by spaces): a superset of those that write one, found through
        the words index. Fill the words first (``fill_words``)."""
        if not phrases:
            return set()
        with self.db.connection() as conn:
            rows = conn.execute(
                "SELECT DISTINCT c.document_id FROM unnest(%s::text[]) AS q(phrase)"
                " JOIN LATERAL (SELECT document_id FROM chunks WHERE words @> string_to_array(q.phrase, ' ')"
                " AND id <= %s) c ON true", (list(phrases), up_to_chunk)).fetchall()
        return {int(r[0]) for r in rows}

    def fill_words(self, words: Callable[[str], list[str]], *, on_progress: Callable[[int, int], None] | None = None
                   ) -> int:
        """Write each processed chunk's words where they are missing (chunks the builder has not seen since
        the column was added); returns how many. ``words`` is kg.documents' folding, passed in so the store
        holds no text rules."""
        with self.db.connection() as conn:
            total = int(conn.execute(
                "SELECT count(*) FROM chunks c JOIN kg_processed_chunks p ON p.chunk_id = c.id"
                " WHERE c.words IS NULL").fetchone()[0])
        done, last = 0, 0
        while done < total:
            with self.db.transaction() as conn:
                rows = conn.execute(  # from the last id written: never a pass over the rows already done
                    "SELECT c.id, c.text FROM chunks c JOIN kg_processed_chunks p ON p.chunk_id = c.id"
                    " WHERE c.words IS NULL AND c.id > %s ORDER BY c.id LIMIT %s", (last, WORDS_BATCH)).fetchall()
                if not rows:
                    break
                last = int(rows[-1][0])
                conn.execute("CREATE TEMP TABLE IF NOT EXISTS kg_words (id bigint, words text[]) ON COMMIT DROP")
                with conn.cursor() as cur, cur.copy("COPY kg_words (id, words) FROM STDIN") as copy:
                    for chunk_id, text in rows:
                        copy.write_row((chunk_id, words(text)))
                conn.execute("UPDATE chunks c SET words = w.words FROM kg_words w WHERE c.id = w.id")
            done += len(rows)
            if on_progress:
                on_progress(done, total)
        return done

    def processed_out_of_order(self, after_seq: int, up_to_chunk: int) -> int:
        """Chunks processed after a base (seq above ``after_seq``) whose ids are at or below its last chunk: an
        upload that committed after the base was built, holding ids taken before a faster one's."""
        with self.db.connection() as conn:
            return int(conn.execute("SELECT count(*) FROM kg_processed_chunks WHERE seq > %s AND chunk_id <= %s",
                                    (after_seq, up_to_chunk)).fetchone()[0])

    def processed_chunk_count(self) -> int:
        with self.db.connection() as conn:
            return int(conn.execute("SELECT count(*) FROM kg_processed_chunks").fetchone()[0])

    def counts(self) -> dict[str, int]:
        with self.db.connection() as conn:
            row = conn.execute(
                "SELECT (SELECT count(*) FROM kg_entities), (SELECT count(*) FROM kg_mentions),"
                " (SELECT count(*) FROM kg_relations), (SELECT count(*) FROM kg_processed_chunks),"
                " (SELECT count(*) FROM chunks)"
            ).fetchone()
        return dict(zip(("entities", "mentions", "relations", "processed_chunks", "chunks"),
                        (int(x) for x in row), strict=True))

    def allowed_chunks(self, chunk_ids: Sequence[int], where: str, params: Sequence[Any]) -> set[int]:
        """Which of the chunks still exist and pass the filter fragment (from core.store.filters_sql)."""
        if not chunk_ids:
            return set()
        with self.db.connection() as conn:
            rows = conn.execute(
                "SELECT c.id FROM chunks c JOIN documents d ON d.id = c.document_id WHERE c.id = ANY(%s)" + where,
                [list(chunk_ids), *params],
            ).fetchall()
        return {int(r[0]) for r in rows}

    def chunk_texts(self, chunk_ids: Sequence[int]) -> dict[int, tuple[str, str, str]]:
        """(title, source, text) per chunk: the evidence embedded in an HTML export."""
        if not chunk_ids:
            return {}
        with self.db.connection() as conn:
            rows = conn.execute(
                "SELECT c.id, d.title, d.source, c.text FROM chunks c JOIN documents d ON d.id = c.document_id"
                " WHERE c.id = ANY(%s)", (list(chunk_ids),)
            ).fetchall()
        return {int(r[0]): (r[1], r[2], r[3]) for r in rows}


def _mentions(conn: Any, batch_size: int) -> Iterator[Mention]:
    with conn.cursor(name="kg_snapshot_mentions") as cur:
        cur.itersize = batch_size
        cur.execute("SELECT e.key, m.chunk_id, m.surface, m.label, m.count FROM kg_mentions m"
                    ' JOIN kg_entities e ON e.id = m.entity_id ORDER BY e.key COLLATE "C"')
        for r in cur:  # interned: a key or label is repeated across rows, and the graph keeps every copy
            yield Mention(key=sys.intern(r[0]), chunk_id=int(r[1]), surface=r[2], label=sys.intern(r[3]),
                          count=int(r[4]))


def _relations(conn: Any, batch_size: int) -> Iterator[Relation]:
    with conn.cursor(name="kg_snapshot_relations") as cur:
        cur.itersize = batch_size
        cur.execute("SELECT s.key, t.key, r.relation, r.chunk_id, r.weight FROM kg_relations r"
                    " JOIN kg_entities s ON s.id = r.source_id JOIN kg_entities t ON t.id = r.target_id"
                    ' ORDER BY least(s.key COLLATE "C", t.key COLLATE "C"),'
                    ' greatest(s.key COLLATE "C", t.key COLLATE "C")')
        for r in cur:
            yield Relation(sys.intern(r[0]), sys.intern(r[1]), sys.intern(r[2]), int(r[3]), int(r[4]))


def _repeatable_read() -> Any:
    from psycopg import IsolationLevel

    return IsolationLevel.REPEATABLE_READ


def _set_params(conn: Any, params: str) -> None:
    conn.execute(
        "INSERT INTO kgrag_meta (key, value) VALUES (%s, %s) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
        (PARAMS_META_KEY, params),
    )


def _entity_ids(conn: Any, keys: list[str]) -> dict[str, int]:
    if not keys:
        return {}
    conn.execute("INSERT INTO kg_entities (key) SELECT unnest(%s::text[]) ON CONFLICT (key) DO NOTHING", (keys,))
    rows = conn.execute("SELECT key, id FROM kg_entities WHERE key = ANY(%s)", (keys,)).fetchall()
    return {r[0]: int(r[1]) for r in rows}
