"""Metrics against hand-computed cases."""

from __future__ import annotations

import math

import pytest
from kgrag.eval.metrics import (
    dedupe,
    exact_match,
    hit_at,
    keyword_recall,
    mrr_at,
    ndcg_at,
    percentile,
    recall_at,
    retrieval_scores,
    token_f1,
)
from kgrag.eval.report import refusal_scores

RANKED = ["d3", "d1", "d7", "d2", "d9", "d4"]
RELEVANT = {"d1", "d2", "d8"}


def test_hit_at_k() -> None:
    assert hit_at(RANKED, RELEVANT, 1) == 0.0
    assert hit_at(RANKED, RELEVANT, 2) == 1.0
    assert hit_at(RANKED, set(), 5) == 0.0


def test_recall_at_k_counts_the_share_of_relevant_units_found() -> None:
    assert recall_at(RANKED, RELEVANT, 2) == pytest.approx(1 / 3)
    assert recall_at(RANKED, RELEVANT, 5) == pytest.approx(2 / 3)
    assert recall_at(RANKED, {"d3"}, 1) == 1.0


def test_mrr_uses_the_first_relevant_rank_within_the_cutoff() -> None:
    assert mrr_at(RANKED, RELEVANT, 10) == pytest.approx(1 / 2)
    assert mrr_at(RANKED, {"d4"}, 5) == 0.0
    assert mrr_at(RANKED, {"d4"}, 10) == pytest.approx(1 / 6)


def test_ndcg_matches_a_hand_computation() -> None:
    # relevant at ranks 2 and 4; three relevant in all → ideal has ranks 1, 2, 3
    dcg = 1 / math.log2(3) + 1 / math.log2(5)
    ideal = 1 / math.log2(2) + 1 / math.log2(3) + 1 / math.log2(4)
    assert ndcg_at(RANKED, RELEVANT, 10) == pytest.approx(dcg / ideal)
    assert ndcg_at(["d1", "d2", "d8"], RELEVANT, 10) == pytest.approx(1.0)
    assert ndcg_at(RANKED, set(), 10) == 0.0


def test_dedupe_keeps_the_best_rank_of_each_unit() -> None:
    assert dedupe(["a", "b", "a", "c", "b"]) == ["a", "b", "c"]


def test_keyword_recall_is_case_insensitive() -> None:
    text = "Founded by Ingrid HALVORSEN in Bergen."
    assert keyword_recall(text, ["halvorsen", "Bergen", "Oslo"]) == pytest.approx(2 / 3)
    assert keyword_recall("anything", []) == 0.0


def test_percentile_interpolates_like_numpy() -> None:
    values = [10.0, 20.0, 30.0, 40.0]
    assert percentile(values, 50) == pytest.approx(25.0)
    assert percentile(values, 95) == pytest.approx(38.5)
    assert percentile([], 50) == 0.0


def test_retrieval_scores_reports_every_metric() -> None:
    scores = retrieval_scores(RANKED, RELEVANT)
    assert set(scores) == {"hit@1", "hit@3", "hit@5", "recall@2", "recall@5", "recall@10", "mrr@10", "ndcg@10"}
    assert scores["recall@10"] == pytest.approx(2 / 3)


def test_short_answer_exact_match_and_f1_normalise_like_squad() -> None:
    assert exact_match("the Halvorsen Foundation", ["Halvorsen Foundation"]) == 1.0
    assert exact_match("Luleå.", ["Kiruna", "luleå"]) == 1.0
    assert exact_match("", ["x"]) == 0.0 and exact_match("Bergen", ["Tartu"]) == 0.0
    assert token_f1("the University of Lagos", ["Lagos"]) == pytest.approx(0.5)  # P 1/3 ("the" dropped), R 1
    assert token_f1("Oslo", ["Lagos"]) == 0.0


def test_refusal_precision_and_recall() -> None:
    # 3 should be refused (2 were), 4 answerable (1 was refused): precision 2/3, recall 2/3
    scores = refusal_scores([True, True, False], [False, True, False, False])
    assert scores["refusal_precision"] == pytest.approx(2 / 3) and scores["refusal_recall"] == pytest.approx(2 / 3)
    assert refusal_scores([False], [False]) == {"refusal_precision": 0.0, "refusal_recall": 0.0}
    assert refusal_scores([], [False])["refusal_recall"] is None
