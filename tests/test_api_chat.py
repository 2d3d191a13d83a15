"""``/v1/chat/completions`` through the official openai client against uvicorn on 127.0.0.1."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator

import httpx
import openai
import pytest
from kgrag.api.app import create_app
from kgrag.core.models import Embedder
from kgrag.core.runtime import Runtime
from kgrag.core.settings import ApiSettings, Settings
from kgrag.ingest.pipeline import Ingestor

from tests.conftest import EXAMPLES_DIR, REPO_ROOT
from tests.test_api_support import api_settings

sys.path.insert(0, str(REPO_ROOT / "bench"))
import soak

KEY = "chat-test-key"
QUESTION = "Which shipyard built the Kelpie?"


@pytest.fixture(scope="module")
def server(pg_server: str, embedder: Embedder, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One server for the module (examples ingested, a key required): the client calls are what differ."""
    from tests.conftest import create_database

    home = tmp_path_factory.mktemp("chat")

    def make(**overrides: object) -> Settings:
        from kgrag.core.settings import DatabaseSettings

        values: dict[str, object] = {"home": home, "database": DatabaseSettings(url=create_database(pg_server))}
        values.update(overrides)
        return Settings(_env_file=None, **values)  # type: ignore[arg-type]

    settings = api_settings(make, api=ApiSettings(api_keys=[KEY]))
    rt = Runtime(settings, embedder=embedder)
    try:
        assert Ingestor.from_runtime(rt).ingest_paths([EXAMPLES_DIR]).added
        with soak.serve_in_thread(create_app(runtime=rt)) as url:
            yield url
    finally:
        rt.close()


def _client(url: str, key: str = KEY) -> openai.OpenAI:
    return openai.OpenAI(base_url=f"{url}/v1", api_key=key, max_retries=0, timeout=120)


def test_completion_cites_its_sources_in_text_and_field(server: str) -> None:
    client = _client(server)
    assert [m.id for m in client.models.list()] == ["kgrag"]
    completion = client.chat.completions.create(
        model="kgrag", messages=[{"role": "system", "content": "Be brief."},
                                 {"role": "user", "content": "Hello"},
                                 {"role": "assistant", "content": "Hi."},
                                 {"role": "user", "content": QUESTION}])
    text = completion.choices[0].message.content or ""
    assert completion.choices[0].finish_reason == "stop" and completion.object == "chat.completion"
    assert "[1]" in text and "\n\nSources:\n[1] " in text
    citations = (completion.model_extra or {})["citations"]
    assert sorted(c["number"] for c in citations) == list(range(1, len(citations) + 1))
    assert any("aalto_shipyards" in c["source"] for c in citations)
    for c in citations:  # the field and the text name the same documents
        assert f"[{c['number']}] {c['title']} ({c['source']})" in text


def test_issue_42_rows_are_answered_by_their_statement_or_refused(server: str) -> None:
    """The chat path answers as `kgrag ask` does: the shipyard that built the Kelpie, not the foundation in the
    same passage; the founder of Lumen Robotics, not the university she left; where no sentence states a birth
    place or date, a refusal that says so rather than the city she studied in or the year he took over."""
    client = _client(server)

    def ask(question: str) -> str:
        reply = client.chat.completions.create(model="kgrag", messages=[{"role": "user", "content": question}])
        return reply.choices[0].message.content or ""

    assert ask(QUESTION).startswith("Aalto Shipyards. [")
    assert ask("Who founded Lumen Robotics?").startswith("Marta Kask. [")
    born = ask("Where was Ingrid Halvorsen born?")
    assert born.startswith("The documents don't say.") and "where Ingrid Halvorsen was born" in born
    assert "Trondheim. [" not in born and "[1]" not in born
    okafor = ask("When was Samuel Okafor born?")
    assert okafor.startswith("The documents don't say.") and "2016. [" not in okafor


def test_streamed_completion_matches_the_wire_format(server: str) -> None:
    stream = _client(server).chat.completions.create(
        model="kgrag", stream=True, messages=[{"role": "user", "content": [{"type": "text", "text": QUESTION}]}])
    chunks = list(stream)
    assert chunks[0].choices[0].delta.role == "assistant"
    text = "".join(c.choices[0].delta.content or "" for c in chunks)
    assert len([c for c in chunks if c.choices[0].delta.content]) >= 2  # tokens arrived as separate events
    assert "[1]" in text and "Sources:\n[1] " in text
    assert chunks[-1].choices[0].finish_reason == "stop"
    assert {c["number"] for c in (chunks[-1].model_extra or {})["citations"]} >= {1}
    raw = httpx.post(f"{server}/v1/chat/completions", headers={"Authorization": f"Bearer {KEY}"}, timeout=120,
                     json={"messages": [{"role": "user", "content": QUESTION}], "stream": True})
    assert raw.headers["content-type"].startswith("text/event-stream")
    assert raw.text.rstrip().endswith("data: [DONE]")


def test_same_auth_and_clear_errors(server: str) -> None:
    with pytest.raises(openai.AuthenticationError) as refused:
        _client(server, key="wrong").chat.completions.create(model="kgrag",
                                                             messages=[{"role": "user", "content": QUESTION}])
    # Issue 46: OpenAI's {"error": {"message"}} shape, so the client says what is wrong and what to do, not only
    # "Error code: 401"; the problem document's own members stay for every other client.
    said = refused.value.body
    assert isinstance(said, dict) and said["code"] == 401 and said["type"] == "auth", said
    assert said["message"].startswith("the API key is not valid. Fix: use a key from `kgrag keys create`"), said
    assert refused.value.response.json()["detail"] and refused.value.response.json()["status"] == 401
    with pytest.raises(openai.UnprocessableEntityError) as err:
        _client(server).chat.completions.create(model="kgrag", messages=[{"role": "system", "content": "x"}])
    problem = err.value.response.json()
    assert "no user message" in problem["detail"] and '"role": "user"' in problem["fix"]
    assert problem["error"]["message"].startswith(problem["detail"].rstrip("."))
    # Routes no OpenAI client calls keep the plain problem document.
    assert "error" not in httpx.post(f"{server}/v1/query", json={"question": "x"}, timeout=60).json()


def _problem(r: httpx.Response, status: int) -> dict[str, object]:
    assert r.status_code == status, r.text[:500]
    assert r.headers["content-type"] == "application/problem+json"
    return dict(r.json())


def test_oversized_bodies_are_refused_on_every_json_route(server: str) -> None:
    """Eight 39 MB chat bodies took the server from 855 MB to 7.8 GB: only the document upload may be large.
    Refused from Content-Length, and from the bytes counted when a chunked body declares none."""
    auth = {"Authorization": f"Bearer {KEY}", "content-type": "application/json"}
    limit = ApiSettings().max_request_bytes
    chat = json.dumps({"messages": [{"role": "user", "content": "x" * 60_000}] * 40}).encode()  # 2.4 MB
    assert len(chat) > 2 * limit
    for path in ("/v1/chat/completions", "/v1/query", "/v1/query/stream", "/v1/graph/build"):
        body = _problem(httpx.post(f"{server}{path}", headers=auth, content=chat, timeout=60), 413)
        assert body["type"] == "urn:kgrag:problem:request-too-large" and f"limit of {limit}" in str(body["detail"])
        assert "KGRAG_API__MAX_REQUEST_BYTES" in str(body["fix"]) and body["setting"] == "KGRAG_API__MAX_REQUEST_BYTES"

    def chunked() -> Iterator[bytes]:
        for i in range(0, len(chat), 65536):
            yield chat[i : i + 65536]

    body = _problem(httpx.post(f"{server}/v1/chat/completions", headers=auth, content=chunked(), timeout=60), 413)
    assert "KGRAG_API__MAX_REQUEST_BYTES" in str(body["fix"])
    # A document upload keeps its own, larger limit: this body is read whole and judged on its content.
    doc = httpx.post(f"{server}/v1/documents", headers=auth, timeout=60, content=chat)
    assert _problem(doc, 422)["type"] == "urn:kgrag:problem:validation"
    assert _client(server).chat.completions.create(
        model="kgrag", messages=[{"role": "user", "content": QUESTION}]).choices[0].message.content


def test_message_count_and_total_text_are_limited(server: str) -> None:
    api = ApiSettings()
    many = [{"role": "user", "content": "hi"}] * (api.max_messages + 1) + [{"role": "user", "content": QUESTION}]
    with pytest.raises(openai.UnprocessableEntityError) as err:
        _client(server).chat.completions.create(model="kgrag", messages=many)  # type: ignore[arg-type]
    problem = err.value.response.json()
    assert f"{api.max_messages + 2} messages, over the limit of {api.max_messages}" in problem["detail"]
    assert "KGRAG_API__MAX_MESSAGES" in problem["fix"]
    long = [{"role": "assistant", "content": "y" * 90_000}] * 3 + [{"role": "user", "content": QUESTION}]
    with pytest.raises(openai.UnprocessableEntityError) as err:
        _client(server).chat.completions.create(model="kgrag", messages=long)  # type: ignore[arg-type]
    problem = err.value.response.json()
    assert f"over the limit of {api.max_chat_chars}" in problem["detail"] and "KGRAG_API__MAX_CHAT_CHARS" in \
        problem["fix"]
