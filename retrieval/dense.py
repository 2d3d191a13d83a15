"""Dense retrieval: the query's embedding against pgvector's HNSW index (cosine distance).

Filters go into the same SQL statement. A plain HNSW scan filters *after* the graph walk, so a
selective filter could leave fewer than k rows; pgvector 0.8's iterative scan keeps walking until
k rows pass (or ``max_scan_tuples`` is reached). ``relaxed_order`` may return rows slightly out of
order, so the outer query re-sorts by distance. If the scan still comes back short, an exact
search over the filtered rows fills the list (a short list there means the filter is selective,
which is exactly when an exact search is cheap).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from kgrag.core.db import Database
from kgrag.core.models import Embedder
from kgrag.core.settings import RetrievalSettings
from kgrag.core.store import filters_sql
from kgrag.core.types import Filters, Hit
from kgrag.retrieval.base import Query, RetrievalResult, StageStatus

SIGNAL = "dense"
MAX_SCAN_TUPLES = 20_000
"""pgvector's default; bounds the work one filtered query can do before the exact fallback."""


def ef_search_for(k: int) -> int:
    """HNSW returns at most ef_search rows per scan, so it must cover k (pgvector caps it at 1000)."""
    return max(40, min(1000, 2 * k))


class DenseRetriever:
    """Stateless per request: the embedder and the pool are shared, long-lived and thread-safe."""

    name = SIGNAL

    def __init__(self, db: Database, embedder: Callable[[], Embedder], settings: RetrievalSettings) -> None:
        self.db = db
        self._embedder = embedder  # called lazily: a BM25-only query never loads the model
        self.settings = settings

    def warm(self) -> None:
        self._embedder()

    def retrieve(self, query: Query) -> RetrievalResult:
        t_load = time.perf_counter()
        embedder = self._embedder()  # the first call loads the model: a one-off cost, timed apart from the query
        t0 = time.perf_counter()
        vector = query.vector.get(lambda: embedder.encode_query(query.text))
        t1 = time.perf_counter()
        rows, exact = self.search(vector, query.k, query.filters)
        t2 = time.perf_counter()
        hits = tuple(
            Hit(chunk_id=cid, signal=SIGNAL, rank=i, score=1.0 - dist, explanation={"distance": dist})
            for i, (cid, dist) in enumerate(rows, 1)
        )
        return RetrievalResult(
            SIGNAL, hits, StageStatus.ran(), {"load": t0 - t_load, "embed": t1 - t0, "search": t2 - t1},
            {"exact_fallback": exact, "ef_search": ef_search_for(query.k)},
        )

    def search(self, vector: np.ndarray, k: int, filters: Filters) -> tuple[list[tuple[int, float]], bool]:
        with self.db.transaction() as conn:
            return search_on(conn, vector, k, filters, vector_schema=self.db.vector_schema)


def search_on(conn: Any, vector: np.ndarray, k: int, filters: Filters, *,
              vector_schema: str = "public") -> tuple[list[tuple[int, float]], bool]:
    """(chunk id, cosine distance) nearest first, and whether the exact fallback was needed.

    Must run inside a transaction: the scan settings are SET LOCAL, so they end with it and never
    leak to the next user of the pooled connection.
    """
    where, params = filters_sql(filters)
    join = "" if filters.empty else " JOIN documents d ON d.id = c.document_id"
    conn.execute("SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true),"
                 " set_config('hnsw.ef_search', %s, true), set_config('hnsw.max_scan_tuples', %s, true)",
                 (str(ef_search_for(k)), str(MAX_SCAN_TUPLES)))
    rows = _fetch(conn, ann_sql(filters, vector_schema), [vector, *params, k])
    if len(rows) >= k or filters.empty:
        return rows, False
    # `+ 0` hides the operator from the planner, so no index scan: exact over the filtered rows.
    exact = _EXACT_SQL.format(join=join, where=where, distance=distance_operator(vector_schema))
    return _fetch(conn, exact, [vector, *params, k]), True


def distance_operator(vector_schema: str) -> str:
    """pgvector's cosine distance, named with its schema: a workspace's connections search only the
    workspace's own schema (core.db), so the operator is not found by its bare name there."""
    return 'OPERATOR("{}".<=>)'.format(vector_schema.replace('"', '""'))


def ann_sql(filters: Filters, vector_schema: str = "public") -> str:
    where, _ = filters_sql(filters)
    join = "" if filters.empty else " JOIN documents d ON d.id = c.document_id"
    return _ANN_SQL.format(join=join, where=where, distance=distance_operator(vector_schema))


_ANN_SQL = (
    "WITH nearest AS MATERIALIZED ("
    " SELECT c.id, c.embedding {distance} %s AS distance FROM chunks c{join} WHERE TRUE{where}"
    " ORDER BY distance LIMIT %s)"
    " SELECT id, distance FROM nearest ORDER BY distance, id"
)
_EXACT_SQL = (
    "SELECT c.id, (c.embedding {distance} %s) + 0 AS distance FROM chunks c{join} WHERE TRUE{where}"
    " ORDER BY distance, c.id LIMIT %s"
)


def _fetch(conn: Any, sql: str, params: Sequence[Any]) -> list[tuple[int, float]]:
    return [(int(r[0]), float(r[1])) for r in conn.execute(sql, params).fetchall()]
