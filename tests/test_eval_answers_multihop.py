"""`kgrag eval run --answers` on a multi-hop (2Wiki-format) set: keyword recall is measured on the answers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from kgrag.core.models import Embedder
from kgrag.core.runtime import Runtime
from kgrag.core.settings import DatabaseSettings, Settings
from kgrag.eval.datasets import load_dataset
from kgrag.eval.report import aggregate
from kgrag.eval.runner import run_eval

from tests.conftest import create_database

PASSAGES = [
    {"title": "Lumen Robotics", "text": "Lumen Robotics was a start-up based in Tallinn, Estonia. Lumen Robotics "
                                        "was bought by Northwind Dynamics in 2019."},
    {"title": "Northwind Dynamics", "text": "Northwind Dynamics is a Norwegian maker of inspection drones. The "
                                            "company was founded in 1998 in Bergen by Ingrid Halvorsen."},
    {"title": "Polar Cells", "text": "Polar Cells is a Swedish maker of batteries, headquartered in Luleå."},
    {"title": "Kelpie", "text": "The Kelpie is a research vessel built in 2017 by Aalto Shipyards in Turku."},
]
QUERIES = [
    {"id": "m1", "question": "Who founded the company that acquired Lumen Robotics?", "answers": ["Ingrid Halvorsen"],
     "type": "compositional", "gold_passage_idx": [0, 1]},
    {"id": "m2", "question": "Where is Polar Cells headquartered?", "answers": ["Luleå"], "type": "inference",
     "gold_passage_idx": [2]},
    {"id": "m3", "question": "Is the Kelpie a research vessel?", "answers": ["yes"], "type": "comparison",
     "gold_passage_idx": [3]},
]


@pytest.fixture
def multihop(tmp_path: Path) -> Path:
    folder = tmp_path / "tinywiki"
    folder.mkdir()
    (folder / "corpus.json").write_text(json.dumps(PASSAGES), encoding="utf-8")
    (folder / "queries.jsonl").write_text("".join(json.dumps(q) + "\n" for q in QUERIES), encoding="utf-8")
    return folder


def test_answers_on_a_multihop_set_record_answer_keyword_recall(multihop: Path, pg_server: str, embedder: Embedder,
                                                                tmp_path: Path) -> None:
    settings = Settings(_env_file=None, home=tmp_path / "home",
                        database=DatabaseSettings(url=create_database(pg_server)))
    dataset = load_dataset(multihop)
    with Runtime(settings, embedder=embedder) as rt:
        results = run_eval(rt, dataset, ablate=False, answers=True)
    assert results["stamp"]["models"]["answerer"] == "ExtractiveAnswerer"
    (run,) = results["runs"]
    rows = {r["id"]: r for r in run["questions"]}
    assert all("refused" in r for r in rows.values())
    assert "keyword_recall" not in rows["m3"]  # yes/no answers have no keyword
    assert rows["m1"]["keyword_recall"] == 1.0 and rows["m2"]["keyword_recall"] == 1.0
    assert aggregate(run, results["qrels"])["keyword_recall"] == 1.0
