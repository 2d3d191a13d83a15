"""Extraction batches spread over spaCy worker processes, results handed back in submission order.

spaCy is the whole cost of a graph build (the rest of a 100k-chunk build takes seconds), and one
process uses one core. Each worker loads the model once and extracts whole batches of documents;
the parent keeps reading pending chunks from Postgres and writing finished batches while they run.
Batches are independent (aliases resolve within a document, and a batch holds whole documents), so
the stored rows, and the graph file, are the same for any number of workers.

Workers are started with ``spawn``: the parent may be a threaded API server, where ``fork`` can copy
a lock some other thread holds. Each runs ``_work``, a loop that keeps its extractor in a local and
takes numbered batches from one queue and puts results on another; the parent hands them back by number.

``extract_with_ray`` does the same over Ray actors (``--executor ray``, the ``kgrag[ray]`` extra), so a
build can use a cluster's cores; the caller writes the results exactly as it does for local workers.
"""

from __future__ import annotations

import multiprocessing
import os
import queue
import threading
import time
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from multiprocessing.process import BaseProcess
from multiprocessing.queues import Queue
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
    ctx = multiprocessing.get_context("spawn")
    tasks: Queue[tuple[int, Sequence[ChunkText]] | None] = ctx.Queue()
    results: Queue[tuple[int, Extraction | None, BaseException | None]] = ctx.Queue()
    processes = [ctx.Process(target=_work, args=(settings, tasks, results, os.getpid()), daemon=True,
                             name=f"kgrag-spacy-{n}") for n in range(workers)]
    for process in processes:
        process.start()
    in_flight: deque[tuple[int, Sequence[ChunkText]]] = deque()
    done: dict[int, Extraction] = {}
    finished = False
    try:
        for number, batch in enumerate(batches):
            tasks.put((number, batch))
            in_flight.append((number, batch))
            if len(in_flight) >= 2 * workers:  # enough queued to keep every worker busy, no more
                yield _collect(in_flight.popleft(), done, results, processes)
        while in_flight:
            yield _collect(in_flight.popleft(), done, results, processes)
        finished = True
    finally:
        _stop(processes, tasks, graceful=finished)


def _collect(item: tuple[int, Sequence[ChunkText]], done: dict[int, Extraction],
             results: Queue[tuple[int, Extraction | None, BaseException | None]],
             processes: list[BaseProcess]) -> tuple[Sequence[ChunkText], Extraction]:
    """The batch's extraction, keeping results that came back earlier for later batches."""
    number, batch = item
    while number not in done:
        try:
            got, extraction, error = results.get(timeout=1.0)
        except queue.Empty:
            dead = [p for p in processes if not p.is_alive()]
            if dead:
                raise _died(f"exit code {dead[0].exitcode}") from None
            continue
        if error is not None:
            raise error
        assert extraction is not None
        done[got] = extraction
    return batch, done.pop(number)


def _died(why: str) -> KgragError:
    return KgragError(
        f"a spaCy worker process died ({why})",
        fix="run the build with one process (kgrag graph build -p 1, or KGRAG_GRAPH__PROCESSES=1) and check "
            "memory; a script that calls build_graph needs an `if __name__ == \"__main__\":` guard, since "
            "workers re-import it. The batches written so far are kept",
    )


def _stop(processes: list[BaseProcess], tasks: Queue[Any], *, graceful: bool) -> None:
    """After the last batch, tell each worker to finish; on an error (or a caller that stopped reading),
    end them without waiting for batches nobody will collect."""
    if graceful:
        for _ in processes:
            tasks.put(None)
    for process in processes:
        if not graceful:
            process.terminate()
        process.join(timeout=30.0)
        if process.is_alive():  # pragma: no cover - a worker stuck in spaCy
            process.kill()
            process.join()
    tasks.close()
    tasks.cancel_join_thread()


def _work(settings: GraphSettings, tasks: Queue[tuple[int, Sequence[ChunkText]] | None],
          results: Queue[tuple[int, Extraction | None, BaseException | None]], parent: int) -> None:
    """A worker process: load the model once, then extract batches until told to stop (None)."""
    from kgrag.core.nlp import load_spacy

    _exit_with_parent(parent)
    extractor = Extractor.from_settings(load_spacy(settings.spacy_model), settings)
    while (task := tasks.get()) is not None:
        number, batch = task
        try:
            results.put((number, extractor.extract(batch), None))
        except Exception as exc:  # handed to the parent, which raises it as the pool did
            results.put((number, None, exc))


def _exit_with_parent(parent: int) -> None:
    """A parent killed with -9 cannot stop its workers, and an idle worker would wait on its queue forever."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(0)

    threading.Thread(target=watch, name="kgrag-parent-watch", daemon=True).start()


class RayExtractor(RayWorker):
    """A Ray actor holding one spaCy pipeline (loaded once, when the actor starts)."""

    def __init__(self, settings: GraphSettings) -> None:
        from kgrag.core.nlp import load_spacy

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
