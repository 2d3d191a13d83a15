"""Markdown front matter becomes metadata, and `kgrag query/ask --filter key=value` narrows to it."""

from __future__ import annotations

from pathlib import Path

import pytest
from kgrag.api.cli import app
from kgrag.core.runtime import Runtime
from kgrag.ingest.loaders import load_bytes
from kgrag.ingest.pipeline import Ingestor
from typer.testing import CliRunner

TSMC = b"""---
ticker: "2330"
year: 2024
reported: 2024-04-18
title: TSMC first quarter
tags: [semiconductors, foundry]
---
# Quarterly report

Revenue rose 16.5 percent on demand for advanced chips used in artificial intelligence servers.
"""
UMC = b"""---
ticker: "2303"
year: 2024
---
# UMC quarterly report

Revenue rose 2 percent as mature-node foundry demand recovered slowly.
"""


def test_front_matter_becomes_metadata_and_leaves_the_text() -> None:
    doc = load_bytes(TSMC, source="tsmc.md", suffix=".md", default_title="tsmc")
    assert doc.metadata == {"ticker": "2330", "year": 2024, "reported": "2024-04-18", "title": "TSMC first quarter",
                            "tags": ["semiconductors", "foundry"]}
    assert doc.title == "TSMC first quarter"  # front matter's title wins over the first heading
    assert "ticker" not in doc.pages[0].text and doc.pages[0].text.startswith("# Quarterly report")

    plain = load_bytes(b"# Notes\n\nNo front matter here.\n", source="n.md", suffix=".md", default_title="n")
    assert plain.metadata == {} and plain.title == "Notes"


def test_broken_front_matter_keeps_the_file_and_says_so() -> None:
    doc = load_bytes(b"---\nticker: [unclosed\n---\n# Still here\n\nBody text.\n", source="b.md", suffix=".md",
                     default_title="b")
    assert "could not be parsed" in str(doc.metadata["front_matter_note"])
    assert "Body text." in doc.pages[0].text and doc.title == "Still here"


@pytest.fixture
def cli_env(runtime: Runtime, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    folder = tmp_path / "reports"
    folder.mkdir()
    (folder / "tsmc.md").write_bytes(TSMC)
    (folder / "umc.md").write_bytes(UMC)
    report = Ingestor.from_runtime(runtime).ingest_paths([folder])
    assert len(report.added) == 2
    monkeypatch.chdir(tmp_path)
    return {"KGRAG_HOME": str(runtime.settings.home), "KGRAG_DATABASE__URL": str(runtime.settings.database.url),
            "COLUMNS": "200"}


def test_query_and_ask_filter_on_front_matter(cli_env: dict[str, str]) -> None:
    runner = CliRunner()
    base = ["How much did revenue rise?", "--signals", "dense,bm25", "--no-rerank"]
    both = runner.invoke(app, ["query", *base], env=cli_env)
    assert both.exit_code == 0 and "tsmc.md" in both.output and "umc.md" in both.output, both.output

    only = runner.invoke(app, ["query", *base, "--filter", "ticker=2303"], env=cli_env)
    assert only.exit_code == 0, only.output
    assert "umc.md" in only.output and "tsmc.md" not in only.output

    numbers = runner.invoke(app, ["query", *base, "--filter", "year=2024", "--filter", "ticker=2330"], env=cli_env)
    assert "tsmc.md" in numbers.output and "umc.md" not in numbers.output, numbers.output
    nothing = runner.invoke(app, ["query", *base, "--filter", "ticker=9999"], env=cli_env)
    assert nothing.exit_code == 0 and "no passages found" in nothing.output

    asked = runner.invoke(app, ["ask", *base, "--filter", "ticker=2330"], env=cli_env)
    assert asked.exit_code == 0, asked.output
    assert "16.5 percent" in asked.output and "umc.md" not in asked.output


def test_a_filter_without_equals_is_refused_with_the_form() -> None:
    out = CliRunner().invoke(app, ["query", "anything", "--filter", "ticker"], env={"COLUMNS": "200"})
    assert out.exit_code == 2 and "key=value" in out.output
