"""POST /v1/query and /v1/query/stream in-process, against real Postgres and the real embedder."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from kgrag.core.models import Embedder
from kgrag.core.settings import AnswerSettings, RerankSettings, Settings
from kgrag.retrieval.rerank import reranker_fix

from tests.conftest import EXAMPLES_DIR
from tests.gemini_standin import running_standin
from tests.test_api_support import api_settings, client_for, wait_for_artifacts

QUESTION = "Who designed the flight controller of the Skua drone?"
OUT_OF_CORPUS = "What is the boiling point of mercury?"


def ingest_examples(client: TestClient) -> None:
    report = client.app.state.resources.ingestor.ingest_paths([EXAMPLES_DIR])
    assert not report.failed and report.added
    wait_for_artifacts(client)


@pytest.fixture
def client(make_settings: Callable[..., Settings], embedder: Embedder) -> Iterator[TestClient]:
    with client_for(api_settings(make_settings), embedder) as c:
        ingest_examples(c)
        yield c


def parse_sse(text: str) -> list[tuple[str, Any]]:
    events = []
    for block in text.strip().split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line)
        events.append((fields["event"], json.loads(fields["data"])))
    return events


def test_missing_reranker_weights_stay_in_stages_not_in_every_warning(
        make_settings: Callable[..., Settings], embedder: Embedder) -> None:
    """No cross-encoder ships offline: a condition of the server, not of the question, so the UI stops printing
    it above every answer; `stages` keeps it, marked permanent, with the fix `kgrag doctor` gives."""
    with client_for(api_settings(make_settings, rerank=RerankSettings()), embedder) as c:
        ingest_examples(c)
        body = c.post("/v1/query", json={"question": QUESTION, "top_k": 3}).json()
    rerank = body["stages"]["rerank"]
    assert rerank["state"] == "skipped" and rerank["permanent"] is True, rerank
    assert rerank["reason"].endswith(reranker_fix(RerankSettings().model))
    assert body["stages"]["dense"]["permanent"] is False
    assert not any(w.startswith("rerank") for w in body["warnings"]), body["warnings"]


def test_query_with_answer_returns_cited_extractive_answer(client: TestClient) -> None:
    r = client.post("/v1/query", json={"question": QUESTION, "top_k": 3})
    assert r.status_code == 200, r.text
    body = r.json()
    assert len(body["hits"]) == 3
    top = body["hits"][0]
    assert top["source"].endswith(("skua_drone.md", "tomas_berg.txt"))
    assert set(top["ranks"]) <= {"dense", "bm25"} and top["ranks"]
    assert 0 < top["scores"]["dense"] <= 1
    stages = body["stages"]
    assert stages["dense"]["state"] == "ran" and stages["bm25"]["state"] == "ran"
    assert stages["rerank"]["state"] == "skipped" and stages["rerank"]["reason"]
    assert stages["answer"]["state"] == "ran" and body["gate"]["verdict"] == "pass"
    # each example is one chunk: its place in its document is 0, whatever its database id
    assert {h["position"] for h in body["hits"]} == {0} and {c["position"] for c in body["citations"]} == {0}
    answer = body["answer"]
    assert answer["mode"] == "extractive" and "Extractive answer" not in answer["text"]
    assert "Tomas Berg" in answer["text"]
    assert body["citations"], "an extractive answer cites its sentences"
    hit_chunks = {h["chunk_id"] for h in body["hits"]}
    for c in body["citations"]:
        assert f"[{c['number']}]" in answer["text"]
        assert c["chunk_id"] in hit_chunks
    # numbered in the order the answer cites them (issue 27): 1..n, none skipped
    assert sorted(c["number"] for c in body["citations"]) == list(range(1, len(body["citations"]) + 1))
    assert {"dense", "bm25", "fusion", "total", "answer"} <= set(body["timings"])


def test_query_without_answer_skips_the_answer_stage(client: TestClient) -> None:
    body = client.post("/v1/query", json={"question": QUESTION, "answer": False, "signals": ["bm25"]}).json()
    assert body["answer"] is None and body["citations"] == []
    assert body["stages"]["answer"] == {"state": "skipped", "permanent": False,
                                        "reason": "answers turned off for this query (answer=false)"}
    assert "dense" not in body["stages"] and body["hits"][0]["ranks"].keys() == {"bm25"}


def test_filters_restrict_the_hits(client: TestClient) -> None:
    docs = client.get("/v1/documents").json()["documents"]
    tallinn = next(d for d in docs if d["source"].endswith("tallinn.md"))
    body = client.post("/v1/query", json={"question": QUESTION, "answer": False,
                                          "filters": {"document_ids": [tallinn["id"]]}}).json()
    assert body["hits"] and {h["document_id"] for h in body["hits"]} == {tallinn["id"]}


def test_stream_sends_hits_then_tokens_then_done(client: TestClient) -> None:
    with client.stream("POST", "/v1/query/stream", json={"question": QUESTION}) as r:
        assert r.status_code == 200
        assert r.headers["content-type"].startswith("text/event-stream")
        events = parse_sse(r.read().decode())
    names = [name for name, _ in events]
    assert names[0] == "hits" and names[-1] == "done"
    assert set(names[1:-1]) == {"token"} and len(names) > 3
    hits, done = events[0][1], events[-1][1]
    assert hits["hits"] and hits["hits"] == done["hits"]
    assert "".join(data["text"] for name, data in events if name == "token") == done["answer"]["text"]
    assert done["citations"]


def test_stream_bad_input_is_a_problem_not_a_stream(client: TestClient) -> None:
    r = client.post("/v1/query/stream", json={"question": "x", "signals": ["nope"]})
    assert r.status_code == 422
    assert r.headers["content-type"] == "application/problem+json"


def test_out_of_corpus_question_is_refused(client: TestClient) -> None:
    body = client.post("/v1/query", json={"question": OUT_OF_CORPUS}).json()
    assert body["gate"]["verdict"] == "refuse", body["gate"]
    assert body["answer"]["mode"] == "refused"
    assert body["answer"]["text"].startswith("The documents don't say.")
    assert body["citations"] == []
    assert body["stages"]["answer"]["state"] == "skipped"
    dense = next(c for c in body["gate"]["checks"] if c["name"] == "dense_similarity")
    assert not dense["passed"]
    with client.stream("POST", "/v1/query/stream", json={"question": OUT_OF_CORPUS}) as r:
        events = parse_sse(r.read().decode())
    assert [name for name, _ in events] == ["hits", "token", "done"]
    assert events[1][1]["text"] == events[2][1]["answer"]["text"] == body["answer"]["text"]


def test_weak_evidence_can_warn_instead(make_settings: Callable[..., Settings], embedder: Embedder) -> None:
    settings = api_settings(make_settings, answer=AnswerSettings(backend="extractive", on_weak_evidence="warn"))
    with client_for(settings, embedder) as c:
        ingest_examples(c)
        body = c.post("/v1/query", json={"question": OUT_OF_CORPUS}).json()
    assert body["gate"]["verdict"] == "warn"
    assert body["answer"]["mode"] == "extractive" and body["answer"]["warning"]
    assert any(w.startswith("weak evidence") for w in body["warnings"])


def test_gemini_answer_through_the_api(make_settings: Callable[..., Settings], embedder: Embedder,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI", "GOOGLE_CLOUD_PROJECT"):
        monkeypatch.delenv(name, raising=False)

    def reply(prompt: str) -> str:
        # Cite whichever passage mentions the flight controller, as a model would.
        number = next(line.split("]")[0].lstrip("[") for line in prompt.splitlines()
                      if line.startswith("[") and "Skua" in line)
        return f"Tomas Berg designed it [{number}]."

    with running_standin(reply) as standin:
        settings = api_settings(make_settings, answer=AnswerSettings(
            backend="gemini", gemini_api_key="k", gemini_base_url=standin.base_url, max_passages=3))
        with client_for(settings, embedder) as c:
            ingest_examples(c)
            body = c.post("/v1/query", json={"question": QUESTION, "top_k": 5}).json()
            with c.stream("POST", "/v1/query/stream", json={"question": QUESTION, "top_k": 5}) as r:
                events = parse_sse(r.read().decode())
    request, streamed = standin.requests
    assert (request.method, streamed.method) == ("generateContent", "streamGenerateContent")
    assert streamed.prompt == request.prompt
    assert "[1] " in request.prompt and "[3] " in request.prompt and "[4] " not in request.prompt
    assert f"Question: {QUESTION}" in request.prompt
    answer = body["answer"]
    assert answer["mode"] == "generative" and answer["model"].startswith("gemini:")
    (citation,) = body["citations"]
    assert citation["chunk_id"] == body["hits"][citation["number"] - 1]["chunk_id"]
    assert citation["title"] == "Skua drone"
    assert events[0][0] == "hits" and events[-1][0] == "done"
    assert events[-1][1]["citations"] == body["citations"]


def test_gemini_failure_is_a_problem_and_an_error_event(make_settings: Callable[..., Settings], embedder: Embedder,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI", "GOOGLE_CLOUD_PROJECT"):
        monkeypatch.delenv(name, raising=False)
    with running_standin() as standin:
        standin.status = 403
        settings = api_settings(make_settings, answer=AnswerSettings(
            backend="gemini", gemini_api_key="bad", gemini_base_url=standin.base_url))
        with client_for(settings, embedder) as c:
            ingest_examples(c)
            r = c.post("/v1/query", json={"question": QUESTION})
            with c.stream("POST", "/v1/query/stream", json={"question": QUESTION}) as s:
                events = parse_sse(s.read().decode())
    assert r.status_code == 503 and r.headers["content-type"] == "application/problem+json"
    assert "403" in r.json()["detail"] and "GEMINI_API_KEY" in r.json()["fix"]
    assert [name for name, _ in events] == ["hits", "error"]
    assert events[1][1]["status"] == 503 and events[1][1]["fix"]


def test_concurrent_queries_do_not_mix(client: TestClient) -> None:
    from concurrent.futures import ThreadPoolExecutor

    questions = {
        "Where is Polar Cells headquartered?": "polar_cells.md",
        "What is the capital of Estonia?": "tallinn.md",
        QUESTION: ("skua_drone.md", "tomas_berg.txt"),
        "What is the service code of the Skua drone?": "skua_drone.md",
    }
    def ask(q: str) -> dict[str, Any]:
        return client.post("/v1/query", json={"question": q, "top_k": 3}).json()

    with ThreadPoolExecutor(max_workers=4) as pool:
        bodies = list(pool.map(ask, list(questions) * 2))
    for body in bodies:
        assert body["hits"][0]["source"].endswith(questions[body["question"]])
        assert all(c["chunk_id"] in {h["chunk_id"] for h in body["hits"]} for c in body["citations"])
