"""A conversation through ``/v1/chat/completions`` with the official openai client against uvicorn: ask, then
follow up. Offline (the earlier turns' entities resolve the follow-up) and with an answer model (the
OpenAI-compatible stand-in rewrites it), plus ``usage`` and refusals the model or the gate make."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import openai
import pytest
from kgrag.api.app import create_app
from kgrag.core.models import Embedder
from kgrag.core.runtime import Runtime
from kgrag.core.settings import AnswerSettings, DatabaseSettings, Settings
from kgrag.ingest.pipeline import Ingestor
from kgrag.retrieval.answer.base import SYSTEM_INSTRUCTION
from kgrag.retrieval.conversation import REWRITE_INSTRUCTION

from tests.conftest import REPO_ROOT, create_database
from tests.openai_standin import running_openai_standin
from tests.test_api_support import api_settings

sys.path.insert(0, str(REPO_ROOT / "bench"))
import soak

WIKI = {
    "wren_3.md": "# Wren-3\n\nThe Wren-3 is a handheld weather station made by Corvid Systems. The Wren-3 firmware "
                 "is developed under Project Heron.\n",
    "project_heron.md": "# Project Heron\n\nProject Heron started in 2021 as a rewrite of the sensor drivers. "
                        "Project Heron is led by Jonas Meier.\n",
    "jonas_meier.md": "# Jonas Meier\n\nJonas Meier is an embedded-software engineer. He works at the Corvid Systems "
                      "office in Riga, where the firmware team sits.\n",
    "corvid.md": "# Corvid Systems\n\nCorvid Systems builds weather instruments. Its headquarters are in Lisbon.\n",
}
ASK = "Who leads Project Heron?"
FOLLOW_UP = "Where does he work?"


def _wiki(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in WIKI.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def _serve(settings: Settings, embedder: Embedder, folder: Path) -> Iterator[str]:
    rt = Runtime(settings, embedder=embedder)
    try:
        assert Ingestor.from_runtime(rt).ingest_paths([folder]).added
        with soak.serve_in_thread(create_app(runtime=rt)) as url:
            yield url
    finally:
        rt.close()


def _settings(pg_server: str, home: Path, **overrides: object) -> Settings:
    def make(**values: object) -> Settings:
        base: dict[str, object] = {"home": home, "database": DatabaseSettings(url=create_database(pg_server))}
        base.update(values)
        return Settings(_env_file=None, **base)  # type: ignore[arg-type]

    return api_settings(make, **overrides)


@pytest.fixture(scope="module")
def offline(pg_server: str, embedder: Embedder, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    home = tmp_path_factory.mktemp("conv-offline")
    yield from _serve(_settings(pg_server, home), embedder, _wiki(home / "wiki"))


def _client(url: str) -> openai.OpenAI:
    return openai.OpenAI(base_url=f"{url}/v1", api_key="unused", max_retries=0, timeout=120)


def test_offline_follow_up_is_resolved_through_the_previous_answer(offline: str) -> None:
    client = _client(offline)
    first = client.chat.completions.create(model="kgrag", messages=[{"role": "user", "content": ASK}])
    said = first.choices[0].message.content or ""
    assert said.startswith("Jonas Meier.")
    assert (first.model_extra or {})["standalone_question"] == ASK  # a first question runs as written
    follow = client.chat.completions.create(model="kgrag", messages=[
        {"role": "user", "content": ASK}, {"role": "assistant", "content": said},
        {"role": "user", "content": FOLLOW_UP}])
    extra = follow.model_extra or {}
    assert extra["standalone_question"] == "Where does Jonas Meier work?"
    assert extra["rewrite"] == {"method": "entities", "original": FOLLOW_UP, "resolved": {"he": "Jonas Meier"},
                                "note": ""}
    text = follow.choices[0].message.content or ""
    assert "Riga" in text and "jonas_meier.md" in text
    assert any(c["source"].endswith("jonas_meier.md") for c in extra["citations"])


def test_usage_reports_retrieval_counts_when_no_model_counts_tokens(offline: str) -> None:
    completion = _client(offline).chat.completions.create(model="kgrag", messages=[{"role": "user", "content": ASK}])
    usage = completion.usage
    assert usage is not None and usage.total_tokens == 0
    extra = usage.model_extra or {}
    assert extra["tokens_reported"] is False
    assert set(extra["candidates"]) == {"dense", "bm25"} and extra["candidates"]["dense"] > 0
    assert 0 < extra["passages_answered_from"] <= extra["passages"]
    stream = list(_client(offline).chat.completions.create(
        model="kgrag", stream=True, messages=[{"role": "user", "content": ASK}, {"role": "assistant", "content": "x"},
                                              {"role": "user", "content": "And Corvid Systems?"}]))
    last = stream[-1]
    assert (last.model_extra or {})["standalone_question"] == "Who leads Corvid Systems?"  # an elliptical follow-up
    assert last.usage is not None and (last.usage.model_extra or {})["tokens_reported"] is False


def test_salary_trap_is_refused_naming_what_is_missing(offline: str) -> None:
    completion = _client(offline).chat.completions.create(
        model="kgrag", messages=[{"role": "user", "content": "What is Jonas Meier's salary?"}])
    text = completion.choices[0].message.content or ""
    assert text == "The documents don't say. No passage gives a salary for Jonas Meier."
    assert (completion.model_extra or {})["citations"] == []


def test_with_an_answer_model_the_follow_up_is_rewritten_and_refusals_honoured(
        pg_server: str, embedder: Embedder, tmp_path: Path) -> None:
    def reply(system: str, prompt: str) -> str:
        if system == REWRITE_INSTRUCTION:
            return "Where does Jonas Meier work?"
        if "Who is Jonas Meier's manager?" in prompt:
            return "Not in the documents."
        return "Jonas Meier works in Riga [1]."

    with running_openai_standin(reply) as standin:
        answer = AnswerSettings(backend="openai", openai_model="stand-in", openai_base_url=standin.base_url,
                                max_retries=0)
        for url in _serve(_settings(pg_server, tmp_path, answer=answer), embedder, _wiki(tmp_path / "wiki")):
            client = _client(url)
            follow = client.chat.completions.create(model="kgrag", messages=[
                {"role": "user", "content": ASK}, {"role": "assistant", "content": "Jonas Meier leads it [1]."},
                {"role": "user", "content": FOLLOW_UP}])
            extra = follow.model_extra or {}
            assert extra["standalone_question"] == "Where does Jonas Meier work?"
            assert extra["rewrite"]["method"] == "llm"
            rewrite, answered = standin.requests[-2:]
            assert "user: Who leads Project Heron?" in rewrite.prompt and "user: Where does he work?" in rewrite.prompt
            assert answered.system == SYSTEM_INSTRUCTION and "Not in the documents." in answered.system
            assert "Question: Where does Jonas Meier work?" in answered.prompt
            assert (follow.choices[0].message.content or "").startswith("Jonas Meier works in Riga [1].")
            usage = follow.usage
            assert usage is not None and (usage.prompt_tokens, usage.completion_tokens, usage.total_tokens) == (
                10, 5, 15)  # the stand-in's own counts
            assert (usage.model_extra or {})["tokens_reported"] is True

            refused = client.chat.completions.create(
                model="kgrag", messages=[{"role": "user", "content": "Who is Jonas Meier's manager?"}])
            assert (refused.choices[0].message.content or "").startswith("The documents don't say.")
            assert (refused.model_extra or {})["citations"] == []

            before = len(standin.requests)
            trap = client.chat.completions.create(
                model="kgrag", messages=[{"role": "user", "content": "What is Jonas Meier's salary?"}])
            assert trap.choices[0].message.content == (
                "The documents don't say. No passage gives a salary for Jonas Meier.")
            assert len(standin.requests) == before  # the gate refused: the model was never asked
