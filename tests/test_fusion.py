"""Reciprocal rank fusion: the arithmetic, worked by hand, and its ordering rules."""

from __future__ import annotations

import pytest
from kgrag.core.settings import GraphSettings
from kgrag.core.types import Hit
from kgrag.kg.linking import LinkedEntity
from kgrag.retrieval.base import RetrievalResult, StageStatus
from kgrag.retrieval.fusion import FusedHit, agreed, keep_dense_evidence, keep_sure, lead_with, reciprocal_rank_fusion
from kgrag.retrieval.graph import lead_tiers, strong_tiers, tiers_in_hits
from kgrag.retrieval.pipeline import leading_tiers


def _hits(signal: str, *chunk_ids: int) -> list[Hit]:
    return [Hit(chunk_id=c, signal=signal, rank=i, score=10.0 - i) for i, c in enumerate(chunk_ids, 1)]


def test_two_lists_hand_computed() -> None:
    # dense: 1, 2, 3   bm25: 3, 4, 1   (k = 60)
    fused = reciprocal_rank_fusion({"dense": _hits("dense", 1, 2, 3), "bm25": _hits("bm25", 3, 4, 1)}, k=60)
    scores = {h.chunk_id: h.score for h in fused}
    assert scores[1] == pytest.approx(1 / 61 + 1 / 63)  # 0.032266
    assert scores[3] == pytest.approx(1 / 63 + 1 / 61)  # same value, chunk 1 wins the tie by id
    assert scores[2] == pytest.approx(1 / 62)  # 0.016129
    assert scores[4] == pytest.approx(1 / 62)
    assert [h.chunk_id for h in fused] == [1, 3, 2, 4]
    assert scores[1] == scores[3]  # bit-identical: the tie is a real tie


def test_small_k_hand_computed() -> None:
    fused = reciprocal_rank_fusion({"a": _hits("a", 7, 8), "b": _hits("b", 8)}, k=1)
    assert [(h.chunk_id, h.score) for h in fused] == [(8, pytest.approx(1 / 3 + 1 / 2)), (7, pytest.approx(0.5))]


def test_chunk_in_both_lists_beats_chunks_first_in_one() -> None:
    # 9 is second in both lists; 1 and 5 are each first in one: 2/62 = 0.03226 > 1/61 = 0.01639
    fused = reciprocal_rank_fusion({"dense": _hits("dense", 1, 9), "bm25": _hits("bm25", 5, 9)})
    assert fused[0].chunk_id == 9
    assert fused[0].score == pytest.approx(2 / 62)
    assert fused[0].ranks == {"dense": 2, "bm25": 2}


def test_weights_scale_each_signal() -> None:
    lists = {"dense": _hits("dense", 1, 2), "bm25": _hits("bm25", 2, 1)}
    fused = reciprocal_rank_fusion(lists, k=60, weights={"bm25": 2.0})
    scores = {h.chunk_id: h.score for h in fused}
    assert scores[2] == pytest.approx(1 / 62 + 2 / 61)
    assert scores[1] == pytest.approx(1 / 61 + 2 / 62)
    assert [h.chunk_id for h in fused] == [2, 1]
    only_dense = reciprocal_rank_fusion(lists, weights={"bm25": 0.0})
    assert [h.chunk_id for h in only_dense] == [1, 2]


def test_tie_breaks_by_best_rank_then_chunk_id() -> None:
    lists = {
        "a": [Hit(10, "a", 1, 1.0), Hit(20, "a", 2, 1.0)],
        "b": [Hit(20, "b", 1, 1.0), Hit(10, "b", 2, 1.0)],
    }
    fused = reciprocal_rank_fusion(lists)
    assert fused[0].score == fused[1].score
    assert [h.chunk_id for h in fused] == [10, 20]  # same best rank (1): lower id first
    # k=1: chunk 5 at rank 3 with weight 2 → 2/4 = 0.5; chunk 9 at rank 1 → 1/2 = 0.5 (exact in binary).
    # Equal scores, so the better best rank wins over the lower id.
    fused3 = reciprocal_rank_fusion({"a": [Hit(5, "a", 3, 0.0)], "b": [Hit(9, "b", 1, 0.0)]}, k=1,
                                    weights={"a": 2.0})
    assert fused3[0].score == fused3[1].score == 0.5
    assert [h.chunk_id for h in fused3] == [9, 5]


def test_fused_hits_keep_per_signal_ranks_and_scores() -> None:
    fused = reciprocal_rank_fusion({"dense": [Hit(3, "dense", 2, 0.81)], "bm25": [Hit(3, "bm25", 5, 12.5)],
                                    "graph": []})
    (hit,) = fused
    assert hit == FusedHit(3, pytest.approx(1 / 62 + 1 / 65), {"dense": 2, "bm25": 5},
                           {"dense": 0.81, "bm25": 12.5})
    assert hit.best_rank == 2
    with pytest.raises(AttributeError):
        hit.score = 1.0  # type: ignore[misc]


def test_any_number_of_lists_and_duplicates_count_once() -> None:
    lists = {s: _hits(s, 1, 2) for s in ("a", "b", "c", "d")}
    lists["a"] = [*lists["a"], Hit(1, "a", 3, 0.0)]  # a repeat of chunk 1 at a worse rank is ignored
    fused = reciprocal_rank_fusion(lists, k=10)
    assert fused[0].chunk_id == 1 and fused[0].score == pytest.approx(4 / 11)
    assert fused[0].ranks["a"] == 1
    assert fused[1].score == pytest.approx(4 / 12)


def test_empty_and_invalid_inputs() -> None:
    assert reciprocal_rank_fusion({}) == []
    assert reciprocal_rank_fusion({"dense": []}) == []
    with pytest.raises(ValueError, match="k must be"):
        reciprocal_rank_fusion({"a": _hits("a", 1)}, k=0)
    with pytest.raises(ValueError, match="negative"):
        reciprocal_rank_fusion({"a": _hits("a", 1)}, weights={"a": -1.0})


def test_order_does_not_depend_on_list_order() -> None:
    a, b, c = _hits("a", 1, 2, 3, 4), _hits("b", 4, 3, 2, 1), _hits("c", 2, 4, 1, 3)
    first = reciprocal_rank_fusion({"a": a, "b": b, "c": c})
    second = reciprocal_rank_fusion({"c": c, "a": a, "b": b})
    assert [(h.chunk_id, h.score) for h in first] == [(h.chunk_id, h.score) for h in second]


def test_a_leading_list_picks_the_head_and_fusion_orders_it() -> None:
    """Dense and BM25 agree on 7 (a namesake); the graph, sure of its chain, holds 3 and 5 at ranks 2 and 3."""
    lists = {"dense": _hits("dense", 7, 3, 8, 9, 10), "bm25": _hits("bm25", 7, 8, 9, 10, 11),
             "graph": _hits("graph", 3, 5, 7)}
    fused = reciprocal_rank_fusion(lists)
    assert [h.chunk_id for h in fused][:5] == [7, 3, 8, 9, 10]  # 5, the second hop, falls out of the top 5
    led = lead_with(fused, [lists["graph"][:3]])
    assert [h.chunk_id for h in led][:5] == [7, 3, 5, 8, 9]  # the graph's three first, in fused order
    assert sorted(h.chunk_id for h in led) == sorted(h.chunk_id for h in fused)  # nothing lost or added
    tiered = lead_with(fused, [lists["graph"][:2], lists["graph"][:3]])
    assert [h.chunk_id for h in tiered][:4] == [3, 5, 7, 8]  # the graph's first two, then its third
    assert lead_with(fused, []) == fused


def test_the_graph_leads_alone_only_when_the_question_names_a_document_precisely() -> None:
    settings = GraphSettings(lead_confidence=0.25, lead_tiers=[2, 5], lead_shared_top=2)
    rare_title = LinkedEntity(0, "Lothair II", "lothair ii", "title", 1.0, specificity=1.0)
    common_title = LinkedEntity(1, "Anxiety", "anxiety", "title", 1.0, specificity=0.4)  # 0.16 < 0.25
    vague_title = LinkedEntity(1, "Anxiety", "anxiety", "title", 1.0, specificity=0.3)  # 0.09: an entity link
    entity = LinkedEntity(2, "Lothair", "lothair", "ner", 1.0)
    assert lead_tiers([rare_title, entity], settings) == ((2, 5), 0)
    assert lead_tiers([common_title, entity], settings) == ((2, 5), 2)  # leads, sharing its first tier
    assert lead_tiers([common_title], settings.model_copy(update={"lead_shared_top": 0})) == ((), 0)
    assert lead_tiers([vague_title, entity], settings) == ((), 0)
    assert lead_tiers([entity], settings) == ((), 0)
    assert lead_tiers([rare_title], GraphSettings(lead_confidence=0.25, lead_tiers=[])) == ((), 0)


def test_a_leader_that_is_not_sure_shares_its_first_tier_with_what_the_others_agree_on() -> None:
    """The examples' "Who founded the company that acquired Lumen Robotics?": the graph's second hit is a
    neighbour (8), dense and BM25 both rank the answer (5) second."""
    lists = {"dense": _hits("dense", 3, 5, 8), "bm25": _hits("bm25", 5, 3, 8), "graph": _hits("graph", 3, 8, 5, 9)}
    results = {"graph": RetrievalResult("graph", tuple(lists["graph"]), StageStatus.ran(), lead=(2, 4),
                                        lead_shared=2)}
    fused = reciprocal_rank_fusion(lists, weights={"graph": 0.5})
    assert [h.chunk_id for h in lead_with(fused, leading_tiers(lists, results))][:2] == [3, 5]
    alone = {"graph": RetrievalResult("graph", tuple(lists["graph"]), StageStatus.ran(), lead=(2, 4))}
    assert [h.chunk_id for h in lead_with(fused, leading_tiers(lists, alone))][:2] == [3, 8]
    assert agreed({"graph": lists["graph"], "dense": lists["dense"]}, "graph", 2) == []  # one list is no agreement


def test_the_graph_s_later_tiers_end_where_its_scores_thin_out() -> None:
    hits = [Hit(chunk_id=i, signal="graph", rank=i, score=s) for i, s in enumerate((1.0, 0.9, 0.5, 0.2, 0.1), 1)]
    assert strong_tiers((2, 5), hits, 0.3) == (2, 3)
    assert strong_tiers((2, 5), hits, 0.0) == (2, 5)
    assert strong_tiers((2, 5), hits, 0.95) == (2, 2)  # the first tier is kept whole
    assert strong_tiers((), hits, 0.3) == ()


def test_the_graph_s_tiers_count_documents_not_chunks() -> None:
    """Home scoring gives every chunk of a reached document one score, so the graph's list runs in blocks:
    document 10's three chunks, then 20's two, then 30's. "The first 2" must reach document 20."""
    documents = [10, 10, 10, 20, 20, 30, 40]
    assert tiers_in_hits((2, 5), documents) == (5, 7)  # fewer than 5 documents: the whole list
    assert tiers_in_hits((1, 3), documents) == (3, 6)
    assert tiers_in_hits((2, 5), [1, 2, 3, 4, 5, 6]) == (2, 5)  # one chunk each: as counted before
    assert tiers_in_hits((), documents) == ()


def _order(hits: list[FusedHit]) -> list[int]:
    return [h.chunk_id for h in hits]


def test_dense_s_first_hit_stays_in_the_top_k_when_two_lists_outvote_it() -> None:
    """BM25 and the graph agree on 1-5; dense's first hit (9), which neither returns, falls to sixth."""
    lists = {"dense": _hits("dense", 9, 1, 2), "bm25": _hits("bm25", 1, 2, 3, 4, 5),
             "graph": _hits("graph", 1, 2, 3, 4, 5)}
    fused = reciprocal_rank_fusion(lists)
    assert _order(fused)[:6] == [1, 2, 3, 4, 5, 9]
    kept = keep_dense_evidence(fused, lists, [], first=1, agreed_top=3, top=5)
    assert _order(kept) == [1, 2, 3, 4, 9, 5]  # 9 takes the lowest place; 5 moves just below, nothing is lost
    assert keep_dense_evidence(fused, lists, [], first=0, agreed_top=0, top=5) == fused
    assert keep_dense_evidence(fused, lists, [], first=1, agreed_top=3, top=6) == fused  # already inside


def test_a_hit_dense_and_bm25_agree_on_takes_a_place_no_leader_claimed() -> None:
    """Dense and BM25 both rank 8 second; the graph leads with 1-2, then 3-5. 8 may not displace any of the
    graph's picks, so it stays out; with no lead it takes the fifth place."""
    lists = {"dense": _hits("dense", 1, 8), "bm25": _hits("bm25", 6, 8), "graph": _hits("graph", 1, 2, 3, 4, 5)}
    fused = lead_with(reciprocal_rank_fusion(lists, weights={"graph": 6.0}), [lists["graph"][:2], lists["graph"]])
    assert _order(fused)[:5] == [1, 2, 3, 4, 5]
    assert _order(keep_dense_evidence(fused, lists, [lists["graph"][:2], lists["graph"]], first=1, agreed_top=3,
                                      top=5))[:5] == [1, 2, 3, 4, 5]
    assert _order(keep_dense_evidence(fused, lists, [], first=1, agreed_top=3, top=5))[:5] == [1, 2, 3, 4, 8]


def test_dense_s_first_hit_displaces_a_leader_s_later_pick_never_its_first_tier() -> None:
    lists = {"dense": _hits("dense", 9), "graph": _hits("graph", 1, 2, 3, 4, 5)}
    fused = lead_with(reciprocal_rank_fusion(lists, weights={"graph": 6.0}), [lists["graph"][:2], lists["graph"]])
    later = keep_dense_evidence(fused, lists, [lists["graph"][:2], lists["graph"]], first=1, agreed_top=0, top=5)
    assert _order(later)[:6] == [1, 2, 3, 4, 9, 5]
    first_tier = [lists["graph"][:5]]  # a leader whose first tier fills the top 5
    assert keep_dense_evidence(fused, lists, first_tier, first=1, agreed_top=0, top=5) == fused


def test_keep_sure_stops_when_no_place_is_left() -> None:
    fused = reciprocal_rank_fusion({"a": _hits("a", 1, 2, 3, 4)})
    assert _order(keep_sure(fused, [3, 4], {1}, top=2)) == [1, 3, 2, 4]  # 3 takes 2's place; 4 finds none
    assert _order(keep_sure(fused, [7], set(), top=2)) == [1, 2, 3, 4]  # a chunk fusion never saw: nothing
