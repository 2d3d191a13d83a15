"""`kgrag ask` end to end: the README demo's last step (ingest → graph build → a cited answer)."""

from __future__ import annotations

import re
from pathlib import Path

from kgrag.api.cli import app
from typer.testing import CliRunner

from tests.conftest import EXAMPLES_DIR


def test_ask_answers_with_resolved_citations_and_refuses_what_the_corpus_lacks(
    tmp_path: Path, fresh_database_url: str
) -> None:
    env = {"KGRAG_HOME": str(tmp_path / "home"), "KGRAG_DATABASE__URL": fresh_database_url, "COLUMNS": "200"}
    runner = CliRunner()
    assert runner.invoke(app, ["ingest", str(EXAMPLES_DIR)], env=env).exit_code == 0
    built = runner.invoke(app, ["graph", "build"], env=env)
    assert built.exit_code == 0, built.output
    # Issue 46: the first build read "incremental, delta 0, processed 12"; it extracted every chunk.
    assert "whole (every chunk)" in built.output and "incremental" not in built.output
    assert "chunks in the delta" not in built.output
    again = runner.invoke(app, ["graph", "build"], env=env)
    assert again.exit_code == 0, again.output
    assert "up to date (nothing new)" in again.output and "graph up to date" in again.output

    answered = runner.invoke(app, ["ask", "Which shipyard built the Kelpie research vessel?"], env=env)
    assert answered.exit_code == 0, answered.output
    assert "Aalto Shipyards" in answered.output
    cited = set(re.findall(r"\[(\d+)\]", re.split(r"\n\(\w+ answer, ", answered.output)[0]))
    assert cited, answered.output
    for n in cited:  # every [n] in the answer is listed with its source
        # each example is one chunk: the first of its document, not the chunk's database id ("chunk 26")
        assert re.search(rf"^\[{n}\] .+ — .+examples/.+ \(chunk 1\)$", answered.output, re.MULTILINE)
    assert sorted(int(n) for n in cited) == list(range(1, len(cited) + 1))  # numbers never skip
    assert "(extractive answer: " in answered.output and "extractive answer, extractive" not in answered.output
    assert "note: rerank is off" in answered.output  # no reranker weights offline: said once, not hidden

    two_hop = runner.invoke(app, ["ask", "Who founded the company that acquired Lumen Robotics?"], env=env)
    assert two_hop.exit_code == 0, two_hop.output
    answer = re.split(r"\n\(\w+ answer, ", two_hop.output)[0]  # the offline answer reaches the second hop's founders
    assert "Ingrid Halvorsen" in answer and "Tomas Berg" in answer, two_hop.output

    refused = runner.invoke(app, ["ask", "What is the boiling point of liquid nitrogen?"], env=env)
    assert refused.exit_code == 0
    assert "The documents don't say." in refused.output and "[1]" not in refused.output

    trap = runner.invoke(app, ["ask", "What is Marta Kask's salary?"], env=env)  # near the corpus, not in it
    assert "The documents don't say. No passage gives a salary for Marta Kask." in trap.output, trap.output

    # issue 42's table: the README's own example and its neighbours, each answered by the sentence that states it
    # or refused naming what is missing, never with a nearby entity of the asked type
    rows = (("Which shipyard built the Kelpie?", "Aalto Shipyards. [", "Halvorsen Foundation. ["),
            ("Who founded Lumen Robotics?", "Marta Kask. [", "Tallinn University of Technology. ["))
    for question, right, wrong in rows:
        said = runner.invoke(app, ["ask", question], env=env)
        first = said.output.split("\n\n")[0]
        assert said.exit_code == 0 and right in first and wrong not in first, said.output
    refusals = (("Where was Ingrid Halvorsen born?", "where Ingrid Halvorsen was born", "Trondheim"),
                ("When was Samuel Okafor born?", "when Samuel Okafor was born", "2016"))
    for question, missing, nearby in refusals:
        said = runner.invoke(app, ["ask", question], env=env)
        assert f"The documents don't say. No passage says {missing}" in said.output, said.output
        assert f"{nearby}. [" not in said.output

    follow = runner.invoke(app, ["ask", "Where was she born?", "--previous", "Who founded Lumen Robotics?"], env=env)
    assert follow.exit_code == 0, follow.output
    assert "standalone question (resolved from the earlier turns): Where was Marta Kask born?" in follow.output
    assert follow.output.lstrip().startswith("standalone question") and "Tartu" in follow.output
    assert "(extractive answer: no answer model is configured" in follow.output  # the mode: one line, not the text

def test_a_generative_backend_without_its_key_fails_before_retrieval(tmp_path: Path, fresh_database_url: str) -> None:
    """It used to fail only after retrieval (18-26 s on a newcomer's machine); here the store is even empty, and
    the configuration error still comes first, with its fix."""
    env: dict[str, str | None] = {
        "KGRAG_HOME": str(tmp_path / "home"), "KGRAG_DATABASE__URL": fresh_database_url, "COLUMNS": "200",
        "GEMINI_API_KEY": None, "GOOGLE_API_KEY": None, "OPENAI_API_KEY": None, "OPENAI_BASE_URL": None,
    }
    gemini = CliRunner().invoke(app, ["ask", "Who founded Northwind?"], env={**env, "KGRAG_ANSWER__BACKEND": "gemini"})
    assert gemini.exit_code == 1, gemini.output
    assert "no Gemini credentials are configured" in gemini.output and "fix: set GEMINI_API_KEY" in gemini.output
    assert "store is empty" not in gemini.output  # retrieval never ran
    openai = CliRunner().invoke(app, ["ask", "Who founded Northwind?"],
                                env={**env, "KGRAG_ANSWER__OPENAI_MODEL": "gpt-4o"})
    flat = " ".join(openai.output.split())
    assert openai.exit_code == 1, openai.output
    assert "no API key is set" in flat and "KGRAG_ANSWER__OPENAI_BASE_URL" in flat and "store is empty" not in flat
