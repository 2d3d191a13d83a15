"""``/v1/chat/completions`` through the official openai client against uvicorn on 127.0.0.1."""

from __future__ import annotations

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
    with pytest.raises(openai.AuthenticationError):
        _client(server, key="wrong").chat.completions.create(model="kgrag",
                                                             messages=[{"role": "user", "content": QUESTION}])
    with pytest.raises(openai.UnprocessableEntityError) as err:
        _client(server).chat.completions.create(model="kgrag", messages=[{"role": "system", "content": "x"}])
    problem = err.value.response.json()
    assert "no user message" in problem["detail"] and '"role": "user"' in problem["fix"]
