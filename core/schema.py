"""Versioned schema migrations, applied in order under an advisory lock.

All durable state lives in Postgres (documents, chunks, the graph's entities, mentions and
relations, the corpus version), so API replicas can be stateless. The embedding dimension is
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


MIGRATIONS: list[Migration] = [_v1_documents_and_chunks]
"""Append new migrations; never edit one that has shipped."""
