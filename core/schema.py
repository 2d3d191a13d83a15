"""Versioned schema migrations, applied in order under an advisory lock.

All durable state lives in Postgres (documents, chunks, the graph's entities, mentions and
relations, the corpus version, the published BM25 and graph artifacts, jobs), so API replicas are
stateless. The embedding dimension is
fixed when the schema is first created and recorded in ``kgrag_meta``: an HNSW index needs it.
"""

from __future__ import annotations

from collections.abc import Callable

Migration = Callable[[int], str]


def _v1_documents_and_chunks(dim: int) -> str:
    return f"""
    CREATE EXTENSION IF NOT EXISTS vector;

    CREATE TABLE kgrag_meta (
        key   text PRIMARY KEY,
        value text NOT NULL
    );

    -- Bumped in the same transaction as every change to documents or chunks; derived indexes
    -- (BM25, graph file) record the version they were built from and know when they are stale.
    CREATE TABLE corpus_state (
        id      int PRIMARY KEY DEFAULT 1 CHECK (id = 1),
        version bigint NOT NULL DEFAULT 0
    );
    INSERT INTO corpus_state (id, version) VALUES (1, 0);

    CREATE TABLE documents (
        id           bigserial PRIMARY KEY,
        source       text NOT NULL UNIQUE,
        content_hash text NOT NULL,
        -- What produced the chunks (embedding model, chunk size, overlap): the same bytes ingested
        -- under another chunking are not "unchanged", so no chunk outlives the config it came from.
        ingest_key   text NOT NULL DEFAULT '',
        title        text NOT NULL,
        mime_type    text NOT NULL,
        metadata     jsonb NOT NULL DEFAULT '{{}}'::jsonb,
        created_at   timestamptz NOT NULL DEFAULT now(),
        updated_at   timestamptz NOT NULL DEFAULT now()
    );

    CREATE TABLE chunks (
        id          bigserial PRIMARY KEY,
        document_id bigint NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
        position    int NOT NULL,
        page        int,
        text        text NOT NULL,
        token_count int NOT NULL,
        embedding   vector({dim}) NOT NULL,
        metadata    jsonb NOT NULL DEFAULT '{{}}'::jsonb,
        UNIQUE (document_id, position)
    );
    CREATE INDEX chunks_embedding_hnsw ON chunks USING hnsw (embedding vector_cosine_ops);
    CREATE INDEX documents_metadata_gin ON documents USING gin (metadata);
    """


def _v2_graph(dim: int) -> str:
    """The knowledge graph's source of truth. Every row that is evidence names its chunk, so deleting a
    document (and by cascade its chunks) removes exactly its mentions, relations and processed marks."""
    del dim
    return """
    CREATE TABLE kg_entities (
        id   bigserial PRIMARY KEY,
        key  text NOT NULL UNIQUE  -- canonical key: casefolded, accents and articles stripped
    );

    CREATE TABLE kg_mentions (
        entity_id bigint NOT NULL REFERENCES kg_entities(id) ON DELETE CASCADE,
        chunk_id  bigint NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
        surface   text NOT NULL,   -- the canonical form as written (an alias when it differs from the name)
        label     text NOT NULL,   -- spaCy entity label, or TITLE for a document title
        count     int NOT NULL,
        PRIMARY KEY (entity_id, chunk_id, surface, label)
    );
    CREATE INDEX kg_mentions_chunk ON kg_mentions (chunk_id);

    CREATE TABLE kg_relations (
        source_id bigint NOT NULL REFERENCES kg_entities(id) ON DELETE CASCADE,
        target_id bigint NOT NULL REFERENCES kg_entities(id) ON DELETE CASCADE,
        relation  text NOT NULL,   -- 'co-occurs', 'mentions' (title to entity) or a verb lemma
        chunk_id  bigint NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
        weight    int NOT NULL,
        PRIMARY KEY (source_id, target_id, relation, chunk_id)
    );
    CREATE INDEX kg_relations_chunk ON kg_relations (chunk_id);

    -- Chunks the extractor has seen (with or without entities): an incremental build skips these.
    CREATE TABLE kg_processed_chunks (
        chunk_id     bigint PRIMARY KEY REFERENCES chunks(id) ON DELETE CASCADE,
        processed_at timestamptz NOT NULL DEFAULT now()
    );
    """


def _v3_relation_target_index(dim: int) -> str:
    """Deleting an entity checks kg_relations.target_id for references; without an index that is a scan
    of every relation per entity (a 2Wiki-sized rebuild spent a minute there, a 100k one far longer)."""
    del dim
    return "CREATE INDEX kg_relations_target ON kg_relations (target_id);"


def _v4_document_status_and_hash_lookup(dim: int) -> str:
    """A document's status (a file that failed is remembered, with why, not just printed once), and an
    index on content_hash so the same bytes under another name are found without a scan."""
    del dim
    return """
    ALTER TABLE documents
        ADD COLUMN status text NOT NULL DEFAULT 'indexed' CHECK (status IN ('pending', 'indexed', 'failed')),
        ADD COLUMN status_reason text NOT NULL DEFAULT '';
    CREATE INDEX documents_content_hash ON documents (content_hash);
    """


def _v5_identity_artifacts_jobs(dim: int) -> str:
    """What replicas need to be stateless: a database id stamped into every artifact (a data home
    pointed at another database must not serve this one's chunk ids), the derived indexes published
    here under a version (any replica loads them from the database URL alone), and durable jobs (any
    replica can report one; a restart forgets nothing)."""
    del dim
    return """
    INSERT INTO kgrag_meta (key, value) VALUES ('database_id', gen_random_uuid()::text) ON CONFLICT DO NOTHING;

    CREATE TABLE kgrag_artifacts (
        id             bigserial PRIMARY KEY,
        kind           text NOT NULL,             -- 'bm25' or 'graph'
        variant        text NOT NULL,             -- what a reader must match to use it (BM25 parameters)
        corpus_version bigint NOT NULL,
        sha256         text NOT NULL,             -- of the files, in name order: the artifact's identity
        bytes          bigint NOT NULL,
        manifest       jsonb NOT NULL,            -- database id, embedding model, files with their digests
        created_at     timestamptz NOT NULL DEFAULT now()
    );
    CREATE TABLE kgrag_artifact_parts (
        artifact_id bigint NOT NULL REFERENCES kgrag_artifacts(id) ON DELETE CASCADE,
        file        text NOT NULL,
        seq         int NOT NULL,
        data        bytea NOT NULL,
        PRIMARY KEY (artifact_id, file, seq)
    );
    -- The parts are already compact (gzip, numpy): TOAST compression would only cost CPU.
    ALTER TABLE kgrag_artifact_parts ALTER COLUMN data SET STORAGE EXTERNAL;
    -- The version replicas serve: switched in the same transaction that wrote the parts.
    CREATE TABLE kgrag_artifact_current (
        kind         text NOT NULL,
        variant      text NOT NULL,
        artifact_id  bigint NOT NULL REFERENCES kgrag_artifacts(id),
        published_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (kind, variant)
    );

    CREATE TABLE kgrag_jobs (
        id           text PRIMARY KEY,
        kind         text NOT NULL,
        state        text NOT NULL CHECK (state IN ('queued', 'running', 'succeeded', 'failed')),
        owner        text NOT NULL,              -- the process running it (host:pid)
        created_at   timestamptz NOT NULL DEFAULT now(),
        started_at   timestamptz,
        finished_at  timestamptz,
        heartbeat_at timestamptz NOT NULL DEFAULT now(),
        result       jsonb,
        error        jsonb
    );
    CREATE UNIQUE INDEX kgrag_jobs_one_active ON kgrag_jobs (kind) WHERE state IN ('queued', 'running');
    CREATE INDEX kgrag_jobs_created ON kgrag_jobs (created_at);
    """


def _v6_deletions(dim: int) -> str:
    """A count of deletes (a document deleted or replaced) beside the corpus version: a graph built at the
    same count holds no deleted chunk, which a replica then knows without listing the graph's chunk ids
    (kg.liveness; a million of them at a million chunks, after every upload)."""
    del dim
    return "ALTER TABLE corpus_state ADD COLUMN deletions bigint NOT NULL DEFAULT 0;"


def _v7_chunk_words(dim: int) -> str:
    """Each chunk's distinct folded words (kg.documents.tokens), filled by the graph builder, under a GIN
    index: a graph delta finds the older chunks that write a new document's title by asking which hold
    all of its words, instead of scanning every chunk (kg.delta)."""
    del dim
    return "ALTER TABLE chunks ADD COLUMN words text[];\nCREATE INDEX chunks_words ON chunks USING gin (words);"


def _v8_deletion_log(dim: int) -> str:
    """Which chunks each delete took, by the corpus version that took them: a replica learns what a delete
    removed from the artifacts it serves by reading the ids deleted since their version (a few rows), not by
    listing which of their million chunks still exist (kg.liveness, retrieval.bm25). ``deletion_log_from``
    is the version from which the log is whole: deletes before this migration were not logged (there were
    none when the count is 0), and pruning (Store.forget_deletions_through) raises it."""
    del dim
    return """
    CREATE TABLE deleted_chunks (
        chunk_id bigint PRIMARY KEY,
        version  bigint NOT NULL
    );
    CREATE INDEX deleted_chunks_version ON deleted_chunks (version);
    ALTER TABLE corpus_state ADD COLUMN deletion_log_from bigint NOT NULL DEFAULT 0;
    UPDATE corpus_state SET deletion_log_from = CASE WHEN deletions = 0 THEN 0 ELSE version END;
    """


def _v9_processed_order(dim: int) -> str:
    """The order the graph builder processed chunks in: chunk ids are taken when an upload inserts, not when it
    commits, so a slow upload can commit chunks below ids a graph base already holds. A delta takes the chunks
    above its base's last id; one processed after the base but below that id is found by this order, and the
    build is whole instead (kg.build._try_delta)."""
    del dim
    return """
    ALTER TABLE kg_processed_chunks ADD COLUMN seq bigserial;
    CREATE INDEX kg_processed_chunks_seq ON kg_processed_chunks (seq);
    """


MIGRATIONS: list[Migration] = [_v1_documents_and_chunks, _v2_graph, _v3_relation_target_index,
                               _v4_document_status_and_hash_lookup, _v5_identity_artifacts_jobs, _v6_deletions,
                               _v7_chunk_words, _v8_deletion_log, _v9_processed_order]
"""Append new migrations; never edit one that has shipped."""


REGISTRY = "kgrag_registry"
"""The one schema every workspace shares: which workspaces exist, the API keys and the audit log. Its
tables are always named with the schema, never found through a search_path, so no workspace's
connection can read them by accident, and no workspace's tables live here."""


def _r1_workspaces_keys_audit() -> str:
    """Keys are stored as the SHA-256 of a 256-bit random secret (a slow hash buys nothing against a key
    no one can guess, and costs every request); ``id`` is the short public handle shown by `kgrag keys
    list` and written into the audit log, never the key. The audit log holds ids and actions, no text
    of any document."""
    return f"""
    CREATE SCHEMA IF NOT EXISTS {REGISTRY};
    CREATE TABLE {REGISTRY}.workspaces (
        name       text PRIMARY KEY,
        created_at timestamptz NOT NULL DEFAULT now()
    );
    INSERT INTO {REGISTRY}.workspaces (name) VALUES ('default');
    CREATE TABLE {REGISTRY}.api_keys (
        id         text PRIMARY KEY,
        key_sha256 text NOT NULL UNIQUE,
        workspace  text NOT NULL REFERENCES {REGISTRY}.workspaces(name) ON DELETE CASCADE,
        role       text NOT NULL CHECK (role IN ('reader', 'writer', 'admin')),
        label      text NOT NULL DEFAULT '',
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz,
        revoked_at timestamptz
    );
    CREATE TABLE {REGISTRY}.audit (
        id        bigserial PRIMARY KEY,
        at        timestamptz NOT NULL DEFAULT now(),
        key_id    text NOT NULL,      -- an api_keys id, 'env:N' for the N-th KGRAG_API__API_KEYS key, 'cli', 'open'
        workspace text NOT NULL,
        action    text NOT NULL,      -- document.upload, document.delete, graph.build, key.create, ...
        target    text NOT NULL DEFAULT ''
    );
    CREATE INDEX audit_workspace_at ON {REGISTRY}.audit (workspace, at);
    """


REGISTRY_MIGRATIONS: list[Callable[[], str]] = [_r1_workspaces_keys_audit]
"""The shared schema's own migrations (version table ``kgrag_registry.migrations``); append, never edit."""
