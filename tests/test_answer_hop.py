"""A second hop for a question that describes its subject (retrieval/answer/hop.py).

"In which town is the company that supplied the cable based?" The first passages name the supplier; its
own page, which says where it is, shares few words with the question and a generic title. The hop asks
the question again with the bridge's name in place of the description, and the answer reads the chain.
Real spaCy, real embeddings, a real pipeline over a real database.
"""

from __future__ import annotations

from typing import Any

import pytest
from kgrag.core.models import Embedder
from kgrag.core.runtime import Runtime
from kgrag.ingest.loaders import load_text
from kgrag.retrieval.answer import ExtractiveAnswerer, Passage
from kgrag.retrieval.answer.grounded import answer_passages, gate, grounded_answer
from kgrag.retrieval.answer.hop import answering_chunks, bridge_passages, follow_bridge, second_hop
from kgrag.retrieval.pipeline import build_pipeline
from kgrag.retrieval.results import PassageHit

from tests.kg_fixtures import nlp_fixture  # noqa: F401  (the `nlp` fixture)
from tests.retrieval_corpus import ingest

INCIDENT = ("Incident note", "On 3 May a container fell from the crane at Berth 7 when its hoist cable parted. "
                             "The hoist cable had been supplied by Velloria Rigging in 2018.")
PROFILE = ("Supplier profile", "Velloria Rigging is a wire rope maker based in Dunmarsh. It has made slings and "
                               "cables for ports since 1974.")


def _passages(*texts: tuple[str, str]) -> list[tuple[Passage, str]]:
    out = []
    for i, (title, text) in enumerate(texts, start=1):
        out.append((Passage(i, 100 + i, 100 + i, text, f"{title}.md", title), text))
    return out


@pytest.mark.parametrize(("question", "hop"), [
    ("In which town is the company that supplied the hoist cable at Berth 7 based?",
     "In which town is Velloria Rigging based?"),
    ("Where is the supplier of the hoist cable at Berth 7 based?", "Where is Velloria Rigging based?"),
])
def test_the_bridge_the_passages_state_replaces_the_description(nlp: Any, question: str, hop: str) -> None:
    found = second_hop(question, _passages(INCIDENT), nlp)
    assert found is not None and (found.question, found.bridge) == (hop, "Velloria Rigging")


def test_no_hop_where_the_passages_answer_or_the_question_names_its_subject(nlp: Any) -> None:
    described = "In which town is the company that supplied the hoist cable at Berth 7 based?"
    assert second_hop(described, _passages(INCIDENT, PROFILE), nlp) is None  # answered already
    assert second_hop("Where is Velloria Rigging based?", _passages(INCIDENT), nlp) is None  # named
    unrelated = ("Harbour note", "The harbour office at Berth 7 opens at eight.")
    assert second_hop(described, _passages(unrelated), nlp) is None  # no sentence states a supplier


def test_the_hop_retrieves_the_bridges_page_and_the_answer_cites_both(
        runtime: Runtime, embedder: Embedder, nlp: Any) -> None:
    ingest(runtime, [load_text(text, source=f"notes/{i}.md", title=title)
                     for i, (title, text) in enumerate([INCIDENT, PROFILE, (
                         "Crane log", "The Berth 7 crane lifted 212 containers in May. Its cable and hoist were "
                                      "inspected in April and again after the incident.")])])
    settings = runtime.settings.model_copy(update={"answer": runtime.settings.answer.model_copy(
        update={"max_passages": 1, "check_support": False})})
    question = "In which town is the company that supplied the hoist cable at Berth 7 based?"
    with build_pipeline(runtime, signals=("dense", "bm25")) as pipe:
        def run(q: str) -> Any:
            return pipe.run(q, rerank=False, top_k=5)

        first = run(question)
        assert [h.source for h in first.hits[:1]] == ["notes/0.md"]  # one passage: the incident, not the profile
        result = follow_bridge(first, run, nlp, settings)
        no_hop = follow_bridge(first, run, nlp, settings.model_copy(update={"answer": settings.answer.model_copy(
            update={"hop_passages": 0})}))
    assert result.hop == "In which town is Velloria Rigging based?" and result.hop_added >= 1
    assert [p.source for p in answer_passages(result, settings)][:2] == ["notes/0.md", "notes/1.md"]
    answerer = ExtractiveAnswerer(embedder, nlp)
    answer = grounded_answer(result, gate(result, settings), answerer, settings)
    assert answer.short == "Dunmarsh", answer.text
    assert "[1]" in answer.text and "[2]" in answer.text  # the bridge's sentence and the town's
    assert no_hop.hop == "" and grounded_answer(no_hop, gate(no_hop, settings), answerer, settings).short == ""


FILM = ("The Song of Lanterns", "The Song of Lanterns is a 1982 Armenian drama film directed and written by "
                                "Albert Mkrtchyan.")


def test_the_described_subject_sits_inside_an_attribute_noun_and_joined_verbs_share_their_agent(nlp: Any) -> None:
    """"the place of death of the director of film X": the bridge replaces "the director of film X", and "directed
    and written by Y" states who directed it (the "by" hangs on the second verb)."""
    found = second_hop("Where was the place of death of the director of film The Song of Lanterns?",
                       _passages(FILM), nlp)
    assert found is not None and found.question == "Where was the place of death of Albert Mkrtchyan?"
    found = second_hop("What is the nationality of the director of film The Song of Lanterns?", _passages(FILM), nlp)
    assert found is not None and found.bridge == "Albert Mkrtchyan"


def _hit(chunk_id: int, title: str, text: str) -> PassageHit:
    return PassageHit(rank=chunk_id, chunk_id=chunk_id, document_id=chunk_id, text=text, source=f"{chunk_id}.md",
                      title=title, page=None, fused_score=0.0, position=0)


def test_the_hop_adds_the_bridges_own_page_before_pages_that_only_mention_it() -> None:
    hits = [_hit(1, "Minutes, 9 April", "Present: Ada Quist, Ewan Pask. Ada Quist reported on the dredging."),
            _hit(2, "Minutes, 3 March", "Present: Ewan Pask. The board approved the budget."),
            _hit(3, "Staff profile", "Staff profile\nName: Ada Quist\nAda Quist was born in Falmouth."),
            _hit(4, "Minutes, 1 May", "Present: Ada Quist. Ada Quist presented the safety report.")]
    added = bridge_passages(hits, seen={4}, bridge="Ada Quist", limit=2)
    assert [h.chunk_id for h in added] == [3, 1]  # her profile first; minutes without her, and those seen, never


def test_a_description_inside_a_description_hops_through_its_innermost_bridge(nlp: Any) -> None:
    """"The budget line owned by the officer who reported incident QX-2026-031": the first passages say who
    reported it, not which line she owns; the hop asks for the line owned by her."""
    report = ("Incident report QX-2026-031", "Incident QX-2026-031: oil sheen at Berth 2. Reported by Lena Dahl, "
                                             "Safety Officer. The sheen was cleared by noon.")
    found = second_hop("How much is budgeted for 2026 on the budget line owned by the officer who reported "
                       "incident QX-2026-031?", _passages(report), nlp)
    assert found is not None and found.bridge == "Lena Dahl"
    assert found.question == "How much is budgeted for 2026 on the budget line owned by Lena Dahl?"


def test_the_hop_adds_first_the_passage_that_answers_its_question(nlp: Any) -> None:
    """Her profile is her own page, but says nothing of budgets: the budget row that names her answers."""
    hits = [_hit(1, "Staff profile", "Staff profile\nName: Lena Dahl\nLena Dahl was born in Bodø."),
            _hit(2, "budget-2026", "cost_code: OP-SAF; budget_line: Safety; owner: Lena Dahl; budget_2026_gbp: "
                                   "61000"),
            _hit(3, "Minutes, 2 May", "Present: Lena Dahl. Lena Dahl presented the safety report.")]
    question = "How much is budgeted for 2026 on the budget line owned by Lena Dahl?"
    stating = answering_chunks(question, hits, nlp)
    assert stating == frozenset({2})
    added = bridge_passages(hits, seen=set(), bridge="Lena Dahl", limit=2, stating=stating)
    assert [h.chunk_id for h in added] == [2, 1]


def test_no_hop_through_a_number(nlp: Any) -> None:
    """A budget row answers "which work was paid for from budget line BL-40?" with its amount when no column
    names the work: a number is no bridge to retrieve by."""
    row = ("budget", "line: BL-40; description: Roof works; owner: Emil Sand; amount_gbp: 64000")
    assert second_hop("Who is the contact person at the contractor carrying out the work paid for from budget line "
                      "BL-40?", _passages(row), nlp) is None


def test_a_bridge_no_first_passage_names_is_found_by_asking_the_description_alone(
        runtime: Runtime, embedder: Embedder, nlp: Any) -> None:
    """The whole question is about an account manager; the register row that says who made the unit shares few
    of its words and is not among the first passages. The description, asked by itself, retrieves it, and the
    hop then reaches the maker's page."""
    register = ("equipment register", "asset code: KX-EQ-0145; item: Ultrasound therapy unit; clinic: Orrin "
                                      "Clinic; maker: Tallis Medical Devices; purchase year: 2020")
    supplier = ("Supplier page: Tallis Medical Devices", "Tallis Medical Devices is based in Kelbridge. Tallis "
                                                         "has been an approved supplier since 2019. Our account "
                                                         "manager there is Ivo Brandt.")
    staff = [(f"Orrin Clinic notice {i}", f"Orrin Clinic: the ultrasound therapy unit is booked through our "
                                          f"account manager at the clinic desk, who made the rota (notice {i}).")
             for i in range(4)]
    ingest(runtime, [load_text(text, source=f"notes/{i}.md", title=title)
                     for i, (title, text) in enumerate([register, supplier, *staff])])
    question = "Who is our account manager at the company that made the ultrasound therapy unit at Orrin Clinic?"
    settings = runtime.settings.model_copy(update={"answer": runtime.settings.answer.model_copy(
        update={"max_passages": 2, "check_support": False})})
    with build_pipeline(runtime, signals=("dense", "bm25")) as pipe:
        def run(q: str) -> Any:
            return pipe.run(q, rerank=False, top_k=10)

        first = run(question)
        assert "notes/0.md" not in [h.source for h in first.hits[:2]]  # the row is not among the first passages
        result = follow_bridge(first, run, nlp, settings)
    assert result.hop == "Who is our account manager at Tallis Medical Devices?", result.hop
    answer = grounded_answer(result, gate(result, settings), ExtractiveAnswerer(embedder, nlp), settings)
    assert answer.short == "Ivo Brandt", answer.text
