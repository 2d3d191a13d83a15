"""The dense floor drops to ``min_dense_similarity_named`` only for a question anchored in its passages."""

from __future__ import annotations

import dataclasses
from typing import Any

from kgrag.core.settings import AnswerSettings, Settings
from kgrag.retrieval.answer.grounded import gate
from kgrag.retrieval.gate import Evidence, assess
from kgrag.retrieval.results import PassageHit, PipelineResult

from tests.kg_fixtures import nlp_fixture  # noqa: F401  (the `nlp` fixture)

REPORT = ("Incident report HB-2024-019. Reported by: Ruth Penhallow, Senior Pilot. At 05:55 on 22 October 2024 "
          "the pilot boat Gannet touched the bottom at the North Breakwater entrance.")
PROFILE = "Staff profile. Name: Ruth Penhallow. Ruth Penhallow was born in Penzance in 1968 and joined in 1994."


def _result(question: str, dense: float, *texts: str) -> PipelineResult:
    hits = tuple(PassageHit(rank=i, chunk_id=i, document_id=i, text=text, source=f"d{i}.md", title=f"Doc {i}",
                            page=None, fused_score=1 / 61, ranks={"dense": i}, scores={"dense": dense})
                 for i, text in enumerate(texts, start=1))
    return PipelineResult(question=question, signals=("dense",), hits=hits, statuses={}, timings={"total": 0.0},
                          fused_lists=("dense",))


def test_assess_uses_the_named_floor_only_when_anchored() -> None:
    s = AnswerSettings(min_fused_score=0.0, min_dense_similarity=0.4, min_dense_similarity_named=0.25)
    assert assess(Evidence(3, best_fused=1.0, best_dense=0.3), s).verdict == "refuse"
    assert assess(Evidence(3, best_fused=1.0, best_dense=0.3, anchored=True), s).verdict == "pass"
    below = assess(Evidence(3, best_fused=1.0, best_dense=0.2, anchored=True), s)
    assert below.verdict == "refuse" and "below 0.25" in below.reason


def test_a_paraphrased_question_whose_names_the_passages_hold_passes_at_a_lower_cosine(nlp: Any) -> None:
    settings = Settings()
    asked = "Where was the person who reported incident HB-2024-019 born?"
    anchored = gate(_result(asked, 0.31, REPORT, PROFILE), settings, nlp)
    assert anchored.verdict == "pass", anchored.reason
    # the same cosine for a question naming what no passage mentions: refused, and by the names
    absent = gate(_result("Where was the person who reported incident HB-2025-077 born?", 0.31, REPORT, PROFILE),
                  settings, nlp)
    assert absent.verdict == "refuse" and "0.4" in absent.reason
    # a question that writes no name keeps the ordinary floor, whatever the passages hold
    unnamed = gate(_result("Where was the person who reported the incident born?", 0.31, REPORT, PROFILE),
                   settings, nlp)
    assert unnamed.verdict == "refuse" and "below 0.4" in unnamed.reason
    # and without spaCy (a retrieval-only request) nothing is anchored
    assert gate(_result(asked, 0.31, REPORT, PROFILE), settings).verdict == "refuse"


def test_a_name_the_graph_linked_whole_is_context_where_the_passages_leave_it_out(nlp: Any) -> None:
    """Staff profiles seldom name their own company: "when did Ruth Penhallow join Merrow Harbour Agency?" is
    not about an absent thing when the graph linked "Merrow Harbour Agency" whole (the corpus holds it). A name
    the graph matched only in part ("Merrow") proves nothing, and a question whose every name is absent is
    still refused."""
    settings = Settings()
    asked = "When did Ruth Penhallow join Merrow Harbour Agency?"
    plain = _result(asked, 0.6, PROFILE)
    assert gate(plain, settings, nlp).reason == "No passage mentions Merrow Harbour Agency."

    def linked(result: PipelineResult, *entities: tuple[str, str, float], how: str = "ner") -> PipelineResult:
        graph = {"linked_entities": [{"name": n, "matched": m, "how": how, "score": s} for n, m, s in entities]}
        return dataclasses.replace(result, explanations={"graph": graph})

    whole = linked(plain, ("Merrow Harbour Agency", "Merrow Harbour Agency", 1.0), ("Ruth Penhallow", "Ruth Penhallow",
                                                                                     1.0))
    assert gate(whole, settings, nlp).verdict == "pass"
    part = linked(plain, ("Merrow Harbour Agency", "Merrow", 0.43))
    assert gate(part, settings, nlp).verdict == "refuse"
    # a whole link scores less when many documents name the entity ("joined Brackenridge" in every profile):
    # the corpus holds it all the same; a fuzzy link to a look-alike does not say so
    many = linked(plain, ("Merrow Harbour Agency", "Merrow Harbour Agency", 0.43))
    assert gate(many, settings, nlp).verdict == "pass"
    fuzzy = linked(plain, ("Merrow Harbour Agency", "Merrow Harbour Agency", 0.6), how="fuzzy")
    assert gate(fuzzy, settings, nlp).verdict == "refuse"
    nobody = linked(_result("When did Agnes Treloar join Merrow Harbour Agency?", 0.6, PROFILE),
                    ("Merrow Harbour Agency", "Merrow Harbour Agency", 1.0))
    assert gate(nobody, settings, nlp).reason == "No passage mentions Agnes Treloar or Merrow Harbour Agency."
