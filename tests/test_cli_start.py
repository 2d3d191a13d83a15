"""A CLI that starts fast: what each command imports, checked in a fresh interpreter (issue 27, item 2).

`kgrag --help`, `documents list`, `doctor` and the error paths load no model and import neither torch nor
spaCy; `kgrag query` computes the default MiniLM in numpy, so it never imports torch either. Wall times
belong in bench/cli_start.py, not here.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from kgrag.core.runtime import Runtime

from tests.retrieval_corpus import PARAPHRASE_DOC, PARAPHRASE_QUERY, RARE_TERM_DOC, ingest, planted_loaded

HEAVY = ("torch", "sentence_transformers", "transformers", "spacy", "sklearn")

PROBE = """
import json, sys
from kgrag.api.cli import app
try:
    app(sys.argv[1:], prog_name="kgrag")
except SystemExit as exc:
    code = exc.code
else:
    code = 0
print("\\nPROBE " + json.dumps({"code": code, "heavy": [m for m in HEAVY_NAMES if m in sys.modules]}))
""".replace("HEAVY_NAMES", repr(HEAVY))


def _run(args: list[str], env: dict[str, str], cwd: Path) -> tuple[int, list[str], str]:
    out = subprocess.run([sys.executable, "-c", PROBE, *args], env={**os.environ, **env, "COLUMNS": "200"},
                         cwd=cwd, capture_output=True, text=True, timeout=300)
    line = [x for x in out.stdout.splitlines() if x.startswith("PROBE ")]
    assert line, out.stdout + out.stderr
    probe = json.loads(line[-1][6:])
    return probe["code"], probe["heavy"], out.stdout + out.stderr


@pytest.fixture
def env(runtime: Runtime, tmp_path: Path) -> dict[str, str]:
    ingest(runtime, planted_loaded([PARAPHRASE_DOC, RARE_TERM_DOC]))
    return {"KGRAG_HOME": str(runtime.settings.home), "KGRAG_DATABASE__URL": str(runtime.settings.database.url),
            "HF_HUB_OFFLINE": "1"}


def test_listing_doctor_and_error_paths_import_no_model_library(env: dict[str, str], tmp_path: Path) -> None:
    for args, code in ((["--help"], 0), (["documents", "list"], 0), (["doctor"], 0),
                       (["ingest", str(tmp_path / "nonexistent")], 1)):
        got, heavy, out = _run(args, env, tmp_path)
        assert got == code, out
        assert heavy == [], (args, heavy)


def test_the_empty_store_error_on_a_new_home_loads_no_model(tmp_path: Path) -> None:
    """A new embedded home is created (schema and all) from the model's config, not from a loaded model."""
    got, heavy, out = _run(["query", "who founded Northwind?"], {"KGRAG_HOME": str(tmp_path / "new")}, tmp_path)
    assert got == 3 and "the store is empty" in out, out
    assert "torch" not in heavy and "sentence_transformers" not in heavy, heavy


def test_a_query_computes_the_embedding_without_torch(env: dict[str, str], tmp_path: Path) -> None:
    got, heavy, out = _run(["query", PARAPHRASE_QUERY, "--top-k", "1"], env, tmp_path)
    assert got == 0, out
    assert PARAPHRASE_DOC[1] in out  # the dense match, found with the numpy encoder's query vector
    assert not {"torch", "sentence_transformers", "transformers"} & set(heavy), heavy
    # KGRAG_EMBEDDING__BACKEND=torch keeps the sentence-transformers path
    got, heavy, out = _run(["query", PARAPHRASE_QUERY, "--top-k", "1"],
                           {**env, "KGRAG_EMBEDDING__BACKEND": "torch"}, tmp_path)
    assert got == 0 and PARAPHRASE_DOC[1] in out, out
    assert "torch" in heavy
