"""Queries before bulk work (core/priority.py): while a query runs, ingestion's embedding waits, boundedly.

Real parts throughout: the MiniLM embedder, an embedded PostgreSQL, the real ingestor and query pipeline.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable

import numpy as np
import pytest
from kgrag.core.priority import BUILD_NICE, lower_this_thread
from kgrag.core.runtime import Runtime
from kgrag.core.settings import IngestSettings, RerankSettings, Settings
from kgrag.ingest.loaders import load_text
from kgrag.ingest.pipeline import Ingestor
from kgrag.retrieval.base import Query, RetrievalResult
from kgrag.retrieval.pipeline import QueryPipeline, build_pipeline

# Numbered sentences so no two chunks are alike; about twenty chunks at the default size (a few seconds of
# embedding on a busy two-core machine, well inside HELD_S).
TEXT = " ".join(f"Sentence {i} tells how the ferry Kelpie crossed the fjord on day {i}." for i in range(200))
HELD_S = 12.0


def _ingest_in_thread(rt: Runtime, wait_s: float) -> tuple[threading.Thread, list[BaseException]]:
    settings = rt.settings.model_copy(update={"ingest": IngestSettings(yield_to_queries_s=wait_s)})
    ingestor = Ingestor(rt.store, rt.checked_embedder(), settings.chunking, settings.embedding, settings.ingest,
                        activity=rt.activity)
    errors: list[BaseException] = []

    def run() -> None:
        try:
            ingestor.ingest_documents([load_text(TEXT, source="mem:kelpie", title="Kelpie")])
        except BaseException as exc:  # surfaced by the test, not lost in the thread
            errors.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, errors


def test_ingestion_waits_while_a_query_is_in_flight_and_goes_on_when_it_ends(runtime: Runtime) -> None:
    with runtime.activity.query():
        thread, errors = _ingest_in_thread(runtime, wait_s=60.0)
        thread.join(timeout=HELD_S)
        assert thread.is_alive()  # held at its first batch while the query runs (without the wait: done by now)
        assert runtime.store.count_chunks() == 0
    thread.join(timeout=120.0)
    assert not thread.is_alive() and not errors
    assert runtime.store.count_chunks() > 5


def test_a_query_that_never_ends_slows_ingestion_but_cannot_stop_it(runtime: Runtime) -> None:
    with runtime.activity.query():
        thread, errors = _ingest_in_thread(runtime, wait_s=0.05)
        thread.join(timeout=120.0)
        assert not thread.is_alive() and not errors  # each batch waited its bound, then went on
        assert runtime.store.count_chunks() > 5
        assert runtime.activity.in_flight == 1


def test_the_query_pipeline_counts_itself_in_flight(runtime: Runtime) -> None:
    rt = Runtime(runtime.settings.model_copy(update={"rerank": RerankSettings(enabled=False)}),
                 embedder=runtime.embedder)
    try:
        Ingestor.from_runtime(rt).ingest_documents([load_text(TEXT[:2000], source="mem:kelpie", title="Kelpie")])
        seen: list[int] = []
        real = build_pipeline(rt, signals=["dense"]).retrievers["dense"]

        class Watching:
            """The real dense retriever, noting how many queries the process had in flight when it ran."""

            name = "dense"

            def retrieve(self, query: Query) -> RetrievalResult:
                seen.append(rt.activity.in_flight)
                return real.retrieve(query)

        with QueryPipeline(rt.store, rt.settings, {"dense": Watching()}, activity=rt.activity) as pipeline:
            result = pipeline.run("Which ferry crossed the fjord?", signals=["dense"])
        assert seen == [1] and result.hits
        assert rt.activity.in_flight == 0  # and released after
        started = time.monotonic()
        assert rt.activity.wait_until_idle(5.0) < 1.0 and time.monotonic() - started < 1.0
    finally:
        rt.close()



def test_every_workspace_of_a_process_counts_in_one_activity(runtime: Runtime) -> None:
    """The cores are the process's: an upload to one workspace waits for a query in another."""
    child = Runtime(runtime.settings, parent=runtime)
    assert child.activity is runtime.activity
    with child.activity.query():
        assert runtime.activity.in_flight == 1


def _nice_of(tid: int) -> int:
    return os.getpriority(os.PRIO_PROCESS, tid)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread nice values are Linux's")
def test_bulk_embedding_runs_at_lower_priority_on_its_own_model_and_leaves_the_queries_alone(
    make_settings: Callable[..., Settings],
) -> None:
    """Ingestion embeds with a second instance of the model on a lowered thread (and the torch helper threads
    it starts), so a query neither waits for an upload's model lock nor competes with it as an equal."""
    me = threading.get_native_id()
    mine_before = _nice_of(me)
    with Runtime(make_settings(ingest=IngestSettings(embed_nice=19))) as rt:
        bulk, queries = rt.checked_embedder(bulk=True), rt.embedder
        assert bulk is not queries and bulk.nice == 19 and queries.nice == 0
        assert bulk.identity() == queries.identity()

        lowered: list[int] = []

        def record() -> int:
            lowered.append(_nice_of(threading.get_native_id()))
            return 0

        vectors = bulk.encode([f"Sentence {i} about the ferry Kelpie." for i in range(4)])
        bulk._low_priority().submit(record).result()
        assert lowered == [min(19, mine_before + 19)]
        assert _nice_of(me) == mine_before  # the caller's own thread is untouched
        # Torch's helper threads for the bulk thread were started by it, so they inherit its nice value.
        niced = [int(t) for t in os.listdir("/proc/self/task") if _nice_of(int(t)) == lowered[0]]
        assert len(niced) >= 1

        # The same weights: what ingestion stores is what a query's vector is compared with.
        again = queries.encode(["Sentence 0 about the ferry Kelpie."])
        assert np.allclose(vectors[0], again[0], atol=1e-5)

        # No lock between them: with ingestion's model held mid-step, a query still embeds.
        with bulk._lock:
            done = threading.Event()
            threading.Thread(target=lambda: (queries.encode_query("Which ferry?"), done.set()), daemon=True).start()
            assert done.wait(timeout=30.0)


def test_with_embed_nice_0_ingestion_shares_the_queries_model(make_settings: Callable[..., Settings]) -> None:
    with Runtime(make_settings(ingest=IngestSettings(embed_nice=0))) as rt:
        assert rt.checked_embedder(bulk=True) is rt.embedder and rt.embedder.nice == 0


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread nice values are Linux's")
def test_lowering_a_thread_twice_leaves_it_where_once_did() -> None:
    """The job runner's one worker lowers itself before every job: the second job must not run lower still."""
    base = os.getpriority(os.PRIO_PROCESS, os.getpid())
    seen: list[int] = []

    def twice() -> None:
        for _ in range(2):
            lower_this_thread(BUILD_NICE)
            seen.append(_nice_of(threading.get_native_id()))

    thread = threading.Thread(target=twice)
    thread.start()
    thread.join()
    assert seen == [min(19, base + BUILD_NICE)] * 2
