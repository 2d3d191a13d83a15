"""The `kgrag` CLI end to end (Typer's runner, real embedded Postgres, real model)."""

from __future__ import annotations

import re
from pathlib import Path

import psycopg
import pytest
from kgrag.api.cli import app
from kgrag.core.settings import Settings
from typer.testing import CliRunner

from tests.conftest import EXAMPLES_DIR


@pytest.fixture
def cli_env(tmp_path: Path, fresh_database_url: str) -> dict[str, str]:
    return {"KGRAG_HOME": str(tmp_path / "home"), "KGRAG_DATABASE__URL": fresh_database_url, "COLUMNS": "200"}


def test_ingest_list_delete_round_trip(cli_env: dict[str, str], tmp_path: Path) -> None:
    runner = CliRunner()
    bad = tmp_path / "broken.pdf"
    bad.write_bytes(b"not a pdf at all")

    result = runner.invoke(app, ["ingest", str(EXAMPLES_DIR), str(bad)], env=cli_env)
    assert result.exit_code == 0, result.output
    n_examples = len(list(EXAMPLES_DIR.iterdir()))
    assert re.search(rf"│ added +│ {n_examples} +│", result.output), result.output
    assert "broken.pdf" in result.output and "not a readable PDF" in result.output

    again = runner.invoke(app, ["ingest", str(EXAMPLES_DIR)], env=cli_env)
    assert re.search(rf"│ unchanged \(skipped\) +│ {n_examples} +│", again.output), again.output

    listing = runner.invoke(app, ["documents", "list"], env=cli_env)
    assert listing.exit_code == 0 and "Northwind Dynamics" in listing.output

    deleted = runner.invoke(app, ["documents", "delete", "1"], env=cli_env)
    assert deleted.exit_code == 0 and "deleted document 1" in deleted.output
    missing = runner.invoke(app, ["documents", "delete", "1"], env=cli_env)
    assert missing.exit_code == 1
    assert "no document with id 1" in missing.output and "fix:" in missing.output


def test_bad_configuration_is_reported_with_the_setting_to_fix(cli_env: dict[str, str]) -> None:
    env = {**cli_env, "KGRAG_CHUNKING__OVERLAP": "500"}
    result = CliRunner().invoke(app, ["documents", "list"], env=env)
    assert result.exit_code == 2
    assert "chunking.overlap (500) must be smaller than chunking.size" in result.output


def test_doctor_reports_each_component(cli_env: dict[str, str]) -> None:
    result = CliRunner().invoke(app, ["doctor"], env={**cli_env, "COLUMNS": "400"})
    assert "ok  database: PostgreSQL 18" in result.output
    assert "pgvector 0.8" in result.output
    assert "ok  embedding model" in result.output
    assert "English-only" in result.output  # the default model, and how to set a multilingual one
    assert "KGRAG_EMBEDDING__MODEL=sentence-transformers/paraphrase-multilingual-MiniLM-L12-v2" in result.output
    assert "warn  graph file: no graph file at" in result.output and "kgrag graph build" in result.output
    assert "warn  reranker" in result.output and "KGRAG_RERANK__MODEL" in result.output  # no weights offline
    assert "ok  answers: offline extractive answerer" in result.output
    assert result.exit_code == 0  # warnings only: the pipeline runs without those stages and says so


def test_doctor_names_the_home_the_database_and_what_is_stored(cli_env: dict[str, str]) -> None:
    """A second data home (another folder, a missing KGRAG_HOME) used to pass as healthy and empty in silence."""
    runner, env = CliRunner(), {**cli_env, "COLUMNS": "400"}
    empty = runner.invoke(app, ["doctor"], env=env)
    assert empty.exit_code == 0, empty.output
    home = str(Path(cli_env["KGRAG_HOME"]).resolve())
    assert f"ok  data home: {home} (KGRAG_HOME)" in empty.output
    url = cli_env["KGRAG_DATABASE__URL"]
    database = next(line for line in empty.output.splitlines() if line.startswith("ok  database: PostgreSQL 18"))
    assert database.endswith(f"@{url.split('@')[-1]} (KGRAG_DATABASE__URL)"), database
    assert "warn  documents: the store is empty" in empty.output
    assert "fix: run `kgrag ingest PATH`" in empty.output and "KGRAG_HOME" in empty.output

    runner.invoke(app, ["ingest", str(EXAMPLES_DIR)], env=cli_env)
    full = runner.invoke(app, ["doctor"], env=env)
    n = len(list(EXAMPLES_DIR.iterdir()))
    assert re.search(rf"ok  documents: {n} documents \({n} indexed\), \d+ chunks", full.output), full.output
    assert "store is empty" not in full.output


def test_make_demo_uses_the_home_the_readme_commands_use() -> None:
    """`make demo` ingested into .kgrag/demo while the README's next commands read ./.kgrag: a second, empty store."""
    makefile = (EXAMPLES_DIR.parent / "Makefile").read_text(encoding="utf-8")
    assert not re.search(r"^\s*export\s+KGRAG_HOME", makefile, re.MULTILINE)
    demo = makefile.split("\ndemo:", 1)[1].split("\n\n", 1)[0]
    assert "KGRAG_HOME" not in demo  # the settings' default home, ./.kgrag, as `kgrag serve` and the README use
    assert str(Settings(_env_file=None).home) == ".kgrag"


def test_unreachable_database_names_the_fix(tmp_path: Path) -> None:
    env = {"KGRAG_HOME": str(tmp_path), "KGRAG_DATABASE__URL": "postgresql://nobody@127.0.0.1:1/none"}
    result = CliRunner().invoke(app, ["documents", "list"], env=env)
    assert result.exit_code == 1
    assert "cannot reach PostgreSQL" in result.output and "KGRAG_DATABASE__URL" in result.output


TERMINAL_ATTACK = "\x1b[2J\x1b]0;owned\x07\x9b31m\x85"
"""Clear the screen, set the window title, a C1 CSI and NEL: none may reach the terminal raw."""


def test_cli_never_prints_control_characters(cli_env: dict[str, str], tmp_path: Path) -> None:
    runner = CliRunner()
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "heading.md").write_text(f"# Evil{TERMINAL_ATTACK}Title\n\nLumen Robotics builds robots.\n")
    (folder / f"name{TERMINAL_ATTACK}.txt").write_text("Polar Cells makes batteries.\n")
    ingested = runner.invoke(app, ["ingest", str(folder)], env=cli_env)
    assert ingested.exit_code == 0, ingested.output
    # A row written before control characters were refused (or by another tool) is still printed safely.
    with psycopg.connect(cli_env["KGRAG_DATABASE__URL"], autocommit=True) as conn:
        stored = [r[0] for r in conn.execute("SELECT title || source FROM documents").fetchall()]
        assert len(stored) == 2 and "Evil[2J]0;owned31m Title" in "".join(stored)  # the heading's controls dropped
        assert "name\\x1b[2J" in "".join(stored)  # a file name's controls spelled out
        conn.execute("INSERT INTO documents (source, content_hash, ingest_key, title, mime_type, metadata)"
                     " VALUES (%s, 'x', 'x', %s, 'text/plain', '{}')", (f"legacy{TERMINAL_ATTACK}", TERMINAL_ATTACK))
    listing = runner.invoke(app, ["documents", "list"], env=cli_env)
    assert listing.exit_code == 0, listing.output
    for output in (ingested.output, listing.output):
        assert not any(ch in output for ch in "\x1b\x07\x9b\x85"), repr(output)
    assert "legacy" in listing.output and "\\x1b" in listing.output  # shown escaped, not executed


def _published(url: str) -> list[tuple[str, int]]:
    with psycopg.connect(url) as conn:
        return conn.execute("SELECT a.kind, a.corpus_version FROM kgrag_artifact_current c"
                            " JOIN kgrag_artifacts a ON a.id = c.artifact_id ORDER BY 1").fetchall()


def test_ingest_delete_and_index_build_publish_the_bm25_index_for_every_replica(cli_env: dict[str, str]) -> None:
    runner = CliRunner()
    url = cli_env["KGRAG_DATABASE__URL"]
    ingested = runner.invoke(app, ["ingest", str(EXAMPLES_DIR)], env=cli_env)
    assert ingested.exit_code == 0 and "BM25 index published at corpus version" in ingested.output
    ((kind, after_ingest),) = _published(url)
    assert kind == "bm25" and after_ingest > 0

    with psycopg.connect(url) as conn:
        first = conn.execute("SELECT min(id) FROM documents").fetchone()[0]
    assert runner.invoke(app, ["documents", "delete", str(first)], env=cli_env).exit_code == 0
    ((_, after_delete),) = _published(url)
    assert after_delete > after_ingest, "a delete republishes without the document's words"

    built = runner.invoke(app, ["index", "build", "--force"], env=cli_env)
    assert built.exit_code == 0 and f"corpus version {after_delete}" in built.output, built.output
    help_text = runner.invoke(app, ["index", "build", "--help"], env=cli_env).output
    assert "every replica" in help_text and "Example:" in help_text
