"""Bounded graph views (kg/browse.py): usefulness ranking, neighbourhoods, search, evidence sentences."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from kgrag.core.errors import NotFoundError
from kgrag.core.settings import GraphSettings
from kgrag.kg import browse
from kgrag.kg.holder import load_graph
from kgrag.kg.serving import LoadedGraph

from tests.graph_synth import HUBS, write_synthetic_graph
from tests.kg_fixtures import nlp_fixture  # noqa: F401  (the `nlp` fixture)


@pytest.fixture(scope="module")
def graph(tmp_path_factory: pytest.TempPathFactory) -> LoadedGraph:
    path = tmp_path_factory.mktemp("browse") / "graph.json.gz"
    write_synthetic_graph(path, entities=3000)
    return load_graph(path, document_edge_weight=GraphSettings().document_edge_weight)


def test_overview_ranks_specific_entities_not_the_hubs_with_the_most_links(graph: LoadedGraph) -> None:
    by_degree = np.argsort(-np.diff(graph.adjacency.indptr))[: len(HUBS)]
    assert {graph.names[i] for i in by_degree} == set(HUBS)  # what a degree ranking would show first
    view = browse.overview(graph, limit=60)
    names = [n.name for n in view.nodes]
    assert len(names) == 60 and not set(HUBS) & set(names)
    assert view.nodes[0].label == "TITLE"
    assert all(a.usefulness >= b.usefulness for a, b in zip(view.nodes, view.nodes[1:], strict=False))
    assert view.edges, "the overview shows how its entities connect, not a scatter"
    keys = {n.key for n in view.nodes}
    assert all(e.source in keys and e.target in keys for e in view.edges)


def test_views_stay_bounded_whatever_the_degree(graph: LoadedGraph) -> None:
    view = browse.neighbourhood(graph, "American", limit=25)
    assert view.center == "american" and len(view.nodes) == 26
    assert view.total_neighbours > 500  # a hub: the view shows 25 of them
    spokes = [e for e in view.edges if "american" in (e.source, e.target)]
    assert len(spokes) == 25
    for e in spokes:  # each spoke's evidence mentions both of its ends
        other = graph.index[e.target if e.source == "american" else e.source]
        assert e.evidence_chunks
        for chunk in e.evidence_chunks:
            col = int(np.searchsorted(graph.chunk_ids, chunk))
            mentioned = set(graph.chunk_entities.indices[graph.chunk_entities.indptr[col]:
                                                         graph.chunk_entities.indptr[col + 1]].tolist())
            assert {graph.index["american"], other} <= mentioned
    assert len(browse.overview(graph, limit=10_000).nodes) == browse.MAX_VIEW


def test_search_puts_exact_and_prefix_matches_first(graph: LoadedGraph) -> None:
    found = [e.name for e in browse.search(graph, "entity 12-1", limit=5)]
    assert found[0] == "Entity 12-1"
    assert all(name.lower().startswith("entity 12-1") for name in found)
    assert browse.search(graph, "DOCUMENT 7 TITLE")[0].name == "Document 7 Title"
    assert browse.search(graph, "  ") == []


def test_unknown_entity_names_the_fix(graph: LoadedGraph) -> None:
    with pytest.raises(NotFoundError) as err:
        browse.neighbourhood(graph, "Entity 99999-0")
    assert "Entity" in (err.value.fix or "")


def test_evidence_sentences_pick_the_sentence_naming_both(tmp_path: Path) -> None:
    text = ("Tomas Berg grew up in Bergen. He studied law. In 2004 Tomas Berg founded Lumen Robotics in Oslo. "
            "Lumen Robotics was sold in 2019.")
    assert browse.evidence_sentences(text, ["Tomas Berg", "Lumen Robotics"]) == [
        "In 2004 Tomas Berg founded Lumen Robotics in Oslo."]
    assert browse.evidence_sentences(text, ["Bergen", "Nowhere"]) == ["Tomas Berg grew up in Bergen."]
    assert browse.evidence_sentences("no names here", ["X"]) == ["no names here"]


def test_a_document_and_its_title_entity_are_one_node_in_every_view() -> None:
    """The document "Lothair II" and the PERSON "Lothair II" (joined by a titled edge) show once, as the
    document, which also carries the entity's own links (Waldrada co-occurs with the PERSON)."""
    from tests.test_kg_search import LOTHAIR, _graph

    g = _graph()
    twins = browse.title_twins(g)
    assert twins == {g.index["lothair"]: g.index[LOTHAIR]}
    assert [v.key for v in browse.search(g, "lothair")] == [LOTHAIR]
    assert "lothair" not in {n.key for n in browse.overview(g).nodes}
    assert "lothair" not in browse.most_useful(g, 10)
    view = browse.neighbourhood(g, "Lothair")  # the entity's name opens the document
    assert view.center == LOTHAIR
    assert {n.key for n in view.nodes} == {LOTHAIR, "waldrada", g.keys[g.index[LOTHAIR] + 1]}
    assert all("lothair" not in (e.source, e.target) for e in view.edges)
    assert any({e.source, e.target} == {LOTHAIR, "waldrada"} for e in view.edges)


def test_a_relation_phrase_is_the_verb_that_governs_the_name(nlp: Any) -> None:
    """Issue 46: a document's mention link read "mentions" or "co-occurs" though its sentence says more."""
    def phrase(sentence: str, *names: str) -> str:
        return browse.relation_phrase(nlp, sentence, list(names))

    assert phrase("Lumen Robotics was bought by Northwind Dynamics in 2019.", "Northwind Dynamics") == "bought by"
    assert phrase("Its best-known ship is the Kelpie, delivered to the Bergen Marine Institute in 2017.",
                  "Bergen Marine Institute") == "delivered to"
    assert phrase("Lumen Robotics was a start-up based in Tallinn, Estonia. Marta Kask founded it in 2014.",
                  "Marta Kask") == "founded"
    assert phrase("When Northwind Dynamics took over her company in 2019, Kask joined it.",
                  "Northwind Dynamics") == "took over"
    assert phrase("The weather was fine.", "Northwind Dynamics") == ""  # no name in it: the caller keeps its label
