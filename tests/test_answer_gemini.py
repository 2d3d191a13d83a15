"""The Gemini answerer through google-genai's real client, pointed at a local stand-in server."""

from __future__ import annotations

import pytest
from kgrag.core.errors import ConfigError, ModelUnavailableError
from kgrag.core.settings import AnswerSettings
from kgrag.core.types import ChunkRecord
from kgrag.retrieval.answer import (
    Answer,
    ExtractiveAnswerer,
    GeminiAnswerer,
    complete,
    gemini_credentials,
    make_answerer,
    number_passages,
)

from tests.gemini_standin import running_standin
from tests.kg_fixtures import nlp_fixture  # noqa: F401  (the `nlp` fixture)

CHUNKS = [
    ChunkRecord(id=101, document_id=7, position=0, text="The Nile flows north into the Mediterranean Sea.",
                page=None, source="rivers.md", title="Rivers"),
    ChunkRecord(id=202, document_id=8, position=3, text="Mount Kilimanjaro is 5,895 metres high.",
                page=4, source="mountains.pdf", title="Mountains"),
    ChunkRecord(id=303, document_id=8, position=5, text="Lake Victoria is shared by three countries.",
                page=6, source="mountains.pdf", title="Mountains"),
]


@pytest.fixture(autouse=True)
def _no_ambient_credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    """The developer's own key must never send test traffic to the real API."""
    for name in ("GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI", "GOOGLE_GENAI_USE_ENTERPRISE",
                 "GOOGLE_CLOUD_PROJECT", "GOOGLE_CLOUD_LOCATION"):
        monkeypatch.delenv(name, raising=False)


def _answerer(base_url: str) -> GeminiAnswerer:
    answerer = make_answerer(AnswerSettings(gemini_api_key="test-key", gemini_base_url=base_url,
                                            gemini_model="gemini-test-flash"))
    assert isinstance(answerer, GeminiAnswerer)
    return answerer


def test_stream_sends_numbered_passages_and_resolves_citations() -> None:
    reply = "Kilimanjaro is 5,895 m high [2], and the Nile flows north [1]."
    with running_standin(lambda prompt: reply) as standin:
        events = list(_answerer(standin.base_url).stream("How high is Kilimanjaro?", number_passages(CHUNKS)))

    deltas, final = events[:-1], events[-1]
    assert len(deltas) > 1 and all(isinstance(d, str) for d in deltas)
    assert "".join(deltas) == reply
    assert isinstance(final, Answer) and final.mode == "generative" and final.text == reply

    (request,) = standin.requests
    assert request.method == "streamGenerateContent" and request.query.get("alt") == ["sse"]
    assert request.model == "gemini-test-flash"
    assert request.headers.get("x-goog-api-key") == "test-key"
    prompt = request.prompt
    assert "[1] Rivers\nThe Nile flows north" in prompt
    assert "[2] Mountains, page 4\nMount Kilimanjaro is 5,895 metres high." in prompt
    assert "[3] Mountains, page 6" in prompt
    assert "Question: How high is Kilimanjaro?" in prompt
    assert "only the numbered passages" in request.system_instruction

    resolved = [(c.number, c.chunk_id, c.document_id, c.page) for c in final.citations]
    assert resolved == [(2, 202, 8, 4), (1, 101, 7, None)]
    assert final.citations[0].source == "mountains.pdf"
    assert final.unresolved == ()


def test_complete_uses_one_generate_content_call_and_reports_bad_citations() -> None:
    with running_standin(lambda prompt: "It is high [2, 9].") as standin:
        answer = complete(_answerer(standin.base_url), "q", number_passages(CHUNKS))
    assert [r.method for r in standin.requests] == ["generateContent"]
    assert "[3] Mountains, page 6\nLake Victoria" in standin.requests[0].prompt
    assert answer.mode == "generative" and answer.text == "It is high [2]."  # [9] matches no passage
    assert [c.chunk_id for c in answer.citations] == [202]
    assert answer.unresolved == (9,)


def test_a_sentence_whose_cited_passage_lacks_its_claim_is_flagged() -> None:
    """The model cites [2] for a height [2] does not give: the answer keeps its text (the model's words) but says
    which claim its citation does not carry; a sourced sentence beside it is not flagged."""
    reply = "Mount Kilimanjaro is 6,100 metres high [2]. Lake Victoria is shared by three countries [3]."
    with running_standin(lambda prompt: reply) as standin:
        answer = complete(_answerer(standin.base_url), "How high is Kilimanjaro?", number_passages(CHUNKS))
    assert answer.unsupported == ("6,100",) and "“6,100”" in answer.unsupported_note
    with running_standin(lambda prompt: "Mount Kilimanjaro is 5,895 metres high [2].") as standin:
        sourced = complete(_answerer(standin.base_url), "How high is Kilimanjaro?", number_passages(CHUNKS))
    assert sourced.unsupported == () and sourced.unsupported_note == ""
    # the rule the model is given: a value stated for another relation is no answer; refuse, naming what is missing
    system = standin.requests[0].system_instruction
    assert "does not say where they were born" in system and "Never offer a nearby entity" in system
    assert "reply exactly: Not in the documents. and then say which part" in system


def test_model_saying_the_documents_dont_say_is_a_refusal() -> None:
    with running_standin(lambda prompt: "The documents don't say.") as standin:
        answer = complete(_answerer(standin.base_url), "Who won the 1966 World Cup?", number_passages(CHUNKS))
    assert answer.refused and answer.citations == ()


def test_api_error_becomes_an_error_naming_the_fix() -> None:
    with running_standin() as standin:
        standin.status = 403
        with pytest.raises(ModelUnavailableError) as err:
            complete(_answerer(standin.base_url), "q", number_passages(CHUNKS))
    assert "403" in err.value.message
    assert "GEMINI_API_KEY" in (err.value.fix or "")


def test_unreachable_endpoint_is_model_unavailable() -> None:
    with running_standin() as standin:
        url = standin.base_url
    with pytest.raises(ModelUnavailableError) as err:
        complete(_answerer(url), "q", number_passages(CHUNKS))
    assert "cannot reach Gemini" in err.value.message


def test_factory_chooses_by_credentials(nlp: object) -> None:
    settings = AnswerSettings()
    assert gemini_credentials(settings, {}) is None
    assert isinstance(make_answerer(settings, nlp=nlp, environ={}), ExtractiveAnswerer)
    assert gemini_credentials(settings, {"GEMINI_API_KEY": "x"}) == "GEMINI_API_KEY"
    vertex = {"GOOGLE_GENAI_USE_VERTEXAI": "true", "GOOGLE_CLOUD_PROJECT": "p", "GOOGLE_CLOUD_LOCATION": "us-central1"}
    assert gemini_credentials(settings, vertex) is not None
    assert isinstance(make_answerer(AnswerSettings(backend="extractive", gemini_api_key="k"), nlp=nlp),
                      ExtractiveAnswerer)
    with pytest.raises(ConfigError):
        make_answerer(AnswerSettings(backend="gemini"), environ={})
