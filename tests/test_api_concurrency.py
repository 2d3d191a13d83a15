"""Concurrency over HTTP: queries while documents are replaced, and two graph builds at once.

Every document the writer stores says in each chunk which document, version and chunk count it
belongs to, so a reader can tell from one response whether it saw a half-written document or two
versions of one document mixed.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable
from typing import Any

import psycopg
from kgrag.core.models import Embedder
from kgrag.core.settings import ChunkingSettings, RetrievalSettings, Settings

from tests.test_api_graph import wait_for
from tests.test_api_query import ingest_examples
from tests.test_api_support import api_settings, client_for

N_DOCS = 6
CHUNKING = ChunkingSettings(size=24, overlap=0)
_MARK = re.compile(r"marker doc(\d+) version(\d+) of(\d+)")
_TITLE = re.compile(r"doc(\d+) v(\d+) n(\d+)")


def _document(k: int, version: int) -> tuple[str, str, int]:
    """(title, text, chunk count): a version's length varies, so replacing changes the chunk count."""
    n = 2 + (k + version) % 3
    sentences = [f"marker doc{k} version{version} of{n} ferry timetable part {j} harbour." for j in range(n)]
    return f"doc{k} v{version} n{n}", " ".join(sentences), n


def test_queries_while_documents_are_replaced_see_only_whole_documents(
        make_settings: Callable[..., Settings], embedder: Embedder) -> None:
    settings = api_settings(make_settings, chunking=CHUNKING)
    problems: list[str] = []
    stop = threading.Event()
    counts = {"writes": 0, "queries": 0, "lists": 0, "hits": 0}
    with client_for(settings, embedder) as client:
        for k in range(N_DOCS):
            title, text, n = _document(k, 0)
            r = client.post("/v1/documents", json={"text": text, "title": title, "source": f"doc{k}"})
            assert r.status_code == 201 and r.json()["document"]["chunk_count"] == n, r.text

        def writer() -> None:
            version = 1
            while not stop.is_set():
                for k in range(N_DOCS):
                    title, text, n = _document(k, version)
                    r = client.post("/v1/documents", json={"text": text, "title": title, "source": f"doc{k}"})
                    if r.status_code != 201 or r.json()["document"]["chunk_count"] != n:
                        problems.append(f"write doc{k} v{version}: {r.status_code} {r.text[:200]}")
                    counts["writes"] += 1
                version += 1

        def check_hits(body: dict[str, Any], filtered_to: str | None) -> None:
            doc_of_source: dict[str, int] = {}
            for hit in body["hits"]:
                mark = _MARK.search(hit["text"])
                title = _TITLE.fullmatch(hit["title"])
                if mark is None or title is None:
                    problems.append(f"unexpected hit {hit['title']!r}: {hit['text'][:80]!r}")
                    continue
                if mark.groups() != title.groups() or hit["source"] != f"doc{mark[1]}":
                    problems.append(f"chunk of {mark.groups()} under document {title.groups()} / {hit['source']}")
                if doc_of_source.setdefault(hit["source"], hit["document_id"]) != hit["document_id"]:
                    problems.append(f"two versions of {hit['source']} in one response")
                if filtered_to is not None and hit["source"] != filtered_to:
                    problems.append(f"filter to {filtered_to} leaked {hit['source']}")
            counts["hits"] += len(body["hits"])

        def reader(i: int) -> None:
            while not stop.is_set():
                k = (i + counts["queries"]) % N_DOCS
                filtered = i % 2 == 1
                body = {"question": f"ferry timetable harbour doc{k}", "top_k": 10, "answer": i % 3 == 0,
                        "filters": {"sources": [f"doc{k}"]} if filtered else {}}
                r = client.post("/v1/query", json=body)
                if r.status_code != 200:
                    problems.append(f"query: {r.status_code} {r.text[:200]}")
                    continue
                check_hits(r.json(), f"doc{k}" if filtered else None)
                counts["queries"] += 1
                # The listing counts each document's chunks in the same statement that reads it.
                listed = client.get("/v1/documents").json()["documents"]
                counts["lists"] += 1
                if len(listed) != N_DOCS:
                    problems.append(f"{len(listed)} documents listed, not {N_DOCS}")
                for d in listed:
                    m = _TITLE.fullmatch(d["title"])
                    if m is None or d["chunk_count"] != int(m[3]):
                        problems.append(f"{d['title']} listed with {d['chunk_count']} chunks")

        threads = [threading.Thread(target=writer)] + [threading.Thread(target=reader, args=(i,)) for i in range(3)]
        for t in threads:
            t.start()
        deadline = time.monotonic() + 12
        while time.monotonic() < deadline and not problems:
            time.sleep(0.2)
        stop.set()
        for t in threads:
            t.join(timeout=60)
        assert not any(t.is_alive() for t in threads)
        with psycopg.connect(settings.database.url) as conn:
            per_doc = conn.execute("SELECT d.title, count(c.id) FROM documents d JOIN chunks c"
                                   " ON c.document_id = d.id GROUP BY d.id, d.title").fetchall()
    print(f"concurrent writes/queries/listings/hits: {counts}")
    assert not problems, problems[:10]
    assert counts["writes"] >= N_DOCS and counts["queries"] >= 20 and counts["hits"] > 0, counts
    assert len(per_doc) == N_DOCS and all(int(_TITLE.fullmatch(t)[3]) == n for t, n in per_doc)  # type: ignore[index]


def test_a_second_graph_build_through_the_api_is_409_while_one_runs(
        make_settings: Callable[..., Settings], embedder: Embedder) -> None:
    settings = api_settings(make_settings, retrieval=RetrievalSettings())
    with client_for(settings, embedder) as client:
        ingest_examples(client)
        # A transaction holding the chunks table keeps the first build running (blocked inside Postgres,
        # after it took its build lock) for as long as this test needs: no sleeps, no races.
        with psycopg.connect(settings.database.url) as blocker:
            blocker.execute("LOCK TABLE chunks IN ACCESS EXCLUSIVE MODE")
            first = client.post("/v1/graph/build")
            assert first.status_code == 202
            for _ in range(3):
                second = client.post("/v1/graph/build", params={"rebuild": True})
                assert second.status_code == 409, second.text
                body = second.json()
                assert second.headers["content-type"] == "application/problem+json"
                assert first.json()["id"] in body["detail"] and "already" in body["detail"]
                assert f"GET /v1/jobs/{first.json()['id']}" in body["fix"]
            assert client.get(f"/v1/jobs/{first.json()['id']}").json()["state"] in ("queued", "running")
            blocker.rollback()
        done = wait_for(client, first.json()["id"])
        assert done["state"] == "succeeded", done
        again = client.post("/v1/graph/build")
        assert again.status_code == 202, "the next build is accepted once the first has ended"
        assert wait_for(client, again.json()["id"])["state"] == "succeeded"

        # Another process's build (here: this test holding the Postgres build lock) fails the job with a 409 problem.
        from kgrag.kg.store import GraphStore

        with GraphStore(client.app.state.resources.runtime.db).build_lock():
            job = client.post("/v1/graph/build").json()
            failed = wait_for(client, job["id"])
        assert failed["state"] == "failed" and failed["error"]["status"] == 409
        assert "another" in failed["error"]["detail"] and failed["error"]["fix"]


def test_a_reader_sees_the_old_or_the_new_version_of_a_replaced_document_never_neither(
        make_settings: Callable[..., Settings], embedder: Embedder) -> None:
    """The same source re-uploaded again and again while readers query it: every response holds a version."""
    settings = api_settings(make_settings, chunking=CHUNKING)
    stop = threading.Event()
    empty: list[str] = []
    counts = {"writes": 0, "queries": 0}
    with client_for(settings, embedder) as client:
        for k in range(2):  # a second document, so BM25 has a corpus to score against
            title, text, _ = _document(k, 0)
            assert client.post("/v1/documents", json={"text": text, "title": title,
                                                      "source": f"doc{k}"}).status_code == 201

        def writer() -> None:
            version = 1
            while not stop.is_set():
                title, text, _ = _document(0, version)
                r = client.post("/v1/documents", json={"text": text, "title": title, "source": "doc0"})
                assert r.status_code == 201 and r.json()["outcome"] == "replaced", r.text
                counts["writes"] += 1
                version += 1

        def reader(i: int) -> None:
            while not stop.is_set():
                body = {"question": "ferry timetable harbour doc0", "top_k": 5, "answer": False,
                        "filters": {"sources": ["doc0"]} if i % 2 else {}}
                r = client.post("/v1/query", json=body)
                counts["queries"] += 1
                hits = [h for h in r.json()["hits"] if h["source"] == "doc0"] if r.status_code == 200 else []
                if not hits:
                    empty.append(f"{r.status_code}: {r.text[:300]}")

        threads = [threading.Thread(target=writer)] + [threading.Thread(target=reader, args=(i,)) for i in range(6)]
        for t in threads:
            t.start()
        deadline = time.monotonic() + 120  # enough interleaving to mean something, however busy the machine
        while time.monotonic() < deadline and (counts["writes"] < 10 or counts["queries"] < 100):
            time.sleep(0.2)
        stop.set()
        for t in threads:
            t.join(timeout=60)
    print(f"replaces/queries: {counts}, responses without doc0: {len(empty)}")
    assert counts["writes"] >= 10 and counts["queries"] >= 100, counts
    assert not empty, (len(empty), empty[:3])
