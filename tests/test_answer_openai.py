"""The OpenAI-compatible answerer through the official openai client, pointed at a local stand-in server."""

from __future__ import annotations

import pytest
from kgrag.core.errors import ConfigError, ModelUnavailableError
from kgrag.core.settings import AnswerSettings
from kgrag.retrieval.answer import (
    Answer,
    ExtractiveAnswerer,
    GeminiAnswerer,
    OpenAICompatAnswerer,
    complete,
    make_answerer,
    make_text_model,
    number_passages,
    resolve_backend,
)
from pydantic import SecretStr

from tests.kg_fixtures import nlp_fixture  # noqa: F401  (the `nlp` fixture)
from tests.openai_standin import running_openai_standin
from tests.test_answer_gemini import CHUNKS


@pytest.fixture(autouse=True)
def _no_ambient_credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    """The developer's own keys must never send test traffic to a real API."""
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "GEMINI_API_KEY", "GOOGLE_API_KEY",
                 "GOOGLE_GENAI_USE_VERTEXAI", "GOOGLE_CLOUD_PROJECT"):
        monkeypatch.delenv(name, raising=False)


def _settings(base_url: str, **extra: object) -> AnswerSettings:
    return AnswerSettings(openai_base_url=base_url, openai_model="llama-test", openai_api_key="sk-test",
                          **extra)


def _answerer(base_url: str, **extra: object) -> OpenAICompatAnswerer:
    answerer = make_answerer(_settings(base_url, **extra))
    assert isinstance(answerer, OpenAICompatAnswerer)
    return answerer


def test_stream_speaks_chat_completions_sse_and_resolves_citations() -> None:
    reply = "Kilimanjaro is 5,895 m high [2], and the Nile flows north [1]."
    with running_openai_standin(lambda system, prompt: reply) as standin:
        events = list(_answerer(standin.base_url).stream("How high is Kilimanjaro?", number_passages(CHUNKS)))

    deltas, final = events[:-1], events[-1]
    assert len(deltas) > 1 and all(isinstance(d, str) for d in deltas)
    assert "".join(deltas) == reply
    assert isinstance(final, Answer) and final.mode == "generative" and final.text == reply
    assert final.model == "openai:llama-test"

    (request,) = standin.requests
    assert request.body["stream"] is True and request.body["model"] == "llama-test"
    assert request.headers.get("authorization") == "Bearer sk-test"
    assert "only the numbered passages" in request.system
    assert "[2] Mountains, page 4\nMount Kilimanjaro is 5,895 metres high." in request.prompt
    assert "Question: How high is Kilimanjaro?" in request.prompt
    assert [(c.number, c.chunk_id) for c in final.citations] == [(2, 202), (1, 101)]


def test_complete_is_one_non_streaming_call_and_invented_citations_leave_the_text() -> None:
    with running_openai_standin(lambda system, prompt: "It is high [2, 9]. The lake is big [7].") as standin:
        answer = complete(_answerer(standin.base_url), "q", number_passages(CHUNKS))
    (request,) = standin.requests
    assert not request.body.get("stream")
    assert answer.text == "It is high [2]. The lake is big."
    assert [c.chunk_id for c in answer.citations] == [202]
    assert answer.unresolved == (9, 7)
    assert "[9], [7]" in answer.unresolved_note and "removed" in answer.unresolved_note


def test_the_prompt_asks_for_a_refusal_and_an_unsourced_claim_is_flagged() -> None:
    reply = "The Nile flows north into the Mediterranean Sea, as Ingrid Halvorsen found [1]."
    with running_openai_standin(lambda system, prompt: reply) as standin:
        answer = complete(_answerer(standin.base_url), "Where does the Nile flow?", number_passages(CHUNKS))
    (request,) = standin.requests
    assert "Answer only with what a passage states for the relation the question asks about" in request.system
    assert "Not in the documents. and then say which part the passages do not state" in request.system
    assert answer.mode == "generative" and answer.unsupported == ("Ingrid Halvorsen",)


def test_model_saying_the_documents_dont_say_is_a_refusal() -> None:
    with running_openai_standin() as standin:
        answer = complete(_answerer(standin.base_url), "Who won the 1966 World Cup?", number_passages(CHUNKS))
    assert answer.refused and answer.citations == ()


def test_errors_name_the_fix_and_retries_are_the_sdks() -> None:
    with running_openai_standin() as standin:
        standin.status = 401
        with pytest.raises(ModelUnavailableError) as err:
            complete(_answerer(standin.base_url), "q", number_passages(CHUNKS))
        assert "401" in err.value.message and "OPENAI_API_KEY" in (err.value.fix or "")
        assert len(standin.requests) == 1  # 401 is not retried

        standin.requests.clear()
        standin.status = 503
        with pytest.raises(ModelUnavailableError) as err:
            complete(_answerer(standin.base_url, max_retries=1), "q", number_passages(CHUNKS))
        assert "503" in err.value.message
        assert len(standin.requests) == 2  # the first try and the SDK's one retry


def test_the_sdk_timeout_applies_and_names_its_setting() -> None:
    with running_openai_standin() as standin:
        standin.delay_s = 1.5
        with pytest.raises(ModelUnavailableError) as err:
            complete(_answerer(standin.base_url, timeout_s=0.3, max_retries=0), "q", number_passages(CHUNKS))
    assert "did not answer in time" in err.value.message and "KGRAG_ANSWER__TIMEOUT_S" in (err.value.fix or "")


def test_unreachable_endpoint_names_the_base_url_setting() -> None:
    with running_openai_standin() as standin:
        url = standin.base_url
    with pytest.raises(ModelUnavailableError) as err:
        complete(_answerer(url, max_retries=0), "q", number_passages(CHUNKS))
    assert "cannot reach" in err.value.message and "OPENAI_BASE_URL" in (err.value.fix or "")


def test_generate_is_the_text_model_for_query_stages() -> None:
    with running_openai_standin(lambda system, prompt: f"  echo: {prompt}  ") as standin:
        model = make_text_model(_settings(standin.base_url))
        assert model is not None
        assert model.generate("be brief", "hello") == "echo: hello"
    assert standin.requests[0].system == "be brief"


def test_factory_prefers_gemini_then_openai_then_extractive(nlp: object) -> None:
    assert resolve_backend(AnswerSettings(), {}) == "extractive"
    assert make_text_model(AnswerSettings(), environ={}) is None
    assert isinstance(make_answerer(AnswerSettings(), nlp=nlp, environ={}), ExtractiveAnswerer)
    openai_only = AnswerSettings(openai_model="m", openai_base_url="http://127.0.0.1:9/v1")
    assert resolve_backend(openai_only, {}) == "openai"
    assert resolve_backend(openai_only, {"GEMINI_API_KEY": "x"}) == "gemini"
    both = openai_only.model_copy(update={"gemini_api_key": SecretStr("x")})
    assert isinstance(make_answerer(both, environ={}), GeminiAnswerer)
    with pytest.raises(ConfigError) as err:
        make_answerer(AnswerSettings(backend="openai"), environ={})
    assert "KGRAG_ANSWER__OPENAI_MODEL" in (err.value.fix or "")
