"""Query decomposition and HyDE through the real pipeline, API and CLI, with the LLM an OpenAI-compatible
stand-in server (the official openai client, real HTTP on 127.0.0.1); and invented citations end to end."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from kgrag.api.cli import app
from kgrag.core.errors import ConfigError
from kgrag.core.models import Embedder
from kgrag.core.runtime import Runtime
from kgrag.core.settings import AnswerSettings, DatabaseSettings, RerankSettings, RetrievalSettings, Settings
from kgrag.ingest.pipeline import Ingestor
from kgrag.retrieval.answer.grounded import evidence_from
from kgrag.retrieval.expand import DECOMPOSE_INSTRUCTION, HYDE_INSTRUCTION
from kgrag.retrieval.maintenance import publish_bm25
from kgrag.retrieval.pipeline import build_pipeline
from typer.testing import CliRunner

from tests.conftest import EXAMPLES_DIR, create_database
from tests.openai_standin import OpenAIStandIn, running_openai_standin
from tests.test_api_query import ingest_examples, parse_sse
from tests.test_api_support import api_settings, client_for

QUESTION = "Who founded the company that acquired Lumen Robotics?"
SUBS = {QUESTION: ["Which company acquired Lumen Robotics?", "Who founded Northwind Dynamics?"]}
HYPOTHETICAL = "Northwind Dynamics was founded by Ingrid Halvorsen and Tomas Berg in Bergen."


def llm_reply(system: str, prompt: str) -> str:
    """Decomposition and HyDE as a model would answer them; anything else is an answer with a bad citation."""
    question = prompt.removeprefix("Question: ").strip()
    if system == DECOMPOSE_INSTRUCTION:
        return "\n".join(f"{i}. {q}" for i, q in enumerate(SUBS.get(question, [f"What is {question}?"]), 1))
    if system == HYDE_INSTRUCTION:
        return HYPOTHETICAL if question == QUESTION else f"A passage about {question}."
    return "Ingrid Halvorsen and Tomas Berg founded it [1], as the archive shows [9]."


@pytest.fixture(autouse=True)
def _no_ambient_credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "GEMINI_API_KEY", "GOOGLE_API_KEY",
                 "GOOGLE_GENAI_USE_VERTEXAI", "GOOGLE_CLOUD_PROJECT"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def llm() -> Iterator[OpenAIStandIn]:
    with running_openai_standin(llm_reply) as standin:
        yield standin


@pytest.fixture(scope="module")
def examples_store(pg_server: str, embedder: Embedder, tmp_path_factory: pytest.TempPathFactory) -> Settings:
    """One database holding examples/, shared by this module's pipeline tests (they only read it)."""
    settings = Settings(_env_file=None, home=tmp_path_factory.mktemp("stages"),
                        database=DatabaseSettings(url=create_database(pg_server)))
    with Runtime(settings, embedder=embedder) as rt:
        assert not Ingestor.from_runtime(rt).ingest_paths([EXAMPLES_DIR]).failed
        publish_bm25(rt)
    return settings


def stage_settings(store: Settings, base_url: str | None, **retrieval: object) -> Settings:
    answer = (AnswerSettings(openai_model="stand-in", openai_base_url=base_url, max_retries=0) if base_url
              else AnswerSettings())
    return store.model_copy(update={"retrieval": RetrievalSettings(signals=("dense", "bm25"), **retrieval),
                                    "rerank": RerankSettings(enabled=False), "answer": answer})


def test_turning_a_stage_on_without_an_llm_is_refused_with_the_fix(examples_store: Settings,
                                                                   embedder: Embedder) -> None:
    settings = stage_settings(examples_store, None, hyde=True, decompose=True)
    with Runtime(settings, embedder=embedder) as rt, pytest.raises(ConfigError) as err:
        build_pipeline(rt)
    assert "retrieval.decompose and retrieval.hyde are on" in err.value.message
    assert "KGRAG_ANSWER__OPENAI_MODEL" in (err.value.fix or "") and "KGRAG_RETRIEVAL__HYDE=false" in err.value.fix
    forced_offline = settings.model_copy(update={"answer": AnswerSettings(backend="extractive", openai_model="m")})
    with Runtime(forced_offline, embedder=embedder) as rt, pytest.raises(ConfigError):
        build_pipeline(rt)


def test_off_by_default_no_llm_call_and_no_extra_lists(examples_store: Settings, embedder: Embedder,
                                                      llm: OpenAIStandIn) -> None:
    with Runtime(stage_settings(examples_store, llm.base_url), embedder=embedder) as rt, build_pipeline(rt) as pipe:
        result = pipe.run(QUESTION)
    assert llm.requests == [] and result.fused_lists == ("dense", "bm25")
    assert "decompose" not in result.statuses and "hyde" not in result.explanations


def test_sub_questions_and_the_hypothetical_passage_join_the_fusion(
        examples_store: Settings, embedder: Embedder, llm: OpenAIStandIn) -> None:
    settings = stage_settings(examples_store, llm.base_url, decompose=True, hyde=True)
    with Runtime(settings, embedder=embedder) as rt, build_pipeline(rt) as pipe:
        plain = {h.source.rsplit("/", 1)[-1]: h for h in pipe.run(QUESTION, top_k=30).hits}
        result = pipe.run(QUESTION, top_k=30)
    systems = sorted(r.system for r in llm.requests)
    assert systems.count(DECOMPOSE_INSTRUCTION) == 2 and systems.count(HYDE_INSTRUCTION) == 2
    assert result.statuses["decompose"].state == "ran" and result.statuses["hyde"].state == "ran"
    assert result.explanations["decompose"] == {"queries": {"sub1": SUBS[QUESTION][0], "sub2": SUBS[QUESTION][1]}}
    assert result.explanations["hyde"] == {"queries": {"hyde": HYPOTHETICAL}}
    assert set(result.fused_lists) == {"dense", "bm25", "dense@sub1", "bm25@sub1", "dense@sub2", "bm25@sub2",
                                       "dense@hyde", "bm25@hyde"}
    assert result.timings["decompose"] > 0 and "dense@hyde" in result.timings
    northwind = next(h for h in result.hits if h.source.endswith("northwind_dynamics.md"))
    assert {"dense@sub2", "bm25@hyde"} <= set(northwind.ranks)  # found by the extra queries too
    assert northwind.rank <= plain["northwind_dynamics.md"].rank
    evidence = evidence_from(result, settings)
    assert evidence.best_fused is not None and 0 < evidence.best_fused <= 1.0  # ceiling counts all 8 lists


def test_a_failing_llm_fails_its_stage_only(examples_store: Settings, embedder: Embedder,
                                            llm: OpenAIStandIn) -> None:
    llm.status = 500
    with Runtime(stage_settings(examples_store, llm.base_url, hyde=True), embedder=embedder) as rt, \
            build_pipeline(rt) as pipe:
        result = pipe.run(QUESTION)
    assert result.statuses["hyde"].state == "failed" and "500" in result.statuses["hyde"].reason
    assert result.hits and result.fused_lists == ("dense", "bm25")
    assert any(w.startswith("hyde failed") for w in result.warnings)


def test_concurrent_questions_get_their_own_sub_questions(examples_store: Settings,
                                                          embedder: Embedder, llm: OpenAIStandIn) -> None:
    questions = [QUESTION, "Where is Polar Cells headquartered?", "What is the service code of the Skua?"]
    with Runtime(stage_settings(examples_store, llm.base_url, decompose=True), embedder=embedder) as rt, \
            build_pipeline(rt) as pipe, ThreadPoolExecutor(max_workers=6) as pool:
        results = list(pool.map(lambda q: pipe.run(q), questions * 2))
    for r in results:
        expected = SUBS.get(r.question, [f"What is {r.question}?"])
        assert list(r.explanations["decompose"]["queries"].values()) == expected


def test_the_api_explains_the_stages_and_removes_an_invented_citation(
        make_settings: Callable[..., Settings], embedder: Embedder, llm: OpenAIStandIn) -> None:
    settings = api_settings(make_settings, retrieval=RetrievalSettings(signals=("dense", "bm25"), decompose=True),
                            answer=AnswerSettings(openai_model="stand-in", openai_base_url=llm.base_url))
    with client_for(settings, embedder) as c:
        ingest_examples(c)
        body = c.post("/v1/query", json={"question": QUESTION}).json()
        with c.stream("POST", "/v1/query/stream", json={"question": QUESTION}) as r:
            events = parse_sse(r.read().decode())
    assert body["stages"]["decompose"]["state"] == "ran"
    assert body["explanations"]["decompose"]["queries"]["sub2"] == "Who founded Northwind Dynamics?"
    assert any("dense@sub1" in h["ranks"] for h in body["hits"])
    answer = body["answer"]
    assert answer["text"] == "Ingrid Halvorsen and Tomas Berg founded it [1], as the archive shows."
    assert answer["unresolved_citations"] == [9] and answer["model"] == "openai:stand-in"
    assert any("[9]" in w and "removed" in w for w in body["warnings"])
    tokens = "".join(data["text"] for name, data in events if name == "token")
    assert tokens == answer["text"]  # the stream never showed the invented [9] either
    assert events[-1][1]["answer"]["unresolved_citations"] == [9]


def test_cli_explain_shows_the_sub_questions_and_refuses_without_an_llm(
        examples_store: Settings, llm: OpenAIStandIn, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # no stray .env
    env = {"KGRAG_HOME": str(examples_store.home), "KGRAG_DATABASE__URL": str(examples_store.database.url),
           "KGRAG_RERANK__ENABLED": "false", "KGRAG_RETRIEVAL__DECOMPOSE": "true", "COLUMNS": "200"}
    runner = CliRunner()
    refused = runner.invoke(app, ["query", QUESTION, "--signals", "dense,bm25"], env=env)
    assert refused.exit_code != 0
    assert "no LLM is configured" in refused.output and "KGRAG_RETRIEVAL__DECOMPOSE=false" in refused.output
    env |= {"KGRAG_ANSWER__OPENAI_MODEL": "stand-in", "KGRAG_ANSWER__OPENAI_BASE_URL": llm.base_url}
    shown = runner.invoke(app, ["query", QUESTION, "--signals", "dense,bm25", "--explain"], env=env)
    assert shown.exit_code == 0, shown.output
    assert "Who founded Northwind Dynamics?" in shown.output and "dense@sub2 #" in shown.output
