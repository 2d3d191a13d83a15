"""Non-English text: a mixed English / Traditional Chinese document ingested and found by a Chinese question,
through the real API (Postgres, the packaged English-only embedder, BM25, the gate, spaCy sentences)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from kgrag.core.models import Embedder
from kgrag.core.settings import DatabaseSettings, Settings
from kgrag.retrieval.bm25 import index_text, tokenize
from kgrag.retrieval.gate import is_non_latin

from tests.conftest import EXAMPLES_DIR, create_database
from tests.test_api_support import api_settings, client_for, wait_for_artifacts

MIXED = """# Jade Harbor Tea Company

Jade Harbor Tea Company grows oolong tea on the slopes of Nantou County, Taiwan.
It was founded in 1987 by Lin Mei-hua and sells its tea in Europe and Japan.

翡翠港茶業公司在台灣南投縣的山坡上種植烏龍茶。公司由林美華於一九八七年創立，總部設在台中市。
每年春季，公司在鹿谷鄉舉辦製茶體驗活動，遊客可以親手揉捻茶葉。
"""
CHINESE_QUESTION = "翡翠港茶業公司的總部在哪裡？"
CHINESE_OUT_OF_CORPUS = "液態氮的沸點是多少？"


@pytest.fixture(scope="module")
def client(pg_server: str, embedder: Embedder, tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    """One app over examples/ plus the mixed document, shared by this module's tests (they only query)."""
    root = tmp_path_factory.mktemp("non-english")
    (root / "docs").mkdir()
    (root / "docs" / "jade_harbor_tea.md").write_text(MIXED, encoding="utf-8")

    def make_settings(**values: Any) -> Settings:
        return Settings(_env_file=None, home=root / "home", database=DatabaseSettings(url=create_database(pg_server)),
                        **values)

    with client_for(api_settings(make_settings), embedder) as c:
        report = c.app.state.resources.ingestor.ingest_paths([EXAMPLES_DIR, root / "docs"])
        assert not report.failed
        wait_for_artifacts(c)
        yield c


def test_a_chinese_question_finds_the_mixed_document_and_is_answered(client: TestClient) -> None:
    body = client.post("/v1/query", json={"question": CHINESE_QUESTION, "top_k": 3}).json()
    top = body["hits"][0]
    assert top["source"].endswith("jade_harbor_tea.md") and "bm25" in top["ranks"]
    assert "總部" in body["explanations"]["bm25"]["query_tokens"]  # CJK bigrams survive tokenisation
    gate = body["gate"]
    assert gate["verdict"] == "pass", gate  # was refused: English-only dense cosine 0.27 < 0.40
    assert [c["name"] for c in gate["checks"]] == ["lexical_coverage"]
    answer = body["answer"]
    assert answer["mode"] == "extractive" and "總部設在台中市" in answer["text"]
    assert body["citations"][0]["chunk_id"] == top["chunk_id"]


def test_bm25_alone_finds_it_and_an_unrelated_chinese_question_is_still_refused(client: TestClient) -> None:
    bm25 = client.post("/v1/query", json={"question": "烏龍茶", "signals": ["bm25"], "answer": False}).json()
    assert bm25["hits"] and bm25["hits"][0]["source"].endswith("jade_harbor_tea.md")
    refused = client.post("/v1/query", json={"question": CHINESE_OUT_OF_CORPUS}).json()
    assert refused["gate"]["verdict"] == "refuse" and "lexical coverage" in refused["gate"]["reason"]
    assert refused["answer"]["mode"] == "refused"
    english = client.post("/v1/query", json={"question": "Who founded Jade Harbor Tea Company?"}).json()
    assert english["gate"]["verdict"] == "pass"
    assert [c["name"] for c in english["gate"]["checks"]] == ["fused_score", "dense_similarity", "support"]


def test_question_and_document_tokenise_alike() -> None:
    question = set(tokenize(CHINESE_QUESTION))
    document = set(tokenize(index_text("Jade Harbor Tea Company", MIXED)))
    assert {"翡翠", "茶業", "公司", "總部"} <= question & document
    assert "哪裡" in question - document  # the question word matches nothing, as it should
    assert is_non_latin(CHINESE_QUESTION) and not is_non_latin("Where is Jade Harbor's 總部?")
