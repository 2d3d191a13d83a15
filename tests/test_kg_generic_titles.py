"""A document whose title is generic is named in the graph by its subject.

Internal documents carry titles no question writes: six staff profiles titled "Staff profile" or "STAFF
PROFILE", minutes titled by their date, vendor pages titled "Supplier profile: …", policies headed by the
organisation's banner. The graph linked questions to documents by title only, so a question naming a person
whose profile is titled "Staff profile" linked to an entity, never to the profile, and the graph's fusion
weight stayed 0. The person is named in the record's name field; the vendor after the title's colon; a
profile without a field names its person far more than anyone else.
"""

from __future__ import annotations

from typing import Any

import pytest
from kgrag.core.models import Embedder
from kgrag.core.runtime import Runtime
from kgrag.core.settings import GraphSettings
from kgrag.ingest.loaders import load_text
from kgrag.ingest.pipeline import Ingestor
from kgrag.kg.documents import document_layer, subject_document
from kgrag.kg.graphfile import DOCUMENT, read_networkx
from kgrag.kg.holder import graph_holder
from kgrag.kg.subjects import document_subject, generic_title_subject, plain_name, record_codes
from kgrag.retrieval.base import Query
from kgrag.retrieval.graph import build_graph_retriever
from kgrag.retrieval.maintenance import publish_bm25
from kgrag.retrieval.pipeline import build_pipeline

from tests.kg_fixtures import build, nlp_fixture  # noqa: F401  (the `nlp` fixture)


def _subject(title: str, opening: str, shared: int = 1) -> tuple[str, bool]:
    return document_subject(title, "intranet/page.md", opening, max_words=12, shared=shared)


# -- the subject of a generic-titled document (no database) ------------------------------------------------
@pytest.mark.parametrize(("title", "opening", "shared", "subject"), [
    ("Staff profile", "# Staff profile\n\n**Name:** Ines Halvorsen\n**Role:** Harbour pilot\n\n"
                      "Ines joined the authority in 2012.", 3, "Ines Halvorsen"),
    ("STAFF PROFILE", "STAFF PROFILE\n\nName: Marek Oduya\nPosition: Surveyor\n\nMarek Oduya began work in 2019.",
     3, "Marek Oduya"),
    ("Staff profile", "# Staff profile\n\n- Full name: Sunniva Brekke\n- Role: Finance lead\n\nShe joined in 2020.",
     2, "Sunniva Brekke"),
    ("Staff profile", "Staff profile\n| Name | Dr Lena Voss |\n|---|---|\n| Role | Surveyor |\n"
                      "Lena Voss was born in Bodø in 1971.", 2, "Dr Lena Voss"),
    # a unique title without a proper name gives way to a name field too
    ("Contact card", "Contact card\nName: Odd Tvedt\nPhone: 555 0101\nOdd Tvedt answers for the quay cranes.", 1,
     "Odd Tvedt"),
])
def test_a_generic_title_gives_way_to_the_records_name_field(title: str, opening: str, shared: int,
                                                             subject: str) -> None:
    assert _subject(title, opening, shared) == (subject, False)


def test_a_partial_name_field_is_no_subject() -> None:
    opening = "Staff profile\n\nFirst name: Ines\nSurname: Halvorsen\n\nThe pilot roster changes in May."
    assert _subject("Staff profile", opening, 3) == ("Staff profile", True)


@pytest.mark.parametrize(("title", "subject"), [
    ("Supplier profile: Fjordline Chandlers", "Fjordline Chandlers"),
    ("Supplier profile – Fjordline Chandlers AS", "Fjordline Chandlers AS"),
    ("Incident report IR-2024-112", "IR-2024-112"),  # a kind of record and its identifier
])
def test_a_kind_and_name_title_is_named_by_its_name(title: str, subject: str) -> None:
    assert _subject(title, f"# {title}\n\nThe text below the title.") == (subject, False)


@pytest.mark.parametrize("title", [
    "Wrong Turn 2: Dead End",        # the part before the colon is itself a name
    "Mystify: Michael Hutchence",
    "Lothair II",
    "Report 2024",                   # no identifier after the kind
])
def test_a_title_that_is_a_name_is_kept(title: str) -> None:
    assert _subject(title, "Something else entirely is written here by Anna Berg.") == (title, True)


def test_without_a_field_a_shared_title_names_the_entity_the_document_keeps_naming() -> None:
    opening = ("Staff profile\n\nMarek Oduya studied geology at Tromsø University before joining the team in "
               "2019.\n\nMarek leads the Kvalsund survey and checks the depth charts each spring.")
    assert _subject("Staff profile", opening, 2) == ("Marek Oduya", False)
    # first in the opening sentence, but written no more often than another name: about neither
    tie = "Staff profile\n\nMarek Oduya works with Ines Halvorsen on the survey. Ines and Marek share a boat."
    assert _subject("Staff profile", tie, 2) == ("Staff profile", True)


def test_minutes_that_name_several_people_alike_keep_their_dated_title() -> None:
    opening = ("Minutes, 3 March 2025\n\nManagement meeting. Present: Ines Halvorsen (chair), Marek Oduya.\n\n"
               "1. Pilotage. Ines Halvorsen reported 212 acts of pilotage.\n2. Survey. Marek Oduya presented it.")
    assert _subject("Minutes, 3 March 2025", opening) == ("Minutes, 3 March 2025", True)


def test_a_shared_banner_gives_way_to_the_heading_below_it() -> None:
    opening = "# NORTHWIND DYNAMICS\n\n## Travel policy\n\nStaff may claim reasonable costs of travel by rail."
    assert _subject("NORTHWIND DYNAMICS", opening, shared=3) == ("Travel policy", False)
    assert _subject("Northwind Dynamics", opening, shared=1) == ("Northwind Dynamics", True)  # unique: a name


def test_a_unique_title_without_a_proper_name_gives_way_only_to_a_name_field() -> None:
    skua = "# Skua drone\n\nThe Skua is an inspection drone made by Northwind Dynamics. The Skua flies far."
    assert _subject("Skua drone", skua) == ("Skua drone", True)  # descriptive, and the only one: still its name
    about = "About the company\nThe Corvid Systems Group is a maker of drones based in Bergen, founded in 2004."
    assert _subject("About the company", about) == ("About the company", True)
    # Wikipedia-style pages keep their sentence-case titles: the text writes them, or states no other name
    assert _subject("Nuit de chien", "Nuit de Chien is a 2008 French- German drama film.") == ("Nuit de chien", True)
    press = ("A printing press is a device for applying pressure to an inked surface. Johannes Gutenberg built "
             "one around 1440; Gutenberg's press spread across Europe.")
    assert _subject("Printing press", press) == ("Printing press", True)
    assert generic_title_subject("Lothair II", "Lothair II (835 – 869) was a king.") == ""


def test_a_person_named_with_a_title_of_address_is_also_linked_without_it() -> None:
    doc = subject_document(1, "Staff profile", "people/5.html",
                           "Staff profile\n| Name | Captain Ruth Haldane |\n| Role | Harbour Master |\n", 2)
    assert doc is not None and doc.title == "Captain Ruth Haldane"
    assert doc.aliases[:2] == ("captain ruth haldane", "ruth haldane")
    firm = subject_document(2, "Supplier profile: Skarv Dredging Ltd", "suppliers/skarv.html", "")
    assert firm is not None and firm.aliases[:2] == ("skarv dredging ltd", "skarv dredging")
    assert plain_name("Quell and Co") == "Quell and Co"  # no name ends in a linking word


def test_a_records_code_field_is_one_of_its_names() -> None:
    page = "# North Pier Renewal\n\nProject code: PR-2024-004\n\nThe North Pier shelters the inner harbour."
    assert record_codes(page) == ("PR-2024-004",)
    doc = subject_document(1, "North Pier Renewal", "projects/pier.md", page)
    assert doc is not None and doc.title == "North Pier Renewal" and doc.aliases[-1] == "pr-2024-004"
    assert record_codes("cost_code: PR-2024-004; budget_line: North Pier Renewal") == ()  # a row of fields
    assert record_codes("Project code: to be agreed") == ()


def test_minutes_naming_a_profiles_person_link_to_the_profile() -> None:
    heads = [(1, "Staff profile", "p/1.md", "# Staff profile\n\nName: Ines Halvorsen\n\nShe is a pilot.", 2),
             (2, "Staff profile", "p/2.md", "# Staff profile\n\nName: Marek Oduya\n\nHe is a surveyor.", 2),
             (3, "Minutes, 3 March 2025", "m/3.md", "Minutes, 3 March 2025\n\nIt met.", 1)]
    layer = document_layer(heads, [(30, 3, "Ines Halvorsen reported that the pilot ladder was replaced.")])
    assert sorted(d.title for d in layer.titles) == ["Ines Halvorsen", "Marek Oduya", "Minutes, 3 March 2025"]
    assert [(k.target, k.alias) for k in layer.links] == [(1, "ines halvorsen")]


# -- on a real graph -----------------------------------------------------------------------------------------
QUESTION = "Which shipping company did Ines Halvorsen work for before she joined the port authority?"
PROFILES = [
    ("p/01.md", "Staff profile", "# Staff profile\n\n**Name:** Ines Halvorsen\n**Role:** Harbour pilot\n\n"
     "Ines joined the port authority in 2012 after nine years as a mate with Skarv Shipping, sailing its "
     "coastal tankers."),
    ("p/02.md", "Staff profile", "# Staff profile\n\n**Name:** Marek Oduya\n**Role:** Surveyor\n\n"
     "Marek came to the port authority in 2019 after years with a dredging company that worked for shipping "
     "companies on the coast."),
    ("p/03.txt", "STAFF PROFILE", "STAFF PROFILE\n\nName: Sunniva Brekke\nPosition: Finance lead\n\n"
     "Sunniva joined the port authority in 2016 from a shipping company's accounts office before she took "
     "over the budget."),
    ("m/2025-03-03.md", "Minutes, 3 March 2025", "# Minutes, 3 March 2025\n\nPresent: Ines Halvorsen, Marek "
     "Oduya, Sunniva Brekke.\n\n1. Pilotage. Ines Halvorsen reported that the pilot ladder was replaced.\n\n"
     "2. Budget. Sunniva Brekke said the shipping companies pay their dues on time."),
    ("n/spring.md", "Harbour news", "# Harbour news\n\nWhich shipping company did the new pilots work for before "
     "they joined the port authority? Most came from companies on the coast, and one from a ferry line."),
]


@pytest.fixture
def built(runtime: Runtime, nlp: Any) -> dict[str, int]:
    Ingestor.from_runtime(runtime).ingest_documents(
        [load_text(text, source=source, title=title) for source, title, text in PROFILES])
    publish_bm25(runtime)
    build(runtime, nlp)
    return {c.source: c.id for c in runtime.store.iter_chunks()}


def test_a_question_naming_a_person_links_to_their_staff_profile_as_a_title(
        runtime: Runtime, built: dict[str, int]) -> None:
    names = {d["name"] for _, d in read_networkx(runtime.settings.graph_path).nodes(data=True)
             if d.get("kind") == DOCUMENT}
    assert {"Ines Halvorsen", "Marek Oduya", "Sunniva Brekke"} <= names and "Staff profile" not in names
    result = build_graph_retriever(runtime).retrieve(Query(QUESTION, k=10))
    linked = result.explanation["linked_entities"]
    assert (linked[0]["name"], linked[0]["how"]) == ("Ines Halvorsen", "title")
    assert result.explanation["fusion_weight"]["basis"] == "title" and result.weight > 0
    assert result.hits[0].chunk_id == built["p/01.md"]  # the profile: the linked document's home
    with build_pipeline(runtime) as pipe:
        fused = pipe.run(QUESTION, top_k=5, rerank=False)
    assert fused.fusion_weights["graph"] > 0
    assert fused.hits[0].chunk_id == built["p/01.md"]


def test_a_profile_added_by_a_delta_is_named_as_a_whole_build_names_it(
        make_settings: Any, embedder: Embedder, nlp: Any) -> None:
    """A graph delta names its new documents from kg.store.document_heads too: the title's count is the whole
    corpus's, so a third "Staff profile" is a generic title there as well."""
    settings = make_settings(graph=GraphSettings(delta_min_chunks=0, delta_max_share=1.0))
    with Runtime(settings, embedder=embedder) as rt:
        docs = {source: load_text(text, source=source, title=title) for source, title, text in PROFILES}
        Ingestor.from_runtime(rt).ingest_documents([d for s, d in docs.items() if s != "p/03.txt"])
        publish_bm25(rt)
        assert build(rt, nlp).delta_chunks == 0
        added = Ingestor.from_runtime(rt).ingest_documents([docs["p/03.txt"]])
        publish_bm25(rt)
        assert build(rt, nlp).delta_chunks > 0
        laid = graph_holder(rt).current()
        assert laid is not None
        node = laid.document_node(added.document_ids["p/03.txt"])
        assert node is not None and laid.name(node) == "Sunniva Brekke"
        linked = build_graph_retriever(rt).retrieve(Query("When did Sunniva Brekke join?", k=5)).explanation
        assert (linked["linked_entities"][0]["name"], linked["linked_entities"][0]["how"]) == ("Sunniva Brekke",
                                                                                             "title")
