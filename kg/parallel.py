"""Extraction batches spread over spaCy worker processes, results handed back in submission order.

spaCy is the whole cost of a graph build (the rest of a 100k-chunk build takes seconds), and one
process uses one core. Each worker loads the model once and extracts whole batches of documents;
the parent keeps reading pending chunks from Postgres and writing finished batches while they run.
Batches are independent (aliases resolve within a document, and a batch holds whole documents), so
the stored rows, and the graph file, are the same for any number of workers.

Workers are started with ``spawn``: the parent may be a threaded API server, where ``fork`` can copy
a lock some other thread holds.

``extract_with_ray`` does the same over Ray actors (``--executor ray``, the ``kgrag[ray]`` extra), so a
build can use a cluster's cores; the caller writes the results exactly as it does for local workers.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
import time
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from kgrag.core.errors import KgragError
from kgrag.core.executor import RayWorker, in_order, ray_session, start_actors, stop_actors
from kgrag.core.settings import ExecutorSettings, GraphSettings
from kgrag.kg.extract import ChunkText, Extraction, Extractor

MAX_AUTO_WORKERS = 4
"""``processes = 0`` means one per available core, capped: each worker holds its own model (~200 MB)."""


def worker_count(processes: int) -> int:
    """The configured count, or for 0 the cores this process may run on (at most MAX_AUTO_WORKERS)."""
    if processes > 0:
        return processes
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    return max(1, min(cores, MAX_AUTO_WORKERS))


def extract_in_order(settings: GraphSettings, batches: Iterable[Sequence[ChunkText]], *, workers: int,
                     nlp: Any) -> Iterator[tuple[Sequence[ChunkText], Extraction]]:
    """Each batch with its extraction, in the order given; with ``nlp`` in this process when ``workers``
    is 1, else in workers that load ``settings.spacy_model`` themselves (a loaded model cannot be sent)."""
    if workers <= 1:
        extractor = Extractor.from_settings(nlp, settings)
        for batch in batches:
            yield batch, extractor.extract(batch)
        return
    pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"),
                               initializer=_start_worker, initargs=(settings,))
    in_flight: deque[tuple[Sequence[ChunkText], Future[Extraction]]] = deque()
    try:
        for batch in batches:
            in_flight.append((batch, pool.submit(_extract, batch)))
            if len(in_flight) >= 2 * workers:  # enough queued to keep every worker busy, no more
                yield _collect(in_flight.popleft())
        while in_flight:
            yield _collect(in_flight.popleft())
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _collect(item: tuple[Sequence[ChunkText], Future[Extraction]]) -> tuple[Sequence[ChunkText], Extraction]:
    batch, future = item
    try:
        return batch, future.result()
    except BrokenProcessPool as exc:
        raise KgragError(
            f"a spaCy worker process died ({exc})",
            fix="run the build with one process (kgrag graph build -p 1, or KGRAG_GRAPH__PROCESSES=1) and check "
                "memory; a script that calls build_graph needs an `if __name__ == \"__main__\":` guard, since "
                "workers re-import it. The batches written so far are kept",
        ) from exc


_worker: Extractor | None = None
"""The extractor of this worker process (set by the pool initializer; never used in the parent)."""


def _start_worker(settings: GraphSettings) -> None:
    from kgrag.kg.nlp import load_spacy

    global _worker
    _exit_with_parent(os.getppid())
    _worker = Extractor.from_settings(load_spacy(settings.spacy_model), settings)


def _exit_with_parent(parent: int) -> None:
    """A parent killed with -9 cannot stop its pool, and an idle worker would wait on its queue forever."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(0)

    threading.Thread(target=watch, name="kgrag-parent-watch", daemon=True).start()


def _extract(batch: Sequence[ChunkText]) -> Extraction:
    assert _worker is not None, "the pool initializer did not run"
    return _worker.extract(batch)


class RayExtractor(RayWorker):
    """A Ray actor holding one spaCy pipeline (loaded once, when the actor starts)."""

    def __init__(self, settings: GraphSettings) -> None:
        from kgrag.kg.nlp import load_spacy

        self._extractor = Extractor.from_settings(load_spacy(settings.spacy_model), settings)

    def extract(self, batch: Sequence[ChunkText]) -> Extraction:
        return self._extractor.extract(batch)


def extract_with_ray(settings: GraphSettings, executor: ExecutorSettings, batches: Iterable[Sequence[ChunkText]]
                     ) -> Iterator[tuple[Sequence[ChunkText], Extraction]]:
    """Each batch with its extraction, in the order given, extracted by one Ray actor per cluster CPU.

    Actors only extract; nothing here writes, so a task Ray retries after a worker died is harmless.
    """
    with ray_session(executor) as ray:
        actors = start_actors(ray, RayExtractor, settings)
        try:
            for batch, (extraction,) in in_order(
                ray, actors, batches, lambda next_actor, batch: [next_actor().extract.remote(batch)]
            ):
                yield batch, extraction
        finally:
            stop_actors(ray, actors)
