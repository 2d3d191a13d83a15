"""Queries before bulk work (core/priority.py): while a query runs, ingestion's embedding waits, boundedly.

Real parts throughout: the MiniLM embedder, an embedded PostgreSQL, the real ingestor and query pipeline.
"""

from __future__ import annotations

import threading
import time

from kgrag.core.runtime import Runtime
from kgrag.core.settings import IngestSettings, RerankSettings
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
