"""Documents as entities: title aliases, mention links, home scoring and the graph's fusion weight.

The integration corpus is written so that the answer ("Who wrote the best-selling title of Halcyon
Press?") sits in a document, "Glasswing (book)", that shares no content word with the question and
that spaCy's NER cannot find: Halcyon Press's text writes its title in lower case ("the field
guide glasswing"). Only the mention link from that sentence to the document can bring it up, and
six distractors full of the question's words keep dense and BM25 from finding it alone.
"""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient
from kgrag.api.app import create_app
from kgrag.api.cli import app as cli_app
from kgrag.api.ui_export import static_page, static_views
from kgrag.core.runtime import Runtime
from kgrag.ingest.loaders import load_text
from kgrag.ingest.pipeline import Ingestor
from kgrag.kg.browse import search
from kgrag.kg.documents import (
    MAX_ALIAS_TARGETS,
    TitleIndex,
    document_layer,
    scan_mentions,
    specificity,
    title_document,
    tokens,
)
from kgrag.kg.export import write_graphml, write_json
from kgrag.kg.graphfile import DOCUMENT, DOCUMENT_LABEL, MENTIONS_DOCUMENT, document_node, read_networkx
from kgrag.kg.holder import load_graph
from kgrag.kg.linking import LinkedEntity
from kgrag.retrieval.base import Query
from kgrag.retrieval.graph import build_graph_retriever, fusion_weight, strong_tiers, tiers_in_hits
from kgrag.retrieval.maintenance import publish_bm25
from kgrag.retrieval.pipeline import build_pipeline
from typer.testing import CliRunner

from tests.kg_fixtures import build, nlp_fixture  # noqa: F401  (the `nlp` fixture)

QUESTION = "Who wrote the best-selling title of Halcyon Press?"
CORPUS = [
    ("Halcyon Press", "Halcyon Press is a small publisher in the hill country. Its best-selling title is the field "
                      "guide glasswing, printed every spring since 1988."),
    ("Glasswing (book)", "The guide was the life's work of the naturalist Oona Threlfall, who walked every valley "
                         "she describes and drew each moth by lamplight."),
    ("Bellweather Books", "Bellweather Books is a press whose best-selling title was written by its own founder."),
    ("Copperline Press", "Copperline Press printed a best-selling title about selling wool; its editor wrote most "
                         "of it herself."),
    ("Press freedom", "Press freedom lets any writer publish what she wrote, even a best-selling title."),
    ("Selling books", "Selling a best-selling title is what every press wants; who wrote it matters less."),
    ("Title deeds", "A title deed records who wrote up the sale of land, the best-selling service of a press office."),
    ("Halcyon Bay", "Halcyon Bay is a cove where a press gang once wrote their names on the harbour wall."),
    ("Halcyon Days", "Halcyon Days is a best-selling title; the critic who wrote its blurb worked for a press."),
    ("Bestseller lists", "A bestseller list ranks each best-selling title a press sold, not who wrote it."),
    ("Ghostwriting", "A ghostwriter wrote many a best-selling title that a press sold under another name."),
    ("Printing press", "The printing press made every best-selling title cheap; Gutenberg wrote little himself."),
    ("Author royalties", "Whoever wrote a best-selling title is paid royalties by the press that prints it."),
    ("Pen names", "Writers who wrote a best-selling title for a press often hid behind a pen name."),
]
TARGET = "Glasswing (book)"


# -- aliases and links (no database) ---------------------------------------------------------------
def test_title_aliases_fold_accents_case_punctuation_and_drop_the_disambiguator() -> None:
    doc = title_document(7, "Éric Rohmer's Kelpie (1946 film)")
    assert doc is not None
    assert doc.full_key == "eric rohmer kelpie 1946 film"
    assert doc.aliases == ("eric rohmer kelpie 1946 film", "eric rohmer kelpie")
    assert title_document(8, "(1)") is None and title_document(9, "X") is None
    assert [t.key for t in tokens("Lothair II's mother")] == ["lothair", "ii", "mother"]


def test_scan_links_longest_alias_never_itself_and_weights_by_specificity() -> None:
    docs = [d for d in (title_document(1, "Lothair"), title_document(2, "Lothair II"),
                        title_document(3, "Ermengarde of Tours"), title_document(4, "Paris")) if d]
    chunks = [
        (10, 2, "Lothair II was the son of Ermengarde of Tours. He died in Paris."),
        (11, 3, "Ermengarde of Tours married Lothair. She is buried near Paris."),
        (12, 4, "Paris is a city."),
    ]
    links, df = scan_mentions(TitleIndex(docs), chunks)
    got = {(k.chunk_id, k.target, k.alias) for k in links}
    assert got == {(10, 3, "ermengarde of tours"), (10, 4, "paris"), (11, 1, "lothair"), (11, 4, "paris")}
    assert (10, 1, "lothair") not in got  # "Lothair II" claimed its words: no shorter overlapping match
    assert df == {"lothair ii": 1, "ermengarde of tours": 2, "paris": 3, "lothair": 1}
    weight = {(k.chunk_id, k.target): k.weight for k in links}
    assert weight[(10, 4)] == pytest.approx(specificity(3)) and weight[(10, 3)] == pytest.approx(specificity(2))
    assert weight[(10, 4)] < weight[(10, 3)] < weight[(11, 1)] == 1.0
    sentence = {(k.chunk_id, k.target): k.sentence for k in links}
    assert sentence[(10, 4)] == "He died in Paris."


def test_an_ambiguous_alias_goes_to_the_whole_title_then_the_disambiguator_the_text_writes() -> None:
    docs = [d for d in (title_document(1, "Kelpie (ship)"), title_document(2, "Kelpie (film)"),
                        title_document(3, "Mercy"), title_document(4, "Mercy (film)")) if d]
    index = TitleIndex(docs)
    assert index.resolve("kelpie") == (1, 2)
    assert index.resolve("kelpie", {"the", "film", "kelpie"}) == (2,)
    assert index.resolve("mercy") == (3,)  # its whole title
    heads = [(d.document_id, d.title, f"s{d.document_id}", "") for d in docs] + [(5, "Review", "s5", "")]
    layer = document_layer(heads, [(50, 5, "The ship Kelpie sank; the film Mercy did not.")])
    assert {(k.target, round(k.weight, 3)) for k in layer.links} == {(1, 0.5), (2, 0.5), (3, 1.0)}


def test_an_alias_that_names_more_documents_than_the_cap_names_none() -> None:
    """Untitled abstracts that open "Little is known about ..." all go by the subject "little"; every chunk
    writing the word linked to each of them, which at a million chunks was tens of millions of links."""
    many = [(i, "", f"abstract-{i}.txt", f"Little is known about protein {i}. It binds.") for i in range(1, 11)]
    few = [(20 + i, f"Juan Carlos ({kind})", f"s{i}", "") for i, kind in enumerate(("king", "footballer", "film"))]
    layer = document_layer(many + few, [(90, 30, "Little is known of Juan Carlos, but a little more of others.")])
    assert {d.aliases[0] for d in layer.titles} >= {"little", "juan carlos king"}
    assert {k.target for k in layer.links} == {20, 21, 22}  # three namesakes still share the link
    assert all(k.alias == "juan carlos" for k in layer.links)
    assert layer.alias_df["little"] == 1  # still counted as written (its specificity stays right)
    index = TitleIndex(layer.titles)
    assert len(index.targets["little"]) == 10 > MAX_ALIAS_TARGETS and index.resolve("little") == ()


# -- on a real graph file ---------------------------------------------------------------------------
def _ingest(rt: Runtime) -> dict[str, int]:
    Ingestor.from_runtime(rt).ingest_documents(
        [load_text(text, source=f"press:{i}", title=title) for i, (title, text) in enumerate(CORPUS)])
    publish_bm25(rt)  # as `kgrag ingest` does
    return {c.title: c.id for c in rt.store.iter_chunks()}


@pytest.fixture
def built(runtime: Runtime, nlp: Any) -> dict[str, int]:
    chunks = _ingest(runtime)
    build(runtime, nlp)
    return chunks


def test_the_graph_file_holds_document_nodes_and_mention_links(runtime: Runtime, built: dict[str, int]) -> None:
    g = read_networkx(runtime.settings.graph_path)
    docs = {d["name"]: n for n, d in g.nodes(data=True) if d.get("kind") == DOCUMENT}
    assert set(docs) == {title for title, _ in CORPUS}
    halcyon, glasswing = docs["Halcyon Press"], docs[TARGET]
    assert g.nodes[glasswing]["home"] == [built[TARGET]]
    assert g.nodes[glasswing]["chunks"] == [[built["Halcyon Press"], 1]]  # mentioned by Halcyon's chunk
    edge = g.edges[halcyon, glasswing]
    assert edge["kind"] == MENTIONS_DOCUMENT
    (rel,) = edge["relations"]
    assert rel["source"] == halcyon and rel["target"] == glasswing and rel["alias"] == "glasswing"
    assert "field guide glasswing" in rel["sentence"]
    assert g.graph["manifest"]["counts"]["documents"] == len(CORPUS)


def test_a_title_link_reaches_a_document_ner_cannot_see_and_explains_the_chain(
        runtime: Runtime, built: dict[str, int]) -> None:
    result = build_graph_retriever(runtime).retrieve(Query(QUESTION, k=20))
    linked = result.explanation["linked_entities"]
    assert linked[0]["name"] == "Halcyon Press" and linked[0]["how"] == "title"
    assert result.weight == pytest.approx(runtime.settings.graph.title_fusion_weight)
    # a title one document writes: the graph leads the fused list with its hits (retrieval.fusion.lead_with)
    # (its later tier ends where the graph's scores fall below lead_min_share of its best)
    settings = runtime.settings.graph
    one_chunk_each = [h.chunk_id for h in result.hits]  # every document here is one chunk
    assert result.lead == strong_tiers(tiers_in_hits(tuple(settings.lead_tiers), one_chunk_each), result.hits,
                                       settings.lead_min_share)
    assert result.lead[0] == settings.lead_tiers[0] and result.lead_shared == 0  # sure: it leads alone
    assert result.explanation["fusion_weight"] == {"weight": result.weight, "basis": "title",
                                                   "leads": min(max(result.lead), len(result.hits))}
    by_chunk = {h.chunk_id: h for h in result.hits}
    assert by_chunk[built["Halcyon Press"]].rank == 1  # home of the linked document
    target = by_chunk[built[TARGET]]
    assert target.rank == 2
    assert target.explanation["path"] == ["Halcyon Press", TARGET]
    assert target.explanation["relations"] == ["mentions"]
    assert "glasswing" in target.explanation["evidence"][0]
    assert target.explanation["chain"] == f'question → "Halcyon Press" → mentions "{TARGET}"'


def test_without_the_graph_the_answer_misses_the_fused_top5_and_with_it_it_is_in(
        runtime: Runtime, built: dict[str, int]) -> None:
    target = built[TARGET]
    with build_pipeline(runtime) as pipe:
        plain = pipe.run(QUESTION, signals=["dense", "bm25"], top_k=5, rerank=False)
        full = pipe.run(QUESTION, top_k=5, rerank=False)
    assert target not in [h.chunk_id for h in plain.hits]
    hit = next(h for h in full.hits if h.chunk_id == target)
    assert hit.explanations["graph"]["path"] == ["Halcyon Press", TARGET]
    assert full.fusion_weights == {"dense": 1.0, "bm25": 1.0, "graph": runtime.settings.graph.title_fusion_weight}


def test_entity_only_links_weigh_little_and_no_link_weighs_nothing(runtime: Runtime, built: dict[str, int]) -> None:
    retriever = build_graph_retriever(runtime)
    entity_only = retriever.retrieve(Query("What did Oona Threlfall draw?", k=20))
    assert [e["how"] for e in entity_only.explanation["linked_entities"]] == ["ner"]
    assert entity_only.explanation["fusion_weight"]["basis"] == "entities"
    assert entity_only.hits and entity_only.weight == 0.0  # explained, but not fused by default
    nothing = retriever.retrieve(Query("how do moths see at night?", k=20))
    assert nothing.hits == () and nothing.weight == 0.0
    settings = runtime.settings.graph.model_copy(update={"entity_fusion_weight": 0.5})
    weight, basis = fusion_weight([LinkedEntity(0, "Oona Threlfall", "Oona Threlfall", "ner", 0.6)], settings)
    assert (weight, basis) == (pytest.approx(0.3), "entities")
    common = LinkedEntity(1, "Anxiety", "anxiety", "title", 1.0, specificity(36))
    rare = LinkedEntity(2, "Lothair II", "Lothair II", "title", 1.0, specificity(1))
    assert fusion_weight([rare], settings)[0] == settings.title_fusion_weight
    assert fusion_weight([common], settings) == (0.5, "entities")  # "anxiety" in 36 documents: no anchor
    fair = LinkedEntity(3, "Billy Elliot", "Billy Elliot", "title", 1.0, specificity(3))
    assert fusion_weight([fair], settings)[0] == pytest.approx(settings.title_fusion_weight * specificity(3) ** 2)


def test_explain_in_the_cli_and_the_api_show_the_chain_and_the_weight(
        runtime: Runtime, built: dict[str, int], monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    monkeypatch.chdir(tmp_path)
    env = {"KGRAG_HOME": str(runtime.settings.home), "KGRAG_DATABASE__URL": str(runtime.settings.database.url),
           "HF_HUB_OFFLINE": "1"}
    out = CliRunner().invoke(cli_app, ["query", QUESTION, "--explain", "--no-rerank"], env=env)
    assert out.exit_code == 0, out.output
    text = " ".join(out.output.split())
    assert f'graph: question → "Halcyon Press" → mentions "{TARGET}"' in text
    assert "field guide glasswing" in text
    assert "fusion weights: dense 1, bm25 1, graph 6 (title link)" in text

    with TestClient(create_app(runtime=runtime)) as client:
        body = client.post("/v1/query", json={"question": QUESTION, "answer": False, "rerank": False}).json()
    assert body["fusion_weights"]["graph"] == runtime.settings.graph.title_fusion_weight
    hit = next(h for h in body["hits"] if h["title"] == TARGET)
    assert hit["explanations"]["graph"]["chain"] == f'question → "Halcyon Press" → mentions "{TARGET}"'


def test_exports_carry_document_nodes_and_mention_links(runtime: Runtime, built: dict[str, int],
                                                        tmp_path: Any) -> None:
    g = read_networkx(runtime.settings.graph_path)
    node = document_node(next(c.document_id for c in runtime.store.iter_chunks() if c.title == TARGET))
    write_graphml(g, tmp_path / "g.graphml")
    graphml = (tmp_path / "g.graphml").read_text()
    assert f'<node id="{node}">' in graphml and MENTIONS_DOCUMENT in graphml and "field guide glasswing" in graphml
    write_json(g, tmp_path / "g.json")
    assert f'"{node}"' in (tmp_path / "g.json").read_text()
    graph = load_graph(runtime.settings.graph_path, document_edge_weight=runtime.settings.graph.document_edge_weight)
    page = static_page(static_views(graph, lambda ids: {}, entity="Halcyon Press"))
    assert "Glasswing (book)" in page and '"DOCUMENT"' in page  # the linked document, drawn as a document


def test_a_file_name_standing_in_for_a_title_names_no_entity(runtime: Runtime, nlp: Any) -> None:
    """A company wiki's untitled "jonas_meier.txt" put an entity "jonas_meier" (label TITLE) into the graph beside
    its document "Jonas Meier": search and the views listed both, and a corpus loaded without titles got one
    such entity per document, named by its source ("wiki:381")."""
    Ingestor.from_runtime(runtime).ingest_documents([
        load_text("Jonas Meier joined Corvid Systems in 2015. He leads Project Heron.", source="wiki/jonas_meier.txt",
                  title="jonas_meier"),
        load_text("Project Heron builds the Wren-3 firmware. The team is led by Jonas Meier.",
                  source="wiki/project_heron.txt", title="Project Heron"),
        load_text("The Kite-1 was designed in Zurich.", source="wiki:381", title="wiki:381"),
    ])
    build(runtime, nlp)
    graph = load_graph(runtime.settings.graph_path,
                       document_edge_weight=runtime.settings.graph.document_edge_weight)
    names = {name.casefold(): label for name, label in zip(graph.names, graph.labels, strict=True)}
    assert "jonas_meier" not in names and "wiki:381" not in names
    assert names["jonas meier"] in (DOCUMENT_LABEL, "PERSON")
    assert names["project heron"] in (DOCUMENT_LABEL, "TITLE")  # a real title still names its entity
    assert [v.name for v in search(graph, "Jonas")] == ["Jonas Meier"]
