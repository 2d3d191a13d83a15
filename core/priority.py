"""Queries before bulk work: while a query is in flight in this process, ingestion's embedding waits.

The model lock already lets a waiting query embed before the next ingest batch (core.models.Embedder),
but that is only the first step of a query: BM25, the graph and fusion then ran beside ingestion's next
forward pass, which takes every core. On a two-core server a query during a 50 MB upload was many
times slower than idle. So the whole query counts: ingestion embeds its next few texts only when no
query is running, or after a bounded wait, so a steady stream of queries slows an upload but never
stops it.

Waiting between steps still left the step in progress: a query that arrived mid-step waited for the
model lock, then shared the cores with the next step. So bulk embedding also runs on a model instance of
its own (core.runtime.Runtime.bulk_embedder), on one thread whose OS scheduling priority is lowered
(``LowPriorityWorker``): the kernel gives a query's threads the cores the moment they want them,
with no lock between the two. Threads inherit their creator's nice value, so the OpenMP helpers torch
starts for that thread are lowered too; the query threads' own helpers are not.
"""

from __future__ import annotations

import logging
import os
import queue
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from contextlib import contextmanager
from typing import Any, TypeVar

log = logging.getLogger("kgrag.priority")

BUILD_NICE = 10
"""Background builds and artifact loads (retrieval.sync, api.jobs) share the replica's cores with queries;
on Linux their thread, and the worker processes it starts, run this much lower."""
T = TypeVar("T")


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


def lower_this_thread(nice: int) -> bool:
    """Runs the calling thread ``nice`` steps below the process (Linux: a per-thread attribute); False elsewhere.

    Idempotent: a thread already that low stays as it is, so a reused worker (the job runner's one
    thread) is not lowered further by each job. A process may always lower its own priority, never raise
    it back without privileges, so this is only called on threads of its own making: ingestion's
    ``LowPriorityWorker``, the artifact sync's and the job runner's, never a shared pool's."""
    if nice <= 0 or not sys.platform.startswith("linux"):
        return False
    try:
        tid = threading.get_native_id()
        target = min(19, os.getpriority(os.PRIO_PROCESS, os.getpid()) + nice)  # the main thread's, plus nice
        if os.getpriority(os.PRIO_PROCESS, tid) < target:
            os.setpriority(os.PRIO_PROCESS, tid, target)
    except OSError as exc:  # a container may forbid it; bulk work then only waits between steps
        log.warning("could not lower the priority of a bulk-work thread (%s); queries may slow beside it", exc)
        return False
    return True


class LowPriorityWorker:
    """One daemon thread, its nice value raised by ``nice`` before it runs anything, that runs what is
    submitted in order. A daemon, unlike a ThreadPoolExecutor's worker: a server told to stop must not
    wait at exit for an upload's embedding to finish (api.shutdown_grace_s bounds that already)."""

    def __init__(self, nice: int, name: str) -> None:
        self._jobs: queue.SimpleQueue[tuple[Callable[[], Any], Future[Any]]] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, args=(nice,), name=name, daemon=True)
        self._thread.start()

    def submit(self, fn: Callable[[], T]) -> Future[T]:
        future: Future[T] = Future()
        self._jobs.put((fn, future))
        return future

    def _run(self, nice: int) -> None:
        lower_this_thread(nice)
        while True:
            fn, future = self._jobs.get()
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(fn())
            except BaseException as exc:  # the submitter re-raises it from result()
                future.set_exception(exc)
