"""`kgrag query` end to end: a real store, the packaged embedder, and no reranker weights offline."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from kgrag.api.cli import app
from kgrag.api.cli.questions import EMPTY_STORE_EXIT
from kgrag.core.runtime import Runtime
from kgrag.retrieval.rerank import reranker_fix
from typer.testing import CliRunner

from tests.kg_fixtures import build, ingest_folder, nlp_fixture  # noqa: F401  (the `nlp` fixture)
from tests.retrieval_corpus import PARAPHRASE_DOC, PARAPHRASE_QUERY, RARE_TERM_DOC, ingest, planted_loaded

BYSTANDERS = [("planted/tides", "Tides", "Tides follow the moon."),
              ("planted/bread", "Bread", "Yeast makes bread rise in a warm kitchen."),
              ("planted/rust", "Rust", "Iron oxidises in damp air.")]


@pytest.fixture
def cli_env(runtime: Runtime, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    ingest(runtime, planted_loaded([PARAPHRASE_DOC, RARE_TERM_DOC, *BYSTANDERS]))
    monkeypatch.chdir(tmp_path)  # no stray .env from the working directory
    return {"KGRAG_HOME": str(runtime.settings.home), "KGRAG_DATABASE__URL": str(runtime.settings.database.url),
            "KGRAG_RERANK__MODEL": "cross-encoder/ms-marco-MiniLM-L6-v2", "HF_HUB_OFFLINE": "1"}


def test_query_prints_passages_explanations_and_warnings(cli_env: dict[str, str]) -> None:
    result = CliRunner().invoke(app, ["query", PARAPHRASE_QUERY, "--explain", "--top-k", "2"], env=cli_env)
    assert result.exit_code == 0, result.output
    out = " ".join(result.output.split())  # rich wraps at the test terminal's width
    assert f"1. {PARAPHRASE_DOC[1]}" in out and PARAPHRASE_DOC[0] in out
    assert "2. " in out and "3. " not in out
    assert "dense #1" in out and "fused 0.0" in out
    # No weights offline: one short note line (not a warning block, not the fix: `kgrag doctor` gives that).
    notes = [line for line in result.output.splitlines() if line.startswith("note: rerank")]
    assert notes == [RERANK_NOTE], result.output
    assert "warning: rerank" not in out
    assert "warning: graph skipped" in out  # no graph built in this store
    for stage in ("dense.load", "dense.embed", "dense.search", "bm25.search", "fusion", "rerank", "total"):
        assert stage in out, stage


RERANK_NOTE = ("note: rerank is off: its model cannot load here (`kgrag doctor` says why and how to fix it); said once "
               "per data home")


def test_the_rerank_note_is_said_once_per_data_home(cli_env: dict[str, str], tmp_path: Path) -> None:
    """Issue 46: every `kgrag query` and `ask` printed a 430-character rerank note, twice in `make demo`. The first
    run in a home says it in one short line, later runs in that home say nothing, `kgrag doctor` says it every time
    with the fix; another home is told again."""
    runner = CliRunner()
    first = runner.invoke(app, ["query", PARAPHRASE_QUERY], env=cli_env)
    assert first.exit_code == 0, first.output
    assert [line for line in first.output.splitlines() if "rerank" in line] == [RERANK_NOTE]
    assert len(RERANK_NOTE) <= 120
    for command in (["query", PARAPHRASE_QUERY], ["ask", PARAPHRASE_QUERY], ["query", "tides and the moon"]):
        again = runner.invoke(app, command, env=cli_env)
        assert again.exit_code == 0, again.output
        assert "rerank" not in again.output and "note:" not in again.output, (command, again.output)
    doctor = runner.invoke(app, ["doctor"], env={**cli_env, "COLUMNS": "400"})
    assert reranker_fix("cross-encoder/ms-marco-MiniLM-L6-v2") in " ".join(doctor.output.split())
    # Another data home on the same database has not been told yet.
    other = runner.invoke(app, ["query", PARAPHRASE_QUERY], env={**cli_env, "KGRAG_HOME": str(tmp_path / "other")})
    assert other.exit_code == 0, other.output
    assert RERANK_NOTE in other.output.splitlines()


def _ms(out: str, stage: str) -> float:
    match = re.search(rf"│ {re.escape(stage)} +│[^│]*│ +([\d.]+) │", out)
    assert match, (stage, out)
    return float(match.group(1))


def test_explain_reports_the_models_cold_load_apart_from_the_query(cli_env: dict[str, str]) -> None:
    """Each CLI run loads the embedding model afresh: that second or more is not the query's embed time."""
    result = CliRunner().invoke(app, ["query", PARAPHRASE_QUERY, "--explain", "--signals", "dense", "--no-rerank"],
                                env={**cli_env, "COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    load, embed = _ms(result.output, "dense.load"), _ms(result.output, "dense.embed")
    # the model load is in dense.load, not dense.embed: with modules already imported and a warm page
    # cache the load is 80-150 ms and one embed 15-35 ms, so no absolute floor, only the order
    assert embed < load, result.output
    line = re.search(r"query time ([\d.]+) ms; model and index loading ([\d.]+) ms", result.output)
    assert line, result.output
    assert float(line.group(2)) >= load - 0.1 and float(line.group(1)) < _ms(result.output, "total") - load + 0.2


def test_empty_store_says_so_and_exits_non_zero(tmp_path: Path, fresh_database_url: str) -> None:
    env = {"KGRAG_HOME": str(tmp_path / "home"), "KGRAG_DATABASE__URL": fresh_database_url, "COLUMNS": "200"}
    for command in ("query", "ask"):
        result = CliRunner().invoke(app, [command, "who founded Northwind?", "--no-rerank"], env=env)
        out = " ".join(result.output.split())
        assert result.exit_code == EMPTY_STORE_EXIT, (command, result.output)
        assert "the store is empty" in out and "run `kgrag ingest PATH`" in out, command
        assert f"data home {(tmp_path / 'home').resolve()}" in out and "KGRAG_HOME" in out  # which store it read
        assert "try other words" not in out and "The documents don't say" not in out, command


def test_query_with_selected_signals_and_no_rerank(cli_env: dict[str, str]) -> None:
    result = CliRunner().invoke(app, ["query", "VXQ-88217", "--signals", "bm25", "--no-rerank"], env=cli_env)
    assert result.exit_code == 0, result.output
    out = " ".join(result.output.split())
    assert f"1. {RARE_TERM_DOC[1]}" in out and "2. " not in out
    assert "warning: rerank skipped: reranking turned off for this query (--no-rerank)" in out
    assert "graph skipped" not in out and "dense #" not in out


def test_query_rejects_unknown_signals(cli_env: dict[str, str]) -> None:
    result = CliRunner().invoke(app, ["query", "anything", "--signals", "dense,sparse"], env=cli_env)
    assert result.exit_code == 2
    assert "dense,bm25,graph" in " ".join(result.output.split())


def test_query_help_has_an_example() -> None:
    result = CliRunner().invoke(app, ["query", "--help"])
    assert result.exit_code == 0
    assert "Example:" in result.output and "--no-rerank" in result.output


def test_a_stale_graph_prints_a_warning_line(runtime: Runtime, nlp: Any, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """Staleness used to be visible only inside --explain's JSON; answers from an old graph need a warning."""
    ingest_folder(runtime)
    build(runtime, nlp)
    env = {"KGRAG_HOME": str(runtime.settings.home), "KGRAG_DATABASE__URL": str(runtime.settings.database.url),
           "COLUMNS": "200"}
    monkeypatch.chdir(tmp_path)
    question = ["query", "Which school trained the founder of Harlow Biotech?", "--signals", "graph", "--no-rerank"]
    fresh = CliRunner().invoke(app, question, env=env)
    assert fresh.exit_code == 0 and "stale" not in fresh.output, fresh.output

    ingest(runtime, planted_loaded([BYSTANDERS[0]]))  # the corpus moves on; the graph file does not
    stale = CliRunner().invoke(app, question, env=env)
    assert stale.exit_code == 0, stale.output
    out = " ".join(stale.output.split())
    assert "warning: graph ran on a stale graph: graph is stale (built at corpus version" in out
    assert "run `kgrag graph build`" in out
