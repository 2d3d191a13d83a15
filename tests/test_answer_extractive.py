"""The offline extractive answerer and the confidence gate."""

from __future__ import annotations

from core.models import Embedder
from core.settings import AnswerSettings
from core.types import ChunkRecord
from retrieval.answer import ExtractiveAnswerer, complete, number_passages, resolve_citations
from retrieval.answer.extractive import EXTRACTIVE_NOTICE, split_sentences
from retrieval.gate import Evidence, assess

CHUNKS = [
    ChunkRecord(id=11, document_id=1, position=0, page=None, source="a.md", title="Cities",
                text="Paris is the capital of France. It has many museums.\nThe Seine runs through it."),
    ChunkRecord(id=22, document_id=2, position=0, page=2, source="b.pdf", title="Volcanoes",
                text="Mount Etna is an active volcano in Sicily. It erupts often."),
]


def test_extractive_answer_picks_relevant_sentences_and_cites_them(embedder: Embedder) -> None:
    answerer = ExtractiveAnswerer(embedder, max_sentences=1)
    events = list(answerer.stream("Which volcano is active in Sicily?", number_passages(CHUNKS)))
    final = events[-1]
    assert events[0] == EXTRACTIVE_NOTICE
    assert final.mode == "extractive" and final.text.startswith("Extractive answer")
    assert "Mount Etna is an active volcano in Sicily. [2]" in final.text
    assert [(c.number, c.chunk_id, c.page) for c in final.citations] == [(2, 22, 2)]


def test_extractive_answer_works_without_an_embedder() -> None:
    answer = complete(ExtractiveAnswerer(None, max_sentences=2), "capital of France", number_passages(CHUNKS))
    assert "Paris is the capital of France. [1]" in answer.text
    assert answer.citations[0].chunk_id == 11


def test_split_sentences_and_citation_forms() -> None:
    text = "# A heading line\nThe first sentence is here. Too short.\nA third line goes here"
    assert split_sentences(text) == ["The first sentence is here.", "A third line goes here"]
    citations, unresolved = resolve_citations("x [1][2] y [2; 1] z [3]", number_passages(CHUNKS))
    assert [c.number for c in citations] == [1, 2] and unresolved == (3,)


def test_gate_uses_rerank_when_it_ran_else_fused_and_dense() -> None:
    s = AnswerSettings(min_rerank_score=0.0, min_fused_score=0.5, min_dense_similarity=0.4)
    assert assess(Evidence(3, best_rerank=2.0, best_fused=0.1, best_dense=0.1), s).verdict == "pass"
    assert assess(Evidence(3, best_rerank=-4.0, best_fused=1.0, best_dense=0.9), s).verdict == "refuse"
    assert assess(Evidence(3, best_fused=1.0, best_dense=0.6), s).verdict == "pass"
    weak = assess(Evidence(3, best_fused=1.0, best_dense=0.2), s)
    assert weak.verdict == "refuse" and "dense similarity 0.200 is below 0.4" in weak.reason
    assert assess(Evidence(3, best_fused=0.2), s).verdict == "refuse"
    assert assess(Evidence(0), s).verdict == "refuse"
    assert assess(Evidence(3, best_fused=1.0, best_dense=0.2), s.model_copy(update={"on_weak_evidence": "warn"})
                  ).verdict == "warn"


def test_extractive_answer_draws_on_a_second_passage_and_names_pronoun_subjects(embedder: Embedder) -> None:
    chunks = [
        ChunkRecord(id=1, document_id=1, position=0, page=None, source="lumen.md", title="Lumen Robotics",
                    text="Lumen Robotics was acquired by Northwind Dynamics. Lumen Robotics built robot arms. "
                         "Lumen Robotics was based in Tallinn."),
        ChunkRecord(id=2, document_id=2, position=0, page=None, source="northwind.md", title="Northwind Dynamics",
                    text="It was founded by Ingrid Halvorsen in Bergen in 1998."),
    ]
    answer = complete(ExtractiveAnswerer(embedder, max_sentences=3),
                      "Who founded the company that acquired Lumen Robotics?", number_passages(chunks))
    assert "Northwind Dynamics: It was founded by Ingrid Halvorsen in Bergen in 1998. [2]" in answer.text
    assert answer.text.count("[1]") == 2  # at most two sentences from one passage
