"""`kgrag query` end to end: a real store, the packaged embedder, and no reranker weights offline."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from api.cli import app
from core.runtime import Runtime
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
    assert "warning: rerank skipped: reranker model cross-encoder/ms-marco-MiniLM-L6-v2 could not be loaded" in out
    assert "or pass --no-rerank" in out
    assert "warning: graph skipped" in out  # no graph built in this store
    for stage in ("dense.embed", "dense.search", "bm25.search", "fusion", "rerank", "total"):
        assert stage in out, stage


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
