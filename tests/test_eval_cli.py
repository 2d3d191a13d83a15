"""`kgrag eval run` as a new user runs it: where results go, progress in a pipe, a bad file, the stamp's path."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
from kgrag.api.cli import app
from kgrag.api.cli.common import LineProgress
from kgrag.api.cli.eval import stamp_path
from kgrag.eval.datasets import load_dataset
from typer.testing import CliRunner

from tests.conftest import REPO_ROOT

DOCS = {
    "harbour.md": "# Port Halden harbour\n\nThe harbour master of Port Halden is Edith Calloway.\n",
    "ferry.md": "# Vormsi ferry\n\nThe Vormsi ferry leaves Rohukula at dawn and returns at dusk.\n",
    "empty.txt": "",
}
GOLDEN = {"name": "tiny", "corpus": "corpus", "questions": [
    {"id": "q1", "question": "Who is the harbour master of Port Halden?", "relevant": ["harbour.md"],
     "keywords": ["Edith Calloway"]},
    {"id": "q2", "question": "When does the Vormsi ferry leave?", "relevant": ["ferry.md"], "keywords": ["dawn"]},
]}


def _golden(folder: Path) -> Path:
    (folder / "corpus").mkdir(parents=True)
    for name, text in DOCS.items():
        (folder / "corpus" / name).write_text(text)
    path = folder / "tiny.json"
    path.write_text(json.dumps(GOLDEN))
    return path


def _committed_results() -> str:
    return subprocess.run(["git", "status", "--porcelain", "--", "eval/results"], cwd=REPO_ROOT,
                          capture_output=True, text=True, check=True).stdout


def test_eval_run_without_o_writes_under_the_data_home_and_survives_an_empty_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _golden(tmp_path / "sets")
    home = tmp_path / "home"
    monkeypatch.chdir(tmp_path)
    before = _committed_results()
    result = CliRunner().invoke(app, ["eval", "run", "--dataset", "sets/tiny.json"],
                                env={"KGRAG_HOME": str(home), "COLUMNS": "250"})
    assert result.exit_code == 0, result.output

    written = home.resolve() / "eval" / "results" / "tiny.json"
    assert f"results: {written}" in " ".join(result.output.split())
    assert not (REPO_ROOT / "eval" / "results" / "tiny.json").exists() and _committed_results() == before

    # Not a terminal: plain progress lines, so a long run in a pipe or CI log is visibly alive.
    assert re.search(r"^ingesting corpus: 2/2 \(100%\)", result.output, re.MULTILINE), result.output
    assert re.search(r"^asking \(dense\+bm25\+graph\): 2/2 \(100%\)", result.output, re.MULTILINE)

    stamp = json.loads(written.read_text())["stamp"]
    [skipped] = stamp["corpus"]["skipped"]
    assert skipped["source"] == "tiny:empty.txt" and "is empty" in skipped["reason"]
    assert "skipped: tiny:empty.txt" in result.output
    assert stamp["dataset"]["path"] == str((tmp_path / "sets" / "tiny.json").resolve())  # not ../../tmp/…
    assert stamp["corpus"]["documents"] == 2


def test_stamp_path_is_as_given_from_the_repo_root_else_absolute(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO_ROOT)
    assert stamp_path(Path("../shared/data/scifact")) == "../shared/data/scifact"  # what `make eval` passes
    assert stamp_path(Path("eval/golden/examples.json")) == "eval/golden/examples.json"
    assert stamp_path(tmp_path / "x.json") == str(tmp_path / "x.json")
    monkeypatch.chdir(tmp_path)
    assert stamp_path(Path("x.json")) == str(tmp_path / "x.json")


def test_an_empty_unit_in_a_beir_set_is_skipped_and_recorded(tmp_path: Path) -> None:
    (tmp_path / "qrels").mkdir()
    (tmp_path / "corpus.jsonl").write_text(
        json.dumps({"_id": "a", "title": "A", "text": "Kelp grows fast."}) + "\n"
        + json.dumps({"_id": "b", "title": "", "text": "   "}) + "\n")
    (tmp_path / "queries.jsonl").write_text(json.dumps({"_id": "q", "text": "kelp?"}) + "\n")
    (tmp_path / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq\ta\t1\n")
    ds = load_dataset(tmp_path)
    assert [d.source for d in ds.documents()] == [f"{tmp_path.name}:a"]
    assert [u.source for u in ds.skipped] == [f"{tmp_path.name}:b"]


def test_line_progress_says_each_tenth_once(capsys: pytest.CaptureFixture[str]) -> None:
    with LineProgress(interval_s=3600) as progress:
        task = progress.add_task("asking", total=50)
        for _ in range(50):
            progress.advance(task)
    lines = [line for line in capsys.readouterr().err.splitlines() if line.startswith("asking:")]
    # The first step (it has started), then each tenth: ten lines for fifty steps, not fifty.
    assert [line.split(" (")[0] for line in lines] == ["asking: 1/50"] + [f"asking: {n}/50" for n in range(5, 51, 5)]
