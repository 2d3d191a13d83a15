"""Queries before bulk work: while a query is in flight in this process, ingestion's embedding waits.

The model lock already lets a waiting query embed before the next ingest batch (core.models.Embedder),
but that is only the first step of a query: BM25, the graph and fusion then ran beside ingestion's next
forward pass, which takes every core. On a two-core server a query during a 50 MB upload was many
times slower than idle. So the whole query counts: ingestion embeds its next few texts only when no
query is running, or after a bounded wait, so a steady stream of queries slows an upload but never
stops it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager


class QueryActivity:
    """How many queries this process is answering; one per process, shared by every pipeline and ingestor."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._in_flight = 0

    @contextmanager
    def query(self) -> Iterator[None]:
        """Marks one query in flight for the duration of the block."""
        with self._cond:
            self._in_flight += 1
        try:
            yield
        finally:
            with self._cond:
                self._in_flight -= 1
                if not self._in_flight:
                    self._cond.notify_all()

    @property
    def in_flight(self) -> int:
        with self._cond:
            return self._in_flight

    def wait_until_idle(self, timeout: float) -> float:
        """Blocks until no query is in flight or ``timeout`` seconds pass; returns the seconds waited."""
        t0 = time.monotonic()
        deadline = t0 + timeout
        with self._cond:
            while self._in_flight and (left := deadline - time.monotonic()) > 0:
                self._cond.wait(left)
        return time.monotonic() - t0
