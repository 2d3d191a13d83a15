"""kg.search on small hand-made graphs: home scoring, the mention share, ordering, and explanations."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from kgrag.core.settings import GraphSettings
from kgrag.kg.assemble import from_node_link
from kgrag.kg.graphfile import DOCUMENT, DOCUMENT_LABEL, MENTIONS_DOCUMENT, TITLED, document_node
from kgrag.kg.linking import LinkedEntity
from kgrag.kg.search import Scored, Similarity, explain, score, weigh_hops
from kgrag.kg.serving import LoadedGraph

SETTINGS = GraphSettings()
LINK_SENTENCE = "Lothair II was the son of Ermengarde of Tours."
LOTHAIR, ERMENGARDE, ABBEY, ELSEWHERE = (document_node(i) for i in (1, 2, 3, 4))


def _document(key: str, title: str, home: list[int], mentioned_in: list[int]) -> dict[str, Any]:
    return {"id": key, "name": title, "label": DOCUMENT_LABEL, "kind": DOCUMENT, "full_key": title.lower(),
            "aliases": [title.lower()], "chunks": [[c, 1] for c in mentioned_in], "home": home}


def _entity(key: str, name: str, mentioned_in: list[int]) -> dict[str, Any]:
    return {"id": key, "name": name, "label": "PERSON", "aliases": [], "chunks": [[c, 1] for c in mentioned_in]}


def _graph() -> LoadedGraph:
    """Lothair II (chunks 10, 11) writes Ermengarde's title in chunk 11; Ermengarde's own chunks are 21 and 20
    (listed out of order); the abbey (chunk 30) links to nobody; chunk 40, of a document with no links
    (ELSEWHERE), mentions Ermengarde. The entities Waldrada and Lothair co-occur in chunk 10, and Lothair is
    what the Lothair II document's title names."""
    nodes = [
        _document(LOTHAIR, "Lothair II", [10, 11], []),
        _document(ERMENGARDE, "Ermengarde of Tours", [21, 20], [11, 40]),
        _document(ABBEY, "Prüm Abbey", [30], []),
        _document(ELSEWHERE, "Elsewhere", [40], []),
        _entity("lothair", "Lothair", [10]),
        _entity("waldrada", "Waldrada", [10]),
    ]
    edges = [
        {"source": LOTHAIR, "target": ERMENGARDE, "kind": MENTIONS_DOCUMENT, "weight": 1.0,
         "relations": [{"label": "mentions", "weight": 1, "sentence": LINK_SENTENCE}]},
        {"source": LOTHAIR, "target": "lothair", "kind": TITLED, "weight": 1,
         "relations": [{"label": "titled", "weight": 1}]},
        {"source": "lothair", "target": "waldrada", "weight": 2, "relations": [{"label": "co-occurs", "weight": 2}]},
    ]
    data = {"graph": {"manifest": {"corpus_version": 1}}, "nodes": nodes, "edges": edges}
    return from_node_link(data, path=Path("graph.json.gz"), signature=(0, 0, 0),
                          document_edge_weight=SETTINGS.document_edge_weight)


def _linked(graph: LoadedGraph, *keys: str) -> list[LinkedEntity]:
    return [LinkedEntity(graph.index[k], graph.names[graph.index[k]], graph.names[graph.index[k]], "title", 1.0)
            for k in keys]


def _score(graph: LoadedGraph, linked: list[LinkedEntity], *, limit: int = 10,
           mention_share: float = SETTINGS.mention_share) -> Scored:
    return score(graph, linked, traversal=SETTINGS.traversal, damping=SETTINGS.ppr_damping, hops=SETTINGS.hops,
                 limit=limit, mention_share=mention_share)


def _ranked(graph: LoadedGraph, scored: Scored) -> list[int]:
    return graph.chunk_ids[scored.chunk_columns].tolist()


def _score_of(graph: LoadedGraph, scored: Scored, chunk: int) -> float:
    ranked = _ranked(graph, scored)
    return float(scored.chunk_scores[ranked.index(chunk)]) if chunk in ranked else 0.0


@pytest.fixture(scope="module")
def graph() -> LoadedGraph:
    return _graph()


def test_a_documents_own_chunks_rank_above_chunks_that_only_mention_it(graph: LoadedGraph) -> None:
    scored = _score(graph, _linked(graph, ERMENGARDE))
    ranked = _ranked(graph, scored)
    assert ranked[:2] == [20, 21]  # her own text, ties by chunk id
    assert 11 in ranked and 40 in ranked  # they mention her: they count, a little
    assert _score_of(graph, scored, 20) > _score_of(graph, scored, 11) > 0
    assert _score_of(graph, scored, 20) > 10 * _score_of(graph, scored, 40) > 0
    assert 30 not in ranked  # the abbey is not reached


def test_the_mention_share_scales_what_mentions_contribute(graph: LoadedGraph) -> None:
    linked = _linked(graph, ERMENGARDE)
    share = _score(graph, linked, mention_share=0.05)
    double = _score(graph, linked, mention_share=0.10)
    none = _score(graph, linked, mention_share=0.0)
    # chunk 40's document is not reached: its whole score is the mention share of Ermengarde's relevance
    assert _score_of(graph, double, 40) == pytest.approx(2 * _score_of(graph, share, 40))
    assert 40 not in _ranked(graph, none)
    # her own chunks do not depend on it: they mention nothing
    assert _score_of(graph, none, 20) == pytest.approx(_score_of(graph, share, 20))
    assert _score_of(graph, none, 20) > 0


def test_ties_go_to_the_lower_chunk_id_and_limit_keeps_the_best(graph: LoadedGraph) -> None:
    scored = _score(graph, _linked(graph, ERMENGARDE))
    assert scored.chunk_scores[0] == scored.chunk_scores[1]  # a real tie: both are her home chunks
    assert _ranked(graph, scored)[:2] == [20, 21]
    assert list(scored.chunk_scores) == sorted(scored.chunk_scores, reverse=True)
    everything = _score(graph, _linked(graph, LOTHAIR))
    top = _score(graph, _linked(graph, LOTHAIR), limit=2)
    assert len(_ranked(graph, everything)) > 2
    assert _ranked(graph, top) == _ranked(graph, everything)[:2]
    assert set(_ranked(graph, top)) == {10, 11}  # Lothair II's own chunks


def test_no_seed_no_chunks(graph: LoadedGraph) -> None:
    scored = _score(graph, [])
    assert scored.chunk_columns.size == 0 and scored.chunk_scores.size == 0


def test_explain_walks_from_the_linked_node_to_the_chunks_document_with_the_links_sentence(
    graph: LoadedGraph,
) -> None:
    linked = _linked(graph, LOTHAIR)
    scored = _score(graph, linked)
    col = int(np.flatnonzero(graph.chunk_ids == 20)[0])
    why = explain(graph, linked, scored, [col])[col]
    assert why.entities[0] == "Ermengarde of Tours"  # the chunk's own document placed it
    assert why.path == ("Lothair II", "Ermengarde of Tours")
    assert why.relations == ("mentions",)
    assert why.evidence == (LINK_SENTENCE,)


def test_explain_gives_entity_relations_without_evidence(graph: LoadedGraph) -> None:
    linked = _linked(graph, "waldrada")
    scored = _score(graph, linked)
    col = int(np.flatnonzero(graph.chunk_ids == 11)[0])
    why = explain(graph, linked, scored, [col])[col]
    assert why.path == ("Waldrada", "Lothair", "Lothair II")
    assert why.relations == ("co-occurs", "titled")
    assert why.evidence == ("", "")


def _family() -> LoadedGraph:
    """Lothair II's one chunk links to his wife (a more specific alias: more PageRank mass) and his mother."""
    wife, mother = document_node(5), document_node(6)
    nodes = [_document(LOTHAIR, "Lothair II", [10], []), _document(wife, "Teutberga", [50], [10]),
             _document(mother, "Ermengarde of Tours", [60], [10])]
    edges = [
        {"source": LOTHAIR, "target": wife, "kind": MENTIONS_DOCUMENT, "weight": 1.0,
         "relations": [{"label": "mentions", "weight": 1, "sentence": "In 855 Lothair II married Teutberga."}]},
        {"source": LOTHAIR, "target": mother, "kind": MENTIONS_DOCUMENT, "weight": 0.8,
         "relations": [{"label": "mentions", "weight": 1,
                        "sentence": "The mother of Lothair II was Ermengarde of Tours."}]},
    ]
    data = {"graph": {"manifest": {"corpus_version": 1}}, "nodes": nodes, "edges": edges}
    return from_node_link(data, path=Path("graph.json.gz"), signature=(0, 0, 0),
                          document_edge_weight=SETTINGS.document_edge_weight)


MOTHER_QUESTION = "When did Lothair II's mother die?"


def _similarity_to(embedder: Any, question: str, asked: list[list[str]] | None = None) -> Similarity:
    """kg.search.Similarity with the real model (cosine to ``question``), noting in ``asked`` what it embeds."""

    def similarity(sentences: Any) -> np.ndarray:
        if asked is not None:
            asked.append(list(sentences))
        vectors = embedder.encode([question, *sentences])
        vectors = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
        return vectors[1:] @ vectors[0]

    return similarity


def test_the_sentence_behind_a_hop_picks_the_neighbour_the_question_asks_about(embedder: Any) -> None:
    """PageRank puts the wife first (her link is the stronger); the link sentences say the mother is asked for."""
    family = _family()
    linked = _linked(family, LOTHAIR)
    scored = _score(family, linked)
    assert _ranked(family, scored) == [10, 50, 60]
    similarity = _similarity_to(embedder, MOTHER_QUESTION)
    columns, scores = scored.chunk_columns.tolist(), scored.chunk_scores.tolist()
    weighed = weigh_hops(family, linked, columns, scores, similarity, weight=SETTINGS.hop_evidence_weight,
                         limit=SETTINGS.hop_sentences)
    assert [int(family.chunk_ids[c]) for c, _ in weighed] == [10, 60, 50]
    assert weighed[0][1] == pytest.approx(1.0)  # the named document's own chunk: no link to itself, no bonus
    unweighed = weigh_hops(family, linked, columns, scores, similarity, weight=0.0, limit=SETTINGS.hop_sentences)
    assert [int(family.chunk_ids[c]) for c, _ in unweighed] == [10, 50, 60]
    entity_only = [LinkedEntity(e.index, e.name, e.matched, "ner", e.score) for e in linked]
    assert [c for c, _ in weigh_hops(family, entity_only, columns, scores, similarity, weight=1.0,
                                      limit=SETTINGS.hop_sentences)] == columns


def test_a_question_embeds_at_most_the_limit_of_link_sentences_the_best_candidates_first(embedder: Any) -> None:
    """Each sentence is a forward pass of the model: a limit of one embeds the wife's link (the traversal's
    second candidate) and not the mother's, who then keeps her traversal share and her place."""
    family = _family()
    linked = _linked(family, LOTHAIR)
    scored = _score(family, linked)
    asked: list[list[str]] = []
    similarity = _similarity_to(embedder, MOTHER_QUESTION, asked)
    columns, scores = scored.chunk_columns.tolist(), scored.chunk_scores.tolist()
    weighed = weigh_hops(family, linked, columns, scores, similarity, weight=SETTINGS.hop_evidence_weight, limit=1)
    assert len(asked) == 1 and len(asked[0]) == 1
    assert asked[0] == ["In 855 Lothair II married Teutberga."]
    assert [int(family.chunk_ids[c]) for c, _ in weighed] == [10, 50, 60]
    assert weigh_hops(family, linked, columns, scores, similarity, weight=SETTINGS.hop_evidence_weight, limit=0) \
        == [(c, s / max(scores)) for c, s in zip(columns, scores, strict=True)]


def test_a_sentence_the_build_embedded_is_weighed_beyond_the_limit_for_a_dot_product(embedder: Any) -> None:
    """The limit bounds forward passes, not hops: with the mother's link stored by the build and a limit of 0,
    her sentence is still weighed (the question then picks her) and nothing else is asked for."""
    family = _family()
    linked = _linked(family, LOTHAIR)
    scored = _score(family, linked)
    asked: list[list[str]] = []
    similarity = _similarity_to(embedder, MOTHER_QUESTION, asked)
    columns, scores = scored.chunk_columns.tolist(), scored.chunk_scores.tolist()
    stored = {"The mother of Lothair II was Ermengarde of Tours."}
    weighed = weigh_hops(family, linked, columns, scores, similarity, weight=SETTINGS.hop_evidence_weight,
                         limit=0, stored=stored)
    assert asked == [sorted(stored)]
    assert [int(family.chunk_ids[c]) for c, _ in weighed] == [10, 60, 50]
